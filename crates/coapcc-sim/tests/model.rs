//! Model tests with exact or statistical expectations, through the public API.

use coapcc_core::{AnyConfig, Duration, Ratio};
use coapcc_driver::link::{FifoJitterConfig, PipelineConfig, PropagationConfig, SerializerConfig, StageConfig};
use coapcc_driver::scenario::{CoapConfig, FlowType, NetworkConfig, WorkloadConfig};
use coapcc_sim::run_network;

fn workload(flows: u32, flow_type: FlowType) -> WorkloadConfig {
    WorkloadConfig {
        flows,
        flow_type,
        exchanges_per_flow: 50,
        start_window: Duration::ZERO,
        random_min: 1,
        random_max: 10,
        duration: None,
        nstart: 1,
        count: Default::default(),
        time_limit: Duration::from_secs(86_400),
    }
}

/// testbeds §1 without randomness: the rest of the path is fixed at 15 ms each way.
fn fixed_nbiot() -> NetworkConfig {
    let ms = Duration::from_millis;
    let rest = StageConfig::FifoJitter(FifoJitterConfig::new(ms(15), ms(15)));
    NetworkConfig::Custom {
        uplink: PipelineConfig::new([
            StageConfig::Serializer(SerializerConfig {
                rate_bps: 60_000,
                buffer_bytes: 1_410_000,
                count_in_service: false,
            }),
            StageConfig::Propagation(PropagationConfig::new(ms(200))),
            rest,
        ]),
        downlink: PipelineConfig::new([
            rest,
            StageConfig::Serializer(SerializerConfig {
                rate_bps: 30_000,
                buffer_bytes: 1_410_000,
                count_in_service: false,
            }),
            StageConfig::Propagation(PropagationConfig::new(ms(400))),
        ]),
    }
}

#[test]
fn a_single_flow_on_an_idle_error_free_link_takes_exactly_50_base_rtts() {
    let coap = CoapConfig::default();
    let mut alg = AnyConfig::from_name("default").unwrap();
    alg.set_dither(false);
    let r = run_network(&fixed_nbiot(), workload(1, FlowType::Continuous), &coap, &alg, 1, 0).unwrap();
    // Request: 10 B CoAP + 28 B IPv4/UDP at 60 kbit/s; response: 27 B + 28 B at 30 kbit/s
    // (serialisation rounded up to the nanosecond), plus 200 + 15 + 15 + 400 ms.
    let rtt_ns = 5_066_667 + 200_000_000 + 15_000_000 + 15_000_000 + 14_666_667 + 400_000_000;
    let f = &r.flows[0];
    assert_eq!((f.exchanges_completed, f.exchanges_failed, f.retransmissions), (50, 0, 0));
    assert!((f.fct_s - 50.0 * rtt_ns as f64 / 1e9).abs() < 1e-9, "fct {} s", f.fct_s);
    assert!((f.median_rtt_s - rtt_ns as f64 / 1e9).abs() < 1e-12);
}

#[test]
fn default_coap_on_residual_bandwidth_plateaus_at_one_over_mean_initial_timer_plus_rtt() {
    // testbeds §2, Makarem §6.2: with ResBW between 1/(RTO_init + RTT) and 1/RTT every original
    // finds no token (sent one RTT after the previous success) and its first retransmission
    // does, so each exchange takes T0 + RTT: goodput 1/(E[T0] + RTT) = 1/(2.5 + 0.5) s.
    let net = NetworkConfig::Residual { min_rate_pps: Ratio::ONE, max_rate_pps: Ratio::ONE, depth_packets: 1 };
    let w = WorkloadConfig { duration: Some(Duration::from_secs(5 * 3600)), ..workload(1, FlowType::LongLived) };
    let r = run_network(&net, w, &CoapConfig::default(), &AnyConfig::from_name("default").unwrap(), 7, 0).unwrap();
    let g = r.run.goodput_per_s;
    assert!((g - 1.0 / 3.0).abs() < 0.01 / 3.0, "goodput {g}, expected 1/3 within 1 %");
    // Each exchange: one original lost, one retransmission delivered.
    assert!((r.run.overhead - 1.0).abs() < 0.01, "overhead {}", r.run.overhead);
}

#[test]
fn unnecessary_retransmissions_are_those_after_the_first_copy_that_completed_the_round_trip() {
    // One flow, no errors, a 1 s first timer against a 1.3 s RTT: every exchange retransmits
    // once although the original was not lost — the retransmission is unnecessary.
    let coap = CoapConfig::default();
    let mut alg = AnyConfig::from_name("default-aggressive").unwrap();
    alg.set_dither(false);
    let ms = Duration::from_millis;
    let net = NetworkConfig::Custom {
        uplink: PipelineConfig::new([StageConfig::Propagation(PropagationConfig::new(ms(650)))]),
        downlink: PipelineConfig::new([StageConfig::Propagation(PropagationConfig::new(ms(650)))]),
    };
    let r = run_network(&net, workload(1, FlowType::Continuous), &coap, &alg, 1, 0).unwrap();
    let f = &r.flows[0];
    assert_eq!(f.retransmissions, 50);
    assert_eq!(f.unnecessary_retransmissions, 50);
    let expired = r.expired_rto();
    assert_eq!(expired.len(), 50);
    let expired = expired.values().unwrap_or_default();
    assert!(expired.len() == 50 && expired.iter().all(|t| (*t - 1.0).abs() < 1e-12));
}

