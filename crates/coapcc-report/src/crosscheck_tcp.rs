//! `coapcc reproduce crosscheck-tcp`: coapcc's TCP model (`docs/tcp.md`) against an
//! independent one, ns-3's TCP (TcpCubic, TcpLinuxReno) over point-to-point links with the
//! same rates, delays, byte-limited drop-tail queues and Gilbert–Elliott errors, run through
//! the caller's [`TcpReference`] (the binary's is the ns-3 program that `scripts/setup-ns3`
//! builds). Per firmware case and congestion control, the median FCT over every flow of every
//! replication must agree within 10 %. Not part of `reproduce all` (it needs ns-3).

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use coapcc_driver::link::presets::{LinkErrors, NbiotConfig};
use coapcc_driver::scenario::{CoapTcpSizes, CongestionControl, Model, NetworkConfig, Setting};
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
/// The `--quick` case (and the test suite's): one error-free client, unlimited buffer.
pub const QUICK_CASE: &str = "firmware/tcp-1-client-1410000-none.toml";
/// Replications of each side in `--quick`.
pub const QUICK_REPLICATIONS: u32 = 3;

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
}

/// An independent TCP simulator that runs a [`ReferenceCase`].
pub trait TcpReference {
    /// Its name in the report.
    fn name(&self) -> String;
    /// The FCT of every flow of every replication, s (NaN for a flow that did not finish).
    fn fcts(&mut self, case: &ReferenceCase) -> Result<Vec<f64>, ReportError>;
}

/// The ns-3 program of `tests/crosscheck-tcp/ns3_firmware.cc`, built by `scripts/setup-ns3`.
#[derive(Clone, Debug)]
pub struct Ns3Program {
    /// Its path.
    pub path: PathBuf,
}

impl TcpReference for Ns3Program {
    fn name(&self) -> String {
        "ns-3 3.44 (TcpCubic / TcpLinuxReno, PRR, SACK)".into()
    }

    fn fcts(&mut self, c: &ReferenceCase) -> Result<Vec<f64>, ReportError> {
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
        parse_fcts(&String::from_utf8_lossy(&out.stdout))
            .map_err(|problem| ReportError::Reference(format!("`{shown}`: {problem}")))
    }
}

/// Why the ns-3 program's output could not be read (the text names the line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FctOutputError(String);

/// The `fct_s` column of the ns-3 program's output (`replication,client,setup_s,fct_s`).
pub fn parse_fcts(text: &str) -> Result<Vec<f64>, FctOutputError> {
    let e = FctOutputError;
    let mut lines = text.lines();
    if lines.next() != Some("replication,client,setup_s,fct_s") {
        return Err(e("its output does not start with the header `replication,client,setup_s,fct_s`".into()));
    }
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| match l.split(',').nth(3) {
            Some("") => Ok(f64::NAN),
            Some(x) => x.trim().parse::<f64>().map_err(|_| e(format!("line `{l}`: `{x}` is not a number"))),
            None => Err(e(format!("line `{l}` has no fct_s field"))),
        })
        .collect()
}

/// The median of the finite values (NaN for none).
fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// One row of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct FctComparison {
    /// The case (scenario name).
    pub case: String,
    /// The congestion control.
    pub congestion: CongestionControl,
    /// coapcc's median FCT, s.
    pub coapcc: f64,
    /// The reference's median FCT, s.
    pub reference: f64,
    /// Flows in coapcc's runs / in the reference's that did not finish.
    pub unfinished: (usize, usize),
}

impl FctComparison {
    /// (coapcc − reference) / reference.
    pub fn relative_difference(&self) -> f64 {
        (self.coapcc - self.reference) / self.reference
    }

    /// Within [`TOLERANCE`].
    pub fn agrees(&self) -> bool {
        self.relative_difference().abs() <= TOLERANCE
    }
}

/// Runs one case (`file`) both ways and writes coapcc's result files under `dir/coapcc/`.
fn run_case(
    opts: &ReproduceOptions,
    file: &Path,
    replications: Option<u32>,
    dir: &Path,
    reference: &mut dyn TcpReference,
) -> Result<Vec<FctComparison>, ReportError> {
    let set: Vec<Setting> = replications.map(Setting::replications).into_iter().collect();
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
    let runs = run_scenario(&s, &|| {})?;
    write_results(&dir.join("coapcc"), &s, &runs)?;
    let mut rows = Vec::new();
    for (a, (name, congestion)) in runs.iter().zip(&m.congestion) {
        let ours: Vec<f64> = a
            .runs
            .iter()
            .flat_map(|r| match r {
                RunOutput::Tcp(t) => t.network.flows.iter().map(|f| f.fct_s).collect(),
                _ => Vec::new(),
            })
            .collect();
        let case = ReferenceCase {
            congestion: *congestion,
            clients: m.tcp.clients,
            buffer_bytes: nb.buffer_bytes,
            errors: nb.errors,
            replications: s.file.replications,
            start_window_ms: u64::try_from(m.tcp.start_window.as_millis()).unwrap_or(u64::MAX),
            sizes: m.tcp.sizes(),
        };
        let theirs = reference.fcts(&case)?;
        let csv: String =
            std::iter::once("fct_s\n".to_string()).chain(theirs.iter().map(|x| format!("{x}\n"))).collect();
        write_atomic(&dir.join("reference").join(format!("{name}.csv")), csv.as_bytes())?;
        rows.push(FctComparison {
            case: s.file.name.clone(),
            congestion: *congestion,
            unfinished: (
                ours.iter().filter(|x| !x.is_finite()).count(),
                theirs.iter().filter(|x| !x.is_finite()).count(),
            ),
            coapcc: median(ours),
            reference: median(theirs),
        });
    }
    Ok(rows)
}

