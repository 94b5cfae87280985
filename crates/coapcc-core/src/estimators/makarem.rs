//! The Makarem RTO estimator (Makarem, Bou Diab, Mougharbel, Malouch, Computer Networks 207,
//! 2022 \[S1\], §5.1 Algorithm 2; spec §8.1), shared by [`crate::algorithms::idc`] and [`crate::algorithms::mbc`], and
//! usable on its own (the simulator's RTT-trace model feeds it samples and reads the RTO).
//!
//! ```text
//! first sample R:  SRTT ← R, RTTVAR ← R/2
//! later samples:   SRTT ← (1−α)·SRTT + α·R                    (SRTT first, unlike RFC 6298)
//!                  RTTVAR ← (1−α)·RTTVAR + α·|SRTT − R|  if R > SRTT (new SRTT; rising RTT)
//!                  RTTVAR ← (1−γ)·RTTVAR + γ·|SRTT − R|  otherwise   (falling RTT: slowly)
//! every sample:    K ← 7 if spurious else 4;  RTO ← SRTT + K·RTTVAR
//! ```
//!
//! α = 1/8, γ = 1/32, initial RTO 2 s (the CoAP default, implied by \[S1\]). No dithering and no
//! backoff: IDC/MBC only detect losses with it, pacing reacts. \[S1\] has no lower or upper
//! bound; [`MakaremRtoParams::min_rto`] and [`MakaremRtoParams::max_rto`] are options that
//! default to "none" (see "Zero RTO" below).
//!
//! # The spurious flag (spec OQ-27)
//!
//! \[S1\]'s simulator knows per transmission whether it was spurious (a retransmission sent
//! while the copy it waited for was not lost: RTO < RTT). K for the RTO computed from the
//! sample of an exchange is chosen from *that* exchange's flag ("if the previous transmission
//! is spurious, RTO must be increased"). Two ways to get it:
//! * a sender: [`is_spurious`] reads the acknowledgement. When it echoes the acknowledged copy
//!   (pCoCoA TC option, FASOR Rexmit-Cnt, a token byte, or the simulator's ground truth) and
//!   that copy j is older than the latest copy, copies j+1.. were spurious (exact). An ACK
//!   without an echo is read as **not spurious**: the sender cannot tell, and guessing "yes"
//!   would raise K after every lossy exchange.
//! * a trace model: [`MakaremRto::observe`] applies \[S1\]'s ground-truth rule (the current RTO
//!   is shorter than the RTT it waits for) and then takes the sample.
//!
//! # Which samples (spec OQ-28)
//!
//! [`SampleSource`] selects what an ACK contributes ([`rtt_sample`]): by default the exact RTT
//! of the echoed copy, else of the latest copy.
//!
//! # Zero RTO
//!
//! A sample of exactly zero gives RTO 0 (and \[S1\] has no floor): a zero timer expires at the
//! instant it is armed, so all retransmissions of an exchange would leave at once when the
//! pacing spacing is zero as well. It takes RTTs of zero nanoseconds to get there, which no
//! network produces, so the default keeps \[S1\]'s "no bound"; `min_rto_ms` sets a floor for
//! clocks too coarse to see the RTT (a deviation only when set).

use core::time::Duration;

use crate::config::ConfigError;
use crate::controller::{Ack, EchoMode, Exchange};
use crate::ratio::Ratio;
use crate::time::{Instant, Nanos, OptNanos, abs_diff, add, div, from_nanos, mul};

/// \[S1\] §5.1: SRTT gain, and RTTVAR gain when the RTT rises (α = 1/8).
pub const ALPHA: Ratio = Ratio::new(1, 8);
/// \[S1\] §5.1: RTTVAR gain when the RTT falls (γ = 1/32; design rule α > γ).
pub const GAMMA: Ratio = Ratio::new(1, 32);
/// \[S1\] Algorithm 2: variance multiplier K without a spurious transmission.
pub const K: u8 = 4;
/// \[S1\] Algorithm 2: variance multiplier K after a spurious transmission.
pub const K_SPURIOUS: u8 = 7;
/// Spec §8.1: RTO before the first sample, the CoAP default of 2 s (implied by \[S1\]).
pub const INITIAL_RTO: Duration = Duration::from_secs(2);

