//! `coapcc bench`: the numbers the README quotes, measured by `coapcc_sim::bench` (the
//! simulator) and `coapcc_udp::bench` (real CoAP on loopback), printed here; for the one-core
//! cases also written as JSON (`--json`) and compared with an earlier JSON (`--compare`).

use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_driver::scenario::Catalogue;
use coapcc_sim::bench::{self as sim_bench, Measurement, OneCore, peak_rss_bytes};
use coapcc_udp::bench::{self as udp_bench, Measured};

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
    /// Real CoAP on loopback: fuzzing throughput, exchanges per second and CPU per exchange.
    Udp,
    /// `lim/e2-contikimac-5x5` (Lim's 5 × 5 ContikiMAC grid, 10 min of data) with `uip`, one
    /// core: the multihop model next to the reference case.
    Multihop,
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
    /// Folder of the scenario files (laid out as the built-in ones; default: the built-in
    /// scenarios, see `coapcc scenarios`).
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
    /// Write the numbers of a one-core case (reference, multihop) to FILE as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Compare with the JSON an earlier `coapcc bench --json` wrote: the change of each number.
    #[arg(long, value_name = "OLD")]
    pub compare: Option<PathBuf>,
    /// Do not count instructions per event (by default counted with callgrind when `valgrind`
    /// is on the PATH: one replication of the case, run again under it).
    #[arg(long)]
    pub no_instructions: bool,
}

fn peak_rss(out: &mut dyn Write) -> std::io::Result<()> {
    match peak_rss_bytes() {
        Some(rss) => writeln!(out, "peak RSS:                  {:.1} MiB", rss as f64 / 1048576.0),
        None => Ok(()),
    }
}

/// Runs `coapcc bench`; a one-core case is reported as median (min–max) of its repetitions.
pub fn run(args: &BenchArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let old = match &args.compare {
        Some(path) => Some(read_numbers(path)?),
        None => None,
    };
    if (args.json.is_some() || old.is_some()) && !matches!(args.case, Case::Reference | Case::Multihop) {
        return Err(CliError::usage("--json and --compare apply to --case reference and --case multihop"));
    }
    let case = match args.case {
        Case::Udp => return udp(out),
        Case::Reference => sim_bench::BenchCase::Reference,
        Case::Matrix => sim_bench::BenchCase::Matrix,
        Case::Long => sim_bench::BenchCase::Long,
        Case::Multihop => sim_bench::BenchCase::Multihop,
    };
    let opts = sim_bench::BenchOptions {
        scenarios: args.scenarios.clone().map_or(Catalogue::BuiltIn, Catalogue::Folder),
        replications: args.replications,
        hours: args.hours,
        repeat: args.repeat,
    };
    match sim_bench::measure(case, &opts)? {
        Measurement::OneCore(m) => {
            one_core(out, &m)?;
            let instructions = if args.no_instructions { None } else { instructions_per_event(args) };
            match instructions {
                Some(i) => writeln!(out, "instructions per event:    {i:.0} (callgrind, 1 replication)")?,
                None if !args.no_instructions => {
                    writeln!(out, "instructions per event:    not counted (valgrind not on the PATH)")?;
                }
                None => {}
            }
            let numbers = Numbers::of(args.case, &m, instructions, peak_rss_bytes());
            if let Some(path) = &args.json {
                std::fs::write(path, numbers.to_json())
                    .map_err(|e| CliError::Failure(format!("cannot write {}: {e}", path.display())))?;
            }
            if let Some(old) = &old {
                out.write_all(compare(old, &numbers)?.as_bytes())?;
            }
        }
        Measurement::Matrix { scenarios, runs, threads, wall_s } => {
            writeln!(
                out,
                "case: the FASOR matrix, {scenarios} scenarios, {runs} runs (algorithm × replication), {threads} threads"
            )?;
            writeln!(out, "wall time:                 {wall_s:.2} s")?;
            peak_rss(out)?;
        }
        Measurement::Long { hours, wall_s, events, rtts, points } => {
            writeln!(out, "case: one IDC sender on residual bandwidth for {hours} simulated hours")?;
            writeln!(out, "wall time:                 {wall_s:.3} s, {events} events, {rtts} RTT samples")?;
            // The requested output grows with simulated time (one point per 5-s window of
            // series.csv); it is streamed out as the run goes, none of it kept.
            writeln!(out, "time series (streamed):    {points} points, none held in memory")?;
            peak_rss(out)?;
        }
    }
    Ok(())
}

