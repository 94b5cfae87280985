//! `coapcc reproduce`: runs the published experiments of the source papers and writes a report
//! a researcher reads in a browser — their figure (described), ours, their numbers, ours, and
//! whether each published claim holds.
//!
//! | module | what is there |
//! |---|---|
//! | [`published`] | **one description per experiment**, `data/published/<experiment>.toml` (compiled in, checked once): the published figures and claims, the cases, the investigations, the side-by-side tables |
//! | [`experiments`] | an experiment's `[cases]` expanded into the scenario runs it needs, full and `--quick` |
//! | [`evaluate`](mod@evaluate) | our number for each claim and the verdict |
//! | [`noise`] | the noise test of a direction claim: inconclusive within the run-to-run noise |
//! | [`investigate`] | sweeps of an open modelling choice showing where differing claims would hold |
//! | [`render`] | figures, `index.html` (self-contained), `report.md`; [`notes`]: what is printed under each claim (role, parameters, noise test, cause) and the parameter tables |
//! | [`section`], [`claims_csv`] | an experiment's evaluated content; `claims.csv` written from it, and read back by column name |
//! | [`scoreboard`] | the scoreboard, counted from `claims.csv` (the report's, the printed one, `status.md`) |
//! | [`transfer`], [`result_table`] | what a transfer case (CoAP over TCP, block-wise CoAP) keeps beyond its summaries; the result tables of an experiment with a `[result_table]` (`results.csv`) |

pub(crate) mod claims_csv;
mod evaluate;
mod experiments;
pub(crate) mod investigate;
pub(crate) mod noise;
mod notes;
pub(crate) mod published;
pub(crate) mod render;
mod result_table;
pub(crate) mod scoreboard;
mod section;
mod transfer;

use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_driver::scenario::{self, Catalogue, Model};
use coapcc_sim::multihop::TracePointKind;
use coapcc_sim::results::{result_files, rto_series_csv, summarise, trace_nodes};
use coapcc_sim::sweep::store::Piece;
use coapcc_sim::{AlgorithmRuns, RunOutput, job_count, run_scenario};

use self::evaluate::{CaseResult, CaseSeries, TcpTrace, evaluate};
use self::experiments::Case;
use self::published::FigureKind;
use self::section::Section;
use crate::error::ReportError;
use crate::files::write_atomic;
use crate::progress::{Progress, thread_pool};
use crate::run_record::{RunRecord, write_run_json};

/// What to reproduce and where the report goes (the options of `coapcc reproduce`).
#[derive(Clone, Debug)]
pub struct ReproduceOptions {
    /// An experiment id (see [`list`]), or `all`.
    pub experiment: String,
    /// A reduced version (fewer replications, shorter runs) that still draws every figure.
    pub quick: bool,
    /// Replications per case instead of the scenarios' own.
    pub replications: Option<u32>,
    /// Output folder (default `reports/<experiment>/`).
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    pub jobs: Option<usize>,
    /// Where the scenario files are read: the built-in ones, or a folder of the user's.
    pub scenarios: Catalogue,
    /// What made the report: written as `run.json` and shown in its header (none: neither).
    pub run: Option<RunRecord>,
    /// Run every case again, even one whose finished piece is in its data folder.
    pub force: bool,
}

impl ReproduceOptions {
    /// The folder the report goes to.
    pub fn out_dir(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| Path::new("reports").join(&self.experiment))
    }
}

/// The `--list` text.
pub fn list() -> Result<String, ReportError> {
    let mut s = String::from("experiments:\n");
    for e in published::all()? {
        s.push_str(&format!("  {:<14} {}\n", e.experiment, e.about));
    }
    s.push_str("  all            everything above, in one report\n");
    s.push_str(
        "  crosscheck     simulation against the real-time loopback testbed (not in `all`; minutes of real time)\n",
    );
    s.push_str("  crosscheck-tcp the TCP model against ns-3's TCP on the firmware cases (not in `all`; needs scripts/setup-ns3)\n");
    Ok(s)
}

fn load_case(scenarios: &Catalogue, c: &Case) -> Result<scenario::Scenario, ReportError> {
    Ok(scenarios.load(&c.file, &c.sets)?)
}

