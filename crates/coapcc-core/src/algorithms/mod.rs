//! One file per algorithm, each with the same skeleton: module doc naming the source and
//! spec section → configuration (`Default` = the source's values, presets as functions) →
//! state struct → `impl Controller` → tests that reproduce the spec's vectors.

pub mod bdp;
pub mod cocoa;
pub mod cocoa_rto;
pub mod default_coap;
pub mod fasor;
pub mod four_state;
pub mod full_backoff;
pub mod idc;
pub mod lim;
pub mod makarem_rto;
pub mod mbc;
pub mod pcocoa;
pub mod uip;
pub mod vbf;
