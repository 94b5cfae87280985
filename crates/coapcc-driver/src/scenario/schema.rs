//! The scenario file as written ([`ScenarioFile`]: `[network.*]`, `[workload]`, `[coap]`,
//! `[trace]`, `[multihop]`, the algorithm tables) and what it is checked into ([`Scenario`],
//! [`Model`]), with every default of testbeds §1–3.

use std::collections::BTreeMap;

use coapcc_core::{AnyConfig, Duration};
use serde::{Deserialize, Serialize};

use super::blockwise::BlockwiseConfig;
use super::multihop::MultihopModel;
use crate::link::PipelineConfig;
use crate::link::presets::{NbiotConfig, residual_bandwidth_forward_with_depth, residual_bandwidth_return};
use crate::rtt_trace::TraceConfig;

/// The network between the clients and the server: one pipeline per direction, shared by all
/// clients.
/// Written as one sub-table naming the kind: `[network.nbiot]`, `[network.residual]` or
/// `[network.custom]` (with `[[network.custom.uplink.stages]]` …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum NetworkConfig {
    /// Testbeds §1: the NB-IoT-like asymmetric link (60/30 kbit/s, 200/400 ms, rest of path
    /// U[10, 20] ms FIFO, drop-tail buffers of `buffer_bytes` in both wireless directions,
    /// Gilbert–Elliott errors); every number is a key ([`NbiotConfig`]).
    Nbiot(NbiotConfig),
    /// Testbeds §2: residual bandwidth ResBW(t) ~ U(a, b) packets/s redrawn every 5 s (token
    /// bucket of one packet; a transmission finding no token is lost), RTT N(500, 10) ms,
    /// ACKs never lost.
    Residual {
        /// a: lower end of ResBW, packets per second.
        min_rate_pps: coapcc_core::Ratio,
        /// b: upper end of ResBW, packets per second.
        max_rate_pps: coapcc_core::Ratio,
        /// Depth of the token bucket, packets (≥ 1; default 1, docs/testbeds.md §2: not published; the
        /// token-bucket-depth investigation sweeps it). Not written when 1.
        #[serde(default = "one_packet", skip_serializing_if = "is_one_packet")]
        depth_packets: u32,
    },
    /// Any pipelines, stage by stage (see `coapcc_driver::link`).
    Custom {
        /// Client → server.
        uplink: PipelineConfig,
        /// Server → client.
        downlink: PipelineConfig,
    },
}

impl NetworkConfig {
    /// The pipelines (uplink, downlink).
    pub fn pipelines(&self) -> (PipelineConfig, PipelineConfig) {
        match self {
            NetworkConfig::Nbiot(c) => (c.uplink_path(), c.downlink_path()),
            NetworkConfig::Residual { min_rate_pps, max_rate_pps, depth_packets } => (
                residual_bandwidth_forward_with_depth(*min_rate_pps, *max_rate_pps, *depth_packets),
                residual_bandwidth_return(),
            ),
            NetworkConfig::Custom { uplink, downlink } => (uplink.clone(), downlink.clone()),
        }
    }
}

fn one_packet() -> u32 {
    1
}

fn is_one_packet(depth: &u32) -> bool {
    *depth == 1
}

/// How each flow's client behaves (testbeds §1–2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowType {
    /// One client doing `exchanges_per_flow` exchanges back to back, state kept.
    Continuous,
    /// A chain of short-lived clients, each doing U{`random_min`..`random_max`} exchanges,
    /// congestion-control state reset between clients, no gap, until `exchanges_per_flow`.
    Random,
    /// One sender exchanging back to back until `duration_ms` (testbeds §2).
    LongLived,
}

fn default_exchanges() -> u32 {
    50
}
fn default_start_window() -> Duration {
    Duration::from_secs(1)
}
fn default_random_min() -> u32 {
    1
}
fn default_random_max() -> u32 {
    10
}
fn default_nstart() -> u16 {
    1
}

/// The workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    /// Number of concurrent flows (one client node each).
    pub flows: u32,
    /// Flow type.
    pub flow_type: FlowType,
    /// Exchanges per flow (50 in testbeds §1); with `[coap.blockwise]` the object's block
    /// count, set when the scenario is checked (a written value is replaced).
    #[serde(default = "default_exchanges")]
    pub exchanges_per_flow: u32,
    /// Flows start at uniform random offsets in [0, this) (1 s in testbeds §1).
    #[serde(rename = "start_window_ms", with = "coapcc_core::serde_ms", default = "default_start_window")]
    pub start_window: Duration,
    /// Random flows: fewest exchanges per short-lived client.
    #[serde(default = "default_random_min")]
    pub random_min: u32,
    /// Random flows: most exchanges per short-lived client.
    #[serde(default = "default_random_max")]
    pub random_max: u32,
    /// Long-lived flows: how long the sender runs (5 h in testbeds §2).
    #[serde(rename = "duration_ms", with = "coapcc_core::serde_opt_ms", default)]
    pub duration: Option<Duration>,
    /// NSTART: exchanges a client keeps outstanding (> 1 exercises CoCoA's blind RTO).
    #[serde(default = "default_nstart")]
    pub nstart: u16,
    /// What `exchanges_per_flow` counts: `successes` (a failed exchange is replaced, the FASOR
    /// paper's "until 50 pairs have been successfully exchanged") or `attempts`.
    #[serde(default)]
    pub count: Count,
    /// Flows not finished by this simulated time are cut off (their FCT is missing).
    #[serde(rename = "time_limit_ms", with = "coapcc_core::serde_ms", default = "default_time_limit")]
    pub time_limit: Duration,
}

