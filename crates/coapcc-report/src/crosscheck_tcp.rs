//! `coapcc reproduce crosscheck-tcp`: coapcc's TCP model (`docs/tcp.md`) against an
//! independent one, ns-3's TCP (TcpCubic, TcpLinuxReno) over point-to-point links with the
//! same rates, delays, byte-limited drop-tail queues and Gilbert–Elliott errors, run through
//! the caller's [`TcpReference`] (the binary's is the ns-3 program that `scripts/setup-ns3`
//! builds). Per firmware case and congestion control, the median FCT over every flow of every
//! replication must agree within 10 % in the ns-3-alike configuration ([`MATCHED`] and
//! [`NS3_ALIKE`]: coapcc set to behave as ns-3 3.44's source says it behaves); the matched
//! configuration (only what ns-3 lacks turned off), the same without RACK, and coapcc's Linux
//! defaults are shown beside it. Not part of `reproduce all` (it needs ns-3).

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use coapcc_driver::link::presets::{LinkErrors, NbiotConfig};
use coapcc_driver::scenario::{CoapTcpSizes, CongestionControl, Model, NetworkConfig, Setting, Value};
use coapcc_sim::results::median_ci_ranks;
use coapcc_sim::{RunOutput, run_scenario};

use crate::error::ReportError;
use crate::files::write_atomic;
use crate::progress::Progress;
use crate::realtime::write_results;
use crate::reproduce::ReproduceOptions;

/// The relative tolerance on the median FCT.
pub const TOLERANCE: f64 = 0.10;

/// The firmware cases (under the scenarios folder): 1 and 4 clients, three buffers, three
/// error levels.
pub const CASES: [&str; 18] = [
    "firmware/tcp-1-client.toml",
    "firmware/tcp-1-client-2500-none.toml",
    "firmware/tcp-1-client-1410000-none.toml",
    "firmware/tcp-1-client-2500-medium.toml",
    "firmware/tcp-1-client-28200-medium.toml",
    "firmware/tcp-1-client-1410000-medium.toml",
    "firmware/tcp-1-client-2500-high.toml",
    "firmware/tcp-1-client-28200-high.toml",
    "firmware/tcp-1-client-1410000-high.toml",
    "firmware/tcp-4-clients.toml",
    "firmware/tcp-4-clients-2500-none.toml",
    "firmware/tcp-4-clients-1410000-none.toml",
    "firmware/tcp-4-clients-2500-medium.toml",
    "firmware/tcp-4-clients-28200-medium.toml",
    "firmware/tcp-4-clients-1410000-medium.toml",
    "firmware/tcp-4-clients-2500-high.toml",
    "firmware/tcp-4-clients-28200-high.toml",
    "firmware/tcp-4-clients-1410000-high.toml",
];
/// The matched configuration: the `[tcp]` keys coapcc's side of the comparison sets, each to
/// what ns-3 3.44's TCP does and cannot be configured away from (`docs/tcp.md`, "Cross-check
/// against ns-3"): no F-RTO, no quick ACKs (ns-3's receiver ACKs every second segment from the
/// start), RFC 6298's RTO floor max(SRTT + 4·RTTVAR, min RTO), and ns-3's RTO cap of 60 s
/// (`TcpSocketBase::ReTxTimeout`). Where ns-3 can be set to Linux's value instead
/// (delayed-ACK timeout, min RTO, initial RTO, HyStart's delay bound, data retries), the ns-3
/// program sets it. RACK stays on: ns-3 has none, but it has two recovery rules Linux does
/// not ([`DUPTHRESH`] shows coapcc without RACK beside it).
pub const MATCHED: [(&str, &str); 4] =
    [("frto", "false"), ("quickacks", "0"), ("rto_floor", "rfc6298"), ("rto_max_ms", "60000")];

/// Added to [`MATCHED`] for the second, shown-only column: RFC 6675's DupThresh loss marking
/// instead of RACK, as ns-3 3.44 marks losses (without ns-3's NextSeg rule (3) and partial-ACK
/// retransmission of the head in SACK recovery, which neither Linux nor coapcc has).
pub const DUPTHRESH: (&str, &str) = ("rack", "false");