/// Which RTT samples an acknowledgement contributes (spec OQ-28; \[S1\] is silent because its
/// simulator knows every RTT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum SampleSource {
    /// Exact matching (spec OQ-28 default): when the ACK echoes the acknowledged copy, the
    /// RTT of that copy; otherwise the RTT of the latest copy (without an echo the latest
    /// copy is the best guess; an exchange without retransmissions is exact either way).
    #[default]
    Exact,
    /// Only exchanges without retransmissions give a sample (Karn), measured from the
    /// original transmission.
    Unambiguous,
    /// Always the RTT of the latest copy, ignoring any echo (Lim \[S4\] style).
    Latest,
}

impl SampleSource {
    /// The echo a sender matching samples this way needs (spec OQ-28): exact matching reads
    /// the transmission-count option ("as with a TC option"); the other two never read an
    /// echo.
    pub fn echo_mode(self) -> EchoMode {
        match self {
            SampleSource::Exact => EchoMode::Option,
            SampleSource::Unambiguous | SampleSource::Latest => EchoMode::None,
        }
    }
}

/// The RTT sample an acknowledgement at `now` of `ex` contributes under `source`, if any.
pub fn rtt_sample<X>(source: SampleSource, now: Instant, ex: &Exchange<X>, ack: &Ack) -> Option<Duration> {
    match source {
        SampleSource::Exact => Some(match ack.echo {
            Some(echo) => now - echo.sent,
            None => now - ex.last_sent(),
        }),
        SampleSource::Unambiguous => (ex.retransmissions() == 0).then(|| now - ex.first_sent()),
        SampleSource::Latest => Some(now - ex.last_sent()),
    }
}

/// Spec OQ-27: whether the exchange just acknowledged made a spurious retransmission, as far
/// as the acknowledgement tells: an echo naming a copy older than the latest one means the
/// later copies were not needed. Without an echo: `false` (see the module docs).
pub fn is_spurious<X>(ex: &Exchange<X>, ack: &Ack) -> bool {
    ack.echo.is_some_and(|echo| echo.copy < ex.retransmissions())
}

/// Constants of the Makarem estimator. `Default` is \[S1\]'s values. IDC and MBC carry it as
/// their `rto` field; its keys sit beside theirs (the `config_with_makarem_rto!` macro).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakaremRtoParams {
    /// α: SRTT gain, and RTTVAR gain when R > SRTT.
    pub alpha: Ratio,
    /// γ: RTTVAR gain when R ≤ SRTT.
    pub gamma: Ratio,
    /// K without a spurious transmission.
    pub k: u8,
    /// K after a spurious transmission.
    pub k_spurious: u8,
    /// RTO before the first sample.
    pub initial_rto: Duration,
    /// Floor on the RTO (not in \[S1\]; zero = no floor).
    pub min_rto: Duration,
    /// Ceiling on the RTO (not in \[S1\]; `None` = no ceiling).
    pub max_rto: Option<Duration>,
}

impl Default for MakaremRtoParams {
    fn default() -> Self {
        MakaremRtoParams {
            alpha: ALPHA,
            gamma: GAMMA,
            k: K,
            k_spurious: K_SPURIOUS,
            initial_rto: INITIAL_RTO,
            min_rto: Duration::ZERO,
            max_rto: None,
        }
    }
}

