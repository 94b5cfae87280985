//! The noise test of a direction claim (docs/reproduction-status.md, "Reproduction status"): a
//! difference, order or bound that lies within the run-to-run noise is **inconclusive**, not
//! "holds" or "differs".
//!
//! The test: the claim's value is computed on each replication alone (replication r of every
//! case it reads, which share the seed + r); [`RESAMPLES`] bootstrap resamples of those values
//! (drawn with replacement from a generator seeded by the claim's id, so the same run gives the
//! same interval) give the percentile interval of their mean at [`LEVEL`]. A direction claim
//! holds only when our value satisfies its check **and** that interval lies wholly where the
//! check holds; it differs only when our value fails the check and the interval lies wholly
//! where it fails; otherwise it is inconclusive. A claim whose metric is itself a test of the
//! noise (`mh_ci_gap`, the gap between two 95 % confidence intervals) and numeric claims are
//! not retested.

use coapcc_driver::rng::{below, stream_rng};

use super::evaluate::{CaseResult, CaseSeries, Outcome, Verdict, metric, num};
use super::published::{Check, ClaimKind, Kind};

/// Bootstrap resamples per claim.
pub const RESAMPLES: usize = 2000;

/// The interval's level: the 2.5th to the 97.5th percentile of the resampled means.
pub const LEVEL: f64 = 0.95;

/// The seed of the bootstrap generators (each claim draws its own stream of it).
const SEED: u64 = 0x6e6f_6973_6574_6573;

/// Each replication's cases alone: set r holds replication r of every case that ran more than
/// r replications (its summaries as that replication gave them), in case order.
pub fn replication_sets(cases: &[CaseResult]) -> Vec<Vec<CaseResult>> {
    let n = cases.iter().map(|c| c.per_replication.len()).max().unwrap_or(0);
    (0..n)
        .map(|r| {
            cases
                .iter()
                .filter(|c| c.per_replication.len() > r)
                .map(|c| CaseResult {
                    case: c.case.clone(),
                    description: String::new(),
                    source: String::new(),
                    seed: c.seed.wrapping_add(r as u64),
                    replications: 1,
                    summaries: c.per_replication[r].clone(),
                    per_replication: Vec::new(),
                    // A claim reads only the summaries (and the trace rows' configuration).
                    series: CaseSeries::None,
                    trace: c.trace.clone(),
                    rtt_samples_rep0: Vec::new(),
                    transfer: None,
                })
                .collect()
        })
        .collect()
}

