"""The warnings of valid pods and pod templates (warningsForPodSpecAndMeta), as the reference answered them:
tests/fixtures/pod_warnings.json (tools/capture_pod_warnings.py); ours must equal them.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pod_warning_cases as cases
import pytest
from support import ServerProcess

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tools"))
from capture_validation import exchange

pytestmark = pytest.mark.store_once

with open(os.path.join(os.path.dirname(__file__), "fixtures", cases.FIXTURE)) as _f:
    RECORDED: dict[str, Any] = json.load(_f)


@pytest.fixture(scope="module")
def answers(shared_server: ServerProcess) -> dict[str, dict[str, Any]]:
    return cases.run(exchange(shared_server.kubeconfig))


def test_every_case_is_recorded() -> None:
    assert sorted(RECORDED) == sorted(cases.CASES)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_warned_as_the_reference(answers: dict[str, dict[str, Any]], name: str) -> None:
    assert RECORDED[name]["warnings"], "a case the reference warns nothing of proves nothing"
    assert answers[name] == RECORDED[name]
