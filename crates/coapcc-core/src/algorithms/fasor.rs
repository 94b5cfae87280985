//! FASOR, Fast-Slow RTO (draft-ietf-core-fasor-02; Järvinen, Raitahila, Cao, Kojo, GLOBECOM
//! 2018 \[S0\]), and FASOR with echoed transmission counts ("FASOR+token" of \[S0\], the draft's
//! Rexmit-Cnt option): spec §7, OQ-21..OQ-26, §13 vector 5.
//!
//! * **FastRTO** (FASOR-02 §4.1): RFC 6298 with K = 4, α = 1/8, β = 1/4, no lower bound,
//!   RTTVAR = R/(2K) = R/8 on the first sample (spec OQ-21), initial RTO 2 s; fed only by
//!   unambiguous samples (and, with `echo`, by samples the echo disambiguates: spec OQ-26).
//! * **SlowRTO** (FASOR-02 §4.2): SLOWRTO_FACTOR (1.5) × (ACK time − original send time)
//!   after every exchange that needed retransmissions, unsmoothed, capped at 60 s.
//! * **Backoff series** (FASOR-02 §4.3, Appendix A; spec §7.4), chosen by the state when the
//!   exchange starts: FAST: F, 2F, 4F …; FAST_SLOW_FAST: F, max(S, 2F), 2F, 4F … (the Slow
//!   step does not touch the doubling register); SLOW_FAST: S, F, 2F, 4F ….
//! * **State machine** (FASOR-02 Figure 1; spec §7.6): an ACK without retransmissions → FAST;
//!   an ACK after retransmissions downgrades FAST → FAST_SLOW_FAST → SLOW_FAST → SLOW_FAST.
//! * **Dithering** (FASOR-02 §4.1; spec §7.5, OQ-22): F is armed in [F + SRTT/4, F + SRTT),
//!   with SRTT := INITIAL_RTO/3 before the first sample; drawn once per exchange and doubled;
//!   SlowRTO is not dithered.
//!
//! With `echo` (preset [`FasorConfig::token`]) an acknowledgement that names copy j gives the
//! unambiguous sample `now − sent(j)`, which feeds FastRTO even after retransmissions; the
//! state machine still keys on "were there retransmissions" and SlowRTO is still measured from
//! the original (spec OQ-26); and the FastRTO base of the series is max(FastRTO, previous
//! exchange's RTT sample) when the previous exchange gave one (FASOR-02 §4.4). Without `echo`
//! echoes are ignored: plain FASOR cannot see them.
//!
//! # What the endpoint does for the token / Rexmit-Cnt variant
//!
//! The controller only consumes [`Echo`]s. The endpoint (FASOR-02 §4.4–4.5) keeps the send
//! time of every copy; numbers copies 0, 1, 2 … (incrementing per retransmission) in the
//! Rexmit-Cnt option or a token byte; sends [`REXMIT_CNT_FIRST_CONTACT`] (255, read as 0) in
//! the first request to a new endpoint and stops sending the option to a server whose first
//! piggybacked response does not echo it; reserves room so the full-size option (or longer
//! token) fits in retransmissions; takes echoes only from piggybacked responses (Empty ACKs
//! cannot carry them) and ignores an echo when the copy was sent without the option.
//!
//! # State
//!
//! [`Fasor`] is the algorithm (the checked configuration), shared by every destination;
//! [`FasorState`] is what one destination keeps; [`FasorExchange`] is what one exchange
//! keeps, fixed when the exchange starts (spec OQ-25: per-exchange series, shared estimator
//! and state): `series` = the [`BackoffState`] of the exchange; `base` = the doubling register
//! (the dithered FastRTO base, doubled by each FastRTO backoff step, capped); `aux` = the
//! SlowRTO S of the series.
//!
//! Other choices: no idle / aging logic (spec OQ-24); clock granularity G = 0 (the timers are
//! nanosecond-exact, so an RTT of zero gives a FastRTO of zero); a failed exchange counts as an
//! ambiguous ACK that keeps SlowRTO (spec OQ-23).

use core::time::Duration;

use crate::config::ConfigError;
use crate::controller::{Ack, Controller, Echo, EchoMode, Exchange, Retry, TimerBounds};
use crate::estimators::RtoEstimator;
use crate::estimators::rfc6298::{self, Rfc6298, Rfc6298Params};
use crate::params::MAX_RETRANSMIT;
use crate::random::{Rng, uniform};
use crate::ratio::Ratio;
use crate::time::{Instant, Nanos, OptNanos, add, div, from_nanos, shl};

/// FASOR-02 §4.1: initial RTO, 2 s (SHOULD).
pub const INITIAL_RTO: Duration = Duration::from_secs(2);
/// FASOR-02 §4.2 and Appendix A: SLOWRTO_FACTOR, 1.5.
pub const SLOWRTO_FACTOR: Ratio = Ratio::new(3, 2);
/// FASOR-02 §4.1: the first sample sets RTTVAR = R/(2K) = R/8 (spec OQ-21).
pub const FIRST_RTTVAR_DIVISOR: u32 = 8;
/// \[S0\] §III: the upper bound on every RTO (FASOR-02 §4.1: a bound, if used, is at least 60 s).
pub const MAX_RTO: Duration = Duration::from_secs(60);
/// FASOR-02 §4.4: the Rexmit-Cnt value of the first request to a new endpoint ("original
/// transmission; tell me whether you echo the option"). Used by the endpoint, not here.
pub const REXMIT_CNT_FIRST_CONTACT: u8 = 255;

