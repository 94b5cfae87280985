//! `coapcc bench`: measures the simulator on the reference case and reports the numbers the
//! README quotes. Wall-clock time is read here, and only here, for measurement; it never
//! influences results.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use coapcc_sim::runner::{RunOutput, job_count, run_scenario};
use coapcc_sim::scenario::{self, Setting};

use crate::error::CliError;

/// What to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Case {
    /// `fasor/400-flows-infinite-buffer-continuous` with `default`, one core.
    Reference,
    /// Every FASOR scenario with its published replications, all cores.
    Matrix,
    /// One residual-bandwidth sender for `--hours` simulated hours (memory over long runs).
    Long,
    /// Real CoAP on loopback: fuzzing throughput, exchanges per second and CPU per exchange
    /// (see [`crate::udp_bench`]).
    Udp,
    /// `lim/e2-contikimac-5x5` (Lim's 5 × 5 ContikiMAC grid, 10 min of data) with `uip`, one
    /// core: the multihop model next to the reference case.
    Multihop,
}

/// Peak resident set size of this process, bytes (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn load(root: &Path, rel: &str, sets: &[String]) -> Result<scenario::Scenario, CliError> {
    let sets: Vec<Setting> = sets
        .iter()
        .map(|s| s.parse::<Setting>().map_err(|e| CliError::usage(e.to_string())))
        .collect::<Result<_, _>>()?;
    let s = scenario::load(&root.join(rel), &sets).map_err(|e| CliError::usage(e.to_string()))?;
    coapcc_sim::budget::admit(&s, 1, coapcc_sim::budget::available_bytes()).map_err(CliError::usage)?;
    Ok(s)
}

/// Median, minimum and maximum of `xs` (not empty).
fn spread(xs: &[f64]) -> (f64, f64, f64) {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
    (median, v[0], v[n - 1])
}

/// A one-thread pool whose thread is pinned to the last core, when the system allows it:
/// "events per second on one core" is measured on one core, not on a thread the scheduler
/// moves between cores (on a 2-core VM that alone changes the result by a third).
fn one_core_pool() -> Result<(rayon::ThreadPool, bool), CliError> {
    let core = core_affinity::get_core_ids().and_then(|ids| ids.last().copied());
    let pinned = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&pinned);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .start_handler(move |_| {
            if let Some(c) = core {
                flag.store(core_affinity::set_for_current(c), std::sync::atomic::Ordering::SeqCst);
            }
        })
        .build()
        .map_err(|e| CliError::Failure(e.to_string()))?;
    // The start handler has run once the pool has done any work.
    pool.install(|| {});
    Ok((pool, pinned.load(std::sync::atomic::Ordering::SeqCst)))
}

/// Arguments of `coapcc bench`.
#[derive(Clone, Debug, clap::Args)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(long, value_enum, default_value = "reference")]
    pub case: Case,
    /// Replications of the reference case (per repetition).
    #[arg(long, default_value_t = 10)]
    pub replications: u32,
    /// Simulated hours of the long case.
    #[arg(long, default_value_t = 5)]
    pub hours: u32,
    /// How many times to run the reference case (reported as median, min and max).
    #[arg(long, default_value_t = 5)]
    pub repeat: u32,
    /// Folder of the scenario files.
    #[arg(long, default_value = "scenarios")]
    pub scenarios: PathBuf,
}

