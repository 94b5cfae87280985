//! Simulating scenario files into result folders (`coapcc sim`): every scenario and sweep
//! point checked before any runs, then each run on a worker pool, its CSV files written and
//! its summary table printed; a sweep's `sweep.csv` gathers every point's summary rows.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_sim::results::{result_files, summarise, summary_csv, summary_table};
use coapcc_sim::runner::{job_count, run_scenario};
use coapcc_sim::scenario::{self, Model, Scenario, Setting};
pub use coapcc_sim::sweep::{Point, Sweep, combinations};
use coapcc_sim::sweep::{sweep_csv_header_for, sweep_csv_rows_for};

use crate::error::{ReportError, run, scenario as scenario_error};
use crate::files::write_atomic;
use crate::progress::{Progress, thread_pool};

/// What to simulate and where the results go (the options of `coapcc sim`).
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    /// Scenario files.
    pub scenarios: Vec<PathBuf>,
    /// Algorithms to run instead of each scenario's list (names or `[variant.*]` names).
    pub algorithms: Vec<String>,
    /// Replications per algorithm instead of the scenario's.
    pub replications: Option<u32>,
    /// Seed instead of the scenario's.
    pub seed: Option<u64>,
    /// Overrides of scenario keys, applied first.
    pub set: Vec<Setting>,
    /// Output folder (default `results/<scenario name>/`; with several scenarios, one
    /// sub-folder per scenario name below it).
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    pub jobs: Option<usize>,
    /// Keys swept over values: every combination runs into its own sub-folder.
    pub sweep: Vec<Sweep>,
    /// Also write `samples.csv` (network models).
    pub samples: bool,
    /// Also write `pcap/<algorithm>.pcap` of replication 0 (network models).
    pub pcap: bool,
}

impl SimOptions {
    /// The overrides, in the order they apply: `set`, `replications`, `seed`, `algorithms`
    /// (then a sweep point's).
    pub fn settings(&self) -> Vec<Setting> {
        let mut out = self.set.clone();
        out.extend(self.replications.map(Setting::replications));
        out.extend(self.seed.map(Setting::seed));
        if !self.algorithms.is_empty() {
            out.push(Setting::algorithms(self.algorithms.iter().cloned()));
        }
        out
    }

    /// The folder the results of scenario `name` go to.
    pub fn out_dir(&self, name: &str) -> PathBuf {
        match &self.out {
            Some(d) if self.scenarios.len() > 1 => d.join(name),
            Some(d) => d.clone(),
            None => Path::new("results").join(name),
        }
    }
}

/// Checks multihop scenario `s` loaded from `path` (every algorithm's configuration built
/// once); the error names the file and the dotted key.
pub fn check_multihop(path: &Path, s: &Scenario) -> Result<(), ReportError> {
    coapcc_sim::multihop::scenario::configs(s).map(|_| ()).map_err(|mut e| {
        e.file = path.display().to_string();
        scenario_error(e)
    })
}

