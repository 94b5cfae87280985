//! Multihop scenario files (issue 12): a scenario with a `[multihop]` table instead of
//! `[network]` + `[workload]` runs [`MultihopSim`] once per (algorithm, replication).
//!
//! ```toml
//! name = "lim/e2-contikimac-4x4"
//! description = "..."
//! source = "Lim 2020, Fig. 5; multihop.md §4"
//! seed = 1
//! replications = 10
//! algorithms = ["uip", "uip-dither", "lim"]   # TCP schemes (lim_tcp) or CoAP algorithms
//!
//! [multihop]
//! version = "3.0"          # Contiki preset (OQ-M2): CSMA backoff, CCA threshold, RSSI truncation
//! mote = "sky"             # platform preset: QUEUEBUF, MAC transmissions, NullRDC ACK wait
//! rdc = "contikimac"
//! duration_ms = 660000
//! [multihop.topology]
//! kind = "lim4x4"
//! [multihop.workload]
//! kind = "lim_tcp"
//! [multihop.csma]
//! queuebuf_num = 4
//! ```
//!
//! Every key of [`MultihopConfig`] (and its tables) may be written; what is left out has the
//! spec's default (multihop.md §1), after the `version` and `mote` presets. Keys written in
//! the file win over the presets. The workload's `algorithm` (CoAP) or `scheme` (TCP) comes
//! from the scenario's `algorithms` list, with the `[algorithm.NAME]` keys applied; writing it
//! in `[multihop.workload]` is an error. `--set` and `--sweep` reach these keys like any other
//! (`--set multihop.csma.queuebuf_num=4`, or a bare key where it is unique: `--set rdc=null_rdc`).
//! Errors name the file and the dotted key (`multihop.csma.queuebuf_num`).

use rayon::prelude::*;

use coapcc_driver::scenario::{Model, Scenario, ScenarioError};
use serde::Deserialize;

use super::metrics::MultihopResult;
use super::{ContikiVersion, csma::Mote};
use super::{MultihopConfig, MultihopSim, Workload};

/// Keys of `[multihop]` that are not fields of [`MultihopConfig`]: `mote` selects a platform
/// preset; `nstart_by_algorithm` (a table `{ NAME = N }`) gives one algorithm of the list its
/// own NSTART (Betzler's CoCoA4, §2.3), overriding the workload's `nstart`.
pub const PRESET_KEYS: &[&str] = &["mote", "nstart_by_algorithm"];

/// The preset table of Contiki `version` on `mote` (OQ-M2, §1.3–1.4, OQ-M1): what the file's
/// own keys are laid over.
fn preset_table(version: ContikiVersion, mote: Mote) -> toml::Table {
    let (backoff, cca, trunc) = match version {
        ContikiVersion::V2_7 => ("linear", -77, false),
        ContikiVersion::V3_0 => ("exponential", -90, true),
    };
    let (queuebuf, tx, ack_wait) = match mote {
        Mote::Sky => (8, 5, false),
        Mote::Z1 => (4, 4, false),
        Mote::Wismote => (8, 5, true),
        Mote::SkyBorderRouter => (4, 5, false),
    };
    let text = format!(
        "[csma]\nbackoff = \"{backoff}\"\nqueuebuf_num = {queuebuf}\nmax_transmissions = {tx}\n\
         [udgm]\ncca_threshold_dbm = {cca}\nrssi_truncation = {trunc}\n[null_rdc]\nack_wait = {ack_wait}\n"
    );
    toml::from_str(&text).unwrap_or_default()
}