/// Runs the benchmark `args.case` with scenarios from `args.scenarios`; the reference case is
/// run `args.repeat` times and reported as median (min–max). Counts of 0 count as 1.
pub fn run(args: &BenchArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let (root, replications, hours, repeat) =
        (args.scenarios.as_path(), args.replications.max(1), args.hours.max(1), args.repeat.max(1));
    match args.case {
        Case::Udp => crate::udp_bench::run(out)?,
        Case::Reference => {
            let s = load(
                root,
                "fasor/400-flows-infinite-buffer-continuous.toml",
                &[format!("replications={replications}"), "algorithms=[\"default\"]".into()],
            )?;
            one_core_rates(out, &s.file.name, "default", replications, repeat, || {
                let runs = run_scenario(&s, &|| {}).map_err(CliError::Failure)?;
                let (mut events, mut sim_s) = (0u64, 0.0f64);
                for r in &runs[0].runs {
                    if let RunOutput::Network(n) = r {
                        events += n.run.events;
                        sim_s += n.run.sim_time_s;
                    }
                }
                Ok((events, sim_s))
            })?;
        }
        Case::Matrix => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("fasor"))
                .map_err(|e| CliError::usage(format!("cannot read {}/fasor: {e}", root.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            files.sort();
            let mut runs = 0usize;
            let t0 = Instant::now();
            for f in &files {
                let s = scenario::load(f, &[]).map_err(|e| CliError::usage(e.to_string()))?;
                runs += job_count(&s);
                run_scenario(&s, &|| {}).map_err(CliError::Failure)?;
            }
            let wall = t0.elapsed().as_secs_f64();
            writeln!(
                out,
                "case: the FASOR matrix, {} scenarios, {runs} runs (algorithm × replication), {} threads",
                files.len(),
                rayon::current_num_threads()
            )?;
            writeln!(out, "wall time:                 {wall:.2} s")?;
            if let Some(rss) = peak_rss_bytes() {
                writeln!(out, "peak RSS:                  {:.1} MiB", rss as f64 / 1048576.0)?;
            }
        }
        Case::Multihop => {
            let s = load(
                root,
                "lim/e2-contikimac-5x5.toml",
                &[format!("replications={replications}"), "algorithms=[\"uip\"]".into()],
            )?;
            one_core_rates(out, &s.file.name, "uip", replications, repeat, || {
                let runs = coapcc_sim::multihop::scenario::run(&s, &|| {}).map_err(CliError::Failure)?;
                let events = runs[0].runs.iter().map(|r| r.events).sum();
                let sim_s = runs[0].runs.iter().map(|r| r.end_ns as f64 / 1e9).sum();
                Ok((events, sim_s))
            })?;
        }
        Case::Long => {
            let s = load(
                root,
                "makarem/residual-high-variability.toml",
                &[
                    "replications=1".into(),
                    "algorithms=[\"idc\"]".into(),
                    format!("duration_ms={}", u64::from(hours) * 3_600_000),
                ],
            )?;
            let t0 = Instant::now();
            let runs = run_scenario(&s, &|| {}).map_err(CliError::Failure)?;
            let wall = t0.elapsed().as_secs_f64();
            let (events, points, rtts) = match &runs[0].runs[0] {
                RunOutput::Network(n) => (n.run.events, n.series.len(), n.rtts().len()),
                RunOutput::Trace(_) => (0, 0, 0),
            };
            writeln!(out, "case: one IDC sender on residual bandwidth for {hours} simulated hours")?;
            writeln!(out, "wall time:                 {wall:.3} s, {events} events, {rtts} RTT samples")?;
            // The requested output grows with simulated time: one point per 5-s window for
            // series.csv (built, then converted: ~56 B per point at the peak).
            writeln!(out, "time series (output):      {points} points, {:.1} MiB", (points * 56) as f64 / 1048576.0)?;
            if let Some(rss) = peak_rss_bytes() {
                writeln!(out, "peak RSS:                  {:.1} MiB", rss as f64 / 1048576.0)?;
            }
        }
    }
    Ok(())
}

/// Runs `once` (one scenario run: its events and simulated seconds) `repeat` times on one core
/// and prints events per second, simulated seconds per wall second, wall time per replication
/// (median, min–max) and the peak RSS.
fn one_core_rates(
    out: &mut dyn Write,
    name: &str,
    algorithm: &str,
    replications: u32,
    repeat: u32,
    once: impl Fn() -> Result<(u64, f64), CliError> + Send + Sync,
) -> Result<(), CliError> {
    let (pool, pinned) = one_core_pool()?;
    let (mut rates, mut walls, mut sim_rates) = (Vec::new(), Vec::new(), Vec::new());
    let (mut events, mut sim_s) = (0u64, 0.0f64);
    for _ in 0..repeat {
        let t0 = Instant::now();
        (events, sim_s) = pool.install(&once)?;
        let wall = t0.elapsed().as_secs_f64();
        rates.push(events as f64 / wall / 1e6);
        walls.push(wall / f64::from(replications));
        sim_rates.push(sim_s / wall);
    }
    let core = if pinned { "1 core (thread pinned)" } else { "1 thread (could not pin it to a core)" };
    writeln!(
        out,
        "case: {name} with {algorithm}, {replications} replications on {core}, run {repeat} times; median (min–max)"
    )?;
    let (m, lo, hi) = spread(&rates);
    writeln!(out, "events per second:         {m:.2} million ({lo:.2}–{hi:.2}); {events} events per run")?;
    let (m, lo, hi) = spread(&sim_rates);
    writeln!(out, "simulated s per wall s:    {m:.0} ({lo:.0}–{hi:.0}); {sim_s:.0} simulated seconds per run")?;
    let (m, lo, hi) = spread(&walls);
    writeln!(out, "wall time per replication: {m:.4} s ({lo:.4}–{hi:.4})")?;
    if let Some(rss) = peak_rss_bytes() {
        writeln!(out, "peak RSS:                  {:.1} MiB", rss as f64 / 1048576.0)?;
    }
    Ok(())
}
