//! From runs to findings: the client's transmission parameters, checked against RFC 7252
//! §4.2, §4.5, §4.7 and §4.8, and the closest coapcc algorithm ([`super::rank`]). Pure: runs
//! in, findings out.

use std::time::Duration;

use super::matching::{Match, rank, tied};
use super::script::Action;
use super::stats::{Estimate, UniformFit, uniform_fit};
use super::timeline::{End, Exchange, ReplyKind, Run, SentKind};

/// How long a client must still run after a separate response for the response to count as
/// delivered (a run the probe stopped may end between the empty ACK and the response).
pub const RESPONSE_GRACE: Duration = Duration::from_millis(50);

/// How long after a separate response the probe sends its duplicate (the probe server in
/// `coapcc-udp` uses this value).
pub const DUPLICATE_AFTER: Duration = Duration::from_millis(1);

/// RFC 7252 §4.8 defaults.
pub const ACK_TIMEOUT_S: f64 = 2.0;
/// RFC 7252 §4.8.
pub const ACK_RANDOM_FACTOR: f64 = 1.5;
/// RFC 7252 §4.8.
pub const MAX_RETRANSMIT: u32 = 4;
/// RFC 7252 §4.8.
pub const NSTART: u32 = 1;
/// RFC 7252 §4.8.2: ACK_TIMEOUT × (2^(MAX_RETRANSMIT + 1) − 1) × ACK_RANDOM_FACTOR.
pub const MAX_TRANSMIT_WAIT_S: f64 = 93.0;

/// What the distance of [`Findings::candidates`] is, as the output states it.
pub const DISTANCE: &str =
    "mean absolute log-ratio of a timeout against the nearest of 64 replays (0.05: about 5 % off)";

/// Tolerances of the inference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// How precisely the probe timestamps a copy (scheduling, loopback): added to confidence
    /// intervals and to the tolerance of every comparison.
    pub resolution: Duration,
    /// Relative tolerance of "the timeout is doubled" and "the timeout did not change".
    pub tolerance: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options { resolution: Duration::from_millis(3), tolerance: 0.10 }
    }
}

/// What kind of rule a finding is about, by the RFC's keyword (RFC 2119).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A MUST (or MUST NOT) of the RFC, or the retransmission procedure of RFC 7252 §4.2 that
    /// an endpoint "MUST keep track of": breaking it is a violation, and always fails.
    Requirement,
    /// A SHOULD of the RFC: not following it is a warning, never a failure (the RFC allows
    /// valid reasons to do otherwise).
    Recommendation,
    /// A default a deployment may change: the parameters of RFC 7252 §4.8 (with care,
    /// §4.8.1), the amplification bound the server probe applies. A violation, which fails
    /// unless tuned values are allowed.
    Default,
}

/// One rule the client broke (or, for a [`Kind::Recommendation`], did not follow), with the
/// evidence.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Violation {
    /// The rule: document and section.
    pub rule: &'static str,
    /// Requirement, recommendation or default.
    pub kind: Kind,
    /// What the client does.
    pub finding: String,
    /// The measurements that show it.
    pub evidence: String,
}

/// How the client handles a separate response (RFC 7252 §5.2.2) sent twice.
///
/// The duplicate leaves [`DUPLICATE_AFTER`] after the first copy, as a datagram the network
/// duplicated (RFC 7252 §2.1: UDP messages "may … appear duplicated"); RFC 7252 §4.5 asks the
/// recipient of any duplicate within EXCHANGE_LIFETIME to acknowledge it "using the same
/// Acknowledgement or Reset message". A client that closes its endpoint on the response (a
/// one-shot command) no longer has an endpoint to answer with: its silence is judged only
/// when the endpoint is shown open after the duplicate (it sent anything from the same port
/// later), otherwise the duplicate counts as not judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SeparateHandling {
    /// Exchanges answered with an empty ACK and a separate response.
    pub exchanges: usize,
    /// Of them, those where the request was sent again after the empty ACK arrived.
    pub retransmitted_after_empty_ack: usize,
    /// Separate responses the client acknowledged (the first copy).
    pub acknowledged: usize,
    /// Duplicates of separate responses sent.
    pub duplicates_sent: usize,
    /// Duplicates the client acknowledged again (RFC 7252 §4.5).
    pub duplicates_acknowledged: usize,
    /// Duplicates the client answered with a Reset after acknowledging the first copy: it did
    /// not recognise the duplicate (RFC 7252 §4.5 asks for the same ACK).
    pub duplicates_reset: usize,
    /// Duplicates without any answer although the client's endpoint was shown open after them.
    pub duplicates_ignored: usize,
    /// Duplicates without any answer from a client that sent nothing afterwards (it may have
    /// closed its endpoint on the response): not judged.
    pub duplicates_not_judged: usize,
    /// Resets the client sent.
    pub resets: usize,
}

