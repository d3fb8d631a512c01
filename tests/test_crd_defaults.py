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

# Upstream's OpenAPI step also forbids a default in the root's apiVersion, kind or metadata ("must not be
# set in top-level ..."), a check of its own that is not ported yet: these answers lack that cause.
_TOP_LEVEL = "Forbidden: must not be set in top-level "
_NEEDS_TOP_LEVEL_CHECK = sorted(name for name, answer in RECORDED.items()
                                if any(c["message"].startswith(_TOP_LEVEL) for c in answer.get("causes", ())))


@pytest.fixture(scope="module")
def answers(shared_server: ServerProcess) -> dict[str, dict[str, Any]]:
    def send(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
        return shared_server.json(method, path, body, content_type=content_type)
    return cases.run(send)


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason="the top-level meta default check is not ported"))
    if name in _NEEDS_TOP_LEVEL_CHECK else name for name in sorted(RECORDED)])
def test_ours_equal_the_recorded_reference(answers: dict[str, dict[str, Any]], name: str) -> None:
    assert answers[name] == RECORDED[name]


def _without_top_level_check(causes: list[dict[str, str]]) -> list[dict[str, str]]:
    return [c for c in causes if not c["message"].startswith(_TOP_LEVEL)]


@pytest.mark.parametrize("name", _NEEDS_TOP_LEVEL_CHECK)
def test_defaults_of_the_roots_meta_are_judged_in_a_resource(answers: dict[str, dict[str, Any]], name: str) -> None:
    recorded = _without_top_level_check(RECORDED[name]["causes"])
    assert _without_top_level_check(answers[name].get("causes", [])) == recorded


def test_the_cases_cover_refusals_and_acceptances() -> None:
    codes = [answer["code"] for answer in RECORDED.values()]
    assert codes.count(201) >= 10 and codes.count(422) >= 90
