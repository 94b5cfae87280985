//! Measuring the simulator (`coapcc bench`): events per second and simulated seconds per wall
//! second on one pinned core, the wall time of the FASOR matrix, and memory over a long run.
//! Wall-clock time is read here for measurement only; it never influences a result. The
//! caller prints the numbers.
#![allow(clippy::disallowed_methods, reason = "a benchmark measures wall time; no simulated result depends on it")]

use std::path::Path;
use std::time::Instant;

use crate::error::SimError;
use crate::runner::{RunOutput, job_count, run_scenario, run_scenario_streaming};
use coapcc_driver::scenario::{Catalogue, Scenario, ScenarioError, Setting};

/// What to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchCase {
    /// `fasor/400-flows-infinite-buffer-continuous` with `default`, one core.
    Reference,
    /// Every FASOR scenario with its published replications, all cores.
    Matrix,
    /// One residual-bandwidth sender for some simulated hours (memory over long runs).
    Long,
    /// `lim/e2-contikimac-5x5` (Lim's 5 × 5 ContikiMAC grid, 10 min of data) with `uip`, one
    /// core: the multihop model next to the reference case.
    Multihop,
}

/// How to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Where the scenario files are read: the built-in ones, or a folder.
    pub scenarios: Catalogue,
    /// Replications of the one-core cases (per repetition; 0 counts as 1).
    pub replications: u32,
    /// Simulated hours of the long case (0 counts as 1).
    pub hours: u32,
    /// How many times a one-core case runs (0 counts as 1).
    pub repeat: u32,
}

/// Why a measurement could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A scenario that does not load, a bad override, or a run that failed (the simulator's
    /// error says which).
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The scenarios have no such folder (or it holds no scenario file).
    #[error("no scenario files in `{folder}`")]
    NoScenarios {
        /// The folder, relative to the scenarios' root.
        folder: String,
    },
    /// The worker thread could not be started.
    #[error("cannot start the worker thread: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
}

impl BenchError {
    /// Whether the caller's input is at fault (a scenario, an override, the scenarios'
    /// folder), rather than the measurement.
    pub fn is_bad_input(&self) -> bool {
        match self {
            BenchError::Sim(e) => e.is_bad_input(),
            BenchError::NoScenarios { .. } => true,
            BenchError::Pool(_) => false,
        }
    }
}

impl From<ScenarioError> for BenchError {
    fn from(e: ScenarioError) -> Self {
        BenchError::Sim(e.into())
    }
}

/// Median, minimum and maximum of some repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The median.
    pub median: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `xs` (not empty).
    pub fn of(xs: &[f64]) -> Spread {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Spread { median, min: v[0], max: v[n - 1] }
    }
}

/// A case run repeatedly on one core.
#[derive(Clone, Debug)]
pub struct OneCore {
    /// The scenario's name.
    pub scenario: String,
    /// The algorithm run.
    pub algorithm: &'static str,
    /// Replications per repetition.
    pub replications: u32,
    /// Repetitions.
    pub repeat: u32,
    /// Whether the thread was pinned to a core.
    pub pinned: bool,
    /// Millions of events per wall second.
    pub events_per_s_millions: Spread,
    /// Simulated seconds per wall second.
    pub sim_s_per_wall_s: Spread,
    /// Wall seconds per replication.
    pub wall_s_per_replication: Spread,
    /// Events of one repetition.
    pub events: u64,
    /// Simulated seconds of one repetition.
    pub sim_s: f64,
}

/// What a case measured.
#[derive(Clone, Debug)]
pub enum Measurement {
    /// [`BenchCase::Reference`] or [`BenchCase::Multihop`].
    OneCore(OneCore),
    /// [`BenchCase::Matrix`].
    Matrix {
        /// Scenario files run.
        scenarios: usize,
        /// Runs (algorithm × replication).
        runs: usize,
        /// Worker threads.
        threads: usize,
        /// Wall seconds.
        wall_s: f64,
    },
    /// [`BenchCase::Long`].
    Long {
        /// Simulated hours.
        hours: u32,
        /// Wall seconds.
        wall_s: f64,
        /// Events.
        events: u64,
        /// RTT samples.
        rtts: u64,
        /// Points of the time series (`series.csv`), streamed (counted as made, not kept).
        points: usize,
    },
}

/// Peak resident set size of this process, bytes (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn load(scenarios: &Catalogue, rel: &str, sets: &[String]) -> Result<Scenario, BenchError> {
    let file = Path::new(rel);
    let sets: Vec<Setting> = sets
        .iter()
        .map(|s| {
            s.parse::<Setting>().map_err(|e| ScenarioError {
                file: scenarios.label(file),
                line: None,
                key: e.key,
                problem: e.problem,
            })
        })
        .collect::<Result<_, _>>()?;
    let s = scenarios.load(file, &sets)?;
    crate::budget::admit(&s, 1, crate::budget::available_bytes()).map_err(SimError::from)?;
    Ok(s)
}

