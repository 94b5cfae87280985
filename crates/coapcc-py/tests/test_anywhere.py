"""The package from an empty folder: built-in scenarios by name, and run.json beside results."""

from __future__ import annotations

import json

import pytest

import coapcc
from conftest import REPO, run_cli

NAME = "fasor/10-flows-error-free-random"


def test_a_built_in_scenario_loads_runs_and_saves_from_an_empty_folder(coapcc_bin, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = coapcc.Scenario.load(NAME)
    # The built-in text is the repository's file: the same scenario, key for key.
    assert s.to_toml() == coapcc.Scenario.load(REPO / "scenarios" / f"{NAME}.toml").to_toml()
    assert coapcc.Scenario.load(f"{NAME}.toml").name == NAME
    r = coapcc.sim(s, algorithms=["default"], replications=1, seed=3)
    assert r.summary.algorithm.tolist() == ["default"]
    written = r.save("r")
    assert (tmp_path / "r" / "run.json") in [tmp_path / p for p in written]
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["seed"] == 3 and run["host_cores"] >= 1 and run["coapcc_version"]
    assert run["command"] == f"coapcc.sim(<Scenario '{NAME}'>, algorithms=['default'], replications=1, seed=3)"
    # The CLI from the same empty folder writes the same results for the same name.
    run_cli(coapcc_bin, "sim", NAME, "-a", "default", "--replications", "1", "--seed", "3", "-q", "--out", "cli", cwd=tmp_path)
    assert (tmp_path / "cli" / "summary.csv").read_bytes() == (tmp_path / "r" / "summary.csv").read_bytes()


def test_an_unknown_name_names_the_closest_built_in_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(coapcc.ScenarioError, match="fasor/10-flows-error-free-random"):
        coapcc.Scenario.load("fasor/10-flows-error-free-randm")
