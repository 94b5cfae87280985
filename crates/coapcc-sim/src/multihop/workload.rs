//! The `[multihop.workload]` table, at its paths in this crate: the types live in
//! [`coapcc_driver::scenario::multihop`]; the engine runs them (`engine/coap_app.rs`,
//! `engine/tcp_app.rs`).

pub use coapcc_driver::scenario::multihop::{
    ClientMode, CoapCrossTraffic, CoapFrames, CoapManyToMany, CoapOneToOne, CoapSaturated, LimTcp, MultihopWorkload,
};
