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
    """Consecutive jobs packed into tasks of equal estimated cost, as many as a multiple of
    ``threads`` so that the workers, each taking the next task as it frees, end together:
    ``threads × k`` tasks, ``k`` the number of ``batch_s`` a thread's part of the total holds
    (``⌊total / (threads × batch_s)⌋``, so a task's share, ``total / (threads × k)``, is at
    least ``batch_s``) but at least ``TASKS_PER_THREAD`` (a short sweep gets shorter tasks
    rather than idle workers), and no more tasks than jobs. A job goes to the task whose share
    of the running total holds the middle of the job, so a task's estimate is its share to
    within one job; a job costlier than a share takes its task alone (fewer tasks).

    >>> [len(t) for t in by_cost([0.0625] * 16, 0.125, 2)]
    [2, 2, 2, 2, 2, 2, 2, 2]
    >>> [len(t) for t in by_cost([0.03125] * 8 + [0.125] * 6, 0.125, 1)]
    [4, 4, 1, 1, 1, 1, 1, 1]
    >>> by_cost([0.5, 0.5, 0.5], 0.1, 2)
    [range(0, 1), range(1, 2), range(2, 3)]
    """
    if not costs_s:
        return []
    threads = max(threads, 1)
    total = sum(costs_s)
    # ⌊total / (threads × batch_s)⌋, to a part in 10⁹: a total that adds up to exactly k tasks
    # in decimal (2 000 × 0.0005 s) gives k, not k − 1, whatever the rounding of its sum.
    fits = int(total / (threads * batch_s) * (1 + 1e-9)) if batch_s > 0 else 0
    per_thread = max(TASKS_PER_THREAD, fits)
    n = min(threads * per_thread, len(costs_s))
    share = total / n
    tasks: List[range] = []
    start, before, current = 0, 0.0, 0
    for i, c in enumerate(costs_s):
        # The task holding the middle of job i; never beyond the last (rounding).
        task = min(int((before + c / 2) // share), n - 1) if share > 0 else i * n // len(costs_s)
        if task != current and i > start:
            tasks.append(range(start, i))
            start = i
        current = task
        before += c
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
