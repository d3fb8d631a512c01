"""A CRD's schema is held to upstream's structural schema checks (NewStructural's refusals,
ValidateStructural's invariants and completeness, a pattern Go's regexp compiles): every case of
tests/crd_structural_cases.py must be answered as kube-apiserver answered it
(tests/fixtures/crd_structural.json, recorded by tools/capture_crd_structural.py).
"""

from __future__ import annotations

import json
import os
from typing import Any

import crd_structural_cases as cases
import pytest
from support import ServerProcess

pytestmark = pytest.mark.store_once

with open(os.path.join(os.path.dirname(__file__), "fixtures", cases.FIXTURE)) as f:
    RECORDED: dict[str, dict[str, Any]] = json.load(f)


@pytest.fixture(scope="module")
def answers(shared_server: ServerProcess) -> dict[str, dict[str, Any]]:
    def send(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
        return shared_server.json(method, path, body, content_type=content_type)
    return cases.run(send)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_answered_as_the_reference(answers: dict[str, dict[str, Any]], name: str) -> None:
    assert answers[name] == RECORDED[name]


def test_every_case_is_recorded() -> None:
    assert set(RECORDED) == set(cases.CASES) | set(cases.VERSIONED_CASES)
