//! Link models through their public API: buffer invariants against a brute-force model,
//! FIFO jitter, long-run statistics of the Gilbert–Elliott and token-bucket models, whole
//! pipelines, configuration files and determinism.

use coapcc_core::{Duration, Instant, Ratio};
use coapcc_driver::link::presets::{self, LinkErrors};
use coapcc_driver::link::{
    DropReason, FifoJitter, FifoJitterConfig, GeState, GilbertElliott, GilbertElliottConfig, Pipeline, PipelineConfig,
    Serializer, SerializerConfig, Stage, StageConfig, StageDetail, serialization_time,
};
use coapcc_driver::rng::{Stream, stream_rng};
use proptest::prelude::*;

/// A packet arrival: gap since the previous arrival (ns) and size (bytes).
fn arrivals() -> impl Strategy<Value = Vec<(u64, u32)>> {
    let gap = prop_oneof![3 => Just(0u64), 5 => 0u64..20_000_000, 2 => 0u64..2_000_000_000];
    prop::collection::vec((gap, 1u32..600), 1..300)
}

proptest! {
    /// The serializer agrees with a brute-force model that recomputes the waiting bytes from
    /// every admitted packet, and the buffer never holds more than its capacity.
    #[test]
    fn a_buffer_of_b_bytes_never_holds_more_than_b(
        buffer in 0u64..3_000,
        rate in prop_oneof![Just(30_000u64), Just(60_000), 1_000u64..1_000_000],
        arrivals in arrivals(),
    ) {
        let mut link = Serializer::new(SerializerConfig { rate_bps: rate, buffer_bytes: buffer, count_in_service: false }).unwrap();
        // (start, finish, size) of every admitted packet.
        let mut admitted: Vec<(Instant, Instant, u32)> = Vec::new();
        let mut t = Instant::ZERO;
        for (gap, size) in arrivals {
            t = t + Duration::from_nanos(gap);
            let waiting: u64 = admitted.iter().filter(|a| a.0 > t).map(|a| a.2 as u64).sum();
            let free_at = admitted.last().map_or(Instant::ZERO, |a| a.1);
            let start = t.max(free_at);
            let expected = if start > t && waiting + size as u64 > buffer {
                Err(DropReason::Buffer)
            } else {
                Ok(start + serialization_time(size, rate))
            };
            let got = link.offer(t, size);
            prop_assert_eq!(got, expected);
            if let Ok(finish) = got {
                admitted.push((start, finish, size));
            }
            prop_assert!(link.occupancy_bytes() <= buffer);
            prop_assert_eq!(link.occupancy_bytes(), admitted.iter().filter(|a| a.0 > t).map(|a| a.2 as u64).sum::<u64>());
        }
        prop_assert!(link.stats().max_occupancy_bytes <= buffer);
    }

    /// Leave times never decrease, and a packet arriving at least `hi − lo` after its
    /// predecessor is delayed by a value within `[lo, hi]`.
    #[test]
    fn fifo_jitter_never_reorders_and_stays_within_lo_hi_when_uncongested(
        lo_us in 0u64..50_000,
        width_us in 0u64..50_000,
        gaps in prop::collection::vec(prop_oneof![Just(0u64), 0u64..100_000_000], 1..400),
        seed in any::<u64>(),
    ) {
        let (lo, hi) = (Duration::from_micros(lo_us), Duration::from_micros(lo_us + width_us));
        let mut j = FifoJitter::new(FifoJitterConfig::new(lo, hi)).unwrap();
        let mut rng = stream_rng(seed, 0, 0);
        let (mut t, mut last_leave, mut last_arrival) = (Instant::ZERO, Instant::ZERO, None::<Instant>);
        for gap in gaps {
            t = t + Duration::from_nanos(gap);
            let leave = j.offer(t, &mut rng);
            prop_assert!(leave >= last_leave);
            prop_assert!(leave >= t + lo);
            if last_arrival.is_none_or(|a| t - a >= hi - lo) {
                prop_assert!(leave <= t + hi, "delay {:?} above {:?}", leave - t, hi);
            }
            last_leave = leave;
            last_arrival = Some(t);
        }
    }
}