/// Runs every scenario of `opts` (each sweep point of each), writing result files and
/// printing each summary table to `out`. Everything is loaded and checked first, so a typo
/// in the last scenario costs nothing; a scenario the memory budget refuses is bad input,
/// and a long one is announced through `progress`.
pub fn run_sim(opts: &SimOptions, out: &mut dyn Write, progress: &dyn Progress) -> Result<(), ReportError> {
    if opts.scenarios.is_empty() {
        return Err(ReportError::Options("no scenario file given (see scenarios/)".into()));
    }
    let set = opts.settings();
    let points = combinations(&opts.sweep);
    let mut loaded: Vec<(Point, Scenario)> = Vec::new();
    for p in &opts.scenarios {
        for point in &points {
            let all: Vec<Setting> = set.iter().chain(point.settings.iter().map(|(_, s)| s)).cloned().collect();
            let s = scenario::load(p, &all).map_err(scenario_error)?;
            if let Model::Multihop(_) = s.model {
                check_multihop(p, &s)?;
            }
            coapcc_sim::runner::check(&s).map_err(scenario_error)?;
            // Refused before anything is allocated for it; a long run says so first.
            let threads = opts.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            match coapcc_sim::budget::admit(&s, threads, coapcc_sim::budget::available_bytes()) {
                Err(e) => return Err(scenario_error(e)),
                Ok(Some(notice)) => progress.note(&notice),
                Ok(None) => {}
            }
            loaded.push((point.clone(), s));
        }
    }
    let pool = thread_pool(opts.jobs)?;
    // sweep.csv per output folder: every point's summary rows, the swept values first.
    let mut sweep_csv: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (point, s) in &loaded {
        progress.begin(job_count(s) as u64);
        progress.working_on(&s.file.name);
        let base = opts.out_dir(&s.file.name);
        let dir = if point.is_empty() { base.clone() } else { base.join(point.label()) };
        let label = if point.is_empty() { String::new() } else { format!(" [{}]", point.label()) };
        let (summary_text, table) = if let Model::Multihop(_) = s.model {
            if opts.pcap {
                return Err(ReportError::Options(format!(
                    "{}: --pcap writes the datagrams of NB-IoT-like and residual-bandwidth scenarios; a multihop scenario has none to write yet",
                    s.file.name
                )));
            }
            pool.install(|| run_multihop_to(s, &dir, &|| progress.finished_one()))?
        } else {
            pool.install(|| run_network_or_trace_to(s, &dir, opts.samples, &|| progress.finished_one()))?
        };
        progress.end();
        writeln!(out, "== {}{label} (seed {}, {} replications)", s.file.name, s.file.seed, s.file.replications)?;
        out.write_all(table.as_bytes())?;
        writeln!(out, "results: {}", dir.display())?;
        if opts.pcap {
            for f in crate::pcap::write_captures(s, &dir)? {
                writeln!(out, "pcap: {}", f.display())?;
            }
        }
        if !point.is_empty() {
            let text = sweep_csv.entry(base.clone()).or_insert_with(|| sweep_csv_header_for(point, &summary_text));
            text.push_str(&sweep_csv_rows_for(point, &summary_text));
            // Rewritten after every point: an interrupted sweep keeps the points it finished.
            write_atomic(&base.join("sweep.csv"), text.as_bytes())?;
        }
    }
    Ok(())
}

/// Runs network or RTT-trace scenario `s` on the current rayon pool and writes its result
/// files into `dir` (`samples.csv` too when `samples`). Returns (summary.csv text, the
/// summary table).
pub fn run_network_or_trace_to(
    s: &Scenario,
    dir: &Path,
    samples: bool,
    progress: &(dyn Fn() + Sync),
) -> Result<(String, String), ReportError> {
    let results = run_scenario(s, progress).map_err(run)?;
    let summaries = summarise(&results);
    let trace = matches!(s.model, Model::Trace(_));
    for (name, text) in result_files(s, &results, &summaries, samples) {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    Ok((summary_csv(&summaries), summary_table(&summaries, trace)))
}

/// Runs multihop scenario `s` on the current rayon pool and writes `runs.csv`, `flows.csv`,
/// `nodes.csv`, `summary.csv` and `scenario.toml` into `dir`. Returns (summary.csv text, the
/// summary table).
pub fn run_multihop_to(
    s: &Scenario,
    dir: &Path,
    progress: &(dyn Fn() + Sync),
) -> Result<(String, String), ReportError> {
    use coapcc_sim::multihop::{output, scenario as mh};
    let cfgs = mh::configs(s).map_err(scenario_error)?;
    let runs = mh::run(s, progress).map_err(run)?;
    let summary = output::summarise(&cfgs, &runs);
    let tcp = runs.iter().flat_map(|a| &a.runs).any(|r| r.tcp.is_some());
    // The same files, from the same code, as the Python package's `SimResult.save`.
    let mut summary_csv = String::new();
    for (name, text) in output::result_files(s, &cfgs, &runs, &summary) {
        write_atomic(&dir.join(name), text.as_bytes())?;
        if name == "summary.csv" {
            summary_csv = text;
        }
    }
    Ok((summary_csv, output::summary_table(&summary, tcp)))
}
