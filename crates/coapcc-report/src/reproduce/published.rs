//! One experiment's description, read from `data/published/<experiment>.toml` (compiled in,
//! so the binary works anywhere; the numbers live only in those files): the published data
//! (the paper, its figures we redraw, its claims with their metrics and checks) and how we
//! reproduce it (the cases run, the investigations, the side-by-side tables). Everything is
//! checked when the file loads, and an error names the file and the item.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::error::ReportError;

use super::experiments::Cases;
use super::investigate::spec::InvestigationSpec;

/// One experiment's description file.
#[derive(Clone, Debug)]
pub struct Published {
    /// Experiment id (`fasor`, …).
    pub experiment: String,
    /// Its position in `--list` and in the report of `all` (ascending; required of every
    /// experiment of the catalogue, [`all`]).
    pub order: Option<u32>,
    /// One line on what it reproduces (`--list`).
    pub about: String,
    /// Title for the report.
    pub title: String,
    /// Full citation.
    pub paper: String,
    /// The key (in `data/published/references.toml`) of the work the claims come from.
    pub cites: String,
    /// The simulations it runs, full and `--quick`.
    pub cases: Cases,
    /// Their figures we reproduce.
    pub figures: Vec<FigureSpec>,
    /// Their claims, each checked into a [`Metric`] and a [`Check`].
    pub claims: Vec<Claim>,
    /// Investigations of open modelling choices, in report order.
    pub investigations: Vec<InvestigationSpec>,
    /// Their result tables rebuilt from the claims, side by side with ours (none if absent).
    pub side_tables: Option<SideTables>,
    /// Our result tables, for an experiment with no published results beside them (none if absent).
    pub result_table: Option<ResultTable>,
    /// The parameters we fitted to a published number or chose where the sources give none,
    /// listed in the report next to the claims they affect.
    pub parameters: Vec<Parameter>,
}

/// A parameter of the experiment's scenarios that the sources do not give: fitted to a
/// published number (the claims it was fitted to carry `calibration = "ID"` and are not
/// counted) or chosen by us (a surrogate geometry, a unit, a size), with the reason.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// Its id (`calibration = "ID"` of a claim names it).
    pub id: String,
    /// What it is, in words.
    pub name: String,
    /// The scenario key it sets (`multihop.udgm.success_ratio_tx`), if it is one key.
    #[serde(default)]
    pub key: Option<String>,
    /// Its value as the scenarios set it (`0.94`, `a 5 × 6 lattice at 38 m`).
    pub value: String,
    /// Fitted or chosen.
    pub kind: ParameterKind,
    /// Why this value: what it was fitted to, or why the sources allow no better choice.
    pub why: String,
    /// The cases it applies to: case or sweep names, or a folder prefix ending in `/`.
    pub cases: Vec<String>,
}

/// How a [`Parameter`]'s value was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParameterKind {
    /// Fitted to a published number (its claims are calibration, not evidence).
    Fitted,
    /// Chosen by us where the sources give no value.
    Chosen,
}

impl ParameterKind {
    /// Its word in the report.
    pub fn word(self) -> &'static str {
        match self {
            ParameterKind::Fitted => "fitted",
            ParameterKind::Chosen => "chosen",
        }
    }
}

impl Parameter {
    /// Whether it applies to case (or sweep) `name`: named, a point of a named sweep
    /// (`name@…`), or under a named folder prefix (`betzler/`).
    pub fn applies_to(&self, name: &str) -> bool {
        self.cases.iter().any(|c| {
            if c.ends_with('/') {
                name.starts_with(c.as_str())
            } else {
                name == c || name.strip_prefix(c.as_str()).is_some_and(|rest| rest.starts_with('@'))
            }
        })
    }

    /// Whether it affects `claim`: it applies to a case or sweep the claim is measured at.
    pub fn affects(&self, claim: &Claim) -> bool {
        claim.metric.places().iter().any(|p| self.applies_to(p))
    }
}

/// The file as written, claims, figures and investigations not yet checked (so that an error
/// can name them).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPublished {
    experiment: String,
    #[serde(default)]
    order: Option<u32>,
    #[serde(default)]
    about: Option<String>,
    title: String,
    paper: String,
    cites: String,
    #[serde(default)]
    cases: Cases,
    #[serde(default, rename = "figure")]
    figures: Vec<toml::Table>,
    #[serde(default, rename = "claim")]
    claims: Vec<toml::Table>,
    #[serde(default, rename = "investigation")]
    investigations: Vec<toml::Table>,
    #[serde(default)]
    side_tables: Option<SideTables>,
    #[serde(default)]
    result_table: Option<ResultTable>,
    #[serde(default, rename = "parameter")]
    parameters: Vec<Parameter>,
}

/// Our result tables of an experiment with no published results to set beside them (the
/// firmware update): per `[[result_table.table]]` one table of each metric (median FCT, median
/// retransmissions per flow, goodput of the median flow), rows the algorithms of its cases,
/// columns the named groups of cases (`reproduce/result_table.rs`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultTable {
    /// What the tables show, printed above them.
    pub about: String,
    /// Row names of algorithms (`cubic` → `TCP CUBIC`); an algorithm not listed keeps its own.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// The tables.
    #[serde(rename = "table")]
    pub tables: Vec<ResultGrid>,
}

/// One table of a [`ResultTable`]: its title and its columns.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultGrid {
    /// The title (`One client`).
    pub title: String,
    /// The columns, in order.
    pub columns: Vec<ResultColumn>,
}

/// One column of a [`ResultGrid`]: the cases whose algorithms fill it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultColumn {
    /// The column head (`28 200 B, high`).
    pub label: String,
    /// The cases (each algorithm's row takes its value from the first case that has it).
    pub cases: Vec<String>,
}

/// Their result tables, rebuilt from the claims on a multihop run metric's mean (`mh_mean`)
/// and shown side by side with ours: one table per case family, rows variant × metric,
/// columns algorithm, each cell the claim on that (case, metric, algorithm).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideTables {
    /// The heading of the variant column (`RDC`).
    pub variant_heading: String,
    /// `[suffix, label]`: a case whose name ends in the suffix is that variant of the family
    /// the rest of its name names (`betzler/1-to-1-no-rdc` is `No RDC` of `1-to-1`).
    pub variants: Vec<[String; 2]>,
    /// `[run metric, words]`: the table's metrics, in row order.
    pub metrics: Vec<[String; 2]>,
    /// The paper's names of our algorithms (column heads); an algorithm not listed keeps its own.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
}

impl SideTables {
    /// The paper's name of algorithm `a`.
    pub fn paper_name<'a>(&'a self, a: &'a str) -> &'a str {
        self.names.get(a).map_or(a, String::as_str)
    }
}

/// Which figure we draw (`kind` of a `[[figure]]`), checked when the file loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FigureKind {
    /// `fct-box`: box plots of the flow completion time, a panel per case.
    FctBox,
    /// `retransmissions-box`: retransmissions per flow.
    RetransmissionsBox,
    /// `unnecessary-box`: unnecessary retransmissions per flow.
    UnnecessaryBox,
    /// `rtt-box`: CoAP round-trip times.
    RttBox,
    /// `expired-rto-box`: the RTO values that expired.
    ExpiredRtoBox,
    /// `rto-trace`: RTO against RTT over an RTT trace.
    RtoTrace,
    /// `rmse-bars`: RMSE of RTO − RTT per trace.
    RmseBars,
    /// `spurious-bars`: spurious transmissions per trace.
    SpuriousBars,
    /// `rate-timeseries`: sending and success rates against the residual bandwidth over time.
    RateTimeseries,
    /// `goodput-sweep`: goodput over the points of a sweep.
    GoodputSweep,
    /// `loss-sweep`: application loss ratio over the points of a sweep.
    LossSweep,
    /// `overhead-sweep`: overhead over the points of a sweep.
    OverheadSweep,
    /// `mh-ci:METRIC`: a multihop run metric's mean with its 95 % confidence interval.
    MhCi(String),
    /// `mh-bars:METRIC`: a multihop run metric's mean as grouped bars.
    MhBars(String),
    /// `mh-series:ALGORITHM`: exchange durations and RTO over time of continuous CoAP flows.
    MhSeries(String),
    /// `mh-trace:SCHEME`: a TCP scheme's per-node RTT samples and RTO over time.
    MhTrace(String),
}

/// The kinds without an argument, as written.
const PLAIN_KINDS: [(&str, FigureKind); 12] = [
    ("fct-box", FigureKind::FctBox),
    ("retransmissions-box", FigureKind::RetransmissionsBox),
    ("unnecessary-box", FigureKind::UnnecessaryBox),
    ("rtt-box", FigureKind::RttBox),
    ("expired-rto-box", FigureKind::ExpiredRtoBox),
    ("rto-trace", FigureKind::RtoTrace),
    ("rmse-bars", FigureKind::RmseBars),
    ("spurious-bars", FigureKind::SpuriousBars),
    ("rate-timeseries", FigureKind::RateTimeseries),
    ("goodput-sweep", FigureKind::GoodputSweep),
    ("loss-sweep", FigureKind::LossSweep),
    ("overhead-sweep", FigureKind::OverheadSweep),
];

/// Makes a kind with an argument from its argument.
type WithArgument = fn(String) -> FigureKind;

/// The kinds with an argument, as written before the colon.
const ARGUMENT_KINDS: [(&str, WithArgument); 4] = [
    ("mh-ci:", FigureKind::MhCi),
    ("mh-bars:", FigureKind::MhBars),
    ("mh-series:", FigureKind::MhSeries),
    ("mh-trace:", FigureKind::MhTrace),
];

/// A figure kind that is none of [`FigureKind`]'s: the text read and the valid kinds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown kind `{kind}`; valid kinds: {valid}")]
pub struct UnknownFigureKind {
    /// The text read.
    pub kind: String,
    /// The valid kinds, comma-separated (`fct-box`, …, `mh-ci:NAME`, …).
    pub valid: String,
}

impl std::str::FromStr for FigureKind {
    type Err = UnknownFigureKind;
    /// Reads `fct-box`, `mh-ci:goodput_bps`, …; the error lists the valid kinds.
    fn from_str(s: &str) -> Result<FigureKind, UnknownFigureKind> {
        if let Some((_, k)) = PLAIN_KINDS.iter().find(|(w, _)| *w == s) {
            return Ok(k.clone());
        }
        for (prefix, make) in ARGUMENT_KINDS {
            if let Some(arg) = s.strip_prefix(prefix).filter(|a| !a.is_empty()) {
                return Ok(make(arg.to_string()));
            }
        }
        let valid: Vec<String> = PLAIN_KINDS
            .iter()
            .map(|(w, _)| w.to_string())
            .chain(ARGUMENT_KINDS.iter().map(|(p, _)| format!("{p}NAME")))
            .collect();
        Err(UnknownFigureKind { kind: s.to_string(), valid: valid.join(", ") })
    }
}

