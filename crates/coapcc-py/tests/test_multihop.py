"""Multihop scenarios (a ``[multihop]`` table) from Python: the CLI's files byte for byte,
typed frames with the CSV's values, Ctrl-C, and sweeps identical through the CLI, locally and
on a Dask ``LocalCluster``."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

import coapcc
from conftest import run_cli

LIM = "scenarios/lim/e1-nullrdc-4x4.toml"
BETZLER = "scenarios/betzler/1-to-1-no-rdc.toml"
MAKAREM = "scenarios/makarem-cooja/chain.toml"
FILES = ["flows.csv", "nodes.csv", "runs.csv", "scenario.toml", "summary.csv"]

# A multihop sweep: Lim's 4 × 4 NullRDC grid with and without 10 % frame loss.
SWEEP_GRID = {"multihop.udgm.success_ratio_tx": [1, 0.9]}
CLI_SWEEP = ["--sweep", "multihop.udgm.success_ratio_tx=1,0.9"]
SWEEP_RUN = dict(algorithms=["uip", "lim"], replications=3, seed=4)
CLI_SWEEP_RUN = ["-a", "uip", "-a", "lim", "--replications", "3", "--seed", "4"]


@pytest.mark.parametrize(
    "path, settings",
    [
        (LIM, [("multihop.csma.queuebuf_num", 4)]),
        (BETZLER, []),
        (MAKAREM, [("multihop.duration_ms", 60000)]),
    ],
)
def test_a_multihop_sim_saves_the_cli_files_byte_for_byte(coapcc_bin, tmp_path, path, settings):
    cli_set = [a for k, v in settings for a in ("--set", f"{k}={v}")]
    run_cli(coapcc_bin, "sim", path, *cli_set, "--replications", "3", "--seed", "7", "--quiet", "--out", str(tmp_path / "cli"))
    r = coapcc.sim(path, replications=3, seed=7, jobs=2, set=dict(settings))
    assert r.kind == "multihop" and isinstance(r, coapcc.SimResult)
    r.save(tmp_path / "py")
    names = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert names == sorted(FILES + ["run.json"]) == sorted(p.name for p in (tmp_path / "py").iterdir())
    for n in [n for n in names if n != "run.json"]:  # run.json: the date and the command differ
        assert (tmp_path / "py" / n).read_bytes() == (tmp_path / "cli" / n).read_bytes(), (path, n)


def test_the_nb_iot_result_keeps_its_api_and_says_its_kind():
    r = coapcc.sim("scenarios/fasor/10-flows-high-errors-random.toml", replications=1)
    assert isinstance(r, coapcc.SimResult) and r.kind == "network"
    assert r.series is None or len(r.series) > 0
    assert r.nodes is None, "a network scenario has no motes"


def test_a_multihop_result_is_the_one_result_type_with_nodes_and_no_network_tables(lim):
    assert type(lim) is coapcc.SimResult and lim.kind == "multihop"
    assert lim.samples is None and lim.series is None
    assert len(lim.nodes) > 0 and len(lim.flows) > 0


def test_the_old_multihop_result_name_still_works_with_a_deprecation_warning(lim):
    with pytest.warns(DeprecationWarning, match="MultihopResult is deprecated"):
        old = coapcc.MultihopResult
    assert old is coapcc.SimResult and isinstance(lim, old)


@pytest.fixture(scope="module")
def lim_cli(coapcc_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("lim-cli")
    run_cli(coapcc_bin, "sim", LIM, "--replications", "2", "--quiet", "--out", str(out))
    return out


@pytest.fixture(scope="module")
def lim():
    return coapcc.sim(LIM, replications=2)


def _same_values(got: pd.Series, cli: pd.Series, where: str) -> None:
    """The frame's column holds the CSV column's values, in the type its kind asks for."""
    text = cli.tolist()
    if got.dtype == "UInt64":  # nullable count: empty in the CSV
        assert [("" if pd.isna(x) else str(int(x))) for x in got] == text, where
    elif got.dtype.kind == "u":
        assert [str(x) for x in got] == text, where
    elif got.dtype.kind == "f":
        # Full precision: the CSV's shortest round-trip text reads back to the very double.
        want = np.array([float(t) if t else math.nan for t in text])
        assert np.array_equal(got.to_numpy(), want, equal_nan=True), where
    elif got.dtype.kind == "b":
        assert [str(x).lower() for x in got] == text, where
    else:
        assert got.astype(str).tolist() == text, where


@pytest.mark.parametrize("name", ["runs", "flows", "nodes", "summary"])
def test_multihop_frames_are_typed_and_hold_the_csv_values(lim, lim_cli, name):
    cli = pd.read_csv(lim_cli / f"{name}.csv", dtype=str, keep_default_na=False)
    got = getattr(lim, name)
    assert list(got.columns) == list(cli.columns)
    assert len(got) == len(cli) > 0
    for col in cli.columns:
        _same_values(got[col], cli[col], f"{name}.{col}")


def test_counts_are_integers_measurements_floats_and_flags_booleans(lim):
    runs, flows, nodes = lim.runs, lim.flows, lim.nodes
    assert runs.replication.dtype == "uint64" and runs.events.dtype == "uint64"
    assert runs.retransmitted_segments.dtype == "uint64"
    assert runs.goodput_bps.dtype == "float64" and runs.fairness.dtype == "float64"
    assert flows.setup_failed.dtype == bool and flows.delivered_bytes.dtype == "uint64"
    assert nodes.parent.dtype == "UInt64" and nodes.x_m.dtype == "float64"
    root = nodes.role == "border_router"
    assert nodes.parent[root].isna().all() and nodes.parent[~root].notna().all()
    assert runs.algorithm.tolist() == ["uip", "uip", "uip-dither", "uip-dither", "lim", "lim"]
    # Every run metric of the CLI's runs.csv is a column, whatever metrics it has.
    assert list(lim.summary.metric.unique()) == list(runs.columns[3:])


def test_multihop_results_do_not_depend_on_the_thread_count():
    a = coapcc.sim(BETZLER, replications=2, jobs=1)
    b = coapcc.sim(BETZLER, replications=2, jobs=2)
    for name in ["runs", "flows", "nodes", "summary"]:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)


def test_a_bad_multihop_key_is_a_value_error_with_the_cli_message(coapcc_bin, tmp_path):
    cli = run_cli(coapcc_bin, "sim", LIM, "--set", "multihop.csma.queuebuf_num=0", "--quiet", "--out", str(tmp_path), check=False)
    assert cli.returncode == 2
    with pytest.raises(ValueError) as e:
        coapcc.sim(coapcc.Scenario.load(LIM).set("multihop.csma.queuebuf_num", 0))
    assert "multihop.csma.queuebuf_num" in str(e.value)
    assert cli.stderr.strip() == f"error: {e.value}"


def test_ctrl_c_interrupts_a_multihop_simulation_between_replications(repo):
    code = textwrap.dedent(
        f"""
        import signal, sys, time, coapcc
        # Ctrl-C as at a terminal, also when this test runs in a background job (which
        # starts with SIGINT ignored, and Python then installs no KeyboardInterrupt handler).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("start", flush=True)
        t = time.time()
        try:
            coapcc.sim("{LIM}", replications=5000, algorithms=["uip"], jobs=1)
        except KeyboardInterrupt:
            print(f"interrupted {{time.time() - t:.3f}}", flush=True)
            sys.exit(0)
        print("finished", flush=True)
        sys.exit(1)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", code], cwd=repo, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "start"
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, out
    assert out.startswith("interrupted"), out


