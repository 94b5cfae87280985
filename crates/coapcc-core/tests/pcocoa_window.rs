//! pCoCoA keeps, for the raise rule of block 2, only the newest `raise_after − 1` RTTVAR values
//! of the current raise run. This test drives it with random sample sequences (rising runs,
//! drops, zero and huge RTTs, clock jumps of days and to the end of time, random
//! configurations) next to a model with the representation it had before: a history of the
//! RTTVAR of each of the last 8 counted samples, newest first, whose newest `raise_after`
//! values a raise averages. After every sample, SRTT, RTTVAR, mdev_max, RTO_init, both runs
//! and the RTO the controller arms must be those of the model.
#![cfg(feature = "pcocoa")]

use coapcc_core::algorithms::pcocoa::{FirstSample, PCocoa, PCocoaConfig, PCocoaState};
use coapcc_core::duration::{add, from_nanos, mul, nanos};
use coapcc_core::{Controller, Duration, Instant, Ratio};
use proptest::prelude::*;

/// The former representation of block 2's history: the RTTVAR of each of the last 8 counted
/// samples (newest first) and how many are valid; a raise took the mean (rounded half up) of
/// the newest `min(raise_after, valid)`, at least one.
#[derive(Clone, Copy, Default)]
struct FormerHistory {
    recent: [u64; 8],
    len: usize,
}

impl FormerHistory {
    fn push(&mut self, rttvar_ns: u64) {
        self.recent.rotate_right(1);
        self.recent[0] = rttvar_ns;
        self.len = (self.len + 1).min(8);
    }

    fn mean(&self, n: u8) -> u64 {
        let n = usize::from(n).min(self.len).max(1);
        let sum: u128 = self.recent[..n].iter().map(|&v| u128::from(v)).sum();
        let n = n as u128;
        u64::try_from((sum + n / 2) / n).unwrap_or(u64::MAX)
    }
}

/// pCoCoA's estimator (spec §5.2–5.3, blocks 1–4) written from the spec over the former
/// history, in whole nanoseconds.
struct Model {
    c: PCocoaConfig,
    srtt: Option<u64>,
    rttvar: u64,
    mdev_max: u64,
    rto_init: u64,
    raise_run: u8,
    decay_run: u8,
    history: FormerHistory,
}

impl Model {
    fn new(c: PCocoaConfig) -> Self {
        Model {
            c,
            srtt: None,
            rttvar: 0,
            mdev_max: 0,
            rto_init: nanos(c.initial_rto),
            raise_run: 0,
            decay_run: 0,
            history: FormerHistory::default(),
        }
    }

    /// `w·a + (1 − w)·b`, rounded half up.
    fn blend(w: Ratio, a: u64, b: u64) -> u64 {
        nanos(w.blend(from_nanos(a), from_nanos(b)))
    }

    fn sample(&mut self, r: u64, spurious: bool) {
        let c = self.c;
        let first = self.srtt.is_none();
        let srtt = match self.srtt {
            None => {
                self.rttvar = r / 2;
                self.mdev_max = self.rttvar;
                r
            }
            Some(old) => {
                let srtt = Self::blend(c.alpha, r, old);
                let dev = srtt.abs_diff(r);
                let gain = if r < srtt.saturating_sub(self.rttvar) {
                    c.gamma
                } else if dev > self.rttvar {
                    c.beta
                } else {
                    c.alpha
                };
                self.rttvar = Self::blend(gain, dev, self.rttvar);
                if r > srtt {
                    self.history.push(self.rttvar);
                    if self.rttvar > self.mdev_max {
                        self.raise_run = self.raise_run.saturating_add(1);
                        self.decay_run = 0;
                    } else if self.rttvar < self.mdev_max {
                        self.decay_run = self.decay_run.saturating_add(1);
                        self.raise_run = 0;
                    } else {
                        (self.raise_run, self.decay_run) = (0, 0);
                    }
                    if self.raise_run >= c.raise_after {
                        self.mdev_max = self.history.mean(c.raise_after);
                    } else if self.decay_run >= c.decay_after {
                        self.mdev_max = Self::blend(c.beta, self.rttvar, self.mdev_max);
                    }
                }
                srtt
            }
        };
        // Kept in an `OptNanos`, whose largest value is u64::MAX − 1 ns (this sample's SRTO
        // uses the value before that clamp).
        self.srtt = Some(srtt.min(u64::MAX - 1));
        let k = u64::from(if spurious { c.k_spurious } else { c.k });
        let srto = nanos(add(from_nanos(srtt), mul(from_nanos(self.rttvar), k).max(from_nanos(self.mdev_max))));
        let rto_init =
            if first && c.first_sample == FirstSample::Set { srto } else { Self::blend(c.delta, self.rto_init, srto) };
        self.rto_init = rto_init.min(nanos(c.cap));
    }

    /// Whether `st` holds the model's values.
    fn matches(&self, st: &PCocoaState) -> Result<(), TestCaseError> {
        prop_assert_eq!(st.srtt.get().map(nanos), self.srtt);
        prop_assert_eq!(nanos(st.rttvar.get()), self.rttvar);
        prop_assert_eq!(nanos(st.mdev_max.get()), self.mdev_max);
        prop_assert_eq!(nanos(st.rto_init.get()), self.rto_init);
        prop_assert_eq!((st.raise_run, st.decay_run), (self.raise_run, self.decay_run));
        Ok(())
    }
}

