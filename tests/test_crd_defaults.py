"""A CRD's schema defaults are judged as upstream's ValidateDefaults judges them: against their level's
schema, pruned, with valid type and object meta where they hold or sit in a resource, and passing the
x-kubernetes-validations of their level; custom objects meet the same schema compositions (allOf, anyOf,
oneOf, not). The reference's answers are tests/fixtures/crd_defaults.json, recorded by
tools/capture_crd_defaults.py from tests/crd_defaults_cases.py; ours must equal them.
"""

from __future__ import annotations

import json
import os
from typing import Any

import crd_defaults_cases as cases
import pytest
from support import ServerProcess

pytestmark = pytest.mark.store_once

with open(os.path.join(os.path.dirname(__file__), "fixtures", cases.FIXTURE)) as _f:
    RECORDED: dict[str, dict[str, Any]] = json.load(_f)


@pytest.fixture(scope="module")
def answers(shared_server: ServerProcess) -> dict[str, dict[str, Any]]:
    def send(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
        return shared_server.json(method, path, body, content_type=content_type)
    return cases.run(send)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_ours_equal_the_recorded_reference(answers: dict[str, dict[str, Any]], name: str) -> None:
    assert answers[name] == RECORDED[name]


def test_the_cases_cover_refusals_and_acceptances() -> None:
    codes = [answer["code"] for answer in RECORDED.values()]
    assert codes.count(201) >= 10 and codes.count(422) >= 90
