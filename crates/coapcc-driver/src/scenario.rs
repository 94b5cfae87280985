//! Scenario files: one TOML file per published case, checked once into a [`Scenario`].
//!
//! ```toml
//! name = "fasor/400-flows-infinite-buffer-continuous"
//! description = "..."
//! source = "Järvinen et al., GLOBECOM 2018, Fig. 5; docs/testbeds.md §1"
//! seed = 1
//! replications = 20
//! algorithms = ["default", "cocoa", "cocoa-fb1", "fasor", "fasor-token"]
//!
//! [network.nbiot]       # or [network.residual], [network.custom]
//! buffer_bytes = 1410000
//! errors = "none"
//!
//! [workload]
//! flows = 400
//! flow_type = "continuous"
//!
//! [all_algorithms]      # keys applied to every listed algorithm that has them
//! max_retransmit = 20
//!
//! [algorithm.default]   # keys for one algorithm name
//! cap_ms = 60000
//! ```
//!
//! The RTT-trace model (testbeds §3) uses a `[trace]` table instead of `[network]` and
//! `[workload]`. Every error names the file, the key and the problem. `--set KEY=VALUE`
//! overrides a key before checking: a bare key (`flows`) is looked up in the top level, in
//! `[network.*]`, `[workload]`, `[coap]` and `[trace]`, and must be unique; a dotted key
//! (`algorithm.cocoa.aging`) names its table.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use coapcc_core::registry::{self, ConfigMapper};
use coapcc_core::{AnyConfig, Duration};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::link::PipelineConfig;
use crate::link::presets::{NbiotConfig, residual_bandwidth_forward_with_depth, residual_bandwidth_return};
use crate::trace::TraceConfig;

/// An error in a scenario: the file, the key (dotted path) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or `<scenario>` for text without a file).
    pub file: String,
    /// The line, when known.
    pub line: Option<usize>,
    /// The key, when known (`workload.flows`).
    pub key: Option<String>,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if let Some(k) = &self.key {
            write!(f, ": key `{k}`")?;
        }
        write!(f, ": {}", self.problem)
    }
}

impl std::error::Error for ScenarioError {}

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
    /// Any pipelines, stage by stage (see `coapcc_sim::link`).
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
    /// Exchanges per flow (50 in testbeds §1).
    #[serde(default = "default_exchanges")]
    pub exchanges_per_flow: u32,
    /// Flows start at uniform random offsets in [0, this) (1 s in testbeds §1).
    #[serde(rename = "start_window_ms", with = "coapcc_core::config::serde_ms", default = "default_start_window")]
    pub start_window: Duration,
    /// Random flows: fewest exchanges per short-lived client.
    #[serde(default = "default_random_min")]
    pub random_min: u32,
    /// Random flows: most exchanges per short-lived client.
    #[serde(default = "default_random_max")]
    pub random_max: u32,
    /// Long-lived flows: how long the sender runs (5 h in testbeds §2).
    #[serde(rename = "duration_ms", with = "coapcc_core::config::serde_opt_ms", default)]
    pub duration: Option<Duration>,
    /// NSTART: exchanges a client keeps outstanding (> 1 exercises CoCoA's blind RTO).
    #[serde(default = "default_nstart")]
    pub nstart: u16,
    /// What `exchanges_per_flow` counts: `successes` (a failed exchange is replaced, the FASOR
    /// paper's "until 50 pairs have been successfully exchanged") or `attempts`.
    #[serde(default)]
    pub count: Count,
    /// Flows not finished by this simulated time are cut off (their FCT is missing).
    #[serde(rename = "time_limit_ms", with = "coapcc_core::config::serde_ms", default = "default_time_limit")]
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
    /// What each algorithm needs (`coapcc_proto::echo::echo_mode_for`).
    Auto,
    /// Never.
    None,
    /// A token byte.
    Token,
    /// The transmission-count option.
    Option,
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
    /// Scenario seed; replication `i` derives its streams from (seed, i, stream).
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
    /// Multihop IEEE 802.15.4 model (instead of network and workload; issue 12): the keys of
    /// `coapcc_sim::multihop::engine::MultihopConfig`, typed and checked by the simulator,
    /// which owns that model (`coapcc_sim::multihop::scenario`).
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
    /// The multihop 802.15.4 model (issue 12): its `[multihop]` table as written, typed and
    /// checked by `coapcc_sim::multihop::scenario` (the driver does not know the model).
    Multihop(toml::Table),
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

    /// Sets `key` (bare or dotted, as for `--set`) to `value` and checks the scenario again;
    /// on an error (which names the key; the file is the scenario's name) the scenario is
    /// unchanged. `s.set("flows", 50_u32)`, `s.set("algorithm.cocoa-plus.vbf", "makarem")`.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) -> Result<(), ScenarioError> {
        let setting = Setting::new(key, value).map_err(|e| ScenarioError {
            file: self.file.name.clone(),
            line: None,
            key: Some(key.trim().to_string()),
            problem: e.problem,
        })?;
        *self = self.with(&[setting])?;
        Ok(())
    }

    /// This scenario with `settings` applied (in order) to its resolved file, checked again.
    pub fn with(&self, settings: &[Setting]) -> Result<Scenario, ScenarioError> {
        let file = self.file.name.as_str();
        let bad = |problem: String| ScenarioError { file: file.into(), line: None, key: None, problem };
        let original = toml::Table::try_from(&self.file).map_err(|e| bad(e.to_string()))?;
        apply_and_check(original, settings, file, |_| None)
    }
}

