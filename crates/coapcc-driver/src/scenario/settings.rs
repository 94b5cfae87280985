//! Applying settings (`--set KEY=VALUE`, [`Scenario::set`]) to a scenario document before it is
//! checked: a bare key is looked up in the top level, in `[network.*]`, `[workload]`, `[coap]`,
//! `[trace]` and `[tcp]` and must be unique (a key left at its default is found in its known table); a
//! dotted key names its table. Errors name the file, the line when the text has one, and the
//! key — the setting's resolved key when a setting caused the error.

use std::path::Path;

use super::check::{check, check_network};
use super::error::ScenarioError;
use super::overrides::{Setting, Value};
use super::schema::{NetworkConfig, Scenario, ScenarioFile};

impl Scenario {
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

const SECTIONS: [&str; 6] = ["network", "workload", "coap", "trace", "multihop", "tcp"];

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
            // A key with a default, not written in the file: its table is known (a TCP
            // scenario's are all in `[tcp]`).
            if table.get("tcp").is_some_and(|t| t.is_table()) {
                if super::linux_tcp::TCP_KEYS.contains(&key) {
                    hits.push(vec!["tcp".into(), key.to_string()]);
                }
            } else if let Some((sec, _)) = OPTIONAL_KEYS.iter().find(|(_, k)| *k == key) {
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

/// The text of the file at `path`; the error names the file.
pub(crate) fn read_file(path: &Path) -> Result<String, ScenarioError> {
    std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: path.display().to_string(),
        line: None,
        key: None,
        problem: format!("cannot read: {e}"),
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{CoapConfig, Model, algorithm_keys};

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

    #[test]
    fn a_name_that_would_leave_the_output_folder_is_refused_naming_the_key() {
        for name in ["../../../escaped", "/tmp/escaped", "a/../../b", "a//b", "./a", "a/", "a\\b", ".."] {
            let e = parse(NBIOT, "t.toml", &[Setting::new("name", name).unwrap()]).unwrap_err();
            assert_eq!(e.key.as_deref(), Some("name"), "{name}: {e}");
        }
        let e = parse(&NBIOT.replace("name = \"t\"", "name = \"/etc/x\""), "t.toml", &[]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("name"), "{e}");
        for name in ["fasor/10-flows", "makarem/rtt-trace/row-01", "a..b", ".hidden", "x y"] {
            assert_eq!(parse(NBIOT, "t.toml", &[Setting::new("name", name).unwrap()]).unwrap().file.name, name);
        }
    }

    #[test]
    fn an_algorithm_listed_twice_is_refused_naming_it() {
        let e = parse(NBIOT, "t.toml", &[Setting::algorithms(["default", "cocoa", "default"])]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("algorithms"), "{e}");
        assert!(e.problem.contains("`default` is listed twice"), "{e}");
        let file = NBIOT.replace("algorithms = [\"default\"]", "algorithms = [\"cocoa\", \"cocoa\"]");
        assert!(parse(&file, "t.toml", &[]).unwrap_err().problem.contains("`cocoa` is listed twice"));
    }

    #[test]
    fn the_largest_seed_is_taken_from_the_file_an_override_or_a_typed_setting_and_kept_by_a_new_setting() {
        let max = u64::MAX;
        assert_eq!(with(&["seed=18446744073709551615"]).unwrap().file.seed, max);
        let mut s = parse(NBIOT, "t.toml", &[Setting::seed(max)]).unwrap();
        assert_eq!(s.file.seed, max);
        s.set("flows", 2_u32).unwrap();
        assert_eq!(s.file.seed, max);
        let written = s.to_toml();
        assert!(written.contains("seed = \"18446744073709551615\""), "{written}");
        assert_eq!(parse(&written, "scenario.toml", &[]).unwrap(), s);
        assert_eq!(
            parse(&NBIOT.replace("seed = 1", "seed = \"18446744073709551615\""), "t", &[]).unwrap().file.seed,
            max
        );
        assert_eq!(with(&["seed=-1"]).unwrap_err().key.as_deref(), Some("seed"));
    }
}
