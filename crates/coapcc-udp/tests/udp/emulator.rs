//! The emulator on loopback: datagrams leave at the model's departure instants, drops are
//! counted by reason, and both sides are in its pcap. Every test is bounded in time and stops
//! what it started (tasks of its own runtime).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use coapcc_core::{Duration, Instant};
use coapcc_driver::link::PipelineConfig;
use coapcc_driver::scenario::NetworkConfig;
use coapcc_udp::clock::Clock;
use coapcc_udp::emulator::{Direction, Emulator, EmulatorConfig, EmulatorReport};
use tokio::net::UdpSocket;
use tokio::sync::oneshot;

fn pipeline(toml_text: &str) -> PipelineConfig {
    toml::from_str(toml_text).unwrap()
}

/// A server that records when each datagram arrived (on `clock`) and echoes it back.
async fn echo_server(clock: Clock) -> (SocketAddr, Arc<Mutex<Vec<(Instant, Vec<u8>)>>>, tokio::task::JoinHandle<()>) {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = socket.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let task = tokio::spawn(async move {
        let mut buf = vec![0_u8; 2048];
        while let Ok((n, from)) = socket.recv_from(&mut buf).await {
            log.lock().unwrap().push((clock.now(), buf[..n].to_vec()));
            let _ = socket.send_to(&buf[..n], from).await;
        }
    });
    (addr, seen, task)
}

/// Runs an emulator over `uplink`/`downlink`, sends `count` datagrams of `bytes` from one client
/// at once, waits `settle`, stops; returns the report, the server's arrivals and the client's.
async fn burst(
    uplink: PipelineConfig,
    downlink: PipelineConfig,
    count: usize,
    bytes: usize,
    settle: std::time::Duration,
    pcap: Option<std::path::PathBuf>,
) -> (EmulatorReport, Vec<(Instant, Vec<u8>)>, usize) {
    let clock = Clock::start();
    let (server, seen, server_task) = echo_server(clock).await;
    let mut config =
        EmulatorConfig::new("127.0.0.1:0".parse().unwrap(), server, NetworkConfig::Custom { uplink, downlink });
    config.keep_log = true;
    config.pcap = pcap;
    let emulator = Emulator::bind(config, clock).await.unwrap();
    let relay = emulator.local_addr().unwrap();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let run = tokio::spawn(emulator.run(
        async {
            let _ = stop_rx.await;
        },
        false,
    ));
    let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    for i in 0..count {
        let mut d = vec![0_u8; bytes];
        d[0] = i as u8;
        client.send_to(&d, relay).await.unwrap();
    }
    let mut back = 0;
    let mut buf = [0_u8; 2048];
    let deadline = tokio::time::Instant::now() + settle;
    while let Ok(Ok(_)) = tokio::time::timeout_at(deadline, client.recv_from(&mut buf)).await {
        back += 1;
    }
    stop_tx.send(()).unwrap();
    let report = run.await.unwrap().unwrap();
    server_task.abort();
    let seen = seen.lock().unwrap().clone();
    (report, seen, back)
}

#[tokio::test(flavor = "current_thread")]
async fn a_rate_and_delay_link_delivers_at_the_model_departure_instants() {
    // 80 kbit/s, unlimited buffer, 50 ms propagation: 100 B + 28 B of headers = 12.8 ms each.
    let up = pipeline(
        "[[stages]]\nkind = \"serializer\"\nrate_bps = 80000\nbuffer_bytes = 1000000\n\
         [[stages]]\nkind = \"propagation\"\ndelay_ms = 50\n",
    );
    let (report, seen, back) =
        burst(up, PipelineConfig::default(), 10, 100, std::time::Duration::from_millis(600), None).await;
    assert_eq!(seen.len(), 10);
    assert_eq!(back, 10);
    let ups: Vec<_> = report.log.iter().filter(|r| r.direction == Direction::Uplink).collect();
    assert_eq!(ups.len(), 10);
    // The model, computed here independently of the stages: FIFO serialisation, then the delay.
    let ser = Duration::from_micros(12_800);
    let mut link_free = Instant::from_nanos(0);
    for (record, (arrived, data)) in ups.iter().zip(&seen) {
        assert_eq!(&record.datagram, data, "FIFO order");
        let start = record.offered.max(link_free);
        link_free = start.saturating_add(ser);
        let expected = link_free.saturating_add(Duration::from_millis(50));
        assert_eq!(record.outcome, Ok(expected), "the pipeline's departure is the model's");
        // Never early; late by scheduling only (generous: the test host may be busy). A relay
        // that ignored the model would be 63–178 ms early.
        let error = arrived.as_nanos() as i64 - expected.as_nanos() as i64;
        assert!((-1_000_000..30_000_000).contains(&error), "arrived {error} ns from the model departure");
    }
    let d = report.direction(Direction::Uplink);
    assert_eq!(d.forwarded, 10);
    assert_eq!(d.timing.len(), 10);
    assert!(d.timing.quantile(0.5).unwrap() < Duration::from_millis(20), "{report}");
}

#[tokio::test(flavor = "current_thread")]
async fn buffer_and_gilbert_elliott_drops_are_counted_by_reason() {
    // 10 kbit/s behind a 500 B buffer: a burst of 20 × 128 B overflows it. Then half the
    // packets are lost in either Gilbert–Elliott state.
    let up = pipeline(
        "[[stages]]\nkind = \"serializer\"\nrate_bps = 100000\nbuffer_bytes = 500\n\
         [[stages]]\nkind = \"gilbert_elliott\"\nloss_good = 0.5\nloss_bad = 0.5\n",
    );
    let (report, seen, back) =
        burst(up, PipelineConfig::default(), 20, 100, std::time::Duration::from_millis(500), None).await;
    let d = report.direction(Direction::Uplink);
    let t = d.totals;
    assert_eq!(t.offered.packets, 20);
    assert!(t.dropped.buffer.packets > 0, "{report}");
    assert!(t.dropped.error.packets > 0, "{report}");
    assert_eq!(t.dropped.no_token.packets, 0);
    assert_eq!(t.offered.packets - t.dropped.total().packets, d.forwarded);
    assert_eq!(seen.len() as u64, d.forwarded);
    assert_eq!(back as u64, d.forwarded);
    assert_eq!(report.direction(Direction::Downlink).forwarded, d.forwarded);
    assert!(report.to_string().contains("uplink"));
}

#[tokio::test(flavor = "current_thread")]
async fn the_pcap_holds_both_sides_of_every_forwarded_datagram() {
    let dir = std::env::temp_dir().join(format!("coapcc-emu-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("relay.pcap");
    let (report, _, back) = burst(
        PipelineConfig::default(),
        PipelineConfig::default(),
        5,
        30,
        std::time::Duration::from_millis(300),
        Some(path.clone()),
    )
    .await;
    assert_eq!(back, 5);
    let bytes = std::fs::read(&path).unwrap();
    // Four records per datagram (client → relay, relay → server, server → relay, relay →
    // client), each 16 B of record header + 20 B IPv4 + 8 B UDP + 30 B.
    assert_eq!(report.direction(Direction::Uplink).forwarded, 5);
    assert_eq!(bytes.len(), 24 + 4 * 5 * (16 + 20 + 8 + 30));
    std::fs::remove_dir_all(&dir).unwrap();
}
