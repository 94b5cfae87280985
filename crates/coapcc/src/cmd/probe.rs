//! `coapcc probe`: a client under test against the probe server (`coapcc_udp::probe`), its
//! runs inferred (`coapcc_driver::probe::infer`) and reported (`coapcc_report`); or a server's
//! answers to duplicates, pings and stray ACKs checked. Exit 0 conforming, 1 a violation.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use coapcc_driver::probe::{Options, check_server, infer};
use coapcc_udp::probe::client::{Plan, run_plan};
use coapcc_udp::probe::server::{ServerProbeOptions, probe};

use crate::cmd::client::{runtime, seconds};
use crate::error::CliError;

/// Arguments of `coapcc probe`.
#[derive(Args)]
pub struct ProbeArgs {
    #[command(subcommand)]
    what: ProbeCommand,
}

#[derive(Subcommand)]
enum ProbeCommand {
    /// Run a client under test (the command after `--`, with `{uri}` for the probe's URI)
    /// against a probe server on loopback; infer its ACK_TIMEOUT, ACK_RANDOM_FACTOR, backoff,
    /// MAX_RETRANSMIT, NSTART and RTT adaptation; name the closest coapcc algorithm.
    Client(ClientProbeArgs),
    /// Check a server: duplicates answered alike, ping answered by a Reset, stray ACKs
    /// ignored, the amplification factor.
    Server(ServerProbeArgs),
}

#[derive(Args)]
struct ClientProbeArgs {
    /// Runs where the first retransmission is answered at once: each gives one first
    /// timeout (ACK_TIMEOUT and ACK_RANDOM_FACTOR with 95 % confidence intervals).
    #[arg(long, default_value_t = 30)]
    runs: u32,
    /// Runs where every copy is dropped (the whole backoff and the give-up).
    #[arg(long, default_value_t = 1)]
    silence_runs: u32,
    /// RTT probe: answer `--answered` exchanges this many milliseconds after their original,
    /// then drop (the command must send more requests than that, e.g. `--count`).
    #[arg(long, value_name = "MS")]
    rtt_ms: Option<f64>,
    /// Exchanges answered by the RTT probe before the silence.
    #[arg(long, default_value_t = 8)]
    answered: usize,
    /// With `--rtt-ms`: also a run whose answers follow the first retransmission (weak,
    /// ambiguous samples: does the client apply Karn's rule?).
    #[arg(long, requires = "rtt_ms")]
    weak: bool,
    /// A run whose first exchange is answered at its second retransmission, the second at
    /// once, then silence: what a retransmitted exchange carries into the next (Full Backoff 1
    /// or 2); the command must send at least three requests.
    #[arg(long)]
    carry: bool,
    /// A run with an empty ACK and a separate response this many milliseconds later, sent
    /// twice (0: no such run).
    #[arg(long, value_name = "MS", default_value_t = 100.0)]
    separate_ms: f64,
    /// The longest one run may take (the client is killed then).
    #[arg(long, default_value_t = 300.0)]
    time_limit_s: f64,
    /// How precisely a copy is timestamped (widens every interval and tolerance).
    #[arg(long, default_value_t = 3.0)]
    resolution_ms: f64,
    /// Changed §4.8 defaults (ACK_TIMEOUT, MAX_RETRANSMIT, …) are reported but do not fail.
    #[arg(long)]
    allow_tuned: bool,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
    /// Write the HTML page (summary and timeline figure) to FILE (atomically).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The client command; `{uri}` stands for the probe's URI, `{run}` for the run's number (0, 1, …:
    /// `--seed {run}` makes a client's draws reproducible).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Args)]
struct ServerProbeArgs {
    /// The resource: `coap://HOST[:PORT]/PATH`.
    uri: String,
    /// Seconds between the GET and its duplicate (within EXCHANGE_LIFETIME).
    #[arg(long, default_value_t = 2.0)]
    duplicate_after_s: f64,
    /// Seconds to wait for each answer.
    #[arg(long, default_value_t = 5.0)]
    wait_s: f64,
    /// A response above the amplification bound is reported but does not fail.
    #[arg(long)]
    allow_tuned: bool,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
}

fn ms(name: &str, v: f64) -> Result<Duration, CliError> {
    seconds(name, v / 1e3)
}

/// `coapcc probe`.
pub fn run(args: &ProbeArgs, out: &mut dyn Write) -> Result<(), CliError> {
    match &args.what {
        ProbeCommand::Client(a) => client(a, out),
        ProbeCommand::Server(a) => server(a, out),
    }
}

fn client(a: &ClientProbeArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let plan = Plan {
        silence_runs: a.silence_runs,
        first_timeout_runs: a.runs,
        rtt: a.rtt_ms.map(|r| ms("rtt-ms", r).map(|d| (d, a.answered))).transpose()?,
        carry: a.carry,
        weak_rtt: if a.weak { a.rtt_ms.map(|r| ms("rtt-ms", r).map(|d| (d, a.answered))).transpose()? } else { None },
        separate: (a.separate_ms > 0.0).then(|| ms("separate-ms", a.separate_ms)).transpose()?,
        time_limit: seconds("time-limit-s", a.time_limit_s)?,
    };
    if plan.silence_runs + plan.first_timeout_runs == 0 && plan.rtt.is_none() && !plan.carry && plan.separate.is_none()
    {
        return Err(CliError::usage("nothing to run: every kind of run is switched off"));
    }
    let opts = Options { resolution: ms("resolution-ms", a.resolution_ms)?, ..Options::default() };
    let html = a.html.as_deref().map(html_target).transpose()?;
    let shown = a.command.join(" ");
    let rt = runtime()?;
    let runs = rt.block_on(run_plan(&a.command, &plan, &mut |i, n, script| {
        eprintln!("probe run {}/{n}: {:?}", i + 1, script.actions());
    }))?;
    let findings = infer(&runs, &opts);
    if a.json {
        serde_json::to_writer_pretty(&mut *out, &findings).map_err(|e| CliError::Failure(e.to_string()))?;
        writeln!(out)?;
    } else {
        write!(out, "{}", coapcc_report::probe_summary(&shown, &findings))?;
    }
    if let Some(path) = html {
        coapcc_report::write_atomic(&path, coapcc_report::probe_html(&shown, &runs, &findings).as_bytes())?;
    }
    verdict(findings.conforms(a.allow_tuned), findings.violations.len())
}

fn server(a: &ServerProbeArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let opts = ServerProbeOptions {
        wait: seconds("wait-s", a.wait_s)?,
        duplicate_after: seconds("duplicate-after-s", a.duplicate_after_s)?,
    };
    let rt = runtime()?;
    let observation = rt.block_on(probe(&a.uri, &opts))?;
    let findings = check_server(&observation);
    if a.json {
        serde_json::to_writer_pretty(&mut *out, &findings).map_err(|e| CliError::Failure(e.to_string()))?;
        writeln!(out)?;
    } else {
        write!(out, "{}", coapcc_report::server_summary(&a.uri, &findings))?;
    }
    verdict(findings.conforms(a.allow_tuned), findings.violations.len())
}

/// The HTML file's path, refused before the runs when its folder does not exist.
fn html_target(path: &std::path::Path) -> Result<PathBuf, CliError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if dir.is_dir() {
        Ok(path.to_path_buf())
    } else {
        Err(CliError::usage(format!("--html {}: folder {} does not exist", path.display(), dir.display())))
    }
}

fn verdict(conforms: bool, violations: usize) -> Result<(), CliError> {
    if conforms {
        Ok(())
    } else {
        Err(CliError::Failure(format!("{violations} violation(s) of RFC 7252 (listed above)")))
    }
}
