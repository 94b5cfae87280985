//! The multihop discrete-event engine (spec multihop.md §1–4): every mote's CSMA + RDC
//! (NullRDC or ContikiMAC) on the UDGM medium, hop-by-hop forwarding along the static RPL
//! tree with per-hop frame sizes, forwarding and application delays (t_fwd, t_app, §1.6,
//! OQ-M18), the border router's SLIP line and the host / cloud delay (§1.7), and the
//! applications on top: CoAP endpoints ([`coapcc_proto::Endpoint`], any `coapcc_core`
//! algorithm) and Lim's window-of-one uIP TCP ([`super::tcp`]).
//!
//! Events are ordered by (time, class, sequence number): frame ends come before everything
//! else at the same instant ([`super::medium::Medium`]'s rule), then insertion order. All
//! randomness comes from per-consumer streams of [`coapcc_driver::rng::stream_rng`]: the
//! medium's draws, each mote's CSMA backoffs and wake-up phase, each endpoint, the workload,
//! each TCP connection (check 14).
//!
//! Modelling choices beyond the spec, all \[D\]:
//! * ContikiMAC: a mote accepts a unicast frame only while a channel check made it listen
//!   (R2); a mote running its own train does not deliver frames it overhears. A train is not
//!   started while the mote listens (R3/R5: `COLLISION`). A CSMA service that falls due
//!   while the mote's RDC is busy with another burst waits until that burst ends (the RDC is
//!   single-threaded in Contiki). A phase-locked train's wait (R4) keeps the RDC busy but
//!   the radio off, and channel checks go on meanwhile.
//! * t_app delays a CoAP request at a mote server before the endpoint sees it (so the
//!   response leaves t_app after the request arrived, check 2); responses reaching a client,
//!   the host side and TCP segments have no application delay.
//! * SLIP carries the IPv6 packet of the last radio hop (rules 1–4 length) + 2 B framing;
//!   one FIFO per direction.
//! * The uIP periodic timer (0.5 s, per-mote phase U[0, 0.5 s)) quantises TCP timer
//!   expiries up to its next tick (`tcp_periodic_timer`, §4.3).

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};
use std::sync::Arc;

use coapcc_core::config::serde_ms;
use coapcc_core::{AnyConfig, AnyController, ConfigError, Duration, Instant};
use coapcc_driver::rng::{SimRng, below, stream_rng, uniform_duration};
use coapcc_proto::endpoint::AutoResponse;
use coapcc_proto::message::Payload;
use coapcc_proto::{Code, Endpoint, EndpointConfig, Event, Message, MessageType};
use serde::Deserialize;

use super::csma::{BurstFrame, Csma, CsmaConfig, CsmaOutput, DropCause, SendOutcome, TxStatus};
use super::medium::{FrameId, Geometry, Medium, UdgmConfig};
use super::metrics::{CoapFlowResult, MacCounters, MultihopResult, TcpNodeResult, TcpResult, jain_index};
use super::phy::{Compressed, Endpoint as PhyEndpoint, FrameLenMode, FrameRules, PhyConfig, TableFlow, Transport};
use super::rdc::{
    AckActivity, ContikiMacConfig, FrameEnd, ListenStep, Listener, NullRdcConfig, NullRdcTx, PhaseTable, RdcStep,
    StrobeTrain, TrainKind,
};
use super::rpl::Dodag;
use super::sixlowpan::{Fragment, LowpanFrame, Reassembly, Verdict, buffers_needed, fragment};
use super::tcp::{Segment, TcpClient, TcpServer, TcpState};
use super::topology::{Node, Position, Role, Topology};
use super::{ContikiVersion, NodeId};

// ---- configuration -------------------------------------------------------------------------

/// Which radio duty cycling runs on every mote (§1.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RdcKind {
    /// Radio always on.
    NullRdc,
    /// ContikiMAC at 8 Hz.
    #[default]
    Contikimac,
}

/// The node layout (§2.1, §3.1, §4.1), or a line for minimal checks.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologyChoice {
    /// Lim 4 × 4 grid, LBR top-left.
    Lim4x4,
    /// Lim 5 × 5 grid, LBR at the centre.
    #[default]
    Lim5x5,
    /// Betzler's 5 × 6 FlockLab surrogate.
    Betzler,
    /// Makarem Grid 30.
    MakaremGrid30,
    /// Makarem Square 18.
    MakaremSquare18,
    /// Makarem U 15.
    MakaremU15,
    /// Makarem chain of `nodes`.
    MakaremChain {
        /// Node count (RX, BR, senders).
        nodes: u32,
    },
    /// Makarem ring of 12.
    MakaremRing12,
    /// Makarem dumbbell of 7, 10 or 15.
    MakaremDumbbell {
        /// Node count.
        nodes: u32,
    },
    /// Any node list (`[[multihop.topology.node]]` with `x_m`, `y_m`, optional `z_m` and
    /// `role`); ids are list positions; exactly one border router.
    Nodes {
        /// The nodes, by id.
        node: Vec<NodeSpec>,
    },
    /// `nodes` motes on a line, `spacing_m` apart; node 0 is the border router, the others
    /// end nodes (for the minimal scenarios of §6).
    Line {
        /// Node count (≥ 2).
        nodes: u32,
        /// Spacing, m.
        spacing_m: f64,
    },
}

/// One node of a [`TopologyChoice::Nodes`] list.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// x, m.
    pub x_m: f64,
    /// y, m.
    pub y_m: f64,
    /// z, m (default 0).
    #[serde(default)]
    pub z_m: f64,
    /// `border_router`, `end_node` (default), `sender` or `receiver`.
    #[serde(default)]
    pub role: RoleChoice,
}

/// A node's role as written in a scenario file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleChoice {
    /// The DODAG root.
    BorderRouter,
    /// A CoAP server / TCP client.
    #[default]
    EndNode,
    /// A Makarem sender.
    Sender,
    /// The Makarem receiver.
    Receiver,
}

impl TopologyChoice {
    /// The node list.
    pub fn build(&self) -> Result<Topology, ConfigError> {
        Ok(match self {
            TopologyChoice::Lim4x4 => Topology::lim_4x4(),
            TopologyChoice::Lim5x5 => Topology::lim_5x5(),
            TopologyChoice::Betzler => Topology::betzler_surrogate(),
            TopologyChoice::MakaremGrid30 => Topology::makarem_grid30(),
            TopologyChoice::MakaremSquare18 => Topology::makarem_square18(),
            TopologyChoice::MakaremU15 => Topology::makarem_u15(),
            TopologyChoice::MakaremChain { nodes } => {
                if *nodes < 3 {
                    return Err(ConfigError::new("topology.nodes", "a chain needs at least 3 nodes"));
                }
                Topology::makarem_chain(*nodes)
            }
            TopologyChoice::MakaremRing12 => Topology::makarem_ring12(),
            TopologyChoice::MakaremDumbbell { nodes } => Topology::makarem_dumbbell(*nodes)
                .ok_or_else(|| ConfigError::new("topology.nodes", "a dumbbell has 7, 10 or 15 nodes"))?,
            TopologyChoice::Nodes { node } => {
                if node.len() < 2 || node.len() > 1000 {
                    return Err(ConfigError::new("topology.node", "a node list has 2 to 1000 nodes"));
                }
                if node.iter().any(|n| !(n.x_m.is_finite() && n.y_m.is_finite() && n.z_m.is_finite())) {
                    return Err(ConfigError::new("topology.node", "coordinates must be finite numbers of metres"));
                }
                if node.iter().filter(|n| n.role == RoleChoice::BorderRouter).count() != 1 {
                    return Err(ConfigError::new("topology.node", "exactly one node has role = \"border_router\""));
                }
                let nodes = node
                    .iter()
                    .map(|n| Node {
                        pos: Position { x_m: n.x_m, y_m: n.y_m, z_m: n.z_m },
                        role: match n.role {
                            RoleChoice::BorderRouter => Role::BorderRouter,
                            RoleChoice::EndNode => Role::EndNode,
                            RoleChoice::Sender => Role::Sender,
                            RoleChoice::Receiver => Role::Receiver,
                        },
                    })
                    .collect();
                Topology { nodes }
            }
            TopologyChoice::Line { nodes, spacing_m } => {
                if *nodes < 2 || *nodes > 1000 {
                    return Err(ConfigError::new("topology.nodes", "a line has 2 to 1000 nodes"));
                }
                if !(spacing_m.is_finite() && *spacing_m > 0.0) {
                    return Err(ConfigError::new("topology.spacing_m", "must be positive"));
                }
                let nodes = (0..*nodes)
                    .map(|i| Node {
                        pos: Position::xy(spacing_m * f64::from(i), 0.0),
                        role: if i == 0 { Role::BorderRouter } else { Role::EndNode },
                    })
                    .collect();
                Topology { nodes }
            }
        })
    }
}

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

impl CoapFrames {
    fn flows(self) -> (TableFlow, TableFlow) {
        match self {
            CoapFrames::Makarem => (TableFlow::MakaremCon, TableFlow::MakaremAck),
            CoapFrames::Betzler => (TableFlow::BetzlerRequest, TableFlow::BetzlerResponse),
        }
    }
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
pub enum Workload {
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

impl Default for Workload {
    fn default() -> Self {
        Workload::LimTcp(LimTcp::default())
    }
}

/// A multihop run: topology + stack + workload. `Default` = the spec's values (Lim 5 × 5,
/// ContikiMAC, Contiki 3.0, Sky).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MultihopConfig {
    /// Node layout.
    pub topology: TopologyChoice,
    /// Contiki release (OQ-M2); the presets below are not re-derived from it.
    pub version: ContikiVersion,
    /// RDC.
    pub rdc: RdcKind,
    /// NullRDC parameters.
    pub null_rdc: NullRdcConfig,
    /// ContikiMAC parameters.
    pub contikimac: ContikiMacConfig,
    /// CSMA parameters of every mote.
    pub csma: CsmaConfig,
    /// `QUEUEBUF_NUM` of the border router, if it differs (rpl-border-router: 4).
    pub border_router_queuebuf: Option<u32>,
    /// UDGM.
    pub udgm: UdgmConfig,
    /// PHY timing.
    pub phy: PhyConfig,
    /// Frame lengths from the table or rules 1–4.
    pub frame_len_mode: FrameLenMode,
    /// Makarem's CON read as a CoAP message of this many bytes (OQ-M9 option, e.g. 80):
    /// its frames then follow rules 1–4 on every hop (`None`: the stated 80-B frame).
    pub makarem_coap_len: Option<u32>,
    /// 6LoWPAN fragmentation (OQ-M9, [`super::sixlowpan`]): a packet whose frame would exceed
    /// the PSDU leaves as FRAG1 + FRAGN frames in one CSMA burst and is reassembled hop by
    /// hop. Off by default: such a packet is then a load-time error.
    pub fragmentation: bool,
    /// How long a reassembly may wait for its fragments (`SICSLOWPAN_REASS_MAXAGE`;
    /// `None`: the version's, 20 s in 3.0, 20/16 s in 2.7).
    #[serde(rename = "reassembly_timeout_ms", with = "coapcc_core::config::serde_opt_ms")]
    pub reassembly_timeout: Option<Duration>,
    /// Forwarding delay per hop, t_fwd (OQ-M18).
    #[serde(rename = "t_fwd_ms", with = "serde_ms")]
    pub t_fwd: Duration,
    /// Application delay per CoAP request at a mote, t_app (OQ-M18).
    #[serde(rename = "t_app_ms", with = "serde_ms")]
    pub t_app: Duration,
    /// SLIP line rate, bit/s (§1.7).
    pub slip_bit_rate: u32,
    /// Bits per byte on the serial line (start + 8 + stop).
    pub slip_bits_per_byte: u32,
    /// One-way delay between the border router's host and the remote endpoints (Betzler's
    /// cloud: 75 ms, OQ-M4; Lim: 0).
    #[serde(rename = "host_delay_ms", with = "serde_ms")]
    pub host_delay: Duration,
    /// Simulated time.
    #[serde(rename = "duration_ms", with = "serde_ms")]
    pub duration: Duration,
    /// Applications.
    pub workload: Workload,
    /// Diagnostics: the host discards everything it receives (checks 5, 12).
    pub blackhole_host: bool,
    /// Diagnostics: these motes' applications discard everything (their MAC still ACKs).
    pub blackhole_nodes: Vec<u16>,
    /// The checked configuration of the workload's algorithm (or TCP scheme), when a scenario
    /// file gives one (with its `[algorithm.NAME]` keys); `None`: the registry preset of the
    /// workload's `algorithm` / `scheme` name. Not a key: set by the scenario layer.
    #[serde(skip)]
    pub algorithm_config: Option<AnyConfig>,
}

impl Default for MultihopConfig {
    fn default() -> Self {
        MultihopConfig {
            topology: TopologyChoice::default(),
            version: ContikiVersion::V3_0,
            rdc: RdcKind::Contikimac,
            null_rdc: NullRdcConfig::default(),
            contikimac: ContikiMacConfig::default(),
            csma: CsmaConfig::default(),
            border_router_queuebuf: None,
            udgm: UdgmConfig::default(),
            phy: PhyConfig::default(),
            frame_len_mode: FrameLenMode::Table,
            makarem_coap_len: None,
            fragmentation: false,
            reassembly_timeout: None,
            t_fwd: Duration::from_millis(1),
            t_app: Duration::from_millis(2),
            slip_bit_rate: 115_200,
            slip_bits_per_byte: 10,
            host_delay: Duration::ZERO,
            duration: Duration::from_secs(600),
            workload: Workload::default(),
            blackhole_host: false,
            blackhole_nodes: Vec::new(),
            algorithm_config: None,
        }
    }
}

// ---- endpoint and controller construction ----------------------------------------------------

/// The CoAP endpoint type of the engine: addresses are [`Addr`].
pub type Ep = Endpoint<Addr, SimRng>;

/// The algorithm named `name` in the registry, built (checked) once for every endpoint of a run.
pub fn build_algorithm(name: &str) -> Result<Arc<AnyController>, ConfigError> {
    let config =
        AnyConfig::from_name(name).ok_or_else(|| ConfigError::new("workload.algorithm", "unknown algorithm"))?;
    Ok(Arc::new(config.build()?))
}

/// THE one place the multihop engine builds a CoAP endpoint: the shared `algorithm`, NSTART,
/// and for a server an automatic empty-payload 2.05 response to every request.
pub fn build_endpoint(
    algorithm: &Arc<AnyController>,
    nstart: u16,
    server: bool,
    rng: SimRng,
) -> Result<Ep, ConfigError> {
    let mut cfg = EndpointConfig { nstart, transmitted_events: false, ..EndpointConfig::new(Arc::clone(algorithm)) };
    if server {
        cfg.auto_response = Some(AutoResponse { code: Code::CONTENT, payload: Payload::new() });
    }
    Endpoint::new(cfg, rng)
}

/// A fresh TCP retransmission controller of `scheme` (`uip`, `uip-dither`, `lim`) with the
/// retransmission limit `max_retransmissions`.
pub fn build_tcp_controller(scheme: &str, max_retransmissions: u8) -> Result<Arc<AnyController>, ConfigError> {
    build_tcp_controller_from(AnyConfig::from_name(scheme), max_retransmissions)
}

/// A fresh TCP retransmission controller from a checked `uip` / `lim` configuration, with the
/// workload's retransmission limit `max_retransmissions` (which wins over the configuration's).
pub fn build_tcp_controller_from(
    config: Option<AnyConfig>,
    max_retransmissions: u8,
) -> Result<Arc<AnyController>, ConfigError> {
    let mut cfg = match config {
        Some(c @ (AnyConfig::Uip(_) | AnyConfig::Lim(_))) => c,
        _ => return Err(ConfigError::new("workload.scheme", "must be uip, uip-dither or lim")),
    };
    match &mut cfg {
        AnyConfig::Uip(c) => c.max_retransmit = max_retransmissions,
        AnyConfig::Lim(c) => c.max_retransmit = max_retransmissions,
        _ => {}
    }
    Ok(Arc::new(cfg.build()?))
}

// ---- engine state ----------------------------------------------------------------------------

/// A network address: a mote, or an endpoint on the host side of the border router (cloud
/// client k, the TCP server 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Addr {
    /// A mote.
    Node(NodeId),
    /// A host-side endpoint.
    Host(u16),
}

