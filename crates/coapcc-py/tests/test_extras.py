"""A missing optional dependency names the extra of ``pyproject.toml`` that installs it."""

from __future__ import annotations

import re
import sys

import pytest

import coapcc
import coapcc.plot
from coapcc import __main__ as cli

ERRORS = "scenarios/fasor/10-flows-high-errors-random.toml"


def extras_of(repo):
    """``[project.optional-dependencies]`` of the package: extra -> top-level module names."""
    text = (repo / "crates/coapcc-py/pyproject.toml").read_text()
    section = text.split("[project.optional-dependencies]")[1].split("\n[")[0]
    out = {}
    for name, deps in re.findall(r"^(\w+) = \[(.*)\]$", section, re.M):
        out[name] = {re.match(r'"([A-Za-z0-9_-]+)', d.strip()).group(1).lower() for d in deps.split(",")}
    return out


def hide(monkeypatch, *modules):
    """Makes ``import MODULE`` (and its submodules) fail as if it were not installed."""
    for name in list(sys.modules):
        if name.split(".")[0] in modules:
            monkeypatch.delitem(sys.modules, name)
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def test_a_plot_without_matplotlib_names_the_plot_extra(repo, monkeypatch):
    assert "matplotlib" in extras_of(repo)["plot"]
    hide(monkeypatch, "matplotlib")
    r = coapcc.sim(ERRORS, algorithms="cocoa", replications=1)
    with pytest.raises(ImportError, match=r"coapcc\.plot needs matplotlib, which is not installed: pip install 'coapcc\[plot\]'"):
        coapcc.plot.fct_boxplot(r)


def test_a_sweep_progress_bar_without_dask_names_the_dask_extra(repo, monkeypatch):
    assert "dask" in extras_of(repo)["dask"]
    hide(monkeypatch, "dask", "distributed")

    class Client:  # a stand-in: the progress bar is asked for before anything is gathered
        def map(self, *a, **k):
            return []

    with pytest.raises(ImportError, match=r"pip install 'coapcc\[dask\]'"):
        coapcc.sweep(ERRORS, grid={"flows": [2]}, algorithms="cocoa", replications=1, client=Client(), progress=True)


def test_python_m_coapcc_with_a_scheduler_but_no_dask_says_which_extra_and_exits_2(repo, monkeypatch, tmp_path, capsys):
    hide(monkeypatch, "dask", "distributed")
    code = cli.main(["sweep", ERRORS, "--sweep", "flows=2", "--scheduler", "tcp://127.0.0.1:1", "--out", str(tmp_path / "o")])
    assert code == 2
    assert capsys.readouterr().err.strip() == "error: --scheduler needs dask, which is not installed: pip install 'coapcc[dask]'"


def test_every_extra_the_package_names_exists_and_installs_that_module(repo):
    from coapcc._extras import EXTRAS

    extras = extras_of(repo)
    for module, extra in EXTRAS.items():
        assert extra in extras, extra
        # `distributed` comes with `dask[distributed]`.
        assert module in extras[extra] or (module == "distributed" and "dask" in extras[extra]), module
