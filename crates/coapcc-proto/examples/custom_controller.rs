//! A congestion controller written outside `coapcc-core`, with its public API only, and driven
//! through a real CoAP endpoint (`docs/adding-an-algorithm.md` shows and explains this file;
//! a test checks that the page shows it verbatim). Run: `cargo run -p coapcc-proto --example
//! custom_controller`; it exits non-zero if an assertion fails.
//!
//! Linear backoff: RFC 7252 §4.2's first timer, then `T_k = T_(k-1) + step` for every
//! retransmission, and give up after MAX_RETRANSMIT retransmissions.

use std::sync::Arc;
use std::time::Duration;

use coapcc_core::duration::mul;
use coapcc_core::harness::{Event as HarnessEvent, StopAndWait};
use coapcc_core::params::{ACK_RANDOM_FACTOR, ACK_TIMEOUT, MAX_RETRANSMIT};
use coapcc_core::random::{Rng, dither_factor};
use coapcc_core::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use coapcc_core::{ConfigError, Instant, Ratio};
use coapcc_proto::{Code, Endpoint, EndpointConfig, Event, Message};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// Configuration of linear backoff. `Default`: RFC 7252 §4.8 values and a 2 s step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearConfig {
    /// ACK_TIMEOUT: the first timer is drawn from [ACK_TIMEOUT, ACK_TIMEOUT × ACK_RANDOM_FACTOR).
    pub ack_timeout: Duration,
    /// ACK_RANDOM_FACTOR (≥ 1).
    pub ack_random_factor: Ratio,
    /// MAX_RETRANSMIT.
    pub max_retransmit: u8,
    /// What every retransmission adds to the previous timer.
    pub step: Duration,
    /// Draw the first timer at random; off: exactly ACK_TIMEOUT.
    pub dither: bool,
}

impl Default for LinearConfig {
    fn default() -> Self {
        LinearConfig {
            ack_timeout: ACK_TIMEOUT,
            ack_random_factor: ACK_RANDOM_FACTOR,
            max_retransmit: MAX_RETRANSMIT,
            step: Duration::from_secs(2),
            dither: true,
        }
    }
}

/// Linear backoff, the algorithm: built once from a checked configuration, shared by every
/// destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Linear {
    config: LinearConfig,
}

/// Per exchange: the timer armed for the latest copy (the next step adds to it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinearExchange {
    /// The latest armed timer.
    pub last: Duration,
}

impl Linear {
    /// Checks the configuration (parse, don't validate: after this every method is total).
    pub fn new(config: LinearConfig) -> Result<Self, ConfigError> {
        if config.ack_timeout.is_zero() {
            return Err(ConfigError::new("ack_timeout_ms", "must be greater than 0"));
        }
        if config.ack_random_factor < Ratio::ONE {
            return Err(ConfigError::new("ack_random_factor", "must be at least 1 (RFC 7252 §4.8)"));
        }
        Ok(Linear { config })
    }
}

impl Controller for Linear {
    /// Nothing survives an exchange: zero bytes per destination.
    type State = ();
    type ExchangeState = LinearExchange;

    fn new_state(&self) {}

    fn on_transmit(
        &self,
        _st: &mut (),
        _now: Instant,
        ex: &mut Exchange<LinearExchange>,
        _in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        let timer = if ex.retransmissions() == 0 {
            // RFC 7252 §4.2: uniform in [ACK_TIMEOUT, ACK_TIMEOUT × ACK_RANDOM_FACTOR).
            if self.config.dither {
                dither_factor(rng, self.config.ack_timeout, self.config.ack_random_factor)
            } else {
                self.config.ack_timeout
            }
        } else {
            // The one rule of this algorithm: add, don't double (saturating, never a panic).
            ex.cc.last.saturating_add(self.config.step)
        };
        ex.cc.last = timer;
        timer
    }

    fn on_timeout(&self, _st: &mut (), _now: Instant, ex: &mut Exchange<LinearExchange>) -> Retry {
        if ex.retransmissions() < self.config.max_retransmit { Retry::Retransmit } else { Retry::GiveUp }
    }

    fn on_ack(&self, _st: &mut (), _now: Instant, _ex: &Exchange<LinearExchange>, _ack: &Ack) {}

    fn rto(&self, _st: &(), _now: Instant) -> Option<Duration> {
        Some(self.config.ack_timeout)
    }

    fn timer_bounds(&self) -> TimerBounds {
        let max_first = self.config.ack_random_factor.mul_duration(self.config.ack_timeout);
        let steps = mul(self.config.step, u64::from(self.config.max_retransmit));
        TimerBounds { min: self.config.ack_timeout, max: max_first.saturating_add(steps) }
    }

