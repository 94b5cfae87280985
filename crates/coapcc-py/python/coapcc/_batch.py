"""How a sweep on a cluster packs its jobs into tasks, and what it reports about the run.

A job is one (point, algorithm, replication); a task is a run of consecutive jobs in the
sweep's order. Small jobs are packed so that a task takes about ``batch_s`` seconds of
computing, since a Dask task costs a few milliseconds of scheduling and transfer whatever it
does. Packing changes only where and with what a job runs, never its output (a job's streams
are seeded by (seed, replication, stream)), so the outputs, put back in job order, are the
same as unpacked.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

TASKS_PER_THREAD = 4
"""A sweep is cut into at least this many tasks per worker thread when its estimated total
allows (a short sweep gives shorter tasks rather than idle workers; a lost worker's share,
run again elsewhere, stays small)."""


def fixed(jobs: int, per_task: int) -> List[range]:
    """``jobs`` jobs in tasks of ``per_task`` consecutive jobs (the last may be shorter).

    >>> fixed(5, 2)
    [range(0, 2), range(2, 4), range(4, 5)]
    """
    if per_task < 1:
        raise ValueError(f"bad batch_jobs {per_task}: expected at least 1 job per task")
    return [range(i, min(i + per_task, jobs)) for i in range(0, jobs, per_task)]


def by_cost(costs_s: Sequence[float], batch_s: float, threads: int) -> List[range]:
    """Consecutive jobs packed into tasks: a task ends once its jobs' estimated costs add up to
    the target, ``batch_s`` or, when smaller, the total over ``TASKS_PER_THREAD × threads``
    tasks; the last task takes what is left.

    >>> [len(t) for t in by_cost([0.03] * 40, 0.1, 1)]
    [4, 4, 4, 4, 4, 4, 4, 4, 4, 4]
    >>> by_cost([0.5, 0.5, 0.5], 0.1, 2)
    [range(0, 1), range(1, 2), range(2, 3)]
    """
    total = sum(costs_s)
    target = min(batch_s, total / (TASKS_PER_THREAD * max(threads, 1)))
    tasks: List[range] = []
    start, acc = 0, 0.0
    for i, c in enumerate(costs_s):
        acc += c
        if acc >= target:
            tasks.append(range(start, i + 1))
            start, acc = i + 1, 0.0
    if start < len(costs_s):
        tasks.append(range(start, len(costs_s)))
    return tasks


def estimates(probed_s: Dict[int, float], points: int) -> List[float]:
    """A job's estimated cost per point: the point's probe, or for a point not probed the mean
    of the probes.

    >>> estimates({0: 0.002, 1: 0.004}, 3)
    [0.002, 0.004, 0.003]
    """
    mean = sum(probed_s.values()) / len(probed_s)
    return [probed_s.get(i, mean) for i in range(points)]


def stats(
    jobs: int,
    wall_s: float,
    tasks: Optional[int] = None,
    threads: Optional[int] = None,
    cluster_s: Optional[float] = None,
    compute_s: Optional[float] = None,
    probe_s: float = 0.0,
) -> Dict[str, Optional[float]]:
    """A sweep's throughput and overhead (:attr:`coapcc.SweepResult.stats`): ``overhead_ms`` is
    the worker time per task not spent computing jobs,
    ``(cluster_s × threads − compute_s) / tasks``, in milliseconds; None where not measured.

    >>> round(stats(100, 2.0, tasks=10, threads=2, cluster_s=1.5, compute_s=2.9)["overhead_ms"], 9)
    10.0
    """
    overhead_ms = None
    if tasks and threads and cluster_s is not None and compute_s is not None:
        overhead_ms = (cluster_s * threads - compute_s) / tasks * 1e3
    return {
        "jobs": jobs,
        "tasks": tasks,
        "threads": threads,
        "jobs_per_task": jobs / tasks if tasks else None,
        "wall_s": wall_s,
        "jobs_per_s": jobs / wall_s if wall_s > 0 else None,
        "probe_s": probe_s,
        "cluster_s": cluster_s,
        "compute_s": compute_s,
        "overhead_ms": overhead_ms,
    }