/// The numbers of a one-core case, as `--json` writes them and `--compare` reads them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Numbers {
    /// The case (`reference`, `multihop`).
    pub case: String,
    /// The scenario's name.
    pub scenario: String,
    /// Replications per repetition.
    pub replications: u32,
    /// Events of one repetition.
    pub events: u64,
    /// Events per wall second (median of the repetitions).
    pub events_per_s: f64,
    /// Wall seconds per replication (median).
    pub s_per_replication: f64,
    /// Peak resident set size, bytes, if known.
    #[serde(default)]
    pub peak_rss_bytes: Option<u64>,
    /// Instructions per event (callgrind), if counted.
    #[serde(default)]
    pub instructions_per_event: Option<f64>,
}

impl Numbers {
    fn of(case: Case, m: &OneCore, instructions_per_event: Option<f64>, peak_rss_bytes: Option<u64>) -> Self {
        Numbers {
            case: case_name(case).to_string(),
            scenario: m.scenario.clone(),
            replications: m.replications,
            events: m.events,
            events_per_s: m.events_per_s_millions.median * 1e6,
            s_per_replication: m.wall_s_per_replication.median,
            peak_rss_bytes,
            instructions_per_event,
        }
    }

    /// The JSON text (one object, keys in field order, a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Reads what [`Numbers::to_json`] wrote; the error names the key that is missing or wrong.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

fn case_name(case: Case) -> &'static str {
    match case {
        Case::Reference => "reference",
        Case::Matrix => "matrix",
        Case::Long => "long",
        Case::Udp => "udp",
        Case::Multihop => "multihop",
    }
}

fn read_numbers(path: &Path) -> Result<Numbers, CliError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?;
    Numbers::from_json(&text)
        .map_err(|e| CliError::usage(format!("{}: not a `coapcc bench --json` file: {e}", path.display())))
}

/// One line per number: old → new and the relative change (lower is better for all but
/// events per second).
pub fn compare(old: &Numbers, new: &Numbers) -> Result<String, CliError> {
    if old.case != new.case {
        return Err(CliError::usage(format!(
            "--compare: the old numbers are of case `{}`, this run is `{}`",
            old.case, new.case
        )));
    }
    fn line(name: &str, old: Option<f64>, new: Option<f64>, show: &dyn Fn(f64) -> String) -> String {
        match (old, new) {
            (Some(a), Some(b)) => {
                let change = if a == 0.0 { String::from("n/a") } else { format!("{:+.1} %", (b - a) / a * 100.0) };
                format!("{name:<27}{} -> {} ({change})\n", show(a), show(b))
            }
            (a, b) => {
                let or_none = |x: Option<f64>| x.map_or_else(|| "n/a".to_string(), show);
                format!("{name:<27}{} -> {}\n", or_none(a), or_none(b))
            }
        }
    }
    let mut s = format!("compared with {} ({} replications):\n", old.scenario, old.replications);
    s += &line("instructions per event:", old.instructions_per_event, new.instructions_per_event, &|x| {
        format!("{x:.0}")
    });
    s += &line("events per second:", Some(old.events_per_s), Some(new.events_per_s), &|x| {
        format!("{:.2} million", x / 1e6)
    });
    s += &line("wall time per replication:", Some(old.s_per_replication), Some(new.s_per_replication), &|x| {
        format!("{x:.4} s")
    });
    s += &line("peak RSS:", old.peak_rss_bytes.map(|x| x as f64), new.peak_rss_bytes.map(|x| x as f64), &|x| {
        format!("{:.1} MiB", x / 1048576.0)
    });
    Ok(s)
}

