"""The simulator's errors reach Python as exception classes a caller can tell apart, each
with the CLI's message: ``ScenarioError`` and ``BudgetError`` are ``ValueError``s (the CLI's
exit code 2), ``RunError`` is a ``RuntimeError`` (exit code 1)."""

from __future__ import annotations

import pytest

import coapcc
from coapcc import _sweep
from conftest import run_cli

NETWORK = "scenarios/fasor/10-flows-high-errors-random.toml"
TRACE = "scenarios/makarem/rtt-trace/row-04.toml"

# 10⁹ flows of 10⁶ exchanges: far beyond any machine's memory by the budget's estimate
# (hundreds of bytes per flow), whatever the memory available.
TOO_LARGE = [("flows", 1_000_000_000), ("exchanges_per_flow", 1_000_000)]


def test_the_exception_classes_are_exported_with_their_documented_bases():
    assert issubclass(coapcc.ScenarioError, ValueError)
    assert issubclass(coapcc.BudgetError, ValueError)
    assert issubclass(coapcc.RunError, RuntimeError) and not issubclass(coapcc.RunError, ValueError)
    for name in ["ScenarioError", "BudgetError", "RunError"]:
        assert name in coapcc.__all__
    assert len({coapcc.ScenarioError, coapcc.BudgetError, coapcc.RunError}) == 3


def test_a_bad_key_is_a_scenario_error_with_the_cli_message(coapcc_bin):
    cli = run_cli(coapcc_bin, "sim", NETWORK, "--set", "bogus=1", "--quiet", check=False)
    assert cli.returncode == 2
    with pytest.raises(coapcc.ScenarioError) as e:
        coapcc.Scenario.load(NETWORK).set("bogus", 1)
    assert not isinstance(e.value, coapcc.BudgetError)
    assert cli.stderr.strip() == f"error: {e.value}"


def test_an_algorithm_the_trace_model_cannot_feed_is_a_scenario_error_before_any_run(coapcc_bin):
    cli = run_cli(coapcc_bin, "sim", TRACE, "-a", "bdp", "--quiet", check=False)
    assert cli.returncode == 2
    with pytest.raises(coapcc.ScenarioError) as e:
        coapcc.sim(TRACE, algorithms=["bdp"])
    assert cli.stderr.strip() == f"error: {e.value}"
    assert "key `algorithms`: `bdp`" in str(e.value)


def test_a_scenario_too_large_for_the_memory_is_a_budget_error_not_a_scenario_error(coapcc_bin, tmp_path):
    cli_set = [a for k, v in TOO_LARGE for a in ("--set", f"{k}={v}")]
    run = ["--replications", "1", "--jobs", "1", "--quiet", "--out", str(tmp_path)]
    cli = run_cli(coapcc_bin, "sim", NETWORK, *cli_set, *run, check=False)
    assert cli.returncode == 2
    s = coapcc.Scenario.load(NETWORK).with_settings(TOO_LARGE)  # the keys themselves are valid
    with pytest.raises(coapcc.BudgetError) as e:
        coapcc.sim(s, replications=1, jobs=1)
    assert not isinstance(e.value, coapcc.ScenarioError)
    # The estimate is the same; the memory available is measured by each process.
    message = str(e.value)
    assert message.startswith(f"{s.name}: needs an estimated ") and "of memory" in message
    assert cli.stderr.startswith(f"error: {message.split(' but ')[0]} but ")
    assert not list(tmp_path.iterdir()), "nothing was written"


def test_a_job_whose_run_fails_is_a_run_error_naming_the_algorithm_and_the_replication():
    # A sweep task runs its job without the checks `sim` and `sweep` make first (they run on
    # the client): the trace model has no RTO estimator to feed for BDP, so the run fails.
    s = coapcc.Scenario.load(TRACE).set("algorithms", ["idc", "bdp"])
    with pytest.raises(coapcc.RunError) as e:
        _sweep.run_task((s._source, s._file, tuple(s.settings), 1, 0))
    assert str(e.value).startswith("bdp, replication 0: the RTT-trace model has no RTO estimator")
    assert len(_sweep.run_task((s._source, s._file, tuple(s.settings), 0, 0))) > 0, "the other job runs"