/// Added to [`MATCHED`] for the ns-3-alike configuration, the checked one: coapcc with ns-3
/// 3.44's own behaviours where they differ from Linux's, each a `[tcp]` option named after
/// what it does and defined by ns-3's source (`docs/tcp.md`, "Cross-check against ns-3"):
/// RFC 6675's DupThresh loss marking instead of RACK, no timer restart on a retransmission and
/// only on the first partial ACK of a recovery (`TcpSocketBase::SendDataPacket`,
/// `ProcessAck`), the partial-ACK retransmission kept with SACK (`DoRetransmit`), `NextSeg`
/// rule (3) (`TcpTxBuffer::NextSeg`), W_max kept across a timeout, the smoothed RTT, a 10-ms
/// sample filter and one increase per ACK in CUBIC (`TcpCubic`), Reno's slow start whether or
/// not the window limits the sender (`TcpLinuxReno`), ssthresh set again at every timeout
/// (`ReTxTimeout`) and three ACKs with new SACK blocks starting recovery (`DupAck`).
pub const NS3_ALIKE: [(&str, &str); 13] = [
    ("rack", "false"),
    ("rto_rearm_on_retransmit", "false"),
    ("rto_rearm_every_partial_ack", "false"),
    ("rto_backoff_until_sample", "false"),
    ("partial_ack_retransmit", "true"),
    ("nextseg_rule3", "true"),
    ("cubic_wmax_reset_on_timeout", "false"),
    ("cubic_srtt", "true"),
    ("reno_slow_start_cwnd_limited", "false"),
    ("cubic_rtt_discard_ms", "10"),
    ("cubic_one_increase_per_ack", "true"),
    ("rto_ssthresh_every_timeout", "true"),
    ("sack_dupacks_start_recovery", "true"),
];

/// The `--quick` case (and the test suite's): one error-free client, unlimited buffer.
pub const QUICK_CASE: &str = "firmware/tcp-1-client-1410000-none.toml";
/// Replications of each side in `--quick`.
pub const QUICK_REPLICATIONS: u32 = 3;
/// Replications of each side per case in a full run (instead of the scenarios' own 20
/// error-free and 40 with errors; `--replications` overrides it). Chosen for the width of the
/// medians' 95 % confidence intervals, not for how many cases agree: at 20 or 40 several
/// intervals are ±10 % wide or wider, as wide as [`TOLERANCE`], so the check could not tell a
/// 10 % difference from noise; 200 replications (800 flows with four clients) halve the typical
/// half-width (median over the cases from about 6.4 % to 2.8 %, `docs/tcp.md`).
pub const FULL_REPLICATIONS: u32 = 200;

/// One case as the reference simulator runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceCase {
    /// The congestion control.
    pub congestion: CongestionControl,
    /// Clients.
    pub clients: u32,
    /// Drop-tail buffer of each wireless direction, bytes.
    pub buffer_bytes: u64,
    /// Link errors.
    pub errors: LinkErrors,
    /// Replications.
    pub replications: u32,
    /// Clients start at uniform offsets in [0, this), ms.
    pub start_window_ms: u64,
    /// The CoAP-over-TCP messages.
    pub sizes: CoapTcpSizes,
    /// The simulation ends at this time (coapcc's `time_limit_ms`), s.
    pub time_limit_s: f64,
}

/// One flow as the reference reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReferenceFlow {
    /// FCT, s (NaN for a flow that did not finish).
    pub fct_s: f64,
    /// Retransmission-timer expiries of both ends.
    pub timeouts: u64,
    /// Data segments either end sent again.
    pub retransmissions: u64,
    /// The connection was given up (too many timeouts in a row).
    pub aborted: bool,
}

/// An independent TCP simulator that runs a [`ReferenceCase`].
pub trait TcpReference {
    /// Its name in the report.
    fn name(&self) -> String;
    /// Every flow of every replication.
    fn flows(&mut self, case: &ReferenceCase) -> Result<Vec<ReferenceFlow>, ReportError>;
}

/// The ns-3 program of `tests/crosscheck-tcp/ns3_firmware.cc`, built by `scripts/setup-ns3`.
#[derive(Clone, Debug)]
pub struct Ns3Program {
    /// Its path.
    pub path: PathBuf,
}

impl TcpReference for Ns3Program {
    fn name(&self) -> String {
        "ns-3 3.44 (TcpCubic / TcpLinuxReno, PRR, SACK, DupThresh loss marking)".into()
    }

    fn flows(&mut self, c: &ReferenceCase) -> Result<Vec<ReferenceFlow>, ReportError> {
        let args = [
            format!("--cc={}", c.congestion.name()),
            format!("--clients={}", c.clients),
            format!("--bufferBytes={}", c.buffer_bytes),
            format!("--errors={}", c.errors.name()),
            format!("--replications={}", c.replications),
            format!("--startWindowMs={}", c.start_window_ms),
            format!("--clientCsm={}", c.sizes.client_csm),
            format!("--serverCsm={}", c.sizes.server_csm),
            format!("--request={}", c.sizes.request),
            format!("--response={}", c.sizes.response),
            format!("--stopS={}", c.time_limit_s),
        ];
        let shown = format!("{} {}", self.path.display(), args.join(" "));
        let out = Command::new(&self.path).args(&args).output().map_err(|e| {
            ReportError::Reference(format!(
                "cannot run the ns-3 program `{}` ({e}); build it with scripts/setup-ns3",
                self.path.display()
            ))
        })?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(ReportError::Reference(format!(
                "`{shown}` failed ({}): {}",
                out.status,
                err.lines().last().unwrap_or_default()
            )));
        }
        parse_flows(&String::from_utf8_lossy(&out.stdout))
            .map_err(|problem| ReportError::Reference(format!("`{shown}`: {problem}")))
    }
}

