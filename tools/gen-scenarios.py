#!/usr/bin/env python3
"""Writes the scenario files under scenarios/ from the published set-ups of
shared/spec/testbeds.md. Run from the repository root: tools/gen-scenarios.py
The files are the data (checked in); this script only keeps them consistent."""
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios")

NBIOT_NOTES = """# Network (testbeds.md §1): NB-IoT-like asymmetric link shared by all clients.
#   uplink 60 kbit/s, 200 ms one way; downlink 30 kbit/s, 400 ms one way [S]
#   rest of path U[10, 20] ms each way, FIFO (no overtaking) [S range, D distribution]
#   drop-tail buffer of `buffer_bytes` in each wireless direction [S sizes, D placement]
#   IPv4 + UDP headers (28 B) count against rates and buffers; MTU 296 B [S MTU, D IPv4]
#   Gilbert–Elliott errors: medium 50 %/0 %, high 80 %/2 %, sojourns 1 s bad / 4 s good [S/D]
# Messages (testbeds.md §1 [D]): CON GET, 2-byte token, one 4-byte Uri-Path option; piggybacked
#   response with 20-byte payload (see [coap] defaults: request_path "res", payload 20 B).
"""

def q(s):
    return '"' + s.replace('"', '\\"') + '"'

def write(path, text):
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)

def header(name, description, source, seed, replications, algorithms):
    algs = ", ".join(q(a) for a in algorithms)
    return (f"name = {q(name)}\n"
            f"description = {q(description)}\n"
            f"source = {q(source)}\n"
            f"seed = {seed}\n"
            f"replications = {replications}\n"
            f"algorithms = [{algs}]\n")

FASOR_ALGS = ["default", "cocoa", "cocoa-fb1", "fasor", "fasor-token"]
FB_ALGS = ["default", "default-fb1", "default-fb2", "cocoa", "cocoa-fb1", "cocoa-fb2"]
BUFFERS = {"small": 2500, "medium": 28200, "infinite": 1410000}

def fasor_algorithm_tables(algs):
    out = ("\n# testbeds.md §1 [S]: MAX_RETRANSMIT = 20 for every algorithm; caps 60 s for Default CoAP and\n"
           "# FASOR, 32 s for CoCoA (its default); CoCoA aging off (no idle periods).\n"
           "[all_algorithms]\nmax_retransmit = 20\n")
    if "default" in algs:
        out += "\n[algorithm.default]\ncap_ms = 60000\n"
    for a in algs:
        if a.startswith("cocoa"):
            out += f"\n[algorithm.{a}]\naging = \"off\"\n"
    return out

def nbiot(buffer_bytes, errors):
    return ("\n" + NBIOT_NOTES + "[network.nbiot]\n"
            f"buffer_bytes = {buffer_bytes}\nerrors = {q(errors)}\n")

def flows(n, flow_type, nstart=1):
    out = ("\n# Workload (testbeds.md §1): flows start at uniform offsets in [0, 1) s [D]; a continuous\n"
           "# flow is one client doing 50 exchanges back to back; a random flow is a chain of short-lived\n"
           "# clients of U{1..10} exchanges each, state reset between them, no gap, until 50 [S, D].\n"
           f"[workload]\nflows = {n}\nflow_type = {q(flow_type)}\nexchanges_per_flow = 50\nstart_window_ms = 1000\n")
    if nstart != 1:
        out += f"nstart = {nstart}\n"
    return out

# FASOR paper: 400 and 200 flows, three buffers, continuous and random, error-free.
for n in (400, 200):
    for blabel, b in BUFFERS.items():
        for ft in ("continuous", "random"):
            name = f"fasor/{n}-flows-{blabel}-buffer-{ft}"
            desc = (f"{n} {ft} flows over the NB-IoT-like link with a {b}-byte bottleneck buffer "
                    f"({'≈ bandwidth-delay product' if b == 2500 else 'bufferbloat' if b == 28200 else '“infinite”'}), no link errors.")
            src = "Järvinen et al., FASOR, GLOBECOM 2018 (seed 000), §IV–V, Figs. 3–8; testbeds.md §1"
            write(name + ".toml", header(name, desc, src, 1, 20, FASOR_ALGS) + nbiot(b, "none") + flows(n, ft)
                  + fasor_algorithm_tables(FASOR_ALGS))

# testbeds.md §1 lists a fourth buffer size, 14 100 B, that no published figure of the seeds uses:
# the same 400-flow cases with it, for comparison with fasor/400-flows-*-buffer-*.
for ft in ("continuous", "random"):
    name = f"nbiot/400-flows-14100-byte-buffer-{ft}"
    desc = (f"400 {ft} flows over the NB-IoT-like link with the 14 100-byte buffer of testbeds.md §1 (between "
            "the 2 500-byte and 28 200-byte cases of the FASOR paper), no link errors. No published results.")
    src = "testbeds.md §1 (buffer sizes); set-up as Järvinen et al., FASOR, GLOBECOM 2018 (seed 000)"
    write(name + ".toml", header(name, desc, src, 1, 20, FASOR_ALGS) + nbiot(14100, "none") + flows(400, ft)
          + fasor_algorithm_tables(FASOR_ALGS))

