"""Hostile arguments to ``coapcc.sim``, ``coapcc.sweep`` and ``python -m coapcc sweep``: the
worker-thread count, the algorithm list, the largest seed, scenario names that would leave the
output folder, a key swept twice and an output folder that cannot be written. Each is refused
before anything runs (``ValueError``/``ScenarioError``, exit code 2) or taken as documented,
as ``coapcc sim`` does."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

import coapcc
from conftest import REPO, run_cli

SMALL = "scenarios/crosscheck/smallest.toml"
MAX_SEED = 2**64 - 1


def test_jobs_outside_1_to_1024_is_a_value_error_before_any_run():
    for jobs in [0, 1025, 10**6]:
        with pytest.raises(ValueError, match="from 1 to 1024"):
            coapcc.sim(SMALL, replications=1, jobs=jobs)
        with pytest.raises(ValueError, match="from 1 to 1024"):
            coapcc.sweep(SMALL, grid={"flows": [1, 2]}, replications=1, jobs=jobs)
    assert len(coapcc.sim(SMALL, replications=1, jobs=1024).runs) == 1


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_run_starts_no_more_threads_than_it_has_runs_whatever_jobs_asks():
    before = len(os.listdir("/proc/self/task"))
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], len(os.listdir("/proc/self/task")))

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        # Two runs, long enough to be sampled while they run.
        coapcc.sim(SMALL, replications=2, jobs=1000, set={"flows": 200, "exchanges_per_flow": 50})
    finally:
        done.set()
        sampler.join()
    # The sampler, the two workers and the thread that waits for them (the runner's own).
    assert peak[0] - before <= 4, f"{peak[0] - before} threads more for 2 runs with jobs=1000"


def test_one_algorithm_name_is_one_algorithm_not_its_letters():
    r = coapcc.sim(SMALL, algorithms="cocoa", replications=1)
    assert list(r.summary.algorithm) == ["cocoa"]
    s = coapcc.sweep(SMALL, grid={"flows": [1]}, algorithms="cocoa", replications=1)
    assert list(s.frame.algorithm) == ["cocoa"]


def test_an_empty_algorithm_list_is_a_value_error_not_the_scenarios_list():
    for algorithms in ([], ()):
        with pytest.raises(ValueError, match="algorithms"):
            coapcc.sim(SMALL, algorithms=algorithms, replications=1)
        with pytest.raises(ValueError, match="algorithms"):
            coapcc.sweep(SMALL, grid={"flows": [1]}, algorithms=algorithms, replications=1)
    assert coapcc.sim(SMALL, algorithms=None, replications=1).scenario.algorithms == coapcc.Scenario.load(SMALL).algorithms


def test_an_algorithm_listed_twice_is_a_scenario_error_with_the_cli_message(coapcc_bin):
    cli = run_cli(coapcc_bin, "sim", SMALL, "-a", "default", "-a", "default", "--quiet", check=False)
    assert cli.returncode == 2
    with pytest.raises(coapcc.ScenarioError) as e:
        coapcc.sim(SMALL, algorithms=["default", "default"], replications=1)
    assert "`default` is listed twice" in str(e.value)
    assert cli.stderr.strip() == f"error: {e.value}"


def test_the_largest_seed_runs_and_gives_the_clis_files(coapcc_bin, tmp_path):
    r = coapcc.sim(SMALL, seed=MAX_SEED, replications=2)
    assert r.scenario.seed == MAX_SEED
    run_cli(coapcc_bin, "sim", SMALL, "--seed", str(MAX_SEED), "--replications", "2", "--out", str(tmp_path), "-q")
    for name, text in r._output.files(False):
        assert (tmp_path / name).read_text() == text, name
    assert f'seed = "{MAX_SEED}"' in r.scenario.to_toml()
    assert coapcc.sim(SMALL, set={"seed": MAX_SEED}, replications=2).runs.equals(r.runs)
    with pytest.raises(coapcc.ScenarioError, match="seed"):
        coapcc.sim(SMALL, seed=-1)


def _keyed(**fields):
    """A two-flow network scenario built from keys, as ``Scenario(name, **fields)`` takes them."""
    return coapcc.Scenario(
        "t/keyed",
        algorithms=["default"],
        network={"nbiot": {"buffer_bytes": 2500, "errors": "none"}},
        workload={"flows": 2, "flow_type": "continuous"},
        **fields,
    )


def test_every_seed_argument_takes_0_to_2_64_minus_1_and_refuses_others_with_a_value_error_naming_the_seed():
    # The edges of u64 and of TOML's signed 64-bit integers, as `--seed` takes them.
    for seed in [0, 2**63 - 1, 2**63, MAX_SEED]:
        assert _keyed(seed=seed).seed == seed
        assert _keyed().set("seed", seed).seed == seed
    keyed = coapcc.sim(_keyed(seed=MAX_SEED), replications=1)
    assert keyed.runs.equals(coapcc.sim(_keyed(), seed=MAX_SEED, replications=1).runs)
    assert len(coapcc.replay("default", "send\nwait 100\nack\n", seed=MAX_SEED)) == 2
    for seed in [-1, -(2**64), 2**64, 2**100]:
        for make in [
            lambda: _keyed(seed=seed),
            lambda: _keyed().set("seed", seed),
            lambda: coapcc.sim(SMALL, seed=seed, replications=1),
            lambda: coapcc.sweep(SMALL, grid={"flows": [1, 2]}, seed=seed, replications=1),
        ]:
            with pytest.raises(coapcc.ScenarioError, match="seed"):
                make()
        with pytest.raises(ValueError, match="seed"):
            coapcc.replay("default", "send\n", seed=seed)


def test_a_name_that_leaves_the_output_folder_is_a_scenario_error_naming_the_key():
    for name in ["../../escaped", "/tmp/escaped", "a/../../b"]:
        with pytest.raises(coapcc.ScenarioError, match="key `name`"):
            coapcc.Scenario.load(SMALL).set("name", name)
        with pytest.raises(coapcc.ScenarioError, match="key `name`"):
            coapcc.sim(SMALL, set={"name": name})


def _module_cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "coapcc", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_the_module_cli_refuses_a_key_swept_twice_and_an_unwritable_out_before_running(tmp_path):
    scenario = str(REPO / SMALL)
    twice = _module_cli("sweep", scenario, "--sweep", "flows=1,2", "--sweep", "flows=3", "--out", "o", cwd=tmp_path)
    assert twice.returncode == 2, twice.stderr
    assert "`flows` is swept twice" in twice.stderr and twice.stdout == ""
    assert not (tmp_path / "o").exists()
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for out in [a_file, a_file / "below"]:
        p = _module_cli("sweep", scenario, "--sweep", "flows=1,2", "--out", str(out), cwd=tmp_path)
        assert p.returncode == 2, p.stderr
        assert str(out) in p.stderr and p.stdout == ""


def test_the_module_cli_leaves_no_folder_its_check_created_when_the_run_then_fails(tmp_path):
    """As `coapcc sim`: a run refused after the output check (here a sweep point that does not
    check: `flows=0`) removes the folders the check created, and only those."""
    scenario = str(REPO / SMALL)
    bad = ["sweep", scenario, "--sweep", "flows=1,0", "--replications", "1", "-q"]
    p = _module_cli(*bad, "--out", "new/nested", cwd=tmp_path)
    assert p.returncode == 2 and "flows" in p.stderr, p.stderr
    assert not (tmp_path / "new").exists(), sorted(tmp_path.rglob("*"))
    # The default output folder (`results/<scenario name>/`) is not left behind either.
    p = _module_cli(*bad, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert not (tmp_path / "results").exists(), sorted(tmp_path.rglob("*"))
    # A folder that existed stays, even empty.
    (tmp_path / "kept").mkdir()
    p = _module_cli(*bad, "--out", "kept/inner", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert sorted(tmp_path.rglob("*")) == [tmp_path / "kept"]
    # A run that succeeds keeps them.
    p = _module_cli("sweep", scenario, "--sweep", "flows=1", "--replications", "1", "-q", "--out", "ok/nested", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "ok/nested/sweep.csv").is_file()