pub use crate::overrides::{Key, Setting, SettingError, Value};

const SECTIONS: [&str; 5] = ["network", "workload", "coap", "trace", "multihop"];

/// Keys with defaults that a file may leave out, and their table (for bare `--set` keys).
const OPTIONAL_KEYS: &[(&str, &str)] = &[
    ("workload", "exchanges_per_flow"),
    ("workload", "start_window_ms"),
    ("workload", "random_min"),
    ("workload", "random_max"),
    ("workload", "duration_ms"),
    ("workload", "nstart"),
    ("workload", "count"),
    ("workload", "time_limit_ms"),
    ("coap", "request_path"),
    ("coap", "response_payload_bytes"),
    ("coap", "token_bytes"),
    ("coap", "ip_udp_header_bytes"),
    ("coap", "mtu_bytes"),
    ("coap", "echo"),
    ("trace", "samples"),
    ("trace", "period"),
    ("trace", "spike_ms"),
    ("trace", "spikes_per_block"),
    ("trace", "spike_block"),
    ("trace", "series_samples"),
];

/// Keys of the NB-IoT preset with defaults (`[network.nbiot]`, testbeds §1), for bare `--set`
/// keys when the scenario uses that preset.
const NBIOT_OPTIONAL_KEYS: &[&str] = &[
    "buffer_counts_in_service",
    "uplink_kbps",
    "downlink_kbps",
    "uplink_delay_ms",
    "downlink_delay_ms",
    "rest_of_path_min_ms",
    "rest_of_path_max_ms",
    "errors_mean_good_ms",
    "errors_mean_bad_ms",
    "errors_loss_good",
    "errors_loss_bad",
    "errors_model",
    "errors_mean_bad_packets",
    "errors_mean_good_packets",
];

