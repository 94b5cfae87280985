//! One job's output ([`RunOutput`], of any model) as bytes and back, exactly (every `f64` by
//! its bits): a distributed sweep runs jobs in other processes and gathers their outputs here,
//! where [`crate::runner::assemble`] and [`crate::results`] turn them into the same files as a
//! local run.
//!
//! The bytes are [`TAG`] (the format's version), then the output in `postcard`'s serde format
//! (little-endian `f64` bits, variable-length integers, lengths before sequences). The format
//! is private to one version of coapcc: the tag changes whenever a result type does.

use crate::error::WireError;
use crate::runner::RunOutput;

/// First bytes of every encoding: the format's version (bumped when a result type changes).
pub const TAG: &[u8; 8] = b"coapcc3\0";

/// Encodes one job's output.
pub fn encode(out: &RunOutput) -> Vec<u8> {
    // Serialising into memory cannot fail for these types (no map with non-string keys, no
    // unsized sequence): an empty body would not decode, and is never produced.
    postcard::to_extend(out, TAG.to_vec()).unwrap_or_default()
}

/// Decodes what [`encode`] wrote; an error (not a panic) on any other bytes.
pub fn decode(bytes: &[u8]) -> Result<RunOutput, WireError> {
    let body = bytes.strip_prefix(TAG.as_slice()).ok_or(WireError::Version)?;
    match postcard::take_from_bytes::<RunOutput>(body) {
        Ok((out, [])) => Ok(out),
        Ok((_, rest)) => Err(WireError::Malformed(format!("{} bytes after the output", rest.len()))),
        Err(e) => Err(WireError::Malformed(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multihop::{CoapFlowResult, MacCounters, MultihopResult, TcpNodeResult, TcpResult};
    use crate::multihop::{TracePoint, TracePointKind};
    use crate::trace::TraceResult;
    use coapcc_driver::metrics::{Distribution, FlowResult, RunMetrics, RunResult, SeriesPoint};

    /// Floats whose bits a lossy format would change: NaN with a payload, −0, subnormals,
    /// infinities, and a value with every mantissa bit used.
    const AWKWARD: [f64; 6] = [-0.0, 5e-324, f64::INFINITY, f64::NEG_INFINITY, 0.1 + 0.2, f64::MAX];

    fn nan_with_payload() -> f64 {
        f64::from_bits(0x7ff8_0000_dead_beef)
    }

    /// The bits of every `f64` the encoding holds equal those of `out` (NaN ≠ NaN for `==`).
    fn round_trip(out: &RunOutput) -> RunOutput {
        let bytes = encode(out);
        assert!(bytes.starts_with(TAG));
        let back = decode(&bytes).unwrap();
        assert_eq!(encode(&back), bytes, "re-encoding gives the same bytes");
        back
    }

    fn distribution(values: &[f64]) -> Distribution {
        let mut d = Distribution::new();
        values.iter().for_each(|&x| d.push(x));
        d
    }

    fn network() -> RunOutput {
        let mut binned = Distribution::new();
        (0..Distribution::EXACT_LIMIT + 3).for_each(|i| binned.push(1.0 + i as f64 * 1e-3));
        let flow = FlowResult {
            flow: 7,
            fct_s: nan_with_payload(),
            exchanges_completed: 50,
            exchanges_failed: 1,
            transmissions: 60,
            retransmissions: 10,
            unnecessary_retransmissions: 2,
            median_rtt_s: 0.1 + 0.2,
            rtts: distribution(&AWKWARD[..2]),
            expired_rto: binned,
        };
        let run = RunMetrics {
            duration_s: 12.5,
            exchanges_completed: u64::MAX,
            exchanges_failed: 0,
            goodput_per_s: -0.0,
            loss_ratio: 5e-324,
            overhead: f64::NAN,
            utilisation_up: 0.25,
            utilisation_down: 1.0 / 3.0,
            queue_delay_up_s: f64::INFINITY,
            queue_delay_down_s: 0.0,
            max_queue_up_bytes: 1,
            max_queue_down_bytes: 2,
            packets_up: 3,
            packets_down: 4,
            drops_buffer: 5,
            drops_error: 6,
            drops_no_token: 7,
            jain_fct: 0.9,
            events: 8,
            sim_time_s: 9.0,
            flows_unfinished: 10,
        };
        let series =
            vec![SeriesPoint { t_s: 0.0, resbw_per_s: f64::NAN, send_rate_per_s: 1.5, success_rate_per_s: 2.5 }];
        RunOutput::Network(Box::new(RunResult { flows: vec![flow], run, series, transfers: Vec::new() }))
    }

    fn multihop() -> RunOutput {
        let flow = CoapFlowResult {
            node: Some(3),
            peer: None,
            route_hops: Some(2),
            completed: 40,
            failed: 2,
            ended_in_window: 41,
            completed_in_window: 39,
            failed_in_window: 2,
            transmissions_in_window: 50,
            retransmissions: 9,
            duration_sum_ns: u128::from(u64::MAX) * 3,
            first_send_ns: Some(1),
            last_ack_ns: None,
            distinct_received_in_window: 38,
            expired_timers_ns: vec![2_000_000_000, 4_000_000_000],
            series: vec![(1, 2, 3)],
        };
        let node = TcpNodeResult {
            node: 4,
            hops: 3,
            reports: 100,
            max_retransmissions_delivered: 255,
            max_rto_after_10_samples_ns: Some(3_000_000_000),
            setup_failed: true,
            timers_ns: vec![3_000_000_000],
            trace: vec![TracePoint { at_ns: 5, kind: TracePointKind::Rto, value_ns: 6, retransmissions: 2, syn: true }],
            ..TcpNodeResult::default()
        };
        let tcp = TcpResult {
            nodes: vec![node],
            goodput_bps: 960.0,
            offered_bps: nan_with_payload(),
            retransmitted_segments: 7,
            fairness: -0.0,
            setup_failures: 1,
            broken: 0,
        };
        RunOutput::Multihop(Box::new(MultihopResult {
            end_ns: 600_000_000_000,
            clients_done_ns: Some(1),
            events: 12_345,
            trace_digest: 0xdead_beef_cafe_f00d,
            coap: vec![flow],
            tcp: Some(tcp),
            mac: vec![MacCounters { data_frames: 1, radio_on_ns: u64::MAX, ..MacCounters::default() }],
            packets_delivered: 8,
            packets_dropped: 9,
        }))
    }

    #[test]
    fn every_model_s_output_round_trips_with_every_float_bit_exact() {
        let trace = RunOutput::Trace(TraceResult {
            samples: 3,
            rmse_ms: nan_with_payload(),
            spurious: 1,
            mean_rtt_ms: AWKWARD[4],
            mean_rto_ms: AWKWARD[5],
            series: AWKWARD.iter().map(|&x| (x, -x)).collect(),
        });
        for out in [network(), trace, multihop()] {
            let back = round_trip(&out);
            assert_eq!(format!("{back:?}"), format!("{out:?}"));
        }
        let RunOutput::Network(n) = round_trip(&network()) else { panic!("a network output") };
        assert_eq!(n.flows[0].fct_s.to_bits(), 0x7ff8_0000_dead_beef, "a NaN keeps its payload");
        assert!(!n.flows[0].expired_rto.is_exact(), "a binned distribution stays binned");
        assert_eq!(n.flows[0].expired_rto, network_expired_rto());
    }

    fn network_expired_rto() -> Distribution {
        match network() {
            RunOutput::Network(n) => n.flows[0].expired_rto.clone(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn other_bytes_are_an_error_not_a_panic() {
        assert_eq!(decode(b"coapcc1\0\0"), Err(WireError::Version), "an output of the old format");
        assert_eq!(decode(b""), Err(WireError::Version));
        let bytes = encode(&multihop());
        for cut in [TAG.len(), TAG.len() + 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(matches!(decode(&bytes[..cut]), Err(WireError::Malformed(_))), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer), Err(WireError::Malformed("1 bytes after the output".into())));
        let mut wrong_kind = TAG.to_vec();
        wrong_kind.push(9);
        assert!(matches!(decode(&wrong_kind), Err(WireError::Malformed(_))));
    }
}
