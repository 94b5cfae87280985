"""How a sweep on a cluster packs its jobs into tasks (coapcc._batch), against arithmetic
worked by hand."""

from __future__ import annotations

import pytest

from coapcc import _batch


def covers_in_order(tasks, jobs):
    return [j for t in tasks for j in t] == list(range(jobs))


def test_fixed_packing_gives_ceil_jobs_over_n_tasks_of_n_consecutive_jobs():
    tasks = _batch.fixed(2000, 7)
    assert len(tasks) == 286 and covers_in_order(tasks, 2000)  # 285 × 7 + 5
    assert [len(t) for t in tasks[:-1]] == [7] * 285 and len(tasks[-1]) == 5
    with pytest.raises(ValueError, match="batch_jobs 0"):
        _batch.fixed(10, 0)


def test_jobs_of_half_a_millisecond_are_packed_into_tasks_of_200():
    # 2 000 jobs × 0.5 ms = 1 s; 2 threads × 4 tasks at 0.1 s each is under it, so the target is 0.1 s.
    tasks = _batch.by_cost([0.0005] * 2000, 0.1, 2)
    assert covers_in_order(tasks, 2000)
    assert all(199 <= len(t) <= 201 for t in tasks[:-1]) and 9 <= len(tasks) <= 11


def test_a_short_sweep_is_cut_into_four_tasks_per_thread_rather_than_one():
    # 40 jobs × 1 ms = 40 ms over 2 threads: target 40 / 8 = 5 ms, 5 jobs per task.
    tasks = _batch.by_cost([0.001] * 40, 0.1, 2)
    assert covers_in_order(tasks, 40) and 7 <= len(tasks) <= 9 and all(len(t) <= 6 for t in tasks)


def test_jobs_longer_than_the_target_run_one_per_task_and_costlier_points_get_fewer_jobs():
    assert _batch.by_cost([0.5, 0.5, 0.5], 0.1, 1) == [range(0, 1), range(1, 2), range(2, 3)]
    # Costs exact in binary: 8 jobs of 1/32 s then 6 of 1/8 s, 1 s in all, so the target is
    # min(0.25, 1 / 4) = 0.25 s: the 8 cheap jobs, then 2 per task.
    tasks = _batch.by_cost([0.03125] * 8 + [0.125] * 6, 0.25, 1)
    assert [len(t) for t in tasks] == [8, 2, 2, 2]


def test_a_point_not_probed_is_estimated_at_the_probes_mean():
    assert _batch.estimates({0: 0.002, 2: 0.004}, 4) == [0.002, 0.003, 0.004, 0.003]


def test_the_overhead_per_task_is_the_idle_worker_time_over_the_tasks():
    # 2 threads for 1.5 s = 3 s of worker time, 2.9 s computing, 10 tasks: 10 ms each.
    st = _batch.stats(100, 2.0, tasks=10, threads=2, cluster_s=1.5, compute_s=2.9)
    assert st["overhead_ms"] == pytest.approx(10.0) and st["jobs_per_s"] == 50 and st["jobs_per_task"] == 10
    assert _batch.stats(100, 2.0)["overhead_ms"] is None