/// Applies one setting to the document; returns the key's resolved path (`workload.flows`).
fn apply_setting(table: &mut toml::Table, s: &Setting, file: &str) -> Result<String, ScenarioError> {
    let err =
        |key: &str, problem: String| ScenarioError { file: file.into(), line: None, key: Some(key.into()), problem };
    let path: Vec<String> = if let Some(key) = s.key.bare() {
        let mut hits: Vec<Vec<String>> = Vec::new();
        if table.contains_key(key) {
            hits.push(vec![key.to_string()]);
        }
        for sec in SECTIONS {
            let Some(t) = table.get(sec).and_then(|v| v.as_table()) else { continue };
            if t.contains_key(key) {
                hits.push(vec![sec.to_string(), key.to_string()]);
            }
            // `[network.nbiot]`: one level further down.
            for (kind, sub) in t {
                if sub.as_table().is_some_and(|st| st.contains_key(key)) {
                    hits.push(vec![sec.to_string(), kind.clone(), key.to_string()]);
                }
            }
        }
        if hits.is_empty() {
            // A key with a default, not written in the file: its table is known.
            if let Some((sec, _)) = OPTIONAL_KEYS.iter().find(|(_, k)| *k == key) {
                hits.push(vec![sec.to_string(), key.to_string()]);
            }
            let nbiot = table.get("network").and_then(|n| n.get("nbiot")).is_some_and(|t| t.is_table());
            if nbiot && NBIOT_OPTIONAL_KEYS.contains(&key) {
                hits.push(vec!["network".into(), "nbiot".into(), key.to_string()]);
            }
        }
        match hits.len() {
            1 => hits.remove(0),
            0 => {
                return Err(err(
                    key,
                    "not in this scenario (write a dotted key such as `network.nbiot.buffer_bytes` or `algorithm.cocoa.aging`)"
                        .into(),
                ));
            }
            _ => {
                let names: Vec<String> = hits.iter().map(|h| h.join(".")).collect();
                return Err(err(key, format!("ambiguous; write one of: {}", names.join(", "))));
            }
        }
    } else {
        s.key.parts().to_vec()
    };
    let name = s.key.to_string();
    let (last, parents) = path.split_last().ok_or_else(|| err(&name, "empty key".into()))?;
    let mut cur = table;
    for p in parents {
        let entry = cur.entry(p.clone()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = entry.as_table_mut().ok_or_else(|| err(&name, format!("`{p}` is not a table")))?;
    }
    cur.insert(last.clone(), s.value.to_toml());
    Ok(path.join("."))
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The key an error at byte `offset` is about: the key written on that line (`key = value`),
/// or for a table header (`[workload]`) the table, with the field a "missing field" message
/// names appended (`workload.flows`).
fn key_at(text: &str, offset: usize, message: &str) -> Option<String> {
    let start = text[..offset.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?.trim();
    let missing = message.split_once("missing field `").and_then(|(_, r)| r.split_once('`')).map(|(f, _)| f);
    if let Some(header) = line.strip_prefix('[') {
        let table = header.trim_start_matches('[').split(']').next()?.trim();
        return Some(match missing {
            Some(f) => format!("{table}.{f}"),
            None => table.to_string(),
        });
    }
    if let Some(f) = missing {
        return Some(f.to_string());
    }
    let (k, _) = line.split_once('=')?;
    let k = k.trim().trim_matches('"');
    (!k.is_empty()).then(|| k.to_string())
}

/// Parses, overrides and checks a scenario. `file` names it in errors.
pub fn parse(text: &str, file: &str, settings: &[Setting]) -> Result<Scenario, ScenarioError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let off = e.span().map(|s| s.start);
        ScenarioError {
            file: file.into(),
            line: off.map(|o| line_of(text, o)),
            key: off.and_then(|o| key_at(text, o, e.message())),
            problem: e.message().to_string(),
        }
    })?;
    // Deserialise from the text when nothing was overridden, so errors carry line numbers.
    let from_text = |e: toml::de::Error| {
        let off = e.span().map(|s| s.start);
        ScenarioError {
            file: file.into(),
            line: off.map(|o| line_of(text, o)),
            key: off.and_then(|o| key_at(text, o, e.message())),
            problem: e.message().replace('\n', " "),
        }
    };
    if settings.is_empty() {
        return check(toml::from_str(text).map_err(from_text)?, file);
    }
    // The file's own error (with its line), unless a setting caused it.
    apply_and_check(table, settings, file, |problem| match toml::from_str::<ScenarioFile>(text) {
        Err(own) if own.message().replace('\n', " ") == problem => Some(from_text(own)),
        _ => None,
    })
}

/// `original` with `settings` applied (in order), deserialised and checked; `file` names it in
/// errors. A deserialisation error (its newlines folded into spaces) is `own_error`'s, when that
/// claims it, or else blamed on the setting that caused it.
fn apply_and_check(
    original: toml::Table,
    settings: &[Setting],
    file: &str,
    own_error: impl FnOnce(&str) -> Option<ScenarioError>,
) -> Result<Scenario, ScenarioError> {
    let mut table = original.clone();
    for s in settings {
        apply_setting(&mut table, s, file)?;
    }
    match toml::Value::Table(table).try_into::<ScenarioFile>() {
        Ok(sf) => check(sf, file),
        Err(e) => {
            let problem = e.message().replace('\n', " ");
            if let Some(own) = own_error(&problem) {
                return Err(own);
            }
            Err(ScenarioError {
                file: file.into(),
                line: None,
                key: blame(original, settings, file, &problem),
                problem,
            })
        }
    }
}

/// The key (resolved path) of the first setting after which the scenario fails to deserialise
/// with `problem`: an error in a typed value names its key.
fn blame(mut table: toml::Table, settings: &[Setting], file: &str, problem: &str) -> Option<String> {
    for s in settings {
        let path = apply_setting(&mut table, s, file).ok()?;
        match toml::Value::Table(table.clone()).try_into::<ScenarioFile>() {
            Err(e) if e.message().replace('\n', " ") == problem => return Some(path),
            _ => {}
        }
    }
    None
}

