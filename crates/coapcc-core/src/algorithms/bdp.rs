//! BDP-CoAP (Ancillotti & Bruno, "BDP-CoAP: Leveraging Bandwidth-Delay Product for
//! Congestion Control in CoAP", IEEE WF-IoT 2019), spec §8.4, OQ-33.
//!
//! # ⚠ RECONSTRUCTED — not from the original paper
//!
//! The BDP-CoAP paper could not be read. This module is built from the only available
//! description, Makarem et al. \[S1\] §3.2 and §4.3, following the spec's recommendation
//! (OQ-33): "MBC-CoAP + a 10-phase gain cycle {1.2, 0.8, 1×8} + a bandwidth filter over the
//! last 10 send attempts + no samples from ACKs of retransmitted CONs + a blended filter
//! `w·min + (1−w)·max` with `w = min(1, retransmissions_in_window/10)`". Every point below
//! marked **guess** is this project's choice where \[S1\] is silent; results obtained with it are
//! results of this reconstruction, not of the published BDP-CoAP.
//!
//! What \[S1\] states (implemented as stated):
//! * loss detection by CoCoA+'s RTO estimate (strong/weak, CoCoA-03 §4.2), never multiplied
//!   on successive losses: [`CocoaRto`] from [`crate::estimators::cocoa`], every copy armed with the
//!   current overall RTO from its own send;
//! * pacing at the filtered bandwidth × a pacing gain; the gain cycle has 10 phases, probe
//!   1.2, drain 0.8, the others 1; each phase is one packet;
//! * neither the pacing gain nor the bandwidth estimate is updated on a retransmission: the
//!   sample an ACK of a retransmitted CON would give is cancelled;
//! * the filter combines the max and the min of the measurements in a weighted sum, the min's
//!   weight growing with the number of retransmissions;
//! * the filter covers the measurements of the last 10 *sending instants*, so lost attempts
//!   push samples out without adding any.
//!
//! The guesses:
//! 1. **Bandwidth sample** = 1 / (time since the previous ACK), as in MBC-CoAP; stored as the
//!    inter-ACK time. `last_ACK_time` advances on every ACK (also on cancelled ones), and
//!    starts at the first transmission (the first sample is the first RTT, as MBC's OQ-31).
//! 2. **Window slot = send attempt**: every copy (original or retransmission) opens a slot;
//!    the ACK of a CON that was never retransmitted fills the newest slot with its sample.
//!    Lost attempts and retransmissions leave their slots empty.
//! 3. **Weight**: `w = min(1, r/10)`, r = retransmission attempts in the window
//!    (`weight_divisor` = 10). The blend is of *bandwidths*:
//!    `bw = w·min_bw + (1−w)·max_bw`, i.e. `spacing = s_min·s_max / (w·s_min + (1−w)·s_max)`
//!    with s_min, s_max the shortest and longest inter-ACK times (w = 0: MBC's max filter).
//! 4. **When the gain and estimate update**: only on the ACK of a CON that was never
//!    retransmitted ("not updated in case of retransmission": neither on RTO expiry nor on
//!    the ACK of a retransmitted CON). There the cycle advances by one phase, the gain is
//!    picked (index 0 → 1.2, 1 → 0.8, else 1) and `spacing ← filtered / pg`. A retransmission
//!    waits the current spacing. MBC's "drain instead of probe on a retransmission" rule does
//!    not arise (updates only follow clean ACKs).
//! 5. **Start-up / initial bandwidth**: none; spacing 0 until the first clean ACK (as MBC's
//!    OQ-31). No RTprop estimate and no BDP in-flight cap: with NSTART = 1 the cap is 0 or 1
//!    packet and moot (\[S1\] §4.3.3).
//! 6. **No dithering and no blind RTO**: `dither` exists for uniformity and is ignored;
//!    the NSTART > 1 blind RTO of CoCoA is not applied. Aging (CoCoA-03) applies lazily before
//!    original transmissions, as in CoCoA.
//!
//! \[S1\]'s criticisms, useful as simulator checks of this reconstruction: it cannot slow down
//! after a sudden bandwidth drop (retransmission ACKs ignored, §4.3.1), converges upwards
//! slowly (the min term, §4.3.4), and its window can empty (§4.3.2).
//!
//! [`Bdp`] is the algorithm (the checked configuration), shared by every destination;
//! [`BdpState`] is what one destination keeps; nothing is kept per exchange.

