//! What a scenario will cost before it runs: memory and events, estimated from the scenario
//! alone (nothing is allocated), so that a scenario too large for the machine is refused with
//! the estimate instead of aborting in the middle of an allocation, and a very long run says
//! so before it starts.
//!
//! The costs are measured on the `ci` build (Linux x86-64, peak RSS of `coapcc sim` with one
//! job, infinite-buffer NB-IoT scenario, `default`):
//!
//! | what | measured | constant |
//! |---|---|---|
//! | a flow during its run (client endpoint, its controller, workload and record, timer slot, the server's state for it) | 20 000 flows, 1 exchange each: 133 MB ⇒ ≈ 6.6 kB | [`RUN_BYTES_PER_FLOW`] |
//! | an exchange held during the run (server duplicate cache for EXCHANGE_LIFETIME, copies queued in the buffers), at most [`HELD_EXCHANGES_PER_FLOW`] per flow | 20 000 flows, 20 exchanges each: 341 MB ⇒ ≈ 550 B | [`RUN_BYTES_PER_EXCHANGE`] |
//! | a flow's result kept until the files are written | 4 replications instead of 1: +21 MB over 60 000 flows ⇒ ≈ 350 B | [`RESULT_BYTES_PER_FLOW`] |
//! | an RTT sample kept in a result (exact up to 65 536 per flow, binned beyond) | one `f64` | [`RESULT_BYTES_PER_SAMPLE`] |
//! | events per exchange | reference case: 214 901 events for 20 000 exchanges | [`EVENTS_PER_EXCHANGE`] |
//! | events per second and thread | reference case, 10 replications, 1 job: 2.1 million | [`EVENTS_PER_SECOND`] |
//!
//! An RTT-trace run holds its trace ([`TRACE_BYTES_PER_SAMPLE`] per sample) and keeps its
//! leading (RTT, RTO) pairs; one sample is one event.
//!
//! A long-lived run keeps a flat footprint (the exchanges it holds are bounded by the
//! exchange lifetime); its exchange count, for the event estimate, is bounded by the link: the
//! residual bandwidth's upper end, the faster NB-IoT rate over the smallest datagram, or for
//! custom links one exchange per millisecond per outstanding request.

use crate::error::BudgetError;
use coapcc_driver::link::presets::NbiotConfig;
use coapcc_driver::metrics::Distribution;
use coapcc_driver::scenario::{FlowType, Model, NetworkConfig, Scenario};

/// Memory per flow while a run is in progress, bytes.
pub const RUN_BYTES_PER_FLOW: u64 = 6_600;
/// Memory per exchange held while a (finite) run is in progress, bytes.
pub const RUN_BYTES_PER_EXCHANGE: u64 = 550;
/// Exchanges of a flow whose state a run holds at once, at most: the server remembers each
/// request for EXCHANGE_LIFETIME (247 s), and at the testbeds' RTTs (≥ 0.6 s) a flow fits
/// about 400 exchanges in that time.
pub const HELD_EXCHANGES_PER_FLOW: u64 = 400;
/// Memory per flow kept in a finished run's result, bytes.
pub const RESULT_BYTES_PER_FLOW: u64 = 350;
/// Memory per RTT sample kept in a result, bytes.
pub const RESULT_BYTES_PER_SAMPLE: u64 = 8;
/// Memory per RTT-trace sample held by a running job (one `Duration`), or per (RTT, RTO) pair
/// kept for the time series, bytes.
pub const TRACE_BYTES_PER_SAMPLE: u64 = 16;
/// The process before any run (code, thread stacks, scenario), bytes.
pub const BASE_BYTES: u64 = 16 << 20;
/// Events per exchange (reference case: 10.7).
pub const EVENTS_PER_EXCHANGE: u64 = 11;
/// Events one thread handles per second: 5.5 million on a quiet host (`coapcc bench`, release
/// build), 2.1 million measured on the `ci` build of a loaded host (reference case, 10
/// replications, 1 job: 2 149 544 events in 1.0 s, peak RSS 36 MB against 33 MB estimated).
pub const EVENTS_PER_SECOND: u64 = 2_000_000;
/// Runs estimated to take longer than this (seconds of wall time) are announced.
pub const LONG_RUN_S: f64 = 60.0;
/// Multihop model: events per mote and simulated second (ContikiMAC channel checks and
/// traffic; an upper-end figure of the Lim and Betzler scenarios).
pub const MULTIHOP_EVENTS_PER_NODE_SECOND: u64 = 60;
/// Multihop model: memory per running replication (motes, queues, results).
pub const MULTIHOP_RUN_BYTES: u64 = 8 << 20;
/// Memory assumed available when `/proc/meminfo` cannot be read, bytes (4 GiB).
pub const FALLBACK_AVAILABLE_BYTES: u64 = 4 << 30;

