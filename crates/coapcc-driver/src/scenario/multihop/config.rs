//! The `[multihop]` schema (multihop.md §1–4): [`MultihopConfig`], the stack's run-wide
//! settings (Contiki version, RDC, CSMA, UDGM, PHY, frame lengths, 6LoWPAN fragmentation,
//! t_fwd / t_app, SLIP and host delay) with `Default` = the spec's values, and the node
//! layout ([`TopologyChoice`], §2.1, §3.1, §4.1). The applications' tables live in
//! `workload.rs`. Deserialised by serde with `deny_unknown_fields`; `parse.rs` applies the
//! presets and the per-algorithm configuration and checks the tables' values, every error
//! naming its dotted key; the simulator's engine (`coapcc_sim::multihop::MultihopSim::new`)
//! checks what only a built run knows (node ids, frame sizes).

use coapcc_core::serde_ms;
use coapcc_core::{AnyConfig, ConfigError, Duration};
use serde::{Deserialize, Serialize};

use crate::scenario::EchoChoice;

use super::csma::CsmaConfig;
use super::phy::{FrameLenMode, PhyConfig};
use super::presets::ContikiVersion;
use super::rdc::{ContikiMacConfig, NullRdcConfig};
use super::topology::{Node, Position, Role, Topology};
use super::udgm::UdgmConfig;
use super::workload::MultihopWorkload;

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
    /// 6LoWPAN fragmentation (OQ-M9, `crates/coapcc-sim/src/multihop/sixlowpan.rs`): a packet whose frame would exceed
    /// the PSDU leaves as FRAG1 + FRAGN frames in one CSMA burst and is reassembled hop by
    /// hop. Off by default: such a packet is then a load-time error.
    pub fragmentation: bool,
    /// How long a reassembly may wait for its fragments (`SICSLOWPAN_REASS_MAXAGE`;
    /// `None`: the version's, 20 s in 3.0, 20/16 s in 2.7).
    #[serde(rename = "reassembly_timeout_ms", with = "coapcc_core::serde_opt_ms")]
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
    pub workload: MultihopWorkload,
    /// Diagnostics: the host discards everything it receives (checks 5, 12).
    pub blackhole_host: bool,
    /// Diagnostics: these motes' applications discard everything (their MAC still ACKs).
    pub blackhole_nodes: Vec<u16>,
    /// The CoAP endpoints' transmission-count echo: `none` (default) or `algorithm`.
    pub echo: MultihopEcho,
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
            workload: MultihopWorkload::default(),
            blackhole_host: false,
            blackhole_nodes: Vec::new(),
            echo: MultihopEcho::None,
            algorithm_config: None,
        }
    }
}

/// The transmission-count echo of the multihop model's endpoints (`[multihop] echo`).
///
/// `none` is the default because the papers' Contiki implementations (Erbium, Makarem's Cooja
/// motes) and the model's frame-size tables (multihop.md §1.2) have no transmission-count
/// option, and the reading of IDC's and MBC's "exact" samples (OQ-28) is exact matching in the
/// paper's simulator, not an option on the air. `algorithm` gives every algorithm the echo it
/// states, as the network model and the testbed do (`coap.echo = "auto"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MultihopEcho {
    /// No echo, whatever the algorithm (default).
    #[default]
    None,
    /// The echo the algorithm states (`coapcc_core::AnyConfig::echo_mode`).
    Algorithm,
}

impl From<MultihopEcho> for EchoChoice {
    fn from(echo: MultihopEcho) -> Self {
        match echo {
            MultihopEcho::None => EchoChoice::None,
            MultihopEcho::Algorithm => EchoChoice::Auto,
        }
    }
}
