"""benches/write_stages.py wraps the write path's functions by name: a renamed function must fail here,
not when someone next asks where a write's CPU goes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from benches.write_stages import STAGES

pytestmark = pytest.mark.store_once

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_every_timed_function_still_exists() -> None:
    assert [f"{owner.__name__}.{name}" for _, owner, name in STAGES if not hasattr(owner, name)] == []


def test_the_stage_report_charges_every_write_to_its_stages() -> None:
    run = subprocess.run([sys.executable, "-m", "benches.request_cost", "--writes", "--stages", "--requests", "20",
                          "--rounds", "1"], cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = {line.split("|")[1].strip(): [float(cell) for cell in line.split("|")[2:-1]]
            for line in run.stdout.splitlines() if line.startswith("| ") and not line.startswith("| stage")}
    assert set(rows) >= {stage for stage, _, _ in STAGES} | {"total"}
    columns = list(zip(*rows.values()))
    for column in columns[:4]:  # create, patch, update, apply
        assert sum(column[:-1]) == pytest.approx(column[-1], abs=1.0)
    assert rows["managed fields"][0] > 0 and rows["kind validation"][0] > 0
