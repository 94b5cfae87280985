//! Backoff mechanisms shared by the controllers in [`crate::algorithms`].
//!
//! | module | mechanism | used by |
//! |---|---|---|
//! | [`vbf`] | CoCoA's Variable Backoff Factor (spec §2.5, OQ-3) | CoCoA, pCoCoA |
//! | [`full_backoff`] | Full Backoff's carried timer (spec §4, OQ-8..OQ-11) | Default CoAP, CoCoA |
//! | [`tick_dither`] | Lim's whole-tick dithering (spec §9.2–9.3, OQ-36) | Lim, uIP + dithering |

#[cfg(feature = "_full-backoff")]
pub mod full_backoff;
#[cfg(feature = "_tick-dither")]
pub mod tick_dither;
#[cfg(feature = "_vbf")]
pub mod vbf;
