"""Sweeps give the same result through the CLI, locally, and on a Dask cluster (also when a
worker process is killed in the middle)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

import coapcc
from conftest import run_cli

ERRORS = "scenarios/fasor/10-flows-high-errors-random.toml"
GRID = {"workload.flows": [4, 8], "buffer_bytes": [2500, 5000]}
CLI_SWEEP = ["--sweep", "workload.flows=4,8", "--sweep", "buffer_bytes=2500,5000"]
RUN = dict(algorithms=["cocoa", "fasor"], replications=3, seed=5)
CLI_RUN = ["-a", "cocoa", "-a", "fasor", "--replications", "3", "--seed", "5"]


@pytest.fixture(scope="module")
def cli_sweep(coapcc_bin, tmp_path_factory):
    """``coapcc sim --sweep``'s output folder."""
    out = tmp_path_factory.mktemp("cli")
    run_cli(coapcc_bin, "sim", ERRORS, *CLI_RUN, *CLI_SWEEP, "--quiet", "--out", str(out))
    return out


@pytest.fixture(scope="module")
def local():
    return coapcc.sweep(ERRORS, grid=GRID, **RUN)


def test_points_vary_the_last_key_fastest():
    assert coapcc._sweep.points({"a": [1, 2], "b": ["x", "y"]}) == [
        (("a", 1), ("b", "x")),
        (("a", 1), ("b", "y")),
        (("a", 2), ("b", "x")),
        (("a", 2), ("b", "y")),
    ]


def test_a_local_sweep_writes_the_cli_files_byte_for_byte(cli_sweep, local, tmp_path):
    local.save(tmp_path)
    assert (tmp_path / "sweep.csv").read_bytes() == (cli_sweep / "sweep.csv").read_bytes()
    cli_files = sorted(str(p.relative_to(cli_sweep)) for p in cli_sweep.rglob("*") if p.is_file())
    py_files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    # sweep.csv and run.json, then per point (4) its four result files, run.json and its finished piece.
    assert py_files == cli_files and len(cli_files) == 2 + 4 * 6
    for rel in [f for f in cli_files if not f.endswith("run.json")]:  # the date and the command differ
        assert (tmp_path / rel).read_bytes() == (cli_sweep / rel).read_bytes(), rel


def test_the_frame_has_a_row_per_point_and_algorithm_in_order(local):
    f = local.frame
    assert list(f.columns[:3]) == ["workload.flows", "buffer_bytes", "algorithm"]
    assert f[["workload.flows", "buffer_bytes", "algorithm"]].values.tolist() == [
        [fl, b, a] for fl in [4, 8] for b in [2500, 5000] for a in ["cocoa", "fasor"]
    ]
    assert (f["runs"] == 3).all()


def test_python_m_coapcc_sweep_writes_the_cli_sweep_csv(cli_sweep, tmp_path):
    cmd = [sys.executable, "-m", "coapcc", "sweep", ERRORS, *CLI_RUN, *CLI_SWEEP, "--quiet", "--out", str(tmp_path)]
    subprocess.run(cmd, check=True, timeout=300)
    assert (tmp_path / "sweep.csv").read_bytes() == (cli_sweep / "sweep.csv").read_bytes()


