"""The package gives the CLI's data and bytes: registry, replay, scenarios, simulation."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import textwrap
import time
import tomllib

import numpy as np
import pandas as pd
import pytest

import coapcc
from conftest import run_cli

ERRORS = "scenarios/fasor/10-flows-high-errors-random.toml"


def test_algorithms_lists_the_registry_as_the_cli_does(coapcc_bin):
    cli = run_cli(coapcc_bin, "algorithms", "--format", "csv").stdout
    py = coapcc.algorithms()
    # The CLI's CSV is RFC 4180 (fields with commas quoted): pandas reads it back to the frame.
    from_cli = pd.read_csv(io.StringIO(cli), dtype={"state_bytes": py.state_bytes.dtype})
    assert len(py) == 19
    pd.testing.assert_frame_equal(py.reset_index(drop=True), from_cli, check_dtype=False)


def test_algorithm_gives_the_keys_and_preset_values_the_cli_prints(coapcc_bin):
    for name in ["fasor", "cocoa-plus", "idc"]:
        cli = tomllib.loads(run_cli(coapcc_bin, "algorithms", name).stdout)
        info = coapcc.algorithm(name)
        assert info["keys"] == cli
        assert name in info["family_presets"]
        assert info["documentation"] == f"docs/algorithms.md#{name}"


def test_an_unknown_algorithm_is_a_value_error_with_the_cli_message(coapcc_bin):
    cli = run_cli(coapcc_bin, "algorithms", "reno", check=False)
    assert cli.returncode == 2
    with pytest.raises(ValueError) as e:
        coapcc.algorithm("reno")
    assert cli.stderr.strip() == f"error: {e.value}"


def test_replay_gives_the_events_the_cli_prints(coapcc_bin, tmp_path):
    script = "send\nwait 2000\nwait 1500\nack copy 1\nsend\nwait 300\nack\n"
    (tmp_path / "s.txt").write_text(script)
    cli = run_cli(coapcc_bin, "replay", "-a", "cocoa", "--set", "max_retransmit=3", str(tmp_path / "s.txt")).stdout
    expected = pd.DataFrame([json.loads(line) for line in cli.splitlines()])
    got = coapcc.replay("cocoa", script, max_retransmit=3)
    assert len(got) == len(expected) > 3
    for col in ["t_ms", "timer_ms", "rto_ms"]:
        if col in expected:
            e = pd.to_numeric(expected[col], errors="coerce").to_numpy(dtype=float)
            assert np.array_equal(got[col].to_numpy(dtype=float), e, equal_nan=True), col
    assert got["event"].tolist() == expected["event"].tolist()
    assert got["copy"].astype("float").fillna(-1).tolist() == expected["copy"].astype("float").fillna(-1).tolist()


def test_a_bad_replay_line_is_a_value_error_naming_the_line():
    with pytest.raises(ValueError, match="^line 2: unknown command `snd`"):
        coapcc.replay("default", "send\nsnd\n")


def test_set_raises_a_value_error_naming_the_key_and_leaves_the_scenario_unchanged(coapcc_bin, repo):
    s = coapcc.Scenario.load(ERRORS)
    before = s.to_toml()
    with pytest.raises(ValueError) as e:
        s.set("workload.flows", "lots")
    assert "key `workload.flows`" in str(e.value)
    assert s.to_toml() == before
    cli = run_cli(coapcc_bin, "sim", ERRORS, "--set", "workload.flows=lots", "--quiet", check=False)
    assert cli.returncode == 2
    assert cli.stderr.strip() == f"error: {e.value}"
    with pytest.raises(ValueError, match="key `bogus`: not in this scenario"):
        s.set("bogus", 1)


def test_set_returns_a_new_scenario_and_leaves_the_original_unchanged(repo):
    s = coapcc.Scenario.load(ERRORS)
    before = s.to_toml()
    t = s.set("workload.flows", 6)
    assert t is not s
    assert s.to_toml() == before and s.settings == []
    assert t.settings == [("workload.flows", "6")]
    assert "flows = 6" in t.to_toml() and "flows = 6" not in before


def test_a_rejected_set_stores_nothing_and_later_calls_still_work(repo):
    s = coapcc.Scenario.load(ERRORS)
    with pytest.raises(ValueError, match="key `flowz`"):
        s.set("flowz", 3)
    # The rejected key is nowhere: the next setting and a run report no `flowz` error.
    t = s.set("workload.flows", 2)
    assert t.settings == [("workload.flows", "2")] and s.settings == []
    assert coapcc.sim(t, algorithms="cocoa", replications=1).runs.shape[0] == 1


def test_running_a_scenario_whose_set_result_was_dropped_warns_with_the_setting(repo):
    import gc
    import warnings

    s = coapcc.Scenario.load(ERRORS)
    s.set("workload.flows", 2)  # the in-place habit: the new scenario is dropped
    gc.collect()
    with pytest.warns(FutureWarning, match=r"workload\.flows=2 is not applied .*`s = s\.set"):
        coapcc.sim(s, algorithms="cocoa", replications=1)
    kept = s.set("workload.flows", 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        coapcc.sim(s, algorithms="cocoa", replications=1)  # warned once; `kept` is still alive
    assert kept.settings == [("workload.flows", "3")]


def test_a_scenario_built_in_python_runs_like_its_file(repo):
    s = coapcc.Scenario(
        "mine",
        algorithms=["default", "cocoa"],
        replications=2,
        network={"nbiot": {"buffer_bytes": 2500, "errors": "high"}},
        workload={"flows": 5, "flow_type": "random", "exchanges_per_flow": 10, "start_window_ms": 1000},
    )
    assert s.name == "mine" and s.algorithms == ["default", "cocoa"]
    again = coapcc.Scenario.from_toml(s.to_toml(), "again")
    a, b = coapcc.sim(s), coapcc.sim(again)
    pd.testing.assert_frame_equal(a.flows, b.flows)


def test_sim_saves_the_cli_files_byte_for_byte(coapcc_bin, repo, tmp_path):
    args = ["--replications", "3", "--seed", "7", "-a", "cocoa", "-a", "fasor", "--set", "workload.flows=6"]
    run_cli(coapcc_bin, "sim", ERRORS, *args, "--samples", "--quiet", "--out", str(tmp_path / "cli"))
    s = coapcc.Scenario.load(ERRORS).set("workload.flows", 6)
    r = coapcc.sim(s, algorithms=["cocoa", "fasor"], replications=3, seed=7, jobs=2)
    r.save(tmp_path / "py", samples=True)
    names = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert names == ["flows.csv", "run.json", "runs.csv", "samples.csv", "scenario.toml", "summary.csv"]
    assert names == sorted(p.name for p in (tmp_path / "py").iterdir())
    cli_run, py_run = (json.loads((tmp_path / d / "run.json").read_text()) for d in ("cli", "py"))
    assert cli_run.keys() == py_run.keys() and cli_run["seed"] == py_run["seed"] == 7
    assert py_run["command"].startswith("coapcc.sim(") and cli_run["command"].startswith("coapcc sim ")
    for n in [n for n in names if n != "run.json"]:
        assert (tmp_path / "py" / n).read_bytes() == (tmp_path / "cli" / n).read_bytes(), n


def test_frames_hold_the_csv_values_at_full_precision(coapcc_bin, tmp_path):
    run_cli(coapcc_bin, "sim", ERRORS, "--replications", "2", "--samples", "--quiet", "--out", str(tmp_path))
    r = coapcc.sim(coapcc.Scenario.load(ERRORS), replications=2)
    for name in ["flows", "runs", "summary", "samples"]:
        cli = pd.read_csv(tmp_path / f"{name}.csv", dtype=str, keep_default_na=False)
        got = getattr(r, name)
        assert list(got.columns) == list(cli.columns), name
        assert len(got) == len(cli) > 0, name
        for col in cli.columns:
            if got[col].dtype.kind == "f":
                # Formatted as the CSV formats them (6 decimals, NaN empty), the values give its text.
                text = [f"{x:.6f}" if np.isfinite(x) else "" for x in got[col]]
            else:
                text = got[col].astype(str).tolist()
            assert text == cli[col].tolist(), (name, col)


def test_the_trace_model_has_runs_and_series_but_no_flows(coapcc_bin, repo, tmp_path):
    path = "scenarios/makarem/rtt-trace/row-01.toml"
    run_cli(coapcc_bin, "sim", path, "--replications", "2", "--quiet", "--out", str(tmp_path / "cli"))
    s = coapcc.Scenario.load(path)
    r = coapcc.sim(s, replications=2)
    assert r.flows is None and r.samples is None
    assert list(r.series.columns) == ["algorithm", "sample", "rtt_ms", "rto_ms"]
    r.save(tmp_path / "py")
    for p in (tmp_path / "cli").iterdir():
        if p.name != "run.json":  # the date and the command differ
            assert (tmp_path / "py" / p.name).read_bytes() == p.read_bytes(), p.name


def test_a_block_wise_transfer_gives_the_transfers_table_and_the_cli_files(coapcc_bin, repo, tmp_path):
    path = "scenarios/firmware/udp-4-clients.toml"
    args = ["--replications", "1", "-a", "cocoa", "-a", "fasor"]
    run_cli(coapcc_bin, "sim", path, *args, "--quiet", "--out", str(tmp_path / "cli"))
    s = coapcc.Scenario.load(path).with_settings([("replications", 1), ("algorithms", ["cocoa", "fasor"])])
    r = coapcc.sim(s)
    t = r.transfers
    assert len(t) == 2 * 4, "a row per algorithm and flow"
    # 102 400 bytes in 400 blocks of 256; no connection set-up over UDP; goodput = bits / FCT.
    assert (t.object_bytes == 102_400).all() and (t.blocks == 400).all() and (t.block_bytes == 256).all()
    assert (t.setup_s == 0).all() and (t.packets_up >= 400).all() and (t.packets_down >= 400).all()
    np.testing.assert_allclose(t.goodput_bit_s, 102_400 * 8 / t.fct_s)
    assert coapcc.sim(coapcc.Scenario.load(ERRORS), replications=1, algorithms=["default"]).transfers is None
    r.save(tmp_path / "py")
    for p in (tmp_path / "cli").iterdir():
        if p.name != "run.json":  # the date and the command differ
            assert (tmp_path / "py" / p.name).read_bytes() == p.read_bytes(), p.name


def test_results_do_not_depend_on_the_thread_count():
    s = coapcc.Scenario.load(ERRORS)
    a = coapcc.sim(s, replications=3, jobs=1)
    b = coapcc.sim(s, replications=3, jobs=2)
    pd.testing.assert_frame_equal(a.runs, b.runs)
    pd.testing.assert_frame_equal(a.summary, b.summary)


def test_ctrl_c_interrupts_a_simulation_between_replications(repo):
    # A long simulation in a child process, interrupted after it started: it raises
    # KeyboardInterrupt long before it could have finished.
    code = textwrap.dedent(
        """
        import signal, sys, time, coapcc
        # Ctrl-C as at a terminal, also when this test runs in a background job (which
        # starts with SIGINT ignored, and Python then installs no KeyboardInterrupt handler).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        s = coapcc.Scenario.load("scenarios/fasor/400-flows-infinite-buffer-continuous.toml")
        print("start", flush=True)
        t = time.time()
        try:
            coapcc.sim(s, replications=2000, algorithms=["cocoa"], jobs=1)
        except KeyboardInterrupt:
            print(f"interrupted {time.time() - t:.3f}", flush=True)
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


