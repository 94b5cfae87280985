//! The published results of each experiment, read from `data/published/<experiment>.toml`
//! (compiled in, so the binary works anywhere; the numbers live only in those files).

use serde::Deserialize;

/// One experiment's data file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// Experiment id (`fasor`, …).
    pub experiment: String,
    /// Title for the report.
    pub title: String,
    /// Full citation.
    pub paper: String,
    /// The seed file the numbers come from.
    pub seed: String,
    /// Their figures we reproduce.
    #[serde(default, rename = "figure")]
    pub figures: Vec<FigureSpec>,
    /// Their claims.
    #[serde(default, rename = "claim")]
    pub claims: Vec<Claim>,
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
    pub kind: String,
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

/// One published claim and how to check it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Unique id.
    pub id: String,
    /// The claim in words.
    pub text: String,
    /// Where it is published (section, figure or table, page).
    pub source: String,
    /// The metric that gives our number.
    pub metric: String,
    /// The case it is about.
    #[serde(default)]
    pub case: Option<String>,
    /// Several cases (`unnecessary_reduction_max`).
    #[serde(default)]
    pub cases: Vec<String>,
    /// A sweep (`goodput_slope`, …).
    #[serde(default)]
    pub sweep: Option<String>,
    /// First algorithm.
    #[serde(default)]
    pub a: Option<String>,
    /// Second algorithm.
    #[serde(default)]
    pub b: Option<String>,
    /// Several algorithms (`fct_median_spread`).
    #[serde(default)]
    pub algorithms: Vec<String>,
    /// Algorithms to compare against (`*_min` metrics).
    #[serde(default)]
    pub against: Vec<String>,
    /// Algorithm pairs (`unnecessary_reduction_max_pairs`).
    #[serde(default)]
    pub pairs: Vec<[String; 2]>,
    /// Sweep metrics: keep only sweep points whose mean ResBW lies in this range.
    #[serde(default)]
    pub resbw_range: Option<[f64; 2]>,
    /// The published value (fractions, not percentages).
    pub published: f64,
    /// The text states a direction or equality but no number: `published` is a marker.
    #[serde(default)]
    pub qualitative: bool,
    /// The words stating it, verbatim.
    #[serde(default)]
    pub quote: Option<String>,
    /// How a published number was computed from an expression the text gives.
    #[serde(default)]
    pub derivation: Option<String>,
    /// The seed file, when it differs from the file's.
    #[serde(default)]
    pub seed: Option<String>,
    /// `ratio`, `sign`, `at_most`, `at_least`, `within`.
    pub check: String,
    /// For `ratio`: the accepted range of ours/published (default [0.5, 2]).
    #[serde(default)]
    pub range: Option<[f64; 2]>,
    /// For `at_most` / `at_least`.
    #[serde(default)]
    pub value: Option<f64>,
    /// For `within`.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Definition of a metric not in the standard list.
    #[serde(default)]
    pub definition: Option<String>,
    /// A note shown with the claim.
    #[serde(default)]
    pub note: Option<String>,
}

/// The data file of `experiment`, compiled in.
pub fn text_of(experiment: &str) -> Option<&'static str> {
    Some(match experiment {
        "fasor" => include_str!("../../../../data/published/fasor.toml"),
        "full-backoff" => include_str!("../../../../data/published/full-backoff.toml"),
        "makarem-rto" => include_str!("../../../../data/published/makarem-rto.toml"),
        "makarem-rate" => include_str!("../../../../data/published/makarem-rate.toml"),
        _ => return None,
    })
}

/// Parses the data file of `experiment`.
pub fn load(experiment: &str) -> Result<Published, String> {
    let text = text_of(experiment).ok_or_else(|| format!("no published data for `{experiment}`"))?;
    toml::from_str(text).map_err(|e| format!("data/published/{experiment}.toml: {}", e.message()))
}
