"""How a sweep on a cluster packs its jobs into tasks (coapcc._batch), against arithmetic
worked by hand."""

from __future__ import annotations

import doctest
import random

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


def test_jobs_of_half_a_millisecond_are_packed_into_ten_tasks_of_200():
    # 2 000 jobs × 0.5 ms = 1 s; a thread's share, 0.5 s, holds 5 tasks of 0.1 s: 2 × 5 tasks of
    # 200 jobs (every job's middle is 0.25 ms from a boundary, so rounding cannot move one).
    tasks = _batch.by_cost([0.0005] * 2000, 0.1, 2)
    assert covers_in_order(tasks, 2000) and [len(t) for t in tasks] == [200] * 10


def test_a_short_sweep_is_cut_into_four_tasks_per_thread_rather_than_one():
    # 40 jobs × 1 ms = 40 ms over 2 threads: under one 0.1 s task per thread, so 4 tasks per
    # thread, 8 tasks of 5 ms, 5 jobs each.
    tasks = _batch.by_cost([0.001] * 40, 0.1, 2)
    assert covers_in_order(tasks, 40) and [len(t) for t in tasks] == [5] * 8


def test_jobs_longer_than_the_target_run_one_per_task_and_costlier_points_get_fewer_jobs():
    assert _batch.by_cost([0.5, 0.5, 0.5], 0.1, 1) == [range(0, 1), range(1, 2), range(2, 3)]
    # Costs exact in binary: 8 jobs of 1/32 s then 6 of 1/8 s, 1 s in all, which holds 4 tasks
    # of 0.25 s: the 8 cheap jobs, then 2 per task.
    tasks = _batch.by_cost([0.03125] * 8 + [0.125] * 6, 0.25, 1)
    assert [len(t) for t in tasks] == [8, 2, 2, 2]


def test_points_of_different_costs_are_cut_into_tasks_of_equal_cost_as_many_as_a_multiple_of_the_threads():
    # Point A: 32 jobs of 1/64 s, B: 16 of 1/16 s, C: 32 of 1/64 s; 2 s in all, 1 s per thread,
    # which holds 8 tasks of 1/8 s: 16 tasks, 8 cheap jobs or 2 costly ones each.
    costs = [1 / 64] * 32 + [1 / 16] * 16 + [1 / 64] * 32
    tasks = _batch.by_cost(costs, 1 / 8, 2)
    assert covers_in_order(tasks, 80) and [len(t) for t in tasks] == [8] * 4 + [2] * 8 + [8] * 4


def test_an_odd_number_of_targets_is_spread_over_an_even_number_of_tasks_so_two_workers_end_together():
    # 22 jobs of 1/16 s = 1.375 s, 11 tasks of 1/8 s; 2 threads, so 2 × ⌊1.375 / 0.25⌋ = 10
    # tasks of 0.1375 s each (none under 1/8 s): job j (middle at (j + 1/2) / 16 s) goes to task
    # ⌊(j + 1/2) / 16 / 0.1375⌋ = ⌊5 (2j + 1) / 22⌋: jobs 0–1, 2–3, 4–6, 7–8, 9–10, 11–12,
    # 13–14, 15–17, 18–19, 20–21.
    tasks = _batch.by_cost([1 / 16] * 22, 1 / 8, 2)
    assert [len(t) for t in tasks] == [2, 2, 3, 2, 2, 2, 2, 3, 2, 2] and covers_in_order(tasks, 22)
    # With a thread more: 3 × ⌊1.375 / 0.375⌋ = 9 tasks (3 per thread) … but at least 4 per
    # thread: 12 tasks of 1.375 / 12 s, 22 jobs over 12 tasks of 1 or 2 jobs.
    three = _batch.by_cost([1 / 16] * 22, 1 / 8, 3)
    assert len(three) == 12 and covers_in_order(three, 22) and {len(t) for t in three} == {1, 2}


def test_tasks_of_uneven_jobs_are_each_their_share_to_within_one_job_and_never_under_batch_s_less_a_job():
    # 20 points of 100 jobs, a point's jobs costing 0.2–1.6 ms ± 10 % (as the benchmark's grid):
    # 1.59 s in all, which over 2 threads holds 7 tasks of 0.1 s per thread: 14 tasks of 0.114 s.
    rng = random.Random(7)
    costs = [c for p in range(20) for c in [0.0002 * (1 + p % 8) * rng.uniform(0.9, 1.1)] * 100]
    total, worst = sum(costs), max(costs)
    tasks = _batch.by_cost(costs, 0.1, 2)
    n = 14
    assert 1.5 < total < 1.6 and covers_in_order(tasks, 2000) and len(tasks) == n
    for t in tasks:
        cost = sum(costs[k] for k in t)
        assert abs(cost - total / n) <= worst and cost >= 0.1 - worst


def test_no_jobs_make_no_tasks():
    assert _batch.by_cost([], 0.1, 2) == []


def test_a_point_not_probed_is_estimated_at_the_probes_mean():
    assert _batch.estimates({0: 0.002, 2: 0.004}, 4) == [0.002, 0.003, 0.004, 0.003]


def test_the_overhead_per_task_is_the_idle_worker_time_over_the_tasks():
    # 2 threads for 1.5 s = 3 s of worker time, 2.9 s computing, 10 tasks: 10 ms each.
    st = _batch.stats(100, 2.0, tasks=10, threads=2, cluster_s=1.5, compute_s=2.9)
    assert st["overhead_ms"] == pytest.approx(10.0) and st["jobs_per_s"] == 50 and st["jobs_per_task"] == 10
    assert _batch.stats(100, 2.0)["overhead_ms"] is None


def test_the_examples_in_the_packing_module_hold():
    assert doctest.testmod(_batch).failed == 0