# FASOR paper: 10 flows with link errors (and error-free), 2 500-byte buffer.
for errors, label, reps in (("none", "error-free", 20), ("medium", "medium-errors", 40), ("high", "high-errors", 40)):
    for ft in ("continuous", "random"):
        name = f"fasor/10-flows-{label}-{ft}"
        desc = f"10 {ft} flows over the NB-IoT-like link, 2 500-byte buffer, {errors} link errors (Gilbert–Elliott)."
        src = "Järvinen et al., FASOR, GLOBECOM 2018 (seed 000), §V, Figs. 9–10; testbeds.md §1"
        write(name + ".toml", header(name, desc, src, 1, reps, FASOR_ALGS) + nbiot(2500, errors) + flows(10, ft)
              + fasor_algorithm_tables(FASOR_ALGS))

# Thesis / ANRW'18: Full Backoff variants on the bufferbloat cases.
for blabel in ("medium", "infinite"):
    for ft in ("continuous", "random"):
        b = BUFFERS[blabel]
        name = f"full-backoff/400-flows-{blabel}-buffer-{ft}"
        desc = f"Full Backoff 1/2 on Default CoAP and CoCoA: 400 {ft} flows, {b}-byte buffer (bufferbloat), no errors."
        src = "Pesola 2020 thesis chapter (seed 002) and ANRW'18 'Is CoAP congestion safe?'; testbeds.md §1"
        write(name + ".toml", header(name, desc, src, 1, 20, FB_ALGS) + nbiot(b, "none") + flows(400, ft)
              + fasor_algorithm_tables(FB_ALGS))

# Betzler's CoCoA4: NSTART = 4 exercises the blind RTO.
name = "cocoa/10-flows-nstart-4"
desc = "10 continuous flows with NSTART = 4 over the NB-IoT-like link (28 200-byte buffer): CoCoA's blind RTO, linear (draft) and exponential (slides/Contiki)."
src = "Betzler et al. 2014 slides (seed 003), CoCoA4; draft-ietf-core-cocoa-03 §4.2; spec OQ-2"
algs = ["default", "cocoa", "cocoa-blind-exponential"]
write(name + ".toml", header(name, desc, src, 1, 20, algs) + nbiot(28200, "none") + flows(10, "continuous", nstart=4)
      + "\n[variant.cocoa-blind-exponential]\nbase = \"cocoa\"\nblind_rto = \"exponential\"\n")

# Makarem §6.2: residual bandwidth, one long-lived sender.
MAKAREM_ALGS = ["default", "cocoa-plus", "pcocoa", "four-state", "bdp", "idc", "idc-iw1.1", "mbc", "mbc-m10"]
MAKAREM_TABLES = ("\n# Makarem et al. §6.2 [S]: r = MAX_RETRANSMIT = 4 (every algorithm's default). CoCoA+ with the\n"
                  "# authors' VBF {2.5, 2, 1.5} as in [S1]; IDC with iw 1.5 and 1.1; MBC with m = 3 and 10.\n"
                  "[algorithm.cocoa-plus]\nvbf = \"makarem\"\n\n"
                  "[variant.\"idc-iw1.1\"]\nbase = \"idc\"\niw = 1.1\n\n"
                  "[variant.mbc-m10]\nbase = \"mbc\"\nwindow = 10\n")
RESIDUAL_NOTES = ("\n# Network (testbeds.md §2): the path accepts at most ResBW(t) packets/s from this sender: a token\n"
                  "# bucket of one packet, ResBW redrawn every 5 s from U(a, b) [D mechanism]; a transmission that\n"
                  "# finds no token is lost; RTT of every successful transmission N(500 ms, 10 ms) [S]; ACKs never lost.\n")
for label, a, b, desc in (
    ("instantaneous", "0.6", "1", "ResBW ~ U(0.6, 1) packets/s: instantaneous sending and success rates (Fig. 23)."),
    ("low-variability", "0.9", "1.1", "Low variability, mean 1 packet/s: (a, b) = (m − 0.1, m + 0.1); sweep m with --set (Figs. 26–28)."),
    ("high-variability", "0", "2", "High variability, mean 1 packet/s, range [0, 2]; sweep the range with --set (Figs. 29–31)."),
):
    name = f"makarem/residual-{label}"
    src = "Makarem et al., Computer Networks 207 (2022) (seed 001), §6.2; testbeds.md §2"
    write(name + ".toml", header(name, desc, src, 1, 3, MAKAREM_ALGS) + RESIDUAL_NOTES
          + f"[network.residual]\nmin_rate_pps = {a}\nmax_rate_pps = {b}\n"
          + "\n# One sender, NSTART = 1, 5 simulated hours, 3 repetitions [S].\n"
          + "[workload]\nflows = 1\nflow_type = \"long-lived\"\nduration_ms = 18000000\nstart_window_ms = 0\n"
          + MAKAREM_TABLES)