/// How a case is run: on which pool, with which progress callback, and whether a finished
/// piece in its data folder is kept (unless `force`).
struct CaseRun<'a> {
    pool: &'a rayon::ThreadPool,
    progress: &'a (dyn Fn() + Sync),
    force: bool,
}

/// Runs case `case` (scenario `s`, of any model) on `pool`, writes its files into `data` (those
/// of `coapcc sim`, and for a multihop case drawn by a trace or flow-series figure, `traced` or
/// `flow_series`, replication 0's `rto_series.csv` or `series.csv`), and keeps what the
/// claims and figures need. A finished piece of the same scenario and coapcc version in `data`
/// is taken instead of running (unless `force`); a run's piece is written after its files.
/// Also says whether the piece was kept.
fn run_case(
    case: Case,
    s: &scenario::Scenario,
    data: &Path,
    how: &CaseRun<'_>,
    traced: bool,
    flow_series: bool,
) -> Result<(CaseResult, bool), ReportError> {
    let kept = crate::sim::kept_piece(s, data, how.force);
    let runs = match &kept {
        Some(piece) => {
            (0..job_count(s)).for_each(|_| (how.progress)());
            piece.algorithm_runs()
        }
        None => how.pool.install(|| run_scenario(s, how.progress))?,
    };
    let summaries = summarise(s, &runs);
    for (name, text) in result_files(s, &runs, &summaries, false) {
        write_atomic(&data.join(name), text.as_bytes())?;
    }
    let is_multihop = matches!(runs.first().and_then(|a| a.runs.first()), Some(RunOutput::Multihop(_)));
    let wants_traces = traced && is_multihop;
    // Replication 0 again with the per-node traces recorded, kept in the piece too.
    let traces: Vec<(String, RunOutput)> = match kept.as_ref() {
        Some(piece) if !piece.extra.is_empty() || !wants_traces => piece.extra.clone(),
        _ if wants_traces => how
            .pool
            .install(|| coapcc_sim::multihop::run_traced(s, 0))?
            .into_iter()
            .map(|(a, r)| (a, RunOutput::Multihop(Box::new(r))))
            .collect(),
        _ => Vec::new(),
    };
    let series = match runs.first().and_then(|a| a.runs.first()) {
        Some(RunOutput::Multihop(_)) if traced => tcp_traces(&traces, data)?,
        Some(RunOutput::Multihop(_)) if flow_series => {
            write_atomic(&data.join("series.csv"), flow_series_csv(&runs).as_bytes())?;
            CaseSeries::FlowSeries(runs.iter().map(|a| (a.algorithm.clone(), continuous_flows(a))).collect())
        }
        Some(RunOutput::Trace(_)) => CaseSeries::Trace(
            runs.iter()
                .filter_map(|a| match a.runs.first() {
                    Some(RunOutput::Trace(t)) => Some((a.algorithm.clone(), t.series.clone())),
                    _ => None,
                })
                .collect(),
        ),
        Some(RunOutput::Network(r)) if !r.series.is_empty() => CaseSeries::Rates(
            runs.iter()
                .filter_map(|a| match a.runs.first() {
                    Some(RunOutput::Network(n)) => Some((a.algorithm.clone(), n.series.clone())),
                    _ => None,
                })
                .collect(),
        ),
        _ => CaseSeries::None,
    };
    let rtt_samples_rep0 = rtt_samples(&traces);
    let transfer = transfer::Transfer::of_runs(s, &runs);
    if kept.is_none() {
        crate::sim::write_piece(s, data, &Piece::new(&runs, traces))?;
    }
    let result = CaseResult {
        per_replication: per_replication(s, &runs),
        case,
        description: s.file.description.clone(),
        source: s.file.source.clone(),
        seed: s.file.seed,
        replications: s.file.replications,
        summaries,
        series,
        trace: match &s.model {
            Model::Trace(t) => Some(t.clone()),
            _ => None,
        },
        rtt_samples_rep0,
        transfer,
    };
    Ok((result, kept.is_some()))
}