impl fmt::Display for FigureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((w, _)) = PLAIN_KINDS.iter().find(|(_, k)| k == self) {
            return f.write_str(w);
        }
        let (prefix, arg) = match self {
            FigureKind::MhCi(a) => ("mh-ci:", a),
            FigureKind::MhBars(a) => ("mh-bars:", a),
            FigureKind::MhSeries(a) => ("mh-series:", a),
            FigureKind::MhTrace(a) => ("mh-trace:", a),
            _ => ("", &String::new()),
        };
        write!(f, "{prefix}{arg}")
    }
}

impl<'de> Deserialize<'de> for FigureKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FigureKind, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// One of their figures.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// Our figure id.
    pub id: String,
    /// Their figure number ("Fig. 3").
    pub their: String,
    /// Their caption.
    pub caption: String,
    /// What their figure shows.
    pub shows: String,
    /// Which kind of figure we draw.
    pub kind: FigureKind,
    /// The cases (scenario names, or sweep names) it covers.
    #[serde(default)]
    pub cases: Vec<String>,
    /// Algorithms to show (default: all of the case).
    #[serde(default)]
    pub algorithms: Vec<String>,
    /// A note on how ours differs in form.
    #[serde(default)]
    pub note: Option<String>,
}

/// One published claim and how to check it (`data/published/README.md`, `[[claim]]`).
#[derive(Clone, Debug)]
pub struct Claim {
    /// Unique id.
    pub id: String,
    /// The claim in words.
    pub text: String,
    /// Where it is published (section, figure or table, page).
    pub source: String,
    /// The metric that gives our number, with where and of which algorithms it is measured.
    pub metric: Metric,
    /// The published value (fractions, not percentages).
    pub published: f64,
    /// The text states a direction or equality but no number: `published` is a marker.
    pub qualitative: bool,
    /// The words stating it, verbatim.
    pub quote: Option<String>,
    /// How a published number was computed from an expression the text gives.
    pub derivation: Option<String>,
    /// The key of the work this claim comes from, when it differs from the file's `cites`.
    pub cites: Option<String>,
    /// How our number is judged against the published one.
    pub check: Check,
    /// Definition of a metric not in the standard list.
    pub definition: Option<String>,
    /// A note shown with the claim.
    pub note: Option<String>,
    /// Why this claim's `ratio` band differs from [`DEFAULT_BAND`] (required exactly when it does).
    pub range_reason: Option<String>,
    /// The id of the claim this one restates (the same fact in other words): it is shown,
    /// linked to that claim, but not counted in the scoreboard.
    pub restates: Option<String>,
    /// The claims (of the same file) whose published numbers this one is arithmetic of or
    /// re-expresses (a ratio of two table cells, an order of them); `derivation` says how.
    /// Shown, linked to them, not counted: each published number counts once.
    pub derived_from: Vec<String>,
    /// The parameter (`[[parameter]]` of the file) this claim was used to fit, or whose fit
    /// alone sets our value for it: calibration, not evidence, so not counted.
    pub calibration: Option<String>,
    /// Why this is an illustration of our own model (a number the paper does not publish, or a
    /// property of our surrogate) rather than a published claim: shown, not counted.
    pub illustration: Option<String>,
    /// Why ours differs, when no investigation of `investigate` explains it alone (`cause = {…}`).
    pub cause: Option<Cause>,
}

/// Why a claim differs (docs/reproduction-status.md, "Why claims differ"): `cause = { kind = "…",
/// text = "…" }`, with `investigations = ["id", …]` when sweeps bear on it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cause {
    /// What kind of cause it is.
    pub kind: CauseKind,
    /// The cause in words: what differs and why.
    pub text: String,
    /// The investigations that bear on it (required for `kind = "investigation"`, none for
    /// `no-sweep`).
    #[serde(default)]
    pub investigations: Vec<String>,
}

/// The kind of a [`Cause`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CauseKind {
    /// No sweep can explain it (a reconstructed algorithm, a reading of the spec, substituted
    /// data): said plainly, with the reason.
    NoSweep,
    /// The named investigations sweep the parameter blamed.
    Investigation,
    /// A candidate parameter that no investigation sweeps yet (said plainly).
    NotSwept,
}

impl CauseKind {
    /// Its words in the report.
    pub fn words(self) -> &'static str {
        match self {
            CauseKind::NoSweep => "no sweep explains it",
            CauseKind::Investigation => "investigated",
            CauseKind::NotSwept => "not swept yet",
        }
    }
}

/// The default band of a `ratio` check: ours/published in [0.8, 1.25] (docs/reproduction-status.md, "Reproduction status").
pub const DEFAULT_BAND: [f64; 2] = [0.8, 1.25];

/// How a claim is counted on the scoreboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// The paper publishes a number and ours is judged against it (`ratio`, `within`).
    Numeric,
    /// The paper states a direction, equality or bound (`sign`, `at_most`, `at_least`, or any
    /// `qualitative` claim).
    Direction,
}

impl ClaimKind {
    /// Its word in `claims.csv`.
    pub fn word(self) -> &'static str {
        match self {
            ClaimKind::Numeric => "numeric",
            ClaimKind::Direction => "direction",
        }
    }
}

impl Claim {
    /// How it is counted on the scoreboard.
    pub fn kind(&self) -> ClaimKind {
        match self.check {
            Check::Ratio { .. } | Check::Within { .. } if !self.qualitative => ClaimKind::Numeric,
            _ => ClaimKind::Direction,
        }
    }

    /// Whether it counts on the scoreboard, or why not.
    pub fn role(&self) -> Role<'_> {
        if let Some(r) = &self.restates {
            Role::Restates(r)
        } else if !self.derived_from.is_empty() {
            Role::Derived(&self.derived_from)
        } else if let Some(p) = &self.calibration {
            Role::Calibration(p)
        } else if self.illustration.is_some() {
            Role::Illustration
        } else {
            Role::Counted
        }
    }

    /// The band of a `ratio` check of its own, other than [`DEFAULT_BAND`] (shown as a second
    /// verdict, never the headline's).
    pub fn own_band(&self) -> Option<[f64; 2]> {
        match self.check {
            Check::Ratio { range: Some(r) } if r != DEFAULT_BAND => Some(r),
            _ => None,
        }
    }
}

/// Whether a claim counts on the scoreboard (`role` of `claims.csv`), or why not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role<'a> {
    /// A published claim of its own: counted.
    Counted,
    /// The same fact as the claim named, in other words.
    Restates(&'a str),
    /// Arithmetic or an order of the published numbers of the claims named.
    Derived(&'a [String]),
    /// Used to fit the parameter named, or set by that fit alone.
    Calibration(&'a str),
    /// An illustration of our own model, not a published claim.
    Illustration,
}

impl Role<'_> {
    /// Its word in `claims.csv` (`counted`, `restates`, `derived`, `calibration`,
    /// `illustration`).
    pub fn word(self) -> &'static str {
        match self {
            Role::Counted => "counted",
            Role::Restates(_) => "restates",
            Role::Derived(_) => "derived",
            Role::Calibration(_) => "calibration",
            Role::Illustration => "illustration",
        }
    }

    /// The claims or parameter it is linked to, `;`-separated (empty when counted or an
    /// illustration).
    pub fn linked(self) -> String {
        match self {
            Role::Restates(id) | Role::Calibration(id) => id.to_string(),
            Role::Derived(ids) => ids.join(";"),
            Role::Counted | Role::Illustration => String::new(),
        }
    }
}

/// The keys of a claim that are neither its metric's nor its check's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimText {
    id: String,
    text: String,
    source: String,
    published: f64,
    #[serde(default)]
    qualitative: bool,
    #[serde(default)]
    quote: Option<String>,
    #[serde(default)]
    derivation: Option<String>,
    #[serde(default)]
    cites: Option<String>,
    #[serde(default)]
    definition: Option<String>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    range_reason: Option<String>,
    #[serde(default)]
    restates: Option<String>,
    #[serde(default)]
    derived_from: Vec<String>,
    #[serde(default)]
    calibration: Option<String>,
    #[serde(default)]
    illustration: Option<String>,
    #[serde(default)]
    cause: Option<Cause>,
}

const TEXT_KEYS: &[&str] = &[
    "id",
    "text",
    "source",
    "published",
    "qualitative",
    "quote",
    "derivation",
    "cites",
    "definition",
    "note",
    "range_reason",
    "restates",
    "derived_from",
    "calibration",
    "illustration",
    "cause",
];
const CHECK_KEYS: &[&str] = &["check", "range", "value", "tolerance"];

/// How a claim's verdict is reached (`data/published/README.md`, Checks), tagged by `check`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(tag = "check", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// Holds if ours/published lies in `range`.
    Ratio {
        /// The accepted range of ours/published (default [`DEFAULT_BAND`]; another one needs
        /// the claim's `range_reason`).
        #[serde(default)]
        range: Option<[f64; 2]>,
    },
    /// Holds if ours has the sign of `published` (0 has none). (A struct variant, so that a
    /// key it does not take is rejected.)
    Sign {},
    /// Holds if ours ≤ `value`.
    AtMost {
        /// The bound.
        value: f64,
    },
    /// Holds if ours ≥ `value`.
    AtLeast {
        /// The bound.
        value: f64,
    },
    /// Holds if |ours − published| ≤ `tolerance`.
    Within {
        /// The tolerance.
        tolerance: f64,
    },
}

/// A base quantity of one algorithm: per case (`fct_median` …) or over a sweep (`goodput_slope` …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Median FCT, s.
    FctMedian,
    /// 90th minus 10th percentile of FCT, s.
    FctP10P90,
    /// Median unnecessary retransmissions per flow.
    UnnecessaryMedian,
    /// Median retransmissions per flow.
    RetransmissionsMedian,
    /// Median expired RTOs per flow.
    ExpiredRtoMedian,
    /// Median CoAP RTT, s.
    RttMedian,
    /// Mean goodput, messages/s.
    Goodput,
    /// Loss ratio.
    LossRatio,
    /// Lost / delivered packets.
    Overhead,
    /// RMSE of the RTO against the RTT, ms (trace rows).
    RmseMs,
    /// Spurious timeouts (trace rows).
    Spurious,
    /// Least-squares slope of goodput against mean ResBW (sweep).
    GoodputSlope,
    /// R² of that line (sweep).
    GoodputLinearityR2,
    /// Mean goodput over the points with mean ResBW ≥ 0.5, or in `resbw_range` (sweep).
    PlateauGoodput,
    /// Mean goodput over the sweep.
    MeanGoodput,
    /// Largest overhead over the sweep.
    MaxOverhead,
    /// Mean overhead over the sweep.
    MeanOverhead,
    /// CoAP over TCP: median distinct data segments of the response per flow.
    DataSegmentsMedian,
    /// CoAP over TCP: median IP/TCP header bytes of the response's data segments per flow.
    HeaderBytesMedian,
}

