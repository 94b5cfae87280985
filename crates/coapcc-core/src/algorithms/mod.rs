//! One file per controller (estimators are in [`crate::estimators`], backoff mechanisms in
//! [`crate::backoff`]), each with the same skeleton: module doc naming the source and
//! spec section → configuration (`Default` = the source's values, presets as functions) →
//! state struct → `impl Controller` → tests that reproduce the spec's vectors.

pub mod bdp;
pub mod cocoa;
pub mod default_coap;
pub mod fasor;
pub mod four_state;
pub mod idc;
pub mod lim;
pub mod mbc;
pub mod pcocoa;
pub mod uip;