use core::time::Duration;

use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use crate::estimators::cocoa::{self, Aging, CocoaRto, CocoaRtoParams};
use crate::pacing::{MAX_WINDOW, Window, div_gain};
use crate::params::MAX_RETRANSMIT;
use crate::random::Rng;
use crate::ratio::Ratio;
use crate::time::{Instant, Nanos, OptNanos, from_nanos, nanos};

/// \[S1\] §3.2: the filter covers the last 10 sending instants.
pub const WINDOW: u8 = 10;
/// \[S1\] §3.2: a ten-phase gain cycle.
pub const CYCLE_LENGTH: u8 = 10;
/// \[S1\] §3.2: probing gain 1.2.
pub const PROBE_GAIN: Ratio = Ratio::new(6, 5);
/// \[S1\] §3.2: preventive (drain) gain 0.8.
pub const DRAIN_GAIN: Ratio = Ratio::new(4, 5);
/// Reconstruction (spec OQ-33): `w = min(1, retransmissions_in_window / 10)`.
pub const WEIGHT_DIVISOR: u8 = 10;

/// One send attempt in the filter window (as [`Attempts::iter`] reads it back).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attempt {
    /// The attempt was a retransmission.
    pub retransmission: bool,
    /// The inter-ACK time measured by its ACK; `None` if lost, unanswered yet, or cancelled.
    pub sample: Option<Duration>,
}

/// The filter window of the last send attempts, kept compactly: each attempt's sample as an
/// 8-byte [`OptNanos`] in a [`Window`], its retransmission flag as bit `i` of a mask for
/// slot `i` (144 bytes for 16 attempts, where a window of [`Attempt`]s takes 392).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attempts {
    /// The samples, slot by slot.
    samples: Window<OptNanos>,
    /// Bit `i`: the attempt in slot `i` was a retransmission.
    retransmissions: u16,
}

impl Attempts {
    /// Adds `attempt`, dropping the oldest beyond `capacity` (at most [`MAX_WINDOW`]).
    pub fn push(&mut self, attempt: Attempt, capacity: u8) {
        // The slot Window::push writes.
        let cap = usize::from(capacity).clamp(1, MAX_WINDOW);
        let bit = 1u16 << (usize::from(self.samples.next) % cap);
        if attempt.retransmission {
            self.retransmissions |= bit;
        } else {
            self.retransmissions &= !bit;
        }
        self.samples.push(OptNanos::new(attempt.sample), capacity);
    }

    /// Sets the sample of the most recent attempt (nothing when the window is empty).
    pub fn set_newest_sample(&mut self, sample: Option<Duration>, capacity: u8) {
        if let Some(slot) = self.samples.newest_mut(capacity) {
            *slot = OptNanos::new(sample);
        }
    }

    /// The stored attempts, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = Attempt> + '_ {
        self.samples.iter().enumerate().map(|(i, s)| Attempt {
            retransmission: self.retransmissions & (1u16 << (i % MAX_WINDOW)) != 0,
            sample: s.get(),
        })
    }

    /// How many attempts are stored.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether no attempt is stored.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