impl Quantity {
    /// Its name in metric names.
    pub fn name(self) -> &'static str {
        match self {
            Quantity::FctMedian => "fct_median",
            Quantity::FctP10P90 => "fct_p10_p90",
            Quantity::UnnecessaryMedian => "unnecessary_median",
            Quantity::RetransmissionsMedian => "retransmissions_median",
            Quantity::ExpiredRtoMedian => "expired_rto_median",
            Quantity::RttMedian => "rtt_median",
            Quantity::Goodput => "goodput",
            Quantity::LossRatio => "loss_ratio",
            Quantity::Overhead => "overhead",
            Quantity::RmseMs => "rmse_ms",
            Quantity::Spurious => "spurious",
            Quantity::GoodputSlope => "goodput_slope",
            Quantity::GoodputLinearityR2 => "goodput_linearity_r2",
            Quantity::PlateauGoodput => "plateau_goodput",
            Quantity::MeanGoodput => "mean_goodput",
            Quantity::MaxOverhead => "max_overhead",
            Quantity::MeanOverhead => "mean_overhead",
            Quantity::DataSegmentsMedian => "data_segments_median",
            Quantity::HeaderBytesMedian => "header_bytes_median",
        }
    }
}

/// How two values of a quantity compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// 1 − X(a)/X(b): > 0 iff a is lower.
    Reduction,
    /// X(a)/X(b) − 1: > 0 iff a is higher.
    Gain,
}

impl Comparison {
    /// Its word in messages.
    pub fn word(self) -> &'static str {
        match self {
            Comparison::Reduction => "reduction",
            Comparison::Gain => "gain",
        }
    }
}

/// Where a quantity is measured: one case, or the points of a sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum At<'a> {
    /// A case (scenario name).
    Case(&'a str),
    /// A sweep, optionally only the points whose mean ResBW lies in a range.
    Sweep(&'a str, Option<[f64; 2]>),
}

fn at<'a>(case: &'a Option<String>, sweep: &'a Option<String>, resbw_range: Option<[f64; 2]>) -> At<'a> {
    match (case, sweep) {
        (_, Some(s)) => At::Sweep(s, resbw_range),
        (Some(c), None) => At::Case(c),
        // Excluded when the file loads (`Metric::validate`).
        (None, None) => At::Case(""),
    }
}

fn one_place(case: &Option<String>, sweep: &Option<String>, resbw_range: Option<[f64; 2]>) -> Result<(), String> {
    match (case, sweep, resbw_range) {
        (Some(_), Some(_), _) => Err("give `case` or `sweep`, not both".into()),
        (None, None, _) => Err("missing field `case` (or `sweep`)".into()),
        (Some(_), None, Some(_)) => Err("`resbw_range` needs a `sweep`".into()),
        _ => Ok(()),
    }
}

/// A quantity of algorithm `a` at a case or sweep.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfOne {
    /// The case.
    #[serde(default)]
    pub case: Option<String>,
    /// Or the sweep.
    #[serde(default)]
    pub sweep: Option<String>,
    /// Sweep points kept: mean ResBW in [lo, hi].
    #[serde(default)]
    pub resbw_range: Option<[f64; 2]>,
    /// The algorithm.
    pub a: String,
}

/// Algorithm `a` against algorithm `b` at a case or sweep.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Versus {
    /// The case.
    #[serde(default)]
    pub case: Option<String>,
    /// Or the sweep.
    #[serde(default)]
    pub sweep: Option<String>,
    /// Sweep points kept: mean ResBW in [lo, hi].
    #[serde(default)]
    pub resbw_range: Option<[f64; 2]>,
    /// The algorithm.
    pub a: String,
    /// The one it is compared with.
    pub b: String,
}

/// Algorithm `a` against each of `against` (the least favourable comparison counts).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgainstAll {
    /// The case.
    #[serde(default)]
    pub case: Option<String>,
    /// Or the sweep.
    #[serde(default)]
    pub sweep: Option<String>,
    /// Sweep points kept: mean ResBW in [lo, hi].
    #[serde(default)]
    pub resbw_range: Option<[f64; 2]>,
    /// The algorithm.
    pub a: String,
    /// The ones it is compared with (at least one).
    pub against: Vec<String>,
}

/// Algorithm `a` in the first case against itself in the second.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Between {
    /// `[x, y]`: X(a in x) / X(a in y) − 1.
    pub cases: [String; 2],
    /// The algorithm.
    pub a: String,
}

/// Several algorithms in one case.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Among {
    /// The case.
    pub case: String,
    /// The algorithms.
    pub algorithms: Vec<String>,
}

/// A sum over cases and algorithms.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    /// One case …
    #[serde(default)]
    pub case: Option<String>,
    /// … or several.
    #[serde(default)]
    pub cases: Vec<String>,
    /// The algorithms summed over.
    pub algorithms: Vec<String>,
}

/// One pair of algorithms over several cases.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairOver {
    /// The cases.
    pub cases: Vec<String>,
    /// The algorithm.
    pub a: String,
    /// The one it is compared with.
    pub b: String,
}

/// Several pairs of algorithms over several cases.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairsOver {
    /// The cases.
    pub cases: Vec<String>,
    /// `[a, b]` pairs.
    pub pairs: Vec<[String; 2]>,
}

/// One algorithm in one case.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InCase {
    /// The case.
    pub case: String,
    /// The algorithm.
    pub a: String,
}

/// Several algorithms over a sweep.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverSweep {
    /// The sweep.
    pub sweep: String,
    /// Sweep points kept: mean ResBW in [lo, hi].
    #[serde(default)]
    pub resbw_range: Option<[f64; 2]>,
    /// The algorithms.
    pub algorithms: Vec<String>,
}

/// Two algorithms over every RTT-trace row.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rows {
    /// The algorithm.
    pub a: String,
    /// The one it is compared with.
    pub b: String,
}

/// A multihop run metric (`coapcc_sim::results::run_metrics`, e.g. `goodput_bps`)
/// of algorithm `a` in `case`, compared (where the metric compares) with algorithm `b`
/// (default `a`) in case `case_b` (default `case`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MhOf {
    /// The case.
    pub case: String,
    /// The run metric.
    pub of: String,
    /// The algorithm.
    pub a: String,
    /// The algorithm it is compared with (default `a`).
    #[serde(default)]
    pub b: Option<String>,
    /// The case it is compared in (default `case`).
    #[serde(default)]
    pub case_b: Option<String>,
}

/// The spread of a multihop run metric across `algorithms` in `case` against that in `case_b`
/// (`mh_spread_diff`, Lim 2020 L20: "converge").
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MhSpread {
    /// The case.
    pub case: String,
    /// The case it is compared with.
    pub case_b: String,
    /// The run metric.
    pub of: String,
    /// The algorithms (at least two).
    pub algorithms: Vec<String>,
}

/// The relative drop of a multihop run metric of `a` from `cases[0]` to `cases[1]` against
/// that from `cases_b[0]` to `cases_b[1]` (`mh_drop_diff`, Lim 2020 L22).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MhDrop {
    /// `[from, to]`.
    pub cases: [String; 2],
    /// `[from, to]` of the comparison.
    pub cases_b: [String; 2],
    /// The run metric.
    pub of: String,
    /// The algorithm.
    pub a: String,
}

/// A multihop run metric of `a` over an ordered list of cases (`mh_decrease_min`, Makarem
/// M7).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MhOver {
    /// The cases, in order (at least two).
    pub cases: Vec<String>,
    /// The run metric.
    pub of: String,
    /// The algorithm.
    pub a: String,
}

/// The gain of `a` over `b` in `case` against that in `case_b` (`mh_gain_diff`, Makarem M13).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MhGainAt {
    /// The case.
    pub case: String,
    /// The case it is compared with.
    pub case_b: String,
    /// The run metric.
    pub of: String,
    /// The algorithm.
    pub a: String,
    /// The one it is compared with.
    pub b: String,
}

/// The motes of replication 0's recorded TCP traces with at most `max_samples` Karn-valid RTT
/// samples, every one longer than `above_s` seconds (`mh_trace_nodes`, Lim 2020 Fig. 3a: "only a
/// couple of RTT measurements which exceeded 3 s").
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceNodes {
    /// The case (one a trace figure draws: its replication 0 is traced).
    pub case: String,
    /// The algorithm.
    pub a: String,
    /// At most this many samples (at least 1).
    pub max_samples: u32,
    /// Every sample above this, s.
    pub above_s: f64,
}

