//! [`Workload`]: what each flow's application does (testbeds §1–2), as a sans-IO state machine.
//!
//! A driver feeds it what the flow's endpoint reported (an exchange completed or failed) and
//! asks it what to do next ([`Workload::next`]): issue a request now, replace the client by a
//! fresh incarnation (random flows: a new short-lived client with fresh congestion-control
//! state, as a new process with a new port would be), or wait. It tells the driver when each
//! flow starts ([`Workload::each_start`]) and when the run is cut off ([`Workload::end`]).
//! It never sees a packet, a clock or an event queue: the simulator and a socket driver use it
//! the same way.
//!
//! Flow types:
//! * continuous: one client doing `exchanges_per_flow` exchanges back to back, state kept;
//! * random: a chain of short-lived clients, each doing U{`random_min`..`random_max`}
//!   exchanges, no gap between them, until `exchanges_per_flow`;
//! * long-lived: one client exchanging back to back until the run ends (testbeds §2).
//!
//! Up to NSTART exchanges of a client are outstanding at once. With `count = "successes"` a
//! failed exchange is owed again (the FASOR paper's "until 50 pairs have been successfully
//! exchanged"); with `"attempts"` it counts.
//!
//! Every flow of the configuration has the configuration's budget and concurrency; a driver may
//! add flows with their own ([`Workload::add_flow`], a [`FlowSpec`]) during the run.
//!
//! With a block-wise transfer ([`Workload::with_blocks`], `[coap.blockwise]`) each flow's
//! exchanges fetch the object's blocks in order, one block each ([`Workload::block`]); a block
//! whose exchange failed is fetched again; the flow ends when every block arrived.

use coapcc_core::{Duration, Instant};
use coapcc_proto::RequestId;
use coapcc_proto::block::Block;

use crate::rng::{SimRng, below, uniform_duration};
use crate::scenario::{BlockwiseError, CoapConfig, Count, FlowType, WorkloadConfig, block_szx};

/// What a flow does next (see [`Workload::next`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Hand the client one request now: flow-wide exchange number `exchange` (0, 1, …).
    Request {
        /// Flow-wide index of the new exchange.
        exchange: u32,
    },
    /// Replace the client by a fresh one (new state, new address), incarnation `incarnation`;
    /// then ask again.
    Replace {
        /// The new client's incarnation within the flow (the first client is 0).
        incarnation: u32,
    },
    /// Nothing until one of the client's exchanges ends.
    Wait,
    /// The flow has done all its exchanges.
    Done,
}

/// A flow's own budget and concurrency ([`Workload::add_flow`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    /// Exchanges the flow does (counted as the workload's `count` says); `None`: until the run
    /// ends.
    pub exchanges: Option<u32>,
    /// Exchanges the flow keeps outstanding at once (NSTART, or 1 for a sequential client).
    pub concurrency: u16,
}

/// One flow's progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowProgress {
    /// When the flow's first client started.
    pub started: Option<Instant>,
    /// When the flow's last counted exchange ended (its FCT is `ended − started`).
    pub ended: Option<Instant>,
    /// Exchanges issued.
    pub issued: u32,
    /// Exchanges completed (acknowledged).
    pub completed: u32,
    /// Exchanges failed (abandoned by the client).
    pub failed: u32,
    /// Exchanges handed to the current client and not ended.
    pub outstanding: u32,
    /// The current client's incarnation (0 for the first).
    pub incarnation: u32,
    /// Exchanges the current client still has to issue (random flows; `u32::MAX` otherwise).
    client_left: u32,
    /// Flow-wide index of the current client's first exchange.
    client_base: u32,
    /// Exchanges the flow does (`u32::MAX`: until the run ends).
    budget: u32,
    /// Exchanges outstanding at once, at most.
    concurrency: u32,
}

impl FlowProgress {
    fn new(spec: FlowSpec) -> Self {
        FlowProgress {
            budget: spec.exchanges.unwrap_or(u32::MAX),
            concurrency: u32::from(spec.concurrency),
            ..FlowProgress::default()
        }
    }
}

/// A block-wise transfer per flow (`[coap.blockwise]`): each exchange fetches one block of
/// the object, at size exponent `szx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockPlan {
    /// RFC 7959 size exponent: blocks of 2^(4+SZX) bytes.
    pub szx: u8,
    /// Blocks of the object.
    pub blocks: u32,
}