/// Sends a packet every `spacing` for `duration` through a Gilbert–Elliott stage; returns
/// (packets, losses) and the stage.
fn run_ge(
    config: GilbertElliottConfig,
    duration: Duration,
    spacing: Duration,
    seed: u64,
) -> (u64, u64, GilbertElliott) {
    let mut ge = GilbertElliott::new(config, stream_rng(seed, 0, 1)).unwrap();
    let mut rng = stream_rng(seed, 0, 0);
    let n = duration.as_nanos() as u64 / spacing.as_nanos() as u64;
    let losses = (0..n).filter(|k| ge.offer(Instant::ZERO + spacing * *k as u32, &mut rng).is_err()).count();
    (n, losses as u64, ge)
}

#[test]
fn gilbert_elliott_long_run_loss_rate_matches_its_stationary_value_within_sampling_error() {
    // 200 000 s of channel (≈ 40 000 bad sojourns), a packet every 200 ms: 1 000 000 packets.
    // Bound: 5 standard errors (≈ 0.0030 for "medium", ≈ 0.0046 for "high").
    let duration = Duration::from_secs(200_000);
    for (config, seed) in [(GilbertElliottConfig::medium(), 1), (GilbertElliottConfig::high(), 2)] {
        let (n, losses, _) = run_ge(config, duration, Duration::from_millis(200), seed);
        let rate = losses as f64 / n as f64;
        let se = config.loss_rate_standard_error(duration, n);
        let expected = config.stationary_loss();
        assert!((rate - expected).abs() < 5.0 * se, "{config:?}: loss {rate}, expected {expected} ± 5·{se}");
    }
}

#[test]
fn gilbert_elliott_mean_sojourns_match_their_configured_means() {
    // Exponential sojourns: standard error of a mean of n sojourns is mean/√n. Allow 5.
    let (_, _, ge) = run_ge(GilbertElliottConfig::medium(), Duration::from_secs(200_000), Duration::from_secs(1), 3);
    let s = ge.stats();
    for (state, mean, n) in [(GeState::Bad, 1.0, s.bad_sojourns), (GeState::Good, 4.0, s.good_sojourns)] {
        assert!(n > 30_000, "{state:?}: {n} sojourns");
        let got = s.mean_sojourn(state).as_secs_f64();
        assert!((got - mean).abs() < 5.0 * mean / (n as f64).sqrt(), "{state:?}: mean sojourn {got} s");
    }
    // Fraction of time in the bad state ≈ π_bad = 0.2.
    let frac = s.bad_time.as_secs_f64() / (s.bad_time + s.good_time).as_secs_f64();
    assert!((frac - 0.2).abs() < 0.01, "{frac}");
}

#[test]
fn the_downlink_path_adds_up_jitter_serialization_and_propagation() {
    let config = presets::nbiot_downlink_path(2_500, LinkErrors::None);
    let mut p = Pipeline::new(&config, 1, 0, Stream::LinkDown(0).id()).unwrap();
    let leave = p.offer(Instant::ZERO, 54).unwrap();
    // Jitter in [10, 20] ms, then 14.4 ms on the link and 400 ms of propagation.
    let fixed = serialization_time(54, 30_000) + Duration::from_millis(400);
    assert!(leave >= Instant::ZERO + Duration::from_millis(10) + fixed, "{leave}");
    assert!(leave <= Instant::ZERO + Duration::from_millis(20) + fixed, "{leave}");
    assert_eq!(p.totals().delivered.packets, 1);
    assert_eq!(p.totals().transit, leave - Instant::ZERO);
}

