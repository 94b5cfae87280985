//! Which coapcc algorithm a client behaves like: each registered algorithm's replay of the
//! probe's script ([`crate::replay::run_scripted`], the engine of `coapcc replay`), compared
//! with what the client did.
//!
//! **The replay.** Each exchange starts when the client started it and is answered as the
//! probe answered it: after the same copy, as long after that copy as the probe's answer
//! really left (rounded to the millisecond), plus a delay the client took to read it that the
//! probe cannot see: one of [`READ_DELAYS_MS`] per run, the nearest. Exchange by exchange, the
//! replay is branched into [`SEEDS`] random draws and the branch nearest the client's exchange
//! is continued (the nearest draw stands for the client's own draw; a whole-run seed could not
//! match the independent draws of a dozen exchanges).
//!
//! **The distance.** For each exchange the probe saw, the intervals between successive copies
//! (the timeouts that expired) and, where the client's give-up was seen, the wait after its
//! last copy, are set against the same intervals of the replay. Each pair contributes
//! `|ln(observed / replayed)|` (both at least 1 ms); each interval one side has and the other
//! lacks contributes `ln 2` (as a timeout off by a factor of two). The distance of a set of
//! runs is the sum over runs divided by the number of intervals compared: the mean absolute
//! log-ratio of a timeout, so 0.05 means timeouts about 5 % off. Each algorithm is fitted
//! first: every key of its preset that ends in `_ms` is scaled by one factor (the client's
//! median first timeout over the algorithm's), refined on a grid of ±15 %, and its
//! MAX_RETRANSMIT is set to the client's when a give-up was seen. Presets that the fit turns
//! into the same configuration (`default` and `default-aggressive` differ only in ACK_TIMEOUT)
//! are one algorithm with other parameters; among equally close candidates the one whose
//! preset needed the smallest scaling comes first.

use std::collections::HashMap;
use std::time::Duration;

use coapcc_core::harness::Event;
use coapcc_core::{ALGORITHMS, AnyConfig, AnyController, ConfigMapper, EchoMode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::stats::median;
use super::timeline::{Exchange, Run, SentKind};
use crate::replay::{ScriptedExchange, ScriptedReplay, run_scripted};

/// Random draws per exchange that the nearest is chosen from (and replays per window).
pub const SEEDS: u64 = 64;

/// Delays (ms) the client may take to read an answer, beyond the moment the probe sent it:
/// the nearest is taken per run (only runs with an exchange after an answered one).
pub const READ_DELAYS_MS: [u64; 6] = [0, 2, 5, 10, 20, 40];

/// The scales tried around the first guess (relative).
const GRID: [f64; 11] = [0.85, 0.88, 0.91, 0.94, 0.97, 1.0, 1.03, 1.06, 1.09, 1.12, 1.15];
/// The finer steps tried around the best grid point (relative).
const FINE: [f64; 6] = [-0.012, -0.008, -0.004, 0.004, 0.008, 0.012];

/// How close the client is to one algorithm.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Match {
    /// The algorithm's registry name.
    pub algorithm: &'static str,
    /// Its family in the registry (backoff, rate-based, tcp).
    pub family: String,
    /// The distance (mean absolute log-ratio of a timeout, see the module documentation).
    pub distance: f64,
    /// The factor applied to every `_ms` key of its preset.
    pub scale: f64,
    /// Its settings after the fit: every numeric `_ms` key, and `max_retransmit`.
    pub settings: Vec<(String, f64)>,
    /// The fitted configuration, written out (floats to 6 significant digits): equal for two
    /// presets of one algorithm that the fit made the same.
    #[serde(skip)]
    pub fitted_config: String,
}

/// One exchange as compared: the observed intervals and whether its end was seen.
struct Observed {
    intervals: Vec<Duration>,
    complete: bool,
}

/// A run as the replay takes it (one script per read delay tried), and what it showed.
struct Prepared {
    scripts: Vec<Vec<ScriptedExchange>>,
    observed: Vec<Observed>,
}

