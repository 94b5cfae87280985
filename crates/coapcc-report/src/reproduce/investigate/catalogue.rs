//! The investigations of the general kind ([`SweepSpec`]), per experiment: each sweeps the
//! parameter a differing claim's cause names (the claims' `cause` entries in
//! `data/published/<experiment>.toml` link back by id). Replications per point are chosen so
//! that `coapcc reproduce all` stays under about two minutes on two cores.

use super::SweepSpec;

const LOAD_UNKNOWN: &str = "The FASOR testbed's message sizes are not published (docs/testbeds.md §1 [D]); our 20-byte \
response payload is the smallest plausible one, so the threshold is not a fitted value and the verdicts stay on it.";

/// FASOR, 400 flows, infinite buffer: the claims that turn on the load (the bistable random case
/// and the continuous one).
const FASOR_400_INFINITE_CLAIMS: &[&str] = &[
    "fasor-400-infinite-random-fct-fasor-vs-cocoa",
    "fasor-400-infinite-random-unnecessary-fasor-vs-cocoa",
    "fasor-400-infinite-random-unnecessary-default-vs-cocoa",
    "fasor-400-infinite-random-fct-fasor-vs-cocoa-fb1",
    "fasor-400-infinite-random-unnecessary-fasor-vs-cocoa-fb1",
    "fasor-400-infinite-random-rtt-fasor-vs-cocoa-fb1",
    "fasor-400-infinite-random-fct-fasor-token-vs-fasor",
    "fasor-400-infinite-random-fct-fasor-second-only-to-token",
    "fasor-400-infinite-continuous-fct-fasor-vs-cocoa",
    "fasor-400-infinite-continuous-unnecessary-cocoa",
    "fasor-400-infinite-continuous-unnecessary-fasor",
    "fasor-400-infinite-continuous-unnecessary-default",
    "fasor-400-infinite-continuous-fct-fasor-token-vs-fasor",
    "fasor-400-infinite-continuous-fct-fasor-second-only-to-token",
];

const FASOR_400_INFINITE: &[&str] =
    &["fasor/400-flows-infinite-buffer-random", "fasor/400-flows-infinite-buffer-continuous"];

const FASOR_200_CLAIMS: &[&str] = &[
    "fasor-200-medium-continuous-fct-fasor-vs-cocoa",
    "fasor-200-medium-random-fct-fasor-vs-cocoa",
    "fasor-200-infinite-continuous-fct-fasor-vs-cocoa",
    "fasor-200-infinite-random-fct-fasor-vs-cocoa",
];

const FB_CLAIMS: &[&str] = &[
    "fb-infinite-random-fct-default-vs-cocoa",
    "fb-infinite-random-unnecessary-default-vs-cocoa",
    "fb-infinite-random-expired-rto-cocoa-vs-default",
];

/// Betzler: every differing claim about CoCoA4 (its durations, retries and in-flight counts,
/// and the orders it takes part in).
const BETZLER_COCOA4_CLAIMS: &[&str] = &[
    "betzler-1-to-1-no-rdc-cocoa4-duration-mean-s",
    "betzler-1-to-1-contikimac-cocoa4-duration-mean-s",
    "betzler-many-to-many-no-rdc-cocoa4-duration-mean-s",
    "betzler-many-to-many-no-rdc-cocoa4-retries-per-exchange",
    "betzler-many-to-many-contikimac-cocoa4-duration-mean-s",
    "betzler-b1-contikimac-cocoa4-above-cocoa-2014",
    "betzler-b2-no-rdc-cocoa4-below-cocoa-2014",
    "betzler-b2-contikimac-cocoa4-below-cocoa-2014",
    "betzler-b7-cocoa-highest-throughput-vs-cocoa4",
    "betzler-b7-coap-b-most-retries",
    "betzler-b7-cocoa4-shortest",
    "betzler-b8-cocoa4-above-cocoa-2014",
    "betzler-b11-no-rdc-cocoa4",
    "betzler-b11-contikimac-cocoa4",
    "betzler-b13-1-to-1-contikimac",
    "betzler-b13-many-to-many-contikimac",
];