def test_a_scenario_survives_pickling_with_its_settings():
    import pickle

    s = coapcc.Scenario.load(ERRORS).set("flows", 7).set("algorithm.cocoa.aging", "off")
    back = pickle.loads(pickle.dumps(s))
    assert back.to_toml() == s.to_toml()
    assert back.settings == [("flows", "7"), ("algorithm.cocoa.aging", "off")]


def test_the_readme_sweep_example_prints_what_the_readme_shows_and_its_points_differ(repo, tmp_path):
    text = (repo / "README.md").read_text()
    section = text.split("## Python and clusters")[1]
    code = section.split("```python\n")[1].split("```")[0]
    shown = section.split("```text\n")[1].split("```")[0]
    lines = code.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("w = coapcc.sweep("))
    sweep = "\n".join(lines[start : start + 2]).replace('"results/mine-sweep"', repr(str(tmp_path / "w")))
    env = {"coapcc": coapcc}
    exec(next(ln for ln in lines if ln.startswith("s = ")), env)
    exec(sweep, env)
    table = env["w"].frame.pivot(index="errors", columns="algorithm", values="fct_p50_s").round(1)
    assert [ln.rstrip() for ln in str(table).splitlines()] == [ln.rstrip() for ln in shown.strip().splitlines()]
    # The swept key changes the result: every algorithm's median FCT differs between any two
    # points with link errors, and grows with the error level.
    for algorithm in ["cocoa", "fasor"]:
        fct = [table.loc[level, algorithm] for level in ["none", "medium", "high"]]
        assert fct[0] < fct[1] < fct[2], (algorithm, fct)


def test_every_function_of_the_stub_has_the_parameter_names_of_the_extension():
    # The stub is what type checkers and editors read; a keyword call by its names must work.
    import ast
    import inspect
    from pathlib import Path

    from coapcc import _coapcc

    stub = ast.parse((Path(coapcc.__file__).parent / "_coapcc.pyi").read_text())
    functions = [f for f in stub.body if isinstance(f, ast.FunctionDef)]
    assert any(f.name == "kept_piece" for f in functions)
    for f in functions:
        stubbed = [a.arg for a in f.args.args]
        actual = list(inspect.signature(getattr(_coapcc, f.name)).parameters)
        assert stubbed == actual, f"{f.name}: the stub says {stubbed}, the extension {actual}"
