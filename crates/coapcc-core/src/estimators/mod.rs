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