/// `over` laid over `base`, table by table.
fn merge(mut base: toml::Table, over: &toml::Table) -> toml::Table {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => {
                let merged = merge(std::mem::take(b), o);
                *b = merged;
            }
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
    base
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wrapped {
    multihop: MultihopConfig,
}

#[derive(Deserialize)]
struct Presets {
    #[serde(default)]
    version: ContikiVersion,
    #[serde(default = "sky")]
    mote: Mote,
}

fn sky() -> Mote {
    Mote::Sky
}

/// The dotted key written at byte `offset` of a TOML `text`: the last `[table]` header before
/// it joined with the key on that line (or the header alone).
fn key_at(text: &str, offset: usize) -> Option<String> {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let header = before[..line_start]
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix('[').map(|h| h.trim_matches(|c| c == '[' || c == ']').trim().to_string()));
    if let Some(h) = line.strip_prefix('[') {
        return Some(h.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    }
    let key = line.split_once('=').map(|(k, _)| k.trim().trim_matches('"').to_string());
    match (header, key) {
        (Some(h), Some(k)) => Some(format!("{h}.{k}")),
        (None, Some(k)) => Some(k),
        (Some(h), None) => Some(h),
        (None, None) => None,
    }
}

/// The dotted key of a bad value in a `[multihop.workload]` table, found by reading the table
/// (without `kind`) as its workload's own struct, which reports the key's position.
fn workload_key(workload: Option<&toml::Value>) -> Option<String> {
    use super::{CoapCrossTraffic, CoapManyToMany, CoapOneToOne, CoapSaturated, LimTcp};
    let mut table = workload?.as_table()?.clone();
    let kind = table.remove("kind")?;
    let text = toml::to_string(&table).ok()?;
    let e = match kind.as_str()? {
        "coap_saturated" => toml::from_str::<CoapSaturated>(&text).err(),
        "coap_one_to_one" => toml::from_str::<CoapOneToOne>(&text).err(),
        "coap_many_to_many" => toml::from_str::<CoapManyToMany>(&text).err(),
        "coap_cross_traffic" => toml::from_str::<CoapCrossTraffic>(&text).err(),
        "lim_tcp" => toml::from_str::<LimTcp>(&text).err(),
        _ => None,
    }?;
    let key = key_at(&text, e.span()?.start)?;
    Some(format!("multihop.workload.{key}"))
}

/// The multihop configuration of scenario `s` (presets applied, no algorithm set), checked;
/// errors name the file (the scenario's name) and the dotted key.
pub fn config_of(s: &Scenario) -> Result<MultihopConfig, ScenarioError> {
    let file = s.file.name.clone();
    let err = |key: Option<String>, problem: String| ScenarioError { file: file.clone(), line: None, key, problem };
    let Model::Multihop(table) = &s.model else {
        return Err(err(Some("multihop".into()), "not a multihop scenario".into()));
    };
    // `--set version=2.7` reads a number: the release it names.
    let mut table = table.clone();
    if let Some(v) = table.get("version").and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64))) {
        table.insert("version".into(), toml::Value::String(format!("{v:.1}")));
    }
    let table = &table;
    let presets: Presets = toml::Value::Table(table.clone()).try_into().map_err(|e: toml::de::Error| {
        let key = if e.message().contains("mote") || table.get("mote").is_some_and(|m| !m.is_str()) {
            "multihop.mote"
        } else {
            "multihop.version"
        };
        err(Some(key.into()), e.message().replace('\n', " "))
    })?;
    let mut own = table.clone();
    for k in PRESET_KEYS {
        own.remove(*k);
    }
    if let Some(w) = own.get("workload").and_then(|w| w.as_table()) {
        for k in ["algorithm", "scheme"] {
            if w.contains_key(k) {
                return Err(err(
                    Some(format!("multihop.workload.{k}")),
                    "set by the scenario's `algorithms` list (with `[algorithm.NAME]` keys), not here".into(),
                ));
            }
        }
    }
    let merged = merge(preset_table(presets.version, presets.mote), &own);
    let workload_table = merged.get("workload").cloned();
    let mut doc = toml::Table::new();
    doc.insert("multihop".into(), toml::Value::Table(merged));
    let text = toml::to_string(&doc).map_err(|e| err(Some("multihop".into()), e.to_string()))?;
    let wrapped: Wrapped = toml::from_str(&text).map_err(|e| {
        let mut key = e.span().and_then(|sp| key_at(&text, sp.start)).or_else(|| Some("multihop".into()));
        if key.as_deref() == Some("multihop.workload") {
            // The workload is a tagged enum: serde reports the whole table; find the key.
            key = workload_key(workload_table.as_ref()).or(key);
        }
        err(key, e.message().replace('\n', " "))
    })?;
    let cfg = wrapped.multihop;
    let sub = |table: &str, r: Result<(), coapcc_core::ConfigError>| {
        r.map_err(|e| err(Some(format!("multihop.{table}.{}", e.key)), e.problem.to_string()))
    };
    sub("phy", cfg.phy.validate())?;
    sub("contikimac", cfg.contikimac.validate())?;
    sub("csma", cfg.csma.validate())?;
    sub("udgm", cfg.udgm.validate())?;
    if cfg.duration.is_zero() {
        return Err(err(Some("multihop.duration_ms".into()), "must be greater than 0".into()));
    }
    Ok(cfg)
}

