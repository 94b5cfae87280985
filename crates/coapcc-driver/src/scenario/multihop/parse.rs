//! A `[multihop]` table checked once into a [`MultihopModel`]: the `version` and `mote`
//! presets laid under the file's own keys, the tables deserialised and their values checked,
//! `nstart_by_algorithm` read, and one configuration per algorithm of the scenario. Every error
//! names the file and the dotted key (`multihop.csma.queuebuf_num`).

use coapcc_core::AnyConfig;
use serde::Deserialize;

use super::config::MultihopConfig;
use super::presets::{ContikiVersion, Mote};
use super::workload::{CoapCrossTraffic, CoapManyToMany, CoapOneToOne, CoapSaturated, LimTcp, MultihopWorkload};
use crate::scenario::error::ScenarioError;

/// Keys of `[multihop]` that are not fields of [`MultihopConfig`]: `mote` selects a platform
/// preset; `nstart_by_algorithm` (a table `{ NAME = N }`) gives one algorithm of the list its
/// own NSTART (Betzler's CoCoA4, §2.3), overriding the workload's `nstart`.
pub const PRESET_KEYS: &[&str] = &["mote", "nstart_by_algorithm"];

/// A checked `[multihop]` table: what a multihop scenario runs.
#[derive(Clone, Debug, PartialEq)]
pub struct MultihopModel {
    /// The table with the presets applied and no algorithm set.
    pub base: MultihopConfig,
    /// One configuration per algorithm of the scenario, in its order: `base` with the
    /// workload's `algorithm` (CoAP) or `scheme` (TCP) set to the algorithm's name, its
    /// checked configuration (with the `[algorithm.NAME]` keys) and its own NSTART from
    /// `nstart_by_algorithm`.
    pub configs: Vec<(String, MultihopConfig)>,
}

impl MultihopModel {
    /// Checks the `[multihop]` `table` of a scenario whose algorithms are `algorithms` (in
    /// order; `listed` are the names its `algorithms` key lists). Errors name `file` and the
    /// dotted key.
    pub fn parse(
        table: &toml::Table,
        file: &str,
        listed: &[String],
        algorithms: &[(String, AnyConfig)],
    ) -> Result<MultihopModel, ScenarioError> {
        let base = config_of(table, file)?;
        let nstarts = nstart_by_algorithm(table, file, listed)?;
        let configs = algorithms
            .iter()
            .map(|(name, config)| {
                let mut cfg = base.clone();
                let own = nstarts.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
                let set = |alg: &mut String, nstart: &mut u16| {
                    *alg = name.clone();
                    if let Some(v) = own {
                        *nstart = v;
                    }
                };
                match &mut cfg.workload {
                    MultihopWorkload::LimTcp(w) => w.scheme = name.clone(),
                    MultihopWorkload::CoapSaturated(w) => set(&mut w.algorithm, &mut w.nstart),
                    MultihopWorkload::CoapOneToOne(w) => set(&mut w.algorithm, &mut w.nstart),
                    MultihopWorkload::CoapManyToMany(w) => set(&mut w.algorithm, &mut w.nstart),
                    MultihopWorkload::CoapCrossTraffic(w) => set(&mut w.algorithm, &mut w.nstart),
                }
                cfg.algorithm_config = Some(*config);
                (name.clone(), cfg)
            })
            .collect();
        Ok(MultihopModel { base, configs })
    }
}

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

