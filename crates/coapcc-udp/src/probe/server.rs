//! Probing a server: a confirmable GET of the URI, the same datagram again after a while (a
//! duplicate within EXCHANGE_LIFETIME), a CoAP ping (an empty confirmable message) and an
//! unexpected empty ACK, each awaited for a bounded time; the answers go to
//! [`coapcc_driver::probe::check_server`].

use std::time::Duration;

use coapcc_driver::probe::{Answer, Duplicate, ServerObservation};
use coapcc_proto::{Code, Message, MessageType, Token, codec};
use tokio::net::UdpSocket;
use tokio::time::timeout;

use super::ProbeError;
use crate::config::{parse_uri, uri_request};

/// How the server is probed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerProbeOptions {
    /// How long to wait for each answer.
    pub wait: Duration,
    /// How long after the GET its duplicate is sent (RFC 7252 §4.5: a server detects
    /// duplicates for EXCHANGE_LIFETIME, 247 s by default).
    pub duplicate_after: Duration,
}

/// Every datagram that arrives within `wait`, until `enough` says the answer is complete.
async fn collect(socket: &UdpSocket, wait: Duration, enough: impl Fn(&[Vec<u8>]) -> bool) -> Vec<Vec<u8>> {
    let mut got: Vec<Vec<u8>> = Vec::new();
    let mut buf = vec![0u8; 65_535];
    #[allow(clippy::disallowed_methods, reason = "this crate is where the OS clock may be read")]
    let deadline = tokio::time::Instant::now() + wait;
    while !enough(&got) {
        match tokio::time::timeout_at(deadline, socket.recv(&mut buf)).await {
            Ok(Ok(n)) => got.push(buf[..n].to_vec()),
            Ok(Err(_)) | Err(_) => break,
        }
    }
    got
}

fn decoded(d: &[Vec<u8>]) -> Vec<Message> {
    d.iter().filter_map(|b| codec::decode(b).ok()).collect()
}

/// Whether the datagrams so far hold a whole answer to the request `mid`/`token`.
fn answered(d: &[Vec<u8>], mid: u16, token: Token) -> bool {
    decoded(d).iter().any(|m| (m.mid == mid && m.code != Code::EMPTY) || (m.token == token && m.code.is_response()))
}

/// Probes the server at `uri` (a `coap://` URI).
pub async fn probe(uri: &str, opts: &ServerProbeOptions) -> Result<ServerObservation, ProbeError> {
    let parsed = parse_uri(uri).map_err(|e| ProbeError::BadUri(e.to_string()))?;
    let target = tokio::net::lookup_host((parsed.host.as_str(), parsed.port))
        .await
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| ProbeError::BadUri(format!("bad URI `{uri}`: cannot resolve host `{}`", parsed.host)))?;
    let bind = if target.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
    let socket = UdpSocket::bind(bind).await.map_err(ProbeError::Socket)?;
    socket.connect(target).await.map_err(ProbeError::Socket)?;
    let seed = std::process::id() as u16;
    let mid = seed.wrapping_mul(31).wrapping_add(1);
    let token = Token::new(&seed.to_be_bytes()).unwrap_or(Token::EMPTY);
    let mut get = uri_request(Code::GET, &parsed.path, &parsed.query).map_err(|e| ProbeError::BadUri(e.to_string()))?;
    get.mid = mid;
    get.token = token;
    let request = codec::encode(&get);
    socket.send(&request).await.map_err(ProbeError::Socket)?;
    let first = collect(&socket, opts.wait, |d| answered(d, mid, token)).await;
    let msgs = decoded(&first);
    let ack = msgs.iter().find(|m| m.mtype == MessageType::Ack && m.mid == mid);
    let answer = match ack {
        Some(a) if a.code != Code::EMPTY => Answer::Piggybacked,
        Some(_) => Answer::Separate,
        None if msgs.iter().any(|m| m.token == token && m.code.is_response()) => Answer::Unacknowledged,
        None => return Err(ProbeError::NoAnswer(target, opts.wait)),
    };
    // Acknowledge a confirmable separate response, as a client must.
    for m in msgs.iter().filter(|m| m.mtype == MessageType::Con && m.token == token) {
        let _ = socket.send(&codec::encode(&Message::empty(MessageType::Ack, m.mid))).await;
    }
    let response_bytes: usize = first.iter().map(Vec::len).sum();
    let first_ack = ack.map(codec::encode);

    tokio::time::sleep(opts.duplicate_after).await;
    socket.send(&request).await.map_err(ProbeError::Socket)?;
    let again = collect(&socket, opts.wait, |d| decoded(d).iter().any(|m| m.mid == mid)).await;
    let dup_ack = decoded(&again).into_iter().find(|m| m.mid == mid && m.mtype == MessageType::Ack);
    let duplicate = match (dup_ack.map(|m| codec::encode(&m)), first_ack) {
        (None, _) => Duplicate::Ignored,
        (Some(a), Some(b)) if a == b => Duplicate::SameAnswer,
        (Some(_), _) => Duplicate::DifferentAnswer,
    };

    let ping_mid = mid.wrapping_add(1);
    socket.send(&codec::encode(&Message::empty(MessageType::Con, ping_mid))).await.map_err(ProbeError::Socket)?;
    let pong = collect(&socket, opts.wait, |d| decoded(d).iter().any(|m| m.mid == ping_mid)).await;
    let ping_reset = decoded(&pong).iter().any(|m| m.mid == ping_mid && m.mtype == MessageType::Rst);

    let stray_mid = mid.wrapping_add(2);
    socket.send(&codec::encode(&Message::empty(MessageType::Ack, stray_mid))).await.map_err(ProbeError::Socket)?;
    let stray = timeout(opts.wait, async {
        let mut buf = [0u8; 2048];
        loop {
            match socket.recv(&mut buf).await {
                Ok(n) if codec::decode(&buf[..n]).is_ok_and(|m| m.mid == stray_mid) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    })
    .await
    .unwrap_or(false);

    Ok(ServerObservation {
        answer,
        request_bytes: request.len(),
        response_bytes,
        duplicate,
        duplicate_after_s: opts.duplicate_after.as_secs_f64(),
        ping_reset,
        stray_ack_answered: stray,
    })
}