/// What the first timeout of an exchange was after earlier exchanges gave RTT samples.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct AfterSamples {
    /// Exchanges answered before (each an RTT sample).
    pub samples: usize,
    /// The answer's delay after the copy it answered (the RTT the client saw), seconds.
    pub rtt_s: f64,
    /// Whether the answers followed the original (strong samples) or a retransmission (weak,
    /// ambiguous samples: Karn's rule takes none).
    pub weak: bool,
    /// The first timeout of the next, unanswered exchange, seconds.
    pub first_timeout_s: f64,
    /// Whether it lies outside the range of fresh first timeouts (it moved with the samples).
    pub changed: bool,
}

/// Everything the probe inferred.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Findings {
    /// Runs analysed.
    pub runs: usize,
    /// The first timeout of each run's first exchange, seconds.
    pub first_timeouts_s: Vec<f64>,
    /// ACK_TIMEOUT: the lower end of the first timeouts' uniform law (seconds); with one run,
    /// its first timeout.
    pub ack_timeout_s: Option<f64>,
    /// Its 95 % confidence interval (two runs or more).
    pub ack_timeout_ci_s: Option<[f64; 2]>,
    /// ACK_RANDOM_FACTOR: upper over lower end of the first timeouts' law.
    pub ack_random_factor_max: Option<f64>,
    /// Its 95 % confidence interval.
    pub ack_random_factor_max_ci: Option<[f64; 2]>,
    /// The step of the lattice the first timeouts lie on (a timer drawn in whole ticks, fitted
    /// as a discrete uniform law), seconds; `None`: continuous.
    pub first_timeout_step_s: Option<f64>,
    /// The fit behind the values above.
    pub first_timeout_fit: Option<UniformFit>,
    /// Geometric mean of the ratios of successive timeouts of an unanswered exchange.
    pub backoff_factor: Option<f64>,
    /// Each ratio.
    pub backoff_factors: Vec<f64>,
    /// The timeouts of the first unanswered exchange whose give-up was seen, seconds.
    pub timeouts_s: Vec<f64>,
    /// Its wait after the last copy, seconds.
    pub final_wait_s: Option<f64>,
    /// First copy to give-up, seconds.
    pub total_wait_s: Option<f64>,
    /// Its copies.
    pub transmissions: Option<u32>,
    /// MAX_RETRANSMIT: copies − 1.
    pub max_retransmit: Option<u32>,
    /// Most exchanges outstanding at once from one client port.
    pub nstart: Option<u32>,
    /// Whether the first timeout moved after strong RTT samples (`None`: no such run).
    pub adapts_to_rtt: Option<bool>,
    /// The runs behind `adapts_to_rtt`.
    pub after_strong: Option<AfterSamples>,
    /// Whether the first timeout moved after weak (ambiguous) samples only: `false` is
    /// Karn's rule or no adaptation, `true` a weak estimator (CoCoA).
    pub after_weak: Option<AfterSamples>,
    /// Separate responses and their duplicates.
    pub separate: Option<SeparateHandling>,
    /// The closest algorithm's name.
    pub closest_algorithm: Option<String>,
    /// Presets the fit turned into the closest one's configuration: the same algorithm with
    /// other parameters (`default` and `default-aggressive` differ only in ACK_TIMEOUT); the
    /// closest is the preset that needed the least scaling, its fitted settings are the answer.
    pub same_algorithm: Vec<String>,
    /// Other algorithms exactly as close (their replays of these runs are the closest's:
    /// indistinguishable by them).
    pub tied_with: Vec<String>,
    /// What `distance` measures.
    pub distance_kind: &'static str,
    /// Every algorithm, closest first.
    pub candidates: Vec<Match>,
    /// Rules broken: requirements (MUST) and changed defaults.
    pub violations: Vec<Violation>,
    /// Recommendations (SHOULD) not followed: warnings, never a failure.
    pub warnings: Vec<Violation>,
}