    /// Linear backoff takes no RTT sample, so acknowledgements need not name a copy.
    fn echo_mode(&self) -> EchoMode {
        EchoMode::None
    }
}

/// Whole seconds since the epoch (every instant checked below is one).
fn secs(at: Instant) -> u64 {
    at.since_epoch().as_secs()
}

/// Through the controller harness of `coapcc-core`: an unanswered exchange with an
/// undithered 2 s first timer and a 2 s step retransmits at 0, 2, 6, 12, 20 s (each timer
/// 2 s longer than the last) and gives up when the 10 s timer of the fifth copy expires, at 30 s.
fn an_unanswered_exchange_retransmits_at_0_2_6_12_20_s_and_gives_up_at_30_s(linear: Linear) {
    let mut h = StopAndWait::new(linear);
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let mut events = Vec::new();
    h.send(Instant::ZERO, &mut rng, &mut |e| events.push(e)).unwrap();
    h.advance_to(Instant::from_millis(100_000), &mut rng, &mut |e| events.push(e));
    let sent_s: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            HarnessEvent::Transmit { at, .. } => Some(secs(*at)),
            _ => None,
        })
        .collect();
    assert_eq!(sent_s, [0, 2, 6, 12, 20]);
    assert!(matches!(events.last(), Some(HarnessEvent::GiveUp { at, .. }) if secs(*at) == 30));
}

/// Through a real CoAP endpoint (Message IDs, tokens, duplicate detection), generic over the
/// controller: the link loses the first two copies of the request and delays every datagram
/// by 50 ms, so the third copy, sent at 6 s, is answered at 6.1 s.
fn a_request_whose_first_two_copies_are_lost_completes_after_the_third(linear: Linear) {
    const CLIENT: u8 = 1;
    const SERVER: u8 = 2;
    let delay = Duration::from_millis(50);
    let config = EndpointConfig::echoing(Arc::new(linear));
    let mut client: Endpoint<u8, Pcg64Mcg, Linear> = Endpoint::new(config.clone(), Pcg64Mcg::seed_from_u64(1)).unwrap();
    let mut server = Endpoint::new(config, Pcg64Mcg::seed_from_u64(2)).unwrap();
    let mut now = Instant::ZERO;
    let id = client.request(now, SERVER, Message::con_request(Code::GET, "temperature"));
    // Datagrams on the link: (arrival, destination, message).
    let mut link: Vec<(Instant, u8, Arc<Message>)> = Vec::new();
    let (mut copies_sent, mut completed) = (Vec::new(), None);
    while completed.is_none() && secs(now) < 60 {
        while let Some(t) = client.poll_transmit() {
            copies_sent.push(secs(now));
            if copies_sent.len() > 2 {
                link.push((now + delay, SERVER, t.msg));
            }
        }
        while let Some(e) = server.poll_event() {
            if let Event::Request { handle, .. } = e {
                server.respond(now, handle, Code::CONTENT, b"21.5 C".to_vec());
            }
        }
        while let Some(t) = server.poll_transmit() {
            link.push((now + delay, CLIENT, t.msg));
        }
        while let Some(e) = client.poll_event() {
            if let Event::Completed { id: done, rtt, retransmissions, .. } = e {
                completed = Some((done, rtt, retransmissions));
            }
        }
        // The next thing to happen: a datagram arriving or the client's timer expiring.
        let next_arrival = link.iter().map(|(at, ..)| *at).min();
        let Some(next) = [next_arrival, client.poll_timeout()].into_iter().flatten().min() else { break };
        now = now.max(next);
        let (due, later): (Vec<_>, Vec<_>) = link.into_iter().partition(|(at, ..)| *at <= now);
        link = later;
        for (_, to, msg) in due {
            if to == SERVER { server.handle_message(now, CLIENT, msg) } else { client.handle_message(now, SERVER, msg) }
        }
        client.handle_timeout(now);
    }
    assert_eq!(copies_sent, [0, 2, 6]);
    assert_eq!(completed, Some((id, Duration::from_millis(6_100), 2)));
}

fn main() {
    let linear = Linear::new(LinearConfig { dither: false, ..LinearConfig::default() }).unwrap();
    an_unanswered_exchange_retransmits_at_0_2_6_12_20_s_and_gives_up_at_30_s(linear);
    a_request_whose_first_two_copies_are_lost_completes_after_the_third(linear);
    // Configuration errors name the key.
    let bad = LinearConfig { ack_random_factor: Ratio::new(1, 2), ..LinearConfig::default() };
    assert_eq!(Linear::new(bad).unwrap_err().key, "ack_random_factor");
    // The per-destination footprint (the README's table): nothing at all.
    assert_eq!(std::mem::size_of::<<Linear as Controller>::State>(), 0);
    println!("linear backoff: harness and endpoint checks passed");
}
