//! One file per controller (estimators are in [`crate::estimators`], backoff mechanisms in
//! [`crate::backoff`]), each with the same skeleton: module doc naming the source and
//! spec section → configuration (`Default` = the source's values, presets as functions) →
//! state struct → `impl Controller` → tests that reproduce the spec's vectors.

#[cfg(feature = "bdp")]
pub mod bdp;
#[cfg(feature = "cocoa")]
pub mod cocoa;
#[cfg(feature = "default-coap")]
pub mod default_coap;
#[cfg(feature = "fasor")]
pub mod fasor;
#[cfg(feature = "four-state")]
pub mod four_state;
#[cfg(feature = "idc")]
pub mod idc;
#[cfg(feature = "lim")]
pub mod lim;
#[cfg(feature = "mbc")]
pub mod mbc;
#[cfg(feature = "pcocoa")]
pub mod pcocoa;
#[cfg(feature = "uip")]
pub mod uip;