/// What a scenario will cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Peak memory, bytes.
    pub bytes: u64,
    /// Events over every run.
    pub events: u64,
    /// Wall time on the given threads, seconds.
    pub wall_s: f64,
}

/// Exchanges of one run (saturating: absurd scenarios give `u64::MAX`).
fn exchanges_per_run(
    network: &NetworkConfig,
    flows: u64,
    w: &coapcc_driver::scenario::WorkloadConfig,
    s: &Scenario,
) -> u64 {
    match w.flow_type {
        FlowType::Continuous | FlowType::Random => flows.saturating_mul(u64::from(w.exchanges_per_flow)),
        FlowType::LongLived => {
            let secs = w.duration.map_or(0.0, |d| d.as_secs_f64());
            let per_s = match network {
                NetworkConfig::Residual { max_rate_pps, .. } => max_rate_pps.to_f64(),
                NetworkConfig::Nbiot(c) => nbiot_exchanges_per_s(c, s),
                NetworkConfig::Custom { .. } => flows as f64 * f64::from(w.nstart) * 1000.0,
            };
            saturating(secs * per_s)
        }
    }
}

fn nbiot_exchanges_per_s(c: &NbiotConfig, s: &Scenario) -> f64 {
    // The smallest datagram (an Empty message behind the IP and UDP headers) on the faster
    // direction bounds the packet rate, hence the exchange rate, from above.
    let bytes = f64::from(s.file.coap.ip_udp_header_bytes + 4);
    c.uplink_kbps.to_f64().max(c.downlink_kbps.to_f64()) * 1000.0 / 8.0 / bytes
}

fn saturating(x: f64) -> u64 {
    if x.is_finite() && x < u64::MAX as f64 { x.max(0.0) as u64 } else { u64::MAX }
}