/// Configuration of the BDP-CoAP reconstruction. `Default` is \[S1\]'s description plus the
/// spec OQ-33 guesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct BdpConfig {
    /// Send attempts the bandwidth filter covers (1..=16; \[S1\]: 10).
    pub window: u8,
    /// Phases of the gain cycle (2..=255; \[S1\]: 10).
    pub cycle_length: u8,
    /// Pacing gain of phase 0 (\[S1\]: 1.2).
    pub probe_gain: Ratio,
    /// Pacing gain of phase 1 (\[S1\]: 0.8).
    pub drain_gain: Ratio,
    /// w = min(1, retransmission attempts in the window / this) (guess: 10; ≥ 1).
    pub weight_divisor: u8,
    /// Retransmissions before the message is given up (RFC 7252: 4).
    pub max_retransmit: u8,
    /// Initial overall RTO of the CoCoA+ estimator (2 s).
    #[cfg_attr(feature = "serde", serde(rename = "initial_rto_ms", with = "crate::config::serde_ms"))]
    pub initial_rto: Duration,
    /// Ceiling on the CoCoA+ RTO (CoCoA-03: 32 s; spec OQ-4).
    #[cfg_attr(feature = "serde", serde(rename = "max_rto_ms", with = "crate::config::serde_ms"))]
    pub max_rto: Duration,
    /// Clock granularity G of the RFC 6298 estimators (0).
    #[cfg_attr(feature = "serde", serde(rename = "granularity_ms", with = "crate::config::serde_ms"))]
    pub granularity: Duration,
    /// Aging of the CoCoA+ RTO (CoCoA-03 rules by default).
    pub aging: Aging,
    /// Accepted and ignored: this reconstruction never dithers (see the module docs).
    pub dither: bool,
}

impl Default for BdpConfig {
    fn default() -> Self {
        BdpConfig {
            window: WINDOW,
            cycle_length: CYCLE_LENGTH,
            probe_gain: PROBE_GAIN,
            drain_gain: DRAIN_GAIN,
            weight_divisor: WEIGHT_DIVISOR,
            max_retransmit: MAX_RETRANSMIT,
            initial_rto: cocoa::INITIAL_RTO,
            max_rto: cocoa::MAX_RTO,
            granularity: Duration::ZERO,
            aging: Aging::Draft,
            dither: false,
        }
    }
}

impl BdpConfig {
    /// The CoCoA+ estimator's constants (CoCoA-03 with this ceiling, granularity and aging).
    pub fn rto_params(&self) -> CocoaRtoParams {
        CocoaRtoParams { max_rto: self.max_rto, aging: self.aging, ..CocoaRtoParams::draft(self.granularity) }
    }
}

/// The state of the BDP-CoAP reconstruction for one destination, kept compactly: durations
/// in 8-byte [`Nanos`]/[`OptNanos`], the latest ACK and departure as [`Instant`]s with flags
/// (240 bytes). The remainder over 64 bytes is the filter window of the last `window` ≤ 16
/// send attempts ([`Attempts`], 144 bytes: the filter takes the min and max of its samples
/// and counts its retransmissions, so each attempt is needed) and the CoCoA+ estimator
/// (56 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BdpState {
    /// The last `window` send attempts and their inter-ACK samples.
    pub attempts: Attempts,
    /// When the latest ACK arrived (valid when `acked`; see [`BdpState::last_ack_time`]).
    last_ack: Instant,
    /// When the latest copy left (valid when `sent`; see [`BdpState::last_send_time`]).
    last_send: Instant,
    /// Whether `last_ack` holds a time.
    acked: bool,
    /// Whether `last_send` holds a time.
    sent: bool,
    /// Phase of the gain cycle at the latest update (0 = probe, 1 = drain).
    pub cycle_index: u8,
    /// Pacing gain chosen at the latest update.
    pub pg: Ratio,
    /// Minimum gap between the latest departure and the next (filtered spacing / pg).
    pub spacing: Nanos,
    /// The CoCoA+ RTO estimator (loss detection only).
    pub rto: CocoaRto,
}

impl BdpState {
    /// When the latest ACK arrived (initially: the first transmission); `None` before it.
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

/// The BDP-CoAP reconstruction, the algorithm: the checked configuration, shared by every
/// destination ([`BdpState`] is per destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bdp {
    config: BdpConfig,
}