impl Findings {
    /// Whether the client conforms: no violated requirement, and (unless `allow_tuned`) no
    /// changed default; a warning (a SHOULD not followed) does not count.
    pub fn conforms(&self, allow_tuned: bool) -> bool {
        self.violations.iter().all(|v| allow_tuned && v.kind == Kind::Default)
    }
}

fn s(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// The first timeout of `e`, when it has a second copy.
fn first_timeout(e: &Exchange) -> Option<f64> {
    (e.copies.len() >= 2).then(|| s(e.copies[1].saturating_sub(e.copies[0])))
}

/// Most exchanges of one port open at once: from the first copy to the probe's answer (or the
/// exchange's end, or the end of the run).
fn nstart(run: &Run, exchanges: &[Exchange]) -> Option<u32> {
    let close = |e: &Exchange| {
        let answer =
            run.sent.iter().filter(|m| m.exchange == e.number && m.kind != SentKind::Separate).map(|m| m.at).min();
        answer.or(e.ended).unwrap_or(run.end_at)
    };
    let spans: Vec<(u16, Duration, Duration)> =
        exchanges.iter().filter_map(|e| Some((e.port, *e.copies.first()?, close(e)))).collect();
    spans
        .iter()
        .map(|&(port, start, _)| spans.iter().filter(|&&(p, a, b)| p == port && a <= start && start < b).count() as u32)
        .max()
}

/// The first-timeout range fresh exchanges show: the fit's interval, else the samples' range.
fn fresh_range(fit: Option<&UniformFit>, firsts: &[f64]) -> Option<(f64, f64)> {
    match fit {
        Some(f) => Some((f.lower_s.low, f.upper_s.high)),
        None => {
            let lo = firsts.iter().copied().reduce(f64::min)?;
            let hi = firsts.iter().copied().reduce(f64::max)?;
            Some((lo, hi))
        }
    }
}

/// The first unanswered exchange after answered ones of one kind (`weak`: answered after a
/// retransmission), with its first timeout.
fn after_samples(runs: &[Run], weak: bool, range: Option<(f64, f64)>, tol: f64) -> Option<AfterSamples> {
    for run in runs {
        let ex = run.exchanges();
        let answered = ex
            .iter()
            .take_while(|e| e.answered && matches!(e.action, Action::Piggybacked { copy, .. } if (copy > 0) == weak));
        let samples = answered.count();
        if samples == 0 {
            continue;
        }
        let Some(next) = ex.get(samples) else { continue };
        if next.action != Action::Drop {
            continue;
        }
        let Some(first) = first_timeout(next) else { continue };
        let rtt_s = ex[0].action.answer().map_or(0.0, |(_, d)| s(d));
        let changed = range.is_some_and(|(lo, hi)| first < lo * (1.0 - tol) || first > hi * (1.0 + tol));
        return Some(AfterSamples { samples, rtt_s, weak, first_timeout_s: first, changed });
    }
    None
}

fn separate(runs: &[Run], resolution: Duration) -> Option<SeparateHandling> {
    let mut h = SeparateHandling {
        exchanges: 0,
        retransmitted_after_empty_ack: 0,
        acknowledged: 0,
        duplicates_sent: 0,
        duplicates_acknowledged: 0,
        duplicates_reset: 0,
        duplicates_ignored: 0,
        duplicates_not_judged: 0,
        resets: 0,
    };
    for run in runs {
        let exchanges = run.exchanges();
        for e in &exchanges {
            let Some(ack) = run.sent.iter().find(|m| m.exchange == e.number && m.kind == SentKind::EmptyAck) else {
                continue;
            };
            // Only exchanges whose separate response left while the run still went on a while,
            // or that the client answered (the probe stops a run once every copy is answered).
            let answered = run.replies.iter().any(|r| r.exchange == e.number);
            let settled =
                |t: Duration| answered || t + RESPONSE_GRACE < run.end_at || matches!(run.end, End::Exited(_));
            let separate: Vec<_> =
                run.sent.iter().filter(|m| m.exchange == e.number && m.kind == SentKind::Separate).collect();
            if !separate.iter().any(|m| m.copy == 0 && settled(m.at)) {
                continue;
            }
            h.exchanges += 1;
            // A copy that left before the empty ACK arrived may still be on its way.
            if e.copies.iter().any(|&t| t > ack.at + resolution) {
                h.retransmitted_after_empty_ack += 1;
            }
            // The client's answers in arrival order: the first answers the first copy.
            let replies: Vec<_> = run.replies.iter().filter(|r| r.exchange == e.number).collect();
            h.resets += replies.iter().filter(|r| r.kind == ReplyKind::Reset).count();
            h.acknowledged += usize::from(replies.first().is_some_and(|r| r.kind == ReplyKind::Ack));
            for (i, dup) in separate.iter().filter(|m| m.copy > 0).enumerate() {
                h.duplicates_sent += 1;
                match replies.get(i + 1).map(|r| r.kind) {
                    Some(ReplyKind::Ack) => h.duplicates_acknowledged += 1,
                    Some(ReplyKind::Reset) => h.duplicates_reset += 1,
                    None => {
                        // Anything the client sent after the duplicate shows its endpoint open,
                        // except its answer to this exchange's first copy: a one-shot client
                        // answers that, hands the response over and exits, and the duplicate
                        // may arrive in between (its endpoint closing, not ignoring it).
                        let later = |t: Duration| t > dup.at + resolution;
                        let open = run.copies.iter().any(|c| c.port == e.port && later(c.at))
                            || run.replies.iter().any(|r| r.exchange != e.number && later(r.at));
                        if open {
                            h.duplicates_ignored += 1;
                        } else {
                            h.duplicates_not_judged += 1;
                        }
                    }
                }
            }
        }
    }
    (h.exchanges > 0).then_some(h)
}

fn ms(x: f64) -> String {
    format!("{:.1} ms", x * 1e3)
}

fn list_ms(v: &[f64]) -> String {
    v.iter().map(|x| format!("{:.1}", x * 1e3)).collect::<Vec<_>>().join(", ")
}

/// Infers the client's parameters from `runs`, checks them, and ranks the algorithms.
pub fn infer(runs: &[Run], opts: &Options) -> Findings {
    let res = s(opts.resolution);
    let tol = opts.tolerance;
    let all: Vec<Vec<Exchange>> = runs.iter().map(Run::exchanges).collect();
    let firsts: Vec<f64> = all.iter().filter_map(|ex| first_timeout(ex.first()?)).collect();
    let fit = uniform_fit(&firsts, res);
    // The first unanswered exchange whose give-up was seen, of a fresh client.
    let silent = all
        .iter()
        .filter_map(|ex| ex.first())
        .find(|e| e.action == Action::Drop && e.ended.is_some() && !e.copies.is_empty());
    let (mut timeouts, mut final_wait, mut total, mut transmissions) = (Vec::new(), None, None, None);
    if let Some(e) = silent {
        let iv: Vec<f64> = e.intervals().into_iter().map(s).collect();
        let (t, f) = iv.split_at(iv.len().saturating_sub(1));
        timeouts = t.to_vec();
        final_wait = f.first().copied();
        total = e.ended.map(|end| s(end.saturating_sub(e.copies[0])));
        transmissions = Some(e.copies.len() as u32);
    }
    let backoff_factors: Vec<f64> = timeouts.windows(2).filter(|w| w[0] > 0.0).map(|w| w[1] / w[0]).collect();
    let backoff_factor = (!backoff_factors.is_empty())
        .then(|| (backoff_factors.iter().map(|r| r.ln()).sum::<f64>() / backoff_factors.len() as f64).exp());
    let max_retransmit = transmissions.map(|n| n.saturating_sub(1));
    let nstart = runs.iter().zip(&all).filter_map(|(r, ex)| nstart(r, ex)).max();
    let range = fresh_range(fit.as_ref(), &firsts);
    let after_strong = after_samples(runs, false, range, tol);
    let after_weak = after_samples(runs, true, range, tol);
    let (ack_timeout_s, ack_timeout_ci_s) = match (&fit, firsts.first()) {
        (Some(f), _) => (Some(f.lower_s.value), Some([f.lower_s.low, f.lower_s.high])),
        (None, Some(&x)) => (Some(x), None),
        _ => (None, None),
    };
    let factor: Option<Estimate> = fit.map(|f| f.factor);
    let candidates = rank(runs, max_retransmit.and_then(|n| u8::try_from(n).ok()));
    // Nothing compared (no copy in any run): no algorithm is close.
    let closest = candidates.first().filter(|c| c.distance.is_finite());
    let ties: Vec<&Match> = match closest {
        Some(c) => candidates[1..].iter().filter(|m| tied(m.distance, c.distance)).collect(),
        None => Vec::new(),
    };
    let same = |m: &&&Match| closest.is_some_and(|c| c.fitted_config == m.fitted_config);
    let same_algorithm = ties.iter().filter(same).map(|m| m.algorithm.to_string()).collect();
    let tied_with = ties.iter().filter(|m| !same(m)).map(|m| m.algorithm.to_string()).collect();
    let mut f = Findings {
        runs: runs.len(),
        first_timeouts_s: firsts.clone(),
        ack_timeout_s,
        ack_timeout_ci_s,
        ack_random_factor_max: factor.map(|e| e.value),
        ack_random_factor_max_ci: factor.map(|e| [e.low, e.high]),
        first_timeout_step_s: fit.and_then(|f| f.step_s),
        first_timeout_fit: fit,
        backoff_factor,
        backoff_factors,
        timeouts_s: timeouts,
        final_wait_s: final_wait,
        total_wait_s: total,
        transmissions,
        max_retransmit,
        nstart,
        adapts_to_rtt: after_strong.map(|a| a.changed),
        after_strong,
        after_weak,
        separate: separate(runs, opts.resolution),
        closest_algorithm: closest.map(|c| c.algorithm.to_string()),
        same_algorithm,
        tied_with,
        distance_kind: DISTANCE,
        candidates,
        violations: Vec::new(),
        warnings: Vec::new(),
    };
    (f.warnings, f.violations) = check(&f, tol).into_iter().partition(|v| v.kind == Kind::Recommendation);
    f
}

/// The rules (docs/probe.md lists them with the RFC text).
fn check(f: &Findings, tol: f64) -> Vec<Violation> {
    let mut v = Vec::new();
    let mut add = |rule, kind, finding: String, evidence: String| v.push(Violation { rule, kind, finding, evidence });
    // §4.2: a random initial timeout in [ACK_TIMEOUT, ACK_TIMEOUT × ACK_RANDOM_FACTOR];
    // §4.8: ACK_RANDOM_FACTOR "MUST NOT be decreased below 1.0, and it SHOULD have a value
    // that is sufficiently different from 1.0": a factor of 1 breaks only the SHOULD.
    if let Some(fit) = &f.first_timeout_fit
        && fit.n >= 5
        && fit.factor.high < 1.0 + tol / 2.0
    {
        add(
            "RFC 7252 §4.8",
            Kind::Recommendation,
            "the first timeout is not randomised (ACK_RANDOM_FACTOR ≈ 1; it SHOULD be sufficiently different from 1.0)"
                .into(),
            format!(
                "{} runs: first timeouts from {} to {}; ACK_RANDOM_FACTOR ≤ {:.4} (95 % CI)",
                fit.n,
                ms(fit.min_s),
                ms(fit.max_s),
                fit.factor.high
            ),
        );
    }
    // §4.2: "the timeout is doubled". A stack that adapts its timeout (CoCoA) may vary it.
    if let Some(b) = f.backoff_factor
        && f.adapts_to_rtt != Some(true)
        && (b / 2.0 - 1.0).abs() > tol
    {
        let shape = if f.backoff_factors.iter().all(|r| (r - 1.0).abs() <= tol) {
            "timeouts do not grow (linear spacing of the copies)"
        } else {
            "timeouts are not doubled"
        };
        add(
            "RFC 7252 §4.2",
            Kind::Requirement,
            format!("{shape}: backoff factor {b:.2}, not 2"),
            format!("timeouts {} ms; ratios {:.2?}", list_ms(&f.timeouts_s), f.backoff_factors),
        );
    }
    // §4.2: the exchange is cancelled when the timeout after the last retransmission expires;
    // that timeout is the last one doubled (or, with a cap, at least the last one).
    if let (Some(w), Some(&last)) = (f.final_wait_s, f.timeouts_s.last()) {
        if w < last * 0.5 {
            add(
                "RFC 7252 §4.2",
                Kind::Requirement,
                "gives up without waiting for the timeout of its last retransmission".into(),
                format!("gave up {} after the last copy; its timeout would be at least {}", ms(w), ms(last)),
            );
        }
    } else if let (Some(w), Some(a)) = (f.final_wait_s, f.ack_timeout_s)
        && w < a * 0.5
    {
        add(
            "RFC 7252 §4.2",
            Kind::Requirement,
            "gives up without waiting for the timeout of its only transmission".into(),
            format!("gave up {} after it; ACK_TIMEOUT ≈ {}", ms(w), ms(a)),
        );
    }
    if let Some(n) = f.max_retransmit
        && n != MAX_RETRANSMIT
    {
        add(
            "RFC 7252 §4.8",
            Kind::Default,
            format!("MAX_RETRANSMIT is {n}, not the default {MAX_RETRANSMIT}"),
            format!("{} transmissions of an unanswered request before the give-up", n + 1),
        );
    }
    if let (Some(a), Some(ci)) = (f.ack_timeout_s, f.ack_timeout_ci_s)
        && !(ci[0] * (1.0 - tol / 2.0) <= ACK_TIMEOUT_S && ACK_TIMEOUT_S <= ci[1] * (1.0 + tol / 2.0))
    {
        add(
            "RFC 7252 §4.8",
            Kind::Default,
            format!("ACK_TIMEOUT is about {}, not the default 2 s", ms(a)),
            format!("95 % CI {} to {}", ms(ci[0]), ms(ci[1])),
        );
    }
    // Scheduling delays only lengthen a measured timeout, so the interval is widened by half
    // the tolerance, as ACK_TIMEOUT's is.
    if let (Some(r), Some(ci)) = (f.ack_random_factor_max, f.ack_random_factor_max_ci)
        && !(ci[0] * (1.0 - tol / 2.0) <= ACK_RANDOM_FACTOR && ACK_RANDOM_FACTOR <= ci[1] * (1.0 + tol / 2.0))
        && ci[1] >= 1.0 + tol / 2.0
    {
        add(
            "RFC 7252 §4.8",
            Kind::Default,
            format!("ACK_RANDOM_FACTOR is about {r:.3}, not the default 1.5"),
            format!("95 % CI {:.3} to {:.3}", ci[0], ci[1]),
        );
    }
    if let Some(t) = f.total_wait_s
        && t > MAX_TRANSMIT_WAIT_S * (1.0 + tol / 2.0)
    {
        add(
            "RFC 7252 §4.8.2",
            Kind::Default,
            "waits longer than MAX_TRANSMIT_WAIT of the default parameters (93 s) before giving up".into(),
            format!("first copy to give-up: {t:.1} s"),
        );
    }
    if let Some(n) = f.nstart
        && n > NSTART
    {
        add(
            "RFC 7252 §4.7",
            Kind::Default,
            format!("{n} requests outstanding at once to one server (NSTART default 1)"),
            format!("{n} exchanges from one client port overlapped before the probe answered any"),
        );
    }
    if let Some(h) = f.separate {
        if h.retransmitted_after_empty_ack > 0 {
            add(
                "RFC 7252 §4.2, §5.2.2",
                Kind::Requirement,
                "retransmits a request after its empty ACK arrived".into(),
                format!("{} of {} exchanges", h.retransmitted_after_empty_ack, h.exchanges),
            );
        }
        // §4.2: "A recipient MUST either (a) acknowledge a Confirmable message ... or (b)
        // reject the message".
        if h.acknowledged < h.exchanges {
            add(
                "RFC 7252 §4.2, §5.2.2",
                Kind::Requirement,
                "does not acknowledge a confirmable separate response".into(),
                format!("{} of {} separate responses acknowledged", h.acknowledged, h.exchanges),
            );
        }
        // §4.5: "The recipient SHOULD acknowledge each duplicate copy of a Confirmable
        // message using the same Acknowledgement or Reset message".
        if h.duplicates_reset > 0 {
            add(
                "RFC 7252 §4.5",
                Kind::Recommendation,
                "answers the duplicate of a confirmable separate response with a Reset, not the same ACK".into(),
                format!(
                    "{} of {} duplicates (sent {} after the first copy, which it acknowledged) drew a Reset",
                    h.duplicates_reset,
                    h.duplicates_sent,
                    ms(s(DUPLICATE_AFTER))
                ),
            );
        }
        if h.duplicates_ignored > 0 {
            add(
                "RFC 7252 §4.5",
                Kind::Recommendation,
                "does not acknowledge the duplicate of a confirmable separate response".into(),
                format!(
                    "{} of {} duplicates drew no answer although the client sent from the same port later",
                    h.duplicates_ignored, h.duplicates_sent
                ),
            );
        }
    }
    v
}