# Makarem §6.1, Table 1: the RTT-trace model, 29 scenarios.
def U(lo, hi): return f'{{ dist = "uniform", lo_ms = {lo}, hi_ms = {hi} }}'
def N(m, s): return f'{{ dist = "normal", mean_ms = {m}, sd_ms = {s} }}'
def D(v): return f'{{ dist = "constant", ms = {v} }}'
ROWS = {
    4: (U(100, 300), N(3000, 100), False), 5: (U(100, 1000), N(3000, 100), False),
    6: (U(100, 300), N(3000, 1000), False), 7: (U(100, 2000), N(3000, 100), False),
    8: (U(300, 3000), N(6000, 200), True), 9: (U(300, 3000), N(4000, 200), True),
    10: (U(200, 1000), N(6000, 200), True), 11: (U(100, 2000), N(6000, 200), True),
    12: (U(100, 500), N(4000, 200), True), 13: (U(100, 500), N(4000, 1000), True),
    14: (U(100, 500), D(1000), True), 15: (U(100, 500), D(6000), True),
    16: (N(6000, 200), U(200, 1000), True), 17: (N(6000, 200), U(300, 3000), True),
    18: (U(300, 3000), N(4000, 2000), True), 19: (U(100, 2000), N(6000, 2000), True),
    20: (U(300, 3000), N(6000, 200), False), 21: (U(300, 3000), N(4000, 200), False),
    22: (U(200, 1000), N(6000, 200), False), 23: (U(100, 2000), N(6000, 200), False),
    24: (U(100, 500), N(4000, 200), False), 25: (U(100, 500), D(6000), False),
    26: (N(6000, 200), U(200, 1000), False), 27: (N(6000, 200), U(300, 3000), False),
    28: (U(100, 300), N(3000, 300), False), 29: (U(100, 1000), N(3000, 300), False),
}
TRACE_ALGS = ["idc", "pcocoa"]
TRACE_SRC = "Makarem et al., Computer Networks 207 (2022) (seed 001), §6.1, Table 1, Figs. 14–21; testbeds.md §3"
TRACE_NOTE = ("\n# RTT-trace model (testbeds.md §3): each sample is one transmission; RTO < RTT counts one spurious\n"
              "# transmission, then the estimator takes the sample. `idc` stands for the Makarem estimator\n"
              "# (IDC- and MBC-CoAP share it: α 1/8, γ 1/32, K 4/7); `pcocoa` for pCoCoA's estimator.\n"
              "# Spikes: 5 samples of 10 s at random positions in every block of 1 000 [D positions].\n")
def trace_file(row, first, second, spikes, extra=""):
    name = f"makarem/rtt-trace/row-{row:02d}"
    desc = f"Makarem Table 1 row {row}."
    body = (header(name, desc, TRACE_SRC, 1, 10, TRACE_ALGS) + TRACE_NOTE
            + f"[trace]\nrow = {row}\nsamples = 100000\nperiod = 100\nfirst = {first}\n")
    if second:
        body += f"second = {second}\n"
    body += f"spikes = {'true' if spikes else 'false'}\n" + extra
    write(name + ".toml", body)

trace_file(1, '{ dist = "pareto", shape = 4.0, scale_ms = 1000 }', None, False)
trace_file(2, '{ dist = "wan", base_ms = 270, jitter_median_ms = 8, jitter_sigma = 0.8, episode_prob = 0.002, episode_len = 50, episode_extra_ms = 150 }',
           None, False,
           'substituted = "The published row used an unpublished Paris–Auckland RTT trace; this synthetic WAN trace (270 ms base, log-normal jitter with 8 ms median, 150 ms congestion episodes) stands in for it."\n')
trace_file(3, '{ dist = "wan", base_ms = 12, jitter_median_ms = 2, jitter_sigma = 1.0, episode_prob = 0.002, episode_len = 50, episode_extra_ms = 30 }',
           None, False,
           'substituted = "The published row used an unpublished Paris–Rennes RTT trace; this synthetic WAN trace (12 ms base, log-normal jitter with 2 ms median, 30 ms congestion episodes) stands in for it."\n')
for row, (first, second, spikes) in ROWS.items():
    trace_file(row, first, second, spikes)
print("scenarios written under", os.path.normpath(ROOT))