/// Instructions per event of `args`' case: one replication run again under callgrind
/// (`valgrind --tool=callgrind`), counting only inside the simulator's runner
/// (`--toggle-collect` on `run_scenario_until`: set-up, the events, the results; not the
/// process start or the scenario parsing), divided by that run's events. `None` when valgrind
/// is not on the PATH or the run fails.
fn instructions_per_event(args: &BenchArgs) -> Option<f64> {
    let exe = std::env::current_exe().ok()?;
    let dir = std::env::temp_dir().join(format!("coapcc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let (cg, json) = (dir.join("callgrind.out"), dir.join("numbers.json"));
    let mut cmd = std::process::Command::new("valgrind");
    cmd.arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", cg.display()))
        .arg("--toggle-collect=*run_scenario_until*")
        .arg(&exe)
        .args(["bench", "--case", case_name(args.case), "--replications", "1", "--repeat", "1", "--no-instructions"])
        .arg("--json")
        .arg(&json);
    if let Some(s) = &args.scenarios {
        cmd.arg("--scenarios").arg(s);
    }
    let ok =
        cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).status().is_ok_and(|s| s.success());
    let result = if ok {
        let ir = std::fs::read_to_string(&cg).ok().and_then(|t| callgrind_total(&t));
        let events = std::fs::read_to_string(&json).ok().and_then(|t| Numbers::from_json(&t).ok()).map(|n| n.events);
        match (ir, events) {
            (Some(ir), Some(e)) if e > 0 => Some(ir as f64 / e as f64),
            _ => None,
        }
    } else {
        None
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The instructions a callgrind output file counted (its `summary:` or `totals:` line).
fn callgrind_total(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("summary:").or_else(|| l.strip_prefix("totals:")))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

fn one_core(out: &mut dyn Write, m: &OneCore) -> std::io::Result<()> {
    let core = if m.pinned { "1 core (thread pinned)" } else { "1 thread (could not pin it to a core)" };
    writeln!(
        out,
        "case: {} with {}, {} replications on {core}, run {} times; median (min–max)",
        m.scenario, m.algorithm, m.replications, m.repeat
    )?;
    let s = m.events_per_s_millions;
    writeln!(
        out,
        "events per second:         {:.2} million ({:.2}–{:.2}); {} events per run",
        s.median, s.min, s.max, m.events
    )?;
    let s = m.sim_s_per_wall_s;
    writeln!(
        out,
        "simulated s per wall s:    {:.0} ({:.0}–{:.0}); {:.0} simulated seconds per run",
        s.median, s.min, s.max, m.sim_s
    )?;
    let s = m.wall_s_per_replication;
    writeln!(out, "wall time per replication: {:.4} s ({:.4}–{:.4})", s.median, s.min, s.max)?;
    peak_rss(out)
}

fn per_exchange(d: Option<std::time::Duration>, n: u64) -> String {
    d.map_or_else(|| "?".into(), |d| format!("{:.1} µs", d.as_secs_f64() * 1e6 / n.max(1) as f64))
}

fn report(out: &mut dyn Write, what: &str, m: &Measured) -> std::io::Result<()> {
    let n = m.summary.exchanges;
    writeln!(
        out,
        "{what}: {n} exchanges ({} failed, {} retransmissions) in {:.2} s = {:.0} exchanges/s; CPU per exchange: client {}, server {}; RTT p50 {:.3} ms",
        m.summary.requests_failed,
        m.summary.retransmissions,
        m.wall.as_secs_f64(),
        n as f64 / m.wall.as_secs_f64(),
        per_exchange(m.client_cpu, n),
        per_exchange(m.server_cpu, n),
        m.summary.rtt_p50_ms.unwrap_or(f64::NAN)
    )
}

/// `coapcc bench --case udp`: one line per measurement.
fn udp(out: &mut dyn Write) -> Result<(), CliError> {
    let (stats, wall) = udp_bench::fuzz_throughput(10_000_000);
    writeln!(
        out,
        "fuzz: {} datagrams to a client and a server endpoint in {:.1} s ({:.2} M/s), {} decoded, {} requests answered, no panic, cache at most {} entries",
        stats.datagrams,
        wall.as_secs_f64(),
        stats.datagrams as f64 / wall.as_secs_f64() / 1e6,
        stats.decoded,
        stats.requests_answered,
        stats.max_cache_entries
    )?;
    out.flush()?;
    let ours = udp_bench::our_server(&std::env::current_exe()?)?;
    report(out, "our client -> our server, 1 flow x 5000 sequential", &udp_bench::measure(&ours, "echo", 5_000, 1)?)?;
    report(out, "our client -> our server, 200 flows x 50 concurrent", &udp_bench::measure(&ours, "echo", 50, 200)?)?;
    out.flush()?;
    drop(ours);
    match udp_bench::libcoap_server()? {
        None => writeln!(out, "coap-server-notls: not installed (apt-get install -y libcoap3-bin); skipped")?,
        Some(libcoap) => {
            report(
                out,
                "our client -> coap-server-notls, 1 flow x 5000 sequential",
                &udp_bench::measure(&libcoap, "", 5_000, 1)?,
            )?;
            report(
                out,
                "our client -> coap-server-notls, 200 flows x 50 concurrent",
                &udp_bench::measure(&libcoap, "", 50, 200)?,
            )?;
            let n = 200u32;
            let (ok, wall) = udp_bench::libcoap_client_sequential(&libcoap, n);
            writeln!(
                out,
                "coap-client-notls -> coap-server-notls, {n} sequential (one process each): {ok} answered in {:.2} s = {:.0} exchanges/s ({:.2} ms each, process start-up included)",
                wall.as_secs_f64(),
                f64::from(n) / wall.as_secs_f64(),
                wall.as_secs_f64() * 1e3 / f64::from(n)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(instructions: Option<f64>) -> Numbers {
        Numbers {
            case: "reference".into(),
            scenario: "fasor/400-flows-infinite-buffer-continuous".into(),
            replications: 10,
            events: 2_149_040,
            events_per_s: 5_000_000.0,
            s_per_replication: 0.04,
            peak_rss_bytes: Some(10 * 1_048_576),
            instructions_per_event: instructions,
        }
    }

    #[test]
    fn the_json_reads_back_as_the_numbers_written() {
        for n in [numbers(Some(1327.5)), numbers(None)] {
            assert_eq!(Numbers::from_json(&n.to_json()).unwrap(), n);
        }
    }

    #[test]
    fn compare_prints_each_change_relative_to_the_old_number() {
        let old = Numbers::from_json(
            r#"{"case": "reference", "scenario": "fasor/400-flows-infinite-buffer-continuous",
                "replications": 10, "events": 2149040, "events_per_s": 4000000.0,
                "s_per_replication": 0.05, "peak_rss_bytes": 8388608, "instructions_per_event": 1200.0}"#,
        )
        .unwrap();
        // 1200 -> 900 is -25 %; 4 -> 5 million is +25 %; 0.05 -> 0.04 s is -20 %; 8 -> 10 MiB +25 %.
        let text = compare(&old, &numbers(Some(900.0))).unwrap();
        assert_eq!(
            text,
            "compared with fasor/400-flows-infinite-buffer-continuous (10 replications):\n\
             instructions per event:    1200 -> 900 (-25.0 %)\n\
             events per second:         4.00 million -> 5.00 million (+25.0 %)\n\
             wall time per replication: 0.0500 s -> 0.0400 s (-20.0 %)\n\
             peak RSS:                  8.0 MiB -> 10.0 MiB (+25.0 %)\n"
        );
        let text = compare(&old, &numbers(None)).unwrap();
        assert!(text.contains("instructions per event:    1200 -> n/a\n"), "{text}");
    }

    #[test]
    fn numbers_of_another_case_or_a_file_that_is_not_bench_json_are_refused_as_bad_input() {
        let mut other = numbers(None);
        other.case = "multihop".into();
        assert_eq!(compare(&other, &numbers(None)).unwrap_err().exit_code(), 2);
        assert!(Numbers::from_json("{").unwrap_err().is_eof());
        let missing = Numbers::from_json(r#"{"case": "reference"}"#).unwrap_err().to_string();
        assert!(missing.starts_with("missing field `scenario`"), "{missing}");
    }

    #[test]
    fn the_callgrind_total_is_read_from_the_summary_line() {
        assert_eq!(callgrind_total("events: Ir\nsummary: 123456\ntotals: 123456\n"), Some(123456));
        assert_eq!(callgrind_total("events: Ir\n"), None);
    }
}
