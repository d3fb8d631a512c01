"""CRD schemas as upstream's ValidateCustomResourceDefinitionOpenAPISchema and the root's rules judge
them, and updates the old CRD lets keep what a create would refuse: ours must answer as the reference
did (tests/fixtures/crd_openapi.json, recorded by tools/capture_crd_openapi.py from
tests/crd_openapi_cases.py). The stored forms are written into the embedded store while the server is
stopped.
"""

from __future__ import annotations

import json
import os
from typing import Any

import crd_openapi_cases as cases
import pytest
import stored_crds
from support import ServerProcess

pytestmark = pytest.mark.store_once

_FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", cases.FIXTURE)


def _recorded() -> dict[str, dict[str, Any]]:
    with open(_FIXTURE) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    with ServerProcess(str(tmp_path_factory.mktemp("openapi"))) as server:
        def send(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
            headers = {"Content-Type": content_type} if content_type else {}
            return server.json(method, path, body, headers=headers, content_type=content_type or "application/json")
        return cases.run_creates(send) | cases.run_updates(send, stored_crds.rewriter(server, lambda crd, spec: crd["spec"].update(spec)))


@pytest.fixture(scope="module")
def recorded() -> dict[str, dict[str, Any]]:
    return _recorded()


def test_every_case_was_recorded(answers: dict[str, dict[str, Any]], recorded: dict[str, dict[str, Any]]) -> None:
    assert sorted(answers) == sorted(recorded)


@pytest.mark.parametrize("name", sorted(_recorded()))
def test_ours_equal_the_recorded_reference(name: str, answers: dict[str, dict[str, Any]],
                                           recorded: dict[str, dict[str, Any]]) -> None:
    assert answers[name] == recorded[name]


def test_an_old_crd_lets_its_update_keep_what_a_create_refuses(recorded: dict[str, dict[str, Any]]) -> None:
    assert recorded["create/set-of-objects"]["code"] == 422
    assert recorded["non-atomic-set/described"] == {"code": 200}
    assert recorded["fine-then-set/set-added"]["code"] == 422
