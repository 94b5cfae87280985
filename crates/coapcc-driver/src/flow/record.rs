//! [`Record`]: what the flow loop tells a recorder, and the driver's [`Recorder`] behind it
//! (the one recorder of every driver; what it keeps is its [`crate::recorder::RecorderOptions`]).

use coapcc_core::{Duration, Instant};

use crate::recorder::Recorder;
use crate::workload::FlowSpec;

use crate::recorder::{Completion, Failure};

/// What a host learned when it sent a datagram ([`super::Host::send`]): a simulator knows at
/// once whether its link took the packet; a real network tells nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sent {
    /// Whether the link accepted the datagram (`None`: unknown).
    pub accepted: Option<bool>,
    /// The link's residual bandwidth at that instant, packets per second, when it has one and
    /// the run keeps a time series.
    pub link_rate_pps: Option<f64>,
}

/// What the flow loop records about each flow, in the order of the module's call order.
pub trait Record {
    /// Whether [`Completion::rto_after`] is wanted for flow `flow` (asking the controller costs
    /// a lookup per exchange, so it is off unless a recorder says so).
    #[inline]
    fn rto_after(&self, flow: u32) -> bool {
        let _ = flow;
        false
    }

    /// Flow `flow` sent copy `copy` (0 is the original) of a request at `now`.
    fn transmitted(&mut self, flow: u32, copy: u8, now: Instant);

    /// What the host learned when it sent a datagram of a flow (`request`: a request copy).
    fn sent(&mut self, now: Instant, sent: Sent, request: bool) {
        let _ = (now, sent, request);
    }

    /// A retransmission timer of flow `flow` set to `timer` expired.
    fn timer_expired(&mut self, flow: u32, timer: Duration);

    /// An exchange of flow `flow` completed at `now`.
    fn completed(&mut self, flow: u32, now: Instant, exchange: &Completion);

    /// An exchange of flow `flow` failed at `now`.
    fn failed(&mut self, flow: u32, now: Instant, exchange: &Failure) {
        let _ = (flow, now, exchange);
    }

    /// Flow `flow`, of budget and concurrency `spec`, was added ([`super::FlowLoop::add_flow`]).
    fn flow_added(&mut self, flow: u32, spec: &FlowSpec) {
        let _ = (flow, spec);
    }
}

impl Record for Recorder {
    #[inline]
    fn rto_after(&self, flow: u32) -> bool {
        self.keeps_completions(flow)
    }

    #[inline]
    fn transmitted(&mut self, flow: u32, copy: u8, now: Instant) {
        Recorder::transmitted(self, flow, copy, now);
    }

    #[inline]
    fn sent(&mut self, now: Instant, sent: Sent, request: bool) {
        if let Some(rate) = sent.link_rate_pps {
            self.link_rate(now, rate);
        }
        if request && let Some(accepted) = sent.accepted {
            self.offered(accepted);
        }
    }

    #[inline]
    fn timer_expired(&mut self, flow: u32, timer: Duration) {
        Recorder::timer_expired(self, flow, timer);
    }

    #[inline]
    fn completed(&mut self, flow: u32, now: Instant, exchange: &Completion) {
        Recorder::completed(self, flow, now, exchange);
    }

    #[inline]
    fn failed(&mut self, flow: u32, now: Instant, exchange: &Failure) {
        Recorder::failed(self, flow, now, exchange);
    }

    fn flow_added(&mut self, flow: u32, spec: &FlowSpec) {
        self.add_flow(flow, spec);
    }
}