#[test]
fn random_flows_are_chains_of_short_clients_that_still_total_50_exchanges() {
    let coap = CoapConfig::default();
    let alg = AnyConfig::from_name("cocoa").unwrap();
    let r = run_network(&fixed_nbiot(), workload(5, FlowType::Random), &coap, &alg, 3, 0).unwrap();
    for f in &r.flows {
        assert_eq!(f.exchanges_completed + f.exchanges_failed, 50);
        assert!(f.fct_s.is_finite());
    }
}

#[test]
fn nstart_four_keeps_four_exchanges_in_flight() {
    let coap = CoapConfig::default();
    let alg = AnyConfig::from_name("default").unwrap();
    let one = run_network(&fixed_nbiot(), workload(1, FlowType::Continuous), &coap, &alg, 1, 0).unwrap();
    let w4 = WorkloadConfig { nstart: 4, ..workload(1, FlowType::Continuous) };
    let four = run_network(&fixed_nbiot(), w4, &coap, &alg, 1, 0).unwrap();
    assert_eq!(four.flows[0].exchanges_completed, 50);
    assert!(four.flows[0].fct_s < one.flows[0].fct_s / 3.0, "{} vs {}", four.flows[0].fct_s, one.flows[0].fct_s);
}

fn lossy(loss: Ratio) -> NetworkConfig {
    use coapcc_driver::link::GilbertElliottConfig;
    let ge = GilbertElliottConfig { loss_good: loss, loss_bad: loss, ..GilbertElliottConfig::error_free() };
    let ms = Duration::from_millis;
    NetworkConfig::Custom {
        uplink: PipelineConfig::new([
            StageConfig::GilbertElliott(ge),
            StageConfig::Propagation(PropagationConfig::new(ms(100))),
        ]),
        downlink: PipelineConfig::new([StageConfig::Propagation(PropagationConfig::new(ms(100)))]),
    }
}

#[test]
fn failed_exchanges_are_replaced_until_50_succeed() {
    let mut alg = AnyConfig::from_name("default").unwrap();
    alg.set_max_retransmit(1);
    let r = run_network(&lossy(Ratio::new(1, 2)), workload(3, FlowType::Random), &CoapConfig::default(), &alg, 5, 0)
        .unwrap();
    for f in &r.flows {
        assert_eq!(f.exchanges_completed, 50);
        assert!(f.fct_s.is_finite());
    }
    assert!(r.flows.iter().map(|f| f.exchanges_failed).sum::<u32>() > 0);
}

#[test]
fn flows_that_cannot_finish_are_cut_off_at_the_time_limit() {
    let w = WorkloadConfig { time_limit: Duration::from_secs(100), ..workload(2, FlowType::Continuous) };
    let r = run_network(&lossy(Ratio::ONE), w, &CoapConfig::default(), &AnyConfig::from_name("default").unwrap(), 1, 0)
        .unwrap();
    assert!(r.flows.iter().all(|f| f.fct_s.is_nan() && f.exchanges_completed == 0));
    assert!(r.run.sim_time_s <= 100.0);
    assert_eq!(r.run.flows_unfinished, 2, "both flows are counted as unfinished");
}

#[test]
fn retransmissions_after_losses_with_a_timer_far_above_the_rtt_are_all_necessary() {
    // Half of the requests are lost on the uplink, nothing else: a lost copy never completes
    // the round trip, and a delivered one completes it in 200 ms, long before the 2-3 s timer
    // of Default CoAP expires — so every retransmission follows a lost copy.
    let alg = AnyConfig::from_name("default").unwrap();
    let r =
        run_network(&lossy(Ratio::new(1, 2)), workload(3, FlowType::Continuous), &CoapConfig::default(), &alg, 9, 0)
            .unwrap();
    let retransmissions: u32 = r.flows.iter().map(|f| f.retransmissions).sum();
    assert!(retransmissions > 50, "losses force retransmissions: {retransmissions}");
    for f in &r.flows {
        assert_eq!(f.unnecessary_retransmissions, 0, "flow {}: {} retransmissions", f.flow, f.retransmissions);
    }
    // The timers that expired were all at least ACK_TIMEOUT = 2 s, ten times the 200-ms RTT.
    let expired = r.expired_rto();
    let expired = expired.values().unwrap_or_default();
    assert_eq!(
        expired.len(),
        retransmissions as usize + r.flows.iter().map(|f| f.exchanges_failed as usize).sum::<usize>()
    );
    assert!(expired.iter().all(|t| *t >= 2.0));
}

#[test]
fn queue_delay_and_backlog_stay_within_what_the_buffer_allows() {
    // testbeds §1 with the 2 500-byte buffer and 100 flows: the downlink (30 kbit/s) is the
    // bottleneck; no packet can wait longer than a full buffer takes to drain.
    let net = NetworkConfig::Nbiot(coapcc_driver::link::presets::NbiotConfig::testbed(2_500, Default::default()));
    let alg = AnyConfig::from_name("cocoa").unwrap();
    let r = run_network(&net, workload(100, FlowType::Continuous), &CoapConfig::default(), &alg, 5, 0).unwrap();
    let m = &r.run;
    assert!(m.drops_buffer > 0, "the small buffer overflows");
    assert!(m.max_queue_up_bytes <= 2_500 && m.max_queue_down_bytes <= 2_500, "{m:?}");
    assert!(m.max_queue_down_bytes > 2_000, "the downlink buffer fills: {}", m.max_queue_down_bytes);
    let drain_down_s = 2_500.0 * 8.0 / 30_000.0;
    assert!(m.queue_delay_down_s > 0.0 && m.queue_delay_down_s <= drain_down_s, "{}", m.queue_delay_down_s);
    assert!(m.queue_delay_up_s >= 0.0 && m.queue_delay_up_s <= 2_500.0 * 8.0 / 60_000.0, "{}", m.queue_delay_up_s);
}