/// Reads, overrides and checks a scenario file.
pub fn load(path: &Path, settings: &[Setting]) -> Result<Scenario, ScenarioError> {
    let text = read(path)?;
    parse(&text, &path.display().to_string(), settings)
}

/// The text of a scenario file; the error names the file ([`load`] without the parsing).
pub fn read(path: &Path) -> Result<String, ScenarioError> {
    std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: path.display().to_string(),
        line: None,
        key: None,
        problem: format!("cannot read: {e}"),
    })
}

/// Why an algorithm could not be configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AlgorithmError {
    /// No algorithm has this name; the valid names are listed.
    UnknownName {
        /// The name asked for.
        name: String,
        /// Every valid name.
        valid: Vec<&'static str>,
    },
    /// The key does not exist for this algorithm; the valid keys are listed.
    UnknownKey {
        /// The key.
        key: String,
        /// Every valid key.
        valid: Vec<String>,
    },
    /// A value has the wrong type or is out of range.
    BadValue {
        /// The key, when known.
        key: Option<String>,
        /// What is wrong.
        problem: String,
    },
}

impl fmt::Display for AlgorithmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AlgorithmError::UnknownName { name, valid } => {
                write!(f, "unknown algorithm `{name}`; valid names: {}", valid.join(", "))
            }
            AlgorithmError::UnknownKey { key, valid } => {
                write!(f, "unknown key `{key}`; valid keys: {}", valid.join(", "))
            }
            AlgorithmError::BadValue { key: Some(k), problem } => write!(f, "bad value for key `{k}`: {problem}"),
            AlgorithmError::BadValue { key: None, problem } => f.write_str(problem),
        }
    }
}

struct Apply<'a> {
    all: &'a toml::Table,
    own: &'a toml::Table,
}

impl ConfigMapper for Apply<'_> {
    type Error = AlgorithmError;
    fn map<T: Serialize + DeserializeOwned>(&mut self, config: T) -> Result<T, AlgorithmError> {
        let bad = |key: Option<String>, problem: String| AlgorithmError::BadValue { key, problem };
        let mut value = toml::Table::try_from(&config).map_err(|e| bad(None, e.to_string()))?;
        for (k, v) in self.all {
            if value.contains_key(k) {
                value.insert(k.clone(), v.clone());
            }
        }
        for (k, v) in self.own {
            if !value.contains_key(k) {
                return Err(AlgorithmError::UnknownKey { key: k.clone(), valid: value.keys().cloned().collect() });
            }
            // One key at a time, so that an error names the key that caused it.
            let mut trial = value.clone();
            trial.insert(k.clone(), v.clone());
            let checked: T = toml::Value::Table(trial)
                .try_into()
                .map_err(|e: toml::de::Error| bad(Some(k.clone()), e.message().replace('\n', " ")))?;
            value = toml::Table::try_from(&checked).map_err(|e| bad(Some(k.clone()), e.to_string()))?;
        }
        toml::Value::Table(value).try_into().map_err(|e: toml::de::Error| bad(None, e.message().replace('\n', " ")))
    }
}

/// The preset of algorithm `name` with `all` (keys applied where the algorithm has them) and
/// `own` (keys that must exist) applied, checked by building the controller once.
pub fn configure_algorithm(name: &str, all: &toml::Table, own: &toml::Table) -> Result<AnyConfig, AlgorithmError> {
    let preset = AnyConfig::from_name(name).ok_or_else(|| AlgorithmError::UnknownName {
        name: name.to_string(),
        valid: registry::ALGORITHMS.iter().map(|a| a.name).collect(),
    })?;
    let config = preset.map_with(&mut Apply { all, own })?;
    config
        .build()
        .map_err(|e| AlgorithmError::BadValue { key: Some(e.key.to_string()), problem: e.problem.to_string() })?;
    Ok(config)
}

/// The configuration keys of an algorithm configuration and their values.
pub fn algorithm_keys(config: &AnyConfig) -> toml::Table {
    toml::Table::try_from(config).unwrap_or_default()
}