impl BlockPlan {
    /// The plan of `coap`'s `[coap.blockwise]` table, if it has one; an error when its block
    /// size cannot be used (checked once when a scenario loads, so only for a configuration
    /// built by hand).
    pub fn of(coap: &CoapConfig) -> Result<Option<BlockPlan>, BlockwiseError> {
        coap.blockwise
            .as_ref()
            .map(|t| block_szx(t, coap).map(|szx| BlockPlan { szx, blocks: t.blocks(szx) }))
            .transpose()
    }
}

/// Which block each exchange of one flow's transfer fetches.
#[derive(Clone, Debug, Default)]
struct Blocks {
    /// The first block never asked for.
    next: u32,
    /// Blocks whose exchange failed, to be asked for again (before `next`, lowest first).
    again: Vec<u32>,
    /// `(exchange, block)` of the exchanges outstanding.
    outstanding: Vec<(u32, u32)>,
}

impl Blocks {
    /// The block exchange `exchange` fetches: a failed one first, else the next.
    fn assign(&mut self, exchange: u32) {
        let block = match self.again.iter().enumerate().min_by_key(|(_, b)| **b).map(|(i, _)| i) {
            Some(i) => self.again.swap_remove(i),
            None => {
                self.next += 1;
                self.next - 1
            }
        };
        self.outstanding.push((exchange, block));
    }
}

/// The workload of every flow of a run.
#[derive(Clone, Debug)]
pub struct Workload {
    config: WorkloadConfig,
    rng: SimRng,
    flows: Vec<FlowProgress>,
    /// The block-wise transfer, if the flows do one, and each flow's blocks.
    plan: Option<BlockPlan>,
    blocks: Vec<Blocks>,
}

impl Workload {
    /// The workload of `config`; `rng` is its own stream (start offsets, client lengths).
    pub fn new(config: WorkloadConfig, rng: SimRng) -> Self {
        let spec = FlowSpec {
            exchanges: match config.flow_type {
                FlowType::LongLived => None,
                _ => Some(config.exchanges_per_flow),
            },
            concurrency: config.nstart,
        };
        Workload {
            config,
            rng,
            flows: vec![FlowProgress::new(spec); config.flows as usize],
            plan: None,
            blocks: Vec::new(),
        }
    }

    /// This workload with every flow doing the block-wise transfer `plan` (when there is one):
    /// each exchange fetches one block ([`Workload::block`]), a block whose exchange failed is
    /// fetched again, and a flow does `plan.blocks` exchanges whatever `exchanges_per_flow`
    /// says (the scenario check sets it to the same).
    pub fn with_blocks(mut self, plan: Option<BlockPlan>) -> Self {
        if let Some(p) = plan {
            for f in &mut self.flows {
                f.budget = p.blocks;
            }
        }
        self.plan = plan;
        self
    }

    /// Adds a flow with its own budget and concurrency (of the configuration's flow type and
    /// count); returns its index. It starts when the driver calls [`Workload::start`].
    pub fn add_flow(&mut self, spec: FlowSpec) -> u32 {
        self.flows.push(FlowProgress::new(spec));
        (self.flows.len() - 1) as u32
    }

    /// The configuration.
    pub fn config(&self) -> &WorkloadConfig {
        &self.config
    }

    /// Whether flows are long-lived (testbeds §2): they never finish, the run ends at
    /// `duration_ms`.
    pub fn long_lived(&self) -> bool {
        self.config.flow_type == FlowType::LongLived
    }

    /// Draws every flow's start instant, in flow order, and hands each to `start`: uniform
    /// random offsets within the start window (testbeds §1). Call once, before any flow
    /// starts.
    pub fn each_start(&mut self, mut start: impl FnMut(u32, Instant)) {
        let window = self.config.start_window;
        for f in 0..self.config.flows {
            let offset = if window.is_zero() {
                Duration::ZERO
            } else {
                uniform_duration(&mut self.rng, Duration::ZERO, window - Duration::from_nanos(1))
            };
            start(f, Instant::ZERO + offset);
        }
    }

    /// When the run is cut off: the long-lived duration, else the time limit.
    pub fn end(&self) -> Option<Instant> {
        match self.config.flow_type {
            FlowType::LongLived => self.config.duration.map(|d| Instant::ZERO + d),
            _ => Some(Instant::ZERO + self.config.time_limit),
        }
    }

    /// Flow `f` starts at `now` with client incarnation 0; then ask [`Workload::next`].
    pub fn start(&mut self, f: u32, now: Instant) {
        let left = match self.config.flow_type {
            FlowType::Random => self.random_client_len(),
            _ => u32::MAX,
        };
        if let Some(fl) = self.flows.get_mut(f as usize) {
            fl.started = Some(now);
            fl.client_left = left;
        }
    }

