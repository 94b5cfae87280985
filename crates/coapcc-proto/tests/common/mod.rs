//! What the endpoint test files share: two endpoints' addresses, their configuration and
//! draining what they send and raise.

// Each test file uses a part of this.
#![allow(dead_code)]

use coapcc_core::{AnyConfig, Instant};
use coapcc_proto::{EchoMode, Endpoint, EndpointConfig, Event, Transmit};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

pub const CLIENT: u32 = 1;
pub const SERVER: u32 = 0;

pub type Ep = Endpoint<u32, Pcg64Mcg>;

/// The preset `name` without dithering, with `echo`.
pub fn config(name: &str, echo: EchoMode) -> EndpointConfig {
    let mut algorithm = AnyConfig::from_name(name).unwrap();
    algorithm.set_dither(false);
    EndpointConfig { echo, ..EndpointConfig::new(std::sync::Arc::new(algorithm.build().unwrap())) }
}

pub fn endpoint(cfg: EndpointConfig) -> Ep {
    Endpoint::new(cfg, Pcg64Mcg::seed_from_u64(3)).unwrap()
}

pub fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

pub fn transmits(ep: &mut Ep) -> Vec<Transmit<u32>> {
    std::iter::from_fn(|| ep.poll_transmit()).collect()
}

pub fn events(ep: &mut Ep) -> Vec<Event<u32>> {
    std::iter::from_fn(|| ep.poll_event()).collect()
}
