//! # Multihop low-power wireless: the link-layer world and its engine
//!
//! Composable, sans-IO pieces for the multihop IEEE 802.15.4 set-ups of three source papers
//! (Betzler et al. 2014 on FlockLab, Makarem et al. 2022 and Lim 2020 in Cooja), and the
//! engine that runs them. Section numbers (§1.2 …, checks of §6, R1–R6, OQ-M…) are those of
//! the project's multihop model specification, `multihop.md`; the user's guide to the model
//! and its scenario files is `docs/multihop.md`.
//! Time is an argument ([`coapcc_core::Instant`], [`core::time::Duration`] in integer
//! nanoseconds); randomness comes from a caller-owned generator
//! ([`coapcc_driver::rng::SimRng`] or any [`rand_core::Rng`]), never ambient. A scenario file with a
//! `[multihop]` table is typed into its [`MultihopConfig`]s by `coapcc_driver::scenario::multihop`
//! (presets, per-algorithm configuration, errors naming the dotted key), run by
//! [`MultihopSim`] through the one runner ([`crate::run_scenario`]); [`crate::results`] writes the
//! CSV files and the summary.
//!
//! ## Map
//!
//! Where to start: the schema (in `coapcc_driver::scenario::multihop`), then
//! `engine`'s `mod.rs` (a run's set-up and event loop), which dispatches every event to one
//! layer file of the engine; the pieces below each layer are the modules of this folder.
//!
//! | file | spec | what is there |
//! |---|---|---|
//! | `config.rs`, `workload.rs` | §1–4 | the `[multihop]` schema at its paths here: [`MultihopConfig`], [`RdcKind`](coapcc_driver::scenario::multihop::RdcKind), [`TopologyChoice`](coapcc_driver::scenario::multihop::TopologyChoice), [`MultihopWorkload`], [`ClientMode`](coapcc_driver::scenario::multihop::ClientMode) (OQ-M5) — the types live in `coapcc_driver::scenario::multihop` |
//! | `engine` | §1–4 | the discrete-event engine [`MultihopSim`], one file per layer: `mod.rs` (set-up, event loop, dispatch), `event.rs` (event queue), `mac.rs` (CSMA + RDC on the medium), `net.rs` (forwarding on the DODAG, per-hop frame sizes, 6LoWPAN, t_fwd), `host.rs` (SLIP, host / cloud delay), `coap_app.rs` (CoAP endpoints and workloads, t_app), `tcp_app.rs` (Lim's TCP), `finish.rs` (results) |
//! | `phy` | §1.2 | 2.4 GHz O-QPSK timing and airtimes ([`PhyConfig`](coapcc_driver::scenario::multihop::PhyConfig), from the schema); frame-length rules 1–4 (MAC header, FCS, uncompressed 6LoWPAN below the threshold, IPHC, RPL hop-by-hop option, UDP/TCP); the default frame-size table and `frame_len_mode = table | rules` |
//! | `medium` | §1.3 | Cooja UDGM: ranges, success ratios, carrier-sense range from the RSSI model, frames on air, receptions and corruption (hidden terminals from geometry) |
//! | `csma` | §1.4 | Contiki CSMA: per-neighbour queues, shared buffer pool, tail drop, bursts, retry limits, 2.7/3.0 backoff in 1/128 s ticks, duplicate detection |
//! | `rdc` | §1.5 | `nullrdc.rs`: NullRDC attempt timing (with and without ACK wait); `contikimac/`: ContikiMAC constants, strobe trains (`train.rs`), phase lock (`phase.rs`), channel checks and listening (`listener.rs`) (R1–R6) |
//! | `sixlowpan` | §1.2 rule 1, OQ-M9 | RFC 4944 fragmentation as Contiki's `sicslowpan.c`: FRAG1 / FRAGN sizes and offsets, the sender's buffer check, one reassembly per mote with its timeout |
//! | `rpl` | §1.6 | the static min-ETX DODAG with seeded tie-breaks; hop counts and storing-mode routes |
//! | `topology` | §2.1, §3.1, §4.1 | node lists (x, y, role): Lim's grids, Betzler's 5 × 6 surrogate, Makarem's Grid/Square/U/Chain/Ring/Dumbbell (from the schema) |
//! | `tcp` | §4.3 | window-of-one uIP TCP: SYN set-up, one unacknowledged segment, timers from the `uip` / `uip-dither` / `lim` controllers, the Linux server |
//! | `metrics` | §2.5, §3.4, §4.4 | per-flow CoAP results, per-node TCP results, Jain's index, per-node MAC counters and duty cycle |
//! | `scenario` | — | what the runner needs of a multihop scenario: the engine's checks before any run, a replication's seed, one run; TCP traces of one replication |
//!
//! The modules above are private. What the rest of the workspace uses is exported here:
//! [`MultihopSim`], the results, and the pieces the CLI describes ([`Dodag`], [`Geometry`], …);
//! the schema types are imported from `coapcc_driver::scenario::multihop`, where they live.
//!
//! Contiki 2.7 / 3.0 differences are presets: `phy::FrameRules::for_version` (rule 4),
//! [`UdgmConfig::for_version`](coapcc_driver::scenario::multihop::UdgmConfig::for_version) (CCA threshold −77 / −90 dBm, RSSI truncation),
//! [`CsmaConfig::for_version`](coapcc_driver::scenario::multihop::CsmaConfig::for_version) (linear / exponential backoff).
//!
//! ## Analytic checks of §6 covered here (unit tests, spec numbers and tolerances)
//!
//! | §6 | check | where |
//! |---|---|---|
//! | 1 | airtimes T(80), T(127), ACK (exact) | `phy` |
//! | 2 | NullRDC one hop: delivery 0.192 ms + T(L) after the MAC starts, `OK` 1.038 ms later with ACK wait; the idle one-hop CoAP RTT 8.016 ms; h hops add 0.192 + T(L) + t_fwd per direction | `rdc/nullrdc.rs` |
//! | 3 | ContikiMAC one hop, phase unknown: mean delivery 70.6 ms ± 2 ms for L = 80 (measured 71.2 ms over 1000 phases) and every sample in its bounds, `OK` 1.038 ms after delivery; a CoAP exchange over one hop ≈ 2 × 71 ms + t_app (measured 144.5 ms) | `rdc/contikimac/on_medium.rs` |
//! | 4 | ContikiMAC phase lock: mean ≈ 81 ms ± 3 ms (measured 82.3 ms), train ≈ 12.2 ms + one copy (≤ 16.66 ms + one copy), no misses for L = 80 and 100 | `rdc/contikimac/on_medium.rs` |
//! | 5 | ContikiMAC failure cost: `NOACK` after ≈ 134 ms (133.95 ms); 3.0 backoff means 246.1 / 371.1 / 621.1 / 621.1 ms; drop after ≈ 2.53 s (measured 2.54 s over 1000 packets) | `rdc/contikimac/`, `csma` |
//! | 6 | CSMA loss: drop probability q^N and mean attempts (1 − q^N)/(1 − q) with data and ACK through UDGM; NullRDC without ACK wait: no retries, an exchange over h hops each way succeeds with SR_tx^(2h) | `csma`, `rdc/nullrdc.rs` |
//! | 7 | queue limits: the 5th packet with QUEUEBUF 4; a third next hop with two neighbour queues busy | `csma` |
//! | 8 | UDGM geometry: hidden senders 80 m apart lose both frames; 45 m apart defer; CCA busy at 47.6 m, idle at 47.7 m (3.0), 39.4 m (2.7) | `medium` |
//! | 9 | hidden-terminal trains: no copy survives while two hidden trains overlap at a common receiver; when the receiver checks only inside the overlap, both senders end with `NOACK` after the full train | `rdc/contikimac/on_medium.rs` |
//! | 10 | hop counts: Lim 4 × 4 (3.2, 6), 5 × 5 (2.5, 4), Betzler (2.79, 5), Makarem chain (i hops) | `rpl` |
//! | 14 | determinism, for these pieces: the same seeds give the same trains and deliveries | `rdc/contikimac/on_medium.rs` |
//!
//! Checked through the whole engine (the tests of the engine's layer files, real endpoints
//! and forwarders):
//!
//! | §6 | check | measured |
//! |---|---|---|
//! | 2 | NullRDC CoAP RTT over one idle hop 8.016 ms; each extra hop adds 0.192 + T(L) + t_fwd per direction (2, 3, 5 hops) | exact to < 0.1 ms |
//! | 3 | ContikiMAC CoAP exchange over 1, 2, 3 idle hops ≈ 2h × 71 ms + t_fwd's + t_app, phase unknown, all samples within the per-hop bounds | within the spec tolerance + 3 standard errors |
//! | 4 | phase-locked sequential exchanges settle at one cycle (the two phase waits add up to T_w), short trains, no misses | 125.0 ms ± 1 ms |
//! | 11 | Lim offered load: ≈ 100 reports per mote in 10 min, 960 bit/s (4 × 4), 1536 bit/s (5 × 5); goodput ≤ offered + backlog | within 3 % |
//! | 12 | TCP SYN timers (uip, uip-dither, lim) and default-CoAP timers through the stack equal the controller's own | exact |
//! | 13 | throughput × mean duration of a sequential client = 1 (NullRDC 3 hops, ContikiMAC 2 hops) | within 1 % |
//! | 14 | the same seed gives an identical event trace and result; another seed differs (Lim 4 × 4, ContikiMAC) | exact |
//! | R5 | NSTART-4 requests leave as one ContikiMAC burst: follower trains with the pending bit, all delivered in one wake-up | `engine/mac.rs` |
//!
//! Found on the way: Makarem's stated 80-B CON (OQ-M9) is not what rules 1–4 give beyond
//! the first hop (80 / 89 / 81 B for a 29-B CoAP message), so `frame_len_mode = rules` and
//! `table` differ for that flow only; every other table row is reproduced by the rules.
//! Also faithful to R3, not a modelling error: a phase-unknown train of 84-B
//! copies misses a receiver whose first check ends 0.42–0.51 ms before the first frame (its
//! second check sees the last copy only after that copy started), ≈ 0.08 % of receiver
//! phases; 80-B trains cannot miss. CSMA retries such a packet. Check 3's sample bounds hold
//! for L = 80, as the spec states them.
//!
//! The ContikiMAC checks (3, 4, 5, 9) run the pieces on a `medium::Medium` through a small
//! event loop in `rdc/contikimac/on_medium.rs` (senders' `rdc::StrobeTrain`s, receivers' channel
//! checks and `rdc::Listener`s, hardware ACKs): a prototype of what the engine's `mac.rs` does.
//!
//! The open questions' options: `client_mode = sequential` (OQ-M5, every CoAP workload),
//! the server's delayed ACK (OQ-M14, `server_delayed_ack_ms` of `lim_tcp`), Makarem's 80 B as
//! the CoAP message with 6LoWPAN fragmentation (OQ-M9, `makarem_coap_len`, `fragmentation`,
//! `sixlowpan`).
//!
//! **Still left:** R6 only if RPL control traffic is ever modelled; MRHOF dynamics
//! (`rpl_mode = dynamic_mrhof`, OQ-M17); calibration questions the `betzler` and `makarem-cooja` reports raise (README, reproduction
//! status: ContikiMAC repairs Betzler's calibrated loss, CoCoA4's long exchanges; IDC's low
//! goodput on ContikiMAC meshes is its slow spacing recovery, investigation `makarem-cooja-idc-dw`).

mod config;
mod csma;
mod engine;
mod medium;
mod metrics;
mod phy;
mod rdc;
mod rpl;
mod scenario;
mod sixlowpan;
mod tcp;
mod topology;
mod workload;

// The schema (`MultihopConfig`, `MultihopWorkload`, `Role`, …) is `coapcc_driver::scenario::multihop`'s;
// only what the simulator defines is exported here.
pub use self::engine::{EventTrace, MultihopSim};
pub use self::medium::{Geometry, LinkClass};
pub use self::metrics::{CoapFlowResult, MacCounters, MultihopResult, TcpNodeResult, TcpResult};
pub use self::rpl::Dodag;
pub(crate) use self::scenario::check_configs;
pub use self::scenario::{run_one, run_seed, run_traced};
pub use self::tcp::{TracePoint, TracePointKind};

// The schema types the engine's files name most, imported once for them (not exported).
pub(crate) use coapcc_driver::scenario::multihop::{ContikiVersion, MultihopConfig, MultihopWorkload, NodeId};
