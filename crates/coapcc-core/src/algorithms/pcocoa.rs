//! pCoCoA (Bolettieri, Tanganelli, Vallati, Mingozzi, "pCoCoA: A precise congestion control
//! algorithm for CoAP", Ad Hoc Networks 80, 2018) as restated by Makarem et al. \[S1\] §3.1;
//! spec §5, OQ-13 … OQ-18, and §3 for the Variable Backoff Factor.
//!
//! The original paper was not available; the four pseudo-code blocks of \[S1\] are implemented
//! as the spec restates them (§5.3), with the spec's resolutions of what they leave open.
//!
//! * **Transmission Count**: every copy carries its ordinal and the peer echoes it, so each
//!   ACK names the acknowledged copy `j` and the sample is `R = now − sent(j)` (spec §5.4).
//!   An ACK for an earlier copy than the latest one sent (`j < n`) shows that the later copies
//!   were spurious. Without an echo (an Empty ACK cannot carry the option, RFC 7252), the
//!   [`NoEcho`] option decides (spec OQ-17).
//! * **Estimator** (Linux-like, \[S1\] Algorithm 1, run on every sample):
//!   block 1 updates SRTT first, then RTTVAR with gain γ (sudden decrease), β (large
//!   deviation) or α (otherwise), measured against the *new* SRTT; block 2 raises `mdev_max`
//!   to the mean of the last 3 RTTVAR values after 3 consecutive exceedances, or decays it
//!   with gain β after 8 consecutive samples below it, both only for samples with R > SRTT;
//!   block 3 picks k = 6 after a spurious retransmission, else 4; block 4 sets
//!   `SRTO = SRTT + max(k·RTTVAR, mdev_max)` and `RTO_init ← (1−δ)·SRTO + δ·RTO_init`.
//! * **Backoff**: the CoCoA+ VBF ({2.5, 2, 1.5} at 1 s / 3 s, \[S1\] eq. 1–2), chosen once per
//!   exchange from RTO_init: `T ← T × VBF(RTO_init)`.
//!
//! Choices where the sources are silent (each also listed in `docs/deviations.md`):
//!
//! * **First sample** (spec §5.2, OQ-16): SRTT = R, RTTVAR = R/2, mdev_max = R/2 replace
//!   blocks 1–2; blocks 3–4 still run, so RTO_init blends the first SRTO with the initial 2 s
//!   (spec §5.4 "run blocks 1–4" on every ACK; the CoCoA-03 pattern: R = 0.4 s → 1.6 s).
//!   [`FirstSample::Set`] instead sets RTO_init = SRTO ("all parameters are initialised from
//!   the first RTT value", \[S1\], as Linux does).
//! * **Block 2** (spec OQ-18): counted only for samples with R > SRTT (literal nesting); the
//!   counters and the RTTVAR history keep their values across samples with R ≤ SRTT. A run
//!   counts consecutive counted samples whose RTTVAR is above (raise) or below (decay) the
//!   mdev_max of that moment; a counted sample that is neither resets both runs. The branch
//!   fires on every counted sample while its run is at least 3 (raise) or 8 (decay): the
//!   condition "for 3 consecutive times" holds again at the 4th, so the runs are not reset
//!   when a branch fires. The raise takes the mean of the RTTVAR values of the last 3 counted
//!   samples (those that exceeded mdev_max), never of uncounted ones.
//! * **Samples without an echo**: an exchange that was never retransmitted is unambiguous, so
//!   its ACK is always sampled from the original (Karn); only ACKs after retransmissions fall
//!   under [`NoEcho`]. A sample without an echo is never spurious.
//! * **Timers** (spec OQ-13, OQ-14, OQ-4): the initial timer is dithered in
//!   `[RTO_init, 1.5·RTO_init)`; retransmission timers multiply the previous armed timer by the
//!   VBF (RFC 7252 pattern, OQ-5); every armed timer and RTO_init itself are capped at 32 s;
//!   the VBF is picked from the undithered RTO_init with the [`Vbf`] thresholds
//!   (1 s ≤ RTO_init ≤ 3 s → 2, closing \[S1\]'s gap at exactly 3 s). Aging is off by default;
//!   the CoCoA-03 aging rules on RTO_init are an option.
//!
//! [`PCocoa`] is the algorithm (the checked configuration), shared by every destination;
//! [`PCocoaState`] is what one destination keeps; per exchange ([`PCocoaExchange`]):
//! `factor` = the VBF chosen at the original transmission, `base` = the timer armed for the
//! latest copy, `aux` = the undithered RTO_init that armed the original.
//!
//! **State size**: 104 bytes, not the 64 of the other backoff controllers, and no
//! representation that keeps the outputs identical fits 64. Block 2's raise sets mdev_max to
//! the mean of the RTTVAR values of the last n = `raise_after` (1 … 8) counted samples. When
//! it fires, the run of exceedances is at least n long, so those n values all belong to the
//! current run; a run that breaks starts again from zero, so no value from before it is ever
//! used again. [`PCocoaState::run`] therefore keeps the newest n − 1 ≤ 7 values of the current
//! run (the n-th is the RTTVAR of the sample that fires the raise), not a history of every
//! counted sample (the former 8-value history, 112 bytes). That is also the least the rule
//! needs. With v₁ (newest) … vₙ₋₁ in the window, the raises of the next n − 1 exceedances
//! set mdev_max to ⌊(x + Sₘ)/n⌉ for m = n − 1, n − 2, …, 1, where Sₘ = v₁ + … + vₘ and x is
//! the sum of the values of the newer samples. Those newer RTTVAR values can be steered to any
//! nanosecond (a β-blend moves by one per 4 ns of deviation), so every Sₘ shows in some
//! future mdev_max, and mdev_max shows in SRTO (hence in RTO_init and every later timer)
//! whenever it exceeds k·RTTVAR; S₁ … Sₙ₋₁ determine v₁ … vₙ₋₁. With n = 8 that is seven
//! durations of up to 64 bits each (samples up to `u64::MAX` ns are valid), besides SRTT,
//! RTTVAR, mdev_max and RTO_init (each enters the next SRTO to the nanosecond) and the time of
//! the last update (aging): twelve independent 64-bit values, 96 bytes, plus the two run
//! counters and two flags (100, padded to 104). A 64-byte state takes at most 2⁵¹² values,
//! fewer than the 2⁷⁶⁸ combinations of those twelve, so some two histories that need
//! different future timers would share a state (a test shows two that differ only in the
//! oldest value of a run of seven). With `raise_after` ≤ 3, the default, two run values
//! would do (4·8 + 8 + 2·8 + 4 = 60 bytes), but one state type serves every configuration.

use core::time::Duration;

use crate::backoff::vbf::Vbf;
use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use crate::estimators::cocoa::{Aging, CocoaRto, CocoaRtoParams};
use crate::params::{ACK_RANDOM_FACTOR, MAX_RETRANSMIT};
use crate::random::{Rng, dither_factor};
use crate::ratio::Ratio;
use crate::time::{Instant, Nanos, OptNanos, abs_diff, add, from_nanos, mul};