impl MakaremRtoParams {
    /// Checks the constants; errors name the configuration keys IDC and MBC use.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.alpha.is_zero() || self.alpha > Ratio::ONE {
            return Err(ConfigError::new("alpha", "must be in (0, 1]"));
        }
        if self.gamma.is_zero() || self.gamma > Ratio::ONE {
            return Err(ConfigError::new("gamma", "must be in (0, 1]"));
        }
        if let Some(max) = self.max_rto {
            if max.is_zero() {
                return Err(ConfigError::new("max_rto_ms", "must be greater than 0 (or \"none\")"));
            }
            if max < self.min_rto {
                return Err(ConfigError::new("max_rto_ms", "must not be below min_rto_ms"));
            }
            if self.initial_rto > max {
                return Err(ConfigError::new("initial_rto_ms", "must not exceed max_rto_ms"));
            }
        }
        if self.initial_rto < self.min_rto {
            return Err(ConfigError::new("initial_rto_ms", "must not be below min_rto_ms"));
        }
        // k and k_spurious: every u8 is valid (K = 0 gives RTO = SRTT).
        Ok(())
    }

    /// The smallest RTO the estimator can produce: `min_rto`.
    pub fn lowest(&self) -> Duration {
        self.min_rto
    }

    /// The largest RTO the estimator can produce: `max_rto`, else the saturated duration
    /// (samples are unbounded, and SRTT + 7·RTTVAR saturates).
    pub fn highest(&self) -> Duration {
        self.max_rto.unwrap_or(from_nanos(u64::MAX))
    }

    fn clamp(&self, rto: Duration) -> Duration {
        let rto = rto.max(self.min_rto);
        match self.max_rto {
            Some(max) => rto.min(max),
            None => rto,
        }
    }
}

/// State of the Makarem estimator, kept compactly: durations in 8-byte [`Nanos`]/[`OptNanos`]
/// (32 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakaremRto {
    /// Smoothed RTT; `None` before the first sample.
    pub srtt: OptNanos,
    /// RTT variation (zero before the first sample).
    pub rttvar: Nanos,
    /// The current RTO (armed, undithered, for every transmission).
    pub rto: Nanos,
    /// The spurious flag used for the latest RTO computation (K = 7 when set).
    pub spurious: bool,
}

impl MakaremRto {
    /// A fresh estimator with the initial RTO of `p` (saturating at `u64::MAX` ns).
    pub fn new(p: &MakaremRtoParams) -> Self {
        MakaremRto { srtt: OptNanos::NONE, rttvar: Nanos::ZERO, rto: Nanos::new(p.initial_rto), spurious: false }
    }

    /// The current RTO.
    pub const fn rto(&self) -> Duration {
        self.rto.get()
    }

    /// Folds in the RTT sample `r` of an exchange; `spurious` says whether that exchange made
    /// a spurious retransmission (\[S1\] Algorithm 2; K = 7 when set). Returns the new RTO.
    pub fn sample(&mut self, r: Duration, spurious: bool, p: &MakaremRtoParams) -> Duration {
        let (srtt, rttvar) = match self.srtt.get() {
            // [S1] §5.1: the first sample sets SRTT = R, RTTVAR = R/2.
            None => (r, div(r, 2)),
            Some(old) => {
                // [S1] Algorithm 2 line 1: SRTT is updated first.
                let srtt = p.alpha.blend(r, old);
                // Lines 2–6: the deviation from the *new* SRTT; fast (α) when the RTT rises.
                let gain = if r > srtt { p.alpha } else { p.gamma };
                (srtt, gain.blend(abs_diff(srtt, r), self.rttvar.get()))
            }
        };
        // Lines 7–12: K = 7 after a spurious transmission, else 4; RTO = SRTT + K·RTTVAR.
        let k = if spurious { p.k_spurious } else { p.k };
        self.srtt = OptNanos::new(Some(srtt));
        self.rttvar = Nanos::new(rttvar);
        self.spurious = spurious;
        self.rto = Nanos::new(p.clamp(add(srtt, mul(rttvar, u64::from(k)))));
        self.rto.get()
    }

    /// \[S1\]'s ground-truth rule for trace-driven runs: a transmission that waits `r` for its
    /// ACK with the current RTO is spurious when RTO < `r`.
    pub fn would_be_spurious(&self, r: Duration) -> bool {
        self.rto.get() < r
    }

    /// Trace-model step: decides the spurious flag by [`MakaremRto::would_be_spurious`], then
    /// takes the sample. Returns whether the transmission was spurious.
    pub fn observe(&mut self, r: Duration, p: &MakaremRtoParams) -> bool {
        let spurious = self.would_be_spurious(r);
        self.sample(r, spurious, p);
        spurious
    }
}