#[test]
fn a_saturated_downlink_counts_buffer_drops_and_utilisation() {
    // 100 packets of 296 B at once into 2 500 B: one on the link, 8 waiting (2 368 B), the
    // rest dropped.
    let mut p = Pipeline::new(&presets::nbiot_wireless_downlink(2_500, LinkErrors::None), 0, 0, 0).unwrap();
    let delivered = (0..100).filter(|_| p.offer(Instant::ZERO, 296).is_ok()).count();
    assert_eq!(delivered, 9);
    let stats = p.stats();
    assert_eq!(stats.totals.dropped.get(DropReason::Buffer).packets, 91);
    assert_eq!(stats.totals.dropped.total().bytes, 91 * 296);
    assert_eq!(stats.stages[0].passed.packets, 9);
    assert_eq!(stats.stages[0].offered().packets, 100);
    let StageDetail::Serializer(s) = stats.stages[0].detail else { panic!("{:?}", stats.stages[0]) };
    assert_eq!(s.max_occupancy_bytes, 8 * 296);
    // 296 B at 30 kbit/s = 78.933… ms, rounded up to 78 933 334 ns; 9 of them back to back.
    assert_eq!(s.busy, Duration::from_nanos(9 * 78_933_334));
    assert_eq!(s.utilisation(Instant::from_nanos(9 * 78_933_334)), 1.0);
    assert_eq!(s.utilisation(Instant::from_nanos(18 * 78_933_334)), 0.5);
}

#[test]
fn the_residual_bandwidth_path_drops_for_lack_of_tokens_only() {
    let config = presets::residual_bandwidth_forward(Ratio::new(6, 10), Ratio::ONE);
    let mut p = Pipeline::new(&config, 4, 0, Stream::LinkUp(0).id()).unwrap();
    // 50 packets/s for 5 000 s against ResBW ~ U(0.6, 1) packets/s redrawn every 5 s.
    for k in 0..250_000u64 {
        let _ = p.offer(Instant::from_millis(k * 20), 20);
    }
    let t = p.totals();
    let Some(Stage::TokenBucket(tb)) = p.stages().next() else { panic!("token bucket first") };
    let supplied = tb.tokens_supplied();
    // 1 000 periods of U(0.6, 1) × 5 s: 4 000 tokens, standard deviation ≈ 18; allow 100.
    assert!((supplied - 4_000.0).abs() < 100.0, "{supplied}");
    // At most one packet per token (plus the full bucket at t = 0); a token waits at most
    // 20 ms for the next packet, so under 2 % of the supply is wasted.
    let passed = t.delivered.packets as f64;
    assert!(passed <= supplied + 1.0 && passed > 0.98 * supplied, "{passed} of {supplied}");
    assert_eq!(t.dropped.no_token.packets + t.delivered.packets, 250_000);
    assert_eq!(t.dropped.buffer.packets + t.dropped.error.packets, 0);
    // Mean one-way transit is the 250 ms half of the RTT (standard error 7.07 ms / √4 000).
    let mean = t.mean_transit().as_secs_f64();
    assert!((mean - 0.25).abs() < 0.001, "{mean}");
}

fn outcomes(seed: u64, stream: Stream) -> Vec<Result<Instant, DropReason>> {
    let mut p = Pipeline::new(&presets::nbiot_uplink_path(2_500, LinkErrors::High), seed, 3, stream.id()).unwrap();
    (0..5_000u64).map(|k| p.offer(Instant::from_millis(k * 37), 40 + (k % 7) as u32 * 30)).collect()
}

#[test]
fn the_same_seed_gives_identical_outcomes_and_a_different_stream_or_seed_does_not() {
    let a = outcomes(7, Stream::LinkUp(0));
    assert_eq!(a, outcomes(7, Stream::LinkUp(0)));
    assert_ne!(a, outcomes(7, Stream::LinkUp(1)));
    assert_ne!(a, outcomes(8, Stream::LinkUp(0)));
    // Both kinds of outcome occur, so the comparison means something.
    assert!(a.iter().any(|r| r.is_ok()) && a.contains(&Err(DropReason::Error)));
}

