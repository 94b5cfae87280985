//! What the applications do (multihop.md §2.4, §3.3, §4.3; OQ-M5, OQ-M6, OQ-M14): the
//! `[multihop.workload]` table, one struct per workload with the papers' defaults in
//! `Default`. The simulator's multihop engine runs them (`coapcc_sim::multihop::MultihopSim`: the
//! CoAP workloads in `coap_app.rs`, Lim's TCP reports in `tcp_app.rs`).

use coapcc_core::Duration;
use coapcc_core::serde_ms;
use serde::Deserialize;

/// Which §1.2 table flows CoAP requests and responses use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoapFrames {
    /// Makarem: 80-B CON, 84-B ACK.
    #[default]
    Makarem,
    /// Betzler: GET request and piggybacked response.
    Betzler,
}

/// How many exchanges a CoAP client keeps in flight (OQ-M5, spec §2.4), the key
/// `client_mode` of every CoAP workload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientMode {
    /// Up to NSTART exchanges in flight per client (the literal reading of OQ-M5, default):
    /// the client starts NSTART exchanges and issues the next one when one ends.
    #[default]
    Parallel,
    /// One exchange at a time per client whatever the endpoint's NSTART (Betzler's 1-to-1
    /// read as throughput × duration = 1, OQ-M5 option, §6 check 13): the next request is
    /// issued when the previous exchange ends.
    Sequential,
}

impl ClientMode {
    /// The exchanges a client starts at once, given the endpoint's `nstart`.
    pub fn initial_requests(self, nstart: u16) -> u16 {
        match self {
            ClientMode::Parallel => nstart,
            ClientMode::Sequential => 1,
        }
    }
}

/// Continuous CoAP senders towards one receiver (Makarem §3.3; also the minimal
/// sequential client of checks 2, 3, 13).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoapSaturated {
    /// Algorithm name (`coapcc_core` registry).
    pub algorithm: String,
    /// NSTART per client.
    pub nstart: u16,
    /// `parallel` (up to NSTART in flight, default) or `sequential` (one at a time, OQ-M5).
    pub client_mode: ClientMode,
    /// Sender node ids (default: every node with role `Sender`, else every end node).
    pub senders: Option<Vec<u16>>,
    /// Receiver node id (default: the node with role `Receiver`, else the border router).
    pub receiver: Option<u16>,
    /// Frame sizes.
    pub frames: CoapFrames,
    /// Start of the measurement window (OQ-M19: 100 s).
    #[serde(rename = "window_start_ms", with = "serde_ms")]
    pub window_start: Duration,
    /// Senders start at U[0, start_window) (mote start-up spread, §1.1).
    #[serde(rename = "start_window_ms", with = "serde_ms")]
    pub start_window: Duration,
    /// Stop each client after this many exchanges (`None`: saturated until the end).
    pub max_exchanges: Option<u64>,
}

impl Default for CoapSaturated {
    fn default() -> Self {
        CoapSaturated {
            algorithm: "idc".into(),
            nstart: 1,
            client_mode: ClientMode::Parallel,
            senders: None,
            receiver: None,
            frames: CoapFrames::Makarem,
            window_start: Duration::from_secs(100),
            start_window: Duration::from_secs(1),
            max_exchanges: None,
        }
    }
}

/// Betzler's 1-to-1 baseline (§2.4): a cloud client exchanges `exchanges` CON–ACK pairs with
/// each server in turn, with up to NSTART in flight, a pause between servers and a fresh
/// endpoint (controller state reset) per server.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoapOneToOne {
    /// Algorithm name.
    pub algorithm: String,
    /// NSTART.
    pub nstart: u16,
    /// `parallel` (up to NSTART in flight, default) or `sequential` (one at a time, OQ-M5).
    pub client_mode: ClientMode,
    /// Exchanges per server.
    pub exchanges: u64,
    /// Pause between servers.
    #[serde(rename = "pause_ms", with = "serde_ms")]
    pub pause: Duration,
    /// Server node ids (default: every end node, by id).
    pub servers: Option<Vec<u16>>,
}

impl Default for CoapOneToOne {
    fn default() -> Self {
        CoapOneToOne {
            algorithm: "default".into(),
            nstart: 1,
            client_mode: ClientMode::Parallel,
            exchanges: 50,
            pause: Duration::from_secs(5),
            servers: None,
        }
    }
}

/// Betzler's many-to-many scenario (§2.4, OQ-M6): one cloud client per server (client k ↔
/// server k), `exchanges` CON–ACK pairs each with up to NSTART in flight, client start times
/// U[0, start_window). The run ends when every client is done.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoapManyToMany {
    /// Algorithm name.
    pub algorithm: String,
    /// NSTART per client.
    pub nstart: u16,
    /// `parallel` (up to NSTART in flight, default) or `sequential` (one at a time, OQ-M5).
    pub client_mode: ClientMode,
    /// Exchanges per client.
    pub exchanges: u64,
    /// Client start times U[0, start_window).
    #[serde(rename = "start_window_ms", with = "serde_ms")]
    pub start_window: Duration,
    /// Server node ids (default: every end node, by id).
    pub servers: Option<Vec<u16>>,
}

