//! Driving the sans-IO endpoint over `std::net` sockets: a server endpoint on one thread and a
//! client endpoint on another, on loopback, five CoAP exchanges, then exit 0. The endpoint owns
//! no socket and reads no clock; the loop below does both, in the order `coapcc_proto::Endpoint`
//! documents: feed it (`request`, `handle_datagram`, `handle_timeout`), then drain it
//! (`poll_transmit`, `poll_event`), then sleep until `poll_timeout` or the next datagram.
//!
//! `cargo run -p coapcc-proto --example std_net`

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use coapcc_core::{AnyConfig, Instant};
use coapcc_proto::{Code, Endpoint, EndpointConfig, Event, Message, codec};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// Exchanges the client makes.
const EXCHANGES: usize = 5;
/// Every loop gives up after this long, so the example always ends.
const DEADLINE: Duration = Duration::from_secs(20);
/// The longest the server sleeps between looks at the stop flag.
const SERVER_POLL: Duration = Duration::from_millis(50);

/// The endpoint's clock: time since the start of the program. Reading the OS clock is the
/// driver's business, never the endpoint's.
struct Clock(std::time::Instant);

impl Clock {
    #[allow(clippy::disallowed_methods)] // a socket driver reads the wall clock; the endpoint never does
    fn start() -> Clock {
        Clock(std::time::Instant::now())
    }

    fn now(&self) -> Instant {
        Instant::ZERO + self.0.elapsed()
    }
}

/// Sends everything the endpoint has queued.
fn flush(ep: &mut Endpoint<SocketAddr, Pcg64Mcg>, socket: &UdpSocket) -> std::io::Result<()> {
    while let Some(t) = ep.poll_transmit() {
        socket.send_to(&codec::encode(&t.msg), t.to)?;
    }
    Ok(())
}

/// Waits for one datagram until `wake` (or a short while when there is none) and hands it to
/// the endpoint; then fires whatever timers are due.
fn receive(ep: &mut Endpoint<SocketAddr, Pcg64Mcg>, socket: &UdpSocket, clock: &Clock, wake: Option<Instant>) {
    let now = clock.now();
    let wait =
        wake.map_or(SERVER_POLL, |w| w.saturating_duration_since(now).clamp(Duration::from_millis(1), SERVER_POLL));
    socket.set_read_timeout(Some(wait)).expect("a non-zero read timeout");
    let mut buf = [0u8; 1500];
    if let Ok((n, from)) = socket.recv_from(&mut buf) {
        ep.handle_datagram(clock.now(), from, &buf[..n]);
    }
    ep.handle_timeout(clock.now());
}

fn endpoint(config: EndpointConfig, seed: u64) -> Endpoint<SocketAddr, Pcg64Mcg> {
    Endpoint::new(config, Pcg64Mcg::seed_from_u64(seed)).expect("a valid configuration")
}

/// Answers every request with "hello <path>" until `stop` is set.
fn serve(socket: UdpSocket, config: EndpointConfig, stop: &AtomicBool) -> std::io::Result<u64> {
    let clock = Clock::start();
    let mut server = endpoint(config, 2);
    let mut answered = 0;
    while !stop.load(Ordering::Relaxed) && clock.now().since_epoch() < DEADLINE {
        let wake = server.poll_timeout();
        receive(&mut server, &socket, &clock, wake);
        while let Some(e) = server.poll_event() {
            if let Event::Request { handle, request } = e {
                let body = format!("hello {}", request.uri_path());
                server.respond(clock.now(), handle, Code::CONTENT, body.into_bytes());
                answered += 1;
            }
        }
        flush(&mut server, &socket)?;
    }
    Ok(answered)
}

/// Makes `EXCHANGES` requests one after the other and returns each response's payload.
fn client(socket: UdpSocket, server: SocketAddr, config: EndpointConfig) -> std::io::Result<Vec<String>> {
    let clock = Clock::start();
    let mut client = endpoint(config, 1);
    let mut answers = Vec::new();
    for i in 0..EXCHANGES {
        let id = client.request(clock.now(), server, Message::con_request(Code::GET, &format!("sensor/{i}")));
        let mut done = false;
        while !done && clock.now().since_epoch() < DEADLINE {
            flush(&mut client, &socket)?;
            let wake = client.poll_timeout();
            receive(&mut client, &socket, &clock, wake);
            while let Some(e) = client.poll_event() {
                match e {
                    Event::Completed { id: done_id, response: Some(r), .. } if done_id == id => {
                        answers.push(String::from_utf8_lossy(&r.payload).into_owned());
                        done = true;
                    }
                    Event::Failed { id: failed, .. } if failed == id => {
                        return Err(std::io::Error::other(format!("exchange {i} failed")));
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(answers)
}

fn main() -> std::io::Result<()> {
    let algorithm =
        Arc::new(AnyConfig::from_name("cocoa").expect("a registered algorithm").build().expect("a valid preset"));
    let config = EndpointConfig::echoing(algorithm);
    let server_socket = UdpSocket::bind("127.0.0.1:0")?;
    let server_addr = server_socket.local_addr()?;
    let client_socket = UdpSocket::bind("127.0.0.1:0")?;
    let stop = AtomicBool::new(false);
    let (answers, answered) = std::thread::scope(|s| {
        let server = s.spawn(|| serve(server_socket, config.clone(), &stop));
        let answers = s.spawn(|| client(client_socket, server_addr, config.clone())).join().expect("the client thread");
        stop.store(true, Ordering::Relaxed);
        (answers, server.join().expect("the server thread"))
    });
    let (answers, answered) = (answers?, answered?);
    let expected: Vec<String> = (0..EXCHANGES).map(|i| format!("hello sensor/{i}")).collect();
    assert_eq!(answers, expected);
    // Loopback loses nothing, so every request reached the application once.
    assert_eq!(answered, EXCHANGES as u64);
    println!("{EXCHANGES} exchanges over UDP loopback with {server_addr}: {answers:?}");
    Ok(())
}
