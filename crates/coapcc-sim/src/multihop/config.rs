//! The `[multihop]` schema, at its paths in this crate: the types live in
//! [`coapcc_driver::scenario::multihop`], which checks a scenario's table into them.

pub use coapcc_driver::scenario::multihop::{MultihopConfig, RdcKind};
