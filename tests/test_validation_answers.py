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


@pytest.mark.parametrize("name", sorted(validation_cases.CASES))
def test_answered_as_the_reference(send: validation_cases.Send, name: str) -> None:
    assert validation_cases.run_case(send, name) == ANSWERS[name]