/// One configuration per algorithm of `s`, in the scenario's order: the workload's algorithm
/// (CoAP) or scheme (TCP) set to the algorithm's checked configuration. Each is built once
/// (so an engine-level error, e.g. a node id outside the topology, is found before any run).
pub fn configs(s: &Scenario) -> Result<Vec<(String, MultihopConfig)>, ScenarioError> {
    let base = config_of(s)?;
    let nstarts = nstart_by_algorithm(s)?;
    let mut out = Vec::new();
    for (name, config) in &s.algorithms {
        let mut cfg = base.clone();
        let own = nstarts.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        let set = |alg: &mut String, nstart: &mut u16| {
            *alg = name.clone();
            if let Some(v) = own {
                *nstart = v;
            }
        };
        match &mut cfg.workload {
            Workload::LimTcp(w) => w.scheme = name.clone(),
            Workload::CoapSaturated(w) => set(&mut w.algorithm, &mut w.nstart),
            Workload::CoapOneToOne(w) => set(&mut w.algorithm, &mut w.nstart),
            Workload::CoapManyToMany(w) => set(&mut w.algorithm, &mut w.nstart),
            Workload::CoapCrossTraffic(w) => set(&mut w.algorithm, &mut w.nstart),
        }
        cfg.algorithm_config = Some(*config);
        MultihopSim::new(cfg.clone(), s.file.seed).map_err(|e| {
            let key = if e.key.starts_with("workload") && e.key.ends_with("scheme") {
                "algorithms".to_string()
            } else {
                format!("multihop.{}", e.key)
            };
            ScenarioError {
                file: s.file.name.clone(),
                line: None,
                key: Some(key),
                problem: format!("`{name}`: {}", e.problem),
            }
        })?;
        out.push((name.clone(), cfg));
    }
    Ok(out)
}

/// `[multihop] nstart_by_algorithm = { NAME = N }`, checked: every name is in the list, every
/// N in 1..=65535.
fn nstart_by_algorithm(s: &Scenario) -> Result<Vec<(String, u16)>, ScenarioError> {
    let err = |key: String, problem: &str| ScenarioError {
        file: s.file.name.clone(),
        line: None,
        key: Some(key),
        problem: problem.to_string(),
    };
    let Model::Multihop(table) = &s.model else { return Ok(Vec::new()) };
    let Some(v) = table.get("nstart_by_algorithm") else { return Ok(Vec::new()) };
    let t = v.as_table().ok_or_else(|| err("multihop.nstart_by_algorithm".into(), "must be a table NAME = N"))?;
    let mut out = Vec::new();
    for (name, n) in t {
        let key = format!("multihop.nstart_by_algorithm.{name}");
        if !s.file.algorithms.contains(name) {
            return Err(err(key, "not an algorithm of this scenario's `algorithms`"));
        }
        let n = n.as_integer().and_then(|n| u16::try_from(n).ok()).filter(|&n| n > 0);
        out.push((name.clone(), n.ok_or_else(|| err(key, "must be an integer from 1 to 65535"))?));
    }
    Ok(out)
}

/// The seed replication `r` of a scenario with seed `seed` runs with (every algorithm of a
/// replication gets the same one: common random numbers).
pub fn run_seed(seed: u64, r: u32) -> u64 {
    seed.wrapping_add(u64::from(r))
}