/// Makarem Cooja: every goodput claim (IDC-CoAP above CoCoA+ and CoAP on every case); all of
/// them differ for one reason, the spacing IDC-CoAP builds up and its slow recovery.
const MAKAREM_COOJA_IDC_GOODPUT_CLAIMS: &[&str] = &[
    "makarem-cooja-m2-ring-tx-100-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m3-m4-ring-tx-95-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m3-m4-ring-tx-95-goodput-per-s-vs-default",
    "makarem-cooja-m3-m4-ring-tx-90-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m3-m4-ring-tx-90-goodput-per-s-vs-default",
    "makarem-cooja-m8-m10-chain-of-4-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m8-m10-chain-of-4-goodput-per-s-vs-default",
    "makarem-cooja-m8-m10-chain-of-6-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m8-m10-chain-of-6-goodput-per-s-vs-default",
    "makarem-cooja-m8-m10-chain-of-8-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m8-m10-chain-of-8-goodput-per-s-vs-default",
    "makarem-cooja-m8-m10-chain-of-10-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m8-m10-chain-of-10-goodput-per-s-vs-default",
    "makarem-cooja-m8-m10-chain-of-12-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m8-m10-chain-of-12-goodput-per-s-vs-default",
    "makarem-cooja-m11-dumbbell-of-7-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m11-dumbbell-of-7-goodput-per-s-vs-default",
    "makarem-cooja-m11-dumbbell-of-10-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m11-dumbbell-of-10-goodput-per-s-vs-default",
    "makarem-cooja-m11-dumbbell-of-15-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m11-dumbbell-of-15-goodput-per-s-vs-default",
    "makarem-cooja-m12-grid-30-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m12-grid-30-goodput-per-s-vs-default",
    "makarem-cooja-m12-square-18-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m12-square-18-goodput-per-s-vs-default",
    "makarem-cooja-m12-u-15-goodput-per-s-vs-cocoa-plus-makarem",
    "makarem-cooja-m12-u-15-goodput-per-s-vs-default",
    "makarem-cooja-m13-ring-goodput-gain-larger-at-tx-90",
];

/// Betzler: the claims the 1-to-1 ContikiMAC loss explains (ContikiMAC faster than No RDC, few
/// retries), then the B4 claims that hold because ContikiMAC repairs losses (the counter-check).
const BETZLER_CONTIKIMAC_LOSS_CLAIMS: &[&str] = &[
    "betzler-1-to-1-contikimac-default-throughput-per-s",
    "betzler-1-to-1-contikimac-default-duration-mean-s",
    "betzler-1-to-1-contikimac-default-retries-per-exchange",
    "betzler-1-to-1-contikimac-cocoa-2014-retries-per-exchange",
    "betzler-b1-contikimac-default-aggressive-above-default",
    "betzler-b2-contikimac-default-aggressive-below-default",
    "betzler-b3-default-throughput",
    "betzler-b3-default-duration",
    "betzler-b3-default-aggressive-throughput",
    "betzler-b3-cocoa-2014-throughput",
    "betzler-b3-cocoa-2014-duration",
    "betzler-b5-cocoa-fewer-retries-than-default",
    "betzler-b4-default-retries",
    "betzler-b4-cocoa-2014-retries",
];

/// Betzler: the many-to-many claims the contention on the surrogate mesh explains (the
/// ACK-wait investigation takes those that involve the No RDC case).
const BETZLER_CONTENTION_CLAIMS: &[&str] = &[
    "betzler-many-to-many-no-rdc-default-retries-per-exchange",
    "betzler-many-to-many-no-rdc-cocoa-2014-retries-per-exchange",
    "betzler-many-to-many-contikimac-cocoa-2014-duration-mean-s",
    "betzler-many-to-many-contikimac-cocoa-2014-retries-per-exchange",
    "betzler-b8-coap-b-longest",
    "betzler-b9-default-retries-per-exchange",
    "betzler-b9-cocoa-2014-throughput-per-s",
    "betzler-b9-cocoa-2014-duration-mean-s",
    "betzler-b9-cocoa-2014-retries-per-exchange",
    "betzler-b11-contikimac-cocoa-2014",
];

const BETZLER_MANY_TO_MANY: &[&str] = &["betzler/many-to-many-no-rdc", "betzler/many-to-many-contikimac"];

