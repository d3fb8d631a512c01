"""The benches that measure writes on etcd (each starts a private etcd of its own) run end to end and
report every figure they name: what they report, not how fast."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from support import unavailable

pytestmark = pytest.mark.store_once  # they start their own etcd, whichever store the suite runs on

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _table(stdout: str) -> dict[str, float]:
    return {line.split("|")[1].strip(): float(line.split("|")[2]) for line in stdout.splitlines()
            if line.startswith("| ") and not line.startswith("| write")}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("etcd") is None:
        unavailable("etcd is not installed (apt-get install etcd-server)")
    run = subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=300,
                         check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return run


def test_request_cost_measures_every_write_on_a_private_etcd() -> None:
    run = _run("benches.request_cost", "--writes", "--store", "etcd", "--requests", "40", "--rounds", "1")
    assert "etcd store" in run.stdout
    costs = _table(run.stdout)
    assert list(costs) == ["create", "patch", "update", "apply", "delete"]
    assert all(cost > 0 for cost in costs.values()), costs


def test_etcd_client_bench_measures_puts_alone_and_followed_by_the_watch() -> None:
    run = _run("benches.etcd_client", "--writes", "200", "--rounds", "1")
    costs = _table(run.stdout)
    assert list(costs) == ["Txn put", "Txn put, watch following"]
    assert all(cost > 0 for cost in costs.values()), costs