/// Configuration of FASOR. `Default` is FASOR-02 without the Rexmit-Cnt option (CLI name
/// `fasor`); [`FasorConfig::token`] enables echoes (`fasor-token`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct FasorConfig {
    /// INITIAL_RTO: FastRTO before the first unambiguous sample.
    #[cfg_attr(feature = "serde", serde(rename = "initial_rto_ms", with = "crate::config::serde_ms"))]
    pub initial_rto: Duration,
    /// RFC 6298 variance multiplier K of FastRTO (4).
    pub k: u32,
    /// RFC 6298 SRTT gain α (1/8).
    pub alpha: Ratio,
    /// RFC 6298 RTTVAR gain β (1/4).
    pub beta: Ratio,
    /// On the first sample R, RTTVAR = R / this (FASOR-02: 2K = 8; RFC 6298: 2).
    pub first_rttvar_divisor: u32,
    /// SLOWRTO_FACTOR (1.5, at least 1).
    pub slow_rto_factor: Ratio,
    /// Upper bound on FastRTO, SlowRTO and every armed timer: at least 60 s (FASOR-02 §4.1),
    /// or `None` ("none") for no bound.
    #[cfg_attr(feature = "serde", serde(rename = "cap_ms", with = "crate::config::serde_opt_ms"))]
    pub cap: Option<Duration>,
    /// MAX_RETRANSMIT (RFC 7252: 4; the paper's testbed used 20).
    pub max_retransmit: u8,
    /// Use echoed transmission counts (token / Rexmit-Cnt variant, spec §7.7). Off: echoes
    /// are ignored.
    pub echo: bool,
    /// Dither FastRTO into [F + SRTT/4, F + SRTT) (spec §7.5). Off: F exactly.
    pub dither: bool,
}

impl Default for FasorConfig {
    fn default() -> Self {
        FasorConfig {
            initial_rto: INITIAL_RTO,
            k: rfc6298::K,
            alpha: rfc6298::ALPHA,
            beta: rfc6298::BETA,
            first_rttvar_divisor: FIRST_RTTVAR_DIVISOR,
            slow_rto_factor: SLOWRTO_FACTOR,
            cap: Some(MAX_RTO),
            max_retransmit: MAX_RETRANSMIT,
            echo: false,
            dither: true,
        }
    }
}

impl FasorConfig {
    /// FASOR+token / Rexmit-Cnt (spec §7.7): echoed transmission counts give samples after
    /// retransmissions, and the FastRTO base is max(RTO, previous sample).
    pub fn token() -> Self {
        FasorConfig { echo: true, ..Default::default() }
    }
}

/// The three backoff states of FASOR-02 §4.3.2 (from least to most conservative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackoffState {
    /// FAST (the pseudocode's NORMAL_RTO): F, 2F, 4F ….
    #[default]
    Fast,
    /// FAST_SLOW_FAST: F, max(S, 2F), 2F, 4F ….
    FastSlowFast,
    /// SLOW_FAST: S, F, 2F, 4F ….
    SlowFast,
}

impl BackoffState {
    /// The state after an ACK that needed retransmissions (FASOR-02 Figure 1, edge "a"),
    /// or after a failed exchange (spec OQ-23).
    pub fn downgraded(self) -> Self {
        match self {
            BackoffState::Fast => BackoffState::FastSlowFast,
            BackoffState::FastSlowFast | BackoffState::SlowFast => BackoffState::SlowFast,
        }
    }
}

/// FASOR's state for one destination (spec §7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FasorState {
    /// FastRTO's RFC 6298 estimator (SRTT, RTTVAR), unset before the first unambiguous sample.
    pub fast: Rfc6298,
    /// FastRTO: the estimator's RTO (INITIAL_RTO before the first sample), capped; undithered.
    pub fast_rto: Nanos,
    /// SlowRTO: SLOWRTO_FACTOR × (ACK − original send) of the latest exchange that needed
    /// retransmissions, capped; `None` until one did.
    pub slow_rto: OptNanos,
    /// The backoff state the next exchange starts in.
    pub backoff: BackoffState,
    /// Token variant only: the RTT sample of the previous exchange, `None` if it gave none
    /// (ambiguous Empty ACK, failure) or without `echo`.
    pub prev_sample: OptNanos,
}

impl FasorState {
    /// The state of a fresh destination: FAST, FastRTO = `initial_rto`, nothing measured.
    pub fn new(initial_rto: Duration) -> Self {
        FasorState {
            fast: Rfc6298::new(),
            fast_rto: Nanos::new(initial_rto),
            slow_rto: OptNanos::NONE,
            backoff: BackoffState::Fast,
            prev_sample: OptNanos::NONE,
        }
    }
}

/// FASOR (or FASOR with echoes), the algorithm: the checked configuration, shared by every
/// destination ([`FasorState`] is per destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fasor {
    config: FasorConfig,
}

/// What FASOR keeps per exchange (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FasorExchange {
    /// The backoff series of the exchange.
    pub series: BackoffState,
    /// The doubling register (the dithered FastRTO base, doubled per FastRTO step, capped).
    pub base: Duration,
    /// The SlowRTO S of the series.
    pub aux: Duration,
}

impl Fasor {
    /// Checks the configuration and builds the controller.
    pub fn new(config: FasorConfig) -> Result<Self, ConfigError> {
        if config.initial_rto.is_zero() {
            return Err(ConfigError::new("initial_rto_ms", "must be greater than 0"));
        }
        if config.k == 0 {
            return Err(ConfigError::new("k", "must be at least 1"));
        }
        if config.alpha.is_zero() || config.alpha > Ratio::ONE {
            return Err(ConfigError::new("alpha", "must be greater than 0 and at most 1"));
        }
        if config.beta.is_zero() || config.beta > Ratio::ONE {
            return Err(ConfigError::new("beta", "must be greater than 0 and at most 1"));
        }
        if config.first_rttvar_divisor == 0 {
            return Err(ConfigError::new("first_rttvar_divisor", "must be at least 1"));
        }
        if config.slow_rto_factor < Ratio::ONE {
            return Err(ConfigError::new("slow_rto_factor", "must be at least 1 (SlowRTO covers the worst-case RTT)"));
        }
        if config.cap.is_some_and(|c| c < MAX_RTO) {
            // FASOR-02 §4.1: "The RTO value MAY be upper-bounded by at least 60 seconds."
            return Err(ConfigError::new("cap_ms", "must be at least 60000 (FASOR-02 §4.1), or \"none\""));
        }
        Ok(Fasor { config })
    }

