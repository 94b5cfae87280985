//! Node lists of the multihop set-ups (multihop.md §2.1, §3.1, §4.1), at their paths in this
//! crate: they are part of the `[multihop]` schema, in
//! [`coapcc_driver::scenario::multihop`].

pub use coapcc_driver::scenario::multihop::{Position, Role, Topology};
