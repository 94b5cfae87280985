//! The firmware update over CoAP/UDP (`scenarios/firmware/udp-*`): a 102 400-byte object
//! fetched block-wise (RFC 7959 Block2) over the NB-IoT-like link, checked against the
//! per-block round-trip arithmetic of `docs/tcp.md` and the RFC 7252/7959 encodings, computed
//! here from the link's parameters and the message layouts, not from the simulator.

use coapcc_core::Duration;
use coapcc_driver::link::presets::NbiotConfig;
use coapcc_driver::scenario::{self, Model, NetworkConfig, Scenario};
use coapcc_proto::block::Block;
use coapcc_proto::{Code, MessageType, option};
use coapcc_sim::results::{result_files, summarise};
use coapcc_sim::{RunOutput, capture_network, run_job, run_scenario};

const OBJECT_BYTES: usize = 102_400;
const BLOCK_BYTES: usize = 256;
const BLOCKS: usize = 400;

fn load(name: &str) -> Scenario {
    scenario::load(std::path::Path::new(name), &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The length of the RFC 7959 §2.2 Block2 value of block `num` (NUM·16 + M·8 + SZX as a
/// minimal RFC 7252 §3.2 unsigned integer): one byte below NUM 16, two below 4096.
fn block_value_bytes(num: usize) -> usize {
    if num < 16 { 1 } else { 2 }
}

/// Request datagram of block `num`, bytes: IPv4 20 + UDP 8, CoAP header 4, token 2, Uri-Path
/// "res" (1-byte option header + 3), Block2 (delta 23 − 11 = 12 fits the nibble: 1-byte header
/// + value).
fn request_bytes(num: usize) -> usize {
    20 + 8 + 4 + 2 + (1 + 3) + (1 + block_value_bytes(num))
}

/// Response datagram of block `num`: IPv4 + UDP 28, header 4, token 2, Block2 (delta 23 needs
/// one extended-delta byte), payload marker 1, the block.
fn response_bytes(num: usize) -> usize {
    20 + 8 + 4 + 2 + (1 + 1 + block_value_bytes(num)) + 1 + BLOCK_BYTES
}

/// The ideal FCT of a stop-and-wait transfer, s: per block, the request's serialisation on the
/// uplink and the response's on the downlink, both propagation delays and the rest of the path
/// twice at `rest_ms` each way; 400 blocks back to back.
fn ideal_fct_s(link: &NbiotConfig, rest_ms: f64) -> f64 {
    let up_bps = link.uplink_kbps.to_f64() * 1000.0;
    let down_bps = link.downlink_kbps.to_f64() * 1000.0;
    let per_block = |num: usize| {
        request_bytes(num) as f64 * 8.0 / up_bps
            + response_bytes(num) as f64 * 8.0 / down_bps
            + link.uplink_delay.as_secs_f64()
            + link.downlink_delay.as_secs_f64()
            + 2.0 * rest_ms / 1000.0
    };
    (0..BLOCKS).map(per_block).sum()
}

fn nbiot(s: &Scenario) -> NbiotConfig {
    match &s.model {
        Model::Network { network: NetworkConfig::Nbiot(n), .. } => *n,
        other => panic!("not the NB-IoT link: {other:?}"),
    }
}

#[test]
fn the_error_free_single_client_transfer_takes_400_block_round_trips_of_the_link_arithmetic() {
    let s = load("firmware/udp-1-client");
    let link = nbiot(&s);
    // The testbed's numbers (docs/testbeds.md §1), read from the scenario's link.
    assert_eq!((link.uplink_kbps.to_f64(), link.downlink_kbps.to_f64()), (60.0, 30.0));
    assert_eq!((link.uplink_delay, link.downlink_delay), (Duration::from_millis(200), Duration::from_millis(400)));
    let (lo_ms, hi_ms) = (link.rest_of_path_min.as_secs_f64() * 1e3, link.rest_of_path_max.as_secs_f64() * 1e3);
    let (fastest, slowest, mean) =
        (ideal_fct_s(&link, lo_ms), ideal_fct_s(&link, hi_ms), ideal_fct_s(&link, (lo_ms + hi_ms) / 2.0));
    // 400 × (≈ 84 ms of serialisation + 600 ms of propagation + 30 ms of rest of path).
    assert!((mean - 285.647).abs() < 0.001, "{mean}");
    let default = s.algorithms.iter().position(|(n, _)| n == "default").unwrap();
    for r in 0..4 {
        let Ok(RunOutput::Network(run)) = run_job(&s, default, r) else { panic!("a network run") };
        let f = &run.flows[0];
        assert_eq!((f.exchanges_completed, f.exchanges_failed, f.retransmissions), (BLOCKS as u32, 0, 0));
        // Each rest-of-path delay is drawn in [10, 20] ms: the FCT lies between the bounds, and
        // 800 draws average out to within 0.1 % of the mean (their sd is ≈ 82 ms, 0.03 %).
        assert!(f.fct_s >= fastest && f.fct_s <= slowest, "{} not in [{fastest}, {slowest}]", f.fct_s);
        assert!((f.fct_s / mean - 1.0).abs() < 1e-3, "{} vs {mean}", f.fct_s);
        let t = &run.transfers[0];
        assert_eq!((t.object_bytes, t.block_bytes, t.blocks), (OBJECT_BYTES as u64, BLOCK_BYTES as u32, BLOCKS as u32));
        assert_eq!((t.packets_up, t.packets_down, t.setup_s), (400, 400, 0.0));
        assert_eq!((t.fct_s, t.goodput_bit_s), (f.fct_s, OBJECT_BYTES as f64 * 8.0 / f.fct_s));
    }
}

#[test]
fn every_block_is_asked_for_once_and_served_in_the_rfc_7959_encoding() {
    let s = load("firmware/udp-1-client");
    let Model::Network { network, workload } = &s.model else { panic!("a network model") };
    let default = &s.algorithms.iter().find(|(n, _)| n == "default").unwrap().1;
    let (run, captured) = capture_network(network, *workload, &s.file.coap, default, s.file.seed, 0).unwrap();
    assert_eq!(run.flows[0].exchanges_completed, BLOCKS as u32);
    // Each datagram is captured when sent and when it arrives: keep the sends.
    let sent: Vec<_> = captured.iter().filter(|c| c.to.node == u32::MAX || c.from.node == u32::MAX).collect();
    let requests: Vec<_> = sent.iter().filter(|c| c.to.node == u32::MAX).step_by(2).collect();
    let responses: Vec<_> = sent.iter().filter(|c| c.from.node == u32::MAX).step_by(2).collect();
    assert_eq!((requests.len(), responses.len()), (BLOCKS, BLOCKS));
    let mut body = 0;
    for (num, (q, r)) in requests.iter().zip(&responses).enumerate() {
        let block = |m: &coapcc_proto::Message| m.option(option::BLOCK2).and_then(Block::decode);
        assert_eq!((q.msg.mtype, q.msg.code), (MessageType::Con, Code::GET));
        assert_eq!(block(&q.msg), Some(Block { num: num as u32, more: false, szx: 4 }), "request {num}");
        assert_eq!(q.msg.wire_len() + 28, request_bytes(num), "request {num}");
        assert_eq!((r.msg.mtype, r.msg.code), (MessageType::Ack, Code::CONTENT));
        let more = num + 1 < BLOCKS;
        assert_eq!(block(&r.msg), Some(Block { num: num as u32, more, szx: 4 }), "response {num}");
        assert_eq!(r.msg.wire_len() + 28, response_bytes(num), "response {num}");
        body += r.msg.payload.len();
    }
    assert_eq!(body, OBJECT_BYTES);
    // The largest response fills the 296-byte MTU less one byte (no echo for Default CoAP).
    assert_eq!(response_bytes(BLOCKS - 1), 295);
}

#[test]
fn a_block_wise_run_writes_transfers_csv_and_a_plain_one_does_not() {
    let mut s = load("firmware/udp-4-clients");
    s.set("replications", 1_i64).unwrap();
    s.set("algorithms", coapcc_driver::scenario::Value::parse("[\"cocoa\", \"fasor\"]")).unwrap();
    let runs = run_scenario(&s, &|| ()).unwrap();
    let files = result_files(&s, &runs, &summarise(&s, &runs), false);
    let transfers = files.iter().find(|(n, _)| *n == "transfers.csv").map(|(_, t)| t.clone()).unwrap();
    let rows: Vec<&str> = transfers.lines().collect();
    assert_eq!(rows.len(), 1 + 2 * 4, "a row per algorithm × flow");
    assert!(rows[1].starts_with("cocoa,0,0,102400,256,400,"), "{}", rows[1]);
    let mut plain = load("fasor/10-flows-error-free-continuous");
    plain.set("replications", 1_i64).unwrap();
    let runs = run_scenario(&plain, &|| ()).unwrap();
    assert!(result_files(&plain, &runs, &summarise(&plain, &runs), false).iter().all(|(n, _)| *n != "transfers.csv"));
}