#[derive(Clone, Debug)]
enum Body {
    Coap(Arc<Message>),
    Tcp(Segment),
}

#[derive(Clone, Debug)]
struct Packet {
    src: Addr,
    dst: Addr,
    flow: TableFlow,
    /// Radio hops of the whole path.
    hops: u32,
    /// The radio hop this copy is about to take (0-based).
    hop: u32,
    body: Body,
}

/// A CSMA packet handle: packet index, the PSDU length on this hop and, for a fragmented
/// packet, which fragment.
#[derive(Clone, Copy, Debug)]
struct Frame {
    pkt: u32,
    psdu: u32,
    fragment: Option<Fragment>,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Check { node: u16, cca: u32 },
    ListenTimeout { node: u16, generation: u64 },
    Service { node: u16, next_hop: NodeId },
    Rdc { node: u16, generation: u64 },
    FrameEnd(FrameId),
    AckStart { node: u16, to: NodeId, seq: u8 },
    NetIn { node: u16, pkt: u32 },
    HostIn { pkt: u32 },
    RemoteIn { pkt: u32 },
    AppIn { node: u16, pkt: u32 },
    EpTimer { app: u32, generation: u64 },
    ClientStart { app: u32 },
    TcpConnect { node: u16 },
    TcpReport { node: u16 },
    TcpTimer { node: u16, generation: u64 },
    End,
    TcpDelack { node: u16, generation: u64 },
}

impl Ev {
    fn tag(&self) -> (u64, u64) {
        match *self {
            Ev::Check { node, .. } => (1, u64::from(node)),
            Ev::ListenTimeout { node, .. } => (2, u64::from(node)),
            Ev::Service { node, .. } => (3, u64::from(node)),
            Ev::Rdc { node, .. } => (4, u64::from(node)),
            Ev::FrameEnd(id) => (5, id.0),
            Ev::AckStart { node, .. } => (6, u64::from(node)),
            Ev::NetIn { node, .. } => (7, u64::from(node)),
            Ev::HostIn { pkt } => (8, u64::from(pkt)),
            Ev::RemoteIn { pkt } => (9, u64::from(pkt)),
            Ev::AppIn { node, .. } => (10, u64::from(node)),
            Ev::EpTimer { app, .. } => (11, u64::from(app)),
            Ev::ClientStart { app } => (12, u64::from(app)),
            Ev::TcpConnect { node } => (13, u64::from(node)),
            Ev::TcpReport { node } => (14, u64::from(node)),
            Ev::TcpTimer { node, .. } => (15, u64::from(node)),
            Ev::End => (16, 0),
            Ev::TcpDelack { node, .. } => (17, u64::from(node)),
        }
    }
}

struct Entry {
    at: Instant,
    class: u8,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.at, self.class, self.seq).cmp(&(o.at, o.class, o.seq))
    }
}

#[derive(Clone, Copy, Debug)]
enum Pending {
    /// Phase-lock wait over: start the train.
    Start(TrainKind),
    Step(RdcStep),
    AckCheck(Instant),
}

enum AttemptKind {
    Null(NullRdcTx),
    Train(StrobeTrain),
    Waiting,
}

struct TxAttempt {
    next_hop: NodeId,
    /// The frames of the burst not yet finished; the front is in progress.
    frames: VecDeque<BurstFrame<Frame>>,
    kind: AttemptKind,
    pending: Option<Pending>,
    ack_ok: bool,
}

impl TxAttempt {
    fn running(&self) -> bool {
        !matches!(self.kind, AttemptKind::Waiting)
    }
}

struct Mote {
    csma: Csma<Frame>,
    rng: SimRng,
    phase: Duration,
    tx: Option<TxAttempt>,
    rdc_gen: u64,
    deferred: VecDeque<NodeId>,
    phases: PhaseTable,
    listener: Option<Listener>,
    listen_gen: u64,
    acking: bool,
    radio_since: Option<Instant>,
    mac: MacCounters,
    reassembly: Reassembly,
}

#[derive(Clone, Copy, Debug)]
enum FrameKind {
    Data { pkt: u32, seq: u8, pending: bool, ack_req: bool, fragment: Option<Fragment> },
    Ack { seq: u8 },
}

#[derive(Clone, Copy, Debug)]
struct FrameInfo {
    from: NodeId,
    to: NodeId,
    kind: FrameKind,
}

struct CoapApp {
    addr: Addr,
    ep: Ep,
    timer_gen: u64,
    timer_at: Option<Instant>,
    /// Client: its server and what it still has to issue.
    peer: Option<Addr>,
    to_issue: Option<u64>,
    flow: Option<usize>,
}

struct TcpNode {
    client: TcpClient,
    /// The controller's stream (dithering).
    rng: SimRng,
    /// The application's stream (report intervals).
    report_rng: SimRng,
    tick_phase: Duration,
    timer_gen: u64,
    hops: u32,
    data_phase_reports: u64,
}

/// A recorded event trace: (time ns, event kind, subject: node, frame or packet) per event
/// processed, in order.
pub type EventTrace = Vec<(u64, u64, u64)>;

/// One run of the multihop engine.
pub struct MultihopSim {
    cfg: MultihopConfig,
    seed: u64,
    now: Instant,
    seq: u64,
    queue: BinaryHeap<Reverse<Entry>>,
    medium: Medium,
    medium_rng: SimRng,
    dodag: Dodag,
    motes: Vec<Mote>,
    frames: HashMap<FrameId, FrameInfo>,
    packets: Vec<Packet>,
    rules: FrameRules,
    slip_up_free: Instant,
    slip_down_free: Instant,
    apps: Vec<CoapApp>,
    app_of: BTreeMap<Addr, usize>,
    flows: Vec<CoapFlowResult>,
    window: (Instant, Instant),
    frames_of_coap: (TableFlow, TableFlow),
    tcp: Vec<Option<TcpNode>>,
    tcp_server: TcpServer,
    tcp_data: (Instant, Instant),
    /// Betzler 1-to-1: the servers in turn, the next one's index, and the algorithm every
    /// cloud client shares.
    one_to_one: Option<(Vec<NodeId>, usize, Arc<AnyController>)>,
    /// Many-to-many and cross traffic: clients (burst clients) not yet done.
    clients_left: Option<usize>,
    /// Simulated time after the last client is done.
    tail: Duration,
    /// When the last counted client was done.
    clients_done_at: Option<Instant>,
    wl_rng: SimRng,
    events: u64,
    digest: u64,
    delivered: u64,
    dropped: u64,
    end: Instant,
    stopped: bool,
    trace: Option<EventTrace>,
}

/// Stream ids of the engine's random streams (disjoint from the single-link engine's).
mod streams {
    pub const BASE: u64 = 0x4d48 << 48;
    pub const MEDIUM: u64 = BASE | 1;
    pub const DODAG: u64 = BASE | 2;
    pub const WORKLOAD: u64 = BASE | 3;
    pub const MOTE: u64 = BASE | (1 << 32);
    pub const ENDPOINT: u64 = BASE | (2 << 32);
    pub const TCP: u64 = BASE | (3 << 32);
}