/// When the probe's answer to `e` left, after the copy it answers (the script's delay when
/// the probe's record lacks it), rounded to the millisecond.
fn answer_delay(run: &Run, e: &Exchange) -> Option<(u8, Duration)> {
    let (copy, nominal) = e.action.answer()?;
    let sent = run
        .sent
        .iter()
        .filter(|m| m.exchange == e.number && matches!(m.kind, SentKind::Piggybacked | SentKind::EmptyAck))
        .map(|m| m.at)
        .min();
    let delay = match (sent, e.copies.get(usize::from(copy))) {
        (Some(t), Some(&c)) => Duration::from_millis(t.saturating_sub(c).as_secs_f64().mul_add(1e3, 0.5) as u64),
        _ => nominal,
    };
    Some((copy, delay))
}

fn prepare(run: &Run, echo: bool) -> Option<Prepared> {
    let exchanges: Vec<Exchange> = run.exchanges();
    let zero = exchanges.first()?.copies.first().copied()?;
    let base: Vec<ScriptedExchange> = exchanges
        .iter()
        .map(|e| ScriptedExchange {
            start: e.copies.first().map_or(Duration::ZERO, |t| t.saturating_sub(zero)),
            answer: answer_delay(run, e),
            echo,
        })
        .collect();
    // The read delay matters only where an answered exchange is followed by another.
    let followed = base.iter().rev().skip(1).any(|x| x.answer.is_some());
    let delays: &[u64] = if followed { &READ_DELAYS_MS } else { &READ_DELAYS_MS[..1] };
    let scripts = delays
        .iter()
        .map(|&extra| {
            let extra = Duration::from_millis(extra);
            base.iter().map(|x| ScriptedExchange { answer: x.answer.map(|(c, d)| (c, d + extra)), ..*x }).collect()
        })
        .collect();
    let observed = exchanges
        .iter()
        .map(|e| Observed { intervals: e.intervals(), complete: e.answered || e.ended.is_some() })
        .collect();
    Some(Prepared { scripts, observed })
}

/// Intervals of one exchange's events, as [`Exchange::intervals`] has them.
fn intervals(events: &[Event]) -> Vec<Duration> {
    let sends: Vec<Duration> = events
        .iter()
        .filter_map(|e| match e {
            Event::Transmit { at, .. } => Some(at.since_epoch()),
            _ => None,
        })
        .collect();
    let mut v: Vec<Duration> = sends.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
    let gave_up = events.iter().find_map(|e| match e {
        Event::GiveUp { at, .. } => Some(at.since_epoch()),
        _ => None,
    });
    if let (Some(g), Some(&last)) = (gave_up, sends.last()) {
        v.push(g.saturating_sub(last));
    }
    v
}

/// `(sum of penalties, intervals compared)` of one observed exchange against a replayed one.
fn compare(o: &Observed, r: &[Duration]) -> (f64, usize) {
    let floor = Duration::from_millis(1);
    let mut sum = 0.0;
    let both = o.intervals.len().min(r.len());
    for (a, b) in o.intervals.iter().zip(r) {
        let (a, b) = (a.max(&floor), b.max(&floor));
        sum += (a.as_secs_f64() / b.as_secs_f64()).ln().abs();
    }
    // Unseen intervals of an exchange whose end the probe did not see are not missing.
    let extra =
        if o.complete { o.intervals.len().abs_diff(r.len()) } else { o.intervals.len().saturating_sub(r.len()) };
    sum += std::f64::consts::LN_2 * extra as f64;
    (sum, both + extra)
}

/// The seed of branch `seed` of exchange `i`.
fn branch_seed(seed: u64, i: usize) -> u64 {
    seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i as u64
}