    /// FastRTO's estimator on its own (the RTT-trace model): RFC 6298 with FASOR's constants,
    /// INITIAL_RTO before the first sample, capped.
    pub fn rto_estimator(&self) -> RtoEstimator {
        RtoEstimator::Rfc6298 {
            est: Rfc6298::new(),
            params: self.params(),
            initial: self.config.initial_rto,
            cap: self.config.cap,
        }
    }

    /// FastRTO's RFC 6298 constants (FASOR-02 §4.1).
    fn params(&self) -> Rfc6298Params {
        Rfc6298Params {
            alpha: self.config.alpha,
            beta: self.config.beta,
            k: self.config.k,
            // FASOR-02 §4.1: no 1 s lower bound; timers are exact to the nanosecond, so G = 0.
            granularity: Duration::ZERO,
            first_rttvar_divisor: self.config.first_rttvar_divisor,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &FasorConfig {
        &self.config
    }

    fn cap(&self, d: Duration) -> Duration {
        match self.config.cap {
            Some(c) => d.min(c),
            None => d,
        }
    }

    /// The undithered FastRTO base of a new series: FastRTO, or with echoes
    /// max(FastRTO, previous RTT sample) (FASOR-02 §4.4).
    fn fast_base(&self, st: &FasorState) -> Duration {
        let f = st.fast_rto.get();
        let f = match (self.config.echo, st.prev_sample.get()) {
            (true, Some(prev)) => f.max(prev),
            _ => f,
        };
        self.cap(f)
    }

    /// The dithered value of `base`: uniform in [base + SRTT/4, base + SRTT) (FASOR-02 §4.1).
    fn dithered(&self, st: &FasorState, base: Duration, rng: &mut dyn Rng) -> Duration {
        if !self.config.dither {
            return base;
        }
        // FASOR-02 §4.1: before the first sample SRTT := INITIAL_RTO/3 (spec §7.5).
        let srtt = st.fast.srtt().unwrap_or_else(|| div(self.config.initial_rto, 3));
        self.cap(uniform(rng, add(base, div(srtt, 4)), add(base, srtt)))
    }

    /// SlowRTO = SLOWRTO_FACTOR × `elapsed`, capped (FASOR-02 §4.2).
    fn slow_rto_from(&self, elapsed: Duration) -> Duration {
        self.cap(self.config.slow_rto_factor.mul_duration(elapsed))
    }

    /// A usable echo: named copy was sent, and was sent between the original and `now`.
    fn echo_sample(&self, now: Instant, ex: &Exchange<FasorExchange>, echo: Option<Echo>) -> Option<Duration> {
        if !self.config.echo {
            return None; // plain FASOR cannot see echoes
        }
        let e = echo?;
        let valid = e.copy <= ex.retransmissions() && e.sent >= ex.first_sent() && e.sent <= now;
        valid.then(|| now.saturating_duration_since(e.sent))
    }
}

impl FasorConfig {
    /// The echo this algorithm needs (spec §7.7): with `echo` (FASOR+token), one extra token
    /// byte numbering each copy, which the server echoes; plain FASOR sees only ambiguous
    /// acknowledgements.
    pub fn echo_mode(&self) -> EchoMode {
        if self.echo { EchoMode::Token } else { EchoMode::None }
    }
}

impl Controller for Fasor {
    type State = FasorState;
    type ExchangeState = FasorExchange;

    fn new_state(&self) -> FasorState {
        FasorState::new(self.config.initial_rto)
    }

    fn on_transmit(
        &self,
        st: &mut FasorState,
        _now: Instant,
        ex: &mut Exchange<FasorExchange>,
        _in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        let k = ex.retransmissions();
        if k == 0 {
            // Spec OQ-25: the series is fixed when the exchange starts. Spec OQ-22: the dither
            // is drawn once, when the FastRTO series is initialised, and then doubled.
            let state = st.backoff;
            let f = self.dithered(st, self.fast_base(st), rng);
            // Spec OQ-22: SlowRTO is not dithered. A SlowRTO that was never measured (only
            // reachable through `set_state`) falls back to the FastRTO base.
            let s = st.slow_rto.get().map_or(f, |s| self.cap(s));
            ex.cc.series = state;
            ex.cc.base = f;
            ex.cc.aux = s;
            return match state {
                // FASOR-02 Appendix A: slowfast_rtoseries case 0 = slowrto.
                BackoffState::SlowFast => s,
                // normal_rtoseries / fastslowfast_rtoseries case 0 = fastrto_series_init().
                BackoffState::Fast | BackoffState::FastSlowFast => f,
            };
        }
        let timer = match (ex.cc.series, k) {
            // FASOR-02 Appendix A: fastslowfast case 1 = MAX(slowrto, 2*fastrto), without
            // touching backoff_series_timer; the dithered F is used (spec OQ-22).
            (BackoffState::FastSlowFast, 1) => ex.cc.aux.max(shl(ex.cc.base, 1)),
            // slowfast case 1 = fastrto_series_init(): the (dithered) FastRTO itself.
            (BackoffState::SlowFast, 1) => ex.cc.base,
            // fastrto_series_backoff(): backoff_series_timer *= 2.
            _ => {
                ex.cc.base = self.cap(shl(ex.cc.base, 1));
                ex.cc.base
            }
        };
        self.cap(timer)
    }

    fn on_timeout(&self, st: &mut FasorState, now: Instant, ex: &mut Exchange<FasorExchange>) -> Retry {
        if ex.retransmissions() < self.config.max_retransmit {
            return Retry::Retransmit;
        }
        // Spec OQ-23: a failed exchange is an ambiguous ACK that does not update SlowRTO:
        // downgrade the state; seed SlowRTO from the elapsed time only if it was never set.
        st.backoff = st.backoff.downgraded();
        if st.slow_rto.is_none() {
            st.slow_rto = Some(self.slow_rto_from(now.saturating_duration_since(ex.first_sent()))).into();
        }
        // FASOR-02 §4.4: no RTT sample from this exchange.
        st.prev_sample = OptNanos::NONE;
        Retry::GiveUp
    }

    fn on_ack(&self, st: &mut FasorState, now: Instant, ex: &Exchange<FasorExchange>, ack: &Ack) {
        let since_original = now.saturating_duration_since(ex.first_sent());
        let retransmitted = ex.retransmissions() > 0;
        // FASOR-02 §4.1: FastRTO takes only unambiguous samples; with echoes the sample of the
        // named copy is unambiguous (FASOR-02 §4.4, spec OQ-26).
        let sample = self.echo_sample(now, ex, ack.echo).or((!retransmitted).then_some(since_original));
        if let Some(r) = sample {
            let params = self.params();
            st.fast.sample(r, &params);
            st.fast_rto = Nanos::new(self.cap(st.fast.rto(&params).unwrap_or(r)));
        }
        if self.config.echo {
            // FASOR-02 §4.4: the base of the next series uses this exchange's sample, if any.
            st.prev_sample = sample.into();
        }
        if retransmitted {
            // FASOR-02 §4.2: SlowRTO from the original send, in any state; Figure 1 edge "a".
            // Spec OQ-26: also when an echo disambiguated the sample.
            st.slow_rto = Some(self.slow_rto_from(since_original)).into();
            st.backoff = st.backoff.downgraded();
        } else {
            // FASOR-02 Figure 1 edge "b": an unambiguous ACK returns to FAST from any state.
            st.backoff = BackoffState::Fast;
        }
    }

    /// The undithered timer of the next original transmission: SlowRTO in SLOW_FAST, else the
    /// FastRTO base (with echoes max(FastRTO, previous sample)).
    fn rto(&self, st: &FasorState, _now: Instant) -> Option<Duration> {
        let base = self.fast_base(st);
        Some(match st.backoff {
            BackoffState::SlowFast => st.slow_rto.get().map_or(base, |s| self.cap(s)),
            BackoffState::Fast | BackoffState::FastSlowFast => base,
        })
    }

    fn timer_bounds(&self) -> TimerBounds {
        // No lower bound on FastRTO (FASOR-02 §4.1): a zero RTT gives a zero timer.
        TimerBounds { min: Duration::ZERO, max: self.config.cap.unwrap_or(from_nanos(u64::MAX)) }
    }

    fn echo_mode(&self) -> EchoMode {
        self.config.echo_mode()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;
    use crate::harness::testing::ms;
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn fasor(config: FasorConfig) -> Bound<Fasor> {
        Bound::new(Fasor::new(config).unwrap())
    }

    fn undithered() -> Script<Fasor> {
        Script::new(fasor(FasorConfig { dither: false, ..Default::default() }))
    }

    fn undithered_token() -> Script<Fasor> {
        Script::new(fasor(FasorConfig { dither: false, ..FasorConfig::token() }))
    }

    /// A state after the first sample R = 0.5 s (spec §13 vector 5).
    fn after_half_second(backoff: BackoffState, slow_rto: Option<Duration>) -> FasorState {
        FasorState {
            fast: Rfc6298::with(ms(500), Duration::from_micros(62_500)),
            fast_rto: ms(750).into(),
            slow_rto: slow_rto.into(),
            backoff,
            prev_sample: OptNanos::NONE,
        }
    }

    fn last_timers_ms(s: &Script<Fasor>, n: usize) -> std::vec::Vec<u64> {
        let t = s.timers_ns();
        t[t.len() - n..]
            .iter()
            .map(|ns| {
                assert_eq!(ns % 1_000_000, 0, "{ns} ns is not a whole number of milliseconds");
                ns / 1_000_000
            })
            .collect()
    }

    // ---- §13 vector 5 ----------------------------------------------------------------

    #[test]
    fn a_first_unambiguous_sample_of_500_ms_gives_srtt_500_rttvar_62_5_and_fast_rto_750_ms() {
        // Spec §13 vector 5, OQ-21 (RTTVAR = R/8).
        let mut s = undithered();
        s.send();
        s.wait_ms(500);
        s.ack();
        let st = s.state();
        assert_eq!(st.fast, Rfc6298::with(ms(500), Duration::from_micros(62_500)));
        assert_eq!(st.fast_rto, ms(750));
        assert_eq!(st.backoff, BackoffState::Fast);
        assert_eq!(st.slow_rto, None);
        assert_eq!(s.rto_ms(), Some(750));
    }

    #[test]
    fn one_retransmission_acked_1_4_s_after_the_original_gives_slow_rto_2_1_s_and_fast_slow_fast() {
        // Spec §13 vector 5: F = 0.75 s, copies at 0 and 0.75 s, ACK at 1.4 s.
        let mut s = undithered();
        s.set_state(after_half_second(BackoffState::Fast, None));
        s.send();
        s.wait_ms(1400);
        s.ack();
        assert_eq!(s.timers_ms(), [750, 1500]);
        let st = s.state();
        assert_eq!(st.slow_rto, Some(ms(2100)));
        assert_eq!(st.backoff, BackoffState::FastSlowFast);
        assert_eq!(st.fast_rto, ms(750), "an ambiguous ACK leaves FastRTO alone");
        assert_eq!(st.fast, Rfc6298::with(ms(500), Duration::from_micros(62_500)));
    }

    #[test]
    fn in_fast_slow_fast_the_timers_are_0_75_2_1_1_5_3_and_6_s() {
        // Spec §13 vector 5 and §7.4: the Slow step does not touch the doubling register.
        let mut s = undithered();
        s.set_state(after_half_second(BackoffState::FastSlowFast, Some(ms(2100))));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [750, 2100, 1500, 3000, 6000]);
        assert_eq!(s.transmit_times_ms(), [0, 750, 2850, 4350, 7350]);
        assert_eq!(s.give_up_ms(), Some(13_350));
    }

    #[test]
    fn the_whole_vector_5_sequence_runs_from_a_fresh_destination() {
        // Spec §13 vector 5 end to end: R = 0.5; one retransmission, ACK at 1.4 s; next
        // exchange in FAST_SLOW_FAST; its ACK after a retransmission (at 1.2 s) gives
        // S' = 1.8 s and SLOW_FAST: S', 0.75, 1.5, 3.0; then a clean ACK gives FAST.
        let mut s = undithered();
        s.send();
        s.wait_ms(500);
        s.ack();
        s.send();
        s.wait_ms(1400);
        s.ack();
        assert_eq!(s.state().backoff, BackoffState::FastSlowFast);
        s.send();
        s.wait_ms(1200);
        s.ack();
        assert_eq!(last_timers_ms(&s, 2), [750, 2100]);
        assert_eq!(s.state().slow_rto, Some(ms(1800)));
        assert_eq!(s.state().backoff, BackoffState::SlowFast);
        s.send();
        s.wait_ms(1800 + 750 + 1500 + 100); // copies at 0, 1.8, 2.55, 4.05 s
        assert_eq!(last_timers_ms(&s, 4), [1800, 750, 1500, 3000]);
        s.ack();
        assert_eq!(s.state().backoff, BackoffState::SlowFast);
        s.send();
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.state().backoff, BackoffState::Fast);
    }

    #[test]
    fn the_initial_timer_is_dithered_within_2_1667_and_2_6667_s() {
        // Spec §13 vector 5 / §7.5: SRTT := 2/3 s before any sample.
        for seed in 0..300 {
            let mut c = fasor(FasorConfig::default());
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let ex = c.start(Instant::ZERO, 0, &mut rng);
            let t = ex.timer().as_nanos();
            assert!((2_166_666_666..2_666_666_666).contains(&t), "{t}");
        }
    }

    #[test]
    fn after_a_500_ms_sample_the_armed_timer_lies_in_0_875_to_1_25_s() {
        // Spec §7.5 example.
        let mut c = fasor(FasorConfig::default());
        c.set_state(after_half_second(BackoffState::Fast, None));
        let mut seen_low = false;
        let mut seen_high = false;
        for seed in 0..500 {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let t = c.start(Instant::ZERO, 0, &mut rng).timer();
            assert!(t >= ms(875) && t < ms(1250), "{t:?}");
            seen_low |= t < ms(950);
            seen_high |= t > ms(1175);
        }
        assert!(seen_low && seen_high, "the whole window is used");
    }

    // ---- transitions -------------------------------------------------------------------

    #[test]
    fn a_clean_ack_returns_to_fast_from_every_state() {
        for from in [BackoffState::Fast, BackoffState::FastSlowFast, BackoffState::SlowFast] {
            let mut s = undithered();
            s.set_state(after_half_second(from, Some(ms(2100))));
            s.send();
            s.wait_ms(300);
            s.ack();
            assert_eq!(s.state().backoff, BackoffState::Fast, "from {from:?}");
            assert_eq!(s.state().slow_rto, Some(ms(2100)), "a clean ACK keeps SlowRTO");
        }
    }

    #[test]
    fn an_ambiguous_ack_downgrades_fast_to_fast_slow_fast_to_slow_fast_and_slow_fast_stays() {
        for (from, to) in [
            (BackoffState::Fast, BackoffState::FastSlowFast),
            (BackoffState::FastSlowFast, BackoffState::SlowFast),
            (BackoffState::SlowFast, BackoffState::SlowFast),
        ] {
            let mut s = undithered();
            s.set_state(after_half_second(from, Some(ms(900))));
            s.send();
            s.wait_ms(1000); // every series retransmits once before 1 s (first timer ≤ 0.9 s)
            s.ack();
            assert_eq!(s.state().backoff, to, "from {from:?}");
            assert_eq!(s.state().slow_rto, Some(ms(1500)), "SlowRTO = 1.5 × 1 s");
        }
    }

    #[test]
    fn in_slow_fast_the_timers_are_s_then_0_75_1_5_3_and_6_s() {
        let mut s = undithered();
        s.set_state(after_half_second(BackoffState::SlowFast, Some(ms(1800))));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [1800, 750, 1500, 3000, 6000]);
    }