/// What a flow's exchange count counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Count {
    /// Successful exchanges (failed ones are replaced).
    #[default]
    Successes,
    /// Exchanges attempted, successful or not.
    Attempts,
}

fn default_time_limit() -> Duration {
    Duration::from_secs(86_400)
}

fn default_path() -> String {
    "res".into()
}
fn default_payload() -> u32 {
    20
}
fn default_token() -> u8 {
    2
}
fn default_ip_udp() -> u32 {
    28
}
fn default_mtu() -> u32 {
    296
}
fn default_echo() -> EchoChoice {
    EchoChoice::Auto
}

/// Which transmission-count echo the endpoints use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EchoChoice {
    /// What each algorithm needs (`coapcc_core::AnyConfig::echo_mode`).
    Auto,
    /// Never.
    None,
    /// A token byte.
    Token,
    /// The transmission-count option.
    Option,
    /// What each algorithm needs, the transmission count always in a token byte: an algorithm
    /// that asks for the option (pCoCoA, IDC, MBC) gets the same copy number in one byte
    /// instead of the option's three or four, so that a 256-byte block fits the 296-byte MTU
    /// (`[coap.blockwise]`, docs/deviations.md).
    AutoToken,
}

/// CoAP message and header sizes (testbeds §1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoapConfig {
    /// Uri-Path of each GET ("res": a 1-byte option header and 3 bytes make the testbed's 4-byte option).
    #[serde(default = "default_path")]
    pub request_path: String,
    /// Payload of each piggybacked response, bytes (20).
    #[serde(default = "default_payload")]
    pub response_payload_bytes: u32,
    /// Client token length, bytes (2; the token echo adds one).
    #[serde(default = "default_token")]
    pub token_bytes: u8,
    /// IPv4 + UDP headers counted against link rates and buffers (28).
    #[serde(default = "default_ip_udp")]
    pub ip_udp_header_bytes: u32,
    /// Link MTU (296): a message that does not fit is an error.
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u32,
    /// Transmission-count echo.
    #[serde(default = "default_echo")]
    pub echo: EchoChoice,
    /// `[coap.blockwise]`: every flow fetches one object block by block (RFC 7959 Block2);
    /// none by default (and then not written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blockwise: Option<BlockwiseConfig>,
}

impl Default for CoapConfig {
    fn default() -> Self {
        CoapConfig {
            request_path: default_path(),
            response_payload_bytes: default_payload(),
            token_bytes: default_token(),
            ip_udp_header_bytes: default_ip_udp(),
            mtu_bytes: default_mtu(),
            echo: default_echo(),
            blockwise: None,
        }
    }
}

/// The scenario file as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Name, also the default output folder (`results/<name>/`).
    pub name: String,
    /// What the case is.
    pub description: String,
    /// Where it is published (paper, figure or table).
    pub source: String,
    /// Scenario seed, any `u64` (above 2⁶³−1 written as its decimal text); replication `i`
    /// derives its streams from (seed, i, stream).
    #[serde(with = "super::seed")]
    pub seed: u64,
    /// Replications per algorithm.
    pub replications: u32,
    /// Algorithm names (see `coapcc algorithms`).
    pub algorithms: Vec<String>,
    /// Network (with `[workload]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkConfig>,
    /// Workload (with `[network]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<WorkloadConfig>,
    /// CoAP sizes.
    #[serde(default)]
    pub coap: CoapConfig,
    /// RTT-trace model (instead of network and workload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceConfig>,
    /// Multihop IEEE 802.15.4 model (instead of network and workload), as written: the keys
    /// of [`super::multihop::MultihopConfig`] and the presets, checked into
    /// [`Model::Multihop`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multihop: Option<toml::Table>,
    /// Keys applied to every algorithm that has them.
    #[serde(default)]
    pub all_algorithms: toml::Table,
    /// Keys per algorithm name.
    #[serde(default)]
    pub algorithm: BTreeMap<String, toml::Table>,
    /// Named variants usable in `algorithms`: `[variant.idc-iw1.1]` with `base = "idc"` and the
    /// keys that differ (`iw = 1.1`), so one scenario can compare settings of one algorithm.
    #[serde(default)]
    pub variant: BTreeMap<String, toml::Table>,
}

/// What a scenario simulates.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// Clients and a server over a network (testbeds §1–2).
    Network {
        /// The network.
        network: NetworkConfig,
        /// The workload.
        workload: WorkloadConfig,
    },
    /// Estimators fed an RTT trace (testbeds §3).
    Trace(TraceConfig),
    /// The multihop 802.15.4 model: its `[multihop]` table checked, one configuration per
    /// algorithm.
    Multihop(Box<MultihopModel>),
}

/// A checked scenario, ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The file as resolved (defaults filled in, overrides applied): written next to results
    /// so any result can be rerun exactly.
    pub file: ScenarioFile,
    /// The model.
    pub model: Model,
    /// Each algorithm's name and checked configuration.
    pub algorithms: Vec<(String, AnyConfig)>,
}

impl Scenario {
    /// The fully resolved scenario as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.file).unwrap_or_else(|e| format!("# could not serialise the scenario: {e}\n"))
    }
}