    fn random_client_len(&mut self) -> u32 {
        // testbeds §1: each short-lived client does U{random_min..random_max} exchanges.
        let (lo, hi) = (self.config.random_min, self.config.random_max);
        lo + below(&mut self.rng, u64::from(hi - lo + 1)) as u32
    }

    /// What flow `f` does next. Call it until it answers [`Next::Wait`] or [`Next::Done`]:
    /// after flow start, and after every exchange end.
    #[inline]
    pub fn next(&mut self, f: u32) -> Next {
        let count_successes = self.config.count == Count::Successes;
        let Some(fl) = self.flows.get(f as usize) else { return Next::Done };
        let (total, nstart) = (fl.budget, fl.concurrency);
        // testbeds §1: a flow goes on until `exchanges_per_flow` exchanges succeeded (the
        // FASOR paper's "until 50 pairs have been successfully exchanged"); with
        // `count = "attempts"` a failed exchange counts too.
        let done = if count_successes { fl.completed } else { fl.completed + fl.failed };
        if done.saturating_add(fl.outstanding) >= total {
            return if fl.outstanding == 0 { Next::Done } else { Next::Wait };
        }
        if fl.client_left == 0 {
            if fl.outstanding > 0 {
                return Next::Wait;
            }
            // Random flows: the next short-lived client starts at once, with fresh state.
            let len = self.random_client_len();
            let fl = &mut self.flows[f as usize];
            fl.incarnation += 1;
            fl.client_base = fl.issued;
            fl.client_left = len;
            return Next::Replace { incarnation: fl.incarnation };
        }
        if fl.outstanding >= nstart {
            return Next::Wait;
        }
        let fl = &mut self.flows[f as usize];
        let exchange = fl.issued;
        fl.issued += 1;
        fl.outstanding += 1;
        fl.client_left -= 1;
        if self.plan.is_some() {
            if self.blocks.len() <= f as usize {
                self.blocks.resize(f as usize + 1, Blocks::default());
            }
            self.blocks[f as usize].assign(exchange);
        }
        Next::Request { exchange }
    }

    /// The Block2 option value of flow `f`'s outstanding exchange `exchange` (RFC 7959 §2.4:
    /// the block's number and the transfer's size; M is zero in a request), when the flows do
    /// a block-wise transfer.
    pub fn block(&self, f: u32, exchange: u32) -> Option<Block> {
        let szx = self.plan?.szx;
        let blocks = self.blocks.get(f as usize)?;
        let &(_, num) = blocks.outstanding.iter().find(|(e, _)| *e == exchange)?;
        Some(Block { num, more: false, szx })
    }

    /// Flow `f`'s exchange `exchange` ended (`completed`, or failed): a failed block is
    /// fetched again. Call before [`Workload::completed`] or [`Workload::failed`].
    pub fn block_ended(&mut self, f: u32, exchange: u32, completed: bool) {
        let Some(blocks) = self.blocks.get_mut(f as usize) else { return };
        if let Some(i) = blocks.outstanding.iter().position(|(e, _)| *e == exchange) {
            let (_, block) = blocks.outstanding.swap_remove(i);
            if !completed {
                blocks.again.push(block);
            }
        }
    }

    /// The flow-wide exchange index of the current client's request `id` (a client numbers
    /// its requests 1, 2, … in issue order).
    #[inline]
    pub fn exchange_of(&self, f: u32, id: RequestId) -> u32 {
        let base = self.flows.get(f as usize).map_or(0, |fl| fl.client_base);
        base.saturating_add(u32::try_from(id.0.saturating_sub(1)).unwrap_or(u32::MAX))
    }

    /// An exchange of flow `f` completed at `now`.
    pub fn completed(&mut self, f: u32, now: Instant) {
        if let Some(fl) = self.flows.get_mut(f as usize) {
            fl.completed += 1;
        }
        self.exchange_ended(f, now);
    }

    /// An exchange of flow `f` failed at `now`.
    pub fn failed(&mut self, f: u32, now: Instant) {
        let owed = self.config.count == Count::Successes;
        if let Some(fl) = self.flows.get_mut(f as usize) {
            fl.failed += 1;
            if owed {
                // The (short-lived) client still owes this exchange.
                fl.client_left = fl.client_left.saturating_add(1);
            }
        }
        self.exchange_ended(f, now);
    }

    fn exchange_ended(&mut self, f: u32, now: Instant) {
        let count_successes = self.config.count == Count::Successes;
        let Some(fl) = self.flows.get_mut(f as usize) else { return };
        fl.outstanding = fl.outstanding.saturating_sub(1);
        let done = if count_successes { fl.completed } else { fl.completed + fl.failed };
        if done >= fl.budget && fl.ended.is_none() {
            fl.ended = Some(now);
        }
    }