const BETZLER_LAYOUT_UNKNOWN: &str = "FlockLab's layout and link qualities are not published (OQ-M3); the verdicts stay \
on the calibrated 0.94, and the sweep shows which claims the link quality can explain, not a value to use.";

const PAYLOAD: &[f64] = &[20.0, 40.0, 60.0, 80.0];

const LOAD_QUESTION: &str = "The infinite-buffer cases are bistable: CoCoA collapses only once the RTT exceeds its first \
three backed-off timers (about 14 s), after which it takes no weak sample and stays at 2 s. Whether the queue gets there \
depends on the load, i.e. on the message sizes and the number of flows.";

/// Every investigation of the general kind, in report order.
pub const SWEEPS: &[SweepSpec] = &[
    SweepSpec {
        id: "fasor-load-payload",
        experiment: "fasor",
        short: "the message-size investigation",
        title: "Investigation: message size (load) with 400 flows and the infinite buffer",
        question: LOAD_QUESTION,
        bases: FASOR_400_INFINITE,
        fixed: &[],
        key: "response_payload_bytes",
        also: &[],
        words: &[],
        unit: "B",
        values: PAYLOAD,
        default: 20.0,
        algorithms: &[],
        replications: [6, 1],
        claims: FASOR_400_INFINITE_CLAIMS,
        unknown: LOAD_UNKNOWN,
    },
    SweepSpec {
        id: "fasor-load-flows",
        experiment: "fasor",
        short: "the flow-count investigation",
        title: "Investigation: number of flows (load) with the infinite buffer",
        question: LOAD_QUESTION,
        bases: FASOR_400_INFINITE,
        fixed: &[],
        key: "flows",
        also: &[],
        words: &[],
        unit: "flows",
        values: &[400.0, 600.0, 800.0],
        default: 400.0,
        algorithms: &[],
        replications: [6, 1],
        claims: FASOR_400_INFINITE_CLAIMS,
        unknown: "The paper's flow count (400) is published; the sweep shows how far our load is from the threshold, \
not a different count to use.",
    },
    SweepSpec {
        id: "fasor-cocoa-vbf-per-step",
        experiment: "fasor",
        short: "the CoCoA backoff-factor investigation",
        title: "Investigation: CoCoA's variable backoff factor chosen per exchange or at every step",
        question: "CoCoA picks its backoff factor from the RTO: 3 below 1 s, 2 up to 3 s, 1.5 above. Our default \
(OQ-3) chooses it once per exchange from the RTO that arms the original; the FASOR paper says CoCoA \"uses the factor of \
1.5 when the retransmission timer value is larger than 3 seconds\", which reads per step (`vbf_selection = \
\"per-step\"`: 2 s → 2, 4, 6, 9, 13.5 s instead of 2, 4, 8, 16, 32 s). Shorter backed-off timers move the collapse \
threshold of the infinite-buffer cases.",
        bases: FASOR_400_INFINITE,
        fixed: &[],
        key: "algorithm.cocoa.vbf_selection",
        also: &["algorithm.cocoa-fb1.vbf_selection"],
        words: &["per-exchange", "per-step"],
        unit: "",
        values: &[0.0, 1.0],
        default: 0.0,
        algorithms: &[],
        replications: [6, 1],
        claims: FASOR_400_INFINITE_CLAIMS,
        unknown: "The CoCoA draft's text reads per exchange and its pseudocode per step (docs/algorithms.md, CoCoA, \
OQ-3); the verdicts stay on the per-exchange reading.",
    },
    SweepSpec {
        id: "fasor-drop-tail-in-service",
        experiment: "fasor",
        short: "the drop-tail accounting investigation",
        title: "Investigation: does the packet in service count against the 2 500-byte buffer?",
        question: "With 400 continuous flows and the 2 500-byte buffer the paper reports no unnecessary \
retransmission at all. Our drop-tail buffer counts only the packets waiting for the link (docs/testbeds.md §1, \
\"Bottleneck buffer\"); a buffer that also holds the packet being sent is 26–54 bytes smaller in effect, so fewer \
copies wait long enough for a timer to expire.",
        bases: &["fasor/400-flows-small-buffer-continuous"],
        fixed: &[],
        key: "buffer_counts_in_service",
        also: &[],
        words: &["false", "true"],
        unit: "",
        values: &[0.0, 1.0],
        default: 0.0,
        algorithms: &[],
        replications: [6, 1],
        claims: &["fasor-400-small-continuous-no-unnecessary", "fasor-400-small-continuous-retx-fasor-vs-cocoa-fb1"],
        unknown: "The paper does not say how its emulator accounts for the packet on the link.",
    },
    SweepSpec {
        id: "fasor-200-load-payload",
        experiment: "fasor",
        short: "the 200-flow message-size investigation",
        title: "Investigation: message size (load) with 200 flows",
        question: "With 200 flows the published FASOR gains over CoCoA are small (3.7–8.3 %) and ours are slightly \
negative: CoCoA does not collapse at this load. A larger message raises the load towards the threshold of the 400-flow \
cases.",
        bases: &[
            "fasor/200-flows-medium-buffer-continuous",
            "fasor/200-flows-medium-buffer-random",
            "fasor/200-flows-infinite-buffer-continuous",
            "fasor/200-flows-infinite-buffer-random",
        ],
        fixed: &[],
        key: "response_payload_bytes",
        also: &[],
        words: &[],
        unit: "B",
        values: PAYLOAD,
        default: 20.0,
        algorithms: &["cocoa", "fasor"],
        replications: [6, 1],
        claims: FASOR_200_CLAIMS,
        unknown: LOAD_UNKNOWN,
    },
    SweepSpec {
        id: "fb-load-payload",
        experiment: "full-backoff",
        short: "the message-size investigation",
        title: "Investigation: message size (load) with 400 random flows and the infinite buffer",
        question: LOAD_QUESTION,
        bases: &["full-backoff/400-flows-infinite-buffer-random"],
        fixed: &[],
        key: "response_payload_bytes",
        also: &[],
        words: &[],
        unit: "B",
        values: PAYLOAD,
        default: 20.0,
        algorithms: &["default", "cocoa"],
        replications: [6, 1],
        claims: FB_CLAIMS,
        unknown: "The thesis's testbed is the FASOR one; its message sizes are not published (docs/testbeds.md §1 [D]).",
    },
    SweepSpec {
        id: "fb-load-flows",
        experiment: "full-backoff",
        short: "the flow-count investigation",
        title: "Investigation: number of random flows (load) with the infinite buffer",
        question: LOAD_QUESTION,
        bases: &["full-backoff/400-flows-infinite-buffer-random"],
        fixed: &[],
        key: "flows",
        also: &[],
        words: &[],
        unit: "flows",
        values: &[400.0, 600.0, 800.0],
        default: 400.0,
        algorithms: &["default", "cocoa"],
        replications: [6, 1],
        claims: FB_CLAIMS,
        unknown: "The flow count (400) is published; the sweep shows how far our load is from the threshold.",
    },
    SweepSpec {
        id: "fb-cocoa-vbf-per-step",
        experiment: "full-backoff",
        short: "the CoCoA backoff-factor investigation",
        title: "Investigation: CoCoA's variable backoff factor chosen per exchange or at every step",
        question: "As in the FASOR experiment: CoCoA's backoff factor chosen once per exchange (OQ-3, our default) \
or at every step (the reading of the FASOR paper's sentence), on the bistable infinite-buffer random case.",
        bases: &["full-backoff/400-flows-infinite-buffer-random", "full-backoff/400-flows-medium-buffer-random"],
        fixed: &[],
        key: "algorithm.cocoa.vbf_selection",
        also: &["algorithm.cocoa-fb1.vbf_selection", "algorithm.cocoa-fb2.vbf_selection"],
        words: &["per-exchange", "per-step"],
        unit: "",
        values: &[0.0, 1.0],
        default: 0.0,
        algorithms: &[],
        replications: [6, 1],
        claims: &[
            "fb-infinite-random-fct-default-vs-cocoa",
            "fb-infinite-random-unnecessary-default-vs-cocoa",
            "fb-infinite-random-expired-rto-cocoa-vs-default",
            "fb-medium-random-unnecessary-cocoa-fb2-vs-cocoa-fb1",
            "fb-infinite-random-unnecessary-cocoa-fb2-vs-cocoa-fb1",
            "fb-infinite-random-fct-cocoa-fb2-vs-cocoa-fb1",
        ],
        unknown: "The CoCoA draft's text reads per exchange and its pseudocode per step (docs/algorithms.md, CoCoA, \
OQ-3); the verdicts stay on the per-exchange reading.",
    },
    SweepSpec {
        id: "makarem-bucket-depth",
        experiment: "makarem-rate",
        short: "the token-bucket-depth investigation",
        title: "Investigation: depth of the residual-bandwidth token bucket",
        question: "The paper's residual bandwidth limits the sender to ResBW(t) packets/s but does not say how a burst \
is treated; our token bucket holds one packet (docs/testbeds.md §2 [D]). A deeper bucket lets a sender that waited send \
back to back, which matters most where ResBW is small (the plateau and the 0.2 packets/s point).",
        bases: &["makarem/low-variability", "makarem/high-variability"],
        fixed: &[],
        key: "network.residual.depth_packets",
        also: &[],
        words: &[],
        unit: "packets",
        values: &[1.0, 2.0, 4.0, 8.0],
        default: 1.0,
        algorithms: &[],
        replications: [1, 1],
        claims: &[
            "makarem-rate-low-plateau-cocoa-plus-small",
            "makarem-rate-low-small-resbw-goodput-idc",
            "makarem-rate-low-small-resbw-loss-idc",
            "makarem-rate-low-small-resbw-loss-mbc",
            "makarem-rate-low-overhead-idc-almost-none",
            "makarem-rate-high-overhead-idc",
        ],
        unknown: "The paper names no bucket depth; one packet is the strictest reading of \"at most ResBW packets per \
second\".",
    },
    SweepSpec {
        id: "betzler-cocoa4-nstart",
        experiment: "betzler",
        short: "the CoCoA4 NSTART investigation",
        title: "Investigation: CoCoA4's NSTART on the surrogate mesh",
        question: "CoCoA4 is CoCoA with NSTART 4 and the blind RTO 2 s · 2^ACT for parallel exchanges without an \
estimate (Betzler's slides). On our 5 × 6 surrogate mesh four requests and their responses cross one path at once: in \
one ContikiMAC 1-to-1 replication 543 packets are dropped at the MAC retry limit (9 with NSTART 1) and NOACKs rise from \
1 425 to 5 414, so CoCoA4's exchanges take several times longer than CoCoA's. With NSTART 1 CoCoA4 behaves as CoCoA; the \
sweep shows how much of the difference is the parallel exchanges on the model's mesh.",
        bases: &[
            "betzler/1-to-1-no-rdc",
            "betzler/1-to-1-contikimac",
            "betzler/many-to-many-no-rdc",
            "betzler/many-to-many-contikimac",
        ],
        fixed: &[],
        key: "multihop.nstart_by_algorithm.cocoa4",
        also: &[],
        words: &[],
        unit: "",
        values: &[1.0, 2.0, 4.0],
        default: 4.0,
        algorithms: &[],
        replications: [5, 1],
        claims: BETZLER_COCOA4_CLAIMS,
        unknown: "CoCoA4's NSTART 4 is published; FlockLab's layout and link quality are not (OQ-M3), and the \
slides' 1-to-1 numbers (throughput × duration ≈ 1) suggest one exchange at a time (OQ-M5). The sweep shows where the \
difference comes from, not a value to use: the verdicts stay on NSTART 4.",
    },
    SweepSpec {
        id: "makarem-cooja-idc-dw",
        experiment: "makarem-cooja",
        short: "the IDC-CoAP spacing-recovery investigation",
        title: "Investigation: how fast IDC-CoAP's spacing recovers (its decremental weight dw)",
        question: "IDC-CoAP (Makarem's Algorithm 3; docs/algorithms.md, `idc`) multiplies its spacing by iw = 1.5 on every RTO expiry, \
never lets it fall below the time since the latest copy left (so an expiry lifts it to at least the RTO) and shrinks it \
by dw = 1 % per ACK until it is below the spacing of the last loss. ACKs come one spacing apart, so above that point the \
spacing falls by dw seconds per second whatever its size: 100 s of run per second of excess spacing. In the five \
replications of the 12-node chain the ten senders, started within 1 s, see 42–73 expiries in the first 100 s and enter \
the window with spacings of 11–34 s (median per replication) for exchanges of 0.3–3 s; the senders that share a history \
keep equal spacings and send together, so their next losses come together, and the spacing ends at 22–65 s. IDC's senders are idle 77–90 % of \
the window while CoCoA+'s and CoAP's are never idle; goodput is lower, losses and overhead are near zero because the \
network is nearly idle. The sweep varies dw, i.e. how fast the spacing recovers, on every case.",
        bases: &[
            "makarem-cooja/ring-12",
            "makarem-cooja/chain",
            "makarem-cooja/dumbbell",
            "makarem-cooja/grid-30",
            "makarem-cooja/square-18",
            "makarem-cooja/u-15",
        ],
        fixed: &[],
        key: "algorithm.idc.dw",
        also: &[],
        words: &[],
        unit: "",
        values: &[0.01, 0.03, 0.1],
        default: 0.01,
        algorithms: &[],
        replications: [2, 1],
        claims: MAKAREM_COOJA_IDC_GOODPUT_CLAIMS,
        unknown: "dw = 0.01 is published (§5.2.1, and iw = 1.5 is named for Cooja); the sweep shows that the \
difference is IDC's recovery time against a 15-minute run, not a value to use: the verdicts stay on dw = 0.01. The \
paper does not say how its Cooja senders started or how large their spacings grew.",
    },
    SweepSpec {
        id: "betzler-contikimac-loss",
        experiment: "betzler",
        short: "the ContikiMAC loss investigation",
        title: "Investigation: frame loss on the 1-to-1 ContikiMAC case",
        question: "One independent per-frame success ratio (multihop.udgm.success_ratio_tx 0.94, OQ-M3) serves \
both MACs; it is calibrated on No RDC, where no MAC retransmission repairs a loss. ContikiMAC's 5 MAC transmissions \
repair almost every such loss, so our ContikiMAC 1-to-1 exchanges rarely time out and come out faster than with No \
RDC, the reverse of FlockLab's. The sweep lowers the ratio on the 1-to-1 ContikiMAC case alone (the No RDC case, which \
the B3 and B4 ratios compare with, stays as run); the B4 claims (ContikiMAC fewer retries than No RDC), which hold, are \
the counter-check.",
        bases: &["betzler/1-to-1-contikimac"],
        fixed: &["betzler/1-to-1-no-rdc"],
        key: "multihop.udgm.success_ratio_tx",
        also: &[],
        words: &[],
        unit: "",
        values: &[0.75, 0.8, 0.85, 0.94],
        default: 0.94,
        algorithms: &[],
        // 3, not 5: a lower ratio lengthens every ContikiMAC run (0.75 costs 2.6 times the default's events).
        replications: [3, 1],
        claims: BETZLER_CONTIKIMAC_LOSS_CLAIMS,
        unknown: "A lower ratio on ContikiMAC alone stands for losses its MAC retransmissions cannot repair (bursts, \
asymmetric links), which the surrogate does not model. FlockLab's link qualities are not published (OQ-M3); the \
verdicts stay on the calibrated 0.94.",
    },
    SweepSpec {
        id: "betzler-host-delay",
        experiment: "betzler",
        short: "the cloud-delay investigation",
        title: "Investigation: the cloud delay on the No RDC cases",
        question: "On FlockLab CoAP_B, whose initial timer is 1–1.5 s, made more retries than CoAP (B6) and less \
throughput than CoCoA (B1, B7): some round trips outlasted its timer. On the surrogate every No RDC algorithm makes the \
same retries per 1-to-1 exchange (the calibrated frame losses), because no round trip outlasts 1 s. The cloud delay \
(multihop.host_delay_ms, one way, OQ-M4) is the one parameter that lengthens every round trip.",
        bases: &["betzler/1-to-1-no-rdc", "betzler/many-to-many-no-rdc"],
        fixed: &[],
        key: "multihop.host_delay_ms",
        also: &[],
        words: &[],
        unit: "ms",
        values: &[75.0, 250.0, 500.0, 1000.0],
        default: 75.0,
        algorithms: &[],
        replications: [5, 1],
        claims: &[
            "betzler-b1-no-rdc-cocoa-2014-above-default-aggressive",
            "betzler-b2-no-rdc-cocoa-2014-below-default-aggressive",
            "betzler-b6-no-rdc",
            "betzler-b7-cocoa-highest-throughput-vs-default-aggressive",
        ],
        unknown: "The slides give the clients' location (\"in the cloud\") but no delay; 75 ms one way (OQ-M4) is a \
typical Internet path, and a constant delay has no tail: the model has no delay jitter. The verdicts stay on 75 ms.",
    },
    SweepSpec {
        id: "betzler-many-to-many-loss",
        experiment: "betzler",
        short: "the many-to-many link-quality investigation",
        title: "Investigation: link quality on the many-to-many cases",
        question: "With 29 clients at once our 5 × 6 lattice loses more with No RDC than FlockLab did (CoAP 0.63 \
retries per exchange, published 0.28), and with ContikiMAC queues longer (CoCoA's exchanges 9.3 s, published 4.16 s) \
while repairing at the MAC what FlockLab's clients retried end to end (CoCoA 0.78 retries, published 1.69). The sweep \
varies the per-frame success ratio (multihop.udgm.success_ratio_tx, OQ-M3) on both many-to-many cases.",
        bases: BETZLER_MANY_TO_MANY,
        fixed: &[],
        key: "multihop.udgm.success_ratio_tx",
        also: &[],
        words: &[],
        unit: "",
        values: &[0.85, 0.94, 0.97, 1.0],
        default: 0.94,
        algorithms: &[],
        replications: [5, 1],
        claims: BETZLER_CONTENTION_CLAIMS,
        unknown: BETZLER_LAYOUT_UNKNOWN,
    },
    SweepSpec {
        id: "betzler-many-to-many-ack-wait",
        experiment: "betzler",
        short: "the NullRDC ACK-wait investigation",
        title: "Investigation: NullRDC waiting for link-layer ACKs on the many-to-many No RDC case",
        question: "Contiki's Sky build of NullRDC sends without waiting for a link-layer ACK (OQ-M1), so with No RDC \
no collision among the 29 clients' frames is repaired at the MAC and every loss costs an end-to-end retry. With \
multihop.null_rdc.ack_wait = true (OQ-M1's sensitivity option) NullRDC retransmits up to 5 times as ContikiMAC does. \
The sweep sets it on the many-to-many No RDC case (the ContikiMAC case, which the B9 ratios compare with, stays as \
run).",
        bases: &["betzler/many-to-many-no-rdc"],
        fixed: &["betzler/many-to-many-contikimac"],
        key: "multihop.null_rdc.ack_wait",
        also: &[],
        words: &["false", "true"],
        unit: "",
        values: &[0.0, 1.0],
        default: 0.0,
        algorithms: &[],
        replications: [5, 1],
        claims: &[
            "betzler-many-to-many-no-rdc-default-retries-per-exchange",
            "betzler-many-to-many-no-rdc-cocoa-2014-retries-per-exchange",
            "betzler-b9-default-retries-per-exchange",
            "betzler-b9-cocoa-2014-throughput-per-s",
            "betzler-b9-cocoa-2014-duration-mean-s",
            "betzler-b9-cocoa-2014-retries-per-exchange",
        ],
        unknown: "The Sky build's NullRDC does not wait for ACKs (NULLRDC_802154_AUTOACK 0, OQ-M1); whether \
FlockLab's firmware did is not published. The verdicts stay on the code's default.",
    },
    SweepSpec {
        id: "lim-nullrdc-ack-wait",
        experiment: "lim",
        short: "the NullRDC ACK-wait investigation",
        title: "Investigation: NullRDC waiting for link-layer ACKs with the limit of 8",
        question: "Contiki's Sky build of NullRDC sends without waiting for a link-layer ACK (OQ-M1), so NullRDC \
repairs no frame loss while ContikiMAC retransmits up to 5 times; with the limit of 8 retransmissions our NullRDC runs \
therefore fail more often than the ContikiMAC ones, the reverse of §4.2.3. The sweep sets \
multihop.null_rdc.ack_wait = true (OQ-M1's sensitivity option) on the NullRDC 4 × 4 case with the limit of 8 (the \
ContikiMAC case stays as run).",
        bases: &["lim/e1-nullrdc-4x4@limit=8"],
        fixed: &["lim/e2-contikimac-4x4@limit=8"],
        key: "multihop.null_rdc.ack_wait",
        also: &[],
        words: &["false", "true"],
        unit: "",
        values: &[0.0, 1.0],
        default: 0.0,
        algorithms: &[],
        replications: [10, 3],
        claims: &["lim-l7-limit-8-contikimac-worse"],
        unknown: "Lim's Cooja runs used Sky motes, whose NullRDC does not wait for ACKs (NULLRDC_802154_AUTOACK 0, \
OQ-M1); the paper does not say otherwise, so the verdict stays on the code's default.",
    },
];