/// Each replication's summaries alone, when there are two replications or more (the noise
/// test of direction claims, [`noise`]; with six or more, the 95 % interval of a median over
/// them, [`coapcc_sim::results::median_ci_ranks`]); else none.
fn per_replication(s: &scenario::Scenario, runs: &[AlgorithmRuns]) -> Vec<Vec<coapcc_sim::results::Summary>> {
    let n = runs.iter().map(|a| a.runs.len()).min().unwrap_or(0);
    if n < 2 {
        return Vec::new();
    }
    (0..n)
        .map(|r| {
            let one: Vec<AlgorithmRuns> = runs
                .iter()
                .map(|a| AlgorithmRuns { algorithm: a.algorithm.clone(), runs: vec![a.runs[r].clone()] })
                .collect();
            summarise(s, &one)
        })
        .collect()
}

/// Per algorithm, each mote's Karn-valid RTT samples (s) in the traced replication 0 of a TCP
/// multihop case (empty for another case).
fn rtt_samples(traced: &[(String, RunOutput)]) -> Vec<(String, Vec<Vec<f64>>)> {
    traced
        .iter()
        .filter_map(|(a, r)| match r {
            RunOutput::Multihop(m) => {
                let t = m.tcp.as_ref()?;
                let motes = t
                    .nodes
                    .iter()
                    .map(|n| {
                        n.trace
                            .iter()
                            .filter(|p| p.kind == TracePointKind::Rtt)
                            .map(|p| p.value_ns as f64 / 1e9)
                            .collect()
                    })
                    .collect();
                Some((a.clone(), motes))
            }
            _ => None,
        })
        .collect()
}

/// The continuous flows of replication 0 of a multihop algorithm's runs: each flow's server
/// node and (completion time s, exchange duration s, RTO after it s).
fn continuous_flows(a: &AlgorithmRuns) -> Vec<evaluate::FlowSeries> {
    let Some(RunOutput::Multihop(r)) = a.runs.first() else { return Vec::new() };
    r.coap
        .iter()
        .filter(|f| !f.series.is_empty())
        .map(|f| {
            let pts = f.series.iter().map(|&(t, d, r)| (t as f64 / 1e9, d as f64 / 1e9, r as f64 / 1e9));
            (f.peer.unwrap_or(0), pts.collect())
        })
        .collect()
}

/// `series.csv` of a multihop case with continuous CoAP flows (Betzler's cross-traffic burst):
/// per algorithm and replication, every recorded (completion time, exchange duration, RTO
/// after it) of each continuous flow, in seconds; `server_node` is the flow's server.
fn flow_series_csv(runs: &[AlgorithmRuns]) -> String {
    let mut out = String::from("algorithm,replication,flow,server_node,time_s,duration_s,rto_s\n");
    for a in runs {
        for (i, out_i) in a.runs.iter().enumerate() {
            let RunOutput::Multihop(r) = out_i else { continue };
            for (k, f) in r.coap.iter().enumerate() {
                let server = f.peer.map_or_else(|| "host".to_string(), |n| n.to_string());
                for &(t, d, rto) in &f.series {
                    out.push_str(&format!(
                        "{},{i},{k},{server},{},{},{}\n",
                        a.algorithm,
                        t as f64 / 1e9,
                        d as f64 / 1e9,
                        rto as f64 / 1e9
                    ));
                }
            }
        }
    }
    out
}