/// Every replication of one algorithm, replication 0 first.
#[derive(Clone, Debug, PartialEq)]
pub struct MultihopRuns {
    /// The algorithm (or variant) name.
    pub algorithm: String,
    /// One result per replication.
    pub runs: Vec<MultihopResult>,
}

/// Runs replication `replication` of algorithm number `algorithm` of multihop scenario `s`,
/// whose configurations ([`configs`]) are `cfgs`. Every random stream derives from (scenario
/// seed, replication), so a job run alone (in another process, on another machine) gives the
/// same result as within [`run`]: the unit of work of a distributed sweep.
pub fn run_job(
    s: &Scenario,
    cfgs: &[(String, MultihopConfig)],
    algorithm: usize,
    replication: u32,
) -> Result<MultihopResult, String> {
    let (name, cfg) = cfgs
        .get(algorithm)
        .ok_or_else(|| format!("{}: no algorithm number {algorithm} (the scenario has {})", s.file.name, cfgs.len()))?;
    MultihopSim::new(cfg.clone(), run_seed(s.file.seed, replication))
        .map(|sim| sim.run().0)
        .map_err(|e| format!("{name}, replication {replication}: key `multihop.{}`: {}", e.key, e.problem))
}

/// Gathers job results (`((algorithm, replication), result)`, in any order, every job once)
/// into [`MultihopRuns`] in scenario order, replication 0 first: what [`run`] returns. A
/// missing or repeated job is an error naming it.
pub fn assemble(
    s: &Scenario,
    outputs: impl IntoIterator<Item = ((usize, u32), MultihopResult)>,
) -> Result<Vec<MultihopRuns>, String> {
    Ok(crate::runner::by_algorithm(s, outputs)?
        .into_iter()
        .map(|(algorithm, runs)| MultihopRuns { algorithm, runs })
        .collect())
}

/// Runs every (algorithm, replication) of multihop scenario `s` on the current rayon pool,
/// results in a fixed order (byte-identical for any thread count). `progress` is called once
/// per finished run.
pub fn run(s: &Scenario, progress: &(dyn Fn() + Sync)) -> Result<Vec<MultihopRuns>, String> {
    let cfgs = configs(s).map_err(|e| e.to_string())?;
    let reps = s.file.replications;
    let jobs: Vec<(usize, u32)> = (0..cfgs.len()).flat_map(|a| (0..reps).map(move |r| (a, r))).collect();
    let outputs: Vec<Result<MultihopResult, String>> = jobs
        .par_iter()
        .map(|&(a, r)| {
            let out = run_job(s, &cfgs, a, r);
            progress();
            out
        })
        .collect();
    let mut result: Vec<MultihopRuns> =
        cfgs.iter().map(|(n, _)| MultihopRuns { algorithm: n.clone(), runs: Vec::new() }).collect();
    for ((a, _), out) in jobs.into_iter().zip(outputs) {
        result[a].runs.push(out?);
    }
    Ok(result)
}