/// A one-thread pool whose thread is pinned to the last core, when the system allows it:
/// "events per second on one core" is measured on one core, not on a thread the scheduler
/// moves between cores (on a 2-core VM that alone changes the result by a third).
fn one_core_pool() -> Result<(rayon::ThreadPool, bool), BenchError> {
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
        .build()?;
    // The start handler has run once the pool has done any work.
    pool.install(|| {});
    Ok((pool, pinned.load(std::sync::atomic::Ordering::SeqCst)))
}

/// Measures `case` with scenarios from `opts.scenarios`.
pub fn measure(case: BenchCase, opts: &BenchOptions) -> Result<Measurement, BenchError> {
    let (root, replications, hours, repeat) =
        (&opts.scenarios, opts.replications.max(1), opts.hours.max(1), opts.repeat.max(1));
    match case {
        BenchCase::Reference => {
            let s = load(
                root,
                "fasor/400-flows-infinite-buffer-continuous.toml",
                &[format!("replications={replications}"), "algorithms=[\"default\"]".into()],
            )?;
            one_core(&s.file.name, "default", replications, repeat, || {
                let runs = run_scenario(&s, &|| {})?;
                let (mut events, mut sim_s) = (0u64, 0.0f64);
                for r in &runs[0].runs {
                    if let RunOutput::Network(n) = r {
                        events += n.run.events;
                        sim_s += n.run.sim_time_s;
                    }
                }
                Ok((events, sim_s))
            })
            .map(Measurement::OneCore)
        }
        BenchCase::Matrix => {
            let files = root.files_in("fasor").ok_or_else(|| BenchError::NoScenarios { folder: "fasor".into() })?;
            let mut runs = 0usize;
            let t0 = Instant::now();
            for f in &files {
                let s = root.load(f, &[])?;
                runs += job_count(&s);
                run_scenario(&s, &|| {})?;
            }
            let wall_s = t0.elapsed().as_secs_f64();
            Ok(Measurement::Matrix { scenarios: files.len(), runs, threads: rayon::current_num_threads(), wall_s })
        }
        BenchCase::Multihop => {
            let s = load(
                root,
                "lim/e2-contikimac-5x5.toml",
                &[format!("replications={replications}"), "algorithms=[\"uip\"]".into()],
            )?;
            one_core(&s.file.name, "uip", replications, repeat, || {
                let runs = run_scenario(&s, &|| {})?;
                let (mut events, mut sim_s) = (0u64, 0.0f64);
                for r in &runs[0].runs {
                    if let RunOutput::Multihop(m) = r {
                        events += m.events;
                        sim_s += m.end_ns as f64 / 1e9;
                    }
                }
                Ok((events, sim_s))
            })
            .map(Measurement::OneCore)
        }
        BenchCase::Long => {
            let s = load(
                root,
                "makarem/residual-high-variability.toml",
                &[
                    "replications=1".into(),
                    "algorithms=[\"idc\"]".into(),
                    format!("duration_ms={}", u64::from(hours) * 3_600_000),
                ],
            )?;
            // The time series goes to a sink that counts its points as the run makes them, as
            // `coapcc sim` streams it to `series.csv`: what is measured is the run's own memory.
            let points = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let sinks = |_, _| -> Option<Box<dyn coapcc_driver::SeriesSink>> {
                let points = std::sync::Arc::clone(&points);
                Some(Box::new(move |_| {
                    points.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }))
            };
            let t0 = Instant::now();
            let runs = run_scenario_streaming(&s, &|| {}, &|| false, &sinks)?;
            let wall_s = t0.elapsed().as_secs_f64();
            let points = points.load(std::sync::atomic::Ordering::Relaxed);
            let (events, rtts) = match &runs[0].runs[0] {
                RunOutput::Network(n) => (n.run.events, n.rtts().len()),
                RunOutput::Tcp(t) => (t.network.run.events, t.network.rtts().len()),
                RunOutput::Trace(_) | RunOutput::Multihop(_) => (0, 0),
            };
            Ok(Measurement::Long { hours, wall_s, events, rtts, points })
        }
    }
}

/// Runs `once` (one scenario run: its events and simulated seconds) `repeat` times on one core.
fn one_core(
    name: &str,
    algorithm: &'static str,
    replications: u32,
    repeat: u32,
    once: impl Fn() -> Result<(u64, f64), BenchError> + Send + Sync,
) -> Result<OneCore, BenchError> {
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
    Ok(OneCore {
        scenario: name.to_string(),
        algorithm,
        replications,
        repeat,
        pinned,
        events_per_s_millions: Spread::of(&rates),
        sim_s_per_wall_s: Spread::of(&sim_rates),
        wall_s_per_replication: Spread::of(&walls),
        events,
        sim_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_of_an_even_count_has_the_mean_of_the_middle_two_as_median() {
        assert_eq!(Spread::of(&[4.0, 1.0, 3.0, 2.0]), Spread { median: 2.5, min: 1.0, max: 4.0 });
        assert_eq!(Spread::of(&[5.0, 1.0, 3.0]), Spread { median: 3.0, min: 1.0, max: 5.0 });
    }
}