/// `(sum, count)` of one run's script against `controller`: exchange by exchange, the nearest
/// of [`SEEDS`] branches is continued.
fn nearest_replay(controller: &AnyController, script: &[ScriptedExchange], observed: &[Observed]) -> (f64, usize) {
    let mut state = ScriptedReplay::new(controller, 0);
    let (mut sum, mut count) = (0.0, 0usize);
    let none = Observed { intervals: Vec::new(), complete: false };
    for (i, ex) in script.iter().enumerate() {
        let next = script.get(i + 1).map(|n| n.start);
        let o = observed.get(i).unwrap_or(&none);
        let mut best: Option<((f64, usize), ScriptedReplay<'_>)> = None;
        let mut seen: Vec<Vec<Duration>> = Vec::new();
        for seed in 0..SEEDS {
            let mut branch = state.clone();
            branch.reseed(branch_seed(seed, i));
            let mut events = Vec::new();
            branch.exchange(ex, next, &mut |e| events.push(e));
            let r = intervals(&events);
            // A controller that draws nothing gives the same branch every time.
            if seen.contains(&r) {
                continue;
            }
            let c = compare(o, &r);
            seen.push(r);
            if best.as_ref().is_none_or(|(b, _)| c.0 < b.0) {
                best = Some((c, branch));
            }
        }
        let Some(((s, c), branch)) = best else { break };
        sum += s;
        count += c;
        state = branch;
    }
    (sum, count)
}

/// Distance of `prepared` runs to `controller` (see the module documentation). The branches
/// of a run of one exchange depend only on its script: they are shared between such runs.
fn distance(controller: &AnyController, prepared: &[Prepared]) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    let mut single: HashMap<ScriptedExchange, Vec<Vec<Duration>>> = HashMap::new();
    for p in prepared {
        let best = p
            .scripts
            .iter()
            .map(|script| match (script.as_slice(), p.observed.as_slice()) {
                ([ex], [o]) => {
                    let branches = single.entry(*ex).or_insert_with(|| {
                        (0..SEEDS)
                            .map(|seed| {
                                let mut r = ScriptedReplay::new(controller, 0);
                                r.reseed(branch_seed(seed, 0));
                                let mut events = Vec::new();
                                r.exchange(ex, None, &mut |e| events.push(e));
                                intervals(&events)
                            })
                            .collect()
                    });
                    branches.iter().map(|r| compare(o, r)).min_by(|a, b| a.0.total_cmp(&b.0)).unwrap_or((0.0, 0))
                }
                _ => nearest_replay(controller, script, &p.observed),
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap_or((0.0, 0));
        sum += best.0;
        count += best.1;
    }
    if count == 0 { f64::INFINITY } else { sum / count as f64 }
}

/// Per exchange of one replay: intervals as [`Exchange::intervals`] has them.
fn replayed(controller: &AnyController, script: &[ScriptedExchange], seed: u64) -> Vec<Vec<Duration>> {
    let mut events: Vec<Vec<Event>> = vec![Vec::new(); script.len()];
    run_scripted(controller, script, seed, &mut |e| {
        let x = match e {
            Event::Transmit { exchange, .. } | Event::GiveUp { exchange, .. } | Event::Ack { exchange, .. } => exchange,
        };
        if let Some(v) = events.get_mut(x as usize - 1) {
            v.push(e);
        }
    });
    events.iter().map(|e| intervals(e)).collect()
}

/// Every numeric `_ms` key of a configuration (or only those named) multiplied by a factor.
struct Scale<'a>(f64, Option<&'a [String]>);

impl ConfigMapper for Scale<'_> {
    type Error = ();
    fn map<T: Serialize + DeserializeOwned>(&mut self, config: T) -> Result<T, ()> {
        let mut t = toml::Table::try_from(&config).map_err(|_| ())?;
        for (k, v) in t.iter_mut() {
            if !k.ends_with("_ms") || self.1.is_some_and(|only| !only.contains(k)) {
                continue;
            }
            match *v {
                toml::Value::Integer(i) => *v = toml::Value::Float(i as f64 * self.0),
                toml::Value::Float(f) => *v = toml::Value::Float(f * self.0),
                _ => {}
            }
        }
        toml::Value::Table(t).try_into().map_err(|_| ())
    }
}

/// Reads the numeric `_ms` keys and `max_retransmit` of a configuration.
struct Keys(Vec<(String, f64)>);

impl ConfigMapper for Keys {
    type Error = ();
    fn map<T: Serialize + DeserializeOwned>(&mut self, config: T) -> Result<T, ()> {
        let t = toml::Table::try_from(&config).map_err(|_| ())?;
        for (k, v) in &t {
            if k.ends_with("_ms") || k == "max_retransmit" {
                match *v {
                    toml::Value::Integer(i) => self.0.push((k.clone(), i as f64)),
                    toml::Value::Float(f) => self.0.push((k.clone(), f)),
                    _ => {}
                }
            }
        }
        Ok(config)
    }
}

/// A configuration written out: its type, then every key (floats to 6 significant digits).
struct Canonical(String);

