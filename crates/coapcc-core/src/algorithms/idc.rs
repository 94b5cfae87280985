//! IDC-CoAP: Increase/Decrease spacing (Makarem et al., Computer Networks 207, 2022 \[S1\],
//! §5.2.1 Algorithm 3; spec §8.2, OQ-29, OQ-30).
//!
//! A stop-and-wait sender whose next transmission (new message or retransmission) may leave
//! only `spacing` after the previous one. Losses detected by the [Makarem RTO](crate::estimators::makarem)
//! (never backed off) multiply the spacing by `iw`; ACKs shrink it by `dw`, or by `fw` once it
//! is below the spacing of the last loss (fast recovery towards a bandwidth that opened up).
//!
//! # When each step happens
//!
//! * [`Controller::on_transmit`] (every copy, original or retransmission): records
//!   `last_send_time ← now` and arms the current RTO, undithered and not backed off
//!   (spec OQ-30: each copy is timed from its own send).
//! * [`Controller::on_ack`] (\[S1\] Algorithm 3 lines 2–7, 12): `spacing ← spacing − dw·spacing`
//!   if `spacing ≥ loss_spacing`, else `spacing ← spacing − fw·spacing`; then
//!   `spacing ← max(spacing, now − last_send_time)`. The ACK's RTT sample updates the RTO.
//! * [`Controller::on_timeout`] (lines 8–12, also for the expiry that ends in a give-up):
//!   `loss_spacing ← spacing; spacing ← iw·spacing; spacing ← max(spacing, now − last_send_time)`.
//! * [`Controller::earliest_send`] (line 13): `last_send_time + spacing`, for the next new
//!   message and for a retransmission alike; the driver sends at the later of that and now.
//!
//! Initial values (spec OQ-29): `spacing₀ = 0` (the first message leaves at once; the first
//! ACK's max() rule lifts the spacing to the RTT) and `loss_spacing₀ = 0` (slow `dw` decrease
//! until the first loss); `fast_start` sets `loss_spacing₀ = +∞` instead. Give-up after
//! `max_retransmit` (r = 4) retransmissions. \[S1\] has no bound on the spacing; `max_spacing_ms`
//! is an option (default none).
//!
//! No dithering: \[S1\] arms the plain RTO. The `dither` key exists for uniformity and is
//! ignored (`true` behaves like `false`).
//!
//! [`Idc`] is the algorithm (the checked configuration and the estimator constants), shared
//! by every destination; [`IdcState`] is what one destination keeps; nothing is kept per
//! exchange.

use core::time::Duration;

use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use crate::estimators::makarem::{self, MakaremRto, MakaremRtoParams, SampleSource};
use crate::params::MAX_RETRANSMIT;
use crate::random::Rng;
use crate::ratio::Ratio;
use crate::time::{Instant, Nanos, OptNanos};

/// \[S1\] §5.2.1: incremental weight iw = 1.5 (recommended trade-off, used in Cooja).
pub const IW: Ratio = Ratio::new(3, 2);
/// \[S1\] §6.2: the alternative incremental weight iw = 1.1 (higher goodput, more losses).
pub const IW_1_1: Ratio = Ratio::new(11, 10);
/// \[S1\] §5.2.1: decremental weight dw = 0.01.
pub const DW: Ratio = Ratio::new(1, 100);
/// \[S1\] §5.2.1: fast decremental weight fw = 0.5.
pub const FW: Ratio = Ratio::new(1, 2);

crate::estimators::makarem::config_with_makarem_rto! {
    /// Configuration of IDC-CoAP. `Default` is \[S1\]'s values (iw = 1.5).
    pub struct IdcConfig {
        /// Incremental weight iw (≥ 1): the spacing is multiplied by it on each RTO expiry.
        pub iw: Ratio,
        /// Decremental weight dw (≤ 1): slow decrease on an ACK while spacing ≥ loss_spacing.
        pub dw: Ratio,
        /// Fast decremental weight fw (≤ 1): decrease on an ACK while spacing < loss_spacing.
        pub fw: Ratio,
        /// spacing₀ (spec OQ-29: 0).
        #[serde(rename = "initial_spacing_ms", with = "crate::config::serde_ms")]
        pub initial_spacing: Duration,
        /// loss_spacing₀ = +∞ instead of 0 (spec OQ-29 option "fast start": `fw` decreases until
        /// the first loss).
        pub fast_start: bool,
        /// Upper bound on the spacing (not in \[S1\]; `None` = unbounded).
        #[serde(rename = "max_spacing_ms", with = "crate::config::serde_opt_ms")]
        pub max_spacing: Option<Duration>,
        /// Which RTT samples feed the RTO (spec OQ-28).
        pub samples: SampleSource,
        /// r: retransmissions before the message is given up (\[S1\]: 4).
        pub max_retransmit: u8,
        /// Accepted and ignored: IDC-CoAP never dithers (see the module docs).
        pub dither: bool,
    }
}

