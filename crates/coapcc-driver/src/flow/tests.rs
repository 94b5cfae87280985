//! The loop against a fake host that logs every call: exact call order, exact wake-ups, a
//! short-lived client replaced. Times follow RFC 7252 §4.2 with dithering off: the first
//! timer is ACK_TIMEOUT (2 s) and each retransmission doubles it.

use std::convert::Infallible;
use std::sync::Arc;

use coapcc_core::{Duration, Instant};
use coapcc_proto::{Code, Endpoint, Message, MessageType};

use super::*;
use crate::endpoints::Endpoints;
use crate::recorder::{CompletionPoint, RecorderOptions};
use crate::rng::{SimRng, Stream, stream_rng};
use crate::scenario::{CoapConfig, Count, FlowType, WorkloadConfig, configure_algorithm};

/// One call the loop made to the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Call {
    NewClient {
        flow: u32,
        incarnation: u32,
    },
    Issued {
        flow: u32,
        exchange: u32,
    },
    /// `copy` is `None` for a datagram that is not a request.
    Send {
        flow: u32,
        incarnation: u32,
        exchange: u32,
        copy: Option<u8>,
    },
    Wake {
        flow: u32,
        at_ms: Option<u64>,
    },
    Ended {
        flow: u32,
        exchange: u32,
    },
    Finished {
        flow: u32,
    },
}

use Call::*;

struct Fake {
    now: Instant,
    prototype: Endpoint<u32, SimRng>,
    calls: Vec<Call>,
    /// Every message sent, in order.
    sent: Vec<Arc<Message>>,
}

const SERVER: u32 = 1000;

impl Host for Fake {
    type Addr = u32;
    type Rng = SimRng;
    /// The client's incarnation.
    type Client = u32;
    type Error = Infallible;

    fn now(&self) -> Instant {
        self.now
    }

    fn peer(&self, _flow: u32) -> u32 {
        SERVER
    }

    fn new_client(&mut self, flow: u32, incarnation: u32) -> Result<(Endpoint<u32, SimRng>, u32), Infallible> {
        self.calls.push(NewClient { flow, incarnation });
        Ok((self.prototype.renewed(stream_rng(1, 0, u64::from(incarnation))), incarnation))
    }

    fn send(&mut self, client: &mut u32, d: Datagram<u32>) -> Sent {
        assert_eq!(d.transmit.to, SERVER);
        self.calls.push(Send {
            flow: d.flow,
            incarnation: *client,
            exchange: d.request.map_or(u32::MAX, |r| r.exchange),
            copy: d.request.map(|r| r.copy),
        });
        self.sent.push(d.transmit.msg);
        Sent { accepted: Some(true), link_rate_pps: None }
    }

    fn set_wake(&mut self, flow: u32, at: Option<Instant>) {
        self.calls.push(Wake { flow, at_ms: at.map(|t| t.as_nanos() / 1_000_000) });
    }

    fn issued(&mut self, flow: u32, exchange: u32) {
        self.calls.push(Issued { flow, exchange });
    }

    fn ended(&mut self, flow: u32, exchange: u32) {
        self.calls.push(Ended { flow, exchange });
    }

    fn finished(&mut self, flow: u32) {
        self.calls.push(Finished { flow });
    }
}

fn workload(flow_type: FlowType, exchanges: u32) -> WorkloadConfig {
    WorkloadConfig {
        flows: 1,
        flow_type,
        exchanges_per_flow: exchanges,
        start_window: Duration::ZERO,
        random_min: 1,
        random_max: 1,
        duration: None,
        nstart: 1,
        count: Count::Successes,
        time_limit: Duration::from_secs(100),
    }
}