fn check(sf: ScenarioFile, file: &str) -> Result<Scenario, ScenarioError> {
    let err =
        |key: &str, problem: String| ScenarioError { file: file.into(), line: None, key: Some(key.into()), problem };
    if sf.name.trim().is_empty() {
        return Err(err("name", "must not be empty".into()));
    }
    if sf.replications == 0 {
        return Err(err("replications", "must be at least 1".into()));
    }
    if sf.algorithms.is_empty() {
        return Err(err("algorithms", "must list at least one algorithm".into()));
    }
    let mut algorithms = Vec::new();
    let empty = toml::Table::new();
    for name in &sf.algorithms {
        let (base, own) = match sf.variant.get(name) {
            Some(v) => {
                let Some(base) = v.get("base").and_then(|b| b.as_str()) else {
                    return Err(err(
                        &format!("variant.{name}.base"),
                        "missing: the algorithm this variant is based on".into(),
                    ));
                };
                let mut own = v.clone();
                own.remove("base");
                for (k, val) in sf.algorithm.get(name).unwrap_or(&empty) {
                    own.insert(k.clone(), val.clone());
                }
                (base.to_string(), own)
            }
            None => (name.clone(), sf.algorithm.get(name).cloned().unwrap_or_default()),
        };
        let own = &own;
        let config = configure_algorithm(&base, &sf.all_algorithms, own).map_err(|e| match e {
            AlgorithmError::UnknownName { .. } => err("algorithms", e.to_string()),
            AlgorithmError::UnknownKey { ref key, ref valid } => err(
                &format!("algorithm.{name}.{key}"),
                format!("unknown key for `{name}`; valid keys: {}", valid.join(", ")),
            ),
            AlgorithmError::BadValue { key: Some(ref k), ref problem } => {
                err(&format!("algorithm.{name}.{k}"), problem.clone())
            }
            AlgorithmError::BadValue { key: None, ref problem } => err(&format!("algorithm.{name}"), problem.clone()),
        })?;
        algorithms.push((name.clone(), config));
    }
    // Tables for algorithms not selected (e.g. with `--algorithm`) are ignored, but a name that
    // is neither an algorithm nor a variant is a typo.
    for name in sf.algorithm.keys() {
        if AnyConfig::from_name(name).is_none() && !sf.variant.contains_key(name) {
            return Err(err(&format!("algorithm.{name}"), format!("`{name}` is neither an algorithm nor a [variant]")));
        }
    }
    for k in sf.all_algorithms.keys() {
        let known = algorithms.iter().any(|(_, c)| algorithm_keys(c).contains_key(k));
        if !known {
            return Err(err(&format!("all_algorithms.{k}"), "no listed algorithm has this key".into()));
        }
    }
    let model = match (&sf.network, &sf.workload, &sf.trace) {
        _ if sf.multihop.is_some() => {
            if sf.network.is_some() || sf.workload.is_some() || sf.trace.is_some() {
                return Err(err("multihop", "a multihop scenario has no [network], [workload] or [trace]".into()));
            }
            Model::Multihop(sf.multihop.clone().unwrap_or_default())
        }
        (Some(n), Some(w), None) => {
            check_network(n, file)?;
            check_workload(w, file)?;
            Model::Network { network: n.clone(), workload: *w }
        }
        (None, None, Some(t)) => {
            t.validate().map_err(|e| err(&format!("trace.{}", e.key), e.problem.to_string()))?;
            Model::Trace(t.clone())
        }
        (_, _, Some(_)) => return Err(err("trace", "a trace scenario has no [network] or [workload]".into())),
        (None, _, None) => return Err(err("network", "missing table [network] (or [trace] or [multihop])".into())),
        (_, None, None) => return Err(err("workload", "missing table [workload]".into())),
    };
    if sf.coap.token_bytes > 7 {
        return Err(err("coap.token_bytes", "must be at most 7".into()));
    }
    if sf.coap.mtu_bytes < sf.coap.ip_udp_header_bytes + 4 {
        return Err(err("coap.mtu_bytes", "must leave room for a CoAP header after the IP and UDP headers".into()));
    }
    if matches!(model, Model::Network { .. }) {
        // Every datagram must fit the MTU; found here, not when a run sends it.
        crate::endpoints::check_sizes(&sf.coap).map_err(|e| err("coap.mtu_bytes", e))?;
    }
    Ok(Scenario { file: sf, model, algorithms })
}

