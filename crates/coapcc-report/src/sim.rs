//! Simulating scenario files into result folders (`coapcc sim`): every scenario and sweep
//! point checked before any runs, then each run on a worker pool, its CSV files written and
//! its summary table printed; a sweep's `sweep.csv` gathers every point's summary rows.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_driver::scenario::{self, Model, Scenario, ScenarioError, Setting};
use coapcc_sim::results::{Summary, result_files, summarise, summary_table};
use coapcc_sim::sweep::store::{self, Piece};
use coapcc_sim::sweep::{Point, Sweep, combinations};
use coapcc_sim::sweep::{sweep_csv_header, sweep_csv_rows};
use coapcc_sim::{AlgorithmRuns, job_count, run_scenario, run_scenario_streaming};

use crate::error::ReportError;
use crate::files::{CreatedFolders, check_writable, write_atomic};
use crate::progress::{Progress, thread_pool};
use crate::run_record::{RunRecord, write_run_json};
use crate::series::StreamedSeries;

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
    /// What started the run: written as `run.json` (with the scenario's seed) into every
    /// result folder, and a sweep's folder (none: no `run.json`).
    pub run: Option<RunRecord>,
    /// Run every sweep point again, even one whose finished piece is in its folder.
    pub force: bool,
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

/// Checks what only the simulator knows of scenario `s` loaded from `path`
/// ([`coapcc_sim::check`]); the error names the file (a multihop scenario's by its
/// path, as its other errors) and the key.
pub fn check(path: &Path, s: &Scenario) -> Result<(), ScenarioError> {
    coapcc_sim::check(s).map_err(|mut e| {
        if let Model::Multihop(_) = s.model {
            e.file = path.display().to_string();
        }
        e
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
    // Two sweeps of one key would run the last one's values under the first one's labels.
    for (i, sweep) in opts.sweep.iter().enumerate() {
        if opts.sweep[..i].iter().any(|s| s.key == sweep.key) {
            return Err(ReportError::Options(format!(
                "--sweep: key `{}` is swept twice; give all its values in one --sweep ({}=V1,V2,…)",
                sweep.key, sweep.key
            )));
        }
    }
    let set = opts.settings();
    let points = combinations(&opts.sweep);
    let mut loaded: Vec<(Point, Scenario)> = Vec::new();
    for p in &opts.scenarios {
        for point in &points {
            let all: Vec<Setting> = set.iter().chain(point.settings.iter().map(|(_, s)| s)).cloned().collect();
            let s = scenario::load(p, &all)?;
            check(p, &s)?;
            // Refused before anything is allocated for it; a long run says so first.
            let threads = opts.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            if let Some(notice) = coapcc_sim::budget::admit(&s, threads, coapcc_sim::budget::available_bytes())? {
                progress.note(&notice);
            }
            loaded.push((point.clone(), s));
        }
    }
    // Every output folder is writable before anything runs: a bad `--out` costs nothing.
    // A run that then fails leaves none of the folders the check created (if still empty).
    let mut bases: Vec<PathBuf> = loaded.iter().map(|(_, s)| opts.out_dir(&s.file.name)).collect();
    bases.dedup();
    let mut created = CreatedFolders::default();
    for base in &bases {
        created.extend(check_writable(base)?);
    }
    // Scenarios run one after another, each on the whole pool: no more threads than the widest has runs.
    let widest = loaded.iter().map(|(_, s)| job_count(s)).max().unwrap_or(1);
    let pool = thread_pool(opts.jobs, widest)?;
    // sweep.csv per output folder: every point's summary rows, the swept values first.
    let mut sweep_csv: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut kept = 0;
    for (point, s) in &loaded {
        progress.begin(job_count(s) as u64);
        progress.working_on(&s.file.name);
        let base = opts.out_dir(&s.file.name);
        let dir = if point.is_empty() { base.clone() } else { base.join(point.label()) };
        let label = if point.is_empty() { String::new() } else { format!(" [{}]", point.label()) };
        if let (Model::Multihop(_), true) = (&s.model, opts.pcap) {
            return Err(ReportError::Options(format!(
                "{}: --pcap writes the datagrams of NB-IoT-like and residual-bandwidth scenarios; a multihop scenario has none to write yet",
                s.file.name
            )));
        }
        if let (Model::Tcp(_), true) = (&s.model, opts.pcap) {
            return Err(ReportError::Options(format!(
                "{}: --pcap writes CoAP-over-UDP datagrams; a [tcp] scenario's segments are not captured yet",
                s.file.name
            )));
        }
        let one = || progress.finished_one();
        let summaries = if point.is_empty() {
            pool.install(|| run_to(s, &dir, opts.samples, &one))?
        } else {
            // A sweep point keeps its piece: an interrupted sweep continues where it stopped.
            let (summaries, was_kept) = pool.install(|| run_or_keep(s, &dir, opts.samples, opts.force, &one))?;
            kept += usize::from(was_kept);
            summaries
        };
        if let Some(r) = &opts.run {
            write_run_json(&dir, &r.with_seed(s.file.seed))?;
            if !point.is_empty() {
                // A sweep's folder: the seed when every point has the same.
                let seeds =
                    || loaded.iter().filter(|(_, o)| opts.out_dir(&o.file.name) == base).map(|(_, o)| o.file.seed);
                let same = seeds().all(|x| x == s.file.seed);
                write_run_json(&base, &if same { r.with_seed(s.file.seed) } else { r.clone() })?;
            }
        }
        progress.end();
        writeln!(out, "== {}{label} (seed {}, {} replications)", s.file.name, s.file.seed, s.file.replications)?;
        out.write_all(summary_table(&summaries).as_bytes())?;
        writeln!(out, "results: {}", dir.display())?;
        if opts.pcap {
            for f in crate::pcap::write_captures(s, &dir)? {
                writeln!(out, "pcap: {}", f.display())?;
            }
        }
        if !point.is_empty() {
            let text = sweep_csv.entry(base.clone()).or_insert_with(|| sweep_csv_header(point, &summaries));
            text.push_str(&sweep_csv_rows(point, &summaries));
            // Rewritten after every point: an interrupted sweep keeps the points it finished.
            write_atomic(&base.join("sweep.csv"), text.as_bytes())?;
        }
    }
    if kept > 0 {
        progress.note(&format!(
            "kept {kept} sweep point(s) finished by an earlier run of the same scenario and coapcc version (--force runs them again)"
        ));
    }
    created.keep();
    Ok(())
}

/// [`run_to`] for a piece of a longer run (a sweep point): unless `force`, a piece in `dir`
/// of the same scenario and coapcc version ([`store`]) is taken instead of running, and its
/// result files are written again from it (the same bytes); a run's piece is written after
/// its result files. Returns the summaries and whether the piece was kept.
pub fn run_or_keep(
    s: &Scenario,
    dir: &Path,
    samples: bool,
    force: bool,
    progress: &(dyn Fn() + Sync),
) -> Result<(Vec<Summary>, bool), ReportError> {
    if let Some(piece) = kept_piece(s, dir, force) {
        (0..job_count(s)).for_each(|_| progress());
        return Ok((write_results(s, &piece.algorithm_runs(), dir, samples)?, true));
    }
    let runs = run_scenario(s, progress)?;
    let summaries = write_results(s, &runs, dir, samples)?;
    write_piece(s, dir, &Piece::new(&runs, Vec::new()))?;
    Ok((summaries, false))
}

/// The piece in `dir` of scenario `s` (same key), unless `force`; None when there is none,
/// it is another scenario's or another version's, or it does not read whole.
pub(crate) fn kept_piece(s: &Scenario, dir: &Path, force: bool) -> Option<Piece> {
    if force {
        return None;
    }
    std::fs::read(dir.join(store::FILE_NAME)).ok().and_then(|bytes| store::decode(s, &bytes))
}

/// Writes the piece of `s` into `dir`, atomically (after the files it stands for).
pub(crate) fn write_piece(s: &Scenario, dir: &Path, piece: &Piece) -> Result<(), ReportError> {
    write_atomic(&dir.join(store::FILE_NAME), &store::encode(s, piece))
}

/// Runs scenario `s` (of any model) on the current rayon pool and writes its result files into
/// `dir` (`samples.csv` too when `samples`, for a network scenario): the same files, from the
/// same code, as the Python package's `save`. Returns the summaries.
///
/// A network scenario's time series is written to `series.csv` while the runs go
/// ([`StreamedSeries`]), not kept until they end, so that a long run's memory does not grow
/// with its length; the bytes are those written from a kept series.
pub fn run_to(
    s: &Scenario,
    dir: &Path,
    samples: bool,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<Summary>, ReportError> {
    if let Model::Network { .. } = s.model {
        let series = StreamedSeries::new(dir, s.algorithm_names())?;
        let runs = run_scenario_streaming(s, progress, &|| false, &|a, r| series.sink(a, r))?;
        let summaries = write_results(s, &runs, dir, samples)?;
        series.finish(&dir.join("series.csv"))?;
        return Ok(summaries);
    }
    write_results(s, &run_scenario(s, progress)?, dir, samples)
}

/// Writes the result files of `runs` of scenario `s` into `dir`; returns the summaries.
fn write_results(s: &Scenario, runs: &[AlgorithmRuns], dir: &Path, samples: bool) -> Result<Vec<Summary>, ReportError> {
    let summaries = summarise(s, runs);
    for (name, text) in result_files(s, runs, &summaries, samples) {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    Ok(summaries)
}
