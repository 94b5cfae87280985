//! `coapcc testbed`: a scenario in real time on loopback ([`coapcc_report::realtime`] for
//! what runs and the result files, `coapcc-udp`'s testbed for each replication).

use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_driver::metrics::RunResult;
use coapcc_driver::scenario::Setting;
use coapcc_report::check_writable;
use coapcc_report::pcap_file_stem as file_stem;
use coapcc_report::realtime::{self, Replication, Testbed};
use coapcc_report::{RunRecord, command_line};
use coapcc_udp::emulator::{Direction, DirectionReport};
use coapcc_udp::testbed::{RunSpec, TestbedRun, run_replication};

use crate::error::CliError;

/// Arguments of `coapcc testbed`.
#[derive(Clone, Debug, clap::Args)]
pub struct TestbedArgs {
    /// Scenario file or built-in scenario name (as `coapcc sim` takes; a network model).
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

/// `coapcc-udp`'s loopback testbed as a [`Testbed`]: each replication in real time on one
/// current-thread runtime; `pcap_dir` receives `<algorithm>-<replication>.pcap` files when
/// given; `finished` is told about each finished replication.
pub fn loopback<'a>(
    pcap_dir: Option<&'a Path>,
    mut finished: impl FnMut(&Replication<'_>, &TestbedRun) + 'a,
) -> Result<impl Testbed + 'a, CliError> {
    if let Some(d) = pcap_dir {
        std::fs::create_dir_all(d)?;
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    Ok(move |r: &Replication<'_>| -> Result<RunResult, Box<dyn Error + Send + Sync>> {
        let spec = RunSpec {
            network: r.network.clone(),
            workload: *r.workload,
            coap: r.coap.clone(),
            algorithm: *r.algorithm,
            seed: r.seed,
            replication: r.replication,
            pcap: pcap_dir.map(|d| d.join(format!("{}-{}.pcap", file_stem(r.algorithm_name), r.replication))),
        };
        let run = rt.block_on(run_replication(&spec))?;
        finished(r, &run);
        Ok(run.result)
    })
}

/// The line of one replication: its wall time and the emulator's send-timing error.
pub fn timing_line(name: &str, r: u32, run: &TestbedRun) -> String {
    let q = |d: &DirectionReport, p: f64| d.timing.quantile(p).map_or(f64::NAN, |x| x.as_secs_f64() * 1e6);
    let (up, down) = (run.emulator.direction(Direction::Uplink), run.emulator.direction(Direction::Downlink));
    format!(
        "{name} r{r}: {:.1} s wall; emulator timing error p50/p99 µs: uplink {:.0}/{:.0}, downlink {:.0}/{:.0}",
        run.wall.as_secs_f64(),
        q(up, 0.5),
        q(up, 0.99),
        q(down, 0.5),
        q(down, 0.99)
    )
}

/// Runs `coapcc testbed`.
pub fn run(args: &TestbedArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let mut set = args.set.clone();
    set.extend(args.replications.map(Setting::replications));
    set.extend(args.seed.map(Setting::seed));
    if !args.algorithms.is_empty() {
        set.push(Setting::algorithms(args.algorithms.iter().cloned()));
    }
    let s = realtime::load(&args.scenario, &set)?;
    // The output folders are writable before anything runs, as for `coapcc sim`; a run that
    // then fails leaves none of the folders the check created (if still empty).
    let dir = args.out.clone().unwrap_or_else(|| Path::new("results").join("testbed").join(&s.file.name));
    let mut created = check_writable(&dir)?;
    let pcap_dir = args.pcap.then(|| dir.join("pcap"));
    if let Some(d) = &pcap_dir {
        created.extend(check_writable(d)?);
    }
    let estimate = realtime::admit(&s, args.max_wall_s)?;
    if !args.quiet {
        eprintln!("testbed: {} — about {:.0} s of real time", s.file.name, estimate);
    }
    let mut timing: Vec<String> = Vec::new();
    let results = {
        let mut tb = loopback(pcap_dir.as_deref(), |r, run| {
            let line = timing_line(r.algorithm_name, r.replication, run);
            if !args.quiet {
                eprintln!("testbed: {line}");
            }
            timing.push(line);
        })?;
        realtime::run_all(&s, &mut tb)?
    };
    realtime::report(&dir, &s, &results, &timing, out)?;
    coapcc_report::write_run_json(&dir, &RunRecord::now(command_line()).with_seed(s.file.seed))?;
    created.keep();
    Ok(())
}
