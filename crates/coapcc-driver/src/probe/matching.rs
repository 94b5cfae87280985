//! Which coapcc algorithm a client behaves like: each registered algorithm's replay of the
//! probe's script ([`crate::replay::run_scripted`], the engine of `coapcc replay`), compared
//! with what the client did.
//!
//! **The distance.** For each exchange the probe saw, the intervals between successive copies
//! (the timeouts that expired) and, where the client's give-up was seen, the wait after its
//! last copy, are set against the same intervals of the replay. Each pair contributes
//! `|ln(observed / replayed)|` (both at least 1 ms); each interval one side has and the other
//! lacks contributes `ln 2` (as a timeout off by a factor of two). A run's distance is the
//! smallest sum over [`SEEDS`] replays (the replays differ only in their random draws: the
//! nearest replay stands for the client's own draw), and the distance of a set of runs is the
//! sum over runs divided by the number of intervals compared: the mean absolute log-ratio of a
//! timeout, so 0.05 means timeouts about 5 % off. Each algorithm is fitted first: every key of
//! its preset that ends in `_ms` is scaled by one factor (the client's median first timeout
//! over the algorithm's), refined on a grid of ±15 %, and its MAX_RETRANSMIT is set to the
//! client's when a give-up was seen.

use std::collections::HashMap;
use std::time::Duration;

use coapcc_core::harness::Event;
use coapcc_core::{ALGORITHMS, AnyConfig, AnyController, ConfigMapper, EchoMode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::stats::median;
use super::timeline::{Exchange, Run};
use crate::replay::{ScriptedExchange, run_scripted};

/// Replays per algorithm, scale and script: the random draws the nearest replay is chosen from.
pub const SEEDS: u64 = 64;

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
}

/// One exchange as compared: the observed intervals and whether its end was seen.
struct Observed {
    intervals: Vec<Duration>,
    complete: bool,
}

/// A run as the replay takes it, and what it showed.
struct Prepared {
    script: Vec<ScriptedExchange>,
    observed: Vec<Observed>,
}

fn prepare(run: &Run, echo: bool) -> Option<Prepared> {
    let exchanges: Vec<Exchange> = run.exchanges();
    let zero = exchanges.first()?.copies.first().copied()?;
    let script = exchanges
        .iter()
        .map(|e| ScriptedExchange {
            start: e.copies.first().map_or(Duration::ZERO, |t| t.saturating_sub(zero)),
            answer: e.action.answer(),
            echo,
        })
        .collect();
    let observed = exchanges
        .iter()
        .map(|e| Observed { intervals: e.intervals(), complete: e.answered || e.ended.is_some() })
        .collect();
    Some(Prepared { script, observed })
}

/// Per exchange of one replay: intervals as [`Exchange::intervals`] has them.
fn replayed(controller: &AnyController, script: &[ScriptedExchange], seed: u64) -> Vec<Vec<Duration>> {
    let mut sends: Vec<Vec<Duration>> = vec![Vec::new(); script.len()];
    let mut gave_up: Vec<Option<Duration>> = vec![None; script.len()];
    run_scripted(controller, script, seed, &mut |e| match e {
        Event::Transmit { at, exchange, .. } => {
            if let Some(v) = sends.get_mut(exchange as usize - 1) {
                v.push(at.since_epoch());
            }
        }
        Event::GiveUp { at, exchange } => {
            if let Some(g) = gave_up.get_mut(exchange as usize - 1) {
                *g = Some(at.since_epoch());
            }
        }
        Event::Ack { .. } => {}
    });
    sends
        .iter()
        .zip(&gave_up)
        .map(|(s, g)| {
            let mut v: Vec<Duration> = s.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
            if let (Some(g), Some(&last)) = (g, s.last()) {
                v.push(g.saturating_sub(last));
            }
            v
        })
        .collect()
}

/// `(sum of penalties, intervals compared)` of observed exchanges against replayed ones.
fn compare(observed: &[Observed], replay: &[Vec<Duration>]) -> (f64, usize) {
    let floor = Duration::from_millis(1);
    let (mut sum, mut count) = (0.0, 0usize);
    for (i, o) in observed.iter().enumerate() {
        let r: &[Duration] = replay.get(i).map_or(&[], Vec::as_slice);
        let both = o.intervals.len().min(r.len());
        for (a, b) in o.intervals.iter().zip(r) {
            let (a, b) = (a.max(&floor), b.max(&floor));
            sum += (a.as_secs_f64() / b.as_secs_f64()).ln().abs();
        }
        // Unseen intervals of an exchange whose end the probe did not see are not missing.
        let extra =
            if o.complete { o.intervals.len().abs_diff(r.len()) } else { o.intervals.len().saturating_sub(r.len()) };
        sum += std::f64::consts::LN_2 * extra as f64;
        count += both + extra;
    }
    (sum, count)
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

/// Distance of `prepared` runs to `controller` (see the module documentation); replays of the
/// same script are shared between runs.
fn distance(controller: &AnyController, prepared: &[Prepared]) -> f64 {
    let mut cache: HashMap<&[ScriptedExchange], Vec<Vec<Vec<Duration>>>> = HashMap::new();
    let (mut sum, mut count) = (0.0, 0usize);
    for p in prepared {
        let replays =
            cache.entry(&p.script).or_insert_with(|| (0..SEEDS).map(|s| replayed(controller, &p.script, s)).collect());
        let best =
            replays.iter().map(|r| compare(&p.observed, r)).min_by(|a, b| a.0.total_cmp(&b.0)).unwrap_or((0.0, 0));
        sum += best.0;
        count += best.1;
    }
    if count == 0 { f64::INFINITY } else { sum / count as f64 }
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
        out.push(Match {
            algorithm: info.name,
            family: info.family.to_string(),
            distance: d,
            scale: s,
            settings: keys.0,
        });
    }
    out.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    out
}

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
