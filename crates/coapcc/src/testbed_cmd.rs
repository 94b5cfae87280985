//! `coapcc testbed`: a scenario file run in real time on loopback ([`coapcc_udp::testbed`]),
//! written as `coapcc sim` writes its results (`flows.csv`, `runs.csv`, `summary.csv`,
//! `scenario.toml`, by the same writers).

use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_sim::engine::run_network;
use coapcc_sim::results::{flows_csv, runs_csv, summarise, summary_csv, summary_table};
use coapcc_sim::runner::{AlgorithmRuns, RunOutput};
use coapcc_sim::scenario::{self, Model, Scenario, Setting};
use coapcc_udp::testbed::{RunSpec, TestbedRun, run_replication};

use crate::error::CliError;
use crate::files::write_atomic;

/// The largest number of flows the testbed runs (one socket each, plus one per client at
/// the emulator).
pub const MAX_FLOWS: u32 = 500;

/// Arguments of `coapcc testbed`.
#[derive(Clone, Debug, clap::Args)]
pub struct TestbedArgs {
    /// Scenario file (the same as `coapcc sim` takes; a network model).
    pub scenario: PathBuf,
    /// Run this algorithm instead of the scenario's list (repeatable).
    #[arg(long = "algorithm", short = 'a')]
    pub algorithms: Vec<String>,
    /// Replications per algorithm instead of the scenario's.
    #[arg(long)]
    pub replications: Option<u32>,
    /// Seed instead of the scenario's.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override a scenario key (repeatable), as for `coapcc sim`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Setting>,
    /// Output folder (default `results/testbed/<scenario name>/`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write pcap/ALGORITHM-REPLICATION.pcap: both sides of the emulator.
    #[arg(long)]
    pub pcap: bool,
    /// Refuse a scenario whose estimated real time exceeds this many seconds.
    #[arg(long, default_value_t = 600)]
    pub max_wall_s: u64,
    /// No per-replication progress lines on standard error.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Loads the scenario with the command's overrides; it must be a network model.
pub fn load(args: &TestbedArgs) -> Result<Scenario, CliError> {
    let mut set = args.set.clone();
    set.extend(args.replications.map(Setting::replications));
    set.extend(args.seed.map(Setting::seed));
    if !args.algorithms.is_empty() {
        set.push(Setting::algorithms(args.algorithms.iter().cloned()));
    }
    let s = scenario::load(&args.scenario, &set).map_err(|e| CliError::usage(e.to_string()))?;
    match &s.model {
        Model::Network { workload, .. } if workload.flows > MAX_FLOWS => Err(CliError::usage(format!(
            "{}: key `workload.flows`: {} flows is more than the testbed runs ({MAX_FLOWS}); use `coapcc sim`",
            s.file.name, workload.flows
        ))),
        Model::Network { .. } => Ok(s),
        Model::Trace(_) => Err(CliError::usage(format!(
            "{}: key `trace`: an RTT-trace scenario has no packets to send; the testbed runs network scenarios",
            s.file.name
        ))),
        Model::Multihop(_) => Err(CliError::usage(format!(
            "{}: key `multihop`: a multihop mesh is not emulated on loopback; the testbed runs network scenarios (use `coapcc sim`)",
            s.file.name
        ))),
    }
}

/// The real time the scenario would take, seconds: replication 0 of each algorithm simulated
/// (its duration from the first start, plus the start window), times the replications.
pub fn estimate_s(s: &Scenario) -> Result<f64, CliError> {
    let Model::Network { network, workload } = &s.model else { return Ok(0.0) };
    let mut total = 0.0;
    for (_, config) in &s.algorithms {
        let r = run_network(network, *workload, &s.file.coap, config, s.file.seed, 0)
            .map_err(|e| CliError::Failure(e.to_string()))?;
        let one = r.run.duration_s + workload.start_window.as_secs_f64() + 0.5;
        total += one * f64::from(s.file.replications);
    }
    Ok(total)
}

/// The folder results go to.
pub fn out_dir(args: &TestbedArgs, s: &Scenario) -> PathBuf {
    args.out.clone().unwrap_or_else(|| Path::new("results").join("testbed").join(&s.file.name))
}

/// Runs every (algorithm, replication) of `s` in real time, one after the other; `pcap_dir`
/// receives `<algorithm>-<replication>.pcap` files when given. `progress` is told about each
/// finished replication.
pub fn run_all(
    s: &Scenario,
    pcap_dir: Option<&Path>,
    progress: &mut dyn FnMut(&str, u32, &TestbedRun),
) -> Result<Vec<AlgorithmRuns>, CliError> {
    let Model::Network { network, workload } = &s.model else { return Ok(Vec::new()) };
    if let Some(d) = pcap_dir {
        std::fs::create_dir_all(d)?;
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut all = Vec::new();
    for (name, config) in &s.algorithms {
        let mut runs = Vec::new();
        for r in 0..s.file.replications {
            let spec = RunSpec {
                network: network.clone(),
                workload: *workload,
                coap: s.file.coap.clone(),
                algorithm: *config,
                seed: s.file.seed,
                replication: r,
                pcap: pcap_dir.map(|d| d.join(format!("{}-{r}.pcap", crate::sim_pcap::file_stem(name)))),
            };
            let run = rt
                .block_on(run_replication(&spec))
                .map_err(|e| CliError::Failure(format!("{name}, replication {r}: {e}")))?;
            progress(name, r, &run);
            runs.push(RunOutput::Network(Box::new(run.result)));
        }
        all.push(AlgorithmRuns { algorithm: name.clone(), runs });
    }
    Ok(all)
}

/// Runs `coapcc testbed`.
pub fn run(args: &TestbedArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let s = load(args)?;
    let estimate = estimate_s(&s)?;
    if estimate > args.max_wall_s as f64 {
        return Err(CliError::usage(format!(
            "{}: would take about {:.0} s ({:.1} min) of real time, more than --max-wall-s {}; lower `replications`, `flows` or `exchanges_per_flow`, or raise the limit",
            s.file.name,
            estimate,
            estimate / 60.0,
            args.max_wall_s
        )));
    }
    if !args.quiet {
        eprintln!("testbed: {} — about {:.0} s of real time", s.file.name, estimate);
    }
    let dir = out_dir(args, &s);
    let pcap_dir = args.pcap.then(|| dir.join("pcap"));
    let quiet = args.quiet;
    let mut timing: Vec<(String, u32, String)> = Vec::new();
    let results = run_all(&s, pcap_dir.as_deref(), &mut |name, r, run| {
        let up = run.emulator.direction(coapcc_udp::emulator::Direction::Uplink);
        let down = run.emulator.direction(coapcc_udp::emulator::Direction::Downlink);
        let q = |d: &coapcc_udp::emulator::DirectionReport, p: f64| {
            d.timing.quantile(p).map_or(f64::NAN, |x| x.as_secs_f64() * 1e6)
        };
        let line = format!(
            "{name} r{r}: {:.1} s wall; emulator timing error p50/p99 µs: uplink {:.0}/{:.0}, downlink {:.0}/{:.0}",
            run.wall.as_secs_f64(),
            q(up, 0.5),
            q(up, 0.99),
            q(down, 0.5),
            q(down, 0.99)
        );
        if !quiet {
            eprintln!("testbed: {line}");
        }
        timing.push((name.to_string(), r, line));
    })?;
    let summaries = summarise(&results);
    write_atomic(&dir.join("flows.csv"), flows_csv(&results).as_bytes())?;
    write_atomic(&dir.join("runs.csv"), runs_csv(&results).as_bytes())?;
    write_atomic(&dir.join("summary.csv"), summary_csv(&summaries).as_bytes())?;
    write_atomic(&dir.join("scenario.toml"), s.to_toml().as_bytes())?;
    let timing_text: String = timing.iter().map(|(_, _, l)| format!("{l}\n")).collect();
    write_atomic(&dir.join("emulator-timing.txt"), timing_text.as_bytes())?;
    writeln!(
        out,
        "== {} on the loopback testbed (seed {}, {} replications)",
        s.file.name, s.file.seed, s.file.replications
    )?;
    out.write_all(summary_table(&summaries, false).as_bytes())?;
    writeln!(out, "results: {}", dir.display())?;
    Ok(())
}