/// Guess 3: the spacing of the bandwidth `w·(1/s_max) + (1−w)·(1/s_min)`, that is
/// `s_min·s_max / (w·s_min + (1−w)·s_max)`, to the nanosecond (rounded half up).
pub fn blended_spacing(s_min: Duration, s_max: Duration, w: Ratio) -> Duration {
    let denom = u128::from(nanos(w.blend(s_min, s_max)));
    if denom == 0 {
        return Duration::ZERO;
    }
    let num = u128::from(nanos(s_min)) * u128::from(nanos(s_max));
    let q = (num + denom / 2) / denom;
    from_nanos(u64::try_from(q).unwrap_or(u64::MAX))
}

impl Bdp {
    /// Checks the configuration and builds the controller.
    pub fn new(config: BdpConfig) -> Result<Self, ConfigError> {
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
        if config.weight_divisor == 0 {
            return Err(ConfigError::new("weight_divisor", "must be in 1..=255"));
        }
        if config.max_rto.is_zero() {
            return Err(ConfigError::new("max_rto_ms", "must be greater than 0"));
        }
        if config.initial_rto.is_zero() || config.initial_rto > config.max_rto {
            return Err(ConfigError::new("initial_rto_ms", "must be greater than 0 and at most max_rto_ms"));
        }
        // granularity_ms: any duration; aging: any variant.
        Ok(Bdp { config })
    }

    /// The configuration.
    pub fn config(&self) -> &BdpConfig {
        &self.config
    }

    /// The filtered spacing of the window of `st` (guess 3), `None` when it holds no sample.
    pub fn filtered_spacing(&self, st: &BdpState) -> Option<Duration> {
        let attempts = &st.attempts;
        let s_min = attempts.iter().filter_map(|a| a.sample).min()?;
        let s_max = attempts.iter().filter_map(|a| a.sample).max()?;
        let retransmissions = attempts.iter().filter(|a| a.retransmission).count();
        // Spec OQ-33: w = min(1, retransmissions_in_window / 10) (blend clamps w at 1).
        let w = Ratio::new(u32::try_from(retransmissions).unwrap_or(u32::MAX), self.config.weight_divisor.into());
        Some(blended_spacing(s_min, s_max, w))
    }

    /// Guess 4: advance the cycle, pick the gain, recompute the spacing.
    fn update(&self, st: &mut BdpState) {
        st.cycle_index = ((u16::from(st.cycle_index) + 1) % u16::from(self.config.cycle_length.max(1))) as u8;
        // [S1] §3.2: probe 1.2, drain 0.8, other phases 1.
        st.pg = match st.cycle_index {
            0 => self.config.probe_gain,
            1 => self.config.drain_gain,
            _ => Ratio::ONE,
        };
        if let Some(filtered) = self.filtered_spacing(st) {
            st.spacing = Nanos::new(div_gain(filtered, st.pg));
        }
    }
}

impl BdpConfig {
    /// The echo this algorithm needs: none. BDP-CoAP keeps CoCoA+'s estimator (spec §8.4),
    /// which measures from the original transmission.
    pub fn echo_mode(&self) -> EchoMode {
        EchoMode::None
    }
}

impl Controller for Bdp {
    type State = BdpState;
    type ExchangeState = ();

    fn new_state(&self) -> BdpState {
        BdpState {
            attempts: Attempts::default(),
            last_ack: Instant::ZERO,
            last_send: Instant::ZERO,
            acked: false,
            sent: false,
            cycle_index: 0,
            pg: Ratio::ONE,
            spacing: Nanos::ZERO,
            rto: CocoaRto::new(self.config.initial_rto),
        }
    }

    fn on_transmit(
        &self,
        st: &mut BdpState,
        now: Instant,
        ex: &mut Exchange<()>,
        _in_flight: usize,
        _rng: &mut dyn Rng,
    ) -> Duration {
        // Guess 1: the first sample is the first RTT.
        if !st.acked {
            st.set_last_ack_time(Some(now));
        }
        st.set_last_send_time(Some(now));
        // [S1] §3.2, guess 2: the window slides at every sending instant.
        st.attempts.push(Attempt { retransmission: ex.retransmissions() > 0, sample: None }, self.config.window);
        if ex.retransmissions() == 0 {
            // CoCoA-03 §4.3 aging, applied lazily before an original transmission (guess 6).
            st.rto.age(now, &self.config.rto_params());
        }
        // [S1] §3.2: RTO_init as in CoCoA+, not multiplied on successive losses. (The ceiling
        // also bounds Contiki aging, which sets 1 s whatever max_rto is.)
        st.rto.overall.get().min(self.config.max_rto)
    }

