"""benches.api_load run end to end against a real server: what it reports, not how fast."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Any

import pytest
from support import ServerProcess, run_kubectl, unavailable

# The bench tooling, whichever store: once is enough.
pytestmark = pytest.mark.store_once

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.timeout(300)
def test_schedule_is_skipped_on_a_server_without_nodes(server: ServerProcess, tmp_path: Any) -> None:
    """The test server runs no controllers and has no Node: `schedule` is reported not applicable, with
    its reason, and the other scenarios are measured as usual."""
    if shutil.which("wrk") is None:
        unavailable("wrk is not installed (see benches/README.md)")
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "benches.api_load", "--url", server.url, "--token", server.token, "--ca", server.ca,
         "--scenarios", "get schedule", "--runs", "1", "--duration", "1", "--count", "20", "--no-floor",
         "--out", str(out)],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((out / "results.json").read_text())
    schedule = results["scenarios"]["schedule"]
    assert "no Nodes" in schedule["skipped"]
    assert "runs" not in schedule and "median" not in schedule
    assert results["scenarios"]["get"]["median"]["rps"] > 0
    assert "skipped: the server has no Nodes" in (out / "results.md").read_text()
    assert "schedule [" in done.stdout and "skipped:" in done.stdout


@pytest.mark.timeout(300)
def test_each_write_is_measured_against_a_floor_answering_what_the_server_answered(
        server: ServerProcess, tmp_path: Any) -> None:
    """Every write scenario gets a floor run, as the reads do: the write floor app is given one real
    answer of the server per write (its bytes and its status) and the run's own requests, and answers
    each of them without a failure. The dry-run create is answered as a create and stores nothing."""
    if shutil.which("wrk") is None:
        unavailable("wrk is not installed (see benches/README.md)")
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "benches.api_load", "--url", server.url, "--token", server.token, "--ca", server.ca,
         "--scenarios", "get create create_dry_run patch update apply", "--runs", "1", "--duration", "1", "--count", "20",
         "--out", str(out)],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((out / "results.json").read_text())
    writes = ("create", "create_dry_run", "patch", "update", "apply")
    for name in ("get", *writes):
        entry = results["scenarios"][name]
        assert entry["failed"] == 0, (name, entry)
        floor_runs = entry["floor"]["runs"]
        assert len(floor_runs) == 1 and floor_runs[0]["requests"] > 0 and floor_runs[0]["failed"] == 0, (name, entry)
        assert entry["ratio_to_floor"] == entry["median"]["rps"] / entry["floor"]["median"]["rps"]
    answered = {name: results["scenarios"][name]["floor_answer"] for name in writes}
    assert {name: a["status"] for name, a in answered.items()} == {
        "create": 201, "create_dry_run": 201, "patch": 200, "update": 200, "apply": 200}
    assert all(a["kind"] == "ConfigMap" and a["bytes"] > 200 for a in answered.values()), answered
    # The dry run's creates were answered as creates and stored nothing; the creates' were stored.
    stored = run_kubectl(server, "get", "configmaps", "-n", "apiload-writes", "-o", "name").stdout.split()
    assert any("-create-r1-" in name for name in stored) and not any("-create-dry-run-" in name for name in stored)
    assert results["scenarios"]["create_dry_run"]["median"]["rps"] > 0
