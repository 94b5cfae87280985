//! MBC-CoAP: Measurement-Based, BBR-inspired spacing (Makarem et al., Computer Networks 207,
//! 2022 \[S1\], §5.2.2 Algorithm 4; spec §8.3, OQ-28, OQ-30, OQ-31, OQ-32).
//!
//! Every ACK measures the time since the previous ACK (an "available spacing", the inverse of
//! a bandwidth sample); the last `m` samples are kept. The next copy may leave
//! `min(samples) / pg` after the previous one, where the pacing gain `pg` cycles through
//! 8 phases: probe 1.25, drain 0.75, then 1 six times. Losses are detected by the
//! [Makarem RTO](crate::estimators::makarem), never backed off.
//!
//! # When each step happens
//!
//! \[S1\]'s loop runs after each ACK or RTO expiry: (ACK: take a sample) → send the next packet
//! at `max(last_send_time + spacing, now)` → advance the cycle, pick `pg` → `spacing ←
//! min(Spacings)/pg`. The spacing computed after sending packet k is the gap between packet k
//! and packet k+1, so here the cycle step runs when the packet leaves:
//! * [`Controller::on_ack`] (lines 2–7): `sample ← now − last_ACK_time; last_ACK_time ← now`,
//!   pushed into the ring (the oldest falls out beyond `m`). Every ACK counts, also after
//!   retransmissions. The RTT sample updates the RTO.
//! * [`Controller::on_timeout`]: no state change; give-up after `max_retransmit` (r = 4).
//! * [`Controller::earliest_send`] (line 8): `last_send_time + spacing`; the driver takes the
//!   later of that and now.
//! * [`Controller::on_transmit`] (lines 9–21, every copy): `last_send_time ← now`;
//!   `cycle_index ← (cycle_index + 1) mod 8`; `pg` = 1.25 at index 0, or 0.75 when the packet
//!   leaving is a retransmission (spec OQ-32); 0.75 at index 1; else 1; then
//!   `spacing ← min(Spacings)/pg`, or 0 while the ring is empty (spec OQ-31). Arms the current
//!   RTO from this send (spec OQ-30).
//!
//! The cycle starts at index 0, so the first packet runs phase 1 (\[S1\]'s loop increments
//! before use). `last_ACK_time₀` is the time of the first transmission, so the first sample
//! is the first RTT (spec OQ-31).
//!
//! \[S1\] Table 2 lists 7 gains "1.25, 0.75, 1, 1, 1, 1, 1" for a loop that counts modulo 8;
//! this module uses 8 phases (six 1s), as the spec recommends; `cycle_length = 7` gives the
//! table's reading.
//!
//! No dithering: the `dither` key exists for uniformity and is ignored.
//!
//! [`Mbc`] is the algorithm (the checked configuration and the estimator constants), shared
//! by every destination; [`MbcState`] is what one destination keeps; nothing is kept per
//! exchange.

use core::time::Duration;

use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use crate::estimators::makarem::{self, MakaremRto, MakaremRtoParams, SampleSource};
use crate::pacing::div_gain;
pub use crate::pacing::{MAX_WINDOW, Window};
use crate::params::MAX_RETRANSMIT;
use crate::random::Rng;
use crate::ratio::Ratio;
use crate::time::{Instant, Nanos};

/// \[S1\] Table 2: m = 3 spacing samples (lower overhead).
pub const WINDOW: u8 = 3;
/// \[S1\] §6.2: m = 10 for highly variable bandwidth.
pub const WINDOW_10: u8 = 10;
/// \[S1\] Algorithm 4: 8 phases (`cycle_index` modulo 8).
pub const CYCLE_LENGTH: u8 = 8;
/// \[S1\] §5.2.2 (BBR): probing gain 5/4.
pub const PROBE_GAIN: Ratio = Ratio::new(5, 4);
/// \[S1\] §5.2.2 (BBR): preventive (drain) gain 3/4, also used at the probe phase when the
/// packet leaving is a retransmission.
pub const DRAIN_GAIN: Ratio = Ratio::new(3, 4);