/// Spec §5.5: initial RTO_init, 2 s (the CoAP default; assumed).
pub const INITIAL_RTO: Duration = Duration::from_secs(2);
/// Spec §5.5: α, the SRTT gain and the RTTVAR gain for ordinary deviations (1/8, inferred).
pub const ALPHA: Ratio = Ratio::new(1, 8);
/// Spec §5.5: β, the RTTVAR gain for large deviations and the mdev_max decay gain (1/4, inferred).
pub const BETA: Ratio = Ratio::new(1, 4);
/// Spec §5.5: γ, the RTTVAR gain after a sudden decrease (1/32, inferred).
pub const GAMMA: Ratio = Ratio::new(1, 32);
/// Spec OQ-15: δ, the weight of the previous RTO_init in block 4 (not in the seeds; 1/2).
pub const DELTA: Ratio = Ratio::new(1, 2);
/// \[S1\] block 3: variance multiplier without a spurious retransmission.
pub const K: u32 = 4;
/// \[S1\] block 3: variance multiplier after a spurious retransmission.
pub const K_SPURIOUS: u32 = 6;
/// \[S1\] block 2: consecutive exceedances before mdev_max is raised.
pub const RAISE_AFTER: u8 = 3;
/// \[S1\] block 2: consecutive samples below mdev_max before it decays.
pub const DECAY_AFTER: u8 = 8;
/// Spec OQ-14: ceiling on every armed timer and on RTO_init (the CoCoA 32 s).
pub const MAX_RTO: Duration = Duration::from_secs(32);
/// Largest allowed `raise_after` (length of the RTTVAR history kept for the raise).
pub const MAX_RAISE_AFTER: u8 = 8;

/// What the first RTT sample does to RTO_init (spec §5.2, OQ-16).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum FirstSample {
    /// Blocks 3–4 run as on every sample: RTO_init ← (1−δ)·SRTO + δ·RTO_init, blending with
    /// the initial RTO (R = 0.4 s from 2 s → 1.6 s).
    #[default]
    Blend,
    /// RTO_init ← SRTO (R = 0.4 s → 1.2 s), as Linux initialises its RTO.
    Set,
}

/// How an ACK after retransmissions that echoes no Transmission Count is sampled (spec OQ-17).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum NoEcho {
    /// Measure from the latest transmission (as 4-state-strong), not spurious.
    #[default]
    Latest,
    /// Take no sample: the estimator is untouched.
    Skip,
}

/// Configuration of pCoCoA. `Default` is spec §5.5 with the OQ-13 … OQ-18 resolutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct PCocoaConfig {
    /// RTO_init before the first sample (2 s).
    #[cfg_attr(feature = "serde", serde(rename = "initial_rto_ms", with = "crate::config::serde_ms"))]
    pub initial_rto: Duration,
    /// α: SRTT gain, and RTTVAR gain for ordinary deviations (1/8).
    pub alpha: Ratio,
    /// β: RTTVAR gain when |SRTT − R| > RTTVAR, and the mdev_max decay gain (1/4).
    pub beta: Ratio,
    /// γ: RTTVAR gain when R < SRTT − RTTVAR (1/32).
    pub gamma: Ratio,
    /// δ: weight of the previous RTO_init in block 4 (1/2, spec OQ-15).
    pub delta: Ratio,
    /// k without a spurious retransmission (4).
    pub k: u32,
    /// k after a spurious retransmission (6).
    pub k_spurious: u32,
    /// Consecutive exceedances of mdev_max that raise it to the mean of the last this-many
    /// RTTVAR values (3; 1 … 8).
    pub raise_after: u8,
    /// Consecutive samples below mdev_max after which it decays (8; at least 1).
    pub decay_after: u8,
    /// What the first sample does to RTO_init (`blend`).
    pub first_sample: FirstSample,
    /// Sampling of ACKs after retransmissions without an echo (`latest`, spec OQ-17).
    pub no_echo: NoEcho,
    /// Variable backoff factor table (Makarem's {2.5, 2, 1.5}).
    pub vbf: Vbf,
    /// Dithering factor: the initial timer is drawn from [RTO_init, RTO_init × this) (1.5,
    /// spec OQ-13).
    pub ack_random_factor: Ratio,
    /// Ceiling on every armed timer and on RTO_init (32 s, spec OQ-14).
    #[cfg_attr(feature = "serde", serde(rename = "cap_ms", with = "crate::config::serde_ms"))]
    pub cap: Duration,
    /// Aging of RTO_init after idle periods (`off`, spec OQ-14; `draft`/`contiki` apply the
    /// CoCoA rules of spec §2.7).
    pub aging: Aging,
    /// MAX_RETRANSMIT (4).
    pub max_retransmit: u8,
    /// Dither the initial timer (spec OQ-13). Off: the timer is RTO_init.
    pub dither: bool,
}

impl Default for PCocoaConfig {
    fn default() -> Self {
        PCocoaConfig {
            initial_rto: INITIAL_RTO,
            alpha: ALPHA,
            beta: BETA,
            gamma: GAMMA,
            delta: DELTA,
            k: K,
            k_spurious: K_SPURIOUS,
            raise_after: RAISE_AFTER,
            decay_after: DECAY_AFTER,
            first_sample: FirstSample::Blend,
            no_echo: NoEcho::Latest,
            vbf: Vbf::MAKAREM,
            ack_random_factor: ACK_RANDOM_FACTOR,
            cap: MAX_RTO,
            aging: Aging::Off,
            max_retransmit: MAX_RETRANSMIT,
            dither: true,
        }
    }
}

/// The estimator state of one pCoCoA endpoint (spec §5.2), kept compactly: durations in 8-byte
/// [`Nanos`]/[`OptNanos`], the time of the last update as an [`Instant`] with a separate flag,
/// and of the RTTVAR history only what the raise rule can still use (104 bytes; the module
/// docs say why no exact representation fits 64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PCocoaState {
    /// Smoothed RTT; `None` before the first sample.
    pub srtt: OptNanos,
    /// RTT variation (meaningless before the first sample).
    pub rttvar: Nanos,
    /// Maximum mean deviation, the floor of the variance term of SRTO.
    pub mdev_max: Nanos,
    /// The RTO for original transmissions (undithered).
    pub rto_init: Nanos,
    /// RTTVAR after each counted sample of the current raise run (the samples that made
    /// `raise_run`), newest first: the first `min(raise_run, 7)` are valid. A raise takes the
    /// mean of a new value and the newest `raise_after − 1` of these, and a run that breaks
    /// never comes back, so older values are never needed (see the module docs).
    pub run: [Nanos; MAX_RAISE_AFTER as usize - 1],
    /// When RTO_init was last updated or aged (valid when `updated`; see
    /// [`PCocoaState::last_update`]).
    last_update: Instant,
    /// Consecutive counted samples (R > SRTT) with RTTVAR > mdev_max (saturating).
    pub raise_run: u8,
    /// Consecutive counted samples (R > SRTT) with RTTVAR < mdev_max (saturating).
    pub decay_run: u8,
    /// Whether the latest sample revealed a spurious retransmission (k = 6 was used).
    pub spurious: bool,
    /// Whether `last_update` holds a time.
    updated: bool,
}