    fn on_timeout(&self, _st: &mut BdpState, _now: Instant, ex: &mut Exchange<()>) -> Retry {
        // [S1] §3.2: no gain or estimate update on a retransmission; RFC 7252 give-up.
        if ex.retransmissions() >= self.config.max_retransmit { Retry::GiveUp } else { Retry::Retransmit }
    }

    fn on_ack(&self, st: &mut BdpState, now: Instant, ex: &Exchange<()>, _ack: &Ack) {
        // Guess 1: inter-ACK time; every ACK moves last_ACK_time.
        let last = st.last_ack_time().unwrap_or(ex.first_sent());
        let sample = now - last;
        st.set_last_ack_time(Some(now));
        // CoCoA-03 §4.2: strong/weak sample measured from the original transmission.
        st.rto.on_sample(now, ex.retransmissions(), now - ex.first_sent(), &self.config.rto_params());
        // [S1] §3.2: the sample of an ACK of a retransmitted CON is cancelled, and neither
        // the gain nor the estimate is updated.
        if ex.retransmissions() > 0 {
            return;
        }
        st.attempts.set_newest_sample(Some(sample), self.config.window);
        self.update(st);
    }

    fn earliest_send(&self, st: &BdpState, now: Instant) -> Instant {
        match st.last_send_time() {
            Some(last) => last + st.spacing.get(),
            None => now,
        }
    }

    fn rto(&self, st: &BdpState, now: Instant) -> Option<Duration> {
        Some(st.rto.aged(now, &self.config.rto_params()).min(self.config.max_rto))
    }