impl Default for IdcConfig {
    fn default() -> Self {
        IdcConfig {
            iw: IW,
            dw: DW,
            fw: FW,
            initial_spacing: Duration::ZERO,
            fast_start: false,
            max_spacing: None,
            samples: SampleSource::Exact,
            max_retransmit: MAX_RETRANSMIT,
            rto: MakaremRtoParams::default(),
            dither: false,
        }
    }
}

impl IdcConfig {
    /// \[S1\] §6.2: iw = 1.1, better goodput than iw = 1.5 when the bandwidth varies little.
    pub fn iw_1_1() -> Self {
        IdcConfig { iw: IW_1_1, ..Default::default() }
    }

    /// The RTO estimator's constants.
    pub fn rto_params(&self) -> MakaremRtoParams {
        self.rto
    }
}

/// The state of IDC-CoAP for one destination, kept compactly: durations in 8-byte
/// [`Nanos`]/[`OptNanos`], the latest departure as an [`Instant`] with a flag (64 bytes, of
/// which the Makarem estimator is 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdcState {
    /// Minimum time between the departures of two successive copies (any exchange).
    pub spacing: Nanos,
    /// The spacing at the latest RTO expiry ("congestion level"); `None` stands for +∞
    /// (fast start before the first loss).
    pub loss_spacing: OptNanos,
    /// When the latest copy left (valid when `sent`; see [`IdcState::last_send_time`]).
    last_send: Instant,
    /// Whether a copy has left.
    sent: bool,
    /// The Makarem RTO estimator.
    pub rto: MakaremRto,
}

impl IdcState {
    /// When the latest copy left; `None` before the first transmission.
    pub fn last_send_time(&self) -> Option<Instant> {
        self.sent.then_some(self.last_send)
    }

    /// Sets when the latest copy left (`None`: nothing sent yet).
    pub fn set_last_send_time(&mut self, at: Option<Instant>) {
        self.sent = at.is_some();
        self.last_send = at.unwrap_or(Instant::ZERO);
    }
}

/// IDC-CoAP, the algorithm: the checked configuration and its estimator constants, shared
/// by every destination ([`IdcState`] is per destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Idc {
    config: IdcConfig,
    params: MakaremRtoParams,
}

impl Idc {
    /// Checks the configuration and builds the controller.
    pub fn new(config: IdcConfig) -> Result<Self, ConfigError> {
        if config.iw < Ratio::ONE {
            return Err(ConfigError::new("iw", "must be at least 1"));
        }
        if config.dw > Ratio::ONE {
            return Err(ConfigError::new("dw", "must be in [0, 1]"));
        }
        if config.fw > Ratio::ONE {
            return Err(ConfigError::new("fw", "must be in [0, 1]"));
        }
        if let Some(max) = config.max_spacing {
            if max.is_zero() {
                return Err(ConfigError::new("max_spacing_ms", "must be greater than 0 (or \"none\")"));
            }
            if config.initial_spacing > max {
                return Err(ConfigError::new("initial_spacing_ms", "must not exceed max_spacing_ms"));
            }
        }
        let params = config.rto_params();
        params.check()?;
        Ok(Idc { config, params })
    }

    /// The configuration.
    pub fn config(&self) -> &IdcConfig {
        &self.config
    }

    /// \[S1\] Algorithm 3 line 12 (`spacing ← max(spacing, now − last_send_time)`: never
    /// schedule in the past), then the optional `max_spacing` bound.
    fn settle(&self, st: &mut IdcState, now: Instant) {
        let since = st.last_send_time().map_or(Duration::ZERO, |t| now - t);
        let spacing = st.spacing.get().max(since);
        st.spacing = Nanos::new(match self.config.max_spacing {
            Some(max) => spacing.min(max),
            None => spacing,
        });
    }
}

impl IdcConfig {
    /// The echo this algorithm needs: the transmission-count option when samples are matched
    /// exactly, "as with a TC option" (spec OQ-28), else none ([`SampleSource::echo_mode`]).
    pub fn echo_mode(&self) -> EchoMode {
        self.samples.echo_mode()
    }
}