@pytest.fixture(scope="module")
def cli_sweep(coapcc_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("mh-cli-sweep")
    run_cli(coapcc_bin, "sim", LIM, *CLI_SWEEP_RUN, *CLI_SWEEP, "--quiet", "--out", str(out))
    return out


@pytest.fixture(scope="module")
def local_sweep():
    return coapcc.sweep(LIM, grid=SWEEP_GRID, **SWEEP_RUN)


def test_a_local_multihop_sweep_writes_the_cli_files_byte_for_byte(cli_sweep, local_sweep, tmp_path):
    local_sweep.save(tmp_path)
    cli_files = sorted(str(p.relative_to(cli_sweep)) for p in cli_sweep.rglob("*") if p.is_file())
    py_files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    # sweep.csv and run.json, then per point its files, run.json and its finished piece.
    assert py_files == cli_files and len(cli_files) == 2 + 2 * (len(FILES) + 2)
    for rel in [f for f in cli_files if not f.endswith("run.json")]:  # the date and the command differ
        assert (tmp_path / rel).read_bytes() == (cli_sweep / rel).read_bytes(), rel
    f = local_sweep.frame
    assert list(f.columns[:3]) == ["multihop.udgm.success_ratio_tx", "algorithm", "metric"]
    assert f["multihop.udgm.success_ratio_tx"].unique().tolist() == [1, 0.9]
    assert all(r.kind == "multihop" for r in local_sweep.results)


def test_a_multihop_sweep_on_a_local_cluster_gives_the_identical_frames(cluster, local_sweep, cli_sweep):
    _, client = cluster
    on_cluster = coapcc.sweep(LIM, grid=SWEEP_GRID, client=client, **SWEEP_RUN)
    pd.testing.assert_frame_equal(on_cluster.frame, local_sweep.frame, check_exact=True)
    assert on_cluster.to_csv() == local_sweep.to_csv() == (cli_sweep / "sweep.csv").read_text()
    for a, b in zip(on_cluster.results, local_sweep.results):
        for name in ["runs", "flows", "nodes", "summary"]:
            pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)


def test_set_overrides_a_sweep_as_the_cli_set_does(coapcc_bin, tmp_path):
    cli = tmp_path / "cli"
    run_cli(coapcc_bin, "sim", BETZLER, "--set", "multihop.csma.queuebuf_num=4", "--replications", "2", "-a", "cocoa4",
            "--sweep", "multihop.udgm.success_ratio_tx=0.9,0.8", "--quiet", "--out", str(cli))
    r = coapcc.sweep(BETZLER, grid={"multihop.udgm.success_ratio_tx": [0.9, 0.8]}, replications=2,
                     algorithms=["cocoa4"], set=[("multihop.csma.queuebuf_num", 4)])
    assert r.to_csv() == (cli / "sweep.csv").read_text()
    assert "queuebuf_num = 4" in r.results[0].scenario.to_toml()


def test_a_bad_point_of_a_multihop_sweep_on_a_cluster_is_refused_before_any_task_runs(cluster):
    _, client = cluster
    with pytest.raises(ValueError, match="key `multihop.csma.queuebuf_num`"):
        coapcc.sweep(LIM, grid={"multihop.csma.queuebuf_num": [4, 0]}, client=client, **SWEEP_RUN)


def test_python_m_coapcc_sweeps_a_multihop_scenario_as_the_cli_does(cli_sweep, tmp_path):
    cmd = [sys.executable, "-m", "coapcc", "sweep", LIM, *CLI_SWEEP_RUN, *CLI_SWEEP, "--quiet", "--out", str(tmp_path)]
    subprocess.run(cmd, check=True, timeout=300)
    assert (tmp_path / "sweep.csv").read_bytes() == (cli_sweep / "sweep.csv").read_bytes()