fn fnv(mut h: u64, x: u64) -> u64 {
    for b in x.to_le_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl MultihopSim {
    /// Sets up a run; every configuration error names its key.
    pub fn new(cfg: MultihopConfig, seed: u64) -> Result<Self, ConfigError> {
        cfg.phy.validate()?;
        cfg.contikimac.validate()?;
        cfg.csma.validate()?;
        cfg.udgm.validate()?;
        if cfg.slip_bit_rate == 0 || cfg.slip_bits_per_byte == 0 {
            return Err(ConfigError::new("slip_bit_rate", "must be positive"));
        }
        let topo = cfg.topology.build()?;
        let geometry = Geometry::new(&topo.positions(), &cfg.udgm)?;
        let root = topo.border_router().unwrap_or(NodeId(0));
        let mut dodag_rng = stream_rng(seed, 0, streams::DODAG);
        let dodag = Dodag::build(&geometry, cfg.udgm.success_ratio_tx, root, &mut dodag_rng);
        for i in 0..topo.len() {
            if dodag.hops(NodeId::from_index(i)).is_none() {
                return Err(ConfigError::new("topology", "a node has no route to the border router"));
            }
        }
        let mut medium = Medium::new(geometry, &cfg.udgm)?;
        let reassembly_timeout = cfg.reassembly_timeout.unwrap_or(match cfg.version {
            // SICSLOWPAN_REASS_MAXAGE 20: × CLOCK_SECOND (3.0), × CLOCK_SECOND / 16 (2.7).
            ContikiVersion::V3_0 => Duration::from_secs(20),
            ContikiVersion::V2_7 => Duration::from_millis(1250),
        });
        let mut motes = Vec::with_capacity(topo.len());
        for i in 0..topo.len() {
            let mut rng = stream_rng(seed, 0, streams::MOTE | i as u64);
            let mut csma_cfg = cfg.csma.clone();
            if NodeId::from_index(i) == root
                && let Some(q) = cfg.border_router_queuebuf
            {
                csma_cfg.queuebuf_num = q;
            }
            let initial_seq = below(&mut rng, 256) as u8;
            let phase = Duration::from_nanos(below(&mut rng, cfg.contikimac.cycle_time.as_nanos() as u64));
            motes.push(Mote {
                csma: Csma::new(csma_cfg, initial_seq)?,
                rng,
                phase,
                tx: None,
                rdc_gen: 0,
                deferred: VecDeque::new(),
                phases: PhaseTable::new(),
                listener: None,
                listen_gen: 0,
                acking: false,
                radio_since: None,
                mac: MacCounters::default(),
                reassembly: Reassembly::new(reassembly_timeout),
            });
        }
        let end = Instant::ZERO + cfg.duration;
        let mut sim = MultihopSim {
            rules: FrameRules::for_version(cfg.version),
            seed,
            now: Instant::ZERO,
            seq: 0,
            queue: BinaryHeap::new(),
            medium_rng: stream_rng(seed, 0, streams::MEDIUM),
            dodag,
            frames: HashMap::new(),
            packets: Vec::new(),
            slip_up_free: Instant::ZERO,
            slip_down_free: Instant::ZERO,
            apps: Vec::new(),
            app_of: BTreeMap::new(),
            flows: Vec::new(),
            window: (Instant::ZERO, end),
            frames_of_coap: CoapFrames::Makarem.flows(),
            tcp: Vec::new(),
            tcp_server: TcpServer::new(),
            tcp_data: (Instant::ZERO, end),
            one_to_one: None,
            clients_left: None,
            tail: Duration::ZERO,
            clients_done_at: None,
            wl_rng: stream_rng(seed, 0, streams::WORKLOAD),
            events: 0,
            digest: 0xcbf2_9ce4_8422_2325,
            delivered: 0,
            dropped: 0,
            end,
            stopped: false,
            trace: None,
            motes,
            medium: {
                for i in 0..topo.len() {
                    let on = cfg.rdc == RdcKind::NullRdc;
                    medium.set_radio(Instant::ZERO, NodeId::from_index(i), on).ok();
                }
                medium
            },
            cfg,
        };
        for i in 0..sim.motes.len() {
            if sim.cfg.rdc == RdcKind::NullRdc {
                sim.motes[i].radio_since = Some(Instant::ZERO);
            } else {
                let first = sim.cfg.contikimac.next_check(sim.motes[i].phase, Instant::ZERO);
                sim.push(first, Ev::Check { node: i as u16, cca: 0 });
            }
        }
        sim.setup_workload(&topo, root)?;
        sim.check_frame_sizes(&topo)?;
        let end = sim.end;
        sim.push(end, Ev::End);
        Ok(sim)
    }

    fn setup_workload(&mut self, topo: &Topology, root: NodeId) -> Result<(), ConfigError> {
        let n = topo.len() as u16;
        let check = |ids: &[u16]| -> Result<(), ConfigError> {
            if ids.iter().any(|&i| i >= n) {
                Err(ConfigError::new("workload", "a node id is outside the topology"))
            } else {
                Ok(())
            }
        };
        match self.cfg.workload.clone() {
            Workload::CoapSaturated(w) => {
                // Built and checked once, shared by every endpoint of the run.
                let alg = self.algorithm(&w.algorithm)?;
                if w.nstart == 0 {
                    return Err(ConfigError::new("workload.nstart", "must be at least 1"));
                }
                self.frames_of_coap = w.frames.flows();
                let receiver = match w.receiver {
                    Some(r) => r,
                    None => topo.first_with(Role::Receiver).unwrap_or(root).0,
                };
                let senders: Vec<u16> = match &w.senders {
                    Some(s) => s.clone(),
                    None => {
                        let s = topo.with_role(Role::Sender);
                        let s = if s.is_empty() { topo.with_role(Role::EndNode) } else { s };
                        s.into_iter().map(|x| x.0).filter(|&x| x != receiver).collect()
                    }
                };
                check(&senders)?;
                check(&[receiver])?;
                if senders.contains(&receiver) {
                    return Err(ConfigError::new("workload.senders", "must not contain the receiver"));
                }
                self.window = (Instant::ZERO + w.window_start, self.end);
                let server_addr = Addr::Node(NodeId(receiver));
                let rng = stream_rng(self.seed, 0, streams::ENDPOINT | 0xffff);
                let ep = build_endpoint(&alg, w.nstart, true, rng)?;
                self.add_app(server_addr, ep, None, None, None);
                for s in senders {
                    let rng = stream_rng(self.seed, 0, streams::ENDPOINT | u64::from(s));
                    let ep = build_endpoint(&alg, w.nstart, false, rng)?;
                    let flow = self.flows.len();
                    self.flows.push(CoapFlowResult {
                        node: Some(s),
                        peer: Some(receiver),
                        route_hops: self.dodag.route_hops(NodeId(s), NodeId(receiver)),
                        ..Default::default()
                    });
                    let app = self.add_app(Addr::Node(NodeId(s)), ep, Some(server_addr), w.max_exchanges, Some(flow));
                    let offset = if w.start_window.is_zero() {
                        Duration::ZERO
                    } else {
                        uniform_duration(&mut self.wl_rng, Duration::ZERO, w.start_window - Duration::from_nanos(1))
                    };
                    for _ in 0..w.client_mode.initial_requests(w.nstart) {
                        self.push(Instant::ZERO + offset, Ev::ClientStart { app: app as u32 });
                    }
                }
            }
            Workload::CoapOneToOne(w) => {
                // Built and checked once, shared by every endpoint of the run.
                let alg = self.algorithm(&w.algorithm)?;
                if w.nstart == 0 {
                    return Err(ConfigError::new("workload.nstart", "must be at least 1"));
                }
                self.frames_of_coap = CoapFrames::Betzler.flows();
                let servers: Vec<u16> = match &w.servers {
                    Some(s) => s.clone(),
                    None => topo.with_role(Role::EndNode).into_iter().map(|x| x.0).collect(),
                };
                check(&servers)?;
                for &s in &servers {
                    let rng = stream_rng(self.seed, 0, streams::ENDPOINT | u64::from(s));
                    let ep = build_endpoint(&alg, w.nstart, true, rng)?;
                    self.add_app(Addr::Node(NodeId(s)), ep, None, None, None);
                }
                self.one_to_one = Some((servers.into_iter().map(NodeId).collect(), 0, Arc::clone(&alg)));
                self.start_next_server(Instant::ZERO + Duration::from_secs(1))?;
            }
            Workload::CoapManyToMany(w) => {
                // Built and checked once, shared by every endpoint of the run.
                let alg = self.algorithm(&w.algorithm)?;
                if w.nstart == 0 {
                    return Err(ConfigError::new("workload.nstart", "must be at least 1"));
                }
                self.frames_of_coap = CoapFrames::Betzler.flows();
                let servers: Vec<u16> = match &w.servers {
                    Some(s) => s.clone(),
                    None => topo.with_role(Role::EndNode).into_iter().map(|x| x.0).collect(),
                };
                check(&servers)?;
                for (k, &s) in servers.iter().enumerate() {
                    let rng = stream_rng(self.seed, 0, streams::ENDPOINT | u64::from(s));
                    let ep = build_endpoint(&alg, w.nstart, true, rng)?;
                    let server = Addr::Node(NodeId(s));
                    self.add_app(server, ep, None, None, None);
                    let host = k as u16;
                    let rng = stream_rng(self.seed, 0, streams::ENDPOINT | (1 << 16) | u64::from(host));
                    let ep = build_endpoint(&alg, w.nstart, false, rng)?;
                    let flow = self.flows.len();
                    self.flows.push(CoapFlowResult { node: None, peer: Some(s), ..Default::default() });
                    let app = self.add_app(Addr::Host(host), ep, Some(server), Some(w.exchanges), Some(flow));
                    let offset = if w.start_window.is_zero() {
                        Duration::ZERO
                    } else {
                        uniform_duration(&mut self.wl_rng, Duration::ZERO, w.start_window - Duration::from_nanos(1))
                    };
                    for _ in 0..w.client_mode.initial_requests(w.nstart) {
                        self.push(Instant::ZERO + offset, Ev::ClientStart { app: app as u32 });
                    }
                }
                self.clients_left = Some(servers.len());
            }
            Workload::CoapCrossTraffic(w) => {
                // Built and checked once, shared by every endpoint of the run.
                let alg = self.algorithm(&w.algorithm)?;
                if w.nstart == 0 {
                    return Err(ConfigError::new("workload.nstart", "must be at least 1"));
                }
                self.frames_of_coap = CoapFrames::Betzler.flows();
                let servers: Vec<u16> = topo.with_role(Role::EndNode).into_iter().map(|x| x.0).collect();
                let mut continuous = Vec::new();
                for &d in &w.continuous_depths {
                    let s = servers
                        .iter()
                        .copied()
                        .find(|&s| self.dodag.hops(NodeId(s)) == Some(d) && !continuous.contains(&s))
                        .ok_or_else(|| ConfigError::new("workload.continuous_depths", "no server at that depth"))?;
                    continuous.push(s);
                }
                let mut bursts = 0;
                for (k, &s) in servers.iter().enumerate() {
                    let rng = stream_rng(self.seed, 0, streams::ENDPOINT | u64::from(s));
                    let ep = build_endpoint(&alg, w.nstart, true, rng)?;
                    let server = Addr::Node(NodeId(s));
                    self.add_app(server, ep, None, None, None);
                    let host = k as u16;
                    let rng = stream_rng(self.seed, 0, streams::ENDPOINT | (1 << 16) | u64::from(host));
                    let ep = build_endpoint(&alg, w.nstart, false, rng)?;
                    let flow = self.flows.len();
                    self.flows.push(CoapFlowResult { node: None, peer: Some(s), ..Default::default() });
                    let is_continuous = continuous.contains(&s);
                    let to_issue = if is_continuous { None } else { Some(w.exchanges) };
                    let app = self.add_app(Addr::Host(host), ep, Some(server), to_issue, Some(flow));
                    let at = if is_continuous {
                        Instant::ZERO + Duration::from_nanos(below(&mut self.wl_rng, 1_000_000_000))
                    } else {
                        bursts += 1;
                        Instant::ZERO + w.burst_at
                    };
                    for _ in 0..w.client_mode.initial_requests(w.nstart) {
                        self.push(at, Ev::ClientStart { app: app as u32 });
                    }
                }
                self.clients_left = Some(bursts);
                self.tail = w.tail;
            }
            Workload::LimTcp(w) => {
                if w.report_min > w.report_max || w.report_max.is_zero() {
                    return Err(ConfigError::new("workload.report_max_ms", "must be positive and ≥ report_min_ms"));
                }
                if w.payload_bytes == 0 {
                    return Err(ConfigError::new("workload.payload_bytes", "must be positive"));
                }
                if w.server_delayed_ack >= Duration::from_millis(500) {
                    return Err(ConfigError::new(
                        "workload.server_delayed_ack_ms",
                        "must be below 500 ms (RFC 1122 §4.2.3.2; Linux: 40 or 200 ms)",
                    ));
                }
                self.tcp_server = TcpServer::with_delayed_ack(w.server_delayed_ack);
                // Built and checked once, shared by every connection of the run.
                let ctrl = match self.cfg.algorithm_config {
                    Some(c) => build_tcp_controller_from(Some(c), w.max_retransmissions)?,
                    None => build_tcp_controller(&w.scheme, w.max_retransmissions)?,
                };
                let mut clients: Vec<(u32, u16)> = (0..n)
                    .filter(|&i| NodeId(i) != root)
                    .map(|i| (self.dodag.hops(NodeId(i)).unwrap_or(0), i))
                    .collect();
                // §4.3: decreasing hop count, then id.
                clients.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                self.tcp = (0..n).map(|_| None).collect();
                for (k, &(hops, i)) in clients.iter().enumerate() {
                    let mut rng = stream_rng(self.seed, 0, streams::TCP | u64::from(i));
                    let tick_phase = Duration::from_nanos(below(&mut rng, 500_000_000));
                    self.tcp[i as usize] = Some(TcpNode {
                        client: TcpClient::new(Arc::clone(&ctrl), w.payload_bytes),
                        rng,
                        report_rng: stream_rng(self.seed, 0, streams::TCP | (1 << 16) | u64::from(i)),
                        tick_phase,
                        timer_gen: 0,
                        hops,
                        data_phase_reports: 0,
                    });
                    let at =
                        if w.simultaneous_setup { Duration::ZERO } else { w.connect_interval.saturating_mul(k as u32) };
                    self.push(Instant::ZERO + at, Ev::TcpConnect { node: i });
                }
                let last = if w.simultaneous_setup {
                    Duration::ZERO
                } else {
                    w.connect_interval.saturating_mul(clients.len().saturating_sub(1) as u32)
                };
                let t0 = Instant::ZERO + last + w.setup_grace;
                self.tcp_data = (t0, t0 + self.cfg.duration);
                self.end = t0 + self.cfg.duration;
                for &(_, i) in &clients {
                    let off = Duration::from_nanos(below(&mut self.wl_rng, 500_000_000));
                    self.push(t0 + off, Ev::TcpReport { node: i });
                }
            }
        }
        Ok(())
    }

    fn add_app(&mut self, addr: Addr, ep: Ep, peer: Option<Addr>, to_issue: Option<u64>, flow: Option<usize>) -> usize {
        let k = self.apps.len();
        self.apps.push(CoapApp { addr, ep, timer_gen: 0, timer_at: None, peer, to_issue, flow });
        self.app_of.insert(addr, k);
        k
    }

    /// The workload's CoAP algorithm: the scenario's checked configuration, else the preset.
    fn algorithm(&self, name: &str) -> Result<Arc<AnyController>, ConfigError> {
        match self.cfg.algorithm_config {
            Some(c) => Ok(Arc::new(c.build()?)),
            None => build_algorithm(name),
        }
    }

    /// Records every processed event's (time, kind, subject) for tests (check 14).
    pub fn record_trace(&mut self) {
        self.trace = Some(Vec::new());
    }

    /// Records every TCP client's per-node trace (RTT samples and armed timers, Lim 2020
    /// Figs. 2–3, spec multihop.md §4.4) into `TcpNodeResult::trace`. Draws no random number:
    /// every other result stays the same.
    pub fn record_tcp_traces(&mut self) {
        self.tcp.iter_mut().flatten().for_each(|t| t.client.record_trace());
    }

    fn push(&mut self, at: Instant, ev: Ev) {
        self.seq += 1;
        let class = u8::from(!matches!(ev, Ev::FrameEnd(_)));
        self.queue.push(Reverse(Entry { at, class, seq: self.seq, ev }));
    }

    /// Runs to the end and returns the results (and the event trace, if recorded).
    pub fn run(mut self) -> (MultihopResult, Option<EventTrace>) {
        while let Some(Reverse(e)) = self.queue.pop() {
            if e.at > self.end || self.stopped {
                break;
            }
            self.now = e.at;
            self.events += 1;
            let (kind, subject) = e.ev.tag();
            self.digest = fnv(fnv(fnv(self.digest, e.at.as_nanos()), kind), subject);
            if let Some(t) = self.trace.as_mut() {
                t.push((e.at.as_nanos(), kind, subject));
            }
            self.handle(e.ev);
        }
        let trace = self.trace.take();
        (self.finish(), trace)
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Check { node, cca } => self.on_check(node, cca),
            Ev::ListenTimeout { node, generation } => {
                let m = &mut self.motes[node as usize];
                if m.listen_gen == generation
                    && let Some(l) = m.listener.as_mut()
                {
                    let step = l.on_timeout(self.now);
                    self.apply_listen(node, step);
                }
            }
            Ev::Service { node, next_hop } => self.on_service(node, next_hop),
            Ev::Rdc { node, generation } => {
                if self.motes[node as usize].rdc_gen == generation {
                    self.on_rdc(node);
                }
            }
            Ev::FrameEnd(id) => self.on_frame_end(id),
            Ev::AckStart { node, to, seq } => self.on_ack_start(node, to, seq),
            Ev::NetIn { node, pkt } => self.route_out(node, pkt),
            Ev::HostIn { pkt } => {
                if !self.cfg.blackhole_host {
                    let d = self.cfg.host_delay;
                    self.push(self.now + d, Ev::RemoteIn { pkt });
                }
            }
            Ev::RemoteIn { pkt } => self.deliver_host(pkt),
            Ev::AppIn { node, pkt } => self.deliver_coap(Addr::Node(NodeId(node)), pkt),
            Ev::EpTimer { app, generation } => {
                let a = &mut self.apps[app as usize];
                if a.timer_gen == generation {
                    a.timer_at = None;
                    a.ep.handle_timeout(self.now);
                    self.drain_app(app as usize);
                }
            }
            Ev::ClientStart { app } => self.issue(app as usize),
            Ev::TcpConnect { node } => {
                if let Some(t) = self.tcp[node as usize].as_mut() {
                    let seg = t.client.connect(self.now, &mut t.rng);
                    self.tcp_sent(node, seg);
                }
            }
            Ev::TcpReport { node } => self.on_report(node),
            Ev::TcpTimer { node, generation } => {
                if let Some(t) = self.tcp[node as usize].as_mut()
                    && t.timer_gen == generation
                {
                    let seg = t.client.on_timeout(self.now, &mut t.rng);
                    self.tcp_sent(node, seg);
                }
            }
            Ev::End => self.stopped = true,
            Ev::TcpDelack { node, generation } => {
                if let Some(ack) = self.tcp_server.on_delack_timer(NodeId(node), generation) {
                    self.send(Addr::Host(0), Addr::Node(NodeId(node)), TableFlow::LimAck, Body::Tcp(ack));
                }
            }
        }
    }

    // ---- radio -------------------------------------------------------------------------------

    fn update_radio(&mut self, node: u16) {
        let now = self.now;
        let id = NodeId(node);
        let m = &mut self.motes[node as usize];
        let want = self.cfg.rdc == RdcKind::NullRdc
            || m.tx.as_ref().is_some_and(TxAttempt::running)
            || m.listener.is_some()
            || m.acking;
        self.medium.set_radio(now, id, want).ok();
        let on = self.medium.radio_on(id);
        match (on, m.radio_since) {
            (true, None) => m.radio_since = Some(now),
            (false, Some(s)) => {
                m.mac.radio_on_ns += now.saturating_duration_since(s).as_nanos() as u64;
                m.radio_since = None;
            }
            _ => {}
        }
    }

    fn on_check(&mut self, node: u16, cca: u32) {
        let now = self.now;
        let c = self.cfg.contikimac.clone();
        let c = &c;
        if cca == 0 {
            self.push(now + c.cycle_time, Ev::Check { node, cca: 0 });
        }
        let m = &self.motes[node as usize];
        if m.tx.as_ref().is_some_and(TxAttempt::running) || m.listener.is_some() || m.acking {
            return;
        }
        if self.medium.cca(now, NodeId(node)) {
            let check = now.saturating_sub(c.cca_spacing * cca);
            let mut busy = vec![false; cca as usize];
            busy.push(true);
            if let Some((listener, _on_at)) = Listener::after_check(c, check, &busy) {
                let step = listener.step();
                self.motes[node as usize].listener = Some(listener);
                self.update_radio(node);
                self.apply_listen(node, step);
            }
        } else if cca + 1 < c.cca_count_max {
            self.push(now + c.cca_spacing, Ev::Check { node, cca: cca + 1 });
        }
    }

    fn apply_listen(&mut self, node: u16, step: ListenStep) {
        let m = &mut self.motes[node as usize];
        m.listen_gen += 1;
        match step {
            ListenStep::Off => {
                m.listener = None;
                self.update_radio(node);
                self.resume_deferred(node);
            }
            ListenStep::Listen { deadline } => {
                if deadline < Instant::MAX {
                    let generation = m.listen_gen;
                    self.push(deadline.max(self.now), Ev::ListenTimeout { node, generation });
                }
            }
        }
    }

    // ---- CSMA and RDC (sender side) -----------------------------------------------------------

    fn on_service(&mut self, node: u16, next_hop: NodeId) {
        let now = self.now;
        let m = &mut self.motes[node as usize];
        if m.tx.is_some() {
            if !m.deferred.contains(&next_hop) {
                m.deferred.push_back(next_hop);
            }
            return;
        }
        let Some(burst) = m.csma.service(now, next_hop) else { return };
        m.tx = Some(TxAttempt {
            next_hop,
            frames: burst.frames.into(),
            kind: AttemptKind::Waiting,
            pending: None,
            ack_ok: false,
        });
        self.start_frame(node, false);
    }

    fn resume_deferred(&mut self, node: u16) {
        while self.motes[node as usize].tx.is_none() {
            let Some(nh) = self.motes[node as usize].deferred.pop_front() else { return };
            self.on_service(node, nh);
        }
    }

    fn set_pending(&mut self, node: u16, p: Pending) {
        let at = match p {
            Pending::Start(_) => return,
            Pending::Step(RdcStep::Cca { at })
            | Pending::Step(RdcStep::SendFrame { at, .. })
            | Pending::Step(RdcStep::Readout { at })
            | Pending::Step(RdcStep::Done { at, .. })
            | Pending::AckCheck(at) => at,
        };
        self.schedule_pending(node, p, at);
    }

    fn schedule_pending(&mut self, node: u16, p: Pending, at: Instant) {
        let m = &mut self.motes[node as usize];
        if let Some(tx) = m.tx.as_mut() {
            tx.pending = Some(p);
        }
        m.rdc_gen += 1;
        let generation = m.rdc_gen;
        self.push(at.max(self.now), Ev::Rdc { node, generation });
    }

    fn start_frame(&mut self, node: u16, follower: bool) {
        let now = self.now;
        let Some(tx) = self.motes[node as usize].tx.as_ref() else { return };
        let Some(front) = tx.frames.front() else { return };
        let psdu = front.packet.psdu;
        let next_hop = tx.next_hop;
        match self.cfg.rdc {
            RdcKind::NullRdc => {
                let (att, step) = NullRdcTx::new(&self.cfg.null_rdc, &self.cfg.phy, psdu, now);
                if let Some(tx) = self.motes[node as usize].tx.as_mut() {
                    tx.kind = AttemptKind::Null(att);
                }
                self.set_pending(node, Pending::Step(step));
            }
            RdcKind::Contikimac => {
                if follower {
                    self.start_train(node, TrainKind::BurstFollower);
                } else {
                    let s = self.motes[node as usize].phases.schedule(&self.cfg.contikimac, next_hop, now);
                    if s.start > now {
                        self.schedule_pending(node, Pending::Start(s.kind), s.start);
                    } else {
                        self.start_train(node, s.kind);
                    }
                }
            }
        }
    }

    fn start_train(&mut self, node: u16, kind: TrainKind) {
        let now = self.now;
        let m = &self.motes[node as usize];
        let Some(tx) = m.tx.as_ref() else { return };
        let Some(psdu) = tx.frames.front().map(|f| f.packet.psdu) else { return };
        let receiving = kind != TrainKind::BurstFollower
            && (self.medium.is_receiving(NodeId(node)) || m.listener.is_some() || m.acking);
        let (train, step) = StrobeTrain::start(&self.cfg.contikimac, &self.cfg.phy, kind, psdu, now, receiving);
        if let Some(tx) = self.motes[node as usize].tx.as_mut() {
            tx.kind = AttemptKind::Train(train);
        }
        self.update_radio(node);
        self.set_pending(node, Pending::Step(step));
    }

    fn on_rdc(&mut self, node: u16) {
        let id = NodeId(node);
        let Some(mut tx) = self.motes[node as usize].tx.take() else { return };
        let Some(pending) = tx.pending.take() else {
            self.motes[node as usize].tx = Some(tx);
            return;
        };
        let next = match (pending, &mut tx.kind) {
            (Pending::Start(kind), _) => {
                self.motes[node as usize].tx = Some(tx);
                self.start_train(node, kind);
                return;
            }
            (Pending::Step(RdcStep::Cca { at }), kind) => {
                let busy = self.medium.cca(at, id);
                if busy {
                    self.motes[node as usize].mac.cca_busy += 1;
                }
                match kind {
                    AttemptKind::Null(a) => a.on_cca(at, busy),
                    AttemptKind::Train(t) => t.on_cca(at, busy),
                    AttemptKind::Waiting => RdcStep::Done { at, status: TxStatus::Collision },
                }
            }
            (Pending::Step(RdcStep::SendFrame { at, airtime, check_at }), kind) => {
                let Some(front) = tx.frames.front() else {
                    self.motes[node as usize].tx = Some(tx);
                    return;
                };
                let Frame { pkt, fragment, .. } = front.packet;
                let ack_req = match kind {
                    AttemptKind::Null(_) => self.cfg.null_rdc.ack_wait,
                    _ => true,
                };
                let pending_bit = self.cfg.rdc == RdcKind::Contikimac && tx.frames.len() > 1;
                let info = FrameInfo {
                    from: id,
                    to: tx.next_hop,
                    kind: FrameKind::Data { pkt, seq: front.seq, pending: pending_bit, ack_req, fragment },
                };
                tx.ack_ok = false;
                match self.medium.start_tx(at, id, airtime, &mut self.medium_rng) {
                    Ok(start) => {
                        self.frames.insert(start.id, info);
                        self.push(at + airtime, Ev::FrameEnd(start.id));
                        self.motes[node as usize].mac.data_frames += 1;
                        for r in start.receivers {
                            let rm = &mut self.motes[r.index()];
                            if let Some(l) = rm.listener.as_mut() {
                                let step = l.on_frame_start(at);
                                self.apply_listen(r.0, step);
                            }
                        }
                    }
                    Err(_) => {
                        // Already transmitting (a hardware ACK): the copy is lost on air.
                    }
                }
                self.motes[node as usize].tx = Some(tx);
                self.update_radio(node);
                self.set_pending(node, Pending::AckCheck(check_at));
                return;
            }
            (Pending::AckCheck(at), kind) => {
                let activity = match self.medium.receiving_frame(id).and_then(|f| self.frames.get(&f)) {
                    Some(f) if matches!(f.kind, FrameKind::Ack { .. }) && f.from == tx.next_hop => {
                        AckActivity::AckFromAddressee
                    }
                    _ if self.medium.cca(at, id) => AckActivity::Other,
                    _ => AckActivity::None,
                };
                match kind {
                    AttemptKind::Null(a) => a.on_ack_check(at, activity),
                    AttemptKind::Train(t) => t.on_ack_check(at, activity),
                    AttemptKind::Waiting => RdcStep::Done { at, status: TxStatus::Collision },
                }
            }
            (Pending::Step(RdcStep::Readout { at }), kind) => match kind {
                AttemptKind::Null(a) => a.on_readout(at, tx.ack_ok),
                AttemptKind::Train(t) => t.on_readout(at, tx.ack_ok),
                AttemptKind::Waiting => RdcStep::Done { at, status: TxStatus::Collision },
            },
            (Pending::Step(RdcStep::Done { status, .. }), _) => {
                self.motes[node as usize].tx = Some(tx);
                self.finish_frame(node, status);
                return;
            }
        };
        self.motes[node as usize].tx = Some(tx);
        self.set_pending(node, Pending::Step(next));
    }

    fn finish_frame(&mut self, node: u16, status: TxStatus) {
        let now = self.now;
        let cm = self.cfg.contikimac.clone();
        let m = &mut self.motes[node as usize];
        let Some(mut tx) = m.tx.take() else { return };
        match status {
            TxStatus::Ok => m.mac.tx_ok += 1,
            TxStatus::NoAck => m.mac.tx_noack += 1,
            TxStatus::Collision => m.mac.tx_collision += 1,
        }
        if let AttemptKind::Train(t) = &tx.kind {
            if status == TxStatus::Ok {
                m.mac.copies_in_ok_trains += u64::from(t.copies());
                if t.kind() == TrainKind::BurstFollower {
                    m.mac.burst_followers_ok += 1;
                }
            }
            if t.kind() != TrainKind::Broadcast {
                m.phases.on_result(&cm, tx.next_hop, now, status, t.acked_copy());
            }
        }
        let outputs = m.csma.on_result(now, tx.next_hop, status, &mut m.rng).unwrap_or_default();
        for o in outputs {
            match o {
                CsmaOutput::TransmitAt { next_hop, at } => self.push(at, Ev::Service { node, next_hop }),
                CsmaOutput::Sent { .. } => {}
                CsmaOutput::Dropped { cause, .. } => self.count_drop(node, cause),
            }
        }
        tx.frames.pop_front();
        if status == TxStatus::Ok && !tx.frames.is_empty() {
            tx.kind = AttemptKind::Waiting;
            tx.pending = None;
            self.motes[node as usize].tx = Some(tx);
            self.start_frame(node, true);
        } else {
            self.update_radio(node);
            self.resume_deferred(node);
        }
    }

    fn count_drop(&mut self, node: u16, cause: DropCause) {
        let mac = &mut self.motes[node as usize].mac;
        match cause {
            DropCause::NoNeighborQueue => mac.drop_no_neighbor_queue += 1,
            DropCause::NoBuffer => mac.drop_no_buffer += 1,
            DropCause::QueueFull => mac.drop_queue_full += 1,
            DropCause::RetryLimit => mac.drop_retry_limit += 1,
        }
        self.dropped += 1;
    }

    // ---- receiver side -----------------------------------------------------------------------

    fn on_ack_start(&mut self, node: u16, to: NodeId, seq: u8) {
        let id = NodeId(node);
        if self.medium.is_transmitting(id) {
            self.motes[node as usize].acking = false;
            self.update_radio(node);
            return;
        }
        let airtime = self.cfg.phy.ack_airtime();
        if let Ok(start) = self.medium.start_tx(self.now, id, airtime, &mut self.medium_rng) {
            self.frames.insert(start.id, FrameInfo { from: id, to, kind: FrameKind::Ack { seq } });
            self.push(self.now + airtime, Ev::FrameEnd(start.id));
            self.motes[node as usize].mac.acks_sent += 1;
            for r in start.receivers {
                if let Some(l) = self.motes[r.index()].listener.as_mut() {
                    let step = l.on_frame_start(self.now);
                    self.apply_listen(r.0, step);
                }
            }
        }
    }

    fn on_frame_end(&mut self, id: FrameId) {
        let now = self.now;
        let Some(info) = self.frames.remove(&id) else { return };
        let ends = self.medium.end_tx(now, id).unwrap_or_default();
        match info.kind {
            FrameKind::Ack { seq } => {
                for e in &ends {
                    if e.ok
                        && e.node == info.to
                        && let Some(tx) = self.motes[e.node.index()].tx.as_mut()
                        && tx.next_hop == info.from
                        && tx.frames.front().is_some_and(|f| f.seq == seq)
                    {
                        tx.ack_ok = true;
                    }
                    if e.node != info.to {
                        self.listener_end(e.node.0, FrameEnd::ForOther);
                    }
                }
                self.motes[info.from.index()].acking = false;
                self.update_radio(info.from.0);
                self.resume_deferred(info.from.0);
            }
            FrameKind::Data { pkt, seq, pending, ack_req, fragment } => {
                for e in ends {
                    let r = e.node;
                    if !(e.ok && r == info.to) {
                        if !e.ok {
                            self.motes[r.index()].mac.rx_corrupted += 1;
                        }
                        let end = if e.ok { FrameEnd::ForOther } else { FrameEnd::Corrupted };
                        self.listener_end(r.0, end);
                        continue;
                    }
                    let accepts = self.cfg.rdc == RdcKind::NullRdc || self.motes[r.index()].listener.is_some();
                    if !accepts {
                        continue;
                    }
                    if ack_req {
                        self.motes[r.index()].acking = true;
                        self.push(now + self.cfg.phy.ack_delay, Ev::AckStart { node: r.0, to: info.from, seq });
                    }
                    self.listener_end(r.0, FrameEnd::UnicastToMe { pending });
                    if self.motes[r.index()].csma.on_receive(info.from, seq) {
                        self.motes[r.index()].mac.rx_delivered += 1;
                        self.lowpan_receive(r.0, info.from, pkt, fragment);
                    } else {
                        self.motes[r.index()].mac.rx_duplicates += 1;
                    }
                }
            }
        }
    }

    fn listener_end(&mut self, node: u16, end: FrameEnd) {
        if let Some(l) = self.motes[node as usize].listener.as_mut() {
            let step = l.on_frame_end(self.now, end);
            self.apply_listen(node, step);
        }
    }

    // ---- network layer -----------------------------------------------------------------------

    fn new_packet(&mut self, p: Packet) -> u32 {
        self.packets.push(p);
        (self.packets.len() - 1) as u32
    }

    fn net_receive(&mut self, node: u16, pkt: u32) {
        let mut p = self.packets[pkt as usize].clone();
        p.hop += 1;
        let here = Addr::Node(NodeId(node));
        let dst = p.dst;
        let k = self.new_packet(p);
        if dst == here {
            self.delivered += 1;
            self.deliver_mote(node, k);
        } else {
            self.push(self.now + self.cfg.t_fwd, Ev::NetIn { node, pkt: k });
        }
    }

    /// Sends packet `pkt` from `node`'s network layer towards its destination.
    fn route_out(&mut self, node: u16, pkt: u32) {
        let here = NodeId(node);
        let p = &self.packets[pkt as usize];
        let next = match p.dst {
            Addr::Host(_) => {
                if here == self.dodag.root() {
                    self.slip_up(pkt);
                    return;
                }
                self.dodag.parent(here)
            }
            Addr::Node(d) => self.dodag.next_hop(here, d),
        };
        let Some(next_hop) = next else {
            self.dropped += 1;
            return;
        };
        let frames = match self.rule_packet(p.flow, p.hop, p.hops) {
            Some(c) if self.cfg.fragmentation => match fragment(&c, self.cfg.phy.max_psdu_bytes) {
                Ok(f) => f,
                Err(_) => {
                    // Checked at load time; unreachable for the flows of a run.
                    self.dropped += 1;
                    return;
                }
            },
            Some(c) => vec![LowpanFrame { psdu_bytes: c.psdu_bytes(), fragment: None }],
            None => {
                vec![LowpanFrame {
                    psdu_bytes: p.flow.psdu_len(self.cfg.frame_len_mode, p.hop, p.hops),
                    fragment: None,
                }]
            }
        };
        if frames.len() > 1 {
            // sicslowpan.c: enough free buffers for the estimated fragments, plus one.
            let csma = &self.motes[node as usize].csma;
            let free = csma.config().queuebuf_num.saturating_sub(csma.queued());
            let need = buffers_needed(self.ipv6_len_at(p.flow, p.hop, p.hops), self.cfg.phy.max_psdu_bytes - 2);
            if free < need {
                self.count_drop(node, DropCause::NoBuffer);
                return;
            }
        }
        for f in frames {
            let frame = Frame { pkt, psdu: f.psdu_bytes, fragment: f.fragment };
            match self.motes[node as usize].csma.send(self.now, next_hop, frame) {
                SendOutcome::Queued { transmit_at: Some(at), .. } => self.push(at, Ev::Service { node, next_hop }),
                SendOutcome::Queued { transmit_at: None, .. } => {}
                SendOutcome::Dropped { cause, .. } => {
                    // The first failed enqueue drops the remaining fragments (sicslowpan.c).
                    self.count_drop(node, cause);
                    return;
                }
            }
        }
    }

    /// The 6LoWPAN encoding of `flow` on hop `hop` of `hops` when its frame lengths come
    /// from rules 1–4 (`frame_len_mode = rules`, or Makarem's CON with `makarem_coap_len`);
    /// `None` when the §1.2 table gives them.
    fn rule_packet(&self, flow: TableFlow, hop: u32, hops: u32) -> Option<Compressed> {
        let coap_len = self.cfg.makarem_coap_len.filter(|_| flow == TableFlow::MakaremCon);
        if self.cfg.frame_len_mode == FrameLenMode::Table && coap_len.is_none() {
            return None;
        }
        let (version, transport, src, dst) = self.rule_inputs(flow);
        let rules = FrameRules::for_version(version);
        Some(rules.compressed(&rules.hop_packet(transport, src, dst, hop, hops)))
    }

    /// [`TableFlow::rule_inputs`], with Makarem's CoAP message length when
    /// `makarem_coap_len` is set (OQ-M9).
    fn rule_inputs(&self, flow: TableFlow) -> (ContikiVersion, Transport, PhyEndpoint, PhyEndpoint) {
        let (version, transport, src, dst) = flow.rule_inputs();
        match self.cfg.makarem_coap_len {
            Some(n) if flow == TableFlow::MakaremCon => (version, Transport::Udp { payload_bytes: n }, src, dst),
            _ => (version, transport, src, dst),
        }
    }

    /// The IPv6 length of `flow`'s packet on hop `hop` of `hops` (rules 1–4).
    fn ipv6_len_at(&self, flow: TableFlow, hop: u32, hops: u32) -> u32 {
        let (version, transport, src, dst) = self.rule_inputs(flow);
        let rules = FrameRules::for_version(version);
        rules.ipv6_len(&rules.hop_packet(transport, src, dst, hop, hops))
    }

    /// A frame reached `node`'s 6LoWPAN layer from `from`: reassembly (when fragmentation is
    /// on), then the network layer.
    fn lowpan_receive(&mut self, node: u16, from: NodeId, pkt: u32, fragment: Option<Fragment>) {
        if !self.cfg.fragmentation {
            self.net_receive(node, pkt);
            return;
        }
        let now = self.now;
        let r = &mut self.motes[node as usize].reassembly;
        let abandoned = r.abandoned();
        let verdict = r.on_frame(now, from, pkt, fragment);
        let lost = r.abandoned() - abandoned + u64::from(verdict == Verdict::Drop && fragment.is_some_and(|f| f.first));
        self.dropped += lost;
        if verdict == Verdict::Deliver {
            self.net_receive(node, pkt);
        }
    }

    /// Load-time check (§1.2 rule 1): every frame the workload's flows can need fits in the
    /// PSDU, or fragmentation is on and can split it.
    fn check_frame_sizes(&self, topo: &Topology) -> Result<(), ConfigError> {
        if self.cfg.frame_len_mode == FrameLenMode::Table && self.cfg.makarem_coap_len.is_none() {
            return Ok(());
        }
        let flows: &[TableFlow] = match &self.cfg.workload {
            Workload::LimTcp(_) => &[TableFlow::LimData, TableFlow::LimAck],
            _ => &[self.frames_of_coap.0, self.frames_of_coap.1],
        };
        let mut path_hops: Vec<u32> =
            (0..topo.len()).filter_map(|i| self.dodag.hops(NodeId::from_index(i))).filter(|&h| h > 0).collect();
        if let Workload::CoapSaturated(_) = &self.cfg.workload {
            for a in &self.apps {
                if let (Addr::Node(s), Some(Addr::Node(r))) = (a.addr, a.peer) {
                    path_hops.extend(self.dodag.route_hops(s, r));
                }
            }
        }
        path_hops.sort_unstable();
        path_hops.dedup();
        let max = self.cfg.phy.max_psdu_bytes;
        for &flow in flows {
            let key = if flow == TableFlow::MakaremCon && self.cfg.makarem_coap_len.is_some() {
                "makarem_coap_len"
            } else {
                "frame_len_mode"
            };
            for &hops in &path_hops {
                for hop in 0..hops {
                    let Some(c) = self.rule_packet(flow, hop, hops) else { continue };
                    if self.cfg.fragmentation {
                        fragment(&c, max)?;
                    } else if c.psdu_bytes() > max {
                        return Err(ConfigError::new(
                            key,
                            "a frame exceeds the PSDU (phy.max_psdu_bytes, 127 B) and would need 6LoWPAN \
                             fragmentation: set multihop.fragmentation = true",
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn ipv6_bytes(&self, p: &Packet) -> u32 {
        let (_, transport, src, dst) = self.rule_inputs(p.flow);
        let last = p.hops.saturating_sub(1);
        self.rules.ipv6_len(&self.rules.hop_packet(transport, src, dst, last, p.hops.max(1)))
    }

    fn slip_time(&self, p: &Packet) -> Duration {
        let bits = u64::from(self.ipv6_bytes(p) + 2).saturating_mul(u64::from(self.cfg.slip_bits_per_byte));
        Duration::from_nanos(bits.saturating_mul(1_000_000_000) / u64::from(self.cfg.slip_bit_rate))
    }

    fn slip_up(&mut self, pkt: u32) {
        let d = self.slip_time(&self.packets[pkt as usize]);
        let done = self.now.max(self.slip_up_free) + d;
        self.slip_up_free = done;
        self.push(done, Ev::HostIn { pkt });
    }

    /// A host-side endpoint sends: host delay, then SLIP down to the border router, then its
    /// forwarding delay.
    fn send_from_host(&mut self, p: Packet) {
        let d = self.slip_time(&p);
        let pkt = self.new_packet(p);
        let at_host = self.now + self.cfg.host_delay;
        let done = at_host.max(self.slip_down_free) + d;
        self.slip_down_free = done;
        let root = self.dodag.root().0;
        self.push(done + self.cfg.t_fwd, Ev::NetIn { node: root, pkt });
    }

    fn send(&mut self, src: Addr, dst: Addr, flow: TableFlow, body: Body) {
        let hops = match (src, dst) {
            (Addr::Node(a), Addr::Node(b)) => self.dodag.route_hops(a, b).unwrap_or(0),
            (Addr::Node(a), Addr::Host(_)) => self.dodag.hops(a).unwrap_or(0),
            (Addr::Host(_), Addr::Node(b)) => self.dodag.hops(b).unwrap_or(0),
            (Addr::Host(_), Addr::Host(_)) => 0,
        };
        let p = Packet { src, dst, flow, hops, hop: 0, body };
        match src {
            Addr::Node(n) => {
                let k = self.new_packet(p);
                self.route_out(n.0, k);
            }
            Addr::Host(_) => self.send_from_host(p),
        }
    }

    fn deliver_mote(&mut self, node: u16, pkt: u32) {
        if self.cfg.blackhole_nodes.contains(&node) {
            return;
        }
        match self.packets[pkt as usize].body.clone() {
            Body::Coap(msg) => {
                let request = msg.mtype == MessageType::Con && msg.code.is_request();
                if request && !self.cfg.t_app.is_zero() {
                    self.push(self.now + self.cfg.t_app, Ev::AppIn { node, pkt });
                } else {
                    self.deliver_coap(Addr::Node(NodeId(node)), pkt);
                }
            }
            Body::Tcp(seg) => {
                if let Some(t) = self.tcp[node as usize].as_mut() {
                    let out = t.client.on_segment(self.now, seg, &mut t.rng);
                    self.tcp_sent(node, out);
                }
            }
        }
    }

    fn deliver_host(&mut self, pkt: u32) {
        self.delivered += 1;
        let p = self.packets[pkt as usize].clone();
        match p.body {
            Body::Coap(_) => self.deliver_coap(p.dst, pkt),
            Body::Tcp(seg) => {
                let Addr::Node(from) = p.src else { return };
                let reply = self.tcp_server.on_segment(from, seg);
                if let Some(a) = reply.answer {
                    self.send(p.dst, p.src, TableFlow::LimAck, Body::Tcp(a));
                }
                if let Some(generation) = reply.delack {
                    let at = self.now + self.tcp_server.delayed_ack();
                    self.push(at, Ev::TcpDelack { node: from.0, generation });
                }
            }
        }
    }

    // ---- CoAP applications -------------------------------------------------------------------

    fn deliver_coap(&mut self, at: Addr, pkt: u32) {
        let Some(&app) = self.app_of.get(&at) else { return };
        let p = &self.packets[pkt as usize];
        let Body::Coap(msg) = &p.body else { return };
        let (from, msg) = (p.src, Arc::clone(msg));
        let request = msg.code.is_request();
        let before = self.apps[app].ep.stats();
        self.apps[app].ep.handle_message(self.now, from, msg);
        if request {
            let after = self.apps[app].ep.stats();
            let fresh = after.duplicates_answered == before.duplicates_answered
                && after.duplicates_pending == before.duplicates_pending;
            if fresh
                && self.now >= self.window.0
                && self.now < self.window.1
                && let Some(&capp) = self.app_of.get(&from)
                && let Some(f) = self.apps[capp].flow
            {
                self.flows[f].distinct_received_in_window += 1;
            }
        }
        self.drain_app(app);
    }

    fn issue(&mut self, app: usize) {
        let a = &mut self.apps[app];
        let Some(peer) = a.peer else { return };
        if let Some(left) = a.to_issue.as_mut() {
            if *left == 0 {
                return;
            }
            *left -= 1;
        }
        a.ep.request(self.now, peer, Message::con_request(Code::GET, ""));
        self.drain_app(app);
    }

    fn drain_app(&mut self, app: usize) {
        let now = self.now;
        let (req_flow, resp_flow) = self.frames_of_coap;
        while let Some(t) = self.apps[app].ep.poll_transmit() {
            let flow = if t.msg.code.is_request() { req_flow } else { resp_flow };
            let src = self.apps[app].addr;
            self.send(src, t.to, flow, Body::Coap(t.msg));
        }
        while let Some(e) = self.apps[app].ep.poll_event() {
            let in_window = now >= self.window.0 && now < self.window.1;
            match e {
                Event::Completed { first_sent, rtt, retransmissions, to, .. } => {
                    if let Some(f) = self.apps[app].flow {
                        let continuous = self.apps[app].to_issue.is_none();
                        let rto = self.apps[app].ep.rto(&to, now);
                        let r = &mut self.flows[f];
                        if continuous && r.series.len() < 20_000 {
                            r.series.push((
                                now.as_nanos(),
                                rtt.as_nanos() as u64,
                                rto.map_or(0, |d| d.as_nanos() as u64),
                            ));
                        }
                        r.completed += 1;
                        r.retransmissions += u64::from(retransmissions);
                        r.duration_sum_ns += rtt.as_nanos();
                        r.first_send_ns.get_or_insert(first_sent.as_nanos());
                        r.last_ack_ns = Some(now.as_nanos());
                        if in_window {
                            r.ended_in_window += 1;
                            r.completed_in_window += 1;
                            r.transmissions_in_window += 1 + u64::from(retransmissions);
                        }
                    }
                    self.next_request(app);
                }
                Event::Failed { retransmissions, .. } => {
                    if let Some(f) = self.apps[app].flow {
                        let r = &mut self.flows[f];
                        r.failed += 1;
                        r.retransmissions += u64::from(retransmissions);
                        if in_window {
                            r.ended_in_window += 1;
                            r.failed_in_window += 1;
                            r.transmissions_in_window += 1 + u64::from(retransmissions);
                        }
                    }
                    self.next_request(app);
                }
                Event::TimerExpired { timer, .. } => {
                    if let Some(f) = self.apps[app].flow
                        && self.flows[f].expired_timers_ns.len() < 64
                    {
                        self.flows[f].expired_timers_ns.push(timer.as_nanos() as u64);
                    }
                }
                _ => {}
            }
        }
        let want = self.apps[app].ep.poll_timeout();
        let a = &mut self.apps[app];
        if want != a.timer_at {
            a.timer_at = want;
            a.timer_gen += 1;
            if let Some(t) = want {
                let generation = a.timer_gen;
                self.push(t.max(now), Ev::EpTimer { app: app as u32, generation });
            }
        }
    }

    fn next_request(&mut self, app: usize) {
        let a = &self.apps[app];
        let done = a.to_issue == Some(0) && a.peer.is_some_and(|p| a.ep.pending(&p) == 0);
        if done && let Some(left) = self.clients_left.as_mut() {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.clients_done_at = Some(self.now);
                let at = self.now + self.tail;
                self.end = self.end.min(at);
                self.push(at, Ev::End);
            }
            return;
        }
        if self.one_to_one.is_some() && done {
            let pause = match &self.cfg.workload {
                Workload::CoapOneToOne(w) => w.pause,
                _ => Duration::ZERO,
            };
            let at = self.now + pause;
            if self.start_next_server(at).is_err() {
                self.stopped = true;
            }
            return;
        }
        self.issue(app);
    }

    /// Betzler 1-to-1: a fresh cloud client for the next server, starting at `at`.
    fn start_next_server(&mut self, at: Instant) -> Result<(), ConfigError> {
        let Some((servers, k, alg)) = self.one_to_one.as_mut() else { return Ok(()) };
        let alg = Arc::clone(alg);
        let Some(&server) = servers.get(*k) else {
            self.push(self.now, Ev::End);
            return Ok(());
        };
        let host = *k as u16;
        *k += 1;
        let Workload::CoapOneToOne(w) = self.cfg.workload.clone() else { return Ok(()) };
        let rng = stream_rng(self.seed, 0, streams::ENDPOINT | (1 << 16) | u64::from(host));
        let ep = build_endpoint(&alg, w.nstart, false, rng)?;
        let flow = self.flows.len();
        self.flows.push(CoapFlowResult { node: None, peer: Some(server.0), ..Default::default() });
        let app = self.add_app(Addr::Host(host), ep, Some(Addr::Node(server)), Some(w.exchanges), Some(flow));
        for _ in 0..w.client_mode.initial_requests(w.nstart) {
            self.push(at, Ev::ClientStart { app: app as u32 });
        }
        Ok(())
    }

    // ---- TCP ---------------------------------------------------------------------------------

    fn on_report(&mut self, node: u16) {
        let now = self.now;
        let Workload::LimTcp(w) = &self.cfg.workload else { return };
        let (lo, hi) = (w.report_min, w.report_max);
        let Some(t) = self.tcp[node as usize].as_mut() else { return };
        if now < self.tcp_data.1 {
            t.data_phase_reports += 1;
        }
        let seg = t.client.report(now, &mut t.rng);
        let gap = if hi > lo { uniform_duration(&mut t.report_rng, lo, hi - Duration::from_nanos(1)) } else { lo };
        self.push(now + gap, Ev::TcpReport { node });
        self.tcp_sent(node, seg);
    }

    /// After the client acted: send `seg` (if any) and re-arm its timer.
    fn tcp_sent(&mut self, node: u16, seg: Option<Segment>) {
        if let Some(s) = seg {
            let flow = match s {
                Segment::Data { .. } => TableFlow::LimData,
                _ => TableFlow::LimAck,
            };
            self.send(Addr::Node(NodeId(node)), Addr::Host(0), flow, Body::Tcp(s));
        }
        let periodic = matches!(&self.cfg.workload, Workload::LimTcp(w) if w.periodic_timer);
        let Some(t) = self.tcp[node as usize].as_mut() else { return };
        t.timer_gen += 1;
        if let Some(d) = t.client.deadline() {
            let at = if periodic {
                // The next tick of the 0.5-s periodic timer at or after the deadline.
                let tick = 500_000_000u64;
                let p = t.tick_phase.as_nanos() as u64;
                let x = d.as_nanos();
                let k = x.saturating_sub(p).div_ceil(tick);
                Instant::from_nanos(p.saturating_add(k.saturating_mul(tick)))
            } else {
                d
            };
            let generation = t.timer_gen;
            self.push(at.max(self.now), Ev::TcpTimer { node, generation });
        }
    }

    // ---- results -----------------------------------------------------------------------------

    fn finish(mut self) -> MultihopResult {
        let end = self.now.max(self.end.min(self.now));
        for i in 0..self.motes.len() {
            let m = &mut self.motes[i];
            if let Some(s) = m.radio_since.take() {
                m.mac.radio_on_ns += end.saturating_duration_since(s).as_nanos() as u64;
            }
        }
        let tcp = if self.tcp.iter().any(Option::is_some) {
            let (t0, t1) = self.tcp_data;
            let secs = t1.saturating_duration_since(t0).as_secs_f64().max(1e-9);
            let mut nodes = Vec::new();
            for (i, t) in self.tcp.iter().enumerate() {
                let Some(t) = t else { continue };
                let s = t.client.stats();
                let state = t.client.state();
                nodes.push(TcpNodeResult {
                    node: i as u16,
                    hops: t.hops,
                    reports: t.data_phase_reports,
                    delivered_bytes: self.tcp_server.delivered_bytes(NodeId(i as u16)),
                    retransmitted_segments: s.retransmitted_segments,
                    syn_retransmissions: s.syn_retransmissions,
                    rtt_samples: s.rtt_samples,
                    max_retransmissions_delivered: s.max_retransmissions_delivered,
                    rtt_samples_below_1s: s.rtt_samples_below_1s,
                    rtt_samples_truncated: s.rtt_samples_truncated,
                    rtt_samples_above_3s: s.rtt_samples_above_3s,
                    max_rto_after_10_samples_ns: s
                        .max_rto_after_10_samples
                        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
                    setup_failed: state == TcpState::SetupFailed,
                    broken: state == TcpState::Broken,
                    timers_ns: t.client.timers().iter().take(64).map(|d| d.as_nanos() as u64).collect(),
                    trace: t.client.trace().to_vec(),
                });
            }
            let payload = match &self.cfg.workload {
                Workload::LimTcp(w) => u64::from(w.payload_bytes),
                _ => 0,
            };
            let goodputs: Vec<f64> = nodes.iter().map(|n| n.delivered_bytes as f64 * 8.0 / secs).collect();
            Some(TcpResult {
                goodput_bps: goodputs.iter().sum(),
                offered_bps: nodes.iter().map(|n| (n.reports * payload) as f64 * 8.0).sum::<f64>() / secs,
                retransmitted_segments: nodes.iter().map(|n| n.retransmitted_segments).sum(),
                fairness: jain_index(&goodputs),
                setup_failures: nodes.iter().filter(|n| n.setup_failed).count() as u64,
                broken: nodes.iter().filter(|n| n.broken).count() as u64,
                nodes,
            })
        } else {
            None
        };
        MultihopResult {
            clients_done_ns: self.clients_done_at.map(Instant::as_nanos),
            end_ns: self.now.as_nanos(),
            events: self.events,
            trace_digest: self.digest,
            coap: self.flows,
            tcp,
            mac: self.motes.iter().map(|m| m.mac).collect(),
            packets_delivered: self.delivered,
            packets_dropped: self.dropped,
        }
    }

    /// The DODAG in use.
    pub fn dodag(&self) -> &Dodag {
        &self.dodag
    }

    /// The TCP client of `node`, if the workload is Lim's.
    pub fn tcp_client(&self, node: NodeId) -> Option<&TcpClient> {
        self.tcp.get(node.index()).and_then(|t| t.as_ref().map(|t| &t.client))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms_of_ns(ns: f64) -> f64 {
        ns / 1e6
    }

    /// One sequential CoAP client on a line: node `hops` → node 0, `exchanges` exchanges.
    fn line_coap(rdc: RdcKind, hops: u32, exchanges: u64, algorithm: &str) -> MultihopConfig {
        MultihopConfig {
            topology: TopologyChoice::Line { nodes: hops + 1, spacing_m: 40.0 },
            rdc,
            duration: Duration::from_secs(600),
            workload: Workload::CoapSaturated(CoapSaturated {
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

    fn run(cfg: MultihopConfig, seed: u64) -> MultihopResult {
        MultihopSim::new(cfg, seed).unwrap().run().0
    }

    #[test]
    fn the_idle_one_hop_coap_rtt_through_real_endpoints_over_nullrdc_is_8_016_ms() {
        // §6 check 2: 2 × 0.192 + T(80) + T(84) + t_app 2 ms = 8.016 ms (±0.1 ms).
        let r = run(line_coap(RdcKind::NullRdc, 1, 20, "default"), 1);
        let f = &r.coap[0];
        assert_eq!((f.completed, f.failed, f.retransmissions), (20, 0, 0));
        assert!((f.mean_duration_s() * 1e3 - 8.016).abs() < 0.1, "{}", f.mean_duration_s());
    }

    #[test]
    fn each_extra_nullrdc_hop_adds_turnaround_airtime_and_t_fwd_in_each_direction() {
        // §6 check 2: h hops, idle: each hop adds 0.192 + T(L) + t_fwd per direction.
        for hops in [2u32, 3, 5] {
            let r = run(line_coap(RdcKind::NullRdc, hops, 10, "default"), 2);
            let f = &r.coap[0];
            assert_eq!((f.completed, f.retransmissions), (10, 0), "{hops} hops");
            let extra = f64::from(hops - 1) * ((0.192 + 2.752 + 1.0) + (0.192 + 2.880 + 1.0));
            let want = 8.016 + extra;
            assert!((f.mean_duration_s() * 1e3 - want).abs() < 0.1, "{hops} hops: {} vs {want}", f.mean_duration_s());
        }
    }

    #[test]
    fn a_contikimac_coap_exchange_over_one_idle_hop_costs_two_phase_unknown_hops_plus_t_app() {
        // §6 check 3 through endpoints: each direction ≈ 3.662 + U[0, T_w) + U[0, T_copy) +
        // T(L) (mean 70.6 ms for 80 B, ≈ 70.7 ms for 84 B) → exchange ≈ 143.3 ms + t_app
        // 2 ms; one exchange per seed so that no phase is known (R4 off for the first train).
        let n = 300u64;
        let (mut sum, mut lo, mut hi) = (0.0, f64::MAX, 0.0f64);
        for seed in 0..n {
            let r = run(line_coap(RdcKind::Contikimac, 1, 1, "default"), 1000 + seed);
            let f = &r.coap[0];
            assert_eq!((f.completed, f.retransmissions), (1, 0), "seed {seed}");
            let d = f.mean_duration_s() * 1e3;
            sum += d;
            lo = lo.min(d);
            hi = hi.max(d);
        }
        let mean = sum / n as f64;
        // Per direction ±2 ms (spec) plus 3 standard errors of 300 samples (sd ≈ 51 ms).
        assert!((mean - (70.6 + 70.7 + 2.0)).abs() < 4.0 + 9.0, "mean {mean}");
        let one = |t: f64| (3.662 + t, 3.662 + 125.0 + 2.0 * (0.589 + t) + t);
        let (a80, b80) = one(2.752);
        let (a84, b84) = one(2.880);
        assert!(lo >= a80 + a84 + 2.0 - 0.01 && hi <= b80 + b84 + 2.0 + 1.1, "[{lo}, {hi}]");
    }

    #[test]
    fn a_contikimac_exchange_over_h_idle_hops_costs_about_2h_times_71_ms() {
        // §6 check 3, h > 1: forwarders queue and relay; each hop ≈ 71 ms + t_fwd.
        for hops in [2u32, 3] {
            let n = 120u64;
            let mut sum = 0.0;
            for seed in 0..n {
                let r = run(line_coap(RdcKind::Contikimac, hops, 1, "default"), 5000 + seed);
                let f = &r.coap[0];
                assert_eq!(f.completed, 1, "{hops} hops, seed {seed}");
                sum += f.mean_duration_s() * 1e3;
            }
            let mean = sum / n as f64;
            let want = 2.0 * f64::from(hops) * 70.65 + 2.0 * f64::from(hops - 1) + 2.0;
            // sd per exchange ≈ 36 ms·√(2h); 3 standard errors + the spec's ±2 ms per hop.
            let tol = 3.0 * 36.0 * (2.0 * f64::from(hops)).sqrt() / (n as f64).sqrt() + 2.0 * f64::from(2 * hops);
            assert!((mean - want).abs() < tol, "{hops} hops: mean {mean} vs {want} ± {tol}");
        }
    }

    #[test]
    fn phase_locked_sequential_contikimac_exchanges_settle_at_one_wake_up_cycle() {
        // §6 check 4 through the engine. Once both ends know each other's phase (R4), a
        // sequential client sends right after its own wake-up-aligned reception, so the two
        // phase waits (client → server, server → client) add up to one cycle T_w: every
        // later exchange costs 125 ms (check 4's ≈ 81 ms per hop is for random send times,
        // covered in `rdc`). The trains are short and never miss on an idle channel.
        let r = run(line_coap(RdcKind::Contikimac, 1, 410, "cocoa"), 61);
        let f = &r.coap[0];
        assert_eq!((f.completed, f.retransmissions), (410, 0));
        let first10 = run(line_coap(RdcKind::Contikimac, 1, 10, "cocoa"), 61).coap[0].duration_sum_ns as f64;
        let mean = (f.duration_sum_ns as f64 - first10) / 400.0 / 1e6;
        assert!((mean - 125.0).abs() < 1.0, "mean {mean}");
        let mac = &r.mac[1];
        let copies = mac.copies_in_ok_trains as f64 / mac.tx_ok as f64;
        assert!(copies < 6.0, "{copies} copies per train (≈ 19 without phase lock)");
        assert_eq!(mac.tx_noack + r.mac[0].tx_noack, 0, "no misses on an idle channel");
    }

    #[test]
    fn a_strictly_sequential_client_has_throughput_times_mean_duration_equal_to_one() {
        // §6 check 13, over NullRDC (3 hops) and ContikiMAC (2 hops).
        for (rdc, hops) in [(RdcKind::NullRdc, 3), (RdcKind::Contikimac, 2)] {
            let r = run(line_coap(rdc, hops, 200, "cocoa"), 7);
            let f = &r.coap[0];
            assert_eq!(f.completed, 200, "{rdc:?}");
            let x = f.throughput_per_s() * f.mean_duration_s();
            assert!((x - 1.0).abs() < 0.01, "{rdc:?}: {x}");
        }
    }

    #[test]
    fn a_sequential_client_keeps_throughput_times_duration_at_one_even_with_nstart_4() {
        // §6 check 13 with OQ-M5's option: `client_mode = sequential` issues one exchange at a
        // time whatever NSTART; the default (`parallel`) keeps up to NSTART = 4 in flight, so
        // by Little's law throughput × duration is the mean number in flight there.
        for (rdc, hops) in [(RdcKind::NullRdc, 3), (RdcKind::Contikimac, 2)] {
            let with = |mode: ClientMode| {
                let mut cfg = line_coap(rdc, hops, 200, "cocoa");
                if let Workload::CoapSaturated(w) = &mut cfg.workload {
                    w.nstart = 4;
                    w.client_mode = mode;
                }
                let r = run(cfg, 7);
                let f = r.coap[0].clone();
                assert_eq!(f.completed + f.failed, 200, "{rdc:?} {mode:?}");
                if mode == ClientMode::Sequential {
                    assert_eq!(f.completed, 200, "{rdc:?}: an idle line loses nothing one at a time");
                }
                f.throughput_per_s() * f.mean_duration_s()
            };
            let sequential = with(ClientMode::Sequential);
            assert!((sequential - 1.0).abs() < 0.01, "{rdc:?}: {sequential}");
            let parallel = with(ClientMode::Parallel);
            // Measured 3.31 (NullRDC) and 2.77 (ContikiMAC, where exchanges also fail).
            assert!(parallel > 2.5, "{rdc:?}: {parallel} exchanges in flight on average");
        }
    }

    /// The Betzler surrogate with Contiki 2.7, NullRDC, lossless links, the 75 ms cloud delay
    /// and `workload`.
    fn betzler_null_rdc(workload: Workload) -> MultihopConfig {
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

    #[test]
    fn a_sequential_betzler_cloud_client_with_nstart_4_has_one_exchange_in_flight() {
        // OQ-M5 on the 1-to-1 workload (CoCoA4 = CoCoA with NSTART 4), lossless NullRDC.
        let cfg = betzler_null_rdc(Workload::CoapOneToOne(CoapOneToOne {
            algorithm: "cocoa".into(),
            nstart: 4,
            client_mode: ClientMode::Sequential,
            exchanges: 20,
            servers: Some(vec![0, 5, 9]),
            ..CoapOneToOne::default()
        }));
        let r = run(cfg, 44);
        assert_eq!(r.coap.len(), 3);
        for f in &r.coap {
            assert_eq!(f.completed, 20, "{f:?}");
            let x = f.throughput_per_s() * f.mean_duration_s();
            assert!((x - 1.0).abs() < 0.01, "{x}");
        }
    }

    /// Karn-valid RTT samples (ns) of the one TCP mote of a one-hop NullRDC line, with the
    /// server's delayed ACK `delack`.
    fn one_hop_tcp_rtts(delack: Duration) -> Vec<u64> {
        let mut cfg = lim(TopologyChoice::Line { nodes: 2, spacing_m: 40.0 }, RdcKind::NullRdc, "uip", 2);
        if let Workload::LimTcp(w) = &mut cfg.workload {
            w.server_delayed_ack = delack;
        }
        let mut sim = MultihopSim::new(cfg, 15).unwrap();
        sim.record_tcp_traces();
        let r = sim.run().0;
        let n = &r.tcp.unwrap().nodes[0];
        assert_eq!(n.retransmitted_segments, 0);
        n.trace.iter().filter(|p| p.kind == super::super::tcp::TracePointKind::Rtt).map(|p| p.value_ns).collect()
    }

    #[test]
    fn a_200_ms_delayed_ack_makes_every_idle_one_hop_tcp_round_trip_exactly_200_ms_longer() {
        // OQ-M14: with one segment outstanding no second segment can trigger an early ACK, so
        // the ACK leaves the host exactly when the delayed-ACK timer fires.
        let immediate = one_hop_tcp_rtts(Duration::ZERO);
        assert!(immediate.len() > 15, "{} samples", immediate.len());
        // Idle round trip: data 103 B and ACK 64 B over one NullRDC hop, SLIP both ways.
        assert!(immediate.iter().all(|&r| r == immediate[0] && r < 50_000_000), "{immediate:?}");
        for ms in [40u64, 200] {
            let delayed = one_hop_tcp_rtts(Duration::from_millis(ms));
            assert_eq!(delayed.len(), immediate.len());
            for (d, i) in delayed.iter().zip(&immediate) {
                assert_eq!(d - i, ms * 1_000_000, "{ms} ms");
            }
        }
    }

    /// [`line_coap`] with Makarem's CON read as an 80-B CoAP message (OQ-M9).
    fn coap_80(hops: u32, fragmentation: bool) -> MultihopConfig {
        MultihopConfig { makarem_coap_len: Some(80), fragmentation, ..line_coap(RdcKind::NullRdc, hops, 20, "default") }
    }

    #[test]
    fn an_80_byte_coap_message_needs_fragmentation_beyond_one_hop_and_is_a_load_error_without_it() {
        // phy/sixlowpan arithmetic: 123 B over a single hop, 131 B on the first of two.
        assert!(MultihopSim::new(coap_80(1, false), 1).is_ok());
        assert_eq!(MultihopSim::new(coap_80(2, false), 1).err().map(|e| e.key), Some("makarem_coap_len"));
        assert!(MultihopSim::new(coap_80(2, true), 1).is_ok());
    }

    #[test]
    fn an_unfragmented_80_byte_coap_message_over_one_nullrdc_hop_takes_its_123_byte_frame_time() {
        // §6 check 2 with a 123-B CON: 2 × 0.192 + T(123) 4.128 + T(84) 2.880 + t_app 2 = 9.392 ms.
        let r = run(coap_80(1, true), 1);
        let f = &r.coap[0];
        assert_eq!((f.completed, f.retransmissions), (20, 0));
        assert!((f.mean_duration_s() * 1e3 - 9.392).abs() < 0.01, "{}", f.mean_duration_s() * 1e3);
        assert_eq!(r.mac[1].data_frames, 20, "one frame per request");
    }

    #[test]
    fn fragments_leave_as_one_burst_and_the_packet_moves_on_only_when_the_fragn_arrived() {
        // Two NullRDC hops, 80-B CoAP CON (uip_len 136): hop 1 FRAG1 127 B + FRAGN 36 B, back
        // to back (one CSMA burst): (0.192 + T(127) 4.256) + (0.192 + T(36) 1.344) = 5.984 ms;
        // the forwarder reassembles at the FRAGN's end, then t_fwd 1 ms; hop 2 FRAG1 120 B +
        // FRAGN 44 B: (0.192 + 4.032) + (0.192 + 1.600) = 6.016 ms; t_app 2 ms; the 84-B
        // response over two hops: 2 × (0.192 + 2.880) + 1 = 7.144 ms. Total 22.144 ms
        // (16.032 ms with the stated 80-B frame).
        let r = run(coap_80(2, true), 1);
        let f = &r.coap[0];
        assert_eq!((f.completed, f.retransmissions), (20, 0));
        assert!((f.mean_duration_s() * 1e3 - 22.144).abs() < 0.01, "{}", f.mean_duration_s() * 1e3);
        // Two frames per request on each hop; one per response.
        assert_eq!((r.mac[2].data_frames, r.mac[1].data_frames, r.mac[0].data_frames), (40, 40 + 20, 20));
        assert_eq!(r.packets_dropped, 0);
    }

    #[test]
    fn a_lost_fragment_loses_the_request_and_a_long_reassembly_timeout_blocks_its_retransmissions() {
        // NullRDC without ACK wait repairs no frame (OQ-M1); SR_tx 0.9 per frame. Two hops,
        // 80-B CoAP message: 4 request fragments + 2 response frames must all arrive, so an
        // attempt succeeds with 0.9^6 = 0.531 (0.9^4 = 0.656 with the stated 80-B frame).
        // Default CoAP gives up after 5 transmissions: retransmissions per exchange =
        // (1 − q^5)/(1 − q) − 1 = 0.839 with q = 1 − 0.9^6 (0.517 unfragmented), when a lost
        // fragment only loses its packet (reassembly timeout 100 ms, far below the 2-3 s
        // retransmission timer).
        let lossy = |fragmented: bool, timeout_ms: u64| {
            let mut cfg = if fragmented { coap_80(2, true) } else { line_coap(RdcKind::NullRdc, 2, 20, "default") };
            cfg.udgm.success_ratio_tx = 0.9;
            cfg.reassembly_timeout = Some(Duration::from_millis(timeout_ms));
            cfg.duration = Duration::from_secs(200_000);
            if let Workload::CoapSaturated(w) = &mut cfg.workload {
                w.max_exchanges = Some(1500);
            }
            let f = run(cfg, 3).coap[0].clone();
            assert_eq!(f.completed + f.failed, 1500);
            f.retransmissions as f64 / 1500.0
        };
        let expected = |p: f64| {
            let q = 1.0 - p;
            (1.0 - q.powi(5)) / (1.0 - q) - 1.0
        };
        // sd of the mean over 1500 exchanges ≈ 0.03. Measured (seed 3): 0.536, 0.877, 1.297.
        let plain = lossy(false, 100);
        assert!((plain - expected(0.9f64.powi(4))).abs() < 0.1, "{plain}");
        let fragmented = lossy(true, 100);
        assert!((fragmented - expected(0.9f64.powi(6))).abs() < 0.1, "{fragmented}");
        // Contiki 3.0's 20 s: after a lost fragment the forwarder drops the same sender's
        // retransmitted fragments until a whole packet or the timeout ends the reassembly.
        let blocked = lossy(true, 20_000);
        assert!(blocked > fragmented + 0.3, "{blocked} vs {fragmented}");
    }

    #[test]
    fn fragmentation_on_changes_nothing_when_no_frame_exceeds_the_psdu() {
        let mut cfg = line_coap(RdcKind::Contikimac, 2, 30, "cocoa");
        let plain = run(cfg.clone(), 9);
        cfg.fragmentation = true;
        assert_eq!(format!("{:?}", run(cfg, 9)), format!("{plain:?}"));
    }

    fn lim(topology: TopologyChoice, rdc: RdcKind, scheme: &str, minutes: u64) -> MultihopConfig {
        MultihopConfig {
            topology,
            rdc,
            duration: Duration::from_secs(60 * minutes),
            workload: Workload::LimTcp(LimTcp { scheme: scheme.into(), ..LimTcp::default() }),
            ..MultihopConfig::default()
        }
    }

    #[test]
    fn lim_motes_offer_one_48_byte_report_per_6_s_about_100_in_10_minutes() {
        // §6 check 11: 100 reports per node on average; 960 bit/s offered by 4 × 4 (15
        // clients); goodput never above the offered load plus the initial backlog.
        let r = run(lim(TopologyChoice::Lim4x4, RdcKind::NullRdc, "lim", 10), 11);
        let t = r.tcp.unwrap();
        assert_eq!(t.nodes.len(), 15);
        let mean = t.nodes.iter().map(|n| n.reports as f64).sum::<f64>() / 15.0;
        // Per node the count has sd ≈ 2.9; the mean of 15 has sd ≈ 0.75.
        assert!((mean - 100.0).abs() < 3.0, "{mean}");
        assert!((t.offered_bps - 960.0).abs() < 0.03 * 960.0, "{}", t.offered_bps);
        let backlog_bps = 15.0 * 48.0 * 8.0 / 600.0;
        assert!(t.goodput_bps <= t.offered_bps + backlog_bps, "{} > {}", t.goodput_bps, t.offered_bps);
        assert!(t.goodput_bps > 0.9 * t.offered_bps, "NullRDC delivers most reports: {}", t.goodput_bps);
    }

    #[test]
    fn recording_tcp_traces_changes_no_result_and_no_event_and_logs_every_sample_and_timer() {
        for (rdc, scheme) in [(RdcKind::NullRdc, "uip"), (RdcKind::Contikimac, "lim")] {
            let cfg = lim(TopologyChoice::Lim4x4, rdc, scheme, 2);
            let plain = run(cfg.clone(), 21);
            let mut sim = MultihopSim::new(cfg, 21).unwrap();
            sim.record_tcp_traces();
            let mut traced = sim.run().0;
            let tcp = traced.tcp.as_mut().unwrap();
            for n in &mut tcp.nodes {
                let rtts = n.trace.iter().filter(|p| p.kind == super::super::tcp::TracePointKind::Rtt).count();
                assert_eq!(rtts as u64, n.rtt_samples, "{scheme}: one point per Karn-valid sample");
                let rtos: Vec<u64> = n
                    .trace
                    .iter()
                    .filter(|p| p.kind == super::super::tcp::TracePointKind::Rto)
                    .map(|p| p.value_ns)
                    .take(64)
                    .collect();
                assert_eq!(rtos, n.timers_ns, "{scheme}: one point per armed timer");
                assert!(n.trace.windows(2).all(|w| w[0].at_ns <= w[1].at_ns), "{scheme}: in time order");
                n.trace.clear();
            }
            assert!(plain.tcp.as_ref().unwrap().nodes.iter().all(|n| n.trace.is_empty()));
            assert_eq!(traced, plain, "{scheme}: identical with and without recording");
        }
    }

    #[test]
    fn the_5x5_grid_offers_1536_bit_per_s() {
        let r = run(lim(TopologyChoice::Lim5x5, RdcKind::NullRdc, "uip", 10), 12);
        let t = r.tcp.unwrap();
        assert_eq!(t.nodes.len(), 24);
        assert!((t.offered_bps - 1536.0).abs() < 0.03 * 1536.0, "{}", t.offered_bps);
    }

    #[test]
    fn uip_syn_timers_through_the_stack_equal_the_controllers_own_3_then_3_6_12_24_48_s() {
        // §6 check 12: the stack passes the controller's timers through unchanged. The host
        // never answers, so the SYN is retried UIP_MAXSYNRTX = 5 times and the set-up fails.
        // algorithms.md §13 vector 7: the original's estimate (UIP_RTO 3 s), then
        // retransmission n waits UIP_RTO << min(n, 4) = 3, 6, 12, 24, 48 s.
        for scheme in ["uip", "uip-dither", "lim"] {
            let mut cfg = lim(TopologyChoice::Line { nodes: 2, spacing_m: 40.0 }, RdcKind::NullRdc, scheme, 3);
            cfg.blackhole_host = true;
            if let Workload::LimTcp(w) = &mut cfg.workload {
                w.periodic_timer = false;
            }
            let r = run(cfg, 13);
            let n = &r.tcp.unwrap().nodes[0];
            assert_eq!((n.syn_retransmissions, n.setup_failed), (5, true), "{scheme}");
            // The same controller driven directly with the same stream gives the same timers.
            let mut rng = stream_rng(13, 0, streams::TCP | 1);
            let _tick_phase = below(&mut rng, 500_000_000);
            let ctrl = build_tcp_controller(scheme, 15).unwrap();
            use coapcc_core::Controller;
            let mut st = ctrl.new_state();
            let mut ex = ctrl.start(&mut st, Instant::ZERO, 0, &mut rng);
            let mut direct = vec![ex.timer().as_nanos() as u64];
            for _ in 0..5 {
                let at = ex.deadline();
                assert_eq!(ctrl.on_timeout(&mut st, at, &mut ex), coapcc_core::Retry::Retransmit);
                direct.push(ctrl.retransmit(&mut st, at, &mut ex, &mut rng).as_nanos() as u64);
            }
            assert_eq!(n.timers_ns, direct, "{scheme}");
            if scheme == "uip" {
                let secs: Vec<u64> = n.timers_ns.iter().map(|t| t / 1_000_000_000).collect();
                assert_eq!(secs, [3, 3, 6, 12, 24, 48]);
            }
        }
    }

    #[test]
    fn default_coap_timers_through_the_stack_double_from_a_2_to_3_s_start() {
        // §6 check 12 for CoAP (algorithms.md §13 vector of default CoAP): BEB from U[2, 3] s,
        // 4 retransmissions, over one lossless hop to a server whose application discards
        // every request.
        let mut cfg = line_coap(RdcKind::NullRdc, 1, 1, "default");
        cfg.blackhole_nodes = vec![0];
        let r = run(cfg, 14);
        let f = &r.coap[0];
        assert_eq!((f.failed, f.retransmissions), (1, 4));
        let t = &f.expired_timers_ns;
        assert_eq!(t.len(), 5);
        assert!(t[0] >= 2_000_000_000 && t[0] <= 3_000_000_000, "{t:?}");
        for k in 1..5 {
            assert_eq!(t[k], t[0] << k, "{t:?}");
        }
    }

    #[test]
    fn the_same_seed_gives_an_identical_event_trace_and_another_seed_a_different_one() {
        // §6 check 14 for the whole engine: ContikiMAC, TCP, 4 × 4, 2 minutes of data.
        let cfg = lim(TopologyChoice::Lim4x4, RdcKind::Contikimac, "uip-dither", 2);
        let go = |seed| {
            let mut sim = MultihopSim::new(cfg.clone(), seed).unwrap();
            sim.record_trace();
            let (r, t) = sim.run();
            (format!("{r:?}"), t.unwrap())
        };
        let (a, ta) = go(21);
        let (b, tb) = go(21);
        let (c, tc) = go(22);
        assert_eq!(a, b);
        assert_eq!(ta, tb);
        assert!(ta.len() > 10_000);
        assert_ne!(a, c);
        assert_ne!(ta, tc);
    }

    #[test]
    fn makarem_continuous_senders_on_a_contikimac_chain_deliver_requests_to_the_receiver() {
        let cfg = MultihopConfig {
            topology: TopologyChoice::MakaremChain { nodes: 6 },
            csma: CsmaConfig::for_mote(ContikiVersion::V3_0, super::super::csma::Mote::Z1),
            duration: Duration::from_secs(300),
            workload: Workload::CoapSaturated(CoapSaturated::default()),
            ..MultihopConfig::default()
        };
        let r = run(cfg, 31);
        assert_eq!(r.coap.len(), 4);
        let total: u64 = r.coap.iter().map(|f| f.distinct_received_in_window).sum();
        assert!(total > 100, "{total}");
        assert!(r.coap.iter().all(|f| f.completed > 0), "{:?}", r.coap);
        let mac = r.mac_total();
        assert!(mac.tx_ok > 0 && mac.copies_in_ok_trains > mac.tx_ok);
        // Duty cycling: every mote's radio is off most of the time, but not always.
        let end = r.end_ns;
        assert!(r.mac.iter().all(|m| m.duty_cycle(end) > 0.0 && m.duty_cycle(end) < 0.9), "{:?}", r.mac);
    }

    #[test]
    fn betzler_one_to_one_runs_the_servers_in_turn_through_slip_and_the_cloud_delay() {
        let cfg = betzler_null_rdc(Workload::CoapOneToOne(CoapOneToOne {
            algorithm: "cocoa".into(),
            exchanges: 10,
            servers: Some(vec![0, 1, 2]),
            ..CoapOneToOne::default()
        }));
        let r = run(cfg, 41);
        assert_eq!(r.coap.len(), 3);
        for f in &r.coap {
            assert_eq!(f.completed, 10, "{f:?}");
            // Two cloud crossings of 75 ms plus SLIP both ways and the radio hops.
            assert!(f.mean_duration_s() > 0.150 && f.mean_duration_s() < 0.5, "{}", f.mean_duration_s());
        }
    }

    #[test]
    fn betzler_many_to_many_runs_all_clients_at_once_and_ends_when_all_are_done() {
        let cfg =
            betzler_null_rdc(Workload::CoapManyToMany(CoapManyToMany { exchanges: 5, ..CoapManyToMany::default() }));
        let r = run(cfg, 42);
        assert_eq!(r.coap.len(), 29);
        assert!(r.coap.iter().all(|f| f.completed + f.failed == 5), "{:?}", r.coap);
        assert!(r.end_ns < 3_600_000_000_000, "ended when the clients were done");
    }

    #[test]
    fn betzler_cross_traffic_runs_four_continuous_flows_and_a_burst_over_the_other_25_servers() {
        let cfg = betzler_null_rdc(Workload::CoapCrossTraffic(CoapCrossTraffic {
            algorithm: "cocoa".into(),
            exchanges: 5,
            burst_at: Duration::from_secs(20),
            tail: Duration::from_secs(10),
            ..CoapCrossTraffic::default()
        }));
        let r = run(cfg, 43);
        assert_eq!(r.coap.len(), 29);
        let continuous: Vec<_> = r.coap.iter().filter(|f| !f.series.is_empty()).collect();
        assert_eq!(continuous.len(), 4);
        assert_eq!(r.coap.iter().filter(|f| f.completed + f.failed == 5).count(), 25);
        let done = r.clients_done_ns.unwrap();
        assert!(done > 20_000_000_000);
        assert_eq!(r.end_ns, done + 10_000_000_000);
        assert!(continuous.iter().all(|f| f.series.iter().all(|&(_, d, rto)| d > 0 && rto > 0)));
    }

    #[test]
    fn nstart_4_requests_leave_as_one_contikimac_burst_with_follower_frames() {
        // R5 end to end: CSMA hands the 4 queued CONs to ContikiMAC as one burst; frames
        // after the first carry the pending bit and go out as follower trains, and the
        // receiver stays awake for them (31.25 ms), so all 4 arrive in one wake-up.
        let mut cfg = line_coap(RdcKind::Contikimac, 1, 4, "cocoa");
        if let Workload::CoapSaturated(w) = &mut cfg.workload {
            w.nstart = 4;
        }
        let r = run(cfg, 51);
        let (tx, rx) = (&r.mac[1], &r.mac[0]);
        assert_eq!(r.coap[0].completed, 4);
        assert!(tx.burst_followers_ok >= 3, "{tx:?}");
        assert_eq!(rx.rx_delivered, tx.tx_ok, "{rx:?} {tx:?}");
    }

    #[test]
    fn configuration_errors_name_their_key() {
        let bad = |cfg: MultihopConfig| MultihopSim::new(cfg, 0).err().map(|e| e.key);
        let cfg = MultihopConfig {
            workload: Workload::LimTcp(LimTcp { scheme: "cocoa".into(), ..LimTcp::default() }),
            ..Default::default()
        };
        assert_eq!(bad(cfg), Some("workload.scheme"));
        let cfg = MultihopConfig { topology: TopologyChoice::MakaremDumbbell { nodes: 99 }, ..Default::default() };
        assert_eq!(bad(cfg), Some("topology.nodes"));
        let mut cfg = line_coap(RdcKind::NullRdc, 1, 1, "nope");
        cfg.duration = Duration::from_secs(1);
        assert_eq!(bad(cfg), Some("workload.algorithm"));
        assert!(
            toml::from_str::<MultihopConfig>("rdc = \"null_rdc\"\n[workload]\nkind = \"lim_tcp\"\nscheme = \"uip\"")
                .is_ok()
        );
        assert!(toml::from_str::<MultihopConfig>("rdcs = \"null_rdc\"").is_err());
        let cfg = MultihopConfig {
            workload: Workload::LimTcp(LimTcp { server_delayed_ack: Duration::from_millis(500), ..LimTcp::default() }),
            ..Default::default()
        };
        assert_eq!(bad(cfg), Some("workload.server_delayed_ack_ms"));
        let cfg = MultihopConfig { slip_bit_rate: 0, ..Default::default() };
        assert_eq!(bad(cfg), Some("slip_bit_rate"));
        let cfg = MultihopConfig { topology: TopologyChoice::Line { nodes: 3, spacing_m: 60.0 }, ..Default::default() };
        assert_eq!(bad(cfg), Some("topology"), "60 m is beyond R_tx: no route");
        // Extreme but valid values run without overflow.
        let extreme = toml::from_str::<MultihopConfig>(
            "duration_ms = 1e12\nslip_bits_per_byte = 4000000000\n[topology]\nkind = \"line\"\nnodes = 3\n\
             spacing_m = 40.0\n[workload]\nkind = \"lim_tcp\"\nconnect_interval_ms = 1e12\n",
        )
        .unwrap();
        let mut sim = MultihopSim::new(extreme, 1).unwrap();
        sim.end = Instant::from_nanos(60_000_000_000);
        let (r, _) = sim.run();
        assert!(r.events > 0);
        assert!(toml::from_str::<MultihopConfig>("[topology]\nkind = \"line\"\nnodes = 3\nspacing_m = 40.0").is_ok());
    }

    /// Prints the numbers behind the checks (for reports; asserts only that runs finish).
    /// `cargo test --profile ci -p coapcc-sim -- --ignored multihop_measurements --nocapture`.
    #[test]
    #[ignore]
    fn multihop_measurements_print_the_numbers_behind_the_checks() {
        let r = run(line_coap(RdcKind::NullRdc, 1, 20, "default"), 1);
        println!("check 2: NullRDC 1-hop CoAP RTT {:.4} ms", r.coap[0].mean_duration_s() * 1e3);
        for hops in [2u32, 3, 5] {
            let r = run(line_coap(RdcKind::NullRdc, hops, 10, "default"), 2);
            println!("check 2: NullRDC {hops}-hop CoAP RTT {:.4} ms", r.coap[0].mean_duration_s() * 1e3);
        }
        for hops in [1u32, 2, 3] {
            let n = 300u64;
            let mean = (0..n)
                .map(|s| run(line_coap(RdcKind::Contikimac, hops, 1, "default"), 9000 + s).coap[0].mean_duration_s())
                .sum::<f64>()
                / n as f64;
            println!("check 3: ContikiMAC {hops}-hop CoAP exchange, phase unknown, mean of {n}: {:.2} ms", mean * 1e3);
        }
        for (rdc, hops) in [(RdcKind::NullRdc, 3), (RdcKind::Contikimac, 2)] {
            let r = run(line_coap(rdc, hops, 200, "cocoa"), 7);
            let f = &r.coap[0];
            println!(
                "check 13: {rdc:?} {hops} hops: throughput × duration = {:.5}",
                f.throughput_per_s() * f.mean_duration_s()
            );
        }
        for rdc in [RdcKind::NullRdc, RdcKind::Contikimac] {
            for (alg, nstart) in [("default", 1), ("default-aggressive", 1), ("cocoa", 1), ("cocoa", 4)] {
                let cfg = MultihopConfig {
                    topology: TopologyChoice::Betzler,
                    version: ContikiVersion::V2_7,
                    rdc,
                    csma: CsmaConfig::for_version(ContikiVersion::V2_7),
                    border_router_queuebuf: Some(4),
                    udgm: UdgmConfig { success_ratio_tx: 0.94, ..UdgmConfig::for_version(ContikiVersion::V2_7) },
                    host_delay: Duration::from_millis(75),
                    duration: Duration::from_secs(36_000),
                    workload: Workload::CoapOneToOne(CoapOneToOne {
                        algorithm: alg.into(),
                        nstart,
                        ..CoapOneToOne::default()
                    }),
                    ..MultihopConfig::default()
                };
                let r = run(cfg, 5);
                let completed: u64 = r.coap.iter().map(|f| f.completed).sum();
                let failed: u64 = r.coap.iter().map(|f| f.failed).sum();
                let active: f64 = r
                    .coap
                    .iter()
                    .map(|f| match (f.first_send_ns, f.last_ack_ns) {
                        (Some(a), Some(b)) => (b - a) as f64 / 1e9,
                        _ => 0.0,
                    })
                    .sum();
                let dur: f64 = r.coap.iter().map(|f| f.duration_sum_ns as f64 / 1e9).sum::<f64>() / completed as f64;
                let retx: u64 = r.coap.iter().map(|f| f.retransmissions).sum();
                println!(
                    "betzler 1-to-1 {rdc:?} {alg} nstart {nstart}: throughput {:.2} req/s, duration {dur:.2} s, \
                     retries {:.2}, failed {failed}",
                    completed as f64 / active,
                    retx as f64 / (completed + failed) as f64
                );
            }
        }
        for alg in ["idc", "cocoa-plus", "default"] {
            let cfg = MultihopConfig {
                topology: TopologyChoice::MakaremChain { nodes: 8 },
                csma: CsmaConfig::for_mote(ContikiVersion::V3_0, super::super::csma::Mote::Z1),
                duration: Duration::from_secs(900),
                workload: Workload::CoapSaturated(CoapSaturated { algorithm: alg.into(), ..CoapSaturated::default() }),
                ..MultihopConfig::default()
            };
            let r = run(cfg, 6);
            let got: u64 = r.coap.iter().map(|f| f.distinct_received_in_window).sum();
            let ended: u64 = r.coap.iter().map(|f| f.ended_in_window).sum();
            let failed: u64 = r.coap.iter().map(|f| f.failed_in_window).sum();
            let acked: u64 = r.coap.iter().map(|f| f.completed_in_window).sum();
            let tx: u64 = r.coap.iter().map(|f| f.transmissions_in_window).sum();
            println!(
                "makarem chain 8 contikimac {alg}: goodput {:.3} msg/s, app loss {:.3}, overhead {:.3}",
                got as f64 / 800.0,
                failed as f64 / ended.max(1) as f64,
                (tx as f64 - acked as f64) / acked.max(1) as f64
            );
        }
        for (topo, rdc) in [
            (TopologyChoice::Lim4x4, RdcKind::NullRdc),
            (TopologyChoice::Lim4x4, RdcKind::Contikimac),
            (TopologyChoice::Lim5x5, RdcKind::NullRdc),
            (TopologyChoice::Lim5x5, RdcKind::Contikimac),
        ] {
            for scheme in ["uip", "uip-dither", "lim"] {
                let r = run(lim(topo.clone(), rdc, scheme, 10), 3);
                let t = r.tcp.as_ref().unwrap();
                let mean_reports = t.nodes.iter().map(|n| n.reports as f64).sum::<f64>() / t.nodes.len() as f64;
                let mac = r.mac_total();
                let dc = r.mac.iter().map(|m| m.duty_cycle(r.end_ns)).sum::<f64>() / r.mac.len() as f64;
                println!(
                    "lim {topo:?} {rdc:?} {scheme}: reports/node {mean_reports:.1}, offered {:.0} bit/s, goodput {:.0} \
                     bit/s, retx segments {}, fairness {:.3}, set-up failures {}, broken {}, collisions {}, \
                     noacks {}, MAC drops {}, mean duty cycle {:.3}",
                    t.offered_bps,
                    t.goodput_bps,
                    t.retransmitted_segments,
                    t.fairness,
                    t.setup_failures,
                    t.broken,
                    mac.tx_collision,
                    mac.tx_noack,
                    mac.drop_no_neighbor_queue + mac.drop_no_buffer + mac.drop_queue_full + mac.drop_retry_limit,
                    dc
                );
            }
        }
    }

    /// Benchmark (not an assertion on time): one Lim run, 5 × 5, ContikiMAC, 10 minutes.
    /// `cargo test --profile ci -p coapcc-sim -- --ignored lim_benchmark --nocapture`.
    #[test]
    #[ignore]
    #[allow(clippy::disallowed_methods)]
    fn lim_benchmark_5x5_contikimac_ten_minutes_reports_wall_time_and_events_per_second() {
        let cfg = lim(TopologyChoice::Lim5x5, RdcKind::Contikimac, "lim", 10);
        let t = std::time::Instant::now();
        let (r, _) = MultihopSim::new(cfg, 1).unwrap().run();
        let wall = t.elapsed().as_secs_f64();
        let tcp = r.tcp.as_ref().unwrap();
        println!(
            "lim 5x5 contikimac 10 min: {} events in {wall:.3} s = {:.0} events/s; goodput {:.0} bit/s of {:.0} \
             offered, {} retransmitted segments, fairness {:.3}, {} set-up failures, {} broken",
            r.events,
            r.events as f64 / wall,
            tcp.goodput_bps,
            tcp.offered_bps,
            tcp.retransmitted_segments,
            tcp.fairness,
            tcp.setup_failures,
            tcp.broken
        );
        let _ = ms_of_ns(0.0);
        assert!(r.events > 0);
    }
}