impl Default for CoapManyToMany {
    fn default() -> Self {
        CoapManyToMany {
            algorithm: "default".into(),
            nstart: 1,
            client_mode: ClientMode::Parallel,
            exchanges: 50,
            start_window: Duration::from_secs(1),
            servers: None,
        }
    }
}

/// Betzler's cross-traffic burst (§2.4, OQ-M6): continuous clients exchange CON–ACK pairs
/// with one server at each depth 1, 2, 3, 4 (lowest id); at `burst_at`, one client per
/// remaining server exchanges `exchanges` pairs; the run ends `tail` after the burst
/// completed. The continuous flows record (time, duration, RTO) series.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoapCrossTraffic {
    /// Algorithm name.
    pub algorithm: String,
    /// NSTART per client.
    pub nstart: u16,
    /// `parallel` (up to NSTART in flight, default) or `sequential` (one at a time, OQ-M5).
    pub client_mode: ClientMode,
    /// Depths (hop counts) of the continuous servers, one server each.
    pub continuous_depths: Vec<u32>,
    /// Burst start.
    #[serde(rename = "burst_at_ms", with = "serde_ms")]
    pub burst_at: Duration,
    /// Exchanges per burst client.
    pub exchanges: u64,
    /// Simulated time after the burst completed.
    #[serde(rename = "tail_ms", with = "serde_ms")]
    pub tail: Duration,
}

impl Default for CoapCrossTraffic {
    fn default() -> Self {
        CoapCrossTraffic {
            algorithm: "default".into(),
            nstart: 1,
            client_mode: ClientMode::Parallel,
            continuous_depths: vec![1, 2, 3, 4],
            burst_at: Duration::from_secs(60),
            exchanges: 50,
            tail: Duration::from_secs(60),
        }
    }
}

/// Lim's periodic TCP reports (§4.3).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimTcp {
    /// Retransmission scheme: `uip`, `uip-dither` or `lim`.
    pub scheme: String,
    /// Maximum retransmissions of a data segment (15 in Lim §6).
    pub max_retransmissions: u8,
    /// Payload per segment (Sky MSS 48 B).
    pub payload_bytes: u32,
    /// One mote starts connecting every this often, farthest first.
    #[serde(rename = "connect_interval_ms", with = "serde_ms")]
    pub connect_interval: Duration,
    /// Data phase starts this long after the last mote started connecting.
    #[serde(rename = "setup_grace_ms", with = "serde_ms")]
    pub setup_grace: Duration,
    /// Report interval lower bound (U[min, max)).
    #[serde(rename = "report_min_ms", with = "serde_ms")]
    pub report_min: Duration,
    /// Report interval upper bound.
    #[serde(rename = "report_max_ms", with = "serde_ms")]
    pub report_max: Duration,
    /// All SYNs at t = 0 instead of the sequential schedule (claim L1).
    pub simultaneous_setup: bool,
    /// Quantise timer expiries to the 0.5-s uIP periodic timer.
    pub periodic_timer: bool,
    /// The Linux server's delayed-ACK timeout (OQ-M14, §4.3): 0 = immediate ACKs (default);
    /// options 40 ms (`TCP_DELACK_MIN`) and 200 ms (`TCP_DELACK_MAX`); below 500 ms (RFC 1122
    /// §4.2.3.2).
    #[serde(rename = "server_delayed_ack_ms", with = "serde_ms")]
    pub server_delayed_ack: Duration,
}

impl Default for LimTcp {
    fn default() -> Self {
        LimTcp {
            scheme: "lim".into(),
            max_retransmissions: 15,
            payload_bytes: 48,
            connect_interval: Duration::from_secs(5),
            setup_grace: Duration::from_secs(5),
            report_min: Duration::from_secs(3),
            report_max: Duration::from_secs(9),
            simultaneous_setup: false,
            periodic_timer: true,
            server_delayed_ack: Duration::ZERO,
        }
    }
}

/// What the applications do.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MultihopWorkload {
    /// [`CoapSaturated`].
    CoapSaturated(CoapSaturated),
    /// [`CoapOneToOne`].
    CoapOneToOne(CoapOneToOne),
    /// [`CoapManyToMany`].
    CoapManyToMany(CoapManyToMany),
    /// [`CoapCrossTraffic`].
    CoapCrossTraffic(CoapCrossTraffic),
    /// [`LimTcp`].
    LimTcp(LimTcp),
}

impl Default for MultihopWorkload {
    fn default() -> Self {
        MultihopWorkload::LimTcp(LimTcp::default())
    }
}