crate::estimators::makarem::config_with_makarem_rto! {
    /// Configuration of MBC-CoAP. `Default` is \[S1\]'s values (m = 3).
    pub struct MbcConfig {
        /// m: number of inter-ACK spacing samples kept (1..=16; \[S1\]: 3 or 10).
        pub window: u8,
        /// Phases of the gain cycle (2..=255; \[S1\]'s loop: 8).
        pub cycle_length: u8,
        /// Pacing gain of phase 0 (probing, \[S1\]: 1.25).
        pub probe_gain: Ratio,
        /// Pacing gain of phase 1 (preventive drain, \[S1\]: 0.75).
        pub drain_gain: Ratio,
        /// Pacing gain of phase 0 when the packet leaving is a retransmission (\[S1\]: 0.75).
        pub probe_retransmission_gain: Ratio,
        /// Which RTT samples feed the RTO (spec OQ-28).
        pub samples: SampleSource,
        /// r: retransmissions before the message is given up (\[S1\]: 4).
        pub max_retransmit: u8,
        /// Accepted and ignored: MBC-CoAP never dithers (see the module docs).
        pub dither: bool,
    }
}

impl Default for MbcConfig {
    fn default() -> Self {
        MbcConfig {
            window: WINDOW,
            cycle_length: CYCLE_LENGTH,
            probe_gain: PROBE_GAIN,
            drain_gain: DRAIN_GAIN,
            probe_retransmission_gain: DRAIN_GAIN,
            samples: SampleSource::Exact,
            max_retransmit: MAX_RETRANSMIT,
            rto: MakaremRtoParams::default(),
            dither: false,
        }
    }
}

impl MbcConfig {
    /// \[S1\] §6.2: m = 10, the choice for a highly variable bandwidth.
    pub fn window_10() -> Self {
        MbcConfig { window: WINDOW_10, ..Default::default() }
    }

    /// The RTO estimator's constants.
    pub fn rto_params(&self) -> MakaremRtoParams {
        self.rto
    }
}

/// The state of MBC-CoAP for one destination, kept compactly: durations in 8-byte [`Nanos`],
/// the latest ACK and departure as [`Instant`]s with flags (208 bytes). The remainder over
/// 64 bytes is `Spacings`, \[S1\] Algorithm 4's window of the last `m` ≤ 16 inter-ACK times
/// (136 bytes with its length and position; its minimum paces every copy, so each value is
/// needed), and the Makarem estimator (32 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbcState {
    /// `Spacings`: the last `m` inter-ACK times.
    pub spacings: Window<Nanos>,
    /// When the latest ACK arrived (valid when `acked`; see [`MbcState::last_ack_time`]).
    last_ack: Instant,
    /// When the latest copy left (valid when `sent`; see [`MbcState::last_send_time`]).
    last_send: Instant,
    /// Whether `last_ack` holds a time.
    acked: bool,
    /// Whether `last_send` holds a time.
    sent: bool,
    /// Phase of the gain cycle of the latest transmission (0 = probe, 1 = drain).
    pub cycle_index: u8,
    /// Pacing gain chosen at the latest transmission.
    pub pg: Ratio,
    /// Minimum gap between the latest departure and the next (`min(Spacings)/pg`).
    pub spacing: Nanos,
    /// The Makarem RTO estimator.
    pub rto: MakaremRto,
}

impl MbcState {
    /// When the latest ACK arrived (initially: the first transmission, spec OQ-31); `None`
    /// before the first transmission.
    pub fn last_ack_time(&self) -> Option<Instant> {
        self.acked.then_some(self.last_ack)
    }

    /// Sets when the latest ACK arrived (`None`: not yet).
    pub fn set_last_ack_time(&mut self, at: Option<Instant>) {
        self.acked = at.is_some();
        self.last_ack = at.unwrap_or(Instant::ZERO);
    }

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

/// MBC-CoAP, the algorithm: the checked configuration and its estimator constants, shared by
/// every destination ([`MbcState`] is per destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mbc {
    config: MbcConfig,
    params: MakaremRtoParams,
}

impl Mbc {
    /// Checks the configuration and builds the controller.
    pub fn new(config: MbcConfig) -> Result<Self, ConfigError> {
        if config.window == 0 || usize::from(config.window) > MAX_WINDOW {
            return Err(ConfigError::new("window", "must be in 1..=16"));
        }
        if config.cycle_length < 2 {
            return Err(ConfigError::new("cycle_length", "must be in 2..=255"));
        }
        if config.probe_gain.is_zero() {
            return Err(ConfigError::new("probe_gain", "must be greater than 0"));
        }
        if config.drain_gain.is_zero() {
            return Err(ConfigError::new("drain_gain", "must be greater than 0"));
        }
        if config.probe_retransmission_gain.is_zero() {
            return Err(ConfigError::new("probe_retransmission_gain", "must be greater than 0"));
        }
        let params = config.rto_params();
        params.check()?;
        Ok(Mbc { config, params })
    }

    /// The configuration.
    pub fn config(&self) -> &MbcConfig {
        &self.config
    }
}