/// One RTT sample, chosen relative to the current SRTT and RTTVAR so that runs of
/// exceedances (rising RTTs) are common, or absolute (zero, huge, anything).
#[derive(Clone, Copy, Debug)]
enum Rtt {
    /// SRTT + (2 + m % 4)·RTTVAR + x % 1 ms: a large deviation upwards.
    Rising(u64),
    /// SRTT + x % (RTTVAR + 1): just above SRTT.
    Above(u64),
    /// SRTT − x % (SRTT + 1): at or below SRTT (not counted by block 2).
    Below(u64),
    /// x % 10 s.
    Any(u64),
    /// u64::MAX − x % 2⁴⁰ ns.
    Huge(u64),
    Zero,
}

impl Rtt {
    fn ns(self, st: &PCocoaState) -> u64 {
        let srtt = st.srtt.get().map_or(0, nanos);
        let rttvar = nanos(st.rttvar.get());
        match self {
            Rtt::Rising(x) => srtt.saturating_add(rttvar.saturating_mul(2 + x % 4)).saturating_add(x % 1_000_000),
            Rtt::Above(x) => srtt.saturating_add(x % rttvar.saturating_add(1)),
            Rtt::Below(x) => srtt - x % srtt.saturating_add(1),
            Rtt::Any(x) => x % 10_000_000_000,
            Rtt::Huge(x) => u64::MAX - x % (1 << 40),
            Rtt::Zero => 0,
        }
    }
}

fn rtt() -> impl Strategy<Value = Rtt> {
    prop_oneof![
        8 => any::<u64>().prop_map(Rtt::Rising),
        3 => any::<u64>().prop_map(Rtt::Above),
        3 => any::<u64>().prop_map(Rtt::Below),
        2 => any::<u64>().prop_map(Rtt::Any),
        1 => any::<u64>().prop_map(Rtt::Huge),
        1 => Just(Rtt::Zero),
    ]
}

/// Time between samples: none, seconds, days, or a jump to the end of time.
fn gap() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        4 => (0u64..10_000_000_000).prop_map(Some),
        1 => (0u64..(10 * 86_400_000_000_000)).prop_map(Some),
        1 => Just(None),
    ]
}

fn gain() -> impl Strategy<Value = Ratio> {
    prop_oneof![
        Just(Ratio::new(1, 8)),
        Just(Ratio::new(1, 4)),
        Just(Ratio::new(1, 32)),
        (0u32..=16).prop_map(|n| Ratio::new(n, 16))
    ]
}

fn config() -> impl Strategy<Value = PCocoaConfig> {
    (1u8..=8, 1u8..=10, gain(), gain(), gain(), gain(), 1u32..8, 1u32..8, any::<bool>(), 1u64..=u64::MAX).prop_map(
        |(raise_after, decay_after, alpha, beta, gamma, delta, k, k_spurious, set, cap_ns)| {
            let cap = from_nanos(cap_ns);
            PCocoaConfig {
                raise_after,
                decay_after,
                alpha,
                beta,
                gamma,
                delta,
                k,
                k_spurious,
                first_sample: if set { FirstSample::Set } else { FirstSample::Blend },
                cap,
                initial_rto: Duration::from_secs(2).min(cap),
                dither: false,
                ..PCocoaConfig::default()
            }
        },
    )
}

/// Runs `samples` through the controller and the model side by side; answers how many raises
/// fired while the run was longer than `raise_after` (the window had slid).
fn compare(c: PCocoaConfig, samples: &[(Rtt, bool, Option<u64>)]) -> Result<u32, TestCaseError> {
    let alg = PCocoa::new(c).expect("valid configuration");
    let mut st = alg.new_state();
    let mut model = Model::new(c);
    let mut now = Instant::ZERO;
    let mut slid = 0;
    for &(rtt, spurious, gap) in samples {
        now = gap.map_or(Instant::MAX, |ns| now + Duration::from_nanos(ns));
        let r = rtt.ns(&st);
        let before = st.mdev_max;
        alg.on_sample(&mut st, now, from_nanos(r), spurious);
        model.sample(r, spurious);
        model.matches(&st)?;
        prop_assert_eq!(alg.rto(&st, now), Some(from_nanos(model.rto_init)));
        if st.raise_run > c.raise_after && st.mdev_max != before {
            slid += 1;
        }
    }
    Ok(slid)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_run_window_gives_the_outputs_of_the_former_8_value_history(
        c in config(),
        samples in proptest::collection::vec((rtt(), any::<bool>(), gap()), 1..200),
    ) {
        compare(c, &samples)?;
    }
}

#[test]
fn long_rising_runs_slide_the_window_for_every_raise_after_and_agree_with_the_former_history() {
    // The random test reaches long runs only now and then; here every raise_after sees runs of
    // rising samples far longer than itself (the window slides at every sample), broken by a
    // drop now and then, with huge values among them.
    for raise_after in 1..=8 {
        let c = PCocoaConfig { raise_after, dither: false, ..PCocoaConfig::default() };
        let mut samples = Vec::new();
        for i in 0..400u64 {
            let rtt = match i % 37 {
                36 => Rtt::Below(i * 7_919),
                35 if i % 3 == 0 => Rtt::Huge(i),
                _ => Rtt::Rising(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            };
            samples.push((rtt, i % 5 == 0, Some(i * 1_000_000)));
        }
        let slid = compare(c, &samples).unwrap();
        assert!(slid >= 20, "raise_after {raise_after}: only {slid} raises after the window slid");
    }
}