/// The multihop configuration of the `[multihop]` `table` (presets applied, no algorithm set),
/// checked; errors name `file` and the dotted key.
fn config_of(table: &toml::Table, file: &str) -> Result<MultihopConfig, ScenarioError> {
    let err = |key: Option<String>, problem: String| ScenarioError { file: file.into(), line: None, key, problem };
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

/// `nstart_by_algorithm = { NAME = N }` of the `[multihop]` `table`, checked: every name is in
/// `listed` (the scenario's `algorithms`), every N in 1..=65535.
fn nstart_by_algorithm(
    table: &toml::Table,
    file: &str,
    listed: &[String],
) -> Result<Vec<(String, u16)>, ScenarioError> {
    let err = |key: String, problem: &str| ScenarioError {
        file: file.into(),
        line: None,
        key: Some(key),
        problem: problem.to_string(),
    };
    let Some(v) = table.get("nstart_by_algorithm") else { return Ok(Vec::new()) };
    let t = v.as_table().ok_or_else(|| err("multihop.nstart_by_algorithm".into(), "must be a table NAME = N"))?;
    let mut out = Vec::new();
    for (name, n) in t {
        let key = format!("multihop.nstart_by_algorithm.{name}");
        if !listed.contains(name) {
            return Err(err(key, "not an algorithm of this scenario's `algorithms`"));
        }
        let n = n.as_integer().and_then(|n| u16::try_from(n).ok()).filter(|&n| n > 0);
        out.push((name.clone(), n.ok_or_else(|| err(key, "must be an integer from 1 to 65535"))?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{ClientMode, RdcKind, TopologyChoice};
    use super::*;
    use crate::scenario::{Model, Scenario, Setting, parse};

    /// A three-node line with one saturated CoAP sender (shared with the simulator's tests).
    const LINE: &str = include_str!("line.test.toml");

    fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
        let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
        parse(text, "t.toml", &sets)
    }

    fn model(text: &str, sets: &[&str]) -> MultihopModel {
        match load(text, sets).unwrap_or_else(|e| panic!("{e}")).model {
            Model::Multihop(m) => *m,
            other => panic!("not a multihop model: {other:?}"),
        }
    }

    fn key(sets: &[&str]) -> Option<String> {
        load(LINE, sets).unwrap_err().key
    }

    #[test]
    fn a_multihop_table_becomes_one_configuration_per_algorithm_with_its_name() {
        let m = model(LINE, &[]);
        assert_eq!(m.configs.len(), 2);
        match &m.configs[1].1.workload {
            MultihopWorkload::CoapSaturated(w) => assert_eq!(w.algorithm, "cocoa"),
            other => panic!("{other:?}"),
        }
        assert_eq!(m.configs[0].1.rdc, RdcKind::NullRdc);
        assert!(m.configs[0].1.algorithm_config.is_some() && m.base.algorithm_config.is_none());
    }

    #[test]
    fn the_version_preset_sets_the_contiki_constants_unless_a_key_is_written() {
        let c = model(LINE, &["multihop.version=2.7"]).base;
        assert_eq!(c.csma.backoff, super::super::BackoffKind::Linear);
        assert_eq!(c.udgm.cca_threshold_dbm, -77);
        let c = model(LINE, &["multihop.version=2.7", "multihop.udgm.cca_threshold_dbm=-80"]).base;
        assert_eq!(c.udgm.cca_threshold_dbm, -80);
        let c = model(LINE, &["multihop.mote=z1"]).base;
        assert_eq!((c.csma.queuebuf_num, c.csma.max_transmissions), (4, 4));
    }

    #[test]
    fn a_bare_override_reaches_a_multihop_key() {
        let c = model(LINE, &["rdc=contikimac", "spacing_m=45.0"]).base;
        assert_eq!(c.rdc, RdcKind::Contikimac);
        assert!(matches!(c.topology, TopologyChoice::Line { spacing_m, .. } if spacing_m == 45.0));
    }

    #[test]
    fn nstart_by_algorithm_gives_one_algorithm_its_own_nstart() {
        let text = LINE.replace("duration_ms = 20000\n", "duration_ms = 20000\nnstart_by_algorithm = { cocoa = 4 }\n");
        let nstart = |c: &MultihopConfig| match &c.workload {
            MultihopWorkload::CoapSaturated(w) => w.nstart,
            other => panic!("{other:?}"),
        };
        let m = model(&text, &[]);
        assert_eq!((nstart(&m.configs[0].1), nstart(&m.configs[1].1)), (1, 4));
        let e = load(&text.replace("cocoa = 4", "fasor = 4"), &[]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("multihop.nstart_by_algorithm.fasor"), "{e}");
        let e = load(&text.replace("cocoa = 4", "cocoa = 0"), &[]).unwrap_err();
        assert_eq!(e.problem, "must be an integer from 1 to 65535");
    }

    #[test]
    fn errors_name_the_file_and_the_dotted_key() {
        let e = load(LINE, &["multihop.csma.queuebuf_nm=4"]).unwrap_err();
        assert_eq!((e.file.as_str(), e.key.as_deref()), ("t.toml", Some("multihop.csma.queuebuf_nm")), "{e}");
        assert!(e.problem.contains("queuebuf_nm"), "{e}");
        let e = load(LINE, &["multihop.csma.queuebuf_num=0"]).unwrap_err();
        assert_eq!(e.to_string(), "t.toml: key `multihop.csma.queuebuf_num`: must be at least 1");
        assert_eq!(key(&["multihop.udgm.tx_range_m=\"far\""]).as_deref(), Some("multihop.udgm.tx_range_m"));
        assert_eq!(key(&["multihop.workload.algorithm=cocoa"]).as_deref(), Some("multihop.workload.algorithm"));
        assert_eq!(key(&["multihop.mote=sky2"]).as_deref(), Some("multihop.mote"));
        assert_eq!(key(&["multihop.duration_ms=0"]).as_deref(), Some("multihop.duration_ms"));
    }

    #[test]
    fn the_open_question_options_are_keys_whose_bad_values_name_the_key() {
        // OQ-M5: client_mode under a CoAP workload.
        let c = model(LINE, &[]).base;
        assert!(matches!(&c.workload, MultihopWorkload::CoapSaturated(w) if w.client_mode == ClientMode::Parallel));
        let c = model(LINE, &["multihop.workload.client_mode=sequential"]).base;
        assert!(matches!(&c.workload, MultihopWorkload::CoapSaturated(w) if w.client_mode == ClientMode::Sequential));
        assert_eq!(key(&["multihop.workload.client_mode=sometimes"]).as_deref(), Some("multihop.workload.client_mode"));
        // OQ-M14: the server's delayed ACK under the TCP workload.
        let tcp = LINE
            .replace(
                "kind = \"coap_saturated\"\nwindow_start_ms = 0\nsenders = [2]\nreceiver = 0\n",
                "kind = \"lim_tcp\"\n",
            )
            .replace("algorithms = [\"default\", \"cocoa\"]", "algorithms = [\"uip\"]");
        let c = model(&tcp, &["multihop.workload.server_delayed_ack_ms=200"]).base;
        assert!(
            matches!(&c.workload, MultihopWorkload::LimTcp(w) if w.server_delayed_ack == coapcc_core::Duration::from_millis(200))
        );
        let e = load(&tcp, &["multihop.workload.server_delayed_ack_ms=-1"]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("multihop.workload.server_delayed_ack_ms"));
        // OQ-M9: fragmentation and its reassembly timeout.
        let c = model(LINE, &["multihop.makarem_coap_len=80", "multihop.fragmentation=true"]).base;
        assert!(c.fragmentation && c.makarem_coap_len == Some(80));
        assert_eq!(key(&["multihop.fragmentation=\"maybe\""]).as_deref(), Some("multihop.fragmentation"));
        assert_eq!(key(&["multihop.reassembly_timeout_ms=-5"]).as_deref(), Some("multihop.reassembly_timeout_ms"));
    }
}