/// Replication 0 of a TCP multihop case run again with the per-node traces recorded (Lim
/// 2020 Figs. 2–3; `traced`, one output per algorithm): writes `rto_series.csv` into `data`
/// and keeps the traces of the motes of [`trace_nodes`] for the `mh-trace` figures. Recording
/// changes no other output.
fn tcp_traces(traced: &[(String, RunOutput)], data: &Path) -> Result<CaseSeries, ReportError> {
    let runs: Vec<(String, coapcc_sim::multihop::MultihopResult)> = traced
        .iter()
        .filter_map(|(a, r)| match r {
            RunOutput::Multihop(m) => Some((a.clone(), (**m).clone())),
            _ => None,
        })
        .collect();
    write_atomic(&data.join("rto_series.csv"), rto_series_csv(&runs, 0).as_bytes())?;
    let per = runs
        .iter()
        .filter_map(|(a, r)| {
            let t = r.tcp.as_ref()?;
            let nodes = trace_nodes(t)
                .into_iter()
                .map(|i| {
                    let n = &t.nodes[i];
                    let pick = |k: TracePointKind| {
                        n.trace
                            .iter()
                            .filter(|p| p.kind == k)
                            .map(|p| (p.at_ns as f64 / 1e9, p.value_ns as f64 / 1e9))
                            .collect()
                    };
                    TcpTrace {
                        node: n.node,
                        hops: n.hops,
                        rtt_s: pick(TracePointKind::Rtt),
                        rto_s: pick(TracePointKind::Rto),
                    }
                })
                .collect();
            Some((a.clone(), nodes))
        })
        .collect();
    Ok(CaseSeries::TcpTraces(per))
}