impl Controller for Idc {
    type State = IdcState;
    type ExchangeState = ();

    fn new_state(&self) -> IdcState {
        IdcState {
            spacing: Nanos::new(self.config.initial_spacing),
            loss_spacing: if self.config.fast_start { OptNanos::NONE } else { OptNanos::new(Some(Duration::ZERO)) },
            last_send: Instant::ZERO,
            sent: false,
            rto: MakaremRto::new(&self.params),
        }
    }

    fn on_transmit(
        &self,
        st: &mut IdcState,
        now: Instant,
        _ex: &mut Exchange<()>,
        _in_flight: usize,
        _rng: &mut dyn Rng,
    ) -> Duration {
        // [S1] Algorithm 3 line 13: the spacing counts from the latest departure.
        st.set_last_send_time(Some(now));
        // Spec §8.1, OQ-30: the current RTO from this copy's send; no backoff, no dithering.
        st.rto.rto()
    }

    fn on_timeout(&self, st: &mut IdcState, now: Instant, ex: &mut Exchange<()>) -> Retry {
        // [S1] Algorithm 3 lines 9–10: remember the congestion level, increase the spacing.
        st.loss_spacing = OptNanos::new(Some(st.spacing.get()));
        st.spacing = Nanos::new(self.config.iw.mul_duration(st.spacing.get()));
        self.settle(st, now);
        // Spec §8.2: r = 4 retransmissions, then application loss.
        if ex.retransmissions() >= self.config.max_retransmit { Retry::GiveUp } else { Retry::Retransmit }
    }

    fn on_ack(&self, st: &mut IdcState, now: Instant, ex: &Exchange<()>, ack: &Ack) {
        // [S1] Algorithm 3 lines 3–7: slow decrease at or above the last loss point, fast below.
        let s = st.spacing.get();
        let slow = st.loss_spacing.get().is_some_and(|loss| s >= loss);
        let w = if slow { self.config.dw } else { self.config.fw };
        st.spacing = Nanos::new(s.saturating_sub(w.mul_duration(s)));
        self.settle(st, now);
        // Spec §8.1, OQ-27, OQ-28: the RTT sample and the spurious flag of this exchange.
        if let Some(r) = makarem::rtt_sample(self.config.samples, now, ex, ack) {
            st.rto.sample(r, makarem::is_spurious(ex, ack), &self.params);
        }
    }

    fn earliest_send(&self, st: &IdcState, now: Instant) -> Instant {
        // [S1] Algorithm 3 line 13: last_send_time + spacing (the driver takes max with now).
        match st.last_send_time() {
            Some(last) => last + st.spacing.get(),
            None => now,
        }
    }

    fn rto(&self, st: &IdcState, _now: Instant) -> Option<Duration> {
        Some(st.rto.rto())
    }

    fn timer_bounds(&self) -> TimerBounds {
        let p = self.params;
        TimerBounds { min: p.lowest(), max: p.highest() }
    }

