//! Run builders shared by the engine's tests: minimal line and Betzler set-ups, Lim's
//! workload, one run to its result.

use coapcc_core::Duration;

use super::{CoapSaturated, LimTcp, MultihopConfig, MultihopSim, MultihopWorkload, RdcKind, TopologyChoice};
use crate::multihop::ContikiVersion;
use crate::multihop::medium::UdgmConfig;
use crate::multihop::metrics::MultihopResult;
use coapcc_driver::scenario::multihop::CsmaConfig;

/// One sequential CoAP client on a line: node `hops` → node 0, `exchanges` exchanges.
pub(super) fn line_coap(rdc: RdcKind, hops: u32, exchanges: u64, algorithm: &str) -> MultihopConfig {
    MultihopConfig {
        topology: TopologyChoice::Line { nodes: hops + 1, spacing_m: 40.0 },
        rdc,
        duration: Duration::from_secs(600),
        workload: MultihopWorkload::CoapSaturated(CoapSaturated {
            algorithm: algorithm.into(),
            senders: Some(vec![hops as u16]),
            receiver: Some(0),
            window_start: Duration::ZERO,
            start_window: Duration::ZERO,
            max_exchanges: Some(exchanges),
            ..CoapSaturated::default()
        }),
        ..MultihopConfig::default()
    }
}

/// Runs `cfg` with `seed` to its result.
pub(super) fn run(cfg: MultihopConfig, seed: u64) -> MultihopResult {
    MultihopSim::new(cfg, seed).unwrap().run().0
}

/// The Betzler surrogate with Contiki 2.7, NullRDC, lossless links, the 75 ms cloud delay
/// and `workload`.
pub(super) fn betzler_null_rdc(workload: MultihopWorkload) -> MultihopConfig {
    MultihopConfig {
        topology: TopologyChoice::Betzler,
        version: ContikiVersion::V2_7,
        rdc: RdcKind::NullRdc,
        csma: CsmaConfig::for_version(ContikiVersion::V2_7),
        udgm: UdgmConfig { success_ratio_tx: 1.0, ..UdgmConfig::for_version(ContikiVersion::V2_7) },
        host_delay: Duration::from_millis(75),
        duration: Duration::from_secs(3600),
        workload,
        ..MultihopConfig::default()
    }
}

/// [`line_coap`] with Makarem's CON read as an 80-B CoAP message (OQ-M9).
pub(super) fn coap_80(hops: u32, fragmentation: bool) -> MultihopConfig {
    MultihopConfig { makarem_coap_len: Some(80), fragmentation, ..line_coap(RdcKind::NullRdc, hops, 20, "default") }
}

/// Lim's TCP reports with `scheme` on `topology` over `rdc`, `minutes` of data phase.
pub(super) fn lim(topology: TopologyChoice, rdc: RdcKind, scheme: &str, minutes: u64) -> MultihopConfig {
    MultihopConfig {
        topology,
        rdc,
        duration: Duration::from_secs(60 * minutes),
        workload: MultihopWorkload::LimTcp(LimTcp { scheme: scheme.into(), ..LimTcp::default() }),
        ..MultihopConfig::default()
    }
}