/// Why the ns-3 program's output could not be read (the text names the line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FctOutputError(String);

/// The header of the ns-3 program's output.
pub const REFERENCE_HEADER: &str = "replication,client,setup_s,fct_s,timeouts,retransmissions,aborted";

/// The flows of the ns-3 program's output ([`REFERENCE_HEADER`]; an empty `fct_s` is a flow
/// that did not finish).
pub fn parse_flows(text: &str) -> Result<Vec<ReferenceFlow>, FctOutputError> {
    let e = FctOutputError;
    let mut lines = text.lines();
    if lines.next() != Some(REFERENCE_HEADER) {
        return Err(e(format!("its output does not start with the header `{REFERENCE_HEADER}`")));
    }
    let count = |l: &str, x: &str| x.trim().parse::<u64>().map_err(|_| e(format!("line `{l}`: `{x}` is not a count")));
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let [_, _, _, fct, timeouts, retransmissions, aborted] = f[..] else {
                return Err(e(format!("line `{l}` does not have the 7 fields of the header")));
            };
            let fct_s = match fct {
                "" => f64::NAN,
                x => x.trim().parse::<f64>().map_err(|_| e(format!("line `{l}`: `{x}` is not a number")))?,
            };
            Ok(ReferenceFlow {
                fct_s,
                timeouts: count(l, timeouts)?,
                retransmissions: count(l, retransmissions)?,
                aborted: count(l, aborted)? != 0,
            })
        })
        .collect()
}

/// The median FCT with every flow counted: one that did not finish is longer than any that
/// did, so the median is infinite when half the flows or more did not finish (NaN for none).
fn median_fct(v: &[f64]) -> f64 {
    let mut v: Vec<f64> = v.iter().map(|&x| if x.is_finite() { x } else { f64::INFINITY }).collect();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The median of counts (NaN for none).
fn median_count(v: &[u64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2] as f64,
        n => (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0,
    }
}

/// The order-statistic 95 % confidence interval of the median of `v`
/// ([`coapcc_sim::results::median_ci_ranks`]), with unfinished flows (NaN) counted as longer
/// than any finished one, s: NaN bounds when there are too few values (fewer than 6).
fn median_ci(v: &[f64]) -> (f64, f64) {
    let mut v: Vec<f64> = v.iter().map(|&x| if x.is_finite() { x } else { f64::INFINITY }).collect();
    v.sort_by(f64::total_cmp);
    median_ci_ranks(v.len()).map_or((f64::NAN, f64::NAN), |((lo, hi), _)| (v[lo - 1], v[hi - 1]))
}

/// One side's flows of one case and congestion control, reduced to what the report shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideSummary {
    /// Median FCT over every flow of every replication, s ([`f64::INFINITY`] when half or more
    /// did not finish).
    pub fct_median_s: f64,
    /// A 95 % confidence interval of that median (order statistics), s:
    /// informative only, the check is on the median.
    pub fct_median_ci_s: (f64, f64),
    /// Median retransmission-timer expiries per flow (both ends).
    pub timeouts_median: f64,
    /// Flows that did not finish.
    pub unfinished: usize,
}

impl SideSummary {
    fn of(fcts: &[f64], timeouts: &[u64]) -> SideSummary {
        SideSummary {
            fct_median_s: median_fct(fcts),
            fct_median_ci_s: median_ci(fcts),
            timeouts_median: median_count(timeouts),
            unfinished: fcts.iter().filter(|x| !x.is_finite()).count(),
        }
    }
}

/// One row of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct FctComparison {
    /// The case (scenario name).
    pub case: String,
    /// The congestion control.
    pub congestion: CongestionControl,
    /// coapcc in the matched configuration ([`MATCHED`]).
    pub matched: SideSummary,
    /// coapcc matched and without RACK ([`MATCHED`] and [`DUPTHRESH`]).
    pub dupthresh: SideSummary,
    /// coapcc with Linux's defaults (the firmware experiment's numbers).
    pub linux: SideSummary,
    /// coapcc in the ns-3-alike configuration ([`MATCHED`] and [`NS3_ALIKE`]): the checked one.
    pub ns3_alike: SideSummary,
    /// The reference.
    pub reference: SideSummary,
}

/// (ours − theirs) / theirs; NaN when either median is infinite (did not finish).
fn relative(ours: f64, theirs: f64) -> f64 {
    if ours.is_finite() && theirs.is_finite() { (ours - theirs) / theirs } else { f64::NAN }
}