const WHAT_DIFFERS: &str = "\
What the two models do differently (docs/tcp.md):
- coapcc follows Linux: F-RTO, the RTO floor as SRTT + max(4·RTTVAR, 200 ms), HyStart's delay
  threshold capped at 16 ms, CUBIC's first-epoch growth of at least one segment per 20 ACKs,
  quick ACKs at the start, no cwnd growth while not cwnd-limited, RACK loss marking (a lost
  retransmission or a hole with few SACKs above it is found without the timer).
  ns-3 uses its own TCP: RFC 6298's max(SRTT + 4·RTTVAR, 200 ms), HyStart up to 1 s of delay
  increase, no F-RTO, RFC 6675's DupThresh loss marking (no RACK).
- ns-3's rest of the path is a fixed 15 ms each way (coapcc draws U[10, 20] ms per packet);
  its PPP header is compensated by raising the link rates and queue sizes by 298/296; its
  wireless devices have the testbed's 296-byte MTU, so a buffer holds as many packets as
  coapcc's.
- Each side draws its own random numbers (start offsets, Gilbert–Elliott trajectories):
  compare medians, not runs.
";

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
    let replications = opts.replications.or(opts.quick.then_some(QUICK_REPLICATIONS));
    let mut md = format!(
        "# coapcc reproduce crosscheck-tcp: coapcc's TCP model against {}\n\n\
         Median FCT (GET to the last byte of the 102 408-byte response) over every flow of every\n\
         replication; agreement within {:.0} %.\n\n\
         | case | congestion control | coapcc (s) | reference (s) | difference | agrees | unfinished (coapcc / reference) |\n\
         |---|---|---|---|---|---|---|\n",
        reference.name(),
        100.0 * TOLERANCE
    );
    let mut csv =
        String::from("case,congestion_control,coapcc_fct_median_s,reference_fct_median_s,relative_difference,agrees\n");
    let mut all_agree = true;
    for case in cases {
        let name = case.trim_end_matches(".toml");
        progress.note(&format!("crosscheck-tcp: {name} (coapcc, then the reference)"));
        let rows = run_case(opts, Path::new(case), replications, &dir.join("data").join(name), reference)?;
        for r in rows {
            all_agree &= r.agrees();
            let _ = writeln!(
                md,
                "| {} | {} | {:.2} | {:.2} | {:+.1} % | {} | {} / {} |",
                r.case,
                r.congestion.name(),
                r.coapcc,
                r.reference,
                100.0 * r.relative_difference(),
                if r.agrees() { "yes" } else { "no" },
                r.unfinished.0,
                r.unfinished.1
            );
            let _ = writeln!(
                csv,
                "{},{},{:.6},{:.6},{:.6},{}",
                r.case,
                r.congestion.name(),
                r.coapcc,
                r.reference,
                r.relative_difference(),
                r.agrees()
            );
        }
    }
    md.push('\n');
    md.push_str(WHAT_DIFFERS);
    write_atomic(&dir.join("crosscheck-tcp.md"), md.as_bytes())?;
    write_atomic(&dir.join("crosscheck-tcp.csv"), csv.as_bytes())?;
    if let Some(r) = &opts.run {
        crate::run_record::write_run_json(&dir, r)?;
    }
    out.write_all(md.as_bytes())?;
    writeln!(out, "\nreport: {}", dir.join("crosscheck-tcp.md").display())?;
    if !all_agree {
        writeln!(out, "some cases differ by more than {:.0} % (see the table)", 100.0 * TOLERANCE)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_output_is_read_with_missing_fcts_as_nan_and_bad_lines_refused() {
        let v = parse_fcts("replication,client,setup_s,fct_s\n0,0,1.3,32.2\n0,1,1.3,\n").unwrap();
        assert_eq!(v[0], 32.2);
        assert!(v[1].is_nan());
        assert!(parse_fcts("x\n").is_err());
        assert!(parse_fcts("replication,client,setup_s,fct_s\n0,0,1.3,abc\n").unwrap_err().to_string().contains("abc"));
    }

    #[test]
    fn a_case_agrees_within_ten_percent() {
        let c = |coapcc, reference| FctComparison {
            case: "c".into(),
            congestion: CongestionControl::Cubic,
            coapcc,
            reference,
            unfinished: (0, 0),
        };
        assert!(c(32.2, 32.22).agrees());
        assert!(c(35.4, 32.2).agrees());
        assert!(!c(35.5, 32.2).agrees());
        assert!(!c(f64::NAN, 32.2).agrees());
    }
}