    #[test]
    fn in_fast_the_timers_are_f_2f_4f_8f_16f() {
        let mut s = undithered();
        s.set_state(after_half_second(BackoffState::Fast, Some(ms(5000))));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [750, 1500, 3000, 6000, 12000]);
    }

    #[test]
    fn fast_slow_fast_uses_2f_when_it_exceeds_slow_rto() {
        let mut s = undithered();
        s.set_state(after_half_second(BackoffState::FastSlowFast, Some(ms(1000))));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [750, 1500, 1500, 3000, 6000]);
    }

    #[test]
    fn slow_rto_is_measured_from_the_original_after_several_retransmissions() {
        let mut s = undithered();
        s.set_state(after_half_second(BackoffState::Fast, None));
        s.send();
        s.wait_ms(5000); // copies at 0, 0.75, 2.25 s (timers 0.75, 1.5, 3)
        s.ack();
        assert_eq!(s.state().slow_rto, Some(ms(7500)));
    }

    #[test]
    fn the_series_of_an_exchange_is_fixed_when_it_starts() {
        // Spec OQ-25: a state change while an exchange is outstanding does not alter its series.
        let mut c = fasor(FasorConfig { dither: false, ..Default::default() });
        c.set_state(after_half_second(BackoffState::Fast, None));
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut a = c.start(Instant::ZERO, 0, &mut rng);
        let b = c.start(Instant::from_millis(10), 1, &mut rng);
        // b is acknowledged clean with R = 0.1 s: FastRTO changes, state stays FAST.
        c.on_ack(Instant::from_millis(110), &b, &Ack::AMBIGUOUS);
        assert_ne!(c.state().fast_rto, ms(750));
        c.set_state(FasorState { backoff: BackoffState::SlowFast, slow_rto: Some(ms(9000)).into(), ..c.state() });
        assert_eq!(c.on_timeout(Instant::from_millis(750), &mut a), Retry::Retransmit);
        assert_eq!(c.retransmit(Instant::from_millis(750), &mut a, &mut rng), ms(1500));
        assert_eq!(c.on_timeout(Instant::from_millis(2250), &mut a), Retry::Retransmit);
        assert_eq!(c.retransmit(Instant::from_millis(2250), &mut a, &mut rng), ms(3000));
    }

    // ---- dithering ---------------------------------------------------------------------

    #[test]
    fn the_dither_is_drawn_once_and_doubled() {
        // Spec OQ-22.
        let mut s = Script::new(fasor(FasorConfig::default()));
        s.set_state(after_half_second(BackoffState::Fast, None));
        s.send();
        s.wait_ms(10_000);
        let t = s.timers_ns();
        assert!((875_000_000..1_250_000_000).contains(&t[0]));
        assert_eq!(t[1], 2 * t[0]);
        assert_eq!(t[2], 4 * t[0]);
    }

    #[test]
    fn fast_slow_fast_uses_the_dithered_f_inside_max_s_2f() {
        // Spec OQ-22: 2F_d ∈ [1.75, 2.5) s beats S = 1.6 s; S = 3 s beats 2F_d.
        let mut s = Script::new(fasor(FasorConfig::default()));
        s.set_state(after_half_second(BackoffState::FastSlowFast, Some(ms(1600))));
        s.send();
        s.wait_ms(30_000);
        let t = s.timers_ns();
        assert_eq!(t[1], 2 * t[0]);
        assert_eq!(t[2], 2 * t[0], "the register is still F_d before the third copy");

        let mut s = Script::new(fasor(FasorConfig::default()));
        s.set_state(after_half_second(BackoffState::FastSlowFast, Some(ms(3000))));
        s.send();
        s.wait_ms(30_000);
        let t = s.timers_ns();
        assert_eq!(t[1], 3_000_000_000);
        assert_eq!(t[2], 2 * t[0]);
    }

    #[test]
    fn slow_rto_is_armed_undithered_and_the_fast_steps_after_it_are_dithered() {
        let mut s = Script::new(fasor(FasorConfig::default()));
        s.set_state(after_half_second(BackoffState::SlowFast, Some(ms(1800))));
        s.send();
        s.wait_ms(10_000);
        let t = s.timers_ns();
        assert_eq!(t[0], 1_800_000_000);
        assert!((875_000_000..1_250_000_000).contains(&t[1]), "{}", t[1]);
        assert_eq!(t[2], 2 * t[1]);
    }

    #[test]
    fn without_dithering_the_initial_timer_is_exactly_2_s() {
        let mut s = undithered();
        s.send();
        assert_eq!(s.timers_ms(), [2000]);
    }

    // ---- cap ---------------------------------------------------------------------------

    #[test]
    fn every_backed_off_timer_is_capped_at_60_s() {
        let mut s = Script::new(fasor(FasorConfig { dither: false, max_retransmit: 6, ..Default::default() }));
        s.set_state(FasorState { fast_rto: ms(20_000).into(), ..FasorState::new(INITIAL_RTO) });
        s.send();
        s.wait_ms(1_000_000);
        assert_eq!(s.timers_ms(), [20_000, 40_000, 60_000, 60_000, 60_000, 60_000, 60_000]);
    }

    #[test]
    fn slow_rto_and_fast_rto_are_capped_at_60_s() {
        let mut s = Script::new(fasor(FasorConfig { dither: false, max_retransmit: 20, ..Default::default() }));
        s.send();
        s.wait_ms(50_000); // copies at 0, 2, 6, 14, 30 s
        s.ack();
        assert_eq!(s.state().slow_rto, Some(MAX_RTO), "1.5 × 50 s = 75 s → 60 s");

        // An initial RTO of 120 s is armed as 60 s; a clean R = 59 s gives 59 + 4 × 7.375 s → 60 s.
        let mut s = Script::new(fasor(FasorConfig { dither: false, initial_rto: ms(120_000), ..Default::default() }));
        assert_eq!(s.rto_ms(), Some(60_000));
        s.send();
        assert_eq!(s.timers_ms(), [60_000]);
        s.wait_ms(59_000);
        s.ack();
        assert_eq!(s.state().fast_rto, MAX_RTO);
    }

    #[test]
    fn without_a_cap_timers_keep_doubling() {
        let mut s =
            Script::new(fasor(FasorConfig { dither: false, cap: None, max_retransmit: 8, ..Default::default() }));
        s.send();
        s.wait_ms(10_000_000);
        assert_eq!(s.timers_ms().last(), Some(&512_000));
        assert_eq!(s.alg().timer_bounds().max, from_nanos(u64::MAX));
    }

    #[test]
    fn a_cap_below_60_s_is_rejected() {
        let err = Fasor::new(FasorConfig { cap: Some(ms(59_999)), ..Default::default() }).unwrap_err();
        assert_eq!(err.key, "cap_ms");
        assert!(Fasor::new(FasorConfig { cap: Some(ms(120_000)), ..Default::default() }).is_ok());
    }

    #[test]
    fn out_of_range_keys_are_rejected_by_name() {
        let bad = [
            (FasorConfig { initial_rto: Duration::ZERO, ..Default::default() }, "initial_rto_ms"),
            (FasorConfig { k: 0, ..Default::default() }, "k"),
            (FasorConfig { alpha: Ratio::ZERO, ..Default::default() }, "alpha"),
            (FasorConfig { alpha: Ratio::new(3, 2), ..Default::default() }, "alpha"),
            (FasorConfig { beta: Ratio::ZERO, ..Default::default() }, "beta"),
            (FasorConfig { first_rttvar_divisor: 0, ..Default::default() }, "first_rttvar_divisor"),
            (FasorConfig { slow_rto_factor: Ratio::new(9, 10), ..Default::default() }, "slow_rto_factor"),
        ];
        for (config, key) in bad {
            assert_eq!(Fasor::new(config).unwrap_err().key, key);
        }
    }

    // ---- failed exchange, give-up ------------------------------------------------------

    #[test]
    fn a_failed_exchange_in_fast_seeds_slow_rto_from_the_elapsed_time_capped() {
        // Spec OQ-23: copies at 0, 2, 6, 14, 30 s; give-up at 62 s; 1.5 × 62 s → 60 s.
        let mut s = undithered();
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.give_up_ms(), Some(62_000));
        let st = s.state();
        assert_eq!(st.backoff, BackoffState::FastSlowFast);
        assert_eq!(st.slow_rto, Some(MAX_RTO));
        assert_eq!(st.fast_rto, INITIAL_RTO);
    }

    #[test]
    fn a_failed_exchange_with_an_uncapped_elapsed_time_seeds_slow_rto_at_1_5_times_it() {
        let mut s = undithered();
        s.set_state(after_half_second(BackoffState::Fast, None));
        s.send();
        s.wait_ms(100_000); // 0.75 + 1.5 + 3 + 6 + 12 = 23.25 s
        assert_eq!(s.give_up_ms(), Some(23_250));
        assert_eq!(s.state().slow_rto, Some(Duration::from_micros(34_875_000)));
    }

    #[test]
    fn a_failed_exchange_downgrades_the_state_and_keeps_slow_rto() {
        for (from, to) in
            [(BackoffState::FastSlowFast, BackoffState::SlowFast), (BackoffState::SlowFast, BackoffState::SlowFast)]
        {
            let mut s = undithered();
            s.set_state(after_half_second(from, Some(ms(2100))));
            s.send();
            s.wait_ms(100_000);
            assert!(s.give_up_ms().is_some());
            assert_eq!(s.state().backoff, to);
            assert_eq!(s.state().slow_rto, Some(ms(2100)));
        }
    }

    #[test]
    fn give_up_comes_after_exactly_max_retransmit_retransmissions() {
        for max_retransmit in [0u8, 1, 4, 20] {
            let mut s = Script::new(fasor(FasorConfig { dither: false, max_retransmit, ..Default::default() }));
            s.set_state(after_half_second(BackoffState::Fast, None));
            s.send();
            s.wait_ms(10_000_000);
            assert_eq!(s.timers_ms().len(), usize::from(max_retransmit) + 1);
            assert!(s.give_up_ms().is_some());
        }
    }

    #[test]
    fn on_timeout_retransmits_until_the_limit() {
        let mut c = fasor(FasorConfig::default());
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let mut ex = c.start(Instant::ZERO, 0, &mut rng);
        for _ in 0..4 {
            assert_eq!(c.on_timeout(ex.deadline(), &mut ex), Retry::Retransmit);
            let at = ex.deadline();
            c.retransmit(at, &mut ex, &mut rng);
        }
        assert_eq!(c.on_timeout(ex.deadline(), &mut ex), Retry::GiveUp);
    }

    // ---- token / Rexmit-Cnt ------------------------------------------------------------

    #[test]
    fn an_echo_of_a_retransmission_feeds_fast_rto_and_still_downgrades() {
        // Spec §7.7, OQ-26: copies at 0 and 2 s, ACK of copy 1 at 2.5 s → R = 0.5 s;
        // SlowRTO from the original = 1.5 × 2.5 s.
        let mut s = undithered_token();
        s.send();
        s.wait_ms(2500);
        s.ack_copy(1);
        let st = s.state();
        assert_eq!(st.fast_rto, ms(750));
        assert_eq!(st.fast, Rfc6298::with(ms(500), Duration::from_micros(62_500)));
        assert_eq!(st.backoff, BackoffState::FastSlowFast);
        assert_eq!(st.slow_rto, Some(ms(3750)));
        assert_eq!(st.prev_sample, Some(ms(500)));
    }

    #[test]
    fn an_echo_of_the_original_after_a_retransmission_samples_from_the_original() {
        let mut s = undithered_token();
        s.send();
        s.wait_ms(2500);
        s.ack_copy(0);
        assert_eq!(s.state().fast, Rfc6298::with(ms(2500), Duration::from_micros(312_500)));
        assert_eq!(s.state().fast_rto, ms(3750));
    }

    #[test]
    fn plain_fasor_ignores_echoes() {
        let mut s = undithered();
        s.send();
        s.wait_ms(2500);
        s.ack_copy(1);
        let st = s.state();
        assert_eq!(st.fast, Rfc6298::new());
        assert_eq!(st.fast_rto, INITIAL_RTO);
        assert_eq!(st.prev_sample, None);
    }

    #[test]
    fn with_echoes_the_fast_base_is_the_previous_sample_when_it_exceeds_fast_rto() {
        // FASOR-02 §4.4: base = max(RTO, Previous-RTT-Sample).
        let mut s = undithered_token();
        s.set_state(FasorState { prev_sample: Some(ms(1000)).into(), ..after_half_second(BackoffState::Fast, None) });
        assert_eq!(s.rto_ms(), Some(1000));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [1000, 2000, 4000, 8000, 16000]);
    }

    #[test]
    fn with_echoes_a_smaller_previous_sample_leaves_fast_rto_as_the_base() {
        let mut s = undithered_token();
        s.set_state(FasorState { prev_sample: Some(ms(400)).into(), ..after_half_second(BackoffState::Fast, None) });
        s.send();
        assert_eq!(s.timers_ms(), [750]);
    }

    #[test]
    fn with_k_1_a_jump_in_rtt_makes_the_echoed_sample_the_base() {
        // K = 1: R = 0.5 → RTO 0.5625; then R = 1.5 → SRTT 0.625, RTTVAR 0.296875,
        // RTO 0.921875 < 1.5: the next series starts from 1.5 s; S = 1.5 × 1.5 s.
        let mut s = Script::new(fasor(FasorConfig { dither: false, k: 1, ..FasorConfig::token() }));
        s.send();
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.state().fast_rto, Duration::from_micros(562_500));
        s.send();
        s.wait_ms(1500);
        s.ack_copy(0);
        assert_eq!(s.state().fast_rto, Duration::from_micros(921_875));
        assert_eq!(s.state().slow_rto, Some(ms(2250)));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(last_timers_ms(&s, 5), [1500, 3000, 3000, 6000, 12000]);
    }

    #[test]
    fn an_ambiguous_ack_after_retransmissions_clears_the_previous_sample() {
        let mut s = undithered_token();
        s.set_state(FasorState { prev_sample: Some(ms(1000)).into(), ..after_half_second(BackoffState::Fast, None) });
        s.send();
        s.wait_ms(1500);
        s.ack(); // Empty ACK: no echo
        assert_eq!(s.state().prev_sample, None);
        assert_eq!(s.state().fast_rto, ms(750));
        assert_eq!(s.rto_ms(), Some(750));
    }

    #[test]
    fn an_echo_of_a_copy_that_was_not_sent_or_sent_later_is_ignored() {
        let mut c = fasor(FasorConfig { dither: false, ..FasorConfig::token() });
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let ex = c.start(Instant::ZERO, 0, &mut rng);
        let now = Instant::from_millis(400);
        let bogus = Ack { echo: Some(Echo { copy: 3, sent: Instant::ZERO }) };
        c.on_ack(now, &ex, &bogus);
        // Falls back to the unambiguous sample of an exchange without retransmissions.
        assert_eq!(c.state().fast.srtt(), Some(ms(400)));
        let mut c2 = fasor(FasorConfig { dither: false, ..FasorConfig::token() });
        let mut ex2 = c2.start(Instant::ZERO, 0, &mut rng);
        assert_eq!(c2.on_timeout(Instant::from_millis(2000), &mut ex2), Retry::Retransmit);
        c2.retransmit(Instant::from_millis(2000), &mut ex2, &mut rng);
        let future = Ack { echo: Some(Echo { copy: 1, sent: Instant::from_millis(9000) }) };
        c2.on_ack(Instant::from_millis(2500), &ex2, &future);
        assert_eq!(c2.state().fast.srtt(), None);
        assert_eq!(c2.state().backoff, BackoffState::FastSlowFast);
    }

    #[test]
    fn with_echoes_the_dither_is_added_to_the_previous_sample_base() {
        let mut s = Script::new(fasor(FasorConfig::token()));
        s.set_state(FasorState { prev_sample: Some(ms(1000)).into(), ..after_half_second(BackoffState::Fast, None) });
        s.send();
        let t = s.timers_ns()[0];
        assert!((1_125_000_000..1_500_000_000).contains(&t), "{t}");
    }

    // ---- rto() and robustness ----------------------------------------------------------

    #[test]
    fn rto_reports_the_timer_of_the_next_original() {
        let mut c = fasor(FasorConfig::default());
        assert_eq!(c.rto(Instant::ZERO), Some(INITIAL_RTO));
        c.set_state(after_half_second(BackoffState::FastSlowFast, Some(ms(2100))));
        assert_eq!(c.rto(Instant::ZERO), Some(ms(750)));
        c.set_state(after_half_second(BackoffState::SlowFast, Some(ms(2100))));
        assert_eq!(c.rto(Instant::ZERO), Some(ms(2100)));
    }

    #[test]
    fn a_second_sample_uses_the_rttvar_of_r_over_8() {
        // OQ-21: R = 0.5 twice → RTTVAR = 3/4 × 62.5 ms, RTO = 0.5 + 4 × 46.875 ms = 0.6875 s.
        let mut s = undithered();
        for _ in 0..2 {
            s.send();
            s.wait_ms(500);
            s.ack();
        }
        assert_eq!(s.state().fast_rto, Duration::from_micros(687_500));
    }

    #[test]
    fn the_rfc_6298_first_rttvar_divisor_is_an_option() {
        let mut s = Script::new(fasor(FasorConfig { dither: false, first_rttvar_divisor: 2, ..Default::default() }));
        s.send();
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.state().fast_rto, ms(1500));
    }

    #[test]
    fn zero_rtts_and_a_clock_ten_days_ahead_do_not_panic() {
        let mut c = fasor(FasorConfig { max_retransmit: 255, cap: None, ..FasorConfig::token() });
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        let ex = c.start(Instant::ZERO, 0, &mut rng);
        c.on_ack(Instant::ZERO, &ex, &Ack { echo: Some(Echo { copy: 0, sent: Instant::ZERO }) });
        assert_eq!(c.state().fast_rto, Duration::ZERO);
        let mut ex = c.start(Instant::ZERO, 0, &mut rng);
        assert_eq!(ex.timer(), Duration::ZERO);
        let far = Instant::from_millis(10 * 86_400_000);
        while c.on_timeout(far, &mut ex) == Retry::Retransmit {
            c.retransmit(far, &mut ex, &mut rng);
        }
        c.on_ack(Instant::MAX, &ex, &Ack::AMBIGUOUS);
        let ex = c.start(Instant::MAX, 0, &mut rng);
        let b = c.timer_bounds();
        assert!(ex.timer() >= b.min && ex.timer() <= b.max);
        c.set_state(FasorState { fast_rto: from_nanos(u64::MAX).into(), ..c.state() });
        let mut ex = c.start(Instant::MAX, 0, &mut rng);
        c.on_timeout(Instant::MAX, &mut ex);
        c.retransmit(Instant::MAX, &mut ex, &mut rng);
        assert!(c.rto(Instant::MAX).is_some());
    }

    #[test]
    fn fasors_state_estimator_fastrto_slowrto_previous_sample_backoff_state_fits_48_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<Fasor as Controller>::State>();
        assert!(bytes <= 48, "{bytes} bytes");
    }
}