impl PCocoaState {
    /// A fresh endpoint with RTO_init = `initial_rto` (saturating at `u64::MAX` ns).
    pub fn new(initial_rto: Duration) -> Self {
        PCocoaState {
            srtt: OptNanos::NONE,
            rttvar: Nanos::ZERO,
            mdev_max: Nanos::ZERO,
            rto_init: Nanos::new(initial_rto),
            run: [Nanos::ZERO; MAX_RAISE_AFTER as usize - 1],
            last_update: Instant::ZERO,
            raise_run: 0,
            decay_run: 0,
            spurious: false,
            updated: false,
        }
    }

    /// When RTO_init was last updated or aged (for aging); `None` until first used.
    pub fn last_update(&self) -> Option<Instant> {
        self.updated.then_some(self.last_update)
    }

    /// Sets the time of the last update (`None`: never updated).
    pub fn set_last_update(&mut self, at: Option<Instant>) {
        self.updated = at.is_some();
        self.last_update = at.unwrap_or(Instant::ZERO);
    }

    /// Records the RTTVAR of a sample that continued the raise run (newest first).
    fn push_run(&mut self, rttvar: Nanos) {
        self.run.rotate_right(1);
        if let Some(first) = self.run.first_mut() {
            *first = rttvar;
        }
    }

    /// Mean of `newest` and the newest `n − 1` values of the raise run (rounded half up to the
    /// nanosecond): the RTTVAR values of the last `n` counted samples, when the run is at
    /// least `n` long with `newest` in it.
    fn run_mean(&self, newest: Nanos, n: u8) -> Duration {
        let n = usize::from(n.clamp(1, MAX_RAISE_AFTER));
        let older: u128 = self.run.iter().take(n - 1).map(|d| u128::from(d.as_u64())).sum();
        let sum = older + u128::from(newest.as_u64());
        let n = n as u128;
        let q = (sum + n / 2) / n;
        from_nanos(u64::try_from(q).unwrap_or(u64::MAX))
    }
}

/// pCoCoA, the algorithm: the checked configuration, shared by every destination
/// ([`PCocoaState`] is per destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PCocoa {
    config: PCocoaConfig,
}

/// What pCoCoA keeps per exchange (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PCocoaExchange {
    /// The timer armed for the latest copy.
    pub base: Duration,
    /// The undithered RTO_init that armed the original.
    pub aux: Duration,
    /// The VBF chosen at the original transmission.
    pub factor: Ratio,
}

fn check_gain(key: &'static str, r: Ratio) -> Result<(), ConfigError> {
    if r > Ratio::ONE {
        return Err(ConfigError::new(key, "must be between 0 and 1"));
    }
    Ok(())
}

/// Checks a VBF table: factors at least 1 and `lower_ms` ≤ `upper_ms`.
fn check_vbf(v: &Vbf) -> Result<(), ConfigError> {
    if v.below < Ratio::ONE || v.between < Ratio::ONE || v.above < Ratio::ONE {
        return Err(ConfigError::new("vbf", "every backoff factor must be at least 1"));
    }
    if v.lower > v.upper {
        return Err(ConfigError::new("vbf", "lower_ms must not exceed upper_ms"));
    }
    Ok(())
}

impl PCocoa {
    /// Checks every key of the configuration and builds the controller.
    pub fn new(config: PCocoaConfig) -> Result<Self, ConfigError> {
        if config.cap.is_zero() {
            return Err(ConfigError::new("cap_ms", "must be greater than 0"));
        }
        if config.initial_rto.is_zero() {
            return Err(ConfigError::new("initial_rto_ms", "must be greater than 0"));
        }
        if config.initial_rto > config.cap {
            return Err(ConfigError::new("initial_rto_ms", "must not exceed cap_ms"));
        }
        check_gain("alpha", config.alpha)?;
        check_gain("beta", config.beta)?;
        check_gain("gamma", config.gamma)?;
        check_gain("delta", config.delta)?;
        if config.k == 0 {
            return Err(ConfigError::new("k", "must be at least 1"));
        }
        if config.k_spurious == 0 {
            return Err(ConfigError::new("k_spurious", "must be at least 1"));
        }
        if config.raise_after == 0 || config.raise_after > MAX_RAISE_AFTER {
            return Err(ConfigError::new("raise_after", "must be between 1 and 8"));
        }
        if config.decay_after == 0 {
            return Err(ConfigError::new("decay_after", "must be at least 1"));
        }
        check_vbf(&config.vbf)?;
        if config.ack_random_factor < Ratio::ONE {
            return Err(ConfigError::new("ack_random_factor", "must be at least 1"));
        }
        Ok(PCocoa { config })
    }

    /// The configuration.
    pub fn config(&self) -> &PCocoaConfig {
        &self.config
    }

    fn aging_params(&self) -> CocoaRtoParams {
        CocoaRtoParams { aging: self.config.aging, max_rto: self.config.cap, ..CocoaRtoParams::draft(Duration::ZERO) }
    }

    /// RTO_init and its update time after the aging due at `now` (spec OQ-14, §2.7).
    fn aged(&self, st: &PCocoaState, now: Instant) -> (Duration, Option<Instant>) {
        let mut est = CocoaRto::new(INITIAL_RTO).with_overall(st.rto_init.get(), st.last_update(), false);
        est.age(now, &self.aging_params());
        (est.overall.get().min(self.config.cap), est.last_update())
    }