impl FctComparison {
    /// (coapcc ns-3-alike − reference) / reference: the checked difference.
    pub fn relative_difference(&self) -> f64 {
        relative(self.ns3_alike.fct_median_s, self.reference.fct_median_s)
    }

    /// (coapcc matched − reference) / reference: shown, not checked.
    pub fn matched_relative_difference(&self) -> f64 {
        relative(self.matched.fct_median_s, self.reference.fct_median_s)
    }

    /// (coapcc matched without RACK − reference) / reference: shown, not checked.
    pub fn dupthresh_relative_difference(&self) -> f64 {
        relative(self.dupthresh.fct_median_s, self.reference.fct_median_s)
    }

    /// (coapcc Linux defaults − reference) / reference: shown, not checked.
    pub fn linux_relative_difference(&self) -> f64 {
        relative(self.linux.fct_median_s, self.reference.fct_median_s)
    }

    /// The ns-3-alike configuration within [`TOLERANCE`]: the check.
    pub fn agrees(&self) -> bool {
        self.relative_difference().abs() <= TOLERANCE
    }

    /// The matched configuration within [`TOLERANCE`]: shown, not checked.
    pub fn matched_agrees(&self) -> bool {
        self.matched_relative_difference().abs() <= TOLERANCE
    }
}

/// One congestion control's flows over every run: each flow's FCT (s) and timeouts.
type Flows = (Vec<f64>, Vec<u64>);

/// Per congestion control of a scenario: the FCT and timeouts of every flow of every run.
fn flows_of(runs: &[coapcc_sim::AlgorithmRuns]) -> Vec<Flows> {
    runs.iter()
        .map(|a| {
            let tcp = a.runs.iter().filter_map(|r| match r {
                RunOutput::Tcp(t) => Some(t),
                _ => None,
            });
            let fcts = tcp.clone().flat_map(|t| t.network.flows.iter().map(|f| f.fct_s)).collect();
            let timeouts = tcp.flat_map(|t| t.flows.iter().map(|f| f.timeouts)).collect();
            (fcts, timeouts)
        })
        .collect()
}

/// Runs one case (`file`) five ways (coapcc with Linux's defaults, coapcc matched, coapcc
/// matched without RACK, coapcc ns-3-alike, the reference) and writes each side's flows under
/// `dir/` (`coapcc/`, `coapcc-matched/`, `coapcc-matched-dupthresh/`, `coapcc-ns3-alike/`,
/// `reference/`).
fn run_case(
    opts: &ReproduceOptions,
    file: &Path,
    replications: u32,
    dir: &Path,
    reference: &mut dyn TcpReference,
) -> Result<Vec<FctComparison>, ReportError> {
    let set = vec![Setting::replications(replications)];
    let s = opts.scenarios.load(file, &set)?;
    let Model::Tcp(m) = &s.model else {
        return Err(ReportError::Options(format!("{}: not a [tcp] scenario", s.file.name)));
    };
    let NetworkConfig::Nbiot(nb) = &m.network else {
        return Err(ReportError::Options(format!("{}: the cross-check models [network.nbiot] only", s.file.name)));
    };
    if *nb != NbiotConfig::testbed(nb.buffer_bytes, nb.errors) {
        return Err(ReportError::Options(format!(
            "{}: the cross-check models the testbed's link with only `buffer_bytes` and `errors` set",
            s.file.name
        )));
    }
    let settings = |pairs: &[(&str, &str)]| -> Result<Vec<Setting>, ReportError> {
        let mut v = set.clone();
        for (key, value) in pairs {
            v.push(Setting::new(key, Value::parse(value)).map_err(|e| ReportError::Options(e.to_string()))?);
        }
        Ok(v)
    };
    let run = |pairs: &[(&str, &str)], sub: &str| -> Result<Vec<Flows>, ReportError> {
        let sc = opts.scenarios.load(file, &settings(pairs)?)?;
        let runs = run_scenario(&sc, &|| {})?;
        write_results(&dir.join(sub), &sc, &runs)?;
        Ok(flows_of(&runs))
    };
    let linux = run(&[], "coapcc")?;
    let matched = run(&MATCHED, "coapcc-matched")?;
    let dupthresh_pairs: Vec<(&str, &str)> = MATCHED.iter().copied().chain([DUPTHRESH]).collect();
    let dupthresh = run(&dupthresh_pairs, "coapcc-matched-dupthresh")?;
    let alike_pairs: Vec<(&str, &str)> = MATCHED.iter().chain(NS3_ALIKE.iter()).copied().collect();
    let alike = run(&alike_pairs, "coapcc-ns3-alike")?;
    let mut rows = Vec::new();
    let sides = m.congestion.iter().zip(linux).zip(matched).zip(dupthresh).zip(alike);
    for (((((name, congestion), linux), ours), dup), alike) in sides {
        let case = ReferenceCase {
            congestion: *congestion,
            clients: m.tcp.clients,
            buffer_bytes: nb.buffer_bytes,
            errors: nb.errors,
            replications: s.file.replications,
            start_window_ms: u64::try_from(m.tcp.start_window.as_millis()).unwrap_or(u64::MAX),
            sizes: m.tcp.sizes(),
            time_limit_s: m.tcp.time_limit.as_secs_f64(),
        };
        let theirs = reference.flows(&case)?;
        let csv: String = std::iter::once(format!("{REFERENCE_HEADER}\n"))
            .chain(theirs.iter().enumerate().map(|(i, f)| {
                let fct = if f.fct_s.is_finite() { f.fct_s.to_string() } else { String::new() };
                let per = case.clients as usize;
                format!("{},{},,{fct},{},{},{}\n", i / per, i % per, f.timeouts, f.retransmissions, u8::from(f.aborted))
            }))
            .collect();
        write_atomic(&dir.join("reference").join(format!("{name}.csv")), csv.as_bytes())?;
        let fcts: Vec<f64> = theirs.iter().map(|f| f.fct_s).collect();
        let timeouts: Vec<u64> = theirs.iter().map(|f| f.timeouts).collect();
        rows.push(FctComparison {
            case: s.file.name.clone(),
            congestion: *congestion,
            matched: SideSummary::of(&ours.0, &ours.1),
            dupthresh: SideSummary::of(&dup.0, &dup.1),
            linux: SideSummary::of(&linux.0, &linux.1),
            ns3_alike: SideSummary::of(&alike.0, &alike.1),
            reference: SideSummary::of(&fcts, &timeouts),
        });
    }
    Ok(rows)
}