    /// Flow `f`'s progress.
    pub fn flow(&self, f: u32) -> Option<&FlowProgress> {
        self.flows.get(f as usize)
    }

    /// Every flow's progress, in flow order.
    pub fn flows(&self) -> &[FlowProgress] {
        &self.flows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, stream_rng};

    fn config(flow_type: FlowType) -> WorkloadConfig {
        WorkloadConfig {
            flows: 2,
            flow_type,
            exchanges_per_flow: 3,
            start_window: Duration::ZERO,
            random_min: 2,
            random_max: 2,
            duration: Some(Duration::from_secs(10)),
            nstart: 1,
            count: Count::Successes,
            time_limit: Duration::from_secs(100),
        }
    }

    fn workload(c: WorkloadConfig) -> Workload {
        Workload::new(c, stream_rng(1, 0, Stream::Workload(0).id()))
    }

    const T: Instant = Instant::ZERO;

    #[test]
    fn a_continuous_flow_issues_one_request_at_a_time_and_ends_after_its_last_success() {
        let mut w = workload(config(FlowType::Continuous));
        w.start(0, T);
        assert_eq!(w.next(0), Next::Request { exchange: 0 });
        assert_eq!(w.next(0), Next::Wait);
        let t1 = T + Duration::from_secs(1);
        w.completed(0, t1);
        assert_eq!(w.next(0), Next::Request { exchange: 1 });
        w.failed(0, t1);
        // A failure is owed again under `count = "successes"`.
        assert_eq!(w.next(0), Next::Request { exchange: 2 });
        w.completed(0, t1);
        assert_eq!(w.next(0), Next::Request { exchange: 3 });
        assert_eq!(w.flow(0).map(|f| f.ended), Some(None));
        let t2 = T + Duration::from_secs(2);
        w.completed(0, t2);
        assert_eq!(w.next(0), Next::Done);
        let f = w.flow(0).copied().unwrap_or_default();
        assert_eq!((f.issued, f.completed, f.failed, f.outstanding), (4, 3, 1, 0));
        assert_eq!((f.started, f.ended), (Some(T), Some(t2)));
    }

    #[test]
    fn counting_attempts_ends_a_flow_after_its_third_exchange_even_if_one_failed() {
        let mut w = workload(WorkloadConfig { count: Count::Attempts, ..config(FlowType::Continuous) });
        w.start(1, T);
        for _ in 0..2 {
            assert!(matches!(w.next(1), Next::Request { .. }));
            w.completed(1, T);
        }
        assert_eq!(w.next(1), Next::Request { exchange: 2 });
        w.failed(1, T);
        assert_eq!(w.next(1), Next::Done);
        assert_eq!(w.flow(1).and_then(|f| f.ended), Some(T));
    }

    #[test]
    fn a_random_flow_replaces_its_client_after_each_short_run_and_numbers_exchanges_per_client() {
        let mut w = workload(config(FlowType::Random));
        w.start(0, T);
        for e in 0..2 {
            assert_eq!(w.next(0), Next::Request { exchange: e });
            // Request ids restart at 1 for each client.
            assert_eq!(w.exchange_of(0, RequestId(u64::from(e) + 1)), e);
            w.completed(0, T);
        }
        assert_eq!(w.next(0), Next::Replace { incarnation: 1 });
        assert_eq!(w.next(0), Next::Request { exchange: 2 });
        assert_eq!(w.exchange_of(0, RequestId(1)), 2);
        w.completed(0, T);
        assert_eq!(w.next(0), Next::Done);
    }

    #[test]
    fn nstart_two_keeps_two_exchanges_outstanding() {
        let mut w = workload(WorkloadConfig { nstart: 2, ..config(FlowType::Continuous) });
        w.start(0, T);
        assert_eq!(w.next(0), Next::Request { exchange: 0 });
        assert_eq!(w.next(0), Next::Request { exchange: 1 });
        assert_eq!(w.next(0), Next::Wait);
        w.completed(0, T);
        assert_eq!(w.next(0), Next::Request { exchange: 2 });
        // Three issued for three successes: nothing more until one ends.
        assert_eq!(w.next(0), Next::Wait);
    }