impl MbcConfig {
    /// The echo this algorithm needs: the transmission-count option when samples are matched
    /// exactly, "as with a TC option" (spec OQ-28), else none ([`SampleSource::echo_mode`]).
    pub fn echo_mode(&self) -> EchoMode {
        self.samples.echo_mode()
    }
}

impl Controller for Mbc {
    type State = MbcState;
    type ExchangeState = ();

    fn new_state(&self) -> MbcState {
        MbcState {
            spacings: Window::default(),
            last_ack: Instant::ZERO,
            last_send: Instant::ZERO,
            acked: false,
            sent: false,
            cycle_index: 0,
            pg: Ratio::ONE,
            spacing: Nanos::ZERO,
            rto: MakaremRto::new(&self.params),
        }
    }

    fn on_transmit(
        &self,
        st: &mut MbcState,
        now: Instant,
        ex: &mut Exchange<()>,
        _in_flight: usize,
        _rng: &mut dyn Rng,
    ) -> Duration {
        // Spec OQ-31: last_ACK_time₀ = the first transmission, so the first sample is an RTT.
        if !st.acked {
            st.set_last_ack_time(Some(now));
        }
        st.set_last_send_time(Some(now));
        // [S1] Algorithm 4 line 9: cycle_index ← (cycle_index + 1) mod 8.
        st.cycle_index = ((u16::from(st.cycle_index) + 1) % u16::from(self.config.cycle_length.max(1))) as u8;
        // Lines 10–20; spec OQ-32: "retransmission" = the packet leaving now.
        st.pg = match st.cycle_index {
            0 if ex.retransmissions() > 0 => self.config.probe_retransmission_gain,
            0 => self.config.probe_gain,
            1 => self.config.drain_gain,
            _ => Ratio::ONE,
        };
        // Line 21: spacing ← min(Spacings)/pg; spec OQ-31: 0 while there is no sample.
        st.spacing = Nanos::new(st.spacings.iter().min().map_or(Duration::ZERO, |&m| div_gain(m.get(), st.pg)));
        // Spec §8.1, OQ-30: the current RTO from this copy's send; no backoff, no dithering.
        st.rto.rto()
    }

    fn on_timeout(&self, _st: &mut MbcState, _now: Instant, ex: &mut Exchange<()>) -> Retry {
        // Spec §8.3: r = 4 retransmissions, then application loss.
        if ex.retransmissions() >= self.config.max_retransmit { Retry::GiveUp } else { Retry::Retransmit }
    }

    fn on_ack(&self, st: &mut MbcState, now: Instant, ex: &Exchange<()>, ack: &Ack) {
        // [S1] Algorithm 4 lines 3–6: every ACK gives an inter-ACK spacing sample.
        let last = st.last_ack_time().unwrap_or(ex.first_sent());
        st.spacings.push(Nanos::new(now - last), self.config.window);
        st.set_last_ack_time(Some(now));
        // Spec §8.1, OQ-27, OQ-28: the RTT sample and the spurious flag of this exchange.
        if let Some(r) = makarem::rtt_sample(self.config.samples, now, ex, ack) {
            st.rto.sample(r, makarem::is_spurious(ex, ack), &self.params);
        }
    }

    fn earliest_send(&self, st: &MbcState, now: Instant) -> Instant {
        // [S1] Algorithm 4 line 8: last_send_time + spacing (the driver takes max with now).
        match st.last_send_time() {
            Some(last) => last + st.spacing.get(),
            None => now,
        }
    }