/// What a metric computes, with its fields (see `evaluate::metric`).
#[derive(Clone, Copy, Debug)]
pub enum Kind<'a> {
    /// A base quantity of `a`.
    Base(Quantity, &'a OfOne),
    /// `X_reduction` / `X_gain`: a against b.
    Compare(Quantity, Comparison, &'a Versus),
    /// `X_reduction_min` / `X_gain_min`: a against each of `against`, the minimum.
    CompareMin(Quantity, Comparison, &'a AgainstAll),
    /// `X_increase`: X(a in `cases[0]`) / X(a in `cases[1]`) − 1.
    Increase(Quantity, &'a Between),
    /// Max/min − 1 of the median FCTs of `algorithms`.
    FctMedianSpread(&'a Among),
    /// Largest loss ratio of `algorithms`.
    LossRatioMax(&'a Among),
    /// Largest `unnecessary_median_reduction` of a against b over the cases.
    UnnecessaryReductionMax(&'a PairOver),
    /// Largest `unnecessary_median_reduction` over the cases and pairs.
    UnnecessaryReductionMaxPairs(&'a PairsOver),
    /// Σ unnecessary retransmissions.
    UnnecessaryTotal(&'a Totals),
    /// Σ packets dropped by buffer overflow.
    BufferDropsTotal(&'a Totals),
    /// Σ unnecessary / (Σ unnecessary + Σ completed exchanges).
    WastedCapacityFraction(&'a InCase),
    /// Largest `max_overhead` of `algorithms`.
    MaxOverheadOver(&'a OverSweep),
    /// Fraction of trace rows where a's RMSE is lower.
    RmseWins(&'a Rows),
    /// Fraction of trace rows where a has fewer spurious timeouts.
    SpuriousWins(&'a Rows),
    /// Fraction of trace rows where both are lower.
    RmseAndSpuriousWins(&'a Rows),
    /// Multihop: the mean over replications of a run metric of `a`.
    MhMean(&'a MhOf),
    /// Multihop: mean(a) / mean(b) − 1 (> 0 iff a is higher).
    MhGain(&'a MhOf),
    /// Multihop: mean(a) − mean(b) (for counts that may be 0).
    MhDiff(&'a MhOf),
    /// Multihop: the gap between the 95 % confidence intervals of a and b, relative to
    /// mean(b): > 0 iff a's interval lies wholly above b's, < 0 iff wholly below, 0 if they
    /// overlap.
    MhCiGap(&'a MhOf),
    /// Multihop: mean(a) / mean(b).
    MhRatio(&'a MhOf),
    /// Multihop: spread (max/min − 1 of the means over `algorithms`) in `case` minus that in
    /// `case_b`: < 0 iff the algorithms are closer together in `case`.
    MhSpreadDiff(&'a MhSpread),
    /// Multihop: relative drop 1 − mean(a in to)/mean(a in from) over `cases` minus that over
    /// `cases_b`: < 0 iff the metric drops less over `cases`.
    MhDropDiff(&'a MhDrop),
    /// Multihop: the smallest relative decrease 1 − mean(a in next)/mean(a in case) between
    /// consecutive `cases`: > 0 iff strictly decreasing.
    MhDecreaseMin(&'a MhOver),
    /// Multihop: gain mean(a)/mean(b) − 1 in `case` minus that in `case_b`.
    MhGainDiff(&'a MhGainAt),
    /// Multihop TCP: the motes of replication 0's traces with few RTT samples, all long.
    MhTraceNodes(&'a TraceNodes),
}

macro_rules! metrics {
    ($( $variant:ident($shape:ty) = $name:literal => |$s:ident| $kind:expr; )*) => {
        /// A claim's metric, tagged by `metric` (`data/published/README.md`, Metrics); each
        /// carries the fields its metric needs, checked when the file loads.
        #[derive(Clone, Debug, PartialEq, Deserialize)]
        #[serde(tag = "metric")]
        pub enum Metric {
            $(
                #[doc = concat!("`", $name, "`")]
                #[serde(rename = $name)]
                $variant($shape),
            )*
        }

        impl Metric {
            /// The metric's name, as in the data file.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Metric::$variant(_) => $name, )*
                }
            }

            /// What it computes.
            pub fn kind(&self) -> Kind<'_> {
                match self {
                    $( Metric::$variant($s) => $kind, )*
                }
            }
        }
    };
}

use Comparison::{Gain, Reduction};
use Quantity as Q;

metrics! {
    FctMedian(OfOne) = "fct_median" => |s| Kind::Base(Q::FctMedian, s);
    FctP10P90(OfOne) = "fct_p10_p90" => |s| Kind::Base(Q::FctP10P90, s);
    UnnecessaryMedian(OfOne) = "unnecessary_median" => |s| Kind::Base(Q::UnnecessaryMedian, s);
    RetransmissionsMedian(OfOne) = "retransmissions_median" => |s| Kind::Base(Q::RetransmissionsMedian, s);
    ExpiredRtoMedian(OfOne) = "expired_rto_median" => |s| Kind::Base(Q::ExpiredRtoMedian, s);
    RttMedian(OfOne) = "rtt_median" => |s| Kind::Base(Q::RttMedian, s);
    Goodput(OfOne) = "goodput" => |s| Kind::Base(Q::Goodput, s);
    LossRatio(OfOne) = "loss_ratio" => |s| Kind::Base(Q::LossRatio, s);
    Overhead(OfOne) = "overhead" => |s| Kind::Base(Q::Overhead, s);
    RmseMs(OfOne) = "rmse_ms" => |s| Kind::Base(Q::RmseMs, s);
    Spurious(OfOne) = "spurious" => |s| Kind::Base(Q::Spurious, s);
    GoodputSlope(OfOne) = "goodput_slope" => |s| Kind::Base(Q::GoodputSlope, s);
    GoodputLinearityR2(OfOne) = "goodput_linearity_r2" => |s| Kind::Base(Q::GoodputLinearityR2, s);
    PlateauGoodput(OfOne) = "plateau_goodput" => |s| Kind::Base(Q::PlateauGoodput, s);
    MeanGoodput(OfOne) = "mean_goodput" => |s| Kind::Base(Q::MeanGoodput, s);
    MaxOverhead(OfOne) = "max_overhead" => |s| Kind::Base(Q::MaxOverhead, s);
    MeanOverhead(OfOne) = "mean_overhead" => |s| Kind::Base(Q::MeanOverhead, s);
    DataSegmentsMedian(OfOne) = "data_segments_median" => |s| Kind::Base(Q::DataSegmentsMedian, s);
    HeaderBytesMedian(OfOne) = "header_bytes_median" => |s| Kind::Base(Q::HeaderBytesMedian, s);
    FctMedianReduction(Versus) = "fct_median_reduction" => |s| Kind::Compare(Q::FctMedian, Reduction, s);
    UnnecessaryMedianReduction(Versus) = "unnecessary_median_reduction" => |s| Kind::Compare(Q::UnnecessaryMedian, Reduction, s);
    RetransmissionsMedianReduction(Versus) = "retransmissions_median_reduction" => |s| Kind::Compare(Q::RetransmissionsMedian, Reduction, s);
    ExpiredRtoMedianReduction(Versus) = "expired_rto_median_reduction" => |s| Kind::Compare(Q::ExpiredRtoMedian, Reduction, s);
    RttMedianReduction(Versus) = "rtt_median_reduction" => |s| Kind::Compare(Q::RttMedian, Reduction, s);
    FctP10P90Reduction(Versus) = "fct_p10_p90_reduction" => |s| Kind::Compare(Q::FctP10P90, Reduction, s);
    OverheadReduction(Versus) = "overhead_reduction" => |s| Kind::Compare(Q::Overhead, Reduction, s);
    MeanOverheadReduction(Versus) = "mean_overhead_reduction" => |s| Kind::Compare(Q::MeanOverhead, Reduction, s);
    RmseMsReduction(Versus) = "rmse_ms_reduction" => |s| Kind::Compare(Q::RmseMs, Reduction, s);
    SpuriousReduction(Versus) = "spurious_reduction" => |s| Kind::Compare(Q::Spurious, Reduction, s);
    GoodputGain(Versus) = "goodput_gain" => |s| Kind::Compare(Q::Goodput, Gain, s);
    MeanGoodputGain(Versus) = "mean_goodput_gain" => |s| Kind::Compare(Q::MeanGoodput, Gain, s);
    FctMedianReductionMin(AgainstAll) = "fct_median_reduction_min" => |s| Kind::CompareMin(Q::FctMedian, Reduction, s);
    UnnecessaryMedianReductionMin(AgainstAll) = "unnecessary_median_reduction_min" => |s| Kind::CompareMin(Q::UnnecessaryMedian, Reduction, s);
    RttMedianReductionMin(AgainstAll) = "rtt_median_reduction_min" => |s| Kind::CompareMin(Q::RttMedian, Reduction, s);
    OverheadReductionMin(AgainstAll) = "overhead_reduction_min" => |s| Kind::CompareMin(Q::Overhead, Reduction, s);
    LossRatioReductionMin(AgainstAll) = "loss_ratio_reduction_min" => |s| Kind::CompareMin(Q::LossRatio, Reduction, s);
    MeanOverheadReductionMin(AgainstAll) = "mean_overhead_reduction_min" => |s| Kind::CompareMin(Q::MeanOverhead, Reduction, s);
    MaxOverheadReductionMin(AgainstAll) = "max_overhead_reduction_min" => |s| Kind::CompareMin(Q::MaxOverhead, Reduction, s);
    GoodputGainMin(AgainstAll) = "goodput_gain_min" => |s| Kind::CompareMin(Q::Goodput, Gain, s);
    GoodputSlopeGainMin(AgainstAll) = "goodput_slope_gain_min" => |s| Kind::CompareMin(Q::GoodputSlope, Gain, s);
    FctMedianIncrease(Between) = "fct_median_increase" => |s| Kind::Increase(Q::FctMedian, s);
    RttMedianIncrease(Between) = "rtt_median_increase" => |s| Kind::Increase(Q::RttMedian, s);
    UnnecessaryMedianIncrease(Between) = "unnecessary_median_increase" => |s| Kind::Increase(Q::UnnecessaryMedian, s);
    GoodputIncrease(Between) = "goodput_increase" => |s| Kind::Increase(Q::Goodput, s);
    FctMedianSpread(Among) = "fct_median_spread" => |s| Kind::FctMedianSpread(s);
    LossRatioMax(Among) = "loss_ratio_max" => |s| Kind::LossRatioMax(s);
    UnnecessaryReductionMax(PairOver) = "unnecessary_reduction_max" => |s| Kind::UnnecessaryReductionMax(s);
    UnnecessaryReductionMaxPairs(PairsOver) = "unnecessary_reduction_max_pairs" => |s| Kind::UnnecessaryReductionMaxPairs(s);
    UnnecessaryTotal(Totals) = "unnecessary_total" => |s| Kind::UnnecessaryTotal(s);
    BufferDropsTotal(Totals) = "buffer_drops_total" => |s| Kind::BufferDropsTotal(s);
    WastedCapacityFraction(InCase) = "wasted_capacity_fraction" => |s| Kind::WastedCapacityFraction(s);
    MaxOverheadOver(OverSweep) = "max_overhead_over" => |s| Kind::MaxOverheadOver(s);
    RmseWins(Rows) = "rmse_wins" => |s| Kind::RmseWins(s);
    SpuriousWins(Rows) = "spurious_wins" => |s| Kind::SpuriousWins(s);
    RmseAndSpuriousWins(Rows) = "rmse_and_spurious_wins" => |s| Kind::RmseAndSpuriousWins(s);
    MhMean(MhOf) = "mh_mean" => |s| Kind::MhMean(s);
    MhGain(MhOf) = "mh_gain" => |s| Kind::MhGain(s);
    MhDiff(MhOf) = "mh_diff" => |s| Kind::MhDiff(s);
    MhCiGap(MhOf) = "mh_ci_gap" => |s| Kind::MhCiGap(s);
    MhRatio(MhOf) = "mh_ratio" => |s| Kind::MhRatio(s);
    MhSpreadDiff(MhSpread) = "mh_spread_diff" => |s| Kind::MhSpreadDiff(s);
    MhDropDiff(MhDrop) = "mh_drop_diff" => |s| Kind::MhDropDiff(s);
    MhDecreaseMin(MhOver) = "mh_decrease_min" => |s| Kind::MhDecreaseMin(s);
    MhGainDiff(MhGainAt) = "mh_gain_diff" => |s| Kind::MhGainDiff(s);
    MhTraceNodes(TraceNodes) = "mh_trace_nodes" => |s| Kind::MhTraceNodes(s);
}

impl OfOne {
    /// Where it is measured.
    pub fn at(&self) -> At<'_> {
        at(&self.case, &self.sweep, self.resbw_range)
    }
}

impl Versus {
    /// Where it is measured.
    pub fn at(&self) -> At<'_> {
        at(&self.case, &self.sweep, self.resbw_range)
    }
}

impl AgainstAll {
    /// Where it is measured.
    pub fn at(&self) -> At<'_> {
        at(&self.case, &self.sweep, self.resbw_range)
    }
}

impl Metric {
    /// The case or sweep it is measured at, when it names one (for `claims.csv`).
    pub fn case_or_sweep(&self) -> Option<&str> {
        match self.kind() {
            Kind::Base(_, s) => s.case.as_deref().or(s.sweep.as_deref()),
            Kind::Compare(_, _, s) => s.case.as_deref().or(s.sweep.as_deref()),
            Kind::CompareMin(_, _, s) => s.case.as_deref().or(s.sweep.as_deref()),
            Kind::FctMedianSpread(s) | Kind::LossRatioMax(s) => Some(&s.case),
            Kind::UnnecessaryTotal(t) | Kind::BufferDropsTotal(t) => t.case.as_deref(),
            Kind::WastedCapacityFraction(s) => Some(&s.case),
            Kind::MaxOverheadOver(s) => Some(&s.sweep),
            Kind::MhMean(m) | Kind::MhGain(m) | Kind::MhDiff(m) | Kind::MhCiGap(m) | Kind::MhRatio(m) => Some(&m.case),
            Kind::MhSpreadDiff(m) => Some(&m.case),
            Kind::MhGainDiff(m) => Some(&m.case),
            Kind::MhTraceNodes(m) => Some(&m.case),
            Kind::Increase(..)
            | Kind::MhDropDiff(_)
            | Kind::MhDecreaseMin(_)
            | Kind::UnnecessaryReductionMax(_)
            | Kind::UnnecessaryReductionMaxPairs(_)
            | Kind::RmseWins(_)
            | Kind::SpuriousWins(_)
            | Kind::RmseAndSpuriousWins(_) => None,
        }
    }

    /// Every case or sweep it is measured at (empty for the metrics over every RTT-trace row).
    pub fn places(&self) -> Vec<&str> {
        fn opt(v: &Option<String>) -> Option<&str> {
            v.as_deref()
        }
        let mut out: Vec<&str> = match self.kind() {
            Kind::Base(_, s) => opt(&s.case).or(opt(&s.sweep)).into_iter().collect(),
            Kind::Compare(_, _, s) => opt(&s.case).or(opt(&s.sweep)).into_iter().collect(),
            Kind::CompareMin(_, _, s) => opt(&s.case).or(opt(&s.sweep)).into_iter().collect(),
            Kind::Increase(_, m) => m.cases.iter().map(String::as_str).collect(),
            Kind::FctMedianSpread(s) | Kind::LossRatioMax(s) => vec![&s.case],
            Kind::UnnecessaryReductionMax(m) => m.cases.iter().map(String::as_str).collect(),
            Kind::UnnecessaryReductionMaxPairs(m) => m.cases.iter().map(String::as_str).collect(),
            Kind::UnnecessaryTotal(t) | Kind::BufferDropsTotal(t) => {
                opt(&t.case).into_iter().chain(t.cases.iter().map(String::as_str)).collect()
            }
            Kind::WastedCapacityFraction(s) => vec![&s.case],
            Kind::MaxOverheadOver(s) => vec![&s.sweep],
            Kind::RmseWins(_) | Kind::SpuriousWins(_) | Kind::RmseAndSpuriousWins(_) => Vec::new(),
            Kind::MhMean(m) | Kind::MhGain(m) | Kind::MhDiff(m) | Kind::MhCiGap(m) | Kind::MhRatio(m) => {
                std::iter::once(m.case.as_str()).chain(opt(&m.case_b)).collect()
            }
            Kind::MhSpreadDiff(m) => vec![&m.case, &m.case_b],
            Kind::MhDropDiff(m) => m.cases.iter().chain(&m.cases_b).map(String::as_str).collect(),
            Kind::MhDecreaseMin(m) => m.cases.iter().map(String::as_str).collect(),
            Kind::MhGainDiff(m) => vec![&m.case, &m.case_b],
            Kind::MhTraceNodes(m) => vec![&m.case],
        };
        let mut unique: Vec<&str> = Vec::new();
        for p in out.drain(..) {
            if !unique.contains(&p) {
                unique.push(p);
            }
        }
        unique
    }

    /// The rules serde cannot state: exactly one of `case` and `sweep`, `resbw_range` only
    /// with a sweep, a non-empty `against`, `case` or `cases` for totals, two algorithms or
    /// cases or more for the multihop spreads and trends.
    fn validate(&self) -> Result<(), String> {
        match self.kind() {
            Kind::Base(_, s) => one_place(&s.case, &s.sweep, s.resbw_range),
            Kind::Compare(_, _, s) => one_place(&s.case, &s.sweep, s.resbw_range),
            Kind::CompareMin(_, _, s) => {
                one_place(&s.case, &s.sweep, s.resbw_range)?;
                if s.against.is_empty() {
                    return Err(format!("`{}` needs `against`", self.name()));
                }
                Ok(())
            }
            Kind::UnnecessaryTotal(t) | Kind::BufferDropsTotal(t) => match (&t.case, t.cases.is_empty()) {
                (None, true) => Err("missing field `case` (or `cases`)".into()),
                (Some(_), false) => Err("give `case` or `cases`, not both".into()),
                _ => Ok(()),
            },
            Kind::MhGain(m) | Kind::MhDiff(m) | Kind::MhCiGap(m) | Kind::MhRatio(m)
                if m.b.is_none() && m.case_b.is_none() =>
            {
                Err(format!("`{}` needs `b` or `case_b`", self.name()))
            }
            Kind::MhMean(m) if m.b.is_some() || m.case_b.is_some() => Err("`mh_mean` takes no `b` or `case_b`".into()),
            Kind::MhSpreadDiff(m) if m.algorithms.len() < 2 => {
                Err("`mh_spread_diff` needs two `algorithms` or more".into())
            }
            Kind::MhDecreaseMin(m) if m.cases.len() < 2 => Err("`mh_decrease_min` needs two `cases` or more".into()),
            Kind::MhTraceNodes(m) if m.max_samples == 0 || !m.above_s.is_finite() => {
                Err("`mh_trace_nodes` needs `max_samples` ≥ 1 and a finite `above_s`".into())
            }
            _ => Ok(()),
        }
    }
}

/// Checks one `[[claim]]` table into a [`Claim`]; errors name the claim's id.
fn claim(mut table: toml::Table, index: usize) -> Result<Claim, String> {
    let id = match table.get("id") {
        Some(toml::Value::String(id)) => id.clone(),
        _ => return Err(format!("claim #{}: missing field `id`", index + 1)),
    };
    let named = |e: String| format!("claim `{id}`: {}", e.trim_end().replace('\n', " "));
    let mut split = |keys: &[&str]| -> toml::Table {
        keys.iter().filter_map(|k| table.remove(*k).map(|v| (k.to_string(), v))).collect()
    };
    let text: ClaimText = toml::Value::Table(split(TEXT_KEYS)).try_into().map_err(|e| named(format!("{e}")))?;
    let check: Check = toml::Value::Table(split(CHECK_KEYS)).try_into().map_err(|e| named(format!("{e}")))?;
    // Every other key belongs to the metric; a key it does not take is an error.
    let name = match table.get("metric") {
        Some(toml::Value::String(m)) => format!("metric `{m}`: "),
        _ => String::new(),
    };
    let metric: Metric = toml::Value::Table(table).try_into().map_err(|e| named(format!("{name}{e}")))?;
    metric.validate().map_err(|e| named(format!("metric `{}`: {e}", metric.name())))?;
    if let Check::Ratio { range } = check {
        let own = range.filter(|r| *r != DEFAULT_BAND);
        match (own, &text.range_reason) {
            (Some(r), None) => {
                return Err(named(format!(
                    "`range = [{}, {}]` differs from the default band [0.8, 1.25] and needs `range_reason`",
                    r[0], r[1]
                )));
            }
            (None, Some(_)) => return Err(named("`range_reason` without a `range` other than [0.8, 1.25]".into())),
            (Some([lo, hi]), _) if !(lo > 0.0 && lo <= 1.0 && hi >= 1.0 && hi.is_finite()) => {
                return Err(named(format!("`range = [{lo}, {hi}]` must hold 1 and lie in (0, ∞)")));
            }
            _ => {}
        }
        if text.published == 0.0 || !text.published.is_finite() {
            return Err(named("a `ratio` check needs a finite, non-zero `published`".into()));
        }
    } else if text.range_reason.is_some() {
        return Err(named("`range_reason` is only for `check = \"ratio\"`".into()));
    }
    let roles = [
        text.restates.is_some(),
        !text.derived_from.is_empty(),
        text.calibration.is_some(),
        text.illustration.is_some(),
    ];
    if roles.iter().filter(|r| **r).count() > 1 {
        return Err(named("give at most one of `restates`, `derived_from`, `calibration` and `illustration`".into()));
    }
    if !text.derived_from.is_empty() && text.derivation.is_none() {
        return Err(named("`derived_from` needs a `derivation` saying how the number follows from theirs".into()));
    }
    if let Some(c) = &text.cause {
        match (c.kind, c.investigations.is_empty()) {
            (CauseKind::Investigation, true) => {
                return Err(named("`cause` of kind `investigation` needs `investigations`".into()));
            }
            (CauseKind::NoSweep | CauseKind::NotSwept, false) => {
                return Err(named(format!("`cause` of kind `{}` names no investigations", c.kind.words())));
            }
            _ => {}
        }
    }
    Ok(Claim {
        id: text.id,
        text: text.text,
        source: text.source,
        metric,
        published: text.published,
        qualitative: text.qualitative,
        quote: text.quote,
        derivation: text.derivation,
        cites: text.cites,
        check,
        definition: text.definition,
        note: text.note,
        range_reason: text.range_reason,
        restates: text.restates,
        derived_from: text.derived_from,
        calibration: text.calibration,
        illustration: text.illustration,
        cause: text.cause,
    })
}

/// A figure table checked into a [`FigureSpec`]; errors name the figure's id.
fn figure(table: toml::Table, index: usize) -> Result<FigureSpec, String> {
    let id = match table.get("id") {
        Some(toml::Value::String(id)) => format!("figure `{id}`"),
        _ => format!("figure #{}", index + 1),
    };
    toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| format!("{id}: {}", e.message().trim_end()))
}

/// Parses a description file (`file` names it in errors): every figure's kind, every claim's
/// metric and check and every investigation are checked, and an error names the file and the
/// item (`data/published/x.toml: claim `id`: …`).
#[cfg(test)]
pub fn parse(text: &str, file: &str) -> Result<Published, ReportError> {
    parse_text(text, file).map_err(ReportError::Description)
}

fn parse_text(text: &str, file: &str) -> Result<Published, String> {
    let raw: RawPublished = toml::from_str(text).map_err(|e| format!("{file}: {}", e.message()))?;
    let claims = raw
        .claims
        .into_iter()
        .enumerate()
        .map(|(i, t)| claim(t, i))
        .collect::<Result<Vec<Claim>, _>>()
        .map_err(|e| format!("{file}: {e}"))?;
    let figures = raw
        .figures
        .into_iter()
        .enumerate()
        .map(|(i, t)| figure(t, i))
        .collect::<Result<Vec<FigureSpec>, _>>()
        .map_err(|e| format!("{file}: {e}"))?;
    reference(&raw.cites).map_err(|e| format!("{file}: `cites`: {e}"))?;
    for c in &claims {
        if let Some(k) = &c.cites {
            reference(k).map_err(|e| format!("{file}: claim `{}`: `cites`: {e}", c.id))?;
        }
        if claims.iter().filter(|d| d.id == c.id).count() > 1 {
            return Err(format!("{file}: claim `{}`: the id is used twice", c.id));
        }
        if let Some(r) = &c.restates {
            match claims.iter().find(|d| &d.id == r) {
                None => {
                    return Err(format!("{file}: claim `{}`: `restates = \"{r}\"` names no claim of the file", c.id));
                }
                Some(d) if d.restates.is_some() || d.id == c.id => {
                    return Err(format!(
                        "{file}: claim `{}`: `restates` must name a claim that restates nothing",
                        c.id
                    ));
                }
                _ => {}
            }
        }
    }
    for c in &claims {
        for d in &c.derived_from {
            if d == &c.id || !claims.iter().any(|x| &x.id == d) {
                return Err(format!(
                    "{file}: claim `{}`: `derived_from` names `{d}`, no other claim of the file",
                    c.id
                ));
            }
        }
        if let Some(p) = &c.calibration {
            if !raw.parameters.iter().any(|x| &x.id == p) {
                return Err(format!(
                    "{file}: claim `{}`: `calibration = \"{p}\"` names no `[[parameter]]` of the file",
                    c.id
                ));
            }
        }
    }
    for (i, p) in raw.parameters.iter().enumerate() {
        if raw.parameters[..i].iter().any(|q| q.id == p.id) {
            return Err(format!("{file}: parameter `{}`: the id is used twice", p.id));
        }
        if p.cases.is_empty() || p.why.trim().is_empty() {
            return Err(format!("{file}: parameter `{}`: needs `cases` and `why`", p.id));
        }
        let fitted_to = claims.iter().filter(|c| c.calibration.as_deref() == Some(p.id.as_str())).count();
        match (p.kind, fitted_to) {
            (ParameterKind::Fitted, 0) => {
                return Err(format!(
                    "{file}: parameter `{}`: a fitted parameter needs the claims it was fitted to (`calibration = \"{}\"`)",
                    p.id, p.id
                ));
            }
            (ParameterKind::Chosen, n) if n > 0 => {
                return Err(format!("{file}: parameter `{}`: a chosen parameter has no calibration claims", p.id));
            }
            _ => {}
        }
    }
    let ids: Vec<&str> = claims.iter().map(|c| c.id.as_str()).collect();
    let investigations =
        InvestigationSpec::parse_all(raw.investigations, &raw.experiment, &ids).map_err(|e| format!("{file}: {e}"))?;
    for c in &claims {
        for i in c.cause.iter().flat_map(|c| &c.investigations) {
            if !investigations.iter().any(|s| s.id() == i) {
                return Err(format!("{file}: claim `{}`: `cause` names no investigation `{i}` of the file", c.id));
            }
        }
    }
    raw.cases.check().map_err(|e| format!("{file}: `cases`: {e}"))?;
    Ok(Published {
        experiment: raw.experiment,
        order: raw.order,
        about: raw.about.unwrap_or_default(),
        title: raw.title,
        paper: raw.paper,
        cites: raw.cites,
        cases: raw.cases,
        figures,
        claims,
        investigations,
        side_tables: raw.side_tables,
        result_table: raw.result_table,
        parameters: raw.parameters,
    })
}

/// A work the claims cite (`data/published/references.toml`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// Its short name, printed next to a claim's source when the claim cites another work than
    /// its file.
    pub short: String,
    /// The full citation (checked present in the file; no page prints it yet).
    #[allow(dead_code)]
    pub citation: String,
}

/// The work cited under `key` in `data/published/references.toml` (compiled in), or an error
/// naming the key and the keys there are.
pub fn reference(key: &str) -> Result<Reference, ReportError> {
    let all: BTreeMap<String, Reference> =
        toml::from_str(include_str!("../../../../data/published/references.toml"))
            .map_err(|e| ReportError::Description(format!("data/published/references.toml: {}", e.message())))?;
    let known = all.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
    all.get(key).cloned().ok_or_else(|| {
        ReportError::Description(format!("`{key}` is not a key of data/published/references.toml ({known})"))
    })
}

impl Claim {
    /// The short name of the work this claim comes from when it is not its file's (`None` when
    /// it is the file's own), for printing next to the claim's source.
    pub fn other_work(&self, file_cites: &str) -> Option<String> {
        let k = self.cites.as_deref().filter(|k| *k != file_cites)?;
        reference(k).ok().map(|r| r.short)
    }
}

/// The description files compiled in (`data/published/*.toml` holding an `experiment`): (file
/// name, text), found by the build script, so that adding an experiment is adding its file.
const FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/experiment_files.rs"));

/// Every experiment, loaded and checked once, in report order: each file as `parse_text` checks
/// it, and across files unique ids, unique `order`s, an `about` line and at least one case.
pub fn all() -> Result<&'static [Published], ReportError> {
    static ALL: OnceLock<Result<Vec<Published>, String>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = Vec::new();
        for (name, text) in FILES {
            let file = format!("data/published/{name}");
            let p = parse_text(text, &file)?;
            if format!("{}.toml", p.experiment) != *name {
                return Err(format!("{file}: `experiment = \"{}\"` is not the file's name", p.experiment));
            }
            if p.order.is_none() || p.about.trim().is_empty() || p.cases.runs.is_empty() {
                return Err(format!("{file}: an experiment needs `order`, `about` and `[[cases.run]]`"));
            }
            all.push(p);
        }
        all.sort_by_key(|p| p.order);
        for w in all.windows(2) {
            if w[0].order == w[1].order {
                return Err(format!(
                    "data/published/{}.toml and {}.toml: the same `order`",
                    w[0].experiment, w[1].experiment
                ));
            }
        }
        let mut figure_ids: Vec<&str> = all.iter().flat_map(|p| p.figures.iter().map(|f| f.id.as_str())).collect();
        figure_ids.extend(all.iter().flat_map(|p| p.investigations.iter().map(InvestigationSpec::id)));
        figure_ids.sort_unstable();
        if let Some(w) = figure_ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("data/published: the figure id `{}` is used twice", w[0]));
        }
        Ok(all)
    })
    .as_deref()
    .map_err(|e| ReportError::Description(e.clone()))
}

/// The ids of every experiment, in report order.
#[cfg(test)]
pub fn ids() -> Result<Vec<&'static str>, ReportError> {
    Ok(all()?.iter().map(|p| p.experiment.as_str()).collect())
}

/// The description of `experiment`.
pub fn load(experiment: &str) -> Result<Published, ReportError> {
    let all = all()?;
    all.iter().find(|p| p.experiment == experiment).cloned().ok_or_else(|| ReportError::UnknownExperiment {
        name: experiment.to_string(),
        valid: all.iter().map(|p| p.experiment.as_str()).collect::<Vec<_>>().join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"jarvinen2018\"\n";
    const GOOD: &str = "[[claim]]\nid = \"good-one\"\ntext = \"t\"\nsource = \"s\"\nmetric = \"fct_median_reduction\"\n\
                        case = \"fasor/c\"\na = \"fasor\"\nb = \"cocoa\"\npublished = 0.05\ncheck = \"ratio\"\n";

    fn claim_file(claim: &str) -> String {
        format!("{HEAD}{GOOD}[[claim]]\nid = \"the-claim\"\ntext = \"t\"\nsource = \"s\"\npublished = 1.0\n{claim}")
    }

    fn error_of(claim: &str) -> String {
        parse(&claim_file(claim), "data/published/x.toml").unwrap_err().to_string()
    }

    #[test]
    fn every_data_file_loads_with_typed_metrics_and_checks() {
        for e in ["fasor", "full-backoff", "makarem-rto", "makarem-rate", "betzler", "lim", "makarem-cooja"] {
            let p = load(e).unwrap_or_else(|err| panic!("{err}"));
            assert!(!p.claims.is_empty(), "{e}");
        }
        let p = parse(&format!("{HEAD}{GOOD}"), "x.toml").unwrap();
        let c = &p.claims[0];
        assert_eq!((c.metric.name(), c.metric.case_or_sweep()), ("fct_median_reduction", Some("fasor/c")));
        assert!(
            matches!(c.metric.kind(), Kind::Compare(Quantity::FctMedian, Comparison::Reduction, v) if v.b == "cocoa")
        );
        assert_eq!(c.check, Check::Ratio { range: None });
    }

    #[test]
    fn a_wrong_metric_name_is_rejected_naming_the_file_and_the_claim() {
        let e = error_of("metric = \"fct_medain_reduction\"\ncase = \"c\"\na = \"x\"\nb = \"y\"\ncheck = \"sign\"\n");
        assert!(e.starts_with("data/published/x.toml: claim `the-claim`:"), "{e}");
        assert!(e.contains("fct_medain_reduction") && e.contains("fct_median_reduction"), "lists the valid names: {e}");
    }

    #[test]
    fn a_missing_field_is_rejected_naming_the_claim_and_the_field() {
        let e = error_of("metric = \"fct_median_reduction\"\ncase = \"c\"\na = \"x\"\ncheck = \"sign\"\n");
        assert!(e.contains("claim `the-claim`") && e.contains("missing field `b`"), "{e}");
        let e =
            error_of("metric = \"fct_median_reduction\"\ncase = \"c\"\na = \"x\"\nb = \"y\"\ncheck = \"at_most\"\n");
        assert!(e.contains("claim `the-claim`") && e.contains("missing field `value`"), "{e}");
        let e = error_of("metric = \"goodput_slope\"\na = \"x\"\ncheck = \"sign\"\n");
        assert!(e.contains("claim `the-claim`") && e.contains("`case` (or `sweep`)"), "{e}");
    }

    #[test]
    fn a_key_the_metric_does_not_take_is_rejected_naming_the_claim() {
        let e = error_of("metric = \"unnecessary_median\"\ncase = \"c\"\na = \"x\"\nb = \"y\"\ncheck = \"sign\"\n");
        assert!(e.contains("claim `the-claim`") && e.contains("unknown field `b`"), "{e}");
        let e = error_of("metric = \"rmse_wins\"\na = \"x\"\nb = \"y\"\ncheck = \"sign\"\ntolerance = 0.1\n");
        assert!(e.contains("claim `the-claim`") && e.contains("tolerance"), "{e}");
        let e = error_of("metric = \"rmse_wins\"\na = \"x\"\nb = \"y\"\ncheck = \"roughly\"\n");
        assert!(e.contains("claim `the-claim`") && e.contains("roughly"), "{e}");
    }

    #[test]
    fn a_cause_must_name_investigations_exactly_when_its_kind_is_investigation() {
        const M: &str = "metric = \"rmse_wins\"\na = \"x\"\nb = \"y\"\ncheck = \"sign\"\n";
        let e = error_of(&format!("{M}cause = {{ kind = \"investigation\", text = \"load\" }}\n"));
        assert!(e.contains("claim `the-claim`") && e.contains("needs `investigations`"), "{e}");
        let e = error_of(&format!("{M}cause = {{ kind = \"no-sweep\", text = \"t\", investigations = [\"i\"] }}\n"));
        assert!(e.contains("claim `the-claim`") && e.contains("names no investigations"), "{e}");
        let e = error_of(&format!("{M}cause = {{ kind = \"maybe\", text = \"t\" }}\n"));
        assert!(e.contains("claim `the-claim`") && e.contains("maybe"), "{e}");
        let ok =
            parse(&claim_file(&format!("{M}cause = {{ kind = \"no-sweep\", text = \"spec reading\" }}\n")), "x.toml")
                .unwrap();
        let c = ok.claims[1].cause.as_ref().unwrap();
        assert_eq!((c.kind, c.text.as_str()), (CauseKind::NoSweep, "spec reading"));
    }

    #[test]
    fn a_claim_without_an_id_is_named_by_its_position() {
        let text = format!("{HEAD}{GOOD}[[claim]]\ntext = \"t\"\n");
        let e = parse(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("claim #2") && e.contains("`id`"), "{e}");
    }

    #[test]
    fn a_citation_key_must_be_in_the_references_and_another_work_is_named_by_its_short_name() {
        let e = parse(&format!("{}{GOOD}", HEAD.replace("jarvinen2018", "000")), "data/published/x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("data/published/x.toml: `cites`: `000` is not a key"), "{e}");
        assert!(e.contains("pesola2020"), "lists the keys: {e}");
        let e = error_of("metric = \"rmse_wins\"\na = \"x\"\nb = \"y\"\ncheck = \"sign\"\ncites = \"thesis\"\n");
        assert!(e.contains("claim `the-claim`: `cites`: `thesis` is not a key"), "{e}");
        let p = parse(
            &claim_file("metric = \"rmse_wins\"\na = \"x\"\nb = \"y\"\ncheck = \"sign\"\ncites = \"pesola2020\"\n"),
            "x.toml",
        )
        .unwrap();
        assert_eq!(p.claims[0].other_work(&p.cites), None);
        assert_eq!(p.claims[1].other_work(&p.cites).as_deref(), Some("Pesola 2020 (MSc thesis)"));
        let fasor = load("fasor").unwrap();
        assert_eq!(fasor.claims.iter().filter(|c| c.other_work(&fasor.cites).is_some()).count(), 8);
    }
    fn data(file: &str) -> String {
        let path = format!("{}/../../data/published/{file}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn every_claim_has_its_verbatim_quote() {
        let without: Vec<&str> = all()
            .unwrap()
            .iter()
            .flat_map(|p| p.claims.iter())
            .filter(|c| c.quote.as_deref().is_none_or(|q| q.trim().is_empty()))
            .map(|c| c.id.as_str())
            .collect();
        assert!(without.is_empty(), "claims without a quote: {without:?}");
    }

    /// Whitespace collapsed to single spaces, trimmed.
    fn normalised(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The folder of the source texts the quotes were taken from (not distributed with the
    /// repository): the folder `COAPCC_SEEDS_DIR` names.
    fn source_texts() -> Option<std::path::PathBuf> {
        let dir = std::path::PathBuf::from(std::env::var_os("COAPCC_SEEDS_DIR")?);
        dir.is_dir().then_some(dir)
    }

    #[test]
    fn every_quote_is_verbatim_in_its_source_text_where_the_texts_are_present() {
        let Some(dir) = source_texts() else {
            // The papers' texts are not distributed: without them this check cannot run, and says so.
            eprintln!(
                "NOT CHECKED: the quotes against the source texts (COAPCC_SEEDS_DIR names no \
folder)"
            );
            return;
        };
        let mut texts: Vec<(String, String)> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .map(|p| (p.display().to_string(), normalised(&std::fs::read_to_string(&p).unwrap())))
            .collect();
        texts.sort();
        assert!(!texts.is_empty(), "{}: no text files", dir.display());
        // Per work: its quotes' fragments (` … ` joins fragments that are not adjacent).
        let mut by_work: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        let mut checked = 0;
        for p in all().unwrap() {
            for c in &p.claims {
                let work = c.cites.clone().unwrap_or_else(|| p.cites.clone());
                for f in c.quote.as_deref().unwrap_or_default().split(" … ") {
                    by_work.entry(work.clone()).or_default().push((c.id.clone(), normalised(f)));
                }
            }
        }
        let mut missing = Vec::new();
        for (work, fragments) in &by_work {
            // The work's text is the file holding most of its fragments; every fragment must be in it.
            let (file, text) = texts
                .iter()
                .max_by_key(|(_, t)| fragments.iter().filter(|(_, f)| t.contains(f.as_str())).count())
                .unwrap();
            for (id, f) in fragments {
                checked += 1;
                if !text.contains(f.as_str()) {
                    missing.push(format!("{work} ({file}): claim {id}: “{f}”"));
                }
            }
        }
        assert!(missing.is_empty(), "quotes not found verbatim in their source text:\n{}", missing.join("\n"));
        eprintln!("checked {checked} quote fragments of {} works against {}", by_work.len(), dir.display());
    }

    #[test]
    fn every_claim_that_differs_in_the_full_run_has_an_investigation_or_a_cause() {
        let rows = crate::reproduce::investigate::causes::differing(&data("claims-full.csv")).unwrap();
        assert!(!rows.is_empty());
        let mut missing = Vec::new();
        for r in &rows {
            let p = load(&r.experiment).unwrap();
            let claim =
                p.claims.iter().find(|c| c.id == r.claim).unwrap_or_else(|| panic!("{} not in its file", r.claim));
            let swept = p.investigations.iter().any(|s| s.claims(&p).contains(&r.claim));
            if claim.cause.is_none() && !swept {
                missing.push(r.claim.clone());
            }
        }
        assert!(missing.is_empty(), "claims that differ without an investigation or a `cause`: {missing:?}");
    }

    /// The numbers of a text outside its `{…}` placeholders, as written (`0.94`, `5`), leaving out
    /// those inside identifiers (`OQ-M3`, `B6`, `CoCoA4`, `1-to-1`, `5x5`, `802.15.4`).
    fn bare_numbers(text: &str) -> Vec<String> {
        let mut outside = String::new();
        let mut depth = 0;
        for ch in text.chars() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ if depth == 0 => outside.push(ch),
                _ => {}
            }
        }
        let mut out = Vec::new();
        for token in outside.split(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '/'))) {
            let token = token.trim_end_matches('.');
            if token.is_empty() || token.chars().any(|c| c.is_alphabetic() || c == '_' || c == '/') {
                continue;
            }
            for part in token.split('-').filter(|p| !p.is_empty()) {
                if part.matches('.').count() <= 1 && part.chars().all(|c| c.is_ascii_digit() || c == '.') {
                    out.push(part.to_string());
                }
            }
        }
        out
    }

    #[test]
    fn bare_numbers_skip_identifiers_and_placeholders() {
        let t = "OQ-M3 and B6: CoCoA4 on 1-to-1 (5 × 6 at 38 m), ratio 0.75-0.94, {x@y=0.8} 802.15.4 ends 0.5.";
        assert_eq!(bare_numbers(t), ["5", "6", "38", "0.75", "0.94", "0.5"]);
    }

    #[test]
    fn numbers_in_causes_come_from_the_run_or_are_inputs_of_the_experiment() {
        use crate::reproduce::investigate::{Findings, causes};
        let csv = data("claims-full.csv");
        let findings = Findings::parse(&data("investigations-full.toml")).unwrap();
        let ours: BTreeMap<String, f64> = crate::reproduce::claims_csv::columns(&csv, ["claim", "ours"])
            .unwrap()
            .into_iter()
            .filter_map(|[c, o]| Some((c.to_string(), o.parse().ok()?)))
            .collect();
        let numbers = |t: &str| -> Vec<f64> { bare_numbers(t).iter().filter_map(|n| n.parse().ok()).collect() };
        let mut bad = Vec::new();
        for p in all().unwrap() {
            // The inputs a cause may name: swept values, published values, the parameters' values.
            let mut inputs: Vec<f64> = p.claims.iter().map(|c| c.published).collect();
            for i in &p.investigations {
                if let InvestigationSpec::Sweep(sw) = i {
                    inputs.extend(&sw.values);
                }
            }
            for par in &p.parameters {
                inputs.extend(numbers(&par.value));
            }
            for c in &p.claims {
                let Some(cause) = &c.cause else { continue };
                // Every placeholder is filled from the committed full run's data.
                if let Err(e) = causes::render_text(&cause.text, &|id| ours.get(id).copied(), &findings) {
                    bad.push(format!("{}: {e}", c.id));
                }
                let own = numbers(&c.text);
                for n in bare_numbers(&cause.text) {
                    let x: f64 = n.parse().unwrap();
                    if !inputs.iter().chain(&own).any(|v| (v - x).abs() <= 1e-9 * v.abs().max(1.0)) {
                        bad.push(format!(
                            "{}: the number {n} is neither a placeholder of the run's data nor an input",
                            c.id
                        ));
                    }
                }
            }
        }
        assert!(bad.is_empty(), "causes quoting numbers that no data gives:\n{}", bad.join("\n"));
    }

    #[test]
    fn the_full_runs_claims_csv_agrees_with_the_data_files_and_with_its_own_numbers() {
        // A stale or edited claims-full.csv cannot pass: every row's role, link, published value,
        // ratio and verdict are derived again here from the data file and the row's own value.
        let csv = data("claims-full.csv");
        let names = [
            "experiment",
            "claim",
            "kind",
            "published",
            "ours",
            "ratio",
            "verdict",
            "role",
            "linked",
            "own_band_lo",
            "own_band_hi",
            "own_band_verdict",
            "noise_lo",
            "noise_hi",
        ];
        let rows = crate::reproduce::claims_csv::columns(&csv, names).unwrap();
        let all_claims: Vec<&Claim> = all().unwrap().iter().flat_map(|p| p.claims.iter()).collect();
        assert_eq!(rows.len(), all_claims.len(), "claims-full.csv lists every claim once");
        for ([e, id, kind, published, ours, ratio, verdict, role, linked, olo, ohi, ov, nlo, nhi], c) in
            rows.iter().zip(&all_claims)
        {
            assert_eq!(*id, c.id, "claims-full.csv is out of the data files' order");
            let p = load(e).unwrap();
            assert!(p.claims.iter().any(|x| x.id == c.id), "{id} is not a claim of {e}");
            assert_eq!((*role, linked.to_string()), (c.role().word(), c.role().linked()), "{id}");
            assert_eq!(*kind, c.kind().word(), "{id}");
            assert_eq!(published.parse::<f64>().unwrap(), c.published, "{id}: published");
            if *verdict == "not evaluated" {
                continue;
            }
            let x: f64 = ours.parse().unwrap_or_else(|_| panic!("{id}: no value but `{verdict}`"));
            match c.check {
                Check::Ratio { .. } => {
                    // Both are written with six decimals: ours/published within that rounding.
                    let r: f64 = ratio.parse().unwrap();
                    let rounding = 0.5e-6 / c.published.abs() + 0.5e-6 + 1e-12;
                    assert!((x / c.published - r).abs() <= rounding, "{id}: ratio {r} against {x}/{}", c.published);
                    let holds = (DEFAULT_BAND[0]..=DEFAULT_BAND[1]).contains(&r);
                    assert_eq!(*verdict, if holds { "holds" } else { "differs" }, "{id}: the default band");
                    match c.own_band() {
                        Some([lo, hi]) => {
                            assert_eq!((olo.parse::<f64>().unwrap(), ohi.parse::<f64>().unwrap()), (lo, hi), "{id}");
                            let own = if (lo..=hi).contains(&r) { "holds" } else { "differs" };
                            assert_eq!(*ov, own, "{id}: its own band");
                        }
                        None => assert!(olo.is_empty() && ov.is_empty(), "{id}"),
                    }
                }
                check => {
                    let (lo, hi) = match check {
                        Check::Sign {} if c.published > 0.0 => (f64::MIN_POSITIVE, f64::INFINITY),
                        Check::Sign {} => (f64::NEG_INFINITY, -f64::MIN_POSITIVE),
                        Check::AtMost { value } => (f64::NEG_INFINITY, value),
                        Check::AtLeast { value } => (value, f64::INFINITY),
                        Check::Within { tolerance } => (c.published - tolerance, c.published + tolerance),
                        Check::Ratio { .. } => unreachable!(),
                    };
                    let inside = |v: f64| v >= lo && v <= hi;
                    let noise: Option<(f64, f64)> = nlo.parse().ok().zip(nhi.parse().ok());
                    match *verdict {
                        "holds" => {
                            assert!(inside(x), "{id}: holds but {x} fails its check");
                            if let Some((a, b)) = noise {
                                assert!(inside(a) && inside(b), "{id}: holds but its noise interval crosses the bound");
                            }
                        }
                        "differs" => {
                            assert!(!inside(x), "{id}: differs but {x} passes its check");
                            if let Some((a, b)) = noise {
                                assert!(
                                    !inside(a) && !inside(b),
                                    "{id}: differs but its noise interval reaches the bound"
                                );
                            }
                        }
                        "inconclusive" => {
                            if let Some((a, b)) = noise {
                                let decided =
                                    (inside(a) && inside(b) && inside(x)) || (b < lo && x < lo) || (a > hi && x > hi);
                                assert!(!decided, "{id}: inconclusive but its noise interval decides it");
                            }
                        }
                        v => panic!("{id}: unknown verdict `{v}`"),
                    }
                }
            }
        }
    }

    #[test]
    fn every_investigation_named_by_a_cause_exists_and_every_claim_an_investigation_lists_exists() {
        let mut ids: Vec<&str> = Vec::new();
        for p in all().unwrap() {
            let own: Vec<&str> = p.investigations.iter().map(InvestigationSpec::id).collect();
            for c in &p.claims {
                for i in c.cause.iter().flat_map(|c| &c.investigations) {
                    assert!(own.contains(&i.as_str()), "claim {}: no investigation `{i}` in {}", c.id, p.experiment);
                }
                if let Some(cause) = &c.cause {
                    assert!(!cause.text.trim().is_empty(), "claim {}: empty cause", c.id);
                    assert_eq!(cause.kind == CauseKind::Investigation, !cause.investigations.is_empty(), "{}", c.id);
                }
            }
            for s in &p.investigations {
                for id in s.claims(p) {
                    assert!(p.claims.iter().any(|c| c.id == id), "{}: claim {id} not in {}", s.id(), p.experiment);
                }
                if let InvestigationSpec::Sweep(s) = s {
                    assert!(s.values.contains(&s.default), "{}: the default is not a swept value", s.id);
                    assert!(s.values.windows(2).all(|w| w[0] < w[1]), "{}: values not ascending", s.id);
                }
            }
            ids.extend(own);
        }
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "investigation ids are unique");
    }

    #[test]
    fn every_base_and_fixed_case_of_an_investigation_is_one_of_its_experiments_cases() {
        for p in all().unwrap() {
            let own = p.cases.expand(&coapcc_driver::scenario::Catalogue::BuiltIn, false, None).unwrap();
            for spec in &p.investigations {
                let InvestigationSpec::Sweep(s) = spec else { continue };
                let known = |n: &str| own.iter().any(|c| c.name == n || c.sweep.as_ref().is_some_and(|(w, _)| w == n));
                for n in s.bases.iter().chain(&s.fixed) {
                    assert!(known(n), "{}: no case or sweep `{n}` in {}", s.id, p.experiment);
                }
                assert!(s.fixed.iter().all(|f| !s.bases.contains(f)), "{}: a fixed case is also swept", s.id);
            }
        }
    }

    #[test]
    fn the_catalogue_holds_every_experiment_file_in_report_order() {
        let ids = ids().unwrap();
        assert_eq!(
            ids,
            ["fasor", "full-backoff", "makarem-rto", "makarem-rate", "betzler", "lim", "makarem-cooja", "firmware"]
        );
        assert!(all().unwrap().iter().all(|p| !p.about.is_empty() && !p.cases.runs.is_empty()));
        let e = load("nope").unwrap_err();
        assert!(e.is_bad_input() && e.to_string().contains("valid: fasor, full-backoff"), "{e}");
    }

    #[test]
    fn a_figure_kind_is_checked_when_the_file_loads_naming_the_figure() {
        let figure = |kind: &str| {
            format!(
                "{HEAD}[[figure]]\nid = \"x-fig1\"\ntheir = \"Fig. 1\"\ncaption = \"c\"\nshows = \"s\"\nkind = \"{kind}\"\n{GOOD}"
            )
        };
        let e = parse(&figure("fct-boxes"), "data/published/x.toml").unwrap_err().to_string();
        assert!(e.starts_with("data/published/x.toml: figure `x-fig1`: unknown kind `fct-boxes`"), "{e}");
        assert!(e.contains("fct-box, ") && e.contains("mh-ci:NAME"), "lists the valid kinds: {e}");
        assert!(parse(&figure("mh-ci:"), "x.toml").is_err(), "an argument kind needs its argument");
        let p = parse(&figure("mh-ci:goodput_bps"), "x.toml").unwrap();
        assert_eq!(p.figures[0].kind, FigureKind::MhCi("goodput_bps".into()));
        assert_eq!(p.figures[0].kind.to_string(), "mh-ci:goodput_bps");
        assert_eq!("rto-trace".parse::<FigureKind>().unwrap().to_string(), "rto-trace");
    }

    #[test]
    fn an_investigation_like_another_takes_the_keys_it_does_not_give() {
        let inv = "[[investigation]]\nkind = \"sweep\"\nid = \"x-a\"\nshort = \"s\"\ntitle = \"t\"\nquestion = \"q\"\n\
bases = [\"fasor/c\"]\nkey = \"flows\"\naxis = \"number of flows\"\nunit = \"flows\"\nvalues = [1.0, 2.0]\ndefault = 1.0\nreplications = [2, 1]\n\
claims = [\"good-one\"]\nunknown = \"u\"\n[[investigation]]\nlike = \"x-a\"\nid = \"x-b\"\nkey = \"seed\"\n";
        let p = parse(&format!("{HEAD}{GOOD}{inv}"), "x.toml").unwrap();
        let [InvestigationSpec::Sweep(a), InvestigationSpec::Sweep(b)] = p.investigations.as_slice() else {
            panic!("two sweeps")
        };
        assert_eq!((b.id.as_str(), b.key.as_str(), b.experiment.as_str()), ("x-b", "seed", "x"));
        assert_eq!((&b.bases, &b.claims, b.values.clone()), (&a.bases, &a.claims, vec![1.0, 2.0]));
        let e = parse(&format!("{HEAD}{GOOD}{}", inv.replace("\"good-one\"", "\"gone\"")), "x.toml").unwrap_err();
        assert!(e.to_string().contains("investigation `x-a`: `claims` names `gone`"), "{e}");
        let e = parse(&format!("{HEAD}{GOOD}{}", inv.replace("default = 1.0", "default = 3.0")), "x.toml").unwrap_err();
        assert!(e.to_string().contains("investigation `x-a`: the default is not a swept value"), "{e}");
        let e =
            parse(&format!("{HEAD}{GOOD}{}", inv.replace("like = \"x-a\"", "like = \"x-z\"")), "x.toml").unwrap_err();
        assert!(e.to_string().contains("names no earlier investigation"), "{e}");
    }
}
