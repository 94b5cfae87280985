//! Checks of a deserialised scenario file, into a [`Scenario`]: names, replications, every
//! algorithm configured, exactly one model, the network's and the workload's ranges, and that
//! every datagram fits the MTU.

use std::path::{Component, Path};

use coapcc_core::AnyConfig;

use super::algorithm::{AlgorithmError, algorithm_keys, configure_algorithm};
use super::error::ScenarioError;
use super::multihop::MultihopModel;
use super::schema::{FlowType, Model, NetworkConfig, Scenario, ScenarioFile, WorkloadConfig};
use super::sizes::check_sizes;
use super::transfer::check_blockwise;

/// Why scenario name `name` cannot be a folder below the output folder, if it cannot: it must
/// be a relative path of plain names separated by `/` (`fasor/10-flows`), without an empty, `.`
/// or `..` segment and without `\\`, so that no name writes outside the output folder.
fn name_problem(name: &str) -> Option<&'static str> {
    if name.contains('\\') {
        Some("must not contain `\\` (separate folders with `/`)")
    } else if name.starts_with('/') {
        Some("must be a relative folder name (`fasor/10-flows`), not an absolute path")
    } else if name.split('/').any(|seg| seg.is_empty() || seg == "." || seg == "..") {
        Some("must be folder names separated by `/`, without an empty, `.` or `..` segment")
    } else if !Path::new(name).components().all(|c| matches!(c, Component::Normal(_))) {
        // A drive or UNC prefix where the platform has one.
        Some("must be a relative folder name (`fasor/10-flows`), not an absolute path")
    } else {
        None
    }
}

pub(super) fn check(mut sf: ScenarioFile, file: &str) -> Result<Scenario, ScenarioError> {
    let err =
        |key: &str, problem: String| ScenarioError { file: file.into(), line: None, key: Some(key.into()), problem };
    if sf.name.trim().is_empty() {
        return Err(err("name", "must not be empty".into()));
    }
    // The name is the output folder below `results/` (or `--out`): it must stay below it.
    if let Some(problem) = name_problem(&sf.name) {
        return Err(err("name", problem.into()));
    }
    if sf.replications == 0 {
        return Err(err("replications", "must be at least 1".into()));
    }
    if sf.algorithms.is_empty() {
        return Err(err("algorithms", "must list at least one algorithm".into()));
    }
    // Each algorithm runs once per replication: a name listed twice would only repeat its rows.
    for (i, name) in sf.algorithms.iter().enumerate() {
        if sf.algorithms[..i].contains(name) {
            return Err(err("algorithms", format!("`{name}` is listed twice; list each algorithm once")));
        }
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
            // Typed after the checks below, so that their errors come first.
            None
        }
        (Some(n), Some(w), None) => {
            check_network(n, file)?;
            check_workload(w, file)?;
            Some(Model::Network { network: n.clone(), workload: *w })
        }
        (None, None, Some(t)) => {
            t.validate().map_err(|e| err(&format!("trace.{}", e.key), e.problem.to_string()))?;
            Some(Model::Trace(t.clone()))
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
    if matches!(model, Some(Model::Network { .. })) {
        // Every datagram must fit the MTU; found here, not when a run sends it.
        check_sizes(&sf.coap).map_err(|e| err("coap.mtu_bytes", e.to_string()))?;
    }
    let model = match model {
        Some(Model::Network { network, mut workload }) => {
            check_blockwise(&sf.coap, &mut workload, &algorithms, file)?;
            sf.workload = Some(workload);
            Some(Model::Network { network, workload })
        }
        _ if sf.coap.blockwise.is_some() => {
            return Err(err(
                "coap.blockwise",
                "only a network scenario ([network] and [workload]) has block-wise transfers".into(),
            ));
        }
        other => other,
    };
    let model = match (model, &sf.multihop) {
        (Some(model), _) => model,
        (None, table) => {
            let table = table.clone().unwrap_or_default();
            Model::Multihop(Box::new(MultihopModel::parse(&table, file, &sf.algorithms, &algorithms)?))
        }
    };
    Ok(Scenario { file: sf, model, algorithms })
}

pub(super) fn check_network(n: &NetworkConfig, file: &str) -> Result<(), ScenarioError> {
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