/// Declares a configuration struct (IDC, MBC) with its own fields plus `rto:`
/// [`MakaremRtoParams`], and its serde (de)serialisation with the estimator's keys flat beside
/// its own (`alpha`, `gamma`, `k`, `k_spurious`, `initial_rto_ms`, `min_rto_ms`,
/// `max_rto_ms`), unknown keys rejected. Serde's `flatten` cannot be combined with
/// `deny_unknown_fields`, so the flat form is written here once for both algorithms. Field
/// attributes are `#[serde(...)]` (used by the flat form only). The struct's `Default` must be
/// implemented beside it.
macro_rules! config_with_makarem_rto {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $fdoc:literal])*
                $(#[serde($($fserde:tt)*)])?
                pub $field:ident: $ty:ty,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            $( $(#[doc = $fdoc])* pub $field: $ty, )*
            /// The RTO estimator's constants (spec §8.1; keys `alpha`, `gamma`, `k`,
            /// `k_spurious`, `initial_rto_ms`, `min_rto_ms`, `max_rto_ms` beside the others).
            pub rto: $crate::estimators::makarem::MakaremRtoParams,
        }

        #[cfg(feature = "serde")]
        const _: () = {
            use core::time::Duration;
            use $crate::estimators::makarem::MakaremRtoParams;
            use $crate::ratio::Ratio;

            #[derive(serde::Serialize, serde::Deserialize)]
            #[serde(deny_unknown_fields, default)]
            struct Flat {
                $( $(#[serde($($fserde)*)])? $field: $ty, )*
                alpha: Ratio,
                gamma: Ratio,
                k: u8,
                k_spurious: u8,
                #[serde(rename = "initial_rto_ms", with = "crate::config::serde_ms")]
                initial_rto: Duration,
                #[serde(rename = "min_rto_ms", with = "crate::config::serde_ms")]
                min_rto: Duration,
                #[serde(rename = "max_rto_ms", with = "crate::config::serde_opt_ms")]
                max_rto: Option<Duration>,
            }

            impl From<$name> for Flat {
                fn from(c: $name) -> Self {
                    let MakaremRtoParams { alpha, gamma, k, k_spurious, initial_rto, min_rto, max_rto } = c.rto;
                    Flat { $($field: c.$field,)* alpha, gamma, k, k_spurious, initial_rto, min_rto, max_rto }
                }
            }

            impl From<Flat> for $name {
                fn from(f: Flat) -> Self {
                    let Flat { $($field,)* alpha, gamma, k, k_spurious, initial_rto, min_rto, max_rto } = f;
                    $name { $($field,)* rto: MakaremRtoParams { alpha, gamma, k, k_spurious, initial_rto, min_rto, max_rto } }
                }
            }

            impl Default for Flat {
                fn default() -> Self {
                    $name::default().into()
                }
            }

            impl serde::Serialize for $name {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    Flat::from(*self).serialize(s)
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    <Flat as serde::Deserialize<'de>>::deserialize(d).map(Into::into)
                }
            }
        };
    };
}

pub(crate) use config_with_makarem_rto;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::{Controller, Echo};
    use crate::harness::testing::{at, ms};

    #[test]
    fn samples_of_0_5_then_0_6_s_give_an_rto_of_1_5_then_1_43125_s() {
        // Spec §13 vector 6 and the §8.1 worked example.
        let p = MakaremRtoParams::default();
        let mut e = MakaremRto::new(&p);
        assert_eq!(e.rto(), ms(2000));
        assert_eq!(e.sample(ms(500), false, &p), ms(1500));
        assert_eq!((e.srtt.get(), e.rttvar.get()), (Some(ms(500)), ms(250)));
        assert_eq!(e.sample(ms(600), false, &p), Duration::from_nanos(1_431_250_000));
        assert_eq!(
            (e.srtt.get(), e.rttvar.get()),
            (Some(Duration::from_micros(512_500)), Duration::from_nanos(229_687_500))
        );
    }

    #[test]
    fn a_falling_rtt_moves_rttvar_with_gamma() {
        // SRTT 512.5 → 461.1875 ms; R = 102 ≤ SRTT: RTTVAR = 31/32·229.6875 + 1/32·359.1875.
        let p = MakaremRtoParams::default();
        let mut e = MakaremRto {
            srtt: Some(Duration::from_micros(512_500)).into(),
            rttvar: Duration::from_nanos(229_687_500).into(),
            ..MakaremRto::new(&p)
        };
        e.sample(ms(102), false, &p);
        assert_eq!(e.srtt, Some(Duration::from_nanos(461_187_500)));
        assert_eq!(e.rttvar, Duration::from_nanos(233_734_375));
        assert_eq!(e.rto, Duration::from_nanos(1_396_125_000));
    }

    #[test]
    fn a_sample_equal_to_the_new_srtt_counts_as_falling() {
        let p = MakaremRtoParams::default();
        let mut e = MakaremRto { srtt: Some(ms(800)).into(), rttvar: ms(320).into(), ..MakaremRto::new(&p) };
        e.sample(ms(800), false, &p);
        // γ path: 31/32·320 = 310.
        assert_eq!(e.rttvar, ms(310));
    }

    #[test]
    fn a_spurious_exchange_uses_k_7() {
        let p = MakaremRtoParams::default();
        let mut e = MakaremRto::new(&p);
        // SRTT 2.5 s, RTTVAR 1.25 s: 2.5 + 7·1.25 = 11.25 s.
        assert_eq!(e.sample(ms(2500), true, &p), ms(11_250));
        assert!(e.spurious);
        // Not spurious again: back to K = 4 (spec §13-style numbers, see the idc replay).
        assert_eq!(e.sample(ms(2000), false, &p), Duration::from_nanos(7_335_937_500));
    }

    #[test]
    fn the_floor_and_the_ceiling_clamp_the_rto() {
        let p = MakaremRtoParams { min_rto: ms(100), max_rto: Some(ms(5000)), ..Default::default() };
        let mut e = MakaremRto::new(&p);
        assert_eq!(e.sample(Duration::ZERO, false, &p), ms(100));
        let mut e = MakaremRto::new(&p);
        assert_eq!(e.sample(ms(60_000), false, &p), ms(5000));
    }

    #[test]
    fn zero_and_huge_samples_neither_panic_nor_wrap() {
        let p = MakaremRtoParams::default();
        let mut e = MakaremRto::new(&p);
        assert_eq!(e.sample(Duration::ZERO, false, &p), Duration::ZERO);
        // SRTT = MAX/8, RTTVAR = 7/64·MAX: RTO = 57/64 of the saturated duration.
        let rto = e.sample(Duration::MAX, true, &p).as_nanos();
        assert!(rto > u64::MAX as u128 / 64 * 56 && rto < u64::MAX as u128 / 64 * 58, "{rto}");
        let mut e = MakaremRto::new(&p);
        assert_eq!(e.sample(Duration::MAX, true, &p), from_nanos(u64::MAX));
        e.sample(Duration::ZERO, false, &p);
        assert!(e.rto() <= p.highest());
    }

    #[test]
    fn the_trace_model_calls_a_transmission_spurious_when_the_rto_is_below_its_rtt() {
        let p = MakaremRtoParams::default();
        let mut e = MakaremRto::new(&p);
        assert!(!e.observe(ms(2000), &p)); // RTO 2 s is not below 2 s
        assert_eq!(e.rto, ms(6000));
        assert!(e.observe(ms(6001), &p));
        assert!(e.spurious);
    }

    #[test]
    fn invalid_constants_name_their_key() {
        let bad = |p: MakaremRtoParams| p.check().unwrap_err().key;
        assert_eq!(bad(MakaremRtoParams { alpha: Ratio::ZERO, ..Default::default() }), "alpha");
        assert_eq!(bad(MakaremRtoParams { gamma: Ratio::new(3, 2), ..Default::default() }), "gamma");
        assert_eq!(bad(MakaremRtoParams { max_rto: Some(Duration::ZERO), ..Default::default() }), "max_rto_ms");
        assert_eq!(bad(MakaremRtoParams { max_rto: Some(ms(1000)), ..Default::default() }), "initial_rto_ms");
        assert_eq!(bad(MakaremRtoParams { min_rto: ms(3000), ..Default::default() }), "initial_rto_ms");
        assert!(MakaremRtoParams::default().check().is_ok());
    }

    /// An exchange sent at 0 with retransmissions at 1 s and 2 s (through any controller).
    fn exchange_with_two_retransmissions() -> (Exchange<()>, [Instant; 3]) {
        struct Fixed;
        impl Controller for Fixed {
            type State = ();
            type ExchangeState = ();
            fn new_state(&self) {}
            fn on_transmit(
                &self,
                _: &mut (),
                _: Instant,
                _: &mut Exchange<()>,
                _: usize,
                _: &mut dyn crate::random::Rng,
            ) -> Duration {
                ms(1000)
            }
            fn on_timeout(&self, _: &mut (), _: Instant, _: &mut Exchange<()>) -> crate::controller::Retry {
                crate::controller::Retry::Retransmit
            }
            fn on_ack(&self, _: &mut (), _: Instant, _: &Exchange<()>, _: &Ack) {}
            fn rto(&self, _: &(), _: Instant) -> Option<Duration> {
                None
            }
            fn timer_bounds(&self) -> crate::controller::TimerBounds {
                crate::controller::TimerBounds { min: ms(1000), max: ms(1000) }
            }
        }
        use rand_core::SeedableRng;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let c = Fixed;
        let mut ex = c.start(&mut (), at(0), 0, &mut rng);
        c.retransmit(&mut (), at(1000), &mut ex, &mut rng);
        c.retransmit(&mut (), at(2000), &mut ex, &mut rng);
        (ex, [at(0), at(1000), at(2000)])
    }

    #[test]
    fn exact_samples_use_the_echoed_copy_else_the_latest() {
        let (ex, sent) = exchange_with_two_retransmissions();
        let echo0 = Ack { echo: Some(Echo { copy: 0, sent: sent[0] }) };
        assert_eq!(rtt_sample(SampleSource::Exact, at(2300), &ex, &echo0), Some(ms(2300)));
        assert_eq!(rtt_sample(SampleSource::Exact, at(2300), &ex, &Ack::AMBIGUOUS), Some(ms(300)));
    }

    #[test]
    fn unambiguous_samples_skip_retransmitted_exchanges() {
        let (ex, sent) = exchange_with_two_retransmissions();
        let echo = Ack { echo: Some(Echo { copy: 2, sent: sent[2] }) };
        assert_eq!(rtt_sample(SampleSource::Unambiguous, at(2300), &ex, &echo), None);
        let clean = Exchange::<()>::new(at(0));
        assert_eq!(rtt_sample(SampleSource::Unambiguous, at(400), &clean, &Ack::AMBIGUOUS), Some(ms(400)));
    }

    #[test]
    fn latest_samples_ignore_the_echo() {
        let (ex, sent) = exchange_with_two_retransmissions();
        let echo0 = Ack { echo: Some(Echo { copy: 0, sent: sent[0] }) };
        assert_eq!(rtt_sample(SampleSource::Latest, at(2300), &ex, &echo0), Some(ms(300)));
    }

    #[test]
    fn an_echo_of_an_older_copy_marks_the_exchange_spurious_and_no_echo_does_not() {
        let (ex, sent) = exchange_with_two_retransmissions();
        let echo = |k: u8| Ack { echo: Some(Echo { copy: k, sent: sent[k as usize] }) };
        assert!(is_spurious(&ex, &echo(0)));
        assert!(is_spurious(&ex, &echo(1)));
        assert!(!is_spurious(&ex, &echo(2)));
        assert!(!is_spurious(&ex, &Ack::AMBIGUOUS));
    }

    #[test]
    fn the_makarem_estimator_srtt_rttvar_rto_and_spurious_flag_fits_32_bytes() {
        // Part of IDC's and MBC's per-destination state (README algorithm table).
        let bytes = core::mem::size_of::<MakaremRto>();
        assert!(bytes <= 32, "{bytes} bytes");
    }
}