#[test]
fn an_out_of_order_offer_is_counted_and_treated_as_simultaneous() {
    let config = PipelineConfig::new([StageConfig::Serializer(SerializerConfig {
        rate_bps: 8_000,
        buffer_bytes: 100,
        count_in_service: false,
    })]);
    let mut p = Pipeline::new(&config, 0, 0, 0).unwrap();
    assert_eq!(p.offer(Instant::from_millis(50), 10), Ok(Instant::from_millis(60)));
    assert_eq!(p.offer(Instant::from_millis(10), 10), Ok(Instant::from_millis(70)));
    assert_eq!(p.totals().out_of_order, 1);
    assert_eq!(p.totals().last_offer, Instant::from_millis(50));
}

#[test]
fn a_pipeline_reads_from_toml_with_defaults_and_the_errors_name_the_key() {
    let text = r#"
        [[stages]]
        kind = "serializer"
        rate_bps = 30000
        buffer_bytes = 2500

        [[stages]]
        kind = "gilbert_elliott"
        loss_bad = 0.5

        [[stages]]
        kind = "propagation"
        delay_ms = 400

        [[stages]]
        kind = "token_bucket"
        min_rate_pps = 0.9
        max_rate_pps = "11/10"
    "#;
    let config: PipelineConfig = toml::from_str(text).unwrap();
    let mut expected = presets::nbiot_wireless_downlink(2_500, LinkErrors::Medium);
    expected.stages.push(StageConfig::TokenBucket(coapcc_driver::link::TokenBucketConfig::uniform(
        Ratio::new(9, 10),
        Ratio::new(11, 10),
    )));
    assert_eq!(config, expected);
    assert_eq!(toml::from_str::<PipelineConfig>(&toml::to_string(&config).unwrap()).unwrap(), config);

    let unknown = "[[stages]]\nkind = \"propagation\"\ndelay_ms = 1\ndelay = 2\n";
    let err = toml::from_str::<PipelineConfig>(unknown).unwrap_err().to_string();
    assert!(err.contains("unknown field `delay`"), "{err}");

    let negative = "[[stages]]\nkind = \"serializer\"\nrate_bps = -1\nbuffer_bytes = 0\n";
    assert!(toml::from_str::<PipelineConfig>(negative).is_err());

    let reversed = "[[stages]]\nkind = \"fifo_jitter\"\nlo_ms = 20\nhi_ms = 10\n";
    let config: PipelineConfig = toml::from_str(reversed).unwrap();
    let err = Pipeline::new(&config, 0, 0, 0).unwrap_err();
    assert_eq!((err.key, err.problem), ("lo_ms", "must not exceed hi_ms"));

    let zero = "[[stages]]\nkind = \"serializer\"\nrate_bps = 0\nbuffer_bytes = 0\n";
    let err = toml::from_str::<PipelineConfig>(zero).unwrap().validate().unwrap_err();
    assert_eq!(err.key, "rate_bps");

    let prob = "[[stages]]\nkind = \"gilbert_elliott\"\nloss_good = 1.5\n";
    let err = toml::from_str::<PipelineConfig>(prob).unwrap().validate().unwrap_err();
    assert_eq!(err.key, "loss_good");
}

#[test]
fn an_order_dependent_stage_after_a_normal_delay_is_rejected() {
    let mut config = presets::residual_bandwidth_forward(Ratio::ONE, Ratio::ONE);
    config.stages.push(StageConfig::Serializer(SerializerConfig {
        rate_bps: 1,
        buffer_bytes: 1,
        count_in_service: false,
    }));
    assert_eq!(config.validate().unwrap_err().key, "stages");
    // A propagation delay after it is fine.
    let config = presets::residual_bandwidth_forward(Ratio::ONE, Ratio::ONE).then(presets::residual_bandwidth_return());
    config.validate().unwrap();
}

#[test]
fn offers_ten_days_ahead_neither_panic_nor_overflow() {
    let mut p = Pipeline::new(&presets::nbiot_downlink_path(1_410_000, LinkErrors::High), 9, 0, 0).unwrap();
    let far = Instant::from_millis(10 * 86_400_000);
    for k in 0..100u64 {
        let _ = p.offer(far + Duration::from_millis(k), 296);
    }
    let _ = p.offer(Instant::MAX, 296);
    assert_eq!(p.totals().offered.packets, 101);
}