    fn rto(&self, st: &MbcState, _now: Instant) -> Option<Duration> {
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
    extern crate std;
    use std::vec::Vec;

    use super::*;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;
    use crate::harness::testing::{at, ms};
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn mbc(config: MbcConfig) -> Bound<Mbc> {
        Bound::new(Mbc::new(config).unwrap())
    }
    fn rng() -> Pcg64Mcg {
        Pcg64Mcg::seed_from_u64(1)
    }
    fn with_samples(c: &mut Bound<Mbc>, samples: &[u64], cycle_index: u8) {
        let mut st = c.state();
        st.spacings = Window::default();
        for &s in samples {
            st.spacings.push(ms(s).into(), c.config().window);
        }
        st.cycle_index = cycle_index;
        c.set_state(st);
    }
    fn ring(st: &MbcState) -> Vec<u64> {
        let mut v: Vec<u64> = st.spacings.iter().map(|d| d.get().as_millis() as u64).collect();
        v.sort();
        v
    }

    #[test]
    fn samples_of_0_5_then_0_6_s_give_an_rto_of_1_5_then_1_43125_s() {
        // Spec §13 vector 6 through MBC (replay mbc-makarem-rto).
        let mut s = Script::new(mbc(MbcConfig::default()));
        s.send();
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1500));
        s.send();
        s.wait_ms(600);
        s.ack();
        assert_eq!(s.rto_ns(), Some(1_431_250_000));
        assert_eq!(s.transmit_times_ms(), [0, 500]);
    }

    #[test]
    fn the_first_sample_is_the_first_rtt_and_the_spacing_is_zero_until_then() {
        // Spec OQ-31.
        let mut s = Script::new(mbc(MbcConfig::default()));
        s.send();
        assert_eq!(s.state().spacing, Duration::ZERO);
        assert_eq!(s.state().last_ack_time(), Some(at(0)));
        s.wait_ms(400);
        s.ack();
        assert_eq!(ring(&s.state()), [400]);
        assert_eq!(s.earliest_send(at(400)), at(0));
    }

    #[test]
    fn the_ring_keeps_the_last_m_inter_ack_times() {
        let mut c = mbc(MbcConfig::default());
        let ex = c.start(at(0), 0, &mut rng());
        for t in [100, 300, 600, 1000] {
            c.on_ack(at(t), &ex, &Ack::AMBIGUOUS);
        }
        // Samples 100, 200, 300, 400; m = 3 keeps the last three.
        assert_eq!(ring(&c.st), [200, 300, 400]);
        assert_eq!(c.state().last_ack_time(), Some(at(1000)));
    }

    #[test]
    fn a_short_rtt_after_long_samples_holds_the_next_message() {
        // Replay mbc-makarem-rto: ring [500, 600, 102]; the spacing computed when exchange 3
        // left (min 500) holds exchange 4 until 1100 + 500.
        let mut s = Script::new(mbc(MbcConfig::default()));
        for rtt in [500, 600, 102] {
            s.send();
            s.wait_ms(rtt);
            s.ack();
        }
        assert_eq!(ring(&s.state()), [102, 500, 600]);
        assert_eq!(s.rto_ns(), Some(1_396_125_000));
        s.send();
        s.wait_ms(398);
        assert_eq!(s.transmit_times_ms(), [0, 500, 1100, 1600]);
        assert_eq!(s.state().spacing, ms(102));
        assert_eq!(s.state().cycle_index, 4);
    }

    #[test]
    fn the_gain_cycles_through_drain_six_ones_and_probe() {
        let mut c = mbc(MbcConfig::default());
        with_samples(&mut c, &[600], 0);
        let mut r = rng();
        let mut seen = Vec::new();
        for i in 0..16u64 {
            c.start(at(i * 1000), 0, &mut r);
            let st = c.state();
            seen.push((st.cycle_index, st.pg, st.spacing.get().as_millis() as u64));
        }
        let one = Ratio::ONE;
        let expect = [
            (1, DRAIN_GAIN, 800),
            (2, one, 600),
            (3, one, 600),
            (4, one, 600),
            (5, one, 600),
            (6, one, 600),
            (7, one, 600),
            (0, PROBE_GAIN, 480),
        ];
        assert_eq!(seen[..8], expect);
        assert_eq!(seen[8..], expect);
    }

    #[test]
    fn a_retransmission_in_the_probe_phase_drains_instead() {
        // Spec OQ-32.
        let mut c = mbc(MbcConfig::default());
        let mut r = rng();
        let mut ex = c.start(at(0), 0, &mut r);
        with_samples(&mut c, &[600], 7);
        assert_eq!(c.on_timeout(at(2000), &mut ex), Retry::Retransmit);
        c.retransmit(at(2000), &mut ex, &mut r);
        assert_eq!((c.state().cycle_index, c.state().pg, c.state().spacing.get()), (0, DRAIN_GAIN, ms(800)));
        assert_eq!(c.earliest_send(at(2000)), at(2800));
    }

    #[test]
    fn a_retransmission_outside_the_probe_phase_keeps_the_phase_gain() {
        let mut c = mbc(MbcConfig::default());
        let mut r = rng();
        let mut ex = c.start(at(0), 0, &mut r);
        with_samples(&mut c, &[600], 0);
        c.retransmit(at(2000), &mut ex, &mut r);
        assert_eq!((c.state().cycle_index, c.state().pg), (1, DRAIN_GAIN));
        c.retransmit(at(4000), &mut ex, &mut r);
        assert_eq!((c.state().cycle_index, c.state().pg), (2, Ratio::ONE));
    }

    #[test]
    fn every_ack_counts_also_after_retransmissions() {
        let mut s = Script::new(mbc(MbcConfig::default()));
        s.send();
        s.wait_ms(2300); // copy 1 at 2 s
        s.ack();
        assert_eq!(ring(&s.state()), [2300]);
        // Exact without echo: the RTT of the latest copy, 0.3 s → 0.3 + 4·0.15.
        assert_eq!(s.rto_ms(), Some(900));
    }

    #[test]
    fn an_unanswered_message_is_retransmitted_at_each_rto_and_given_up_after_four() {
        let mut s = Script::new(mbc(MbcConfig::default()));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.transmit_times_ms(), [0, 2000, 4000, 6000, 8000]);
        assert_eq!(s.timers_ms(), [2000; 5]);
        assert_eq!(s.give_up_ms(), Some(10_000));
    }

    #[test]
    fn give_up_comes_exactly_after_max_retransmit_retransmissions() {
        for r in [0u8, 2, 9] {
            let mut s = Script::new(mbc(MbcConfig { max_retransmit: r, ..Default::default() }));
            s.send();
            s.wait_ms(10_000_000);
            assert_eq!(s.timers_ms().len(), usize::from(r) + 1);
            assert!(s.give_up_ms().is_some());
        }
    }

    #[test]
    fn a_window_of_10_keeps_ten_samples() {
        let mut c = mbc(MbcConfig::window_10());
        with_samples(&mut c, &[11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22], 0);
        assert_eq!(ring(&c.st), [13, 14, 15, 16, 17, 18, 19, 20, 21, 22]);
    }

    #[test]
    fn a_seven_phase_cycle_probes_every_seventh_packet() {
        let mut c = mbc(MbcConfig { cycle_length: 7, ..Default::default() });
        with_samples(&mut c, &[600], 0);
        let mut r = rng();
        let mut probes = Vec::new();
        for i in 1..=21u64 {
            c.start(at(i * 1000), 0, &mut r);
            if c.state().cycle_index == 0 {
                probes.push(i);
            }
        }
        assert_eq!(probes, [7, 14, 21]);
    }

    #[test]
    fn the_window_survives_any_state() {
        let mut w = Window::<Nanos> { slots: [ms(1).into(); MAX_WINDOW], len: 200, next: 250 };
        w.push(ms(2).into(), 3);
        assert!(w.len() <= MAX_WINDOW);
        assert!(w.newest_mut(0).is_some());
        let mut c = mbc(MbcConfig::default());
        let mut st = c.state();
        st.cycle_index = 255;
        st.spacings = w;
        c.set_state(st);
        let mut r = rng();
        c.start(at(0), 0, &mut r);
        assert!(c.state().cycle_index < 8);
    }

    #[test]
    fn timer_bounds_cover_zero_and_huge_rtts() {
        let c = mbc(MbcConfig::default());
        assert_eq!(c.timer_bounds(), TimerBounds { min: Duration::ZERO, max: Duration::from_nanos(u64::MAX) });
        let mut c = mbc(MbcConfig::default());
        let mut r = rng();
        let ex = c.start(at(0), 0, &mut r);
        c.on_ack(Instant::MAX, &ex, &Ack::AMBIGUOUS);
        assert_eq!(c.rto(Instant::MAX), Some(Duration::from_nanos(u64::MAX)));
        c.start(Instant::MAX, 0, &mut r);
        assert_eq!(c.earliest_send(Instant::MAX), Instant::MAX);
    }

    #[test]
    fn out_of_range_keys_are_rejected_by_name() {
        let bad = |c: MbcConfig| Mbc::new(c).unwrap_err().key;
        assert_eq!(bad(MbcConfig { window: 0, ..Default::default() }), "window");
        assert_eq!(bad(MbcConfig { window: 17, ..Default::default() }), "window");
        assert_eq!(bad(MbcConfig { cycle_length: 1, ..Default::default() }), "cycle_length");
        assert_eq!(bad(MbcConfig { probe_gain: Ratio::ZERO, ..Default::default() }), "probe_gain");
        assert_eq!(bad(MbcConfig { drain_gain: Ratio::ZERO, ..Default::default() }), "drain_gain");
        assert_eq!(
            bad(MbcConfig { probe_retransmission_gain: Ratio::ZERO, ..Default::default() }),
            "probe_retransmission_gain"
        );
        assert_eq!(
            bad(MbcConfig {
                rto: MakaremRtoParams { alpha: Ratio::integer(2), ..Default::default() },
                ..Default::default()
            }),
            "alpha"
        );
        assert!(Mbc::new(MbcConfig { window: 16, ..Default::default() }).is_ok());
    }

    #[test]
    fn mbcs_state_a_window_of_up_to_16_inter_ack_spacings_pacing_estimator_fits_208_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<Mbc as Controller>::State>();
        assert!(bytes <= 208, "{bytes} bytes");
    }
}