impl ConfigMapper for Canonical {
    type Error = ();
    fn map<T: Serialize + DeserializeOwned>(&mut self, config: T) -> Result<T, ()> {
        let t = toml::Table::try_from(&config).map_err(|_| ())?;
        self.0 = std::any::type_name::<T>().to_string();
        for (k, v) in &t {
            let shown = match v {
                toml::Value::Float(f) => format!("{f:.5e}"),
                toml::Value::Integer(i) => format!("{:.5e}", *i as f64),
                other => other.to_string(),
            };
            self.0.push_str(&format!(" {k}={shown}"));
        }
        Ok(config)
    }
}

/// `preset` with every `_ms` key scaled by `scale` and MAX_RETRANSMIT replaced, built; `None`
/// when not even the preset builds. A key whose scaled value the algorithm refuses (FASOR's
/// cap of at least 60 s) keeps its preset value: the keys are then scaled one at a time, in
/// the order of the configuration, each kept if the result still builds.
pub fn fitted(preset: AnyConfig, scale: f64, max_retransmit: Option<u8>) -> Option<(AnyConfig, AnyController)> {
    let with_max = |mut c: AnyConfig| {
        if let Some(n) = max_retransmit {
            c.set_max_retransmit(n);
        }
        c.build().ok().map(|b| (c, b))
    };
    if let Some(all) = preset.map_with(&mut Scale(scale, None)).ok().and_then(with_max) {
        return Some(all);
    }
    let mut keys = Keys(Vec::new());
    let _ = preset.map_with(&mut keys);
    let mut kept: Vec<String> = Vec::new();
    for (k, _) in keys.0.into_iter().filter(|(k, _)| k.ends_with("_ms")) {
        kept.push(k);
        if preset.map_with(&mut Scale(scale, Some(&kept))).ok().and_then(with_max).is_none() {
            kept.pop();
        }
    }
    preset.map_with(&mut Scale(scale, Some(&kept))).ok().and_then(with_max)
}

/// The median first timeout (seconds) of `controller` over [`SEEDS`] draws.
fn median_first_timeout(controller: &AnyController) -> Option<f64> {
    let script = [ScriptedExchange { start: Duration::ZERO, answer: Some((1, Duration::ZERO)), echo: false }];
    let firsts: Vec<f64> = (0..SEEDS)
        .filter_map(|s| replayed(controller, &script, s).first()?.first().map(Duration::as_secs_f64))
        .collect();
    median(&firsts)
}

/// Every registered algorithm, fitted to `runs` and ranked by distance (smallest first; ties
/// in registry order). `max_retransmit` is the client's, where a give-up was seen.
pub fn rank(runs: &[Run], max_retransmit: Option<u8>) -> Vec<Match> {
    let observed_first: Vec<f64> = runs
        .iter()
        .filter_map(|r| {
            let ex = r.exchanges();
            let c = &ex.first()?.copies;
            (c.len() >= 2).then(|| c[1].saturating_sub(c[0]).as_secs_f64())
        })
        .collect();
    let observed_median = median(&observed_first);
    let mut out = Vec::new();
    for info in ALGORITHMS {
        let preset = (info.preset)();
        let echo = preset.echo_mode() == EchoMode::Token;
        let prepared: Vec<Prepared> = runs.iter().filter_map(|r| prepare(r, echo)).collect();
        if prepared.is_empty() {
            continue;
        }
        let Some((_, base)) = fitted(preset, 1.0, max_retransmit) else { continue };
        let guess = match (observed_median, median_first_timeout(&base)) {
            (Some(o), Some(c)) if o > 0.0 && c > 0.0 => o / c,
            _ => 1.0,
        };
        let score = |s: f64| fitted(preset, s, max_retransmit).map(|(_, c)| distance(&c, &prepared));
        let consider = |best: Option<(f64, f64)>, s: f64| match score(s) {
            Some(d) if best.is_none_or(|(bd, _)| d < bd) => Some((d, s)),
            _ => best,
        };
        let mut best: Option<(f64, f64)> = GRID.iter().fold(None, |b, g| consider(b, guess * g));
        if let Some((_, s)) = best {
            best = FINE.iter().fold(best, |b, f| consider(b, s * (1.0 + f)));
        }
        let Some((d, s)) = best else { continue };
        let Some((config, _)) = fitted(preset, s, max_retransmit) else { continue };
        let mut keys = Keys(Vec::new());
        let _ = config.map_with(&mut keys);
        let mut canonical = Canonical(String::new());
        let _ = config.map_with(&mut canonical);
        out.push(Match {
            algorithm: info.name,
            family: info.family.to_string(),
            distance: d,
            scale: s,
            settings: keys.0,
            fitted_config: canonical.0,
        });
    }
    // Equally close (the same replays): the preset that needed the least scaling first.
    out.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    let mut i = 0;
    while i < out.len() {
        let j = i + 1 + out[i + 1..].iter().take_while(|m| tied(m.distance, out[i].distance)).count();
        out[i..j].sort_by(|a, b| a.scale.ln().abs().total_cmp(&b.scale.ln().abs()));
        i = j;
    }
    out
}

