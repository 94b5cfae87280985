//! `coapcc bench`: the numbers the README quotes, measured by `coapcc_sim::bench` (the
//! simulator) and `coapcc_udp::bench` (real CoAP on loopback), printed here.

use std::io::Write;
use std::path::PathBuf;

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
}

fn peak_rss(out: &mut dyn Write) -> std::io::Result<()> {
    match peak_rss_bytes() {
        Some(rss) => writeln!(out, "peak RSS:                  {:.1} MiB", rss as f64 / 1048576.0),
        None => Ok(()),
    }
}

/// Runs `coapcc bench`; a one-core case is reported as median (min–max) of its repetitions.
pub fn run(args: &BenchArgs, out: &mut dyn Write) -> Result<(), CliError> {
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
        Measurement::OneCore(m) => one_core(out, &m)?,
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
            // The requested output grows with simulated time: one point per 5-s window for
            // series.csv (built, then converted: ~56 B per point at the peak).
            writeln!(out, "time series (output):      {points} points, {:.1} MiB", (points * 56) as f64 / 1048576.0)?;
            peak_rss(out)?;
        }
    }
    Ok(())
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
