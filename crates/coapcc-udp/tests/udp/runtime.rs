//! The endpoint runtime on loopback: a client task and a server task, outcomes and reports.

use std::net::SocketAddr;
use std::time::Duration;

use coapcc_driver::rng::{Stream, stream_rng};
use coapcc_proto::{Code, Endpoint, Event, Message, Origin};
use coapcc_udp::clock::Clock;
use coapcc_udp::config::{algorithm, client_config, request, server_config};
use coapcc_udp::runtime::{ExchangeFailure, Reply, TaskOptions, TaskReport, spawn};
use tokio::net::UdpSocket;

fn echo(_: SocketAddr, req: &Message) -> Reply {
    Reply { payload: req.payload.clone(), ..Reply::code(Code::CONTENT) }
}

async fn bind() -> UdpSocket {
    UdpSocket::bind("127.0.0.1:0").await.unwrap()
}

#[tokio::test]
async fn a_client_task_gets_each_response_with_its_rtt_and_timer() {
    let clock = Clock::start();
    let server =
        Endpoint::new(server_config(Duration::from_secs(10)).unwrap(), stream_rng(1, 0, Stream::Server(0).id()))
            .unwrap();
    let (server, _) = spawn(bind().await, server, clock, TaskOptions::server(echo));
    let config = client_config(&algorithm("cocoa", &[]).unwrap()).unwrap();
    let client = Endpoint::new(config, stream_rng(1, 0, Stream::Client(0).id())).unwrap();
    let (client, mut reports) = spawn(bind().await, client, clock, TaskOptions::client().with_reports());
    for i in 0..5u8 {
        let mut m = request(Code::POST, "echo", "");
        m.payload = vec![i; 10].into();
        let out = client.request(server.local_addr(), m).unwrap().await.unwrap();
        let resp = out.result.clone().unwrap();
        assert_eq!(resp.code, Code::CONTENT);
        assert_eq!(&resp.payload[..], &[i; 10]);
        assert_eq!(out.transmissions(), 1);
        assert!(out.timers[0] > Duration::ZERO, "{:?}", out.timers);
        assert!(out.rtt.unwrap() < Duration::from_secs(1));
    }
    let stats = client.stop().await;
    assert_eq!(stats.runtime.datagrams_sent, 5);
    assert_eq!(stats.endpoint.transmissions, 5);
    let mut completed = 0;
    let mut sent = 0;
    while let Ok(r) = reports.try_recv() {
        match r {
            TaskReport::Event { event: Event::Completed { .. }, .. } => completed += 1,
            TaskReport::Sent { origin: Origin::Request { copy: 0, .. }, .. } => sent += 1,
            _ => {}
        }
    }
    assert_eq!((completed, sent), (5, 5));
    let s = server.stop().await;
    assert_eq!(s.endpoint.duplicates_answered, 0);
}

#[tokio::test]
async fn a_silent_server_makes_the_client_give_up_after_max_retransmit() {
    let clock = Clock::start();
    let silent = bind().await;
    let to = silent.local_addr().unwrap();
    let set = |s: &str| s.parse().unwrap();
    let config =
        client_config(&algorithm("default", &[set("ack_timeout_ms=20"), set("max_retransmit=3")]).unwrap()).unwrap();
    let client = Endpoint::new(config, stream_rng(7, 0, Stream::Client(0).id())).unwrap();
    let (client, _) = spawn(bind().await, client, clock, TaskOptions::client());
    let out = client.request(to, request(Code::GET, "x", "")).unwrap().await.unwrap();
    assert_eq!(out.result, Err(ExchangeFailure::GaveUp));
    assert_eq!(out.transmissions(), 4);
    let mut buf = [0u8; 64];
    let mut copies = 0;
    while let Ok(Ok(_)) = tokio::time::timeout(Duration::from_millis(50), silent.recv_from(&mut buf)).await {
        copies += 1;
    }
    assert_eq!(copies, 4);
    client.stop().await;
}

#[tokio::test]
async fn a_scenario_style_pair_without_transmitted_events_or_handler_still_counts_copies_and_reports_them() {
    // As the driver layer's `Endpoints` builds them: no Transmitted events, a server with a
    // fixed response and no handler. Observers learn every copy from `TaskReport::Sent`.
    let clock = Clock::start();
    let base = server_config(Duration::from_secs(10)).unwrap();
    let server_cfg = coapcc_proto::EndpointConfig {
        auto_response: Some(coapcc_proto::AutoResponse { code: Code::CONTENT, payload: vec![0u8; 20].into() }),
        transmitted_events: false,
        ..base
    };
    let server = Endpoint::new(server_cfg, stream_rng(2, 0, Stream::Server(0).id())).unwrap();
    let (server, mut server_reports) = spawn(bind().await, server, clock, TaskOptions::default().with_reports());
    let config = coapcc_proto::EndpointConfig {
        transmitted_events: false,
        ..client_config(&algorithm("fasor-token", &[]).unwrap()).unwrap()
    };
    let client = Endpoint::new(config, stream_rng(2, 0, Stream::Client(0).id())).unwrap();
    let (client, mut reports) = spawn(bind().await, client, clock, TaskOptions::client().with_reports());
    let out = client.request(server.local_addr(), request(Code::GET, "res", "")).unwrap().await.unwrap();
    assert_eq!((out.transmissions(), out.timers.len(), out.echoed_copy), (1, 0, Some(0)));
    assert_eq!(out.result.unwrap().payload.len(), 20);
    client.stop().await;
    server.stop().await;
    let sent: Vec<TaskReport> =
        std::iter::from_fn(|| reports.try_recv().ok()).filter(|r| matches!(r, TaskReport::Sent { .. })).collect();
    assert!(matches!(sent[..], [TaskReport::Sent { origin: Origin::Request { copy: 0, .. }, .. }]), "{sent:?}");
    let answered = std::iter::from_fn(|| server_reports.try_recv().ok())
        .filter(|r| matches!(r, TaskReport::Sent { origin: Origin::Response { duplicate: false }, .. }))
        .count();
    assert_eq!(answered, 1);
}