const WHAT_DIFFERS: &str = "\
How the two are made alike (docs/tcp.md, \"Cross-check against ns-3\"):
- ns-3 is set to Linux's values where it has an attribute: delayed-ACK timeout 40 ms (ns-3's
  default 200 ms), 2 segments; min RTO 200 ms (1 s); SYN timer 1 s (3 s); 15 data retries
  before giving up (6; Linux's tcp_retries2); TcpCubic's HyStartDelayMax 16 ms (1 s); IW 10,
  SACK on, timestamps off, PRR, receive buffer 65 535 B.
- coapcc's matched configuration turns off what ns-3 3.44 does not have: `--set frto=false
  quickacks=0 rto_floor=rfc6298 rto_max_ms=60000` (no F-RTO, no quick ACKs, RTO =
  max(SRTT + 4·RTTVAR, 200 ms), ns-3's 60 s RTO cap). Shown, not checked.
- Loss detection has no matched setting: ns-3 has no RACK, so the matched configuration keeps
  it, and the column `matched, rack=false` shows coapcc with RFC 6675's DupThresh rule alone.
- coapcc's ns-3-alike configuration, the checked one, adds to the matched one what ns-3 3.44
  does and Linux does not, each a `[tcp]` option defined by ns-3's source: `rack=false
  rto_rearm_on_retransmit=false rto_rearm_every_partial_ack=false
  rto_backoff_until_sample=false partial_ack_retransmit=true nextseg_rule3=true
  cubic_wmax_reset_on_timeout=false cubic_srtt=true reno_slow_start_cwnd_limited=false
  cubic_rtt_discard_ms=10 cubic_one_increase_per_ack=true rto_ssthresh_every_timeout=true
  sack_dupacks_start_recovery=true` (DupThresh loss marking; the retransmission timer
  restarted only by the first partial ACK of a recovery and by other ACKs of new data, never
  by a retransmission, with SRTT + 4·RTTVAR again at each; one segment beyond the window on a
  partial ACK, RFC 6582's rule kept with SACK; RFC 6675 NextSeg rule 3; CUBIC keeps W_max
  across a timeout, takes the smoothed RTT on every ACK, ignores samples for 10 ms after an
  epoch starts and grows by at most one segment per ACK; Reno's slow start grows when not
  cwnd-limited; every timeout sets ssthresh again; three ACKs with new SACK blocks start
  recovery).
What still differs: ns-3's rest of the path is a fixed 15 ms each way (coapcc draws
U[10, 20] ms per packet); its PPP header is
compensated by raising the link rates and queue sizes by 298/296. Each side draws its own
random numbers (start offsets, Gilbert–Elliott trajectories): compare medians, not runs.
A flow that did not finish counts as longer than any that did (an infinite median, shown as
`unfinished`, when half the flows or more did not finish). The bracketed intervals are
order-statistic 95 % confidence intervals of each median (informative; the check is on the
medians).
";

/// A median FCT for the table: seconds, or `unfinished`.
fn fmt_fct(x: f64) -> String {
    if x.is_finite() { format!("{x:.2}") } else { "unfinished".into() }
}

/// A median FCT with its 95 % confidence interval: `63.78 [60.12, 70.01]`.
fn fmt_fct_ci(side: &SideSummary) -> String {
    let (lo, hi) = side.fct_median_ci_s;
    if lo.is_nan() {
        return fmt_fct(side.fct_median_s);
    }
    format!("{} [{}, {}]", fmt_fct(side.fct_median_s), fmt_fct(lo), fmt_fct(hi))
}

/// A relative difference for the table: signed percent, or `n/a` (a side did not finish).
fn fmt_rel(x: f64) -> String {
    if x.is_finite() { format!("{:+.1} %", 100.0 * x) } else { "n/a".into() }
}

/// The header of `crosscheck-tcp.csv`: the checked comparison first (ns-3 and coapcc
/// ns-3-alike, with the medians' confidence intervals), then the shown configurations.
const CSV_HEADER: &str = "case,congestion_control,reference_fct_median_s,ns3_alike_fct_median_s,\
relative_difference,agrees,reference_ci_low_s,reference_ci_high_s,ns3_alike_ci_low_s,ns3_alike_ci_high_s,\
matched_fct_median_s,matched_relative_difference,matched_agrees,\
dupthresh_fct_median_s,dupthresh_relative_difference,\
linux_default_fct_median_s,linux_default_relative_difference,\
timeouts_median_ns3_alike,timeouts_median_reference,timeouts_median_matched,timeouts_median_dupthresh,\
timeouts_median_linux_default,\
unfinished_ns3_alike,unfinished_reference,unfinished_matched,unfinished_dupthresh,unfinished_linux_default";

/// Replications of each side per case: `--replications` if given, else [`QUICK_REPLICATIONS`]
/// for `--quick` and [`FULL_REPLICATIONS`] for a full run (never the scenarios' own).
fn replications_per_case(quick: bool, given: Option<u32>) -> u32 {
    given.unwrap_or(if quick { QUICK_REPLICATIONS } else { FULL_REPLICATIONS })
}

/// Runs `coapcc reproduce crosscheck-tcp` (the options' experiment and jobs are not used): the
/// report (`crosscheck-tcp.md`, `crosscheck-tcp.csv`, each side's data under `data/`) goes to
/// the options' folder and its text to `out`; each case is announced through `progress`.
pub fn run_crosscheck_tcp(
    opts: &ReproduceOptions,
    reference: &mut dyn TcpReference,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<(), ReportError> {
    if opts.replications == Some(0) {
        return Err(ReportError::Options("--replications must be at least 1".into()));
    }
    let dir = opts.out_dir();
    let cases: Vec<&str> = if opts.quick { vec![QUICK_CASE] } else { CASES.to_vec() };
    let replications = replications_per_case(opts.quick, opts.replications);
    let mut md = format!(
        "# coapcc reproduce crosscheck-tcp: coapcc's TCP model against {}\n\n\
         Median FCT (GET to the last byte of the 102 408-byte response) over every flow of every\n\
         replication, with its 95 % confidence interval in brackets. Checked: coapcc in the\n\
         ns-3-alike configuration (set to behave as ns-3's source says ns-3 behaves, below) against\n\
         ns-3, within {:.0} %. Shown, not checked: coapcc matched (only what ns-3 lacks turned off),\n\
         the same without RACK, and coapcc with Linux's defaults (the firmware experiment's\n\
         numbers). Timeouts: median retransmission-timer expiries per flow, both ends.\n\
         Replications per case and side: {replications}.\n\n\
         | case | congestion control | ns-3 (s) | coapcc ns-3-alike (s) | difference | agrees | coapcc matched (s) | difference | agrees, matched | matched, rack=false (s) | difference | Linux defaults (s) | difference | timeouts (ns-3-alike / ns-3 / matched / rack=false / Linux) | unfinished (ns-3-alike / ns-3 / matched / rack=false / Linux) |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        reference.name(),
        100.0 * TOLERANCE
    );
    let mut csv = format!("{CSV_HEADER}\n");
    let within = |x: f64| usize::from(x.abs() <= TOLERANCE);
    let (mut agree, mut agree_matched, mut agree_dup, mut agree_linux, mut total) = (0, 0, 0, 0, 0);
    for case in cases {
        let name = case.trim_end_matches(".toml");
        progress.note(&format!("crosscheck-tcp: {name} (coapcc four ways, then the reference)"));
        let rows = run_case(opts, Path::new(case), replications, &dir.join("data").join(name), reference)?;
        for r in rows {
            total += 1;
            agree += usize::from(r.agrees());
            agree_matched += usize::from(r.matched_agrees());
            agree_dup += within(r.dupthresh_relative_difference());
            agree_linux += within(r.linux_relative_difference());
            let (a, f, m, d, l) = (&r.ns3_alike, &r.reference, &r.matched, &r.dupthresh, &r.linux);
            // The five sides' timeouts and unfinished flows, in the columns' order.
            let timeouts = [a, f, m, d, l].map(|x| x.timeouts_median.to_string());
            let unfinished = [a, f, m, d, l].map(|x| x.unfinished.to_string());
            let yes = |b: bool| if b { "yes" } else { "no" };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.case,
                r.congestion.name(),
                fmt_fct_ci(f),
                fmt_fct_ci(a),
                fmt_rel(r.relative_difference()),
                yes(r.agrees()),
                fmt_fct(m.fct_median_s),
                fmt_rel(r.matched_relative_difference()),
                yes(r.matched_agrees()),
                fmt_fct(d.fct_median_s),
                fmt_rel(r.dupthresh_relative_difference()),
                fmt_fct(l.fct_median_s),
                fmt_rel(r.linux_relative_difference()),
                timeouts.join(" / "),
                unfinished.join(" / ")
            );
            let _ = writeln!(
                csv,
                "{},{},{:.6},{:.6},{:.6},{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{},{:.6},{:.6},{:.6},{:.6},{},{}",
                r.case,
                r.congestion.name(),
                f.fct_median_s,
                a.fct_median_s,
                r.relative_difference(),
                r.agrees(),
                f.fct_median_ci_s.0,
                f.fct_median_ci_s.1,
                a.fct_median_ci_s.0,
                a.fct_median_ci_s.1,
                m.fct_median_s,
                r.matched_relative_difference(),
                r.matched_agrees(),
                d.fct_median_s,
                r.dupthresh_relative_difference(),
                l.fct_median_s,
                r.linux_relative_difference(),
                timeouts.join(","),
                unfinished.join(",")
            );
        }
    }
    let _ = write!(
        md,
        "\n{agree} of {total} agree within {:.0} % in the ns-3-alike configuration (checked); within {:.0} % \
         in the matched configuration: {agree_matched}, matched without RACK: {agree_dup}, with Linux's \
         defaults: {agree_linux} (shown).\n\n",
        100.0 * TOLERANCE,
        100.0 * TOLERANCE
    );
    md.push_str(WHAT_DIFFERS);
    write_atomic(&dir.join("crosscheck-tcp.md"), md.as_bytes())?;
    write_atomic(&dir.join("crosscheck-tcp.csv"), csv.as_bytes())?;
    if let Some(r) = &opts.run {
        crate::run_record::write_run_json(&dir, r)?;
    }
    out.write_all(md.as_bytes())?;
    writeln!(out, "\nreport: {}", dir.join("crosscheck-tcp.md").display())?;
    if agree < total {
        writeln!(
            out,
            "some cases differ by more than {:.0} % in the ns-3-alike configuration (see the table)",
            100.0 * TOLERANCE
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_output_is_read_with_missing_fcts_as_nan_and_bad_lines_refused() {
        let v = parse_flows(&format!("{REFERENCE_HEADER}\n0,0,1.3,32.2,0,3,0\n0,1,1.3,,7,40,1\n")).unwrap();
        assert_eq!(v[0], ReferenceFlow { fct_s: 32.2, timeouts: 0, retransmissions: 3, aborted: false });
        assert!(v[1].fct_s.is_nan());
        assert!(v[1].aborted);
        assert_eq!(v[1].timeouts, 7);
        assert!(parse_flows("x\n").is_err());
        assert!(parse_flows("replication,client,setup_s,fct_s\n0,0,1.3,32.2\n").is_err(), "the old header");
        let bad = parse_flows(&format!("{REFERENCE_HEADER}\n0,0,1.3,abc,0,0,0\n")).unwrap_err();
        assert!(bad.to_string().contains("abc"));
        assert!(parse_flows(&format!("{REFERENCE_HEADER}\n0,0,1.3,32.2,0\n")).is_err(), "too few fields");
    }

    #[test]
    fn an_unfinished_flow_counts_as_longer_than_every_finished_one() {
        // Five flows, two unfinished: sorted 10, 20, 30, inf, inf; the median is 30, not the 20
        // of the three finished ones alone.
        assert_eq!(median_fct(&[30.0, f64::NAN, 10.0, f64::NAN, 20.0]), 30.0);
        // Half or more unfinished: the median did not finish either.
        assert_eq!(median_fct(&[10.0, f64::NAN]), f64::INFINITY);
        assert!(median_fct(&[]).is_nan());
        assert_eq!(median_count(&[3, 1, 2, 10]), 2.5);
    }

    fn side(fct_median_s: f64) -> SideSummary {
        SideSummary { fct_median_s, fct_median_ci_s: (f64::NAN, f64::NAN), timeouts_median: 0.0, unfinished: 0 }
    }

    #[test]
    fn a_case_agrees_within_ten_percent_in_the_ns3_alike_configuration_only() {
        let c = |alike, linux, reference| FctComparison {
            case: "c".into(),
            congestion: CongestionControl::Cubic,
            matched: side(linux),
            dupthresh: side(linux),
            linux: side(linux),
            ns3_alike: side(alike),
            reference: side(reference),
        };
        assert!(c(32.2, 40.0, 32.22).agrees());
        assert!(c(35.4, 32.2, 32.2).agrees());
        assert!(!c(35.5, 32.2, 32.2).agrees());
        assert!(!c(f64::NAN, 32.2, 32.2).agrees());
        assert!(!c(f64::INFINITY, 32.2, 32.2).agrees(), "an unfinished median never agrees");
        assert!(!c(32.2, 32.2, f64::INFINITY).agrees());
        assert!((c(32.2, 40.0, 32.0).linux_relative_difference() - 0.25).abs() < 1e-12);
        assert!(!c(32.2, 40.0, 32.0).matched_agrees(), "the matched column is shown beside it");
    }

    #[test]
    fn a_full_run_takes_200_replications_quick_3_and_replications_overrides_both() {
        assert_eq!(replications_per_case(false, None), 200);
        assert_eq!(replications_per_case(true, None), 3);
        assert_eq!(replications_per_case(false, Some(40)), 40);
        assert_eq!(replications_per_case(true, Some(7)), 7);
    }

    #[test]
    fn the_median_interval_counts_unfinished_flows_as_the_longest() {
        // n = 20: P(B ≤ 5) = 21 700/2²⁰ = 0.0207 ≤ 2.5 % < P(B ≤ 6) = 0.0577 for B ~
        // Binomial(20, ½), so the 6th and 15th of the sorted values (coverage 95.9 %).
        let v: Vec<f64> = (1..=20).map(f64::from).rev().collect();
        assert_eq!(median_ci(&v), (6.0, 15.0));
        // Unfinished flows sort last: with 6 of 20 unfinished the upper bound is unfinished.
        let mut v: Vec<f64> = (1..=14).map(f64::from).collect();
        v.extend([f64::NAN; 6]);
        assert_eq!(median_ci(&v), (6.0, f64::INFINITY));
    }

    #[test]
    fn the_matched_configuration_sets_what_ns3_does_on_a_firmware_scenario() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/firmware/tcp-1-client.toml");
        let settings: Vec<Setting> =
            MATCHED.into_iter().chain([DUPTHRESH]).map(|(k, v)| Setting::new(k, Value::parse(v)).unwrap()).collect();
        let s = coapcc_driver::scenario::load(&file, &settings).unwrap();
        let Model::Tcp(m) = &s.model else { panic!("a [tcp] scenario") };
        // ns-3 3.44: no F-RTO, no quick ACKs, RTO = max(SRTT + 4·RTTVAR, MinRto), capped at
        // 60 s in TcpSocketBase::ReTxTimeout, DupThresh loss marking.
        assert!(!m.tcp.frto);
        assert_eq!(m.tcp.quickacks, 0);
        assert_eq!(m.tcp.rto_floor, coapcc_driver::scenario::RtoFloor::Rfc6298);
        assert_eq!(m.tcp.rto_max, std::time::Duration::from_secs(60));
        assert!(!m.tcp.rack);
        // The ns-3-alike configuration adds ns-3's own behaviours (docs/tcp.md).
        let alike: Vec<Setting> =
            MATCHED.into_iter().chain(NS3_ALIKE).map(|(k, v)| Setting::new(k, Value::parse(v)).unwrap()).collect();
        let a = coapcc_driver::scenario::load(&file, &alike).unwrap();
        let Model::Tcp(a) = &a.model else { panic!("a [tcp] scenario") };
        let t = &a.tcp;
        assert!(!t.rack && !t.frto && t.sack, "DupThresh loss marking with SACK, no F-RTO");
        assert!(!t.rto_rearm_on_retransmit && !t.rto_rearm_every_partial_ack && !t.rto_backoff_until_sample);
        assert!(t.partial_ack_retransmit && t.nextseg_rule3);
        assert!(!t.cubic_wmax_reset_on_timeout && t.cubic_srtt && !t.reno_slow_start_cwnd_limited);
        assert_eq!(t.cubic_rtt_discard, std::time::Duration::from_millis(10));
        assert!(t.cubic_one_increase_per_ack && t.rto_ssthresh_every_timeout && t.sack_dupacks_start_recovery);
        // What ns-3 is set to instead stays Linux's.
        assert_eq!(m.tcp.delayed_ack, std::time::Duration::from_millis(40));
        assert_eq!(m.tcp.rto_min, std::time::Duration::from_millis(200));
    }
}
