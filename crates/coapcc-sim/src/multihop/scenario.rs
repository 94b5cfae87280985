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

use super::MultihopConfig;
use super::MultihopSim;
use super::metrics::MultihopResult;

pub use coapcc_driver::scenario::multihop::{MultihopModel, PRESET_KEYS};

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

/// One configuration per algorithm of `s`, in the scenario's order ([`MultihopModel::configs`]),
/// each built once by the engine, so that what only a built run knows (a node id outside the
/// topology, a frame that needs fragmentation) is found before any run; the error names the
/// scenario and the dotted key.
pub fn configs(s: &Scenario) -> Result<Vec<(String, MultihopConfig)>, ScenarioError> {
    let m = model(s)?;
    for (name, cfg) in &m.configs {
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
    Ok(m.configs.clone())
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
    fn what_only_a_built_run_knows_is_found_before_any_run_and_names_the_key() {
        let s = load(LINE, &["multihop.workload.receiver=9"]).unwrap();
        assert!(configs(&s).unwrap_err().key.unwrap().starts_with("multihop.workload"));
        // OQ-M9: an 80-B CoAP message over two hops needs fragmentation.
        let s = load(LINE, &["multihop.makarem_coap_len=80"]).unwrap();
        assert_eq!(configs(&s).unwrap_err().key.as_deref(), Some("multihop.makarem_coap_len"));
        assert!(
            configs(&load(LINE, &["multihop.makarem_coap_len=80", "multihop.fragmentation=true"]).unwrap()).is_ok()
        );
        // OQ-M14: the server's delayed ACK stays below 500 ms (RFC 1122 §4.2.3.2).
        let tcp = LINE
            .replace(
                "kind = \"coap_saturated\"\nwindow_start_ms = 0\nsenders = [2]\nreceiver = 0\n",
                "kind = \"lim_tcp\"\n",
            )
            .replace("algorithms = [\"default\", \"cocoa\"]", "algorithms = [\"uip\"]");
        let s = load(&tcp, &["multihop.workload.server_delayed_ack_ms=500"]).unwrap();
        assert_eq!(configs(&s).unwrap_err().key.as_deref(), Some("multihop.workload.server_delayed_ack_ms"));
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
