//! RTO estimators: the mechanisms that turn RTT samples into a retransmission timeout, shared
//! by the controllers in [`crate::algorithms`].
//!
//! | module | estimator | used by |
//! |---|---|---|
//! | [`rfc6298`] | RFC 6298 SRTT / RTTVAR | CoCoA (strong and weak), FASOR, 4-state |
//! | [`cocoa`] | CoCoA-03's strong / weak / overall RTO with aging | CoCoA, pCoCoA (aging), BDP |
//! | [`makarem`] | Makarem et al.'s RTO (γ on falling RTTs, K = 7 after a spurious one) | IDC, MBC |
//! | [`vj`] | Van Jacobson's scaled integers as uIP codes them | uIP, Lim |

#[cfg(feature = "_cocoa-rto")]
pub mod cocoa;
#[cfg(feature = "_makarem")]
pub mod makarem;
#[cfg(feature = "_rfc6298")]
pub mod rfc6298;
#[cfg(feature = "_vj")]
pub mod vj;

use core::time::Duration;

#[cfg(feature = "pcocoa")]
use crate::algorithms::pcocoa::{PCocoa, PCocoaState};
#[cfg(feature = "pcocoa")]
use crate::controller::Controller;
#[allow(unused_imports)]
use crate::time::Instant;

/// An algorithm's RTO estimator on its own, fed exact RTT samples one by one (the RTT-trace
/// model of Makarem et al. §6.1, testbeds §3). Made by
/// [`AnyController::rto_estimator`](crate::AnyController::rto_estimator), so a driver never
/// restates an algorithm's parameters.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum RtoEstimator {
    #[cfg(feature = "_makarem")]
    /// Makarem's estimator (IDC, MBC).
    Makarem(makarem::MakaremRto, makarem::MakaremRtoParams),
    #[cfg(feature = "pcocoa")]
    /// pCoCoA's estimator (it lives in the algorithm; aging is not applied: all samples at
    /// time zero).
    PCocoa(PCocoa, PCocoaState),
    #[cfg(feature = "_cocoa-rto")]
    /// CoCoA's overall RTO; exact samples are all strong (no retransmission ambiguity).
    Cocoa(cocoa::CocoaRto, cocoa::CocoaRtoParams),
    #[cfg(feature = "_rfc6298")]
    /// One RFC 6298 estimator (FASOR's FastRTO): its RTO, or `initial` before a sample, capped.
    Rfc6298 {
        /// The estimator.
        est: rfc6298::Rfc6298,
        /// Its constants.
        params: rfc6298::Rfc6298Params,
        /// The RTO before the first sample.
        initial: Duration,
        /// Ceiling on the RTO.
        cap: Option<Duration>,
    },
    /// A fixed timer (Default CoAP's ACK_TIMEOUT).
    Fixed(Duration),
}

impl RtoEstimator {
    /// The current RTO.
    pub fn rto(&self) -> Duration {
        match self {
            #[cfg(feature = "_makarem")]
            RtoEstimator::Makarem(e, _) => e.rto(),
            #[cfg(feature = "pcocoa")]
            RtoEstimator::PCocoa(p, st) => p.rto(st, Instant::ZERO).unwrap_or_default(),
            #[cfg(feature = "_cocoa-rto")]
            RtoEstimator::Cocoa(e, _) => e.overall.get(),
            #[cfg(feature = "_rfc6298")]
            RtoEstimator::Rfc6298 { est, params, initial, cap } => {
                let r = est.rto(params).unwrap_or(*initial);
                cap.map_or(r, |c| r.min(c))
            }
            RtoEstimator::Fixed(d) => *d,
        }
    }

    /// Folds in the RTT sample `r`; `spurious`: the current RTO was below it.
    pub fn sample(&mut self, r: Duration, spurious: bool) {
        // Not every estimator uses both (and with some features none is compiled in).
        let _ = (r, spurious);
        match self {
            #[cfg(feature = "_makarem")]
            RtoEstimator::Makarem(e, p) => {
                e.sample(r, spurious, p);
            }
            #[cfg(feature = "pcocoa")]
            RtoEstimator::PCocoa(p, st) => p.on_sample(st, Instant::ZERO, r, spurious),
            #[cfg(feature = "_cocoa-rto")]
            RtoEstimator::Cocoa(e, p) => {
                e.on_sample(Instant::ZERO, 0, r, p);
            }
            #[cfg(feature = "_rfc6298")]
            RtoEstimator::Rfc6298 { est, params, .. } => est.sample(r, params),
            RtoEstimator::Fixed(_) => {}
        }
    }
}