    fn echo_mode(&self) -> EchoMode {
        self.config.echo_mode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Event;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;
    use crate::harness::testing::{at, ms};

    fn idc(config: IdcConfig) -> Bound<Idc> {
        Bound::new(Idc::new(config).unwrap())
    }
    /// A controller whose only copy left at 0 ms, and that exchange.
    fn sent_at_zero(config: IdcConfig) -> (Bound<Idc>, Exchange<()>) {
        use rand_core::SeedableRng;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let mut c = idc(config);
        let ex = c.start(at(0), 0, &mut rng);
        (c, ex)
    }
    fn with(ctrl: &mut Bound<Idc>, spacing: u64, loss: Option<u64>) {
        let st = ctrl.state();
        ctrl.set_state(IdcState { spacing: ms(spacing).into(), loss_spacing: loss.map(ms).into(), ..st });
    }

    #[test]
    fn samples_of_0_5_then_0_6_s_give_an_rto_of_1_5_then_1_43125_s() {
        // Spec §13 vector 6 through IDC (replay idc-makarem-rto).
        let mut s = Script::new(idc(IdcConfig::default()));
        s.send();
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1500));
        s.send();
        s.wait_ms(600);
        s.ack();
        assert_eq!(s.rto_ns(), Some(1_431_250_000));
        assert_eq!(s.transmit_times_ms(), [0, 500]);
        assert_eq!(s.timers_ns(), [2_000_000_000, 1_500_000_000]);
    }

    #[test]
    fn an_ack_at_or_above_the_loss_spacing_decreases_the_spacing_by_dw() {
        let (mut c, ex) = sent_at_zero(IdcConfig::default());
        with(&mut c, 1000, Some(500));
        c.on_ack(at(300), &ex, &Ack::AMBIGUOUS);
        assert_eq!(c.state().spacing, ms(990));
        with(&mut c, 500, Some(500));
        c.on_ack(at(300), &ex, &Ack::AMBIGUOUS);
        assert_eq!(c.state().spacing, ms(495));
    }

    #[test]
    fn an_ack_below_the_loss_spacing_halves_the_spacing() {
        let (mut c, ex) = sent_at_zero(IdcConfig::default());
        with(&mut c, 400, Some(500));
        c.on_ack(at(100), &ex, &Ack::AMBIGUOUS);
        assert_eq!(c.state().spacing, ms(200));
        assert_eq!(c.state().loss_spacing, Some(ms(500)));
    }

    #[test]
    fn an_ack_never_leaves_the_spacing_below_the_time_since_the_last_send() {
        // [S1] Algorithm 3 line 12.
        let (mut c, ex) = sent_at_zero(IdcConfig::default());
        with(&mut c, 400, Some(500));
        c.on_ack(at(350), &ex, &Ack::AMBIGUOUS);
        assert_eq!(c.state().spacing, ms(350));
        assert_eq!(c.earliest_send(at(350)), at(350));
    }

    #[test]
    fn a_timeout_saves_the_loss_spacing_and_multiplies_the_spacing_by_iw() {
        let (mut c, mut ex) = sent_at_zero(IdcConfig::default());
        with(&mut c, 1000, Some(200));
        assert_eq!(c.on_timeout(at(500), &mut ex), Retry::Retransmit);
        assert_eq!(c.state().loss_spacing, Some(ms(1000)));
        assert_eq!(c.state().spacing, ms(1500));
        assert_eq!(c.earliest_send(at(500)), at(1500));
    }

    #[test]
    fn a_timeout_lifts_the_spacing_to_the_time_since_the_last_send() {
        let (mut c, mut ex) = sent_at_zero(IdcConfig::default());
        with(&mut c, 1000, Some(200));
        c.on_timeout(at(2000), &mut ex);
        assert_eq!(c.state().spacing, ms(2000));
        assert_eq!(c.state().loss_spacing, Some(ms(1000)));
    }

    #[test]
    fn with_iw_1_1_a_timeout_multiplies_the_spacing_by_1_1() {
        let (mut c, mut ex) = sent_at_zero(IdcConfig::iw_1_1());
        with(&mut c, 1000, None);
        c.on_timeout(at(500), &mut ex);
        assert_eq!(c.state().spacing, ms(1100));
    }

    #[test]
    fn earliest_send_is_the_last_send_plus_the_spacing_even_in_the_past() {
        let (mut c, _) = sent_at_zero(IdcConfig::default());
        with(&mut c, 700, Some(0));
        assert_eq!(c.earliest_send(at(100)), at(700));
        assert_eq!(c.earliest_send(at(5000)), at(700));
    }

    #[test]
    fn before_any_transmission_the_first_message_may_leave_now() {
        let c = idc(IdcConfig { initial_spacing: ms(300), ..Default::default() });
        assert_eq!(c.earliest_send(at(42)), at(42));
        assert_eq!(c.state().spacing, ms(300));
    }

    #[test]
    fn the_first_message_leaves_at_once_and_the_first_ack_sets_the_spacing_to_the_rtt() {
        // Spec OQ-29: spacing₀ = 0, loss_spacing₀ = 0.
        let mut s = Script::new(idc(IdcConfig::default()));
        s.send();
        s.wait_ms(400);
        s.ack();
        assert_eq!(s.state().spacing, ms(400));
        assert_eq!(s.state().loss_spacing, Some(Duration::ZERO));
    }

    #[test]
    fn fast_start_halves_the_spacing_on_every_ack_until_the_first_loss() {
        // Spec OQ-29 option: loss_spacing₀ = +∞.
        let (mut c, ex) = sent_at_zero(IdcConfig { fast_start: true, ..Default::default() });
        assert_eq!(c.state().loss_spacing, None);
        with(&mut c, 1000, None);
        c.on_ack(at(100), &ex, &Ack::AMBIGUOUS);
        assert_eq!(c.state().spacing, ms(500));
    }

    #[test]
    fn an_unanswered_message_is_retransmitted_four_times_with_growing_spacing_then_given_up() {
        // Replay idc-spacing-on-loss: copies at 0, 2, 5, 9.5, 16.25 s, every timer 2 s (no
        // backoff), give-up at 18.25 s; the next message waits until 16.25 + 10.125 s.
        let mut s = Script::new(idc(IdcConfig::default()));
        s.send();
        s.wait_ms(18_250);
        assert_eq!(s.transmit_times_ms(), [0, 2000, 5000, 9500, 16_250]);
        assert_eq!(s.timers_ms(), [2000; 5]);
        assert_eq!(s.give_up_ms(), Some(18_250));
        assert_eq!(s.state().spacing, ms(10_125));
        assert_eq!(s.state().loss_spacing, Some(ms(6750)));
        s.send();
        assert_eq!(s.transmit_times_ms().len(), 5, "held by the spacing");
        s.wait_ms(8125);
        assert_eq!(s.transmit_times_ms()[5], 26_375);
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.state().spacing, Duration::from_micros(10_023_750));
        assert_eq!(s.rto_ms(), Some(1500));
    }

    #[test]
    fn above_the_loss_spacing_ack_clocked_exchanges_shrink_the_spacing_by_only_dw_seconds_per_second() {
        // Each ACK takes dw·spacing off and the next copy leaves one spacing later, so the
        // spacing falls linearly in time at dw s/s whatever its size: a start-up spacing of 30 s
        // (0.3-s exchanges) is still above 24 s nine minutes later (docs/multihop.md, Makarem
        // Cooja; investigation makarem-cooja-idc-dw).
        let mut s = Script::new(idc(IdcConfig::default()));
        s.send();
        s.wait_ms(300);
        s.ack();
        let st = s.state();
        s.set_state(IdcState { spacing: ms(30_000).into(), loss_spacing: Some(ms(20_000)).into(), ..st });
        let first = s.earliest_send(at(0));
        let mut last = first;
        for _ in 0..20 {
            s.send();
            last = s.earliest_send(at(0));
            s.wait_ns((last - s.now()).as_nanos() as u64);
            s.wait_ms(300);
            s.ack();
        }
        assert_eq!(first, at(30_000));
        // From the copy sent at 0 to the 20th held one: 20 spacings, each followed by an ACK.
        let elapsed = last - at(0);
        let fallen = ms(30_000) - s.state().spacing.get();
        let expected = DW.mul_duration(elapsed);
        assert!(fallen.abs_diff(expected) < ms(1), "fell {fallen:?} in {elapsed:?}, expected {expected:?}");
        assert!(elapsed > ms(540_000) && s.state().spacing.get() > ms(24_000), "{elapsed:?} {:?}", s.state().spacing);
    }

    #[test]
    fn give_up_comes_exactly_after_max_retransmit_retransmissions() {
        for r in [0u8, 1, 4, 7] {
            let mut s = Script::new(idc(IdcConfig { max_retransmit: r, ..Default::default() }));
            s.send();
            s.wait_ms(10_000_000);
            assert_eq!(s.timers_ms().len(), usize::from(r) + 1);
            assert!(matches!(s.events.last(), Some(Event::GiveUp { .. })));
        }
    }

    #[test]
    fn an_echo_of_the_original_after_a_retransmission_is_spurious_and_uses_k_7() {
        // Replay idc-spurious: R = 2.5 s from the echoed original, K = 7 → 11.25 s.
        let mut s = Script::new(idc(IdcConfig::default()));
        s.send();
        s.wait_ms(2500);
        s.ack_copy(0);
        assert_eq!(s.rto_ms(), Some(11_250));
        assert!(s.state().rto.spurious);
        // Spacing: 2000 ≥ 0 → 1980; the next message waits until 2000 + 1980.
        s.send();
        s.wait_ms(1480);
        assert_eq!(s.transmit_times_ms(), [0, 2000, 3980]);
        s.wait_ms(2000);
        s.ack_copy(0);
        assert_eq!(s.rto_ns(), Some(7_335_937_500));
    }

    #[test]
    fn without_an_echo_the_sample_comes_from_the_latest_copy() {
        let mut s = Script::new(idc(IdcConfig::default()));
        s.send();
        s.wait_ms(2500);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1500));
    }

    #[test]
    fn unambiguous_samples_ignore_retransmitted_exchanges() {
        let mut s = Script::new(idc(IdcConfig { samples: SampleSource::Unambiguous, ..Default::default() }));
        s.send();
        s.wait_ms(2500);
        s.ack_copy(1);
        assert_eq!(s.rto_ms(), Some(2000));
        assert_eq!(s.state().rto.srtt, None);
    }

    #[test]
    fn latest_samples_ignore_the_echo() {
        let mut s = Script::new(idc(IdcConfig { samples: SampleSource::Latest, ..Default::default() }));
        s.send();
        s.wait_ms(2500);
        s.ack_copy(0);
        // R = 0.5 s from copy 1; the echo still marks the exchange spurious: 0.5 + 7·0.25.
        assert_eq!(s.rto_ms(), Some(2250));
    }

    #[test]
    fn max_spacing_bounds_the_spacing() {
        let (mut c, mut ex) = sent_at_zero(IdcConfig { max_spacing: Some(ms(1200)), ..Default::default() });
        with(&mut c, 1000, Some(0));
        c.on_timeout(at(500), &mut ex);
        assert_eq!(c.state().spacing, ms(1200));
    }

    #[test]
    fn the_dither_key_changes_nothing() {
        let run = |dither: bool| {
            let mut s = Script::new(idc(IdcConfig { dither, ..Default::default() }));
            s.send();
            s.wait_ms(30_000);
            s.events.clone()
        };
        assert_eq!(run(true), run(false));
        assert!(run(true).iter().any(|e| matches!(e, Event::GiveUp { .. })));
    }

    #[test]
    fn timers_stay_within_the_bounds_for_zero_and_huge_rtts() {
        let c = idc(IdcConfig::default());
        assert_eq!(c.timer_bounds(), TimerBounds { min: Duration::ZERO, max: Duration::from_nanos(u64::MAX) });
        let mut s = Script::new(c);
        s.send();
        s.ack(); // RTT 0: RTO 0
        assert_eq!(s.rto_ms(), Some(0));
        s.send();
        s.wait_ms(1);
        // A zero timer: every copy leaves at once, then the message is given up.
        assert_eq!(s.give_up_ms(), Some(0));
        let c = idc(IdcConfig {
            rto: MakaremRtoParams { min_rto: ms(10), max_rto: Some(ms(60_000)), ..Default::default() },
            ..Default::default()
        });
        assert_eq!(c.timer_bounds(), TimerBounds { min: ms(10), max: ms(60_000) });
    }

    #[test]
    fn a_clock_ten_days_ahead_neither_panics_nor_wraps() {
        let (mut c, mut ex) = sent_at_zero(IdcConfig::default());
        let later = at(10 * 86_400_000);
        c.on_timeout(later, &mut ex);
        assert_eq!(c.state().spacing, ms(10 * 86_400_000));
        c.on_ack(later, &ex, &Ack::AMBIGUOUS);
        assert_eq!(c.rto(later), Some(ms(30 * 86_400_000)));
        with(&mut c, u64::MAX / 1_000_000, Some(0));
        c.on_timeout(Instant::MAX, &mut ex);
        assert_eq!(c.earliest_send(Instant::MAX), Instant::MAX);
    }

    #[test]
    fn out_of_range_keys_are_rejected_by_name() {
        let bad = |c: IdcConfig| Idc::new(c).unwrap_err().key;
        assert_eq!(bad(IdcConfig { iw: Ratio::new(9, 10), ..Default::default() }), "iw");
        assert_eq!(bad(IdcConfig { dw: Ratio::new(3, 2), ..Default::default() }), "dw");
        assert_eq!(bad(IdcConfig { fw: Ratio::integer(2), ..Default::default() }), "fw");
        assert_eq!(bad(IdcConfig { max_spacing: Some(Duration::ZERO), ..Default::default() }), "max_spacing_ms");
        assert_eq!(
            bad(IdcConfig { max_spacing: Some(ms(10)), initial_spacing: ms(20), ..Default::default() }),
            "initial_spacing_ms"
        );
        assert_eq!(
            bad(IdcConfig { rto: MakaremRtoParams { gamma: Ratio::ZERO, ..Default::default() }, ..Default::default() }),
            "gamma"
        );
    }

    #[test]
    fn idcs_state_spacing_loss_spacing_last_send_makarem_estimator_fits_64_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<Idc as Controller>::State>();
        assert!(bytes <= 64, "{bytes} bytes");
    }
}
