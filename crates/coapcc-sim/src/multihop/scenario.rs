//! Multihop scenarios (a `[multihop]` table instead of `[network]` + `[workload]`, checked by
//! `coapcc_driver::scenario::multihop` into a [`MultihopModel`]) as the runner
//! ([`crate::runner`]) needs them: what only a built run knows, checked before any run
//! ([`check_configs`]), the seed of a replication ([`run_seed`]) and one run ([`run_one`]);
//! and replication `r` again with the TCP per-node traces recorded ([`run_traced`]).

use rayon::prelude::*;

use coapcc_core::ConfigError;
use coapcc_driver::scenario::{Model, Scenario, ScenarioError};

use super::metrics::MultihopResult;
use super::{MultihopConfig, MultihopSim};
use crate::error::{RunError, SimError};

use coapcc_driver::scenario::multihop::MultihopModel;

/// The checked model of multihop scenario `s`; an error naming the `multihop` key for a
/// scenario of another model.
pub fn model(s: &Scenario) -> Result<&MultihopModel, ScenarioError> {
    match &s.model {
        Model::Multihop(m) => Ok(m),
        _ => Err(ScenarioError {
            file: s.file.name.clone(),
            line: None,
            key: Some("multihop".into()),
            problem: "not a multihop scenario".into(),
        }),
    }
}

/// Builds every configuration of multihop scenario `s` once ([`MultihopModel::configs`]), so
/// that what only a built run knows (a node id outside the topology, a frame that needs
/// fragmentation) is found before any run; the error names the scenario, the algorithm and
/// the dotted key.
pub fn check_configs(s: &Scenario) -> Result<(), ScenarioError> {
    for (name, cfg) in &model(s)?.configs {
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
    }
    Ok(())
}

/// The seed replication `r` of a scenario with seed `seed` runs with (every algorithm of a
/// replication gets the same one: common random numbers).
pub fn run_seed(seed: u64, r: u32) -> u64 {
    seed.wrapping_add(u64::from(r))
}

/// Replication `replication` of configuration `cfg` of a scenario with seed `seed`. Every
/// random stream derives from (seed, replication), so a run alone gives the same result as
/// within the whole scenario.
pub fn run_one(cfg: &MultihopConfig, seed: u64, replication: u32) -> Result<MultihopResult, ConfigError> {
    MultihopSim::new(cfg.clone(), run_seed(seed, replication)).map(|sim| sim.run().0)
}

/// Replication `r` of every algorithm of multihop scenario `s` again, with the TCP per-node
/// traces recorded (Lim 2020 Figs. 2–3, spec multihop.md §4.4), in scenario order, on the
/// current rayon pool. Recording draws no random number: each result equals the one the
/// runner gives for that replication, traces aside.
pub fn run_traced(s: &Scenario, r: u32) -> Result<Vec<(String, MultihopResult)>, SimError> {
    model(s)?
        .configs
        .par_iter()
        .map(|(name, cfg)| {
            let mut sim = MultihopSim::new(cfg.clone(), run_seed(s.file.seed, r)).map_err(|e| SimError::Run {
                algorithm: name.clone(),
                replication: r,
                source: RunError::Multihop(e),
            })?;
            sim.record_tcp_traces();
            Ok((name.clone(), sim.run().0))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_driver::scenario::{Setting, parse};

    /// The driver's three-node line with one saturated CoAP sender.
    const LINE: &str = include_str!("../../../coapcc-driver/src/scenario/multihop/line.test.toml");

    fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
        let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
        parse(text, "t.toml", &sets)
    }

    #[test]
    fn what_only_a_built_run_knows_is_found_before_any_run_and_names_the_key() {
        let s = load(LINE, &["multihop.workload.receiver=9"]).unwrap();
        assert!(check_configs(&s).unwrap_err().key.unwrap().starts_with("multihop.workload"));
        // OQ-M9: an 80-B CoAP message over two hops needs fragmentation.
        let s = load(LINE, &["multihop.makarem_coap_len=80"]).unwrap();
        assert_eq!(check_configs(&s).unwrap_err().key.as_deref(), Some("multihop.makarem_coap_len"));
        assert!(
            check_configs(&load(LINE, &["multihop.makarem_coap_len=80", "multihop.fragmentation=true"]).unwrap())
                .is_ok()
        );
        // OQ-M14: the server's delayed ACK stays below 500 ms (RFC 1122 §4.2.3.2).
        let tcp = LINE
            .replace(
                "kind = \"coap_saturated\"\nwindow_start_ms = 0\nsenders = [2]\nreceiver = 0\n",
                "kind = \"lim_tcp\"\n",
            )
            .replace("algorithms = [\"default\", \"cocoa\"]", "algorithms = [\"uip\"]");
        let s = load(&tcp, &["multihop.workload.server_delayed_ack_ms=500"]).unwrap();
        assert_eq!(check_configs(&s).unwrap_err().key.as_deref(), Some("multihop.workload.server_delayed_ack_ms"));
    }

    #[test]
    fn a_node_list_written_in_the_file_is_the_topology() {
        let text = LINE.replace(
            "kind = \"line\"\nnodes = 3\nspacing_m = 40.0\n",
            "kind = \"nodes\"\n[[multihop.topology.node]]\nx_m = 0.0\ny_m = 0.0\nrole = \"border_router\"\n\
             [[multihop.topology.node]]\nx_m = 40.0\ny_m = 0.0\n[[multihop.topology.node]]\nx_m = 80.0\ny_m = 0.0\n",
        );
        let s = load(&text, &[]).unwrap();
        check_configs(&s).unwrap();
        let cfgs = &model(&s).unwrap().configs;
        let topo = cfgs[0].1.topology.build().unwrap();
        assert_eq!(topo.len(), 3);
        assert_eq!(topo.border_router(), Some(super::super::NodeId(0)));
        let r = MultihopSim::new(cfgs[0].1.clone(), 1).unwrap();
        assert_eq!(r.dodag().hops(super::super::NodeId(2)), Some(2));
        let two_roots = text.replace("x_m = 80.0\ny_m = 0.0\n", "x_m = 80.0\ny_m = 0.0\nrole = \"border_router\"\n");
        let e = check_configs(&load(&two_roots, &[]).unwrap()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("multihop.topology.node"), "{e}");
    }
}