/// `base` with `settings` applied, checked as a scenario's `[network]` table is: the link of
/// `coapcc emulate --profile … --set KEY=VALUE`. Keys are those of the scenario files' link
/// tables, through the same override machinery as `coapcc sim --set`: a bare key of the preset
/// (`buffer_bytes`, `errors`, `downlink_kbps`, `min_rate_pps`) or a dotted path
/// (`network.nbiot.buffer_bytes`, `network.custom.uplink.stages`). Errors name the key and
/// `file` (what to call the configuration in messages).
pub fn network_with(base: &NetworkConfig, settings: &[Setting], file: &str) -> Result<NetworkConfig, ScenarioError> {
    let bad = |key: Option<String>, problem: String| ScenarioError { file: file.into(), line: None, key, problem };
    let network = toml::Value::try_from(base).map_err(|e| bad(None, e.to_string()))?;
    let mut table = toml::Table::new();
    table.insert("network".into(), network);
    for s in settings {
        // Only the network may be set here: a bare key must resolve inside it.
        let path = apply_setting(&mut table, s, file)?;
        if !path.starts_with("network.") || table.len() != 1 {
            return Err(bad(Some(s.key.to_string()), "not a key of the link (see the profile's keys)".into()));
        }
    }
    let Some(value) = table.remove("network") else {
        return Err(bad(Some("network".into()), "missing".into()));
    };
    let network: NetworkConfig = value.try_into().map_err(|e: toml::de::Error| {
        let problem = e.message().replace('\n', " ");
        // Name the key the message is about (`unknown field `x``), else the last setting's.
        let key = problem
            .split_once("unknown field `")
            .and_then(|(_, r)| r.split_once('`'))
            .map(|(f, _)| f.to_string())
            .or_else(|| settings.last().map(|s| s.key.to_string()));
        bad(key, problem)
    })?;
    check_network(&network, file)?;
    Ok(network)
}

fn check_network(n: &NetworkConfig, file: &str) -> Result<(), ScenarioError> {
    if let NetworkConfig::Nbiot(c) = n {
        c.validate().map_err(|e| ScenarioError {
            file: file.into(),
            line: None,
            key: Some(format!("network.nbiot.{}", e.key)),
            problem: e.problem.to_string(),
        })?;
    }
    let (up, down) = n.pipelines();
    for (name, p) in [("network.uplink", up), ("network.downlink", down)] {
        p.validate().map_err(|e| ScenarioError {
            file: file.into(),
            line: None,
            key: Some(match n {
                NetworkConfig::Custom { .. } => format!("{name}.{}", e.key),
                _ => format!("network.{}", e.key),
            }),
            problem: e.problem.to_string(),
        })?;
    }
    Ok(())
}

