"""Warnings are answered in the order they were collected: decoding's, the strategy's, then validating
admission's, on allowed and refused writes alike. The reference's answers are
tests/fixtures/warning_order.json (tools/capture_warning_order.py); ours must equal them.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
import warning_order_cases as cases
from support import ServerProcess

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tools"))
from capture_validation import exchange

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def answers(shared_server: ServerProcess) -> dict[str, dict[str, Any]]:
    send = exchange(shared_server.kubeconfig)
    cases.prepare(send)
    try:
        return cases.run(send)
    finally:
        cases.cleanup(send)


def test_ours_equal_the_recorded_reference(answers: dict[str, dict[str, Any]]) -> None:
    with open(os.path.join(os.path.dirname(__file__), "fixtures", cases.FIXTURE)) as f:
        recorded = json.load(f)
    assert answers == recorded


def test_a_refused_write_answers_the_warnings_in_the_order_they_came(answers: dict[str, dict[str, Any]]) -> None:
    denied = answers["create-denied-by-policy"]["warnings"]
    assert denied[0].startswith("unknown field")
    assert denied[1].startswith("spec.nodeSelector")
    assert denied[-1].startswith("Validation failed for ValidatingAdmissionPolicy")
