"""Our answers to the writes of validation_cases.py, against kube-apiserver 1.36.2's recorded ones.

Each case is one rule of upstream's validation (tools/capture_validation.py recorded the answers from a
reference started by ../shared/reference/start.sh): code, reason and the whole aggregated message.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator

import pytest
import validation_cases
from support import ServerProcess

# Once, on the embedded store: validation is decided before the store.
pytestmark = pytest.mark.store_once

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "validation_answers.json")) as _f:
    ANSWERS: dict[str, Any] = json.load(_f)


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> Iterator[validation_cases.Send]:
    def send(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
        return shared_server.json(method, path, body, content_type=content_type)
    validation_cases.prepare(send)
    yield send


def test_every_case_has_an_answer() -> None:
    assert sorted(ANSWERS) == sorted(validation_cases.CASES)


# Known differences, each as the edit that turns the reference's answer into ours, with why.
# An update is validated here after shaping, which leaves out the empty lists Go's omitempty drops when
# it writes; upstream validates the decoded request, where a `[]` the client sent is still an empty
# list, so the refused spec it prints shows `[]` where ours shows null.
KNOWN_DIFFERENT: dict[str, tuple[str, str]] = {
    "flowschema-mandatory-catch-all-rules": ('"NonResourceRules":[]}]', '"NonResourceRules":null}]'),
}


@pytest.mark.parametrize("name", sorted(validation_cases.CASES))
def test_answered_as_the_reference(send: validation_cases.Send, name: str) -> None:
    expected = ANSWERS[name]
    if name in KNOWN_DIFFERENT:
        theirs, ours = KNOWN_DIFFERENT[name]
        assert theirs in expected["message"]
        expected = {**expected, "message": expected["message"].replace(theirs, ours)}
    assert validation_cases.run_case(send, name) == expected