fn check_workload(w: &WorkloadConfig, file: &str) -> Result<(), ScenarioError> {
    let err = |key: &str, problem: &str| ScenarioError {
        file: file.into(),
        line: None,
        key: Some(format!("workload.{key}")),
        problem: problem.into(),
    };
    if w.flows == 0 {
        return Err(err("flows", "must be at least 1"));
    }
    if w.exchanges_per_flow == 0 {
        return Err(err("exchanges_per_flow", "must be at least 1"));
    }
    if w.random_min == 0 || w.random_min > w.random_max {
        return Err(err("random_min", "must be at least 1 and at most `random_max`"));
    }
    if w.nstart == 0 {
        return Err(err("nstart", "must be at least 1"));
    }
    match (w.flow_type, w.duration) {
        (FlowType::LongLived, None) => return Err(err("duration_ms", "a long-lived flow needs a duration")),
        (FlowType::LongLived, Some(d)) if d.is_zero() => return Err(err("duration_ms", "must be greater than 0")),
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_optional_key_is_a_real_key_of_its_table() {
        let coap = toml::Table::try_from(CoapConfig::default()).unwrap();
        // Workload keys are checked below by parsing a scenario that sets them all.
        for (_, key) in OPTIONAL_KEYS.iter().filter(|(sec, _)| *sec == "coap") {
            assert!(coap.contains_key(*key), "coap.{key}");
        }
        let text = "name = \"t\"\ndescription = \"d\"\nsource = \"s\"\nseed = 1\nreplications = 1\n\
                    algorithms = [\"default\"]\n[network.nbiot]\nbuffer_bytes = 2500\nerrors = \"none\"\n\
                    [workload]\nflows = 1\nflow_type = \"continuous\"\n";
        let sets: Vec<Setting> = OPTIONAL_KEYS
            .iter()
            .filter(|(sec, _)| *sec == "workload")
            .map(|(_, k)| {
                let v = match *k {
                    "count" => "successes",
                    "duration_ms" => "none",
                    "random_min" => "1",
                    _ => "5",
                };
                Setting::new(k, Value::parse(v)).unwrap()
            })
            .collect();
        parse(text, "t.toml", &sets).unwrap();
    }

    #[test]
    fn a_bare_key_with_a_default_lands_in_its_table() {
        let text = "name = \"t\"\ndescription = \"d\"\nsource = \"s\"\nseed = 1\nreplications = 1\n\
                    algorithms = [\"default\"]\n[network.nbiot]\nbuffer_bytes = 2500\nerrors = \"none\"\n\
                    [workload]\nflows = 1\nflow_type = \"continuous\"\n";
        let s = parse(text, "t.toml", &["response_payload_bytes=60".parse().unwrap()]).unwrap();
        assert_eq!(s.file.coap.response_payload_bytes, 60);
        let e = parse(text, "t.toml", &["nonsense=1".parse().unwrap()]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("nonsense"));
    }

    const NBIOT: &str = "name = \"t\"\ndescription = \"d\"\nsource = \"s\"\nseed = 1\nreplications = 1\n\
                         algorithms = [\"default\"]\n[network.nbiot]\nbuffer_bytes = 2500\nerrors = \"none\"\n\
                         [workload]\nflows = 1\nflow_type = \"continuous\"\n";

    fn with(sets: &[&str]) -> Result<Scenario, ScenarioError> {
        let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
        parse(NBIOT, "t.toml", &sets)
    }

    #[test]
    fn a_typed_integer_override_sets_the_key() {
        assert_eq!(with(&["flows=7"]).unwrap().file.workload.unwrap().flows, 7);
        let typed = parse(NBIOT, "t.toml", &[Setting::new("flows", 7_u32).unwrap()]).unwrap();
        assert_eq!(typed, with(&["flows=7"]).unwrap());
        assert_eq!(with(&["replications=3", "seed=9"]).unwrap().file.replications, 3);
        let s = parse(NBIOT, "t.toml", &[Setting::replications(4), Setting::seed(11)]).unwrap();
        assert_eq!((s.file.replications, s.file.seed), (4, 11));
    }

    #[test]
    fn the_residual_token_bucket_depth_defaults_to_one_packet_and_is_written_only_when_set() {
        const RESIDUAL: &str = "name = \"r\"\ndescription = \"d\"\nsource = \"s\"\nseed = 1\nreplications = 1\n\
                                algorithms = [\"default\"]\n[network.residual]\nmin_rate_pps = 0.5\nmax_rate_pps = 1.5\n\
                                [workload]\nflows = 1\nflow_type = \"long-lived\"\nduration_ms = 60000\n";
        let depth = |s: &Scenario| match &s.file.network {
            Some(n) => match &n.pipelines().0.stages[0] {
                crate::link::StageConfig::TokenBucket(t) => t.depth_packets,
                other => panic!("{other:?}"),
            },
            None => panic!("no network"),
        };
        let plain = parse(RESIDUAL, "r.toml", &[]).unwrap();
        assert_eq!(depth(&plain), 1);
        assert!(!plain.to_toml().contains("depth_packets"), "the default is not written");
        let deep = parse(RESIDUAL, "r.toml", &["network.residual.depth_packets=4".parse().unwrap()]).unwrap();
        assert_eq!(depth(&deep), 4);
        assert!(deep.to_toml().contains("depth_packets = 4"));
        let e = parse(RESIDUAL, "r.toml", &["network.residual.depth_packets=0".parse().unwrap()]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("network.depth_packets"), "{e}");
    }

    #[test]
    fn a_typed_float_override_sets_a_float_key() {
        let s = with(&["algorithms=[\"idc\"]", "algorithm.idc.iw=1.5"]).unwrap();
        assert_eq!(algorithm_keys(&s.algorithms[0].1)["iw"].as_float(), Some(1.5));
    }

    #[test]
    fn a_ratio_override_reaches_the_algorithm_exactly() {
        let s = with(&["algorithms=[\"pcocoa\"]", "algorithm.pcocoa.alpha=1/4"]).unwrap();
        assert_eq!(algorithm_keys(&s.algorithms[0].1)["alpha"].as_float(), Some(0.25));
        assert_eq!(s.file.algorithm["pcocoa"]["alpha"].as_str(), Some("1/4"), "written back as in a file");
    }

    #[test]
    fn the_per_packet_error_model_is_selected_by_bare_keys() {
        let s = with(&["errors=high", "errors_model=packet", "errors_mean_bad_packets=5"]).unwrap();
        let Model::Network { network: NetworkConfig::Nbiot(nbiot), .. } = s.model else { panic!("an NB-IoT model") };
        let ge = nbiot.gilbert_elliott();
        assert_eq!(ge.mode, crate::link::GeMode::Packet);
        assert_eq!(
            (ge.mean_bad_packets, ge.mean_good_packets),
            (coapcc_core::Ratio::integer(5), coapcc_core::Ratio::integer(20))
        );
        let e = with(&["errors=high", "errors_model=packet", "errors_mean_bad_packets=0.5"]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("network.nbiot.errors_mean_bad_packets"));
    }

    #[test]
    fn a_string_override_selects_a_preset() {
        let s = with(&["errors=high"]).unwrap();
        assert!(matches!(
            s.model,
            Model::Network {
                network: NetworkConfig::Nbiot(crate::link::presets::NbiotConfig {
                    errors: crate::link::presets::LinkErrors::High,
                    ..
                }),
                ..
            }
        ));
        let s = parse(
            NBIOT,
            "t.toml",
            &[Setting::algorithms(["cocoa-plus"]), Setting::new("algorithm.cocoa-plus.vbf", "makarem").unwrap()],
        )
        .unwrap();
        assert_eq!(algorithm_keys(&s.algorithms[0].1)["vbf"].as_str(), Some("makarem"));
    }

    #[test]
    fn a_boolean_override_sets_a_boolean_key() {
        let s = parse(NBIOT, "t.toml", &[Setting::new("algorithm.default.dither", false).unwrap()]).unwrap();
        assert_eq!(algorithm_keys(&s.algorithms[0].1)["dither"].as_bool(), Some(false));
    }

    #[test]
    fn a_list_override_replaces_the_algorithms() {
        let s = parse(NBIOT, "t.toml", &[Setting::algorithms(["cocoa", "fasor"])]).unwrap();
        let names: Vec<&str> = s.algorithms.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["cocoa", "fasor"]);
        let e = parse(NBIOT, "t.toml", &[Setting::algorithms(["reno"])]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("algorithms"));
        assert!(e.problem.contains("unknown algorithm `reno`") && e.problem.contains("cocoa"), "{e}");
    }

    #[test]
    fn a_bare_nbiot_key_left_at_its_default_finds_the_preset_table() {
        let s = with(&["downlink_kbps=20"]).unwrap();
        let Model::Network { network: NetworkConfig::Nbiot(n), .. } = s.model else { panic!("not NB-IoT") };
        assert_eq!(n.downlink_kbps, coapcc_core::Ratio::new(20, 1));
    }

    #[test]
    fn a_dotted_override_names_its_table() {
        let s = with(&["network.nbiot.buffer_bytes=28200", "workload.nstart=2"]).unwrap();
        assert!(matches!(
            s.model,
            Model::Network {
                network: NetworkConfig::Nbiot(crate::link::presets::NbiotConfig { buffer_bytes: 28200, .. }),
                ..
            }
        ));
        assert_eq!(s.file.workload.unwrap().nstart, 2);
        let e = with(&["name.x=1"]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("name.x"), "{e}");
    }

    #[test]
    fn an_override_of_the_wrong_type_names_its_resolved_key() {
        let e = with(&["seed=2", "flows=abc"]).unwrap_err();
        assert_eq!((e.file.as_str(), e.key.as_deref()), ("t.toml", Some("workload.flows")), "{e}");
        assert!(e.problem.contains("abc"), "{e}");
        let e = parse(&NBIOT.replace("seed = 1\n", ""), "t.toml", &[Setting::replications(2)]).unwrap_err();
        assert_eq!((e.line, e.problem.contains("seed")), (Some(1), true), "the file's own error keeps its line: {e}");
    }

    #[test]
    fn an_override_of_the_wrong_type_names_the_file_and_the_algorithm_key() {
        let e = with(&["algorithm.default.max_retransmit=lots"]).unwrap_err();
        assert_eq!((e.file.as_str(), e.key.as_deref()), ("t.toml", Some("algorithm.default.max_retransmit")), "{e}");
    }

    #[test]
    fn a_checked_scenario_takes_a_setting_and_stays_unchanged_on_an_error() {
        let mut s = parse(NBIOT, "t.toml", &[]).unwrap();
        s.set("flows", 9_u32).unwrap();
        assert_eq!(s.file.workload.unwrap().flows, 9);
        s.set("algorithm.default.cap_ms", 60_000_i64).unwrap();
        assert_eq!(algorithm_keys(&s.algorithms[0].1)["cap_ms"].as_integer(), Some(60_000));
        let before = s.clone();
        let e = s.set("nonsense", 1_i64).unwrap_err();
        assert_eq!((e.file.as_str(), e.key.as_deref()), ("t", Some("nonsense")));
        let e = s.set("algorithm.default.bogus", 1_i64).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("algorithm.default.bogus"));
        assert_eq!(s, before);
    }
}