/// The estimate for scenario `s` run on `threads` threads (from the scenario alone).
pub fn estimate(s: &Scenario, threads: usize) -> Estimate {
    let jobs = s.algorithm_names().len() as u64 * u64::from(s.file.replications);
    let concurrent = jobs.min(threads.max(1) as u64);
    let (network, workload) = match &s.model {
        Model::Network { network, workload } => (network, workload),
        Model::Multihop(m) => {
            let c = &m.base;
            let (nodes, duration_s) =
                c.topology.build().ok().map_or((30, 600.0), |t| (t.len() as u64, c.duration.as_secs_f64()));
            let events =
                jobs.saturating_mul(saturating(nodes as f64 * duration_s * MULTIHOP_EVENTS_PER_NODE_SECOND as f64));
            let bytes = BASE_BYTES.saturating_add(concurrent.saturating_mul(MULTIHOP_RUN_BYTES));
            return Estimate { bytes, events, wall_s: events as f64 / EVENTS_PER_SECOND as f64 / concurrent as f64 };
        }
        Model::Tcp(m) => {
            // Each connection holds its segments in flight; a segment costs a few events
            // (its delivery, the ACK's, a timer).
            let segments = u64::from(m.tcp.clients)
                .saturating_mul(m.tcp.object_bytes.div_ceil(u64::from(m.tcp.mss().max(1))).saturating_add(10));
            let events = jobs.saturating_mul(segments.saturating_mul(TCP_EVENTS_PER_SEGMENT));
            let bytes = BASE_BYTES
                .saturating_add(concurrent.saturating_mul(segments).saturating_mul(TCP_BYTES_PER_SEGMENT))
                .saturating_add(jobs.saturating_mul(u64::from(m.tcp.clients)).saturating_mul(RESULT_BYTES_PER_FLOW));
            return Estimate { bytes, events, wall_s: events as f64 / EVENTS_PER_SECOND as f64 / concurrent as f64 };
        }
        Model::Trace(t) => {
            // Each running job holds its trace; each result keeps its leading (RTT, RTO) pairs.
            let samples = u64::from(t.samples);
            let series = samples.min(u64::from(t.series_samples));
            let bytes = BASE_BYTES
                .saturating_add(concurrent.saturating_mul(samples).saturating_mul(TRACE_BYTES_PER_SAMPLE))
                .saturating_add(jobs.saturating_mul(series).saturating_mul(TRACE_BYTES_PER_SAMPLE));
            let events = jobs.saturating_mul(samples);
            return Estimate { bytes, events, wall_s: events as f64 / EVENTS_PER_SECOND as f64 / concurrent as f64 };
        }
    };
    let flows = u64::from(workload.flows);
    let exchanges = exchanges_per_run(network, flows, workload, s);
    let held = match workload.flow_type {
        FlowType::LongLived => 0,
        _ => flows.saturating_mul(u64::from(workload.exchanges_per_flow).min(HELD_EXCHANGES_PER_FLOW)),
    };
    let run = flows.saturating_mul(RUN_BYTES_PER_FLOW).saturating_add(held.saturating_mul(RUN_BYTES_PER_EXCHANGE));
    let samples = exchanges.min(flows.saturating_mul(Distribution::EXACT_LIMIT as u64));
    let result =
        flows.saturating_mul(RESULT_BYTES_PER_FLOW).saturating_add(samples.saturating_mul(RESULT_BYTES_PER_SAMPLE));
    let bytes = BASE_BYTES.saturating_add(concurrent.saturating_mul(run)).saturating_add(jobs.saturating_mul(result));
    let events = jobs.saturating_mul(exchanges).saturating_mul(EVENTS_PER_EXCHANGE);
    let wall_s = events as f64 / EVENTS_PER_SECOND as f64 / concurrent.max(1) as f64;
    Estimate { bytes, events, wall_s }
}

/// Events per data segment of a TCP run (its delivery, the ACK's delivery, a delayed-ACK or
/// retransmission timer), rounded up.
pub const TCP_EVENTS_PER_SEGMENT: u64 = 4;
/// Bytes held per data segment of a running TCP job (scoreboard entry, queued event, RTT sample).
pub const TCP_BYTES_PER_SEGMENT: u64 = 200;

/// Memory available to a new run: `MemAvailable` of `/proc/meminfo`, else
/// [`FALLBACK_AVAILABLE_BYTES`].
pub fn available_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb.saturating_mul(1024))
        })
        .unwrap_or(FALLBACK_AVAILABLE_BYTES)
}

