"""Measures a sweep of 2 000 small jobs (about 0.6 ms of simulation each): jobs per second
through ``coapcc sim --sweep`` on one core (``--jobs 1``) and two (``--jobs 2``), locally
(``client=None``), and on a Dask ``LocalCluster`` of 1 and of 2 worker processes (one thread
each) with batching off (one job per task) and on (``batch_s=0.1``); the efficiency of each
against two CLI cores (twice the ``--jobs 1`` rate) and against ``--jobs 2``, and the overhead
per task that ``SweepResult.stats`` reports. Every Python sweep's ``sweep.csv`` is checked
equal to the CLI's. On a shared machine the wall-clock rates move with the load, so each line
also gives the CPU seconds per job (the CLI's process; on a cluster the worker processes and
this one, which holds the client and the scheduler) and the CLI's CPU per job over it, the
efficiency the two worker processes would reach on two free cores (less idle time). With
batching on, a second line gives the run's time-line from Dask's task stream (``timeline``).

    python crates/coapcc-py/bench/sweep_bench.py [--coapcc target/ci/coapcc]

Run from the repository root. 20 points (flows × buffer) × 2 algorithms × 50 replications of
``scenarios/fasor/10-flows-high-errors-random.toml``. Prints one line per measurement.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import coapcc

SCENARIO = "scenarios/fasor/10-flows-high-errors-random.toml"
GRID = {"flows": [5, 10, 15, 20], "buffer_bytes": [1250, 2500, 5000, 10000, 20000]}
ALGORITHMS = ["cocoa", "fasor"]
REPLICATIONS = 50
JOBS = 4 * 5 * len(ALGORITHMS) * REPLICATIONS


def cli(binary: str, jobs: int) -> tuple[float, float, str]:
    """Seconds of one ``coapcc sim --sweep`` call, its CPU seconds, and its ``sweep.csv``."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "sim", SCENARIO, "--replications", str(REPLICATIONS), "--quiet", "--out", out, "--jobs", str(jobs)]
        cmd += [a for n in ALGORITHMS for a in ("-a", n)]
        cmd += ["--sweep", "flows=" + ",".join(map(str, GRID["flows"]))]
        cmd += ["--sweep", "buffer_bytes=" + ",".join(map(str, GRID["buffer_bytes"]))]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall_s = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return wall_s, cpu_s, (Path(out) / "sweep.csv").read_text()


def sweep(client: Any = None, batch_s: Optional[float] = None) -> coapcc.SweepResult:
    return coapcc.sweep(
        SCENARIO, grid=GRID, algorithms=ALGORITHMS, replications=REPLICATIONS, client=client, jobs=2, batch_s=batch_s
    )


def on_cluster(workers: int, expected_csv: str) -> Dict[str, Dict[str, Any]]:
    """``SweepResult.stats`` of the sweep on a fresh LocalCluster, batching off and on."""
    from dask.distributed import Client, LocalCluster, get_task_stream

    out = {}
    with LocalCluster(
        n_workers=workers, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as c, Client(c) as client:
        client.run(lambda: __import__("coapcc"))  # imported before the clock starts
        for name, batch_s in (("off", None), ("on", 0.1)):
            cpu = client.run(time.process_time)
            here = time.process_time()
            # The task stream is kept by the scheduler in any case; read at the end, batching on only.
            with get_task_stream(client) if batch_s else contextlib.nullcontext() as stream:
                start = time.time()
                r = sweep(client, batch_s)
                end = time.time()
                cpu_s = time.process_time() - here + sum(v - cpu[w] for w, v in client.run(time.process_time).items())
            assert r.to_csv() == expected_csv, f"{workers} worker(s), batching {name}: sweep.csv differs from the CLI's"
            out[name] = dict(r.stats, cpu_s=cpu_s, timeline=timeline(stream.data, start, end) if batch_s else None)
    return out


def timeline(tasks: List[Dict[str, Any]], start: float, end: float) -> str:
    """Where a sweep's wall time went, from Dask's task stream (each task's compute start and
    stop on its worker, in the same clock as ``start`` and ``end``, the call's): from the call to
    the first task starting (checks, probes, submission), each worker's first start, last end
    and time computing (its tasks' seconds, so ``span − computing`` is its idle time between
    tasks), and from the last task's end to the call's return (the last outputs fetched and
    summarised, the frame built)."""
    spans: Dict[str, List[Tuple[float, float]]] = {}
    for t in tasks:
        for s in t["startstops"]:
            if s["action"] == "compute":
                spans.setdefault(t["worker"], []).append((s["start"], s["stop"]))
    first = min(a for v in spans.values() for a, _ in v)
    last = max(b for v in spans.values() for _, b in v)
    ms = lambda x: f"{x * 1e3:.0f}"  # noqa: E731
    workers = ", ".join(
        f"{len(v)} tasks from +{ms(min(a for a, _ in v) - start)} to +{ms(max(b for _, b in v) - start)} ms, "
        f"{ms(sum(b - a for a, b in v))} ms computing"
        for _, v in sorted(spans.items())
    )
    return f"call to first task {ms(first - start)} ms; {workers}; last task end to return {ms(end - last)} ms"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--coapcc", default="target/ci/coapcc")
    args = p.parse_args()
    one_s, one_cpu_s, csv = cli(args.coapcc, 1)
    two_s, two_cpu_s, csv2 = cli(args.coapcc, 2)
    assert csv2 == csv
    two_cores = 2 * JOBS / one_s
    rows = [("coapcc sim --sweep --jobs 1", JOBS / one_s, one_cpu_s, None)]
    rows.append(("coapcc sim --sweep --jobs 2", JOBS / two_s, two_cpu_s, None))
    here = time.process_time()
    local = sweep()
    assert local.to_csv() == csv
    rows.append(("coapcc.sweep, client=None (2 threads)", local.stats["jobs_per_s"], time.process_time() - here, None))
    for workers in (1, 2):
        for name, stats in on_cluster(workers, csv).items():
            rows.append((f"LocalCluster {workers} worker(s), batching {name}", stats["jobs_per_s"], stats["cpu_s"], stats))
    for name, rate, cpu_s, stats in rows:
        line = f"{name}: {rate:.0f} jobs/s, {rate / two_cores:.0%} of two CLI cores, {rate * two_s / JOBS:.0%} of --jobs 2"
        line += f"; CPU {cpu_s / JOBS * 1e3:.2f} ms/job, CLI's CPU/job over it {one_cpu_s / cpu_s:.0%}"
        if stats:
            line += f"; {stats['tasks']} tasks, overhead {stats['overhead_ms']:.2f} ms/task, probe {stats['probe_s'] * 1e3:.0f} ms"
            if stats["timeline"]:
                line += f"\n  time-line (wall {stats['wall_s'] * 1e3:.0f} ms): {stats['timeline']}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