    #[test]
    fn a_block_wise_flow_fetches_each_block_once_and_a_failed_block_again_before_the_next() {
        // Five blocks at SZX 4, two in flight (NSTART 2); the configuration's 3 exchanges are
        // replaced by the block count.
        let plan = BlockPlan { szx: 4, blocks: 5 };
        let mut w = workload(WorkloadConfig { nstart: 2, ..config(FlowType::Continuous) }).with_blocks(Some(plan));
        w.start(0, T);
        let num = |w: &Workload, e: u32| w.block(0, e).map(|b| (b.num, b.more, b.szx));
        assert_eq!(w.next(0), Next::Request { exchange: 0 });
        assert_eq!(w.next(0), Next::Request { exchange: 1 });
        assert_eq!(w.next(0), Next::Wait);
        assert_eq!((num(&w, 0), num(&w, 1)), (Some((0, false, 4)), Some((1, false, 4))));
        // Block 0 fails: it is owed again and fetched before block 2.
        w.block_ended(0, 0, false);
        w.failed(0, T);
        assert_eq!(w.block(0, 0), None, "an ended exchange has no block");
        assert_eq!(w.next(0), Next::Request { exchange: 2 });
        assert_eq!(num(&w, 2), Some((0, false, 4)));
        for e in [1, 2] {
            w.block_ended(0, e, true);
            w.completed(0, T);
        }
        let mut fetched = vec![];
        while let Next::Request { exchange } = w.next(0) {
            fetched.push(w.block(0, exchange).map(|b| b.num));
            w.block_ended(0, exchange, true);
            w.completed(0, T);
        }
        assert_eq!(fetched, [Some(2), Some(3), Some(4)]);
        assert_eq!(w.next(0), Next::Done);
        let f = w.flow(0).copied().unwrap_or_default();
        assert_eq!((f.issued, f.completed, f.failed), (6, 5, 1));
        // Without a plan, no request carries a block.
        let mut plain = workload(config(FlowType::Continuous));
        plain.start(0, T);
        assert_eq!(plain.next(0), Next::Request { exchange: 0 });
        assert_eq!(plain.block(0, 0), None);
    }

    #[test]
    fn a_long_lived_flow_never_ends_and_the_run_is_cut_at_its_duration() {
        let mut w = workload(config(FlowType::LongLived));
        w.start(0, T);
        for e in 0..100 {
            assert_eq!(w.next(0), Next::Request { exchange: e });
            w.completed(0, T);
        }
        assert_eq!(w.end(), Some(T + Duration::from_secs(10)));
        assert_eq!(workload(config(FlowType::Random)).end(), Some(T + Duration::from_secs(100)));
    }

    #[test]
    fn an_added_flow_has_its_own_budget_and_concurrency() {
        let mut w = workload(WorkloadConfig { count: Count::Attempts, nstart: 4, ..config(FlowType::Continuous) });
        let f = w.add_flow(FlowSpec { exchanges: Some(2), concurrency: 1 });
        assert_eq!(f, 2, "after the configuration's two flows");
        w.start(f, T);
        assert_eq!(w.next(f), Next::Request { exchange: 0 });
        assert_eq!(w.next(f), Next::Wait, "one at a time whatever the configuration's NSTART");
        w.failed(f, T);
        // Attempts are counted: the failure uses up one of the two exchanges.
        assert_eq!(w.next(f), Next::Request { exchange: 1 });
        w.completed(f, T + Duration::from_secs(1));
        assert_eq!(w.next(f), Next::Done);
        assert_eq!(w.flow(f).and_then(|p| p.ended), Some(T + Duration::from_secs(1)));
        let g = w.add_flow(FlowSpec { exchanges: None, concurrency: 2 });
        w.start(g, T);
        for e in 0..1000 {
            assert_eq!(w.next(g), Next::Request { exchange: 2 * e });
            assert_eq!(w.next(g), Next::Request { exchange: 2 * e + 1 });
            assert_eq!(w.next(g), Next::Wait);
            w.completed(g, T);
            w.failed(g, T);
        }
        assert_eq!(w.flow(g).and_then(|p| p.ended), None, "an unbounded flow never ends");
    }

    #[test]
    fn flows_start_within_the_start_window_in_flow_order() {
        let mut w = workload(WorkloadConfig { start_window: Duration::from_secs(1), ..config(FlowType::Continuous) });
        let mut starts = Vec::new();
        w.each_start(|f, at| starts.push((f, at)));
        assert_eq!(starts.iter().map(|s| s.0).collect::<Vec<_>>(), [0, 1]);
        assert!(starts.iter().all(|s| s.1 < T + Duration::from_secs(1)));
        assert_ne!(starts[0].1, starts[1].1);
        let mut z = workload(config(FlowType::Continuous));
        z.each_start(|_, at| assert_eq!(at, T));
    }
}