/// FNV-1a of a claim's id: its bootstrap stream.
fn stream_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The [`LEVEL`] percentile interval of the mean of the finite `values`, from [`RESAMPLES`]
/// resamples with replacement drawn from stream `stream`; `None` with fewer than two values.
pub fn bootstrap_mean_interval(values: &[f64], stream: u64) -> Option<[f64; 2]> {
    let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.len() < 2 {
        return None;
    }
    let mut rng = stream_rng(SEED, 0, stream);
    let n = v.len() as u64;
    let mut means: Vec<f64> =
        (0..RESAMPLES).map(|_| (0..n).map(|_| v[below(&mut rng, n) as usize]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    // Ranks ⌈B·α/2⌉ and ⌈B·(1 − α/2)⌉ of the B sorted means (1-based).
    let tail = (1.0 - LEVEL) / 2.0;
    let rank = |p: f64| ((RESAMPLES as f64 * p).ceil() as usize).clamp(1, RESAMPLES) - 1;
    Some([means[rank(tail)], means[rank(1.0 - tail)]])
}

/// Where a check holds, as a closed or open interval of values: (lo, lo included, hi, hi
/// included).
fn holding_region(check: Check, published: f64) -> Option<(f64, bool, f64, bool)> {
    Some(match check {
        Check::Sign {} if published > 0.0 => (0.0, false, f64::INFINITY, false),
        Check::Sign {} => (f64::NEG_INFINITY, false, 0.0, false),
        Check::AtMost { value } => (f64::NEG_INFINITY, false, value, true),
        Check::AtLeast { value } => (value, true, f64::INFINITY, false),
        Check::Within { tolerance } => (published - tolerance, true, published + tolerance, true),
        Check::Ratio { .. } => return None,
    })
}

/// The bound(s) of a check in words (`0`, `1`, `[−0.1, 0.1]`).
fn bound_words(check: Check, published: f64) -> String {
    match check {
        Check::Sign {} => "0".into(),
        Check::AtMost { value } | Check::AtLeast { value } => num(value),
        Check::Within { tolerance } => format!("[{}, {}]", num(published - tolerance), num(published + tolerance)),
        Check::Ratio { .. } => String::new(),
    }
}

/// Whether a claim's verdict is retested for noise: a direction claim whose metric is no test
/// of the noise itself.
pub fn tested(outcome: &Outcome) -> bool {
    outcome.claim.kind() == ClaimKind::Direction
        // Its own test of the noise (two 95 % confidence intervals), or one run's trace (as the
        // paper's figure shows one run).
        && !matches!(outcome.claim.metric.kind(), Kind::MhCiGap(_) | Kind::MhTraceNodes(_))
        && holding_region(outcome.claim.check, outcome.claim.published).is_some()
        && matches!(outcome.verdict, Verdict::Holds | Verdict::Differs)
}

/// `outcome` with the noise test applied (module doc), on the replications of `sets`
/// ([`replication_sets`] of the cases it was evaluated on).
pub fn judge(mut outcome: Outcome, sets: &[Vec<CaseResult>]) -> Outcome {
    if !tested(&outcome) {
        return outcome;
    }
    let claim = &outcome.claim;
    let Some((lo, lo_in, hi, hi_in)) = holding_region(claim.check, claim.published) else { return outcome };
    let values: Vec<f64> =
        sets.iter().map(|set| metric(set, claim).ok().filter(|v| v.is_finite()).unwrap_or(f64::NAN)).collect();
    let defined = values.iter().filter(|v| v.is_finite()).count();
    let Some([a, b]) = bootstrap_mean_interval(&values, stream_of(&claim.id)) else {
        outcome.verdict = Verdict::Inconclusive(format!(
            "no noise test: {defined} replication{} define{} its value (two or more are needed)",
            if defined == 1 { "" } else { "s" },
            if defined == 1 { "s" } else { "" }
        ));
        return outcome;
    };
    outcome.noise = Some([a, b]);
    let inside = |x: f64| (x > lo || (lo_in && x == lo)) && (x < hi || (hi_in && x == hi));
    // The interval lies wholly where the check holds, or wholly where it fails (below the
    // region or above it).
    let all_hold = inside(a) && inside(b);
    let all_fail = (b < lo || (!lo_in && b == lo)) || (a > hi || (!hi_in && a == hi));
    let holds = outcome.verdict == Verdict::Holds;
    if !((holds && all_hold) || (!holds && all_fail)) {
        outcome.verdict = Verdict::Inconclusive(format!(
            "within the run-to-run noise: the {:.0} % bootstrap interval of its mean over {defined} replications, [{}, {}], does not lie wholly on one side of {}",
            LEVEL * 100.0,
            num(a),
            num(b),
            bound_words(claim.check, claim.published)
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bootstrap_interval_of_a_mean_matches_the_normal_approximation_of_its_spread() {
        // Values 1..=20: mean 10.5, plug-in variance (n² − 1)/12 = 33.25, so the bootstrap
        // mean has sd √(33.25/20) = 1.289 and its 95 % interval is about 10.5 ± 1.96 · 1.289.
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        let [lo, hi] = bootstrap_mean_interval(&v, 7).unwrap();
        let half = 1.96 * (33.25f64 / 20.0).sqrt();
        assert!((lo - (10.5 - half)).abs() < 0.3 && (hi - (10.5 + half)).abs() < 0.3, "[{lo}, {hi}]");
        // The same stream gives the same interval; another stream a slightly different one.
        assert_eq!(bootstrap_mean_interval(&v, 7), Some([lo, hi]));
        assert_ne!(bootstrap_mean_interval(&v, 8), Some([lo, hi]));
    }

    #[test]
    fn equal_values_give_a_point_and_fewer_than_two_values_no_interval() {
        assert_eq!(bootstrap_mean_interval(&[0.25, 0.25, 0.25], 1), Some([0.25, 0.25]));
        assert_eq!(bootstrap_mean_interval(&[1.0, f64::NAN], 1), None);
        // Two values 0 and 1: a resample's mean is 0, ½ or 1 with chances ¼, ½, ¼, so both
        // tails (2.5 %) are reached: the interval is [0, 1].
        assert_eq!(bootstrap_mean_interval(&[0.0, 1.0], 3), Some([0.0, 1.0]));
    }

    #[test]
    fn the_regions_of_the_checks_include_their_bounds_as_the_checks_do() {
        assert_eq!(holding_region(Check::Sign {}, 1.0), Some((0.0, false, f64::INFINITY, false)));
        assert_eq!(holding_region(Check::AtMost { value: 0.8 }, 0.8), Some((f64::NEG_INFINITY, false, 0.8, true)));
        assert_eq!(holding_region(Check::Within { tolerance: 0.1 }, 0.0), Some((-0.1, true, 0.1, true)));
        assert_eq!(holding_region(Check::Ratio { range: None }, 1.0), None);
    }
}