    /// Folds in the RTT sample `r` taken at `now`; `spurious` says whether the ACK named an
    /// earlier copy than the latest one sent. Runs \[S1\] Algorithm 1 blocks 1–4 (spec §5.3).
    pub fn on_sample(&self, st: &mut PCocoaState, now: Instant, r: Duration, spurious: bool) {
        let c = self.config;
        // Spec §5.4: the spurious flag holds for this computation only.
        st.spurious = spurious;
        let first = st.srtt.is_none();
        let mut rttvar = st.rttvar.get();
        let mut mdev_max = st.mdev_max.get();
        let srtt = match st.srtt.get() {
            None => {
                // Spec §5.2, OQ-16: SRTT = R, RTTVAR = R/2, mdev_max = R/2 (blocks 1–2 skipped).
                rttvar = r / 2;
                mdev_max = rttvar;
                r
            }
            Some(old) => {
                // [S1] block 1: SRTT first; the new SRTT is used below.
                let srtt = c.alpha.blend(r, old);
                let dev = abs_diff(srtt, r);
                let gain = if r < srtt.saturating_sub(rttvar) {
                    // Sudden decrease: converge slowly.
                    c.gamma
                } else if dev > rttvar {
                    // Large deviation: converge fast.
                    c.beta
                } else {
                    c.alpha
                };
                rttvar = gain.blend(dev, rttvar);
                // [S1] block 2 (spec OQ-18): only samples with R > SRTT count.
                if r > srtt {
                    if rttvar > mdev_max {
                        st.raise_run = st.raise_run.saturating_add(1);
                        st.decay_run = 0;
                        let newest = Nanos::new(rttvar);
                        if st.raise_run >= c.raise_after {
                            // RTTVAR > mdev_max for 3 consecutive times: mean of the last 3
                            // RTTVAR (all of this run).
                            mdev_max = st.run_mean(newest, c.raise_after);
                        }
                        st.push_run(newest);
                    } else if rttvar < mdev_max {
                        st.decay_run = st.decay_run.saturating_add(1);
                        st.raise_run = 0;
                        if st.decay_run >= c.decay_after {
                            // Spec OQ-18: "<" for 8 consecutive times: mdev_max ← (1−β)·mdev_max + β·RTTVAR.
                            mdev_max = c.beta.blend(rttvar, mdev_max);
                        }
                    } else {
                        st.raise_run = 0;
                        st.decay_run = 0;
                    }
                }
                srtt
            }
        };
        st.rttvar = Nanos::new(rttvar);
        st.mdev_max = Nanos::new(mdev_max);
        st.srtt = OptNanos::new(Some(srtt));
        // [S1] block 3: k = 6 after a spurious retransmission, else 4.
        let k = if spurious { c.k_spurious } else { c.k };
        // [S1] block 4: SRTO = SRTT + max(k·RTTVAR, mdev_max).
        let srto = add(srtt, mul(rttvar, u64::from(k)).max(mdev_max));
        let rto_init = if first && c.first_sample == FirstSample::Set {
            srto
        } else {
            // [S1] block 4: RTO_init ← (1−δ)·SRTO + δ·RTO_init.
            c.delta.blend(st.rto_init.get(), srto)
        }
        // Spec OQ-14 (as OQ-4): RTO_init is clamped to the cap.
        .min(c.cap);
        st.rto_init = Nanos::new(rto_init);
        st.set_last_update(Some(now));
    }
}

impl PCocoaConfig {
    /// The echo this algorithm needs: pCoCoA's Transmission Count option, echoed by a
    /// cooperating server (spec §5, OQ-17).
    pub fn echo_mode(&self) -> EchoMode {
        EchoMode::Option
    }
}

impl Controller for PCocoa {
    type State = PCocoaState;
    type ExchangeState = PCocoaExchange;

    fn new_state(&self) -> PCocoaState {
        PCocoaState::new(self.config.initial_rto)
    }

    fn on_transmit(
        &self,
        st: &mut PCocoaState,
        now: Instant,
        ex: &mut Exchange<PCocoaExchange>,
        _in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        let timer = if ex.retransmissions() == 0 {
            // Spec OQ-14: lazy aging (off by default).
            let (rto, last) = self.aged(st, now);
            st.rto_init = Nanos::new(rto);
            st.set_last_update(last);
            // [S1] eq. 1–2, spec §5.4: the VBF is chosen once per exchange from RTO_init.
            ex.cc.factor = self.config.vbf.factor(rto);
            ex.cc.aux = rto;
            if self.config.dither {
                // Spec OQ-13: the initial timer is dithered in [RTO_init, 1.5·RTO_init).
                dither_factor(rng, rto, self.config.ack_random_factor)
            } else {
                rto
            }
        } else {
            // [S1] eq. 1: T ← T × VBF(RTO_init).
            ex.cc.factor.mul_duration(ex.cc.base)
        };
        // Spec OQ-14: every armed timer is capped (32 s).
        let timer = timer.min(self.config.cap);
        ex.cc.base = timer;
        timer
    }

    fn on_timeout(&self, _st: &mut PCocoaState, _now: Instant, ex: &mut Exchange<PCocoaExchange>) -> Retry {
        // Spec §5.4: MAX_RETRANSMIT retransmissions, then give up.
        if ex.retransmissions() < self.config.max_retransmit { Retry::Retransmit } else { Retry::GiveUp }
    }

    fn on_ack(&self, st: &mut PCocoaState, now: Instant, ex: &Exchange<PCocoaExchange>, ack: &Ack) {
        let n = ex.retransmissions();
        let (r, spurious) = match ack.echo {
            // Spec §5.4: R = t_ack − t_send(j); j < latest copy → the later copies were spurious.
            Some(echo) => (now.saturating_duration_since(echo.sent), echo.copy < n),
            // Never retransmitted: the ACK can only answer the original (Karn).
            None if n == 0 => (now.saturating_duration_since(ex.first_sent()), false),
            // Spec OQ-17: no echo after retransmissions.
            None => match self.config.no_echo {
                NoEcho::Latest => (now.saturating_duration_since(ex.last_sent()), false),
                NoEcho::Skip => return,
            },
        };
        self.on_sample(st, now, r, spurious);
    }

    fn rto(&self, st: &PCocoaState, now: Instant) -> Option<Duration> {
        Some(self.aged(st, now).0)
    }

    fn timer_bounds(&self) -> TimerBounds {
        // RTO_init follows the samples down to zero (no floor in [S1]); every timer is capped.
        TimerBounds { min: Duration::ZERO, max: self.config.cap }
    }

