"""The volume, CSR, IPAM and autoscaler controllers answer tests/controller_scenarios.py as
kube-controller-manager 1.36 answered them (tests/data/controller_answers.json, recorded by
tools/capture_controller_answers.py)."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Iterator

import pytest
from controller_scenarios import SCENARIOS
from support import ServerProcess, run_kubectl

ANSWERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "controller_answers.json")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # No simulated nodes: like the reference, nothing runs the scenarios' pods.
    with ServerProcess(str(tmp_path_factory.mktemp("answers")),
                       extra_args=["--controllers=*", "--horizontal-pod-autoscaler-sync-period", "1"]) as proc:
        yield proc


@pytest.fixture(scope="module")
def recorded() -> Any:
    with open(ANSWERS) as f:
        return json.load(f)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_controllers_answer_as_kube_controller_manager(cluster: ServerProcess, recorded: Any,
                                                           scenario: str) -> None:
    def kubectl(*args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return run_kubectl(cluster, *args, check=check, stdin=stdin)

    assert SCENARIOS[scenario](kubectl) == recorded[scenario]