/// The investigations of an experiment.
pub fn of(experiment: &str) -> impl Iterator<Item = &'static SweepSpec> + '_ {
    SWEEPS.iter().filter(move |s| s.experiment == experiment)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::experiments::cases;
    use crate::reproduce::investigate::burst_scale;
    use crate::reproduce::investigate::causes::differing;
    use crate::reproduce::published::{CauseKind, load};

    fn data(file: &str) -> String {
        let path = format!("{}/../../data/published/{file}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The investigations of an experiment by id, the burst-scale one included.
    fn ids_of(experiment: &str) -> Vec<&'static str> {
        let mut ids: Vec<&str> = of(experiment).map(|s| s.id).collect();
        if experiment == "fasor" {
            ids.push(burst_scale::BURST_SCALE_ID);
        }
        ids
    }

    #[test]
    fn every_claim_that_differs_in_the_full_run_has_an_investigation_or_a_cause() {
        let rows = differing(&data("claims-full.csv")).unwrap();
        assert!(!rows.is_empty());
        let mut missing = Vec::new();
        for r in &rows {
            let p = load(&r.experiment).unwrap();
            let claim =
                p.claims.iter().find(|c| c.id == r.claim).unwrap_or_else(|| panic!("{} not in its file", r.claim));
            let swept = of(&r.experiment).any(|s| s.claims.contains(&r.claim.as_str()))
                || (r.experiment == "fasor" && burst_scale::claims(&p).contains(&r.claim));
            if claim.cause.is_none() && !swept {
                missing.push(r.claim.clone());
            }
        }
        assert!(missing.is_empty(), "claims that differ without an investigation or a `cause`: {missing:?}");
    }

    #[test]
    fn every_investigation_named_by_a_cause_exists_and_every_claim_an_investigation_lists_exists() {
        for e in ["fasor", "full-backoff", "makarem-rto", "makarem-rate", "betzler", "lim", "makarem-cooja"] {
            let p = load(e).unwrap();
            for c in &p.claims {
                for i in c.cause.iter().flat_map(|c| &c.investigations) {
                    assert!(ids_of(e).contains(&i.as_str()), "claim {}: no investigation `{i}` in {e}", c.id);
                }
                if let Some(cause) = &c.cause {
                    assert!(!cause.text.trim().is_empty(), "claim {}: empty cause", c.id);
                    assert_eq!(cause.kind == CauseKind::Investigation, !cause.investigations.is_empty(), "{}", c.id);
                }
            }
            for s in of(e) {
                assert!(s.values.contains(&s.default), "{}: the default is not a swept value", s.id);
                assert!(s.values.windows(2).all(|w| w[0] < w[1]), "{}: values not ascending", s.id);
                for id in s.claims {
                    assert!(p.claims.iter().any(|c| c.id == *id), "{}: claim {id} not in {e}", s.id);
                }
            }
        }
        let mut ids: Vec<&str> = SWEEPS.iter().map(|s| s.id).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "investigation ids are unique");
    }

    #[test]
    fn every_base_and_fixed_case_of_an_investigation_is_one_of_its_experiments_cases() {
        let root = std::path::PathBuf::from(format!("{}/../../scenarios", env!("CARGO_MANIFEST_DIR")));
        for s in SWEEPS {
            let own = cases(s.experiment, &root, false, None).unwrap();
            let known = |n: &str| own.iter().any(|c| c.name == n || c.sweep.as_ref().is_some_and(|(w, _)| w == n));
            for n in s.bases.iter().chain(s.fixed) {
                assert!(known(n), "{}: no case or sweep `{n}` in {}", s.id, s.experiment);
            }
            assert!(s.fixed.iter().all(|f| !s.bases.contains(f)), "{}: a fixed case is also swept", s.id);
        }
    }
}