    fn echo_mode(&self) -> EchoMode {
        self.config.echo_mode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::Echo;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;
    use crate::harness::testing::{at, ms};

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    fn undithered(config: PCocoaConfig) -> Bound<PCocoa> {
        Bound::new(PCocoa::new(PCocoaConfig { dither: false, ..config }).unwrap())
    }

    fn fresh() -> Bound<PCocoa> {
        undithered(PCocoaConfig::default())
    }

    /// A controller with SRTT, RTTVAR, mdev_max and RTO_init set (milliseconds).
    fn with(srtt: Duration, rttvar: Duration, mdev_max: Duration, rto_init: Duration) -> Bound<PCocoa> {
        let mut p = fresh();
        p.set_state(PCocoaState {
            srtt: Some(srtt).into(),
            rttvar: rttvar.into(),
            mdev_max: mdev_max.into(),
            rto_init: rto_init.into(),
            ..PCocoaState::new(INITIAL_RTO)
        });
        p
    }

    fn script_with_rto(rto: Duration) -> Script<PCocoa> {
        Script::new(undithered(PCocoaConfig { initial_rto: rto, ..Default::default() }))
    }

    // ---- first sample ----

    #[test]
    fn a_first_sample_of_400_ms_sets_srtt_400_rttvar_and_mdev_max_200_and_rto_init_1_6_s() {
        // Spec §5.2, OQ-16; blocks 3–4 blend SRTO = 400 + max(4·200, 200) = 1200 with 2 s.
        let mut p = fresh();
        p.alg.on_sample(&mut p.st, at(400), ms(400), false);
        let s = p.state();
        assert_eq!(s.srtt, Some(ms(400)));
        assert_eq!(s.rttvar, ms(200));
        assert_eq!(s.mdev_max, ms(200));
        assert_eq!(s.rto_init, ms(1600));
        assert_eq!((s.raise_run, s.decay_run), (0, 0));
    }

    #[test]
    fn with_first_sample_set_a_first_sample_of_400_ms_gives_rto_init_1_2_s() {
        let mut p = undithered(PCocoaConfig { first_sample: FirstSample::Set, ..Default::default() });
        p.alg.on_sample(&mut p.st, at(400), ms(400), false);
        assert_eq!(p.state().rto_init, ms(1200));
        // Later samples blend as usual (see the α-branch test: SRTO 1212.5 ms).
        p.alg.on_sample(&mut p.st, at(1000), ms(600), false);
        assert_eq!(p.state().rto_init, us(1_206_250));
    }

    // ---- block 1 ----

    #[test]
    fn an_ordinary_sample_uses_alpha_against_the_new_srtt() {
        // SRTT 400, RTTVAR 200, mdev 200, RTO_init 1600; R = 600:
        // SRTT = 7/8·400 + 1/8·600 = 425; |425 − 600| = 175 ≤ 200 → RTTVAR = 7/8·200 + 1/8·175
        // = 196.875; SRTO = 425 + max(787.5, 200) = 1212.5; RTO_init = (1212.5 + 1600)/2 = 1406.25.
        let mut p = with(ms(400), ms(200), ms(200), ms(1600));
        p.alg.on_sample(&mut p.st, at(0), ms(600), false);
        let s = p.state();
        assert_eq!(s.srtt, Some(ms(425)));
        assert_eq!(s.rttvar, us(196_875));
        assert_eq!(s.rto_init, us(1_406_250));
        // Counted (600 > 425) and below mdev_max: the decay run starts; no raise run to record.
        assert_eq!((s.raise_run, s.decay_run), (0, 1));
        assert_eq!(s.run, PCocoaState::new(INITIAL_RTO).run);
    }

    #[test]
    fn a_large_deviation_uses_beta() {
        // SRTT 400, RTTVAR 200; R = 1200: SRTT = 350 + 150 = 500; |500 − 1200| = 700 > 200 →
        // RTTVAR = 3/4·200 + 1/4·700 = 325; SRTO = 500 + 1300 = 1800; RTO_init = 1700.
        let mut p = with(ms(400), ms(200), ms(200), ms(1600));
        p.alg.on_sample(&mut p.st, at(0), ms(1200), false);
        let s = p.state();
        assert_eq!(s.srtt, Some(ms(500)));
        assert_eq!(s.rttvar, ms(325));
        assert_eq!(s.rto_init, ms(1700));
        assert_eq!((s.raise_run, s.decay_run), (1, 0));
        assert_eq!(s.mdev_max, ms(200));
    }

    #[test]
    fn a_sudden_decrease_uses_gamma_and_mdev_max_then_floors_srto() {
        // SRTT 400, RTTVAR 40, mdev 200; R = 80: SRTT = 350 + 10 = 360; 80 < 360 − 40 →
        // RTTVAR = 31/32·40 + 1/32·280 = 47.5; SRTO = 360 + max(190, 200) = 560;
        // RTO_init = (560 + 1600)/2 = 1080. R ≤ SRTT: block 2 does not count it.
        let mut p = with(ms(400), ms(40), ms(200), ms(1600));
        p.alg.on_sample(&mut p.st, at(0), ms(80), false);
        let s = p.state();
        assert_eq!(s.srtt, Some(ms(360)));
        assert_eq!(s.rttvar, us(47_500));
        assert_eq!(s.rto_init, ms(1080));
        assert_eq!((s.raise_run, s.decay_run), (0, 0));
    }

    #[test]
    fn a_sample_just_above_srtt_minus_rttvar_is_not_a_sudden_decrease() {
        // SRTT 1000, RTTVAR 100; R = 920: SRTT = 875 + 115 = 990; 920 ≥ 890 and
        // |990 − 920| = 70 ≤ 100 → α: RTTVAR = 87.5 + 8.75 = 96.25.
        let mut p = with(ms(1000), ms(100), ms(0), ms(2000));
        p.alg.on_sample(&mut p.st, at(0), ms(920), false);
        assert_eq!(p.state().srtt, Some(ms(990)));
        assert_eq!(p.state().rttvar, us(96_250));
    }

    #[test]
    fn four_samples_through_the_alpha_beta_and_gamma_branches_end_at_1671_254883_ms() {
        // Replay pcocoa-estimator-blocks: R = 400, 600, 1200, 80 ms.
        let mut p = fresh();
        p.alg.on_sample(&mut p.st, at(0), ms(400), false);
        p.alg.on_sample(&mut p.st, at(0), ms(600), false);
        assert_eq!(p.state().rto_init, us(1_406_250));
        p.alg.on_sample(&mut p.st, at(0), ms(1200), false);
        // SRTT = 7/8·425 + 150 = 521.875; |521.875 − 1200| = 678.125 > 196.875 → β:
        // RTTVAR = 147.65625 + 169.53125 = 317.1875; SRTO = 521.875 + 1268.75 = 1790.625.
        assert_eq!(p.state().srtt, Some(us(521_875)));
        assert_eq!(p.state().rttvar, Duration::from_nanos(317_187_500));
        assert_eq!(p.state().rto_init, Duration::from_nanos(1_598_437_500));
        p.alg.on_sample(&mut p.st, at(0), ms(80), false);
        // SRTT = 466.640625; 80 < 466.640625 − 317.1875 → γ: RTTVAR = (31·317.1875 + 386.640625)/32
        // = 319.357910 (ns-rounded); SRTO = 466.640625 + 1277.43164 = 1744.072265;
        // RTO_init = (1744.072265 + 1598.4375)/2 = 1671.254883 (rounded half up).
        assert_eq!(p.state().srtt, Some(Duration::from_nanos(466_640_625)));
        assert_eq!(p.state().rttvar, Duration::from_nanos(319_357_910));
        assert_eq!(p.state().rto_init, Duration::from_nanos(1_671_254_883));
    }

    // ---- block 2 ----

    /// A state with runs `raise` and `decay` and the raise run's RTTVAR values `run` (ms,
    /// newest first).
    fn with_runs(raise: u8, decay: u8, run: &[u64]) -> Bound<PCocoa> {
        let mut p = fresh();
        let mut st = PCocoaState::new(INITIAL_RTO);
        for (slot, v) in st.run.iter_mut().zip(run) {
            *slot = ms(*v).into();
        }
        st.raise_run = raise;
        st.decay_run = decay;
        p.set_state(st);
        p
    }

    #[test]
    fn a_third_consecutive_exceedance_raises_mdev_max_to_the_mean_of_the_last_3_rttvar() {
        // SRTT 1000, RTTVAR 200, mdev 150, runs (2, 0), history 180, 160 (newest first).
        // R = 1400: SRTT = 1050; |1050 − 1400| = 350 > 200 → RTTVAR = 150 + 87.5 = 237.5 > 150:
        // third exceedance → mdev_max = (237.5 + 180 + 160)/3 = 192.5;
        // SRTO = 1050 + max(950, 192.5) = 2000; RTO_init = (2000 + 2000)/2 = 2000.
        let mut p = with_runs(2, 0, &[180, 160]);
        p.set_state(PCocoaState {
            srtt: Some(ms(1000)).into(),
            rttvar: ms(200).into(),
            mdev_max: ms(150).into(),
            ..p.state()
        });
        p.alg.on_sample(&mut p.st, at(0), ms(1400), false);
        let s = p.state();
        assert_eq!(s.rttvar, us(237_500));
        assert_eq!(s.raise_run, 3);
        assert_eq!(s.mdev_max, us(192_500));
        assert_eq!(s.rto_init, ms(2000));
    }

    #[test]
    fn a_second_consecutive_exceedance_leaves_mdev_max_alone() {
        let mut p = with_runs(1, 0, &[180]);
        p.set_state(PCocoaState {
            srtt: Some(ms(1000)).into(),
            rttvar: ms(200).into(),
            mdev_max: ms(150).into(),
            ..p.state()
        });
        p.alg.on_sample(&mut p.st, at(0), ms(1400), false);
        assert_eq!(p.state().raise_run, 2);
        assert_eq!(p.state().mdev_max, ms(150));
        assert_eq!(p.state().run[..2], [us(237_500), ms(180)]);
    }

    #[test]
    fn mdev_max_rises_from_a_fresh_endpoint_after_three_rising_samples() {
        // From R = 400 (SRTT 400, RTTVAR 200, mdev 200, RTO_init 1600):
        // R = 1200: SRTT 500, RTTVAR 325 (β) > 200: run 1.
        // R = 1300: SRTT 600, |600 − 1300| = 700 > 325 → RTTVAR = 243.75 + 175 = 418.75: run 2.
        // R = 1400: SRTT 700, |700 − 1400| = 700 > 418.75 → RTTVAR = 314.0625 + 175 = 489.0625:
        // run 3 → mdev_max = (489.0625 + 418.75 + 325)/3 = 410.9375.
        let mut p = fresh();
        p.alg.on_sample(&mut p.st, at(0), ms(400), false);
        p.alg.on_sample(&mut p.st, at(0), ms(1200), false);
        p.alg.on_sample(&mut p.st, at(0), ms(1300), false);
        assert_eq!(p.state().mdev_max, ms(200));
        p.alg.on_sample(&mut p.st, at(0), ms(1400), false);
        let s = p.state();
        assert_eq!(s.srtt, Some(ms(700)));
        assert_eq!(s.rttvar, Duration::from_nanos(489_062_500));
        assert_eq!(s.mdev_max, Duration::from_nanos(410_937_500));
    }

    #[test]
    fn the_raise_fires_again_while_the_run_continues() {
        // Run already 3 (the branch fired last time); another exceedance fires it again with the
        // newest three values: (237.5 + 200 + 190)/3 = 209.1666… → 209.166667 ms.
        let mut p = with_runs(3, 0, &[200, 190, 100]);
        p.set_state(PCocoaState {
            srtt: Some(ms(1000)).into(),
            rttvar: ms(200).into(),
            mdev_max: ms(150).into(),
            ..p.state()
        });
        p.alg.on_sample(&mut p.st, at(0), ms(1400), false);
        assert_eq!(p.state().raise_run, 4);
        assert_eq!(p.state().mdev_max, Duration::from_nanos(209_166_667));
    }

    #[test]
    fn an_eighth_consecutive_sample_below_mdev_max_decays_it_with_beta() {
        // SRTT 1000, RTTVAR 100, mdev 300, decay run 7; R = 1080: SRTT = 1010, |1010 − 1080| = 70
        // ≤ 100 → RTTVAR = 87.5 + 8.75 = 96.25 < 300: run 8 →
        // mdev_max = 3/4·300 + 1/4·96.25 = 249.0625; SRTO = 1010 + max(385, 249.0625) = 1395.
        let mut p = with_runs(0, 7, &[]);
        p.set_state(PCocoaState {
            srtt: Some(ms(1000)).into(),
            rttvar: ms(100).into(),
            mdev_max: ms(300).into(),
            rto_init: ms(1395).into(),
            ..p.state()
        });
        p.alg.on_sample(&mut p.st, at(0), ms(1080), false);
        let s = p.state();
        assert_eq!(s.rttvar, us(96_250));
        assert_eq!(s.decay_run, 8);
        assert_eq!(s.mdev_max, Duration::from_nanos(249_062_500));
        assert_eq!(s.rto_init, ms(1395));
    }

    #[test]
    fn a_seventh_sample_below_mdev_max_does_not_decay_it() {
        let mut p = with_runs(0, 6, &[]);
        p.set_state(PCocoaState {
            srtt: Some(ms(1000)).into(),
            rttvar: ms(100).into(),
            mdev_max: ms(300).into(),
            ..p.state()
        });
        p.alg.on_sample(&mut p.st, at(0), ms(1080), false);
        assert_eq!(p.state().decay_run, 7);
        assert_eq!(p.state().mdev_max, ms(300));
    }

    #[test]
    fn samples_at_or_below_srtt_keep_the_counters_and_history() {
        // Spec OQ-18: R = 1000 with SRTT 1000 leaves SRTT at 1000, so R > SRTT fails.
        let mut p = with_runs(0, 7, &[90]);
        p.set_state(PCocoaState {
            srtt: Some(ms(1000)).into(),
            rttvar: ms(100).into(),
            mdev_max: ms(300).into(),
            ..p.state()
        });
        p.alg.on_sample(&mut p.st, at(0), ms(1000), false);
        let s = p.state();
        assert_eq!((s.raise_run, s.decay_run, s.run[0]), (0, 7, ms(90).into()));
        assert_eq!(s.mdev_max, ms(300));
        // RTTVAR = 7/8·100 + 0 = 87.5; the next counted sample below mdev_max is the 8th:
        // R = 1100: SRTT = 875 + 137.5 = 1012.5, |·| = 87.5 ≤ 87.5 → RTTVAR = 87.5 → mdev_max =
        // 225 + 21.875 = 246.875.
        assert_eq!(s.rttvar, us(87_500));
        p.alg.on_sample(&mut p.st, at(0), ms(1100), false);
        assert_eq!(p.state().decay_run, 8);
        assert_eq!(p.state().mdev_max, us(246_875));
    }

    #[test]
    fn a_counted_sample_on_the_other_side_restarts_the_runs() {
        // Raise run 2, then a counted sample below mdev_max: raise run 0, decay run 1.
        let mut p = with_runs(2, 0, &[400, 400]);
        p.set_state(PCocoaState {
            srtt: Some(ms(1000)).into(),
            rttvar: ms(100).into(),
            mdev_max: ms(300).into(),
            ..p.state()
        });
        p.alg.on_sample(&mut p.st, at(0), ms(1080), false);
        assert_eq!((p.state().raise_run, p.state().decay_run), (0, 1));
        assert_eq!(p.state().mdev_max, ms(300));
    }

    // ---- blocks 3–4 ----

    #[test]
    fn a_spurious_sample_uses_k_6() {
        // First sample R = 2400 with k = 6: SRTO = 2400 + 6·1200 = 9600; RTO_init = 5800
        // (with k = 4: 7200 → 4600).
        let mut p = fresh();
        p.alg.on_sample(&mut p.st, at(0), ms(2400), true);
        assert_eq!(p.state().rto_init, ms(5800));
        assert!(p.state().spurious);
        let mut q = fresh();
        q.alg.on_sample(&mut q.st, at(0), ms(2400), false);
        assert_eq!(q.state().rto_init, ms(4600));
    }

    #[test]
    fn delta_weights_the_previous_rto_init() {
        // δ = 1/4: RTO_init = 3/4·1200 + 1/4·2000 = 1400.
        let mut p = undithered(PCocoaConfig { delta: Ratio::new(1, 4), ..Default::default() });
        p.alg.on_sample(&mut p.st, at(0), ms(400), false);
        assert_eq!(p.state().rto_init, ms(1400));
    }

    #[test]
    fn rto_init_never_exceeds_the_cap() {
        let mut p = fresh();
        p.alg.on_sample(&mut p.st, at(0), Duration::from_secs(100), false);
        assert_eq!(p.state().rto_init, MAX_RTO);
        p.alg.on_sample(&mut p.st, at(0), Duration::MAX, true);
        assert_eq!(p.state().rto_init, MAX_RTO);
    }

    // ---- ACKs: echo, spurious detection, fallback ----

    #[test]
    fn an_echo_of_the_original_after_a_retransmission_is_spurious_and_measured_from_the_original() {
        // Copies at 0 (2 s) and 2000; ACK at 2400 echoes copy 0: R = 2400, k = 6 → 5800.
        let mut s = Script::new(fresh());
        s.send();
        s.wait_ms(2400);
        s.ack_copy(0);
        assert_eq!(s.rto_ms(), Some(5800));
        assert!(s.state().spurious);
    }

    #[test]
    fn an_echo_of_the_latest_copy_is_measured_from_that_copy_and_not_spurious() {
        // ACK at 2400 echoes copy 1 (sent at 2000): R = 400 → 1600.
        let mut s = Script::new(fresh());
        s.send();
        s.wait_ms(2400);
        s.ack_copy(1);
        assert_eq!(s.rto_ms(), Some(1600));
        assert!(!s.state().spurious);
    }

    #[test]
    fn without_an_echo_the_default_fallback_measures_from_the_latest_copy() {
        let mut s = Script::new(fresh());
        s.send();
        s.wait_ms(2400);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1600));
        assert!(!s.state().spurious);
    }

    #[test]
    fn without_an_echo_the_skip_fallback_takes_no_sample() {
        let mut s = Script::new(undithered(PCocoaConfig { no_echo: NoEcho::Skip, ..Default::default() }));
        s.send();
        s.wait_ms(2400);
        s.ack();
        assert_eq!(s.rto_ms(), Some(2000));
        assert_eq!(s.state().srtt, None);
    }

    #[test]
    fn an_unretransmitted_exchange_is_sampled_without_an_echo_even_with_skip() {
        let mut s = Script::new(undithered(PCocoaConfig { no_echo: NoEcho::Skip, ..Default::default() }));
        s.send();
        s.wait_ms(400);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1600));
    }

    #[test]
    fn an_echo_of_a_copy_never_sent_is_not_spurious() {
        let mut p = fresh();
        let mut rng = <rand_pcg::Pcg64Mcg as rand_core::SeedableRng>::seed_from_u64(1);
        let ex = p.start(at(0), 0, &mut rng);
        p.on_ack(at(400), &ex, &Ack { echo: Some(Echo { copy: 3, sent: at(0) }) });
        assert_eq!(p.state().rto_init, ms(1600));
        assert!(!p.state().spurious);
    }

    #[test]
    fn the_next_exchange_is_armed_with_the_updated_rto_init() {
        let mut s = Script::new(fresh());
        s.send();
        s.wait_ms(400);
        s.ack_copy(0);
        s.send();
        assert_eq!(s.timers_ms(), [2000, 1600]);
    }

    // ---- backoff ----

    #[test]
    fn from_rto_init_2_s_the_timers_are_2_4_8_16_32_s_and_it_gives_up_at_62_s() {
        let mut s = Script::new(fresh());
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [2000, 4000, 8000, 16000, 32000]);
        assert_eq!(s.transmit_times_ms(), [0, 2000, 6000, 14000, 30000]);
        assert_eq!(s.give_up_ms(), Some(62_000));
    }

    #[test]
    fn from_rto_init_0_5_s_the_factor_2_5_is_kept_for_the_whole_exchange() {
        // Makarem's VBF < 1 s = 2.5, chosen once: 500, 1250, 3125, 7812.5, 19531.25;
        // give up at 32218.75 ms.
        let mut s = script_with_rto(ms(500));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ns(), [500_000_000, 1_250_000_000, 3_125_000_000, 7_812_500_000, 19_531_250_000]);
        assert_eq!(
            s.events.last(),
            Some(&crate::harness::Event::GiveUp { at: Instant::from_nanos(32_218_750_000), exchange: 1 })
        );
    }

    #[test]
    fn from_rto_init_4_s_the_factor_is_1_5() {
        let mut s = script_with_rto(ms(4000));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [4000, 6000, 9000, 13500, 20250]);
        assert_eq!(s.give_up_ms(), Some(52_750));
    }

    #[test]
    fn the_draft_vbf_reproduces_spec_vector_3_from_0_5_s() {
        // Spec §13 vector 3 (per-exchange rule, 32 s cap): 0.5, 1.5, 4.5, 13.5, 32.
        let mut s =
            Script::new(undithered(PCocoaConfig { initial_rto: ms(500), vbf: Vbf::DRAFT, ..Default::default() }));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [500, 1500, 4500, 13500, 32000]);
    }

    #[test]
    fn the_cap_bounds_backed_off_timers() {
        // RTO_init 0.9 s: 900, 2250, 5625, 14062.5, 35156.25 → 32000; give up at 54837.5 ms.
        let mut s = script_with_rto(ms(900));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ns(), [900_000_000, 2_250_000_000, 5_625_000_000, 14_062_500_000, 32_000_000_000]);
        let mut s = Script::new(undithered(PCocoaConfig { cap: ms(10_000), ..Default::default() }));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [2000, 4000, 8000, 10000, 10000]);
    }

    #[test]
    fn it_gives_up_after_max_retransmit_retransmissions() {
        let mut s = Script::new(undithered(PCocoaConfig { max_retransmit: 2, ..Default::default() }));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.transmit_times_ms(), [0, 2000, 6000]);
        assert_eq!(s.give_up_ms(), Some(14_000));
    }

    #[test]
    fn the_dithered_first_timer_lies_in_1_to_1_5_rto_init_and_the_backoff_multiplies_it() {
        // Spec OQ-13: only the first timer is dithered; the retransmission timer is the drawn
        // timer × VBF(2 s) = 2.
        let mut s = Script::new(Bound::new(PCocoa::new(PCocoaConfig::default()).unwrap()));
        for _ in 0..100 {
            s.set_state(PCocoaState::new(INITIAL_RTO));
            s.events.clear();
            s.send();
            s.wait_ms(3000); // the first timer (< 3 s) fires once; the second (≥ 4 s) does not
            let t = s.timers_ns();
            assert_eq!(t.len(), 2);
            assert!((2_000_000_000..3_000_000_000).contains(&t[0]), "{}", t[0]);
            assert_eq!(t[1], 2 * t[0]);
            s.ack_copy(0);
        }
    }

    #[test]
    fn the_rto_init_is_not_aged_by_default_but_can_be() {
        let mut p = fresh();
        let mut st = PCocoaState { rto_init: ms(4000).into(), ..PCocoaState::new(INITIAL_RTO) };
        st.set_last_update(Some(at(0)));
        p.set_state(st);
        assert_eq!(p.rto(at(16_100)), Some(ms(4000)));
        let mut q = undithered(PCocoaConfig { aging: Aging::Draft, ..Default::default() });
        q.set_state(p.state());
        // Spec §13 vector 4 rule applied to RTO_init: 4 s idle 16.1 s → 3 s.
        assert_eq!(q.rto(at(16_100)), Some(ms(3000)));
    }

    #[test]
    fn every_key_is_validated() {
        let bad = |c: PCocoaConfig| PCocoa::new(c).unwrap_err().key;
        let d = PCocoaConfig::default();
        assert_eq!(bad(PCocoaConfig { cap: Duration::ZERO, ..d }), "cap_ms");
        assert_eq!(bad(PCocoaConfig { initial_rto: Duration::ZERO, ..d }), "initial_rto_ms");
        assert_eq!(bad(PCocoaConfig { initial_rto: ms(40_000), ..d }), "initial_rto_ms");
        assert_eq!(bad(PCocoaConfig { alpha: Ratio::new(9, 8), ..d }), "alpha");
        assert_eq!(bad(PCocoaConfig { beta: Ratio::integer(2), ..d }), "beta");
        assert_eq!(bad(PCocoaConfig { gamma: Ratio::integer(2), ..d }), "gamma");
        assert_eq!(bad(PCocoaConfig { delta: Ratio::integer(2), ..d }), "delta");
        assert_eq!(bad(PCocoaConfig { k: 0, ..d }), "k");
        assert_eq!(bad(PCocoaConfig { k_spurious: 0, ..d }), "k_spurious");
        assert_eq!(bad(PCocoaConfig { raise_after: 0, ..d }), "raise_after");
        assert_eq!(bad(PCocoaConfig { raise_after: 9, ..d }), "raise_after");
        assert_eq!(bad(PCocoaConfig { decay_after: 0, ..d }), "decay_after");
        assert_eq!(bad(PCocoaConfig { vbf: Vbf { below: Ratio::new(1, 2), ..Vbf::MAKAREM }, ..d }), "vbf");
        assert_eq!(bad(PCocoaConfig { ack_random_factor: Ratio::new(1, 2), ..d }), "ack_random_factor");
    }

    #[test]
    fn a_clock_ten_days_ahead_and_huge_samples_do_not_panic() {
        let mut p = Bound::new(PCocoa::new(PCocoaConfig { aging: Aging::Draft, ..Default::default() }).unwrap());
        let mut rng = <rand_pcg::Pcg64Mcg as rand_core::SeedableRng>::seed_from_u64(7);
        let far = Instant::from_millis(10 * 86_400_000);
        let mut ex = p.start(far, 0, &mut rng);
        assert!(ex.timer() <= p.timer_bounds().max);
        assert_eq!(p.on_timeout(far, &mut ex), Retry::Retransmit);
        p.on_ack(Instant::MAX, &ex, &Ack { echo: Some(Echo { copy: 0, sent: Instant::ZERO }) });
        assert_eq!(p.rto(Instant::MAX), Some(MAX_RTO));
        p.alg.on_sample(&mut p.st, Instant::MAX, Duration::ZERO, false);
        p.alg.on_sample(&mut p.st, Instant::MAX, Duration::ZERO, false);
        assert!(p.rto(Instant::MAX).is_some());
    }

    #[test]
    fn pcocoas_state_with_the_newest_7_rttvar_values_of_its_raise_run_fits_104_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        // Twelve 8-byte values (SRTT, RTTVAR, mdev_max, RTO_init, the update time and 7 run
        // values) and 4 bytes of counters and flags, padded to a multiple of 8; the module docs
        // say why 64 is out of reach.
        let bytes = core::mem::size_of::<<PCocoa as Controller>::State>();
        assert!(bytes <= 104, "{bytes} bytes");
    }

    #[test]
    fn two_states_that_differ_only_in_the_oldest_value_of_a_run_of_seven_need_different_timers() {
        // raise_after = 8. SRTT 1000, RTTVAR 100, mdev_max 100, RTO_init 2000 ms, a raise run of
        // 7 whose values exceeded mdev_max (uncounted samples have lowered RTTVAR since); the
        // two states differ only in the run's oldest value, 1000 or 1008 ms.
        // R = 1200: SRTT = 875 + 150 = 1025, |1025 − 1200| = 175 > 100 → RTTVAR = 75 + 43.75 =
        // 118.75 > 100: run 8 → mdev_max = (118.75 + 7000)/8 = 889.84375 or 890.84375 ms;
        // SRTO = 1025 + max(475, mdev_max) → RTO_init = (2000 + 1914.84375)/2 = 1957.421875 or
        // (2000 + 1915.84375)/2 = 1957.921875 ms. So the window cannot drop or merge the value.
        let config = PCocoaConfig { raise_after: 8, ..Default::default() };
        let state = |oldest_ms: u64| {
            let mut run = [ms(1000).into(); MAX_RAISE_AFTER as usize - 1];
            run[6] = ms(oldest_ms).into();
            PCocoaState {
                srtt: Some(ms(1000)).into(),
                rttvar: ms(100).into(),
                mdev_max: ms(100).into(),
                rto_init: ms(2000).into(),
                run,
                raise_run: 7,
                ..PCocoaState::new(INITIAL_RTO)
            }
        };
        let mut rto = [Duration::ZERO; 2];
        for (slot, oldest) in rto.iter_mut().zip([1000, 1008]) {
            let mut p = undithered(config);
            p.set_state(state(oldest));
            p.alg.on_sample(&mut p.st, at(0), ms(1200), false);
            *slot = p.rto(at(0)).unwrap();
        }
        assert_eq!(rto, [Duration::from_nanos(1_957_421_875), Duration::from_nanos(1_957_921_875)]);
    }
}