/// Replication `r` of every algorithm of multihop scenario `s` again, with the TCP per-node
/// traces recorded (Lim 2020 Figs. 2–3, spec multihop.md §4.4), in scenario order, on the
/// current rayon pool. Recording draws no random number: each result equals the one [`run`]
/// gives for that replication, traces aside.
pub fn run_traced(s: &Scenario, r: u32) -> Result<Vec<(String, MultihopResult)>, String> {
    let cfgs = configs(s).map_err(|e| e.to_string())?;
    cfgs.par_iter()
        .map(|(name, cfg)| {
            let mut sim = MultihopSim::new(cfg.clone(), run_seed(s.file.seed, r))
                .map_err(|e| format!("{name}, replication {r}: key `multihop.{}`: {}", e.key, e.problem))?;
            sim.record_tcp_traces();
            Ok((name.clone(), sim.run().0))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_driver::scenario::{Setting, parse};

    const LINE: &str = r#"
name = "t/line"
description = "d"
source = "s"
seed = 3
replications = 2
algorithms = ["default", "cocoa"]
[multihop]
rdc = "null_rdc"
duration_ms = 20000
[multihop.topology]
kind = "line"
nodes = 3
spacing_m = 40.0
[multihop.workload]
kind = "coap_saturated"
window_start_ms = 0
senders = [2]
receiver = 0
"#;

    fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
        let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
        parse(text, "t.toml", &sets)
    }

    #[test]
    fn a_multihop_table_becomes_one_configuration_per_algorithm_with_its_name() {
        let s = load(LINE, &[]).unwrap();
        let cfgs = configs(&s).unwrap();
        assert_eq!(cfgs.len(), 2);
        match &cfgs[1].1.workload {
            Workload::CoapSaturated(w) => assert_eq!(w.algorithm, "cocoa"),
            other => panic!("{other:?}"),
        }
        assert_eq!(cfgs[0].1.rdc, super::super::RdcKind::NullRdc);
    }

    #[test]
    fn the_version_preset_sets_the_contiki_constants_unless_a_key_is_written() {
        let s = load(LINE, &["multihop.version=2.7"]).unwrap();
        let c = config_of(&s).unwrap();
        assert_eq!(c.csma.backoff, super::super::csma::BackoffKind::Linear);
        assert_eq!(c.udgm.cca_threshold_dbm, -77);
        let s = load(LINE, &["multihop.version=2.7", "multihop.udgm.cca_threshold_dbm=-80"]).unwrap();
        assert_eq!(config_of(&s).unwrap().udgm.cca_threshold_dbm, -80);
        let s = load(LINE, &["multihop.mote=z1"]).unwrap();
        let c = config_of(&s).unwrap();
        assert_eq!((c.csma.queuebuf_num, c.csma.max_transmissions), (4, 4));
    }

    #[test]
    fn a_bare_override_reaches_a_multihop_key() {
        let s = load(LINE, &["rdc=contikimac", "spacing_m=45.0"]).unwrap();
        let c = config_of(&s).unwrap();
        assert_eq!(c.rdc, super::super::RdcKind::Contikimac);
        assert!(matches!(c.topology, super::super::TopologyChoice::Line { spacing_m, .. } if spacing_m == 45.0));
    }

    #[test]
    fn errors_name_the_dotted_key() {
        let s = load(LINE, &["multihop.csma.queuebuf_nm=4"]).unwrap();
        let e = config_of(&s).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("multihop.csma.queuebuf_nm"), "{e}");
        assert!(e.problem.contains("queuebuf_nm"), "{e}");
        let s = load(LINE, &["multihop.csma.queuebuf_num=0"]).unwrap();
        assert_eq!(config_of(&s).unwrap_err().key.as_deref(), Some("multihop.csma.queuebuf_num"));
        let s = load(LINE, &["multihop.udgm.tx_range_m=\"far\""]).unwrap();
        assert_eq!(config_of(&s).unwrap_err().key.as_deref(), Some("multihop.udgm.tx_range_m"));
        let s = load(LINE, &["multihop.workload.receiver=9"]).unwrap();
        assert!(configs(&s).unwrap_err().key.unwrap().starts_with("multihop.workload"));
        let s = load(LINE, &["multihop.workload.algorithm=cocoa"]).unwrap();
        assert_eq!(config_of(&s).unwrap_err().key.as_deref(), Some("multihop.workload.algorithm"));
        let s = load(LINE, &["multihop.mote=sky2"]).unwrap();
        assert_eq!(config_of(&s).unwrap_err().key.as_deref(), Some("multihop.mote"));
    }

    #[test]
    fn the_open_question_options_are_keys_whose_bad_values_name_the_key() {
        use super::super::ClientMode;
        // OQ-M5: client_mode under a CoAP workload.
        let c = config_of(&load(LINE, &[]).unwrap()).unwrap();
        assert!(matches!(&c.workload, Workload::CoapSaturated(w) if w.client_mode == ClientMode::Parallel));
        let c = config_of(&load(LINE, &["multihop.workload.client_mode=sequential"]).unwrap()).unwrap();
        assert!(matches!(&c.workload, Workload::CoapSaturated(w) if w.client_mode == ClientMode::Sequential));
        let s = load(LINE, &["multihop.workload.client_mode=sometimes"]).unwrap();
        assert_eq!(config_of(&s).unwrap_err().key.as_deref(), Some("multihop.workload.client_mode"));
        // OQ-M14: the server's delayed ACK under the TCP workload.
        let tcp = LINE
            .replace(
                "kind = \"coap_saturated\"\nwindow_start_ms = 0\nsenders = [2]\nreceiver = 0\n",
                "kind = \"lim_tcp\"\n",
            )
            .replace("algorithms = [\"default\", \"cocoa\"]", "algorithms = [\"uip\"]");
        let c = config_of(&load(&tcp, &["multihop.workload.server_delayed_ack_ms=200"]).unwrap()).unwrap();
        assert!(
            matches!(&c.workload, Workload::LimTcp(w) if w.server_delayed_ack == coapcc_core::Duration::from_millis(200))
        );
        let s = load(&tcp, &["multihop.workload.server_delayed_ack_ms=-1"]).unwrap();
        assert_eq!(config_of(&s).unwrap_err().key.as_deref(), Some("multihop.workload.server_delayed_ack_ms"));
        let s = load(&tcp, &["multihop.workload.server_delayed_ack_ms=500"]).unwrap();
        assert_eq!(configs(&s).unwrap_err().key.as_deref(), Some("multihop.workload.server_delayed_ack_ms"));
        // OQ-M9: an 80-B CoAP message over two hops needs fragmentation.
        let s = load(LINE, &["multihop.makarem_coap_len=80"]).unwrap();
        assert_eq!(configs(&s).unwrap_err().key.as_deref(), Some("multihop.makarem_coap_len"));
        let c =
            configs(&load(LINE, &["multihop.makarem_coap_len=80", "multihop.fragmentation=true"]).unwrap()).unwrap();
        assert!(c[0].1.fragmentation && c[0].1.makarem_coap_len == Some(80));
        let s = load(LINE, &["multihop.fragmentation=\"maybe\""]).unwrap();
        assert_eq!(config_of(&s).unwrap_err().key.as_deref(), Some("multihop.fragmentation"));
        let s = load(LINE, &["multihop.reassembly_timeout_ms=-5"]).unwrap();
        assert_eq!(config_of(&s).unwrap_err().key.as_deref(), Some("multihop.reassembly_timeout_ms"));
    }

    #[test]
    fn a_node_list_written_in_the_file_is_the_topology() {
        let text = LINE.replace(
            "kind = \"line\"\nnodes = 3\nspacing_m = 40.0\n",
            "kind = \"nodes\"\n[[multihop.topology.node]]\nx_m = 0.0\ny_m = 0.0\nrole = \"border_router\"\n\
             [[multihop.topology.node]]\nx_m = 40.0\ny_m = 0.0\n[[multihop.topology.node]]\nx_m = 80.0\ny_m = 0.0\n",
        );
        let s = load(&text, &[]).unwrap();
        let cfgs = configs(&s).unwrap();
        let topo = cfgs[0].1.topology.build().unwrap();
        assert_eq!(topo.len(), 3);
        assert_eq!(topo.border_router(), Some(super::super::NodeId(0)));
        let r = MultihopSim::new(cfgs[0].1.clone(), 1).unwrap();
        assert_eq!(r.dodag().hops(super::super::NodeId(2)), Some(2));
        let two_roots = text.replace("x_m = 80.0\ny_m = 0.0\n", "x_m = 80.0\ny_m = 0.0\nrole = \"border_router\"\n");
        let e = configs(&load(&two_roots, &[]).unwrap()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("multihop.topology.node"), "{e}");
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let s = load(LINE, &[]).unwrap();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let a = one.install(|| run(&s, &|| {})).unwrap();
        let b = two.install(|| run(&s, &|| {})).unwrap();
        assert_eq!(a, b);
        assert_eq!(a[0].runs.len(), 2);
        assert!(a[0].runs[0].coap[0].completed > 10);
        // Replications differ (own seeds).
        assert_ne!(a[0].runs[0].trace_digest, a[0].runs[1].trace_digest);
    }
}