/// Checks scenario `s` against `available` bytes on `threads` threads: a [`BudgetError`] with
/// the estimate and the available memory when it does not fit; else
/// `Ok(Some(notice))` for a run estimated to take over [`LONG_RUN_S`], `Ok(None)` otherwise.
pub fn admit(s: &Scenario, threads: usize, available: u64) -> Result<Option<String>, BudgetError> {
    let e = estimate(s, threads);
    if e.bytes > available {
        let keys = match s.model {
            Model::Trace(_) => "`samples`",
            Model::Network { .. } => "`flows`, `exchanges_per_flow`",
            Model::Multihop(_) => "`multihop.duration_ms`",
            Model::Tcp(_) => "`tcp.clients`, `tcp.object_bytes`",
        };
        return Err(BudgetError {
            scenario: s.file.name.clone(),
            needs_bytes: e.bytes,
            available_bytes: available,
            keys,
        });
    }
    Ok((e.wall_s > LONG_RUN_S).then(|| {
        format!(
            "{}: an estimated {} events, about {:.0} s on {} thread(s)",
            s.file.name,
            e.events,
            e.wall_s,
            threads.max(1)
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_driver::scenario::{Setting, parse};

    const TEXT: &str = "name = \"t\"\ndescription = \"d\"\nsource = \"s\"\nseed = 1\nreplications = 2\n\
                        algorithms = [\"default\"]\n[network.nbiot]\nbuffer_bytes = 2500\nerrors = \"none\"\n\
                        [workload]\nflows = 400\nflow_type = \"continuous\"\n";

    fn scenario(sets: &[&str]) -> Scenario {
        let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap_or_else(|e| panic!("{e}"))).collect();
        parse(TEXT, "t.toml", &sets).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_reference_case_needs_a_few_megabytes_and_eleven_events_per_exchange() {
        let e = estimate(&scenario(&[]), 1);
        // 16 MiB + 400 × 6 600 + 20 000 × 550 + 2 × (400 × 350 + 20 000 × 8).
        assert_eq!(e.bytes, (16 << 20) + 2_640_000 + 11_000_000 + 2 * (140_000 + 160_000));
        assert_eq!(e.events, 2 * 20_000 * 11);
        assert!(admit(&scenario(&[]), 1, 1 << 30).is_ok_and(|n| n.is_none()));
    }

    #[test]
    fn four_billion_flows_are_refused_with_the_estimate_and_the_available_memory() {
        let s = scenario(&["flows=4294967295"]);
        let err = admit(&s, 2, 8 << 30).unwrap_err();
        assert_eq!((err.available_bytes, err.keys), (8 << 30, "`flows`, `exchanges_per_flow`"));
        let err = err.to_string();
        assert!(err.contains("needs an estimated") && err.contains("8.0 GiB is available"), "{err}");
        assert!(estimate(&s, 2).bytes > 28_000_000_000_000, "{:?}", estimate(&s, 2));
    }

    #[test]
    fn a_flow_of_a_million_exchanges_holds_only_four_hundred_at_once() {
        let e = estimate(&scenario(&["flows=1", "exchanges_per_flow=1000000", "replications=1"]), 1);
        assert_eq!(e.bytes, (16 << 20) + 6_600 + 400 * 550 + 350 + 65_536 * 8);
    }

    #[test]
    fn an_rtt_trace_of_four_billion_samples_is_refused() {
        let text = TEXT.replace("[network.nbiot]\nbuffer_bytes = 2500\nerrors = \"none\"\n", "").replace(
            "[workload]\nflows = 400\nflow_type = \"continuous\"\n",
            "[trace]\nrow = 1\nfirst = { dist = \"pareto\", shape = 4.0, scale_ms = 1000 }\nspikes = false\n",
        );
        let small = parse(&text, "t.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        assert!(admit(&small, 2, 1 << 30).is_ok());
        let huge = parse(
            &text,
            "t.toml",
            &["samples=4294967295".parse().unwrap_or_else(|e: coapcc_driver::scenario::SettingError| panic!("{e}"))],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(estimate(&huge, 2).bytes > 2 * 4_294_967_295 * 16, "{:?}", estimate(&huge, 2));
        let err = admit(&huge, 2, 1 << 30).unwrap_err().to_string();
        assert!(err.contains("reduce `samples`"), "{err}");
    }

    #[test]
    fn a_long_run_is_announced_with_its_event_count() {
        let s = scenario(&["flows=20000", "exchanges_per_flow=1000"]);
        let notice = admit(&s, 1, u64::MAX).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(notice.as_deref(), Some("t: an estimated 440000000 events, about 220 s on 1 thread(s)"));
    }

    #[test]
    fn a_long_lived_residual_run_is_bounded_by_its_rate_not_its_exchange_count() {
        let text = TEXT
            .replace(
                "[network.nbiot]\nbuffer_bytes = 2500\nerrors = \"none\"",
                "[network.residual]\nmin_rate_pps = 1\nmax_rate_pps = 4",
            )
            .replace("continuous\"", "long-lived\"\nduration_ms = 3600000");
        let s = parse(&text, "t.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let e = estimate(&s, 1);
        assert_eq!(e.events, 2 * 3_600 * 4 * 11);
        assert!(e.bytes < 32 << 20, "{e:?}");
    }
}
