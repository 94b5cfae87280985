//! RTO estimators: the mechanisms that turn RTT samples into a retransmission timeout, shared
//! by the controllers in [`crate::algorithms`].
//!
//! | module | estimator | used by |
//! |---|---|---|
//! | [`rfc6298`] | RFC 6298 SRTT / RTTVAR | CoCoA (strong and weak), FASOR, 4-state |
//! | [`cocoa`] | CoCoA-03's strong / weak / overall RTO with aging | CoCoA, pCoCoA (aging), BDP |
//! | [`makarem`] | Makarem et al.'s RTO (γ on falling RTTs, K = 7 after a spurious one) | IDC, MBC |
//! | [`vj`] | Van Jacobson's scaled integers as uIP codes them | uIP, Lim |

pub mod cocoa;
pub mod makarem;
pub mod rfc6298;
pub mod vj;

use core::time::Duration;

use crate::algorithms::pcocoa::{PCocoa, PCocoaState};
use crate::controller::Controller;
use crate::time::Instant;

/// An algorithm's RTO estimator on its own, fed exact RTT samples one by one (the RTT-trace
/// model of Makarem et al. §6.1, testbeds §3). Made by
/// [`AnyController::rto_estimator`](crate::AnyController::rto_estimator), so a driver never
/// restates an algorithm's parameters.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum RtoEstimator {
    /// Makarem's estimator (IDC, MBC).
    Makarem(makarem::MakaremRto, makarem::MakaremRtoParams),
    /// pCoCoA's estimator (it lives in the algorithm; aging is not applied: all samples at
    /// time zero).
    PCocoa(PCocoa, PCocoaState),
    /// CoCoA's overall RTO; exact samples are all strong (no retransmission ambiguity).
    Cocoa(cocoa::CocoaRto, cocoa::CocoaRtoParams),
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
            RtoEstimator::Makarem(e, _) => e.rto(),
            RtoEstimator::PCocoa(p, st) => p.rto(st, Instant::ZERO).unwrap_or_default(),
            RtoEstimator::Cocoa(e, _) => e.overall.get(),
            RtoEstimator::Rfc6298 { est, params, initial, cap } => {
                let r = est.rto(params).unwrap_or(*initial);
                cap.map_or(r, |c| r.min(c))
            }
            RtoEstimator::Fixed(d) => *d,
        }
    }

    /// Folds in the RTT sample `r`; `spurious`: the current RTO was below it.
    pub fn sample(&mut self, r: Duration, spurious: bool) {
        match self {
            RtoEstimator::Makarem(e, p) => {
                e.sample(r, spurious, p);
            }
            RtoEstimator::PCocoa(p, st) => p.on_sample(st, Instant::ZERO, r, spurious),
            RtoEstimator::Cocoa(e, p) => {
                e.on_sample(Instant::ZERO, 0, r, p);
            }
            RtoEstimator::Rfc6298 { est, params, .. } => est.sample(r, params),
            RtoEstimator::Fixed(_) => {}
        }
    }
}