/// A loop of one flow of `config`, and its host; Default CoAP without dithering.
fn setup(config: WorkloadConfig) -> (FlowLoop<Fake>, Fake) {
    let own: toml::Table = toml::from_str("dither = false").unwrap_or_default();
    let alg = configure_algorithm("default", &toml::Table::new(), &own).unwrap_or_else(|e| panic!("{e}"));
    let e = Endpoints::new(&CoapConfig::default(), &config, &alg).unwrap_or_else(|e| panic!("{e}"));
    let prototype = Endpoint::new(e.client, stream_rng(1, 0, 0)).unwrap_or_else(|e| panic!("{e}"));
    let w = Workload::new(config, stream_rng(1, 0, Stream::Workload(0).id()));
    let flows = FlowLoop::new(w, Recorder::new(config.flows, false), e.request);
    (flows, Fake { now: Instant::ZERO, prototype, calls: Vec::new(), sent: Vec::new() })
}

fn at(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

/// The server's piggybacked answer to `request`.
fn ack(request: &Message) -> Arc<Message> {
    Arc::new(Message {
        mtype: MessageType::Ack,
        code: Code::CONTENT,
        mid: request.mid,
        token: request.token,
        options: Default::default(),
        payload: Default::default(),
    })
}

/// The calls made since the last look.
fn take(h: &mut Fake) -> Vec<Call> {
    std::mem::take(&mut h.calls)
}

#[test]
fn the_loop_issues_records_sends_and_rearms_in_the_documented_order() {
    let (mut flows, mut h) = setup(workload(FlowType::Continuous, 2));
    let Ok(()) = flows.start(&mut h, 0);
    assert_eq!(
        take(&mut h),
        [
            NewClient { flow: 0, incarnation: 0 },
            Issued { flow: 0, exchange: 0 },
            Send { flow: 0, incarnation: 0, exchange: 0, copy: Some(0) },
            // ACK_TIMEOUT after the original.
            Wake { flow: 0, at_ms: Some(2_000) },
        ]
    );
    h.now = at(2_000);
    let Ok(()) = flows.handle_timeout(&mut h, 0);
    // The retransmission's timer is doubled: 2 s + 4 s.
    assert_eq!(
        take(&mut h),
        [Send { flow: 0, incarnation: 0, exchange: 0, copy: Some(1) }, Wake { flow: 0, at_ms: Some(6_000) }]
    );
    h.now = at(2_500);
    let answer = ack(&h.sent[1]);
    let Ok(()) = flows.handle_message(&mut h, 0, 0, SERVER, answer);
    // The next request is queued while the completion is handled, and leaves in the next round.
    assert_eq!(
        take(&mut h),
        [
            Ended { flow: 0, exchange: 0 },
            Issued { flow: 0, exchange: 1 },
            Send { flow: 0, incarnation: 0, exchange: 1, copy: Some(0) },
            Wake { flow: 0, at_ms: Some(4_500) },
        ]
    );
    // A late duplicate answer matches nothing: no call at all, not even a re-arm.
    let answer = ack(&h.sent[0]);
    let Ok(()) = flows.handle_message(&mut h, 0, 0, SERVER, answer);
    assert_eq!(take(&mut h), []);
    h.now = at(3_000);
    let answer = ack(&h.sent[2]);
    let Ok(()) = flows.handle_message(&mut h, 0, 0, SERVER, answer);
    assert_eq!(take(&mut h), [Ended { flow: 0, exchange: 1 }, Finished { flow: 0 }, Wake { flow: 0, at_ms: None }]);
    assert!(flows.all_finished());
    let r = flows.recorder().flow(0).cloned().unwrap_or_default();
    assert_eq!((r.transmissions, r.retransmissions), (3, 1));
    // CoAP RTTs: original copy to acknowledgement.
    assert_eq!((r.rtts.quantile(0.0), r.rtts.quantile(1.0)), (0.5, 2.5));
    assert_eq!(r.expired_rto.quantile(0.5), 2.0);
    let p = flows.workload().flow(0).copied().unwrap_or_default();
    assert_eq!((p.started, p.ended, p.completed, p.failed), (Some(at(0)), Some(at(3_000)), 2, 0));
}

#[test]
fn a_short_lived_client_is_replaced_at_once_and_its_late_datagrams_are_dropped() {
    // Random flow: one exchange per client, two in all.
    let (mut flows, mut h) = setup(workload(FlowType::Random, 2));
    h.now = at(100);
    let Ok(()) = flows.start(&mut h, 0);
    assert_eq!(take(&mut h)[3], Wake { flow: 0, at_ms: Some(2_100) });
    h.now = at(400);
    let first = ack(&h.sent[0]);
    let Ok(()) = flows.handle_message(&mut h, 0, 0, SERVER, Arc::clone(&first));
    assert_eq!(
        take(&mut h),
        [
            Ended { flow: 0, exchange: 0 },
            NewClient { flow: 0, incarnation: 1 },
            // The old client's timer goes with it.
            Wake { flow: 0, at_ms: None },
            // The new client's first request is the flow's exchange 1.
            Issued { flow: 0, exchange: 1 },
            Send { flow: 0, incarnation: 1, exchange: 1, copy: Some(0) },
            Wake { flow: 0, at_ms: Some(2_400) },
        ]
    );
    // A copy of the answer addressed to incarnation 0 reaches no one.
    let Ok(()) = flows.handle_message(&mut h, 0, 0, SERVER, first);
    assert_eq!(take(&mut h), []);
    assert_eq!(flows.wake_at(0), Some(at(2_400)));
    h.now = at(2_400);
    let Ok(()) = flows.handle_timeout(&mut h, 0);
    assert_eq!(
        take(&mut h),
        [Send { flow: 0, incarnation: 1, exchange: 1, copy: Some(1) }, Wake { flow: 0, at_ms: Some(6_400) }]
    );
    assert_eq!(flows.next_wake(), Some(at(6_400)));
    assert!(!flows.all_finished());
}

#[test]
fn a_flow_added_during_the_run_starts_when_the_host_says_and_is_recorded() {
    let (mut flows, mut h) = setup(workload(FlowType::Continuous, 1));
    let f = flows.add_flow(FlowSpec { exchanges: Some(1), concurrency: 1 });
    assert_eq!(f, 1);
    assert_eq!(flows.endpoint(f).map(|_| ()), None, "not started yet");
    h.now = at(5_000);
    let Ok(()) = flows.start(&mut h, f);
    assert_eq!(take(&mut h)[..2], [NewClient { flow: 1, incarnation: 0 }, Issued { flow: 1, exchange: 0 }]);
    h.now = at(5_300);
    let answer = ack(&h.sent[0]);
    let Ok(()) = flows.handle_message(&mut h, f, 0, SERVER, answer);
    assert_eq!(take(&mut h), [Ended { flow: 1, exchange: 0 }, Finished { flow: 1 }, Wake { flow: 1, at_ms: None }]);
    assert_eq!(flows.recorder().flow(f).map(|r| r.rtts.quantile(0.5)), Some(0.3));
    assert!(!flows.all_finished(), "flow 0 never started");
}

/// A recorder that asks for the controller's RTO after each completion.
#[derive(Default)]
struct Rtos(Vec<Option<Duration>>);

impl Record for Rtos {
    fn rto_after(&self, _: u32) -> bool {
        true
    }
    fn transmitted(&mut self, _: u32, _: u8, _: Instant) {}
    fn timer_expired(&mut self, _: u32, _: Duration) {}
    fn completed(&mut self, _: u32, _: Instant, exchange: &Completion) {
        self.0.push(exchange.rto_after);
    }
}

#[test]
fn a_recorder_that_asks_gets_the_controllers_rto_after_the_acknowledgement() {
    let config = workload(FlowType::Continuous, 1);
    let (plain, mut h) = setup(config);
    let (w, _) = plain.into_parts();
    let mut flows: FlowLoop<Fake, Rtos> = FlowLoop::new(w, Rtos::default(), Message::con_request(Code::GET, "res"));
    let Ok(()) = flows.start(&mut h, 0);
    h.now = at(700);
    let answer = ack(&h.sent[0]);
    let Ok(()) = flows.handle_message(&mut h, 0, 0, SERVER, answer);
    // Default CoAP keeps ACK_TIMEOUT whatever the RTT (RFC 7252 §4.2).
    assert_eq!(flows.recorder().0, [Some(Duration::from_secs(2))]);
}

#[test]
fn opening_a_flow_hands_over_one_request_and_drains_per_call() {
    let (mut flows, mut h) = setup(WorkloadConfig { nstart: 2, ..workload(FlowType::Continuous, 3) });
    let Ok(()) = flows.open(&mut h, 0);
    assert_eq!(
        take(&mut h),
        [
            NewClient { flow: 0, incarnation: 0 },
            Issued { flow: 0, exchange: 0 },
            Send { flow: 0, incarnation: 0, exchange: 0, copy: Some(0) },
            Wake { flow: 0, at_ms: Some(2_000) },
        ]
    );
    // The second request at the same instant: its copy leaves, the wake-up stays at 2 s.
    let Ok(()) = flows.open(&mut h, 0);
    assert_eq!(
        take(&mut h),
        [Issued { flow: 0, exchange: 1 }, Send { flow: 0, incarnation: 0, exchange: 1, copy: Some(0) }]
    );
    // NSTART = 2 exchanges are outstanding: a third call hands over nothing and sends nothing.
    let Ok(()) = flows.open(&mut h, 0);
    assert_eq!(take(&mut h), []);
    // After an acknowledgement the loop refills the window as usual.
    h.now = at(300);
    let answer = ack(&h.sent[0]);
    let Ok(()) = flows.handle_message(&mut h, 0, 0, SERVER, answer);
    assert_eq!(
        take(&mut h),
        [
            Ended { flow: 0, exchange: 0 },
            Issued { flow: 0, exchange: 2 },
            Send { flow: 0, incarnation: 0, exchange: 2, copy: Some(0) },
        ]
    );
    assert_eq!(flows.workload().flow(0).map(|p| (p.started, p.issued)), Some((Some(at(0)), 3)));
}

#[test]
fn the_drivers_recorder_asks_for_the_rto_after_each_completion_of_an_unbudgeted_flow_only() {
    let (plain, mut h) = setup(WorkloadConfig { flows: 0, ..workload(FlowType::Continuous, 1) });
    let (w, _) = plain.into_parts();
    let options = RecorderOptions { completions: true, ..Default::default() };
    let mut flows: FlowLoop<Fake> =
        FlowLoop::new(w, Recorder::with_options(options), Message::con_request(Code::GET, "res"));
    let unbudgeted = flows.add_flow(FlowSpec { exchanges: None, concurrency: 1 });
    let budgeted = flows.add_flow(FlowSpec { exchanges: Some(5), concurrency: 1 });
    for f in [unbudgeted, budgeted] {
        let Ok(()) = flows.start(&mut h, f);
    }
    h.now = at(700);
    for (f, k) in [(unbudgeted, 0), (budgeted, 1)] {
        let answer = ack(&h.sent[k]);
        let Ok(()) = flows.handle_message(&mut h, f, 0, SERVER, answer);
    }
    let series = |f: u32| flows.recorder().flow(f).map(|r| r.completions.as_slice().to_vec()).unwrap_or_default();
    // Default CoAP keeps ACK_TIMEOUT whatever the RTT (RFC 7252 §4.2).
    let point =
        CompletionPoint { at: at(700), duration: Duration::from_millis(700), rto_after: Some(Duration::from_secs(2)) };
    assert_eq!(series(unbudgeted), [point]);
    assert_eq!(series(budgeted), []);
}