/// Whether two distances are equal (the replays were the same), up to rounding.
pub fn tied(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= TIE * a.abs().max(1.0)
}

/// Distances this close (relative) are equal: the replays were the same.
pub const TIE: f64 = 1e-9;

/// Where the copies of one unanswered request of a configuration fall: for each copy after
/// the original, and for the give-up, the earliest and latest instant (seconds since the
/// original) over [`SEEDS`] replays.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Windows {
    /// `[earliest, latest]` of copy 1, 2, ….
    pub copies_s: Vec<[f64; 2]>,
    /// `[earliest, latest]` of the give-up.
    pub give_up_s: Option<[f64; 2]>,
}

/// The windows of `config` (see [`Windows`]); `None` when it does not build.
pub fn windows(config: &AnyConfig) -> Option<Windows> {
    let controller = config.build().ok()?;
    let script = [ScriptedExchange { start: Duration::ZERO, answer: None, echo: false }];
    let mut copies: Vec<[f64; 2]> = Vec::new();
    let mut give_up: Option<[f64; 2]> = None;
    let widen = |w: &mut [f64; 2], x: f64| *w = [w[0].min(x), w[1].max(x)];
    for seed in 0..SEEDS {
        let mut k = 0usize;
        run_scripted(&controller, &script, seed, &mut |e| match e {
            Event::Transmit { at, copy, .. } if copy > 0 => {
                let x = at.since_epoch().as_secs_f64();
                match copies.get_mut(k) {
                    Some(w) => widen(w, x),
                    None => copies.push([x, x]),
                }
                k += 1;
            }
            Event::GiveUp { at, .. } => {
                let x = at.since_epoch().as_secs_f64();
                match give_up.as_mut() {
                    Some(w) => widen(w, x),
                    None => give_up = Some([x, x]),
                }
            }
            _ => {}
        });
    }
    Some(Windows { copies_s: copies, give_up_s: give_up })
}

impl Match {
    /// The fitted configuration of this match (its preset, scaled, with its MAX_RETRANSMIT).
    pub fn config(&self) -> Option<AnyConfig> {
        let preset = AnyConfig::from_name(self.algorithm)?;
        let n =
            self.settings.iter().find(|(k, _)| k == "max_retransmit").and_then(|(_, v)| u8::try_from(*v as u32).ok());
        fitted(preset, self.scale, n).map(|(c, _)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(config: AnyConfig) -> Vec<(String, f64)> {
        let mut k = Keys(Vec::new());
        let _ = config.map_with(&mut k);
        k.0
    }

    #[test]
    fn every_ms_key_is_scaled_and_max_retransmit_replaced() {
        let (config, _) = fitted(AnyConfig::from_name("cocoa").unwrap(), 0.5, Some(3)).unwrap();
        let k = keys(config);
        let get = |name: &str| k.iter().find(|(n, _)| n == name).map(|(_, v)| *v).unwrap();
        assert!((get("initial_rto_ms") - 1000.0).abs() < 1e-6, "{k:?}");
        assert!((get("cap_ms") - 16000.0).abs() < 1e-6, "{k:?}");
        assert_eq!(get("max_retransmit"), 3.0);
    }

    #[test]
    fn a_key_the_algorithm_refuses_to_scale_keeps_its_preset_value() {
        // FASOR's cap must be at least 60 s (FASOR-02 §4.1): at a tenth, only the cap stays.
        let (config, _) = fitted(AnyConfig::from_name("fasor").unwrap(), 0.1, None).expect("fasor fits at a tenth");
        let k = keys(config);
        let get = |name: &str| k.iter().find(|(n, _)| n == name).map(|(_, v)| *v).unwrap();
        assert_eq!(get("cap_ms"), 60000.0, "{k:?}");
        assert!((get("initial_rto_ms") - 200.0).abs() < 1e-6, "{k:?}");
    }
}