    fn timer_bounds(&self) -> TimerBounds {
        // The overall RTO is capped by max_rto (initial_rto ≤ max_rto is checked); samples of
        // zero drive it towards zero.
        TimerBounds { min: Duration::ZERO, max: self.config.max_rto }
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
    use crate::harness::Event;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;
    use crate::harness::testing::{at, ms};
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn bdp(config: BdpConfig) -> Bound<Bdp> {
        Bound::new(Bdp::new(config).unwrap())
    }
    fn rng() -> Pcg64Mcg {
        Pcg64Mcg::seed_from_u64(1)
    }
    fn attempts(list: &[(bool, Option<u64>)]) -> Attempts {
        let mut w = Attempts::default();
        for &(retransmission, sample) in list {
            w.push(Attempt { retransmission, sample: sample.map(ms) }, WINDOW);
        }
        w
    }
    fn with_attempts(c: &mut Bound<Bdp>, list: &[(bool, Option<u64>)], cycle_index: u8) {
        let mut st = c.state();
        st.attempts = attempts(list);
        st.cycle_index = cycle_index;
        c.set_state(st);
    }
    fn transmit_times_ns(s: &Script<Bdp>) -> Vec<u64> {
        s.events
            .iter()
            .filter_map(|e| match e {
                Event::Transmit { at, .. } => Some(at.as_nanos()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_rto_is_cocoa_plus_and_is_never_backed_off() {
        // CoCoA-03 (spec §13 vector 2): a first strong sample of 0.4 s gives 1.6 s.
        let mut s = Script::new(bdp(BdpConfig::default()));
        s.send();
        s.wait_ms(400);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1600));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [2000, 1600, 1600, 1600, 1600, 1600]);
        assert_eq!(s.give_up_ms(), Some(500 + 5 * 1600));
    }

    #[test]
    fn the_replay_scenario_gives_the_blended_spacing_after_a_retransmission() {
        // Replay bdp-blended-filter, step by step.
        let mut s = Script::new(bdp(BdpConfig::default()));
        s.send();
        s.wait_ms(400);
        s.ack();
        assert_eq!((s.state().cycle_index, s.state().pg), (1, DRAIN_GAIN));
        assert_eq!(s.state().spacing, ms(500)); // 400 / 0.8
        s.send(); // held until 500
        s.wait_ms(100);
        s.wait_ms(400);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1300));
        assert_eq!(s.state().spacing, ms(400)); // min(400, 500), w = 0
        s.send();
        s.wait_ms(1300); // lost: copy 1 at 2200
        s.wait_ms(300);
        s.ack(); // retransmitted CON: weak RTO sample, no bandwidth sample, no phase
        assert_eq!(s.rto_ms(), Some(1575));
        assert_eq!((s.state().cycle_index, s.state().spacing.get()), (2, ms(400)));
        s.send(); // held until 2200 + 400
        s.wait_ms(100);
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.rto_ns(), Some(1_268_750_000));
        // Samples 400, 500, 600; one retransmission in the window: w = 0.1,
        // spacing = 400·600 / (0.1·400 + 0.9·600) = 413.793103 ms.
        assert_eq!(s.state().spacing, Duration::from_nanos(413_793_103));
        s.send();
        s.wait_ms(100);
        s.ack();
        assert_eq!(s.rto_ns(), Some(1_183_593_750));
        assert_eq!(s.state().spacing, Duration::from_nanos(109_090_909));
        s.send();
        s.wait_ms(10);
        assert_eq!(
            transmit_times_ns(&s),
            [0, 500_000_000, 900_000_000, 2_200_000_000, 2_600_000_000, 3_100_000_000, 3_209_090_909]
        );
    }

    #[test]
    fn the_ten_phase_cycle_probes_at_1_2_and_drains_at_0_8() {
        let mut c = bdp(BdpConfig::default());
        let mut r = rng();
        let mut gains = Vec::new();
        for i in 0..20u64 {
            let ex = c.start(at(i * 1000), 0, &mut r);
            c.on_ack(at(i * 1000 + 500), &ex, &Ack::AMBIGUOUS);
            gains.push((c.state().cycle_index, c.state().pg));
        }
        let one = Ratio::ONE;
        let cycle = [
            (1, DRAIN_GAIN),
            (2, one),
            (3, one),
            (4, one),
            (5, one),
            (6, one),
            (7, one),
            (8, one),
            (9, one),
            (0, PROBE_GAIN),
        ];
        assert_eq!(gains[..10], cycle);
        assert_eq!(gains[10..], cycle);
    }

    #[test]
    fn probe_and_drain_divide_the_filtered_spacing() {
        let mut c = bdp(BdpConfig::default());
        with_attempts(&mut c, &[(false, Some(600)), (false, None)], 9);
        let mut r = rng();
        let ex = c.start(at(0), 0, &mut r); // slot 3
        c.on_ack(at(600), &ex, &Ack::AMBIGUOUS); // inter-ACK 600 (from the first send)
        assert_eq!((c.state().cycle_index, c.state().spacing.get()), (0, ms(500))); // 600 / 1.2
        let ex = c.start(at(600), 0, &mut r);
        c.on_ack(at(1200), &ex, &Ack::AMBIGUOUS);
        assert_eq!((c.state().cycle_index, c.state().spacing.get()), (1, ms(750))); // 600 / 0.8
    }

    #[test]
    fn timeouts_and_acks_of_retransmitted_cons_change_neither_gain_nor_spacing() {
        let mut c = bdp(BdpConfig::default());
        let mut r = rng();
        let mut ex = c.start(at(0), 0, &mut r);
        with_attempts(&mut c, &[(false, Some(300))], 4);
        let before = c.state();
        assert_eq!(c.on_timeout(at(2000), &mut ex), Retry::Retransmit);
        c.retransmit(at(2000), &mut ex, &mut r);
        c.on_ack(at(2100), &ex, &Ack::AMBIGUOUS);
        let after = c.state();
        assert_eq!((after.cycle_index, after.pg, after.spacing), (before.cycle_index, before.pg, before.spacing));
        // The retransmission opened a slot that stays empty; last_ACK_time still moved.
        assert_eq!(after.attempts.len(), 2);
        assert_eq!(after.attempts.iter().filter(|a| a.sample.is_some()).count(), 1);
        assert!(after.attempts.iter().any(|a| a.retransmission && a.sample.is_none()));
        assert_eq!(after.last_ack_time(), Some(at(2100)));
    }

    #[test]
    fn an_attempt_pushed_over_a_retransmission_clears_its_flag() {
        // Window of 3: the retransmission in slot 1 is overwritten by the fifth attempt.
        let mut w = Attempts::default();
        for (i, retransmission) in [false, true, false, false, false].into_iter().enumerate() {
            w.push(Attempt { retransmission, sample: Some(ms(i as u64)) }, 3);
        }
        assert_eq!(w.len(), 3);
        assert_eq!(w.iter().filter(|a| a.retransmission).count(), 0);
        w.push(Attempt { retransmission: true, sample: None }, 3);
        w.set_newest_sample(Some(ms(9)), 3);
        let v: Vec<Attempt> = w.iter().collect();
        assert_eq!(v.iter().filter(|a| a.retransmission).count(), 1);
        assert!(v.contains(&Attempt { retransmission: true, sample: Some(ms(9)) }));
    }

    #[test]
    fn lost_attempts_slide_samples_out_of_the_window() {
        // Guess 2: ten samples, then ten unanswered attempts: the window holds no sample.
        let mut c = bdp(BdpConfig::default());
        let mut r = rng();
        for i in 0..10u64 {
            let ex = c.start(at(i * 1000), 0, &mut r);
            c.on_ack(at(i * 1000 + 400), &ex, &Ack::AMBIGUOUS);
        }
        assert!(c.filtered_spacing(&c.st).is_some());
        let spacing = c.state().spacing;
        let mut ex = c.start(at(20_000), 0, &mut r);
        for k in 1..=4u64 {
            c.on_timeout(at(20_000 + k * 2000), &mut ex);
            c.retransmit(at(20_000 + k * 2000), &mut ex, &mut r);
        }
        assert_eq!(c.on_timeout(at(40_000), &mut ex), Retry::GiveUp);
        let mut ex = c.start(at(40_000), 0, &mut r);
        for k in 1..=4u64 {
            c.on_timeout(at(40_000 + k * 2000), &mut ex);
            c.retransmit(at(40_000 + k * 2000), &mut ex, &mut r);
        }
        assert_eq!(c.filtered_spacing(&c.st), None);
        assert_eq!(c.state().spacing, spacing, "an empty window leaves the spacing as it was");
    }

    #[test]
    fn without_retransmissions_in_the_window_the_filter_is_the_max_bandwidth() {
        let mut c = bdp(BdpConfig::default());
        with_attempts(&mut c, &[(false, Some(400)), (false, Some(900)), (false, Some(650))], 0);
        assert_eq!(c.filtered_spacing(&c.st), Some(ms(400)));
    }

    #[test]
    fn each_retransmission_in_the_window_moves_the_filter_towards_the_min_bandwidth() {
        let mut c = bdp(BdpConfig::default());
        // w = 2/10: 1 / (0.2/1000 + 0.8/500) = 555.555556 ms.
        with_attempts(&mut c, &[(false, Some(500)), (true, None), (true, None), (false, Some(1000))], 0);
        assert_eq!(c.filtered_spacing(&c.st), Some(Duration::from_nanos(555_555_556)));
        // w = min(1, 3/2) = 1 with a divisor of 2: the min bandwidth (longest spacing).
        let mut c = bdp(BdpConfig { weight_divisor: 2, ..Default::default() });
        with_attempts(&mut c, &[(false, Some(500)), (true, None), (true, None), (true, None), (false, Some(1000))], 0);
        assert_eq!(c.filtered_spacing(&c.st), Some(ms(1000)));
    }

    #[test]
    fn the_blend_survives_zero_and_huge_samples() {
        assert_eq!(blended_spacing(Duration::ZERO, Duration::ZERO, Ratio::new(1, 2)), Duration::ZERO);
        assert_eq!(blended_spacing(Duration::ZERO, ms(5), Ratio::new(1, 2)), Duration::ZERO);
        let max = Duration::from_nanos(u64::MAX);
        assert_eq!(blended_spacing(max, max, Ratio::new(1, 10)), max);
        assert_eq!(blended_spacing(ms(1), max, Ratio::ONE), max);
    }

    #[test]
    fn aging_applies_before_an_original_transmission() {
        // CoCoA-03 aging (spec §13 vector 4): 4 s idle for 16.1 s → 3 s.
        let mut c = bdp(BdpConfig::default());
        let mut st = c.state();
        st.rto = CocoaRto::new(ms(2000)).with_overall(ms(4000), Some(at(0)), true);
        c.set_state(st);
        assert_eq!(c.rto(at(16_100)), Some(ms(3000)));
        let mut r = rng();
        assert_eq!(c.start(at(16_100), 0, &mut r).timer(), ms(3000));
    }

    #[test]
    fn the_ceiling_holds_even_when_contiki_aging_sets_1_s() {
        let mut c =
            bdp(BdpConfig { aging: Aging::Contiki, max_rto: ms(500), initial_rto: ms(500), ..Default::default() });
        let mut st = c.state();
        st.rto = CocoaRto::new(ms(500)).with_overall(ms(300), Some(at(0)), true);
        c.set_state(st);
        assert_eq!(c.rto(at(10_000)), Some(ms(500)));
        assert_eq!(c.start(at(10_000), 0, &mut rng()).timer(), ms(500));
    }

    #[test]
    fn give_up_comes_exactly_after_max_retransmit_retransmissions() {
        for r in [0u8, 4, 6] {
            let mut s = Script::new(bdp(BdpConfig { max_retransmit: r, ..Default::default() }));
            s.send();
            s.wait_ms(10_000_000);
            assert_eq!(s.timers_ms().len(), usize::from(r) + 1);
            assert!(s.give_up_ms().is_some());
        }
    }

    #[test]
    fn timers_stay_within_the_bounds_for_zero_and_huge_rtts() {
        let mut s = Script::new(bdp(BdpConfig::default()));
        let bounds = s.alg().timer_bounds();
        assert_eq!(bounds, TimerBounds { min: Duration::ZERO, max: ms(32_000) });
        s.send();
        s.ack();
        s.send();
        s.wait_ns(u64::MAX / 2);
        s.send();
        s.wait_ms(100);
        s.ack();
        for t in s.timers_ns() {
            assert!(t >= bounds.min.as_nanos() as u64 && t <= bounds.max.as_nanos() as u64, "{t}");
        }
    }

    #[test]
    fn out_of_range_keys_are_rejected_by_name() {
        let bad = |c: BdpConfig| Bdp::new(c).unwrap_err().key;
        assert_eq!(bad(BdpConfig { window: 0, ..Default::default() }), "window");
        assert_eq!(bad(BdpConfig { window: 17, ..Default::default() }), "window");
        assert_eq!(bad(BdpConfig { cycle_length: 0, ..Default::default() }), "cycle_length");
        assert_eq!(bad(BdpConfig { probe_gain: Ratio::ZERO, ..Default::default() }), "probe_gain");
        assert_eq!(bad(BdpConfig { drain_gain: Ratio::ZERO, ..Default::default() }), "drain_gain");
        assert_eq!(bad(BdpConfig { weight_divisor: 0, ..Default::default() }), "weight_divisor");
        assert_eq!(bad(BdpConfig { max_rto: Duration::ZERO, ..Default::default() }), "max_rto_ms");
        assert_eq!(bad(BdpConfig { initial_rto: ms(40_000), ..Default::default() }), "initial_rto_ms");
    }

    #[test]
    fn bdps_state_a_window_of_up_to_16_attempts_pacing_cocoa_plus_estimator_fits_240_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<Bdp as Controller>::State>();
        assert!(bytes <= 240, "{bytes} bytes");
    }
}
