"""Shared fixtures: the repository, the CLI binary to compare with, a local Dask cluster."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root (scenario files are under ``scenarios/``)."""
    return REPO


@pytest.fixture(scope="session")
def coapcc_bin() -> Path:
    """The ``coapcc`` binary (``COAPCC_BIN``, set by scripts/test-python); a test that
    compares with the CLI fails when it is missing rather than skip."""
    path = Path(os.environ.get("COAPCC_BIN", REPO / "target" / "ci" / "coapcc"))
    if not path.is_file():
        pytest.fail(f"the coapcc binary is missing at {path} (build it: cargo build --profile ci -p coapcc)")
    return path


def run_cli(bin_path: Path, *args: str, cwd: Path = REPO, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the CLI; output as text."""
    return subprocess.run([str(bin_path), *args], cwd=cwd, capture_output=True, text=True, check=check, timeout=300)


@pytest.fixture(scope="module")
def cluster():
    """A Dask ``LocalCluster`` of 2 worker processes on loopback, and a client of it; closed
    (its processes stopped) after the module's tests."""
    from dask.distributed import Client, LocalCluster

    c = LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    )
    client = Client(c)
    try:
        yield c, client
    finally:
        client.close()
        c.close()


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    """Every test runs in the repository root, as the CLI examples do (relative scenario paths)."""
    monkeypatch.chdir(REPO)
