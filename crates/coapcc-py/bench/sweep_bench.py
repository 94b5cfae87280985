"""Measures a 2 000-task sweep: tasks per second on a Dask LocalCluster of 1 and of 2 worker
processes (one thread each), the scaling efficiency, and the overhead per task compared with
the same replications in one ``coapcc sim --sweep`` call (``--jobs 1`` and ``--jobs 2``).

    python crates/coapcc-py/bench/sweep_bench.py [--coapcc target/ci/coapcc]

Run from the repository root. 20 points (flows × buffer) × 2 algorithms × 50 replications of
``scenarios/fasor/10-flows-high-errors-random.toml``. Prints one line per measurement and a
Markdown table.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time

import coapcc

SCENARIO = "scenarios/fasor/10-flows-high-errors-random.toml"
GRID = {"flows": [5, 10, 15, 20], "buffer_bytes": [1250, 2500, 5000, 10000, 20000]}
ALGORITHMS = ["cocoa", "fasor"]
REPLICATIONS = 50
TASKS = 4 * 5 * len(ALGORITHMS) * REPLICATIONS


def cli(binary: str, jobs: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "sim", SCENARIO, "--replications", str(REPLICATIONS), "--quiet", "--out", out, "--jobs", str(jobs)]
        cmd += [a for n in ALGORITHMS for a in ("-a", n)]
        cmd += ["--sweep", "flows=" + ",".join(map(str, GRID["flows"]))]
        cmd += ["--sweep", "buffer_bytes=" + ",".join(map(str, GRID["buffer_bytes"]))]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t


def on_cluster(workers: int) -> float:
    from dask.distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=workers, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as c, Client(c) as client:
        client.run(lambda: __import__("coapcc"))  # imported before the clock starts
        t = time.perf_counter()
        coapcc.sweep(SCENARIO, grid=GRID, algorithms=ALGORITHMS, replications=REPLICATIONS, client=client)
        return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--coapcc", default="target/ci/coapcc")
    args = p.parse_args()
    rows = []
    for jobs in (1, 2):
        rows.append((f"coapcc sim --sweep --jobs {jobs}", cli(args.coapcc, jobs)))
    t = time.perf_counter()
    coapcc.sweep(SCENARIO, grid=GRID, algorithms=ALGORITHMS, replications=REPLICATIONS, jobs=2)
    rows.append(("coapcc.sweep, client=None (2 threads)", time.perf_counter() - t))
    for w in (1, 2):
        rows.append((f"coapcc.sweep on LocalCluster, {w} worker process(es)", on_cluster(w)))
    for name, s in rows:
        print(f"{name}: {s:.2f} s, {TASKS / s:.0f} tasks/s", flush=True)
    d1, d2 = rows[3][1], rows[4][1]
    print(f"scaling efficiency 1 -> 2 workers: {d1 / d2 / 2:.0%}")
    print(f"overhead per task vs coapcc sim (1 worker vs --jobs 1): {(d1 - rows[0][1]) / TASKS * 1e3:.2f} ms")
    print(f"overhead per task vs coapcc sim (2 workers vs --jobs 2): {(d2 - rows[1][1]) / TASKS * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