def test_python_m_coapcc_reports_a_bad_key_as_the_cli_does(coapcc_bin, tmp_path):
    bad = ["--sweep", "workload.flowz=1,2"]
    cli = run_cli(coapcc_bin, "sim", ERRORS, *bad, "--quiet", "--out", str(tmp_path / "a"), check=False)
    py = subprocess.run(
        [sys.executable, "-m", "coapcc", "sweep", ERRORS, *bad, "--quiet", "--out", str(tmp_path / "b")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (py.returncode, py.stderr) == (cli.returncode, cli.stderr) == (2, py.stderr)
    assert "workload.flowz" in py.stderr


def test_a_sweep_on_a_local_cluster_of_two_processes_gives_the_identical_frame(cluster, local):
    _, client = cluster
    on_cluster = coapcc.sweep(ERRORS, grid=GRID, client=client, **RUN)
    pd.testing.assert_frame_equal(on_cluster.frame, local.frame, check_exact=True)
    assert on_cluster.to_csv() == local.to_csv()
    for a, b in zip(on_cluster.results, local.results):
        pd.testing.assert_frame_equal(a.flows, b.flows, check_exact=True)


JOBS = 4 * 2 * 3  # points × algorithms × replications of GRID and RUN


@pytest.mark.parametrize("batch", [dict(batch_jobs=1), dict(batch_jobs=5), dict(batch_s=0.1), dict(batch_s=None)])
def test_a_sweep_packed_into_tasks_on_a_local_cluster_gives_the_cli_sweep_csv_and_the_local_frames(
    cluster, cli_sweep, local, batch
):
    _, client = cluster
    r = coapcc.sweep(ERRORS, grid=GRID, client=client, **RUN, **batch)
    assert r.to_csv() == (cli_sweep / "sweep.csv").read_text()
    pd.testing.assert_frame_equal(r.frame, local.frame, check_exact=True)
    for a, b in zip(r.results, local.results):
        pd.testing.assert_frame_equal(a.flows, b.flows, check_exact=True)
        pd.testing.assert_frame_equal(a.runs, b.runs, check_exact=True)
    st = r.stats
    assert st["jobs"] == JOBS and st["threads"] == 2
    if batch.get("batch_jobs"):
        # ceil(24 / n) tasks of n consecutive jobs; no probe.
        assert st["tasks"] == -(-JOBS // batch["batch_jobs"]) and st["probe_s"] == 0
    elif batch.get("batch_s") is None:
        assert st["tasks"] == JOBS
    else:
        # Jobs of ~1 ms packed towards 0.1 s but at least 4 tasks per worker thread, probes run here.
        assert 1 <= st["tasks"] <= JOBS - 1 and st["probe_s"] > 0
    # The reported numbers are the documented arithmetic of the measured times.
    assert st["jobs_per_s"] == pytest.approx(JOBS / st["wall_s"])
    assert st["overhead_ms"] == pytest.approx((st["cluster_s"] * 2 - st["compute_s"]) / st["tasks"] * 1e3)
    assert 0 < st["compute_s"] <= st["cluster_s"] * 2 and st["cluster_s"] + st["probe_s"] <= st["wall_s"]


def test_a_local_sweep_reports_its_jobs_and_throughput_and_no_task_overhead(local):
    st = local.stats
    assert st["jobs"] == JOBS and st["jobs_per_s"] == pytest.approx(JOBS / st["wall_s"])
    assert st["tasks"] is None and st["overhead_ms"] is None


def test_a_packed_sweep_on_a_cluster_resumes_keeping_its_finished_points(cluster, tmp_path):
    _, client = cluster
    whole = coapcc.sweep(ERRORS, grid=GRID, out=tmp_path / "whole", **RUN)
    labels = [coapcc._sweep._label(p) for p in whole.points]
    resumed = tmp_path / "resumed"
    first = coapcc.sweep(ERRORS, grid=GRID, out=resumed, client=client, batch_jobs=5, **RUN)
    assert files_of(resumed) == files_of(tmp_path / "whole") and first.stats["tasks"] == 5
    interrupt(resumed, labels)
    again = coapcc.sweep(ERRORS, grid=GRID, out=resumed, client=client, batch_jobs=5, **RUN)
    # Two points (12 jobs) run again, in ceil(12 / 5) tasks.
    assert again.kept == len(labels) - 2 and again.stats["jobs"] == 12 and again.stats["tasks"] == 3
    assert files_of(resumed) == files_of(tmp_path / "whole")


def test_python_m_coapcc_sweep_on_a_running_scheduler_writes_the_cli_sweep_csv(cluster, cli_sweep, tmp_path):
    c, _ = cluster
    cmd = [sys.executable, "-m", "coapcc", "sweep", ERRORS, *CLI_RUN, *CLI_SWEEP]
    cmd += ["--scheduler", c.scheduler_address, "--quiet", "--out", str(tmp_path)]
    subprocess.run(cmd, check=True, timeout=300)
    assert (tmp_path / "sweep.csv").read_bytes() == (cli_sweep / "sweep.csv").read_bytes()


def test_a_worker_killed_in_the_middle_of_a_sweep_loses_nothing(cluster):
    _, client = cluster
    scenario = "scenarios/fasor/400-flows-infinite-buffer-continuous.toml"
    run = dict(algorithms=["cocoa", "fasor"], replications=12)
    grid = {"workload.flows": [200, 400, 600]}
    expected = coapcc.sweep(scenario, grid=grid, **run)
    box = {}

    def work():
        try:
            box["result"] = coapcc.sweep(scenario, grid=grid, client=client, **run)
        except BaseException as e:  # handed to the test thread
            box["error"] = e

    t = threading.Thread(target=work)
    t.start()
    # Wait until some task has finished (so the sweep is under way), then kill a worker.
    deadline = time.time() + 120
    done = 0
    while time.time() < deadline and done == 0:
        done = client.run_on_scheduler(
            lambda dask_scheduler: sum(
                1 for k, ts in dask_scheduler.tasks.items() if str(k).startswith("coapcc-task") and ts.state == "memory"
            )
        )
        time.sleep(0.02)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    assert t.is_alive(), "the sweep ended before a worker could be killed"
    os.kill(victim, signal.SIGKILL)
    t.join(timeout=300)
    assert not t.is_alive()
    assert "error" not in box, box.get("error")
    pd.testing.assert_frame_equal(box["result"].frame, expected.frame, check_exact=True)
    assert box["result"].to_csv() == expected.to_csv()
    # The cluster replaced the killed worker process.
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()


def files_of(folder):
    """Every file below ``folder`` by relative path, with its bytes (``run.json``: its keys only,
    since its date and command differ between runs)."""
    return {
        str(p.relative_to(folder)): sorted(json.loads(p.read_text())) if p.name == "run.json" else p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def interrupt(folder, labels):
    """What an interrupted sweep leaves: the last point never started (its folder and sweep.csv
    gone), the one before it stopped while writing (result files there, but only half a piece,
    which can happen only to a piece written in place and is taken as unfinished)."""
    last, before = labels[-1], labels[-2]
    for p in (folder / last).iterdir():
        p.unlink()
    (folder / last).rmdir()
    (folder / "sweep.csv").unlink()
    piece = folder / before / ".coapcc-piece"
    piece.write_bytes(piece.read_bytes()[: len(piece.read_bytes()) // 2])


def test_an_interrupted_sweep_resumes_keeping_its_finished_points_and_ends_byte_identical(tmp_path):
    whole = coapcc.sweep(ERRORS, grid=GRID, out=tmp_path / "whole", **RUN)
    assert whole.kept == 0
    labels = [coapcc._sweep._label(p) for p in whole.points]
    resumed = tmp_path / "resumed"
    coapcc.sweep(ERRORS, grid=GRID, out=resumed, **RUN)
    interrupt(resumed, labels)
    kept_pieces = [resumed / lab / ".coapcc-piece" for lab in labels[:-2]]
    mtimes = [p.stat().st_mtime_ns for p in kept_pieces]
    again = coapcc.sweep(ERRORS, grid=GRID, out=resumed, **RUN)
    assert again.kept == len(labels) - 2
    # The kept points were not run again: their pieces were neither rewritten nor replaced.
    assert [p.stat().st_mtime_ns for p in kept_pieces] == mtimes
    assert files_of(resumed) == files_of(tmp_path / "whole")
    pd.testing.assert_frame_equal(again.frame, whole.frame)
    forced = coapcc.sweep(ERRORS, grid=GRID, out=resumed, force=True, **RUN)
    assert forced.kept == 0
    assert all(p.stat().st_mtime_ns > m for p, m in zip(kept_pieces, mtimes))
    assert files_of(resumed) == files_of(tmp_path / "whole")


def test_a_kept_points_run_json_names_the_call_that_kept_it(tmp_path):
    first = coapcc.sweep(ERRORS, grid=GRID, out=tmp_path, **RUN)
    label = coapcc._sweep._label(first.points[0])
    before = json.loads((tmp_path / label / "run.json").read_text())
    # The same sweep again, called differently (jobs does not change a result): every point is kept.
    again = coapcc.sweep(ERRORS, grid=GRID, out=tmp_path, jobs=1, **RUN)
    assert again.kept == len(first.points)
    after = json.loads((tmp_path / label / "run.json").read_text())
    assert "jobs=1" in after["command"] and "jobs=1" not in before["command"], (before, after)
    assert after["command"] == json.loads((tmp_path / "run.json").read_text())["command"]


def test_a_changed_scenario_or_version_keeps_no_point(tmp_path):
    coapcc.sweep(ERRORS, grid=GRID, out=tmp_path, **RUN)
    # Another seed is another resolved scenario: nothing is kept.
    other = coapcc.sweep(ERRORS, grid=GRID, out=tmp_path, **{**RUN, "seed": 6})
    assert other.kept == 0
    piece = tmp_path / coapcc._sweep._label(other.points[0]) / ".coapcc-piece"
    data = piece.read_bytes()
    # The key is the SHA-256 of the version, the job format and the resolved TOML.
    import hashlib

    s = coapcc.Scenario.load(ERRORS).with_settings(
        [("replications", 3), ("seed", 6), ("algorithms", ["cocoa", "fasor"])] + list(other.points[0])
    )
    key = hashlib.sha256(f"coapcc {coapcc.__version__}\ncoapcc3\0\n{s.to_toml()}".encode()).hexdigest()
    assert data[14 : 14 + 64].decode() == key
    # A piece of another coapcc version is not taken.
    piece.write_bytes(data[:14] + hashlib.sha256(b"coapcc 9.9.9").hexdigest().encode() + data[78:])
    assert coapcc.sweep(ERRORS, grid=GRID, out=tmp_path, **{**RUN, "seed": 6}).kept == len(other.points) - 1


def test_the_cli_resumes_a_sweep_that_python_began_and_says_how_many_points_it_kept(coapcc_bin, cli_sweep, tmp_path):
    first = coapcc.sweep(ERRORS, grid=GRID, out=tmp_path, **RUN)
    labels = [coapcc._sweep._label(p) for p in first.points]
    interrupt(tmp_path, labels)
    cli = run_cli(coapcc_bin, "sim", ERRORS, *CLI_RUN, *CLI_SWEEP, "--out", str(tmp_path))
    assert f"kept {len(labels) - 2} sweep point(s)" in cli.stderr
    assert files_of(tmp_path) == files_of(cli_sweep)
    forced = run_cli(coapcc_bin, "sim", ERRORS, *CLI_RUN, *CLI_SWEEP, "--force", "--out", str(tmp_path))
    assert "kept" not in forced.stderr
    assert files_of(tmp_path) == files_of(cli_sweep)