/// Runs `coapcc reproduce` for one experiment or `all` (not the cross-check, which needs the
/// testbed: `run_crosscheck`): everything is checked before anything
/// runs; the report is written to the options' folder and its scoreboard printed to `out`.
pub fn run_reproduce(opts: &ReproduceOptions, out: &mut dyn Write, progress: &dyn Progress) -> Result<(), ReportError> {
    let experiment = opts.experiment.as_str();
    let all = published::all()?;
    let chosen: Vec<&published::Published> = if experiment == "all" {
        all.iter().collect()
    } else {
        vec![all.iter().find(|e| e.experiment == experiment).ok_or_else(|| ReportError::UnknownExperiment {
            name: experiment.to_string(),
            valid: all.iter().map(|e| e.experiment.as_str()).collect::<Vec<_>>().join(", "),
        })?]
    };
    if opts.replications == Some(0) {
        return Err(ReportError::Options("--replications must be at least 1".into()));
    }
    // Check everything before running anything.
    let mut plan = Vec::new();
    for published in chosen {
        let mut cs = published.cases.expand(&opts.scenarios, opts.quick, opts.replications)?;
        // Investigations run after the experiment's own cases, so those run (and are numbered) as before.
        let own = cs.clone();
        for spec in &published.investigations {
            cs.extend(spec.cases(&own, opts.quick, opts.replications)?);
        }
        let loaded: Vec<(Case, scenario::Scenario)> =
            cs.into_iter().map(|c| load_case(&opts.scenarios, &c).map(|s| (c, s))).collect::<Result<_, _>>()?;
        plan.push((published.clone(), loaded));
    }
    let total: u64 = plan.iter().flat_map(|(_, l)| l).map(|(_, s)| job_count(s) as u64).sum();
    // Cases run one after another, each on the whole pool: no more threads than the widest has runs.
    let widest = plan.iter().flat_map(|(_, l)| l).map(|(_, s)| job_count(s)).max().unwrap_or(1);
    let pool = thread_pool(opts.jobs, widest)?;
    progress.begin(total);
    let dir = opts.out_dir();
    let mut sections = Vec::new();
    let finished_one = || progress.finished_one();
    let how = CaseRun { pool: &pool, progress: &finished_one, force: opts.force };
    let mut kept = 0;
    for (published, loaded) in plan {
        let mut results = Vec::new();
        // The cases a figure of `kind` draws.
        let drawn_by = |kind: fn(&FigureKind) -> bool| -> Vec<&str> {
            let figures = published.figures.iter().filter(|f| kind(&f.kind));
            figures.flat_map(|f| f.cases.iter().map(String::as_str)).collect()
        };
        // Cases drawn by a per-node trace figure (`mh-trace:…`) record replication 0's traces.
        let traced = drawn_by(|k| matches!(k, FigureKind::MhTrace(_)));
        // Cases drawn by a flow time-series figure (`mh-series:…`) keep replication 0's series.
        let flow_series = drawn_by(|k| matches!(k, FigureKind::MhSeries(_)));
        for (case, s) in loaded {
            progress.working_on(&case.name);
            // Every finished case is on disk at once: an interrupted run loses nothing finished.
            let data = dir.join("data").join(&case.name);
            let t = traced.contains(&case.name.as_str());
            let f = flow_series.contains(&case.name.as_str());
            let (result, was_kept) = run_case(case, &s, &data, &how, t, f)?;
            kept += usize::from(was_kept);
            results.push(result);
        }
        // The experiment's own cases, each replication alone (the noise test).
        let own: Vec<CaseResult> = results.iter().filter(|r| !investigate::is_point(&r.case)).cloned().collect();
        let sets = noise::replication_sets(&own);
        let outcomes = published.claims.iter().map(|c| noise::judge(evaluate(&results, c), &sets)).collect();
        let figures = published.figures.iter().map(|f| (f.clone(), render::figure(f, &results))).collect();
        let investigations = published
            .investigations
            .iter()
            .filter_map(|spec| spec.investigate(&results, &published, opts.quick, opts.replications))
            .collect();
        sections.push(Section { published, cases: results, outcomes, figures, investigations });
    }
    progress.end();
    if kept > 0 {
        progress.note(&format!(
            "kept {kept} case(s) finished by an earlier run of the same scenario and coapcc version (--force runs them again)"
        ));
    }
    for s in &sections {
        for (spec, svg) in &s.figures {
            write_atomic(&dir.join("figures").join(format!("{}.svg", spec.id)), svg.as_bytes())?;
        }
        for inv in &s.investigations {
            write_atomic(&dir.join("figures").join(format!("{}.svg", inv.id)), inv.svg.as_bytes())?;
        }
    }
    let title = if experiment == "all" {
        "coapcc reproduce: all experiments".to_string()
    } else {
        format!("coapcc reproduce: {experiment}")
    };
    let intro = format!(
        "Generated by <code>coapcc reproduce {}{}</code> (coapcc {}). {}Each published claim is checked \
against our simulation of the paper's set-up (<code>docs/testbeds.md</code>); where ours differs, \
its cause and the investigations bearing on it are shown next to the claim. Their figures are not reproduced as \
images: each of ours is shown with their caption and a description of what theirs shows. Raw data: \
<code>data/</code>; claims as CSV: <code>claims.csv</code>.",
        experiment,
        if opts.quick { " --quick" } else { "" },
        env!("CARGO_PKG_VERSION"),
        if opts.quick {
            "<strong>Quick mode: fewer replications and shorter runs; numbers are indicative only.</strong> "
        } else {
            ""
        }
    );
    let csv = section::claims_csv(&sections);
    write_atomic(&dir.join("claims.csv"), csv.as_bytes())?;
    // Our result tables (an experiment with `[result_table]`), as data.
    if let Some(results) = result_table::results_csv(&sections) {
        write_atomic(&dir.join("results.csv"), results.as_bytes())?;
    }
    // The "Reproduction status" section of docs/reproduction-status.md is this file (of a full run).
    write_atomic(&dir.join("status.md"), render::status_md(&csv)?.as_bytes())?;
    // Its "why claims differ" section is `causes.md` (of a full run), generated from
    // `claims.csv`, the data files' causes and `investigations.toml`.
    let findings = investigate::Findings::of(
        sections.iter().map(|s| (s.published.experiment.as_str(), s.investigations.as_slice())),
    );
    write_atomic(&dir.join("investigations.toml"), findings.to_toml().as_bytes())?;
    write_atomic(&dir.join("causes.md"), investigate::causes::causes_md(&csv, &findings)?.as_bytes())?;
    let run = opts.run.as_ref();
    write_atomic(&dir.join("report.md"), render::markdown(&title, &intro, run, &sections).as_bytes())?;
    write_atomic(&dir.join("index.html"), render::html(&title, &intro, run, &sections).as_bytes())?;
    if let Some(r) = run {
        write_run_json(&dir, r)?;
    }
    // The printed scoreboard is counted from claims.csv, as the report's and status.md are.
    out.write_all(scoreboard::scoreboard_text(&scoreboard::scores_of_csv(&csv)?).as_bytes())?;
    writeln!(out, "report: {}", dir.join("index.html").display())?;
    Ok(())
}
