"""LimitRanger defaults and judges pods and claims drawn at random against LimitRanges drawn at random
as kube-apiserver 1.36.2 does: the same defaults written, the same refusals in the same words.
Answers recorded by tools/capture_limitranger_random.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_limitranger_random")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


def test_the_draw_is_what_was_recorded() -> None:
    assert sorted(RECORDED, key=int) == [str(i) for i in range(capture.OBJECTS)]
    assert {a["status"] for a in RECORDED.values()} == {201, 403, 422}


def _unordered(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer with a refusal's errors as a set: ValidateResourceRequirements walks a container's
    requests map, whose order Go randomizes, so a request above each of two limits is named in either
    order."""
    message = answer.get("message")
    if not isinstance(message, str) or ": [" not in message:
        return answer
    head, _, listed = message.partition(": [")
    return {**answer, "message": (head, sorted(re.split(r", (?=spec\.)", listed.rstrip("]"))))}


@pytest.mark.parametrize("index", range(capture.OBJECTS))
def test_object_is_limited_as_kube_apiserver_limits_it(send: capture.Send, index: int) -> None:
    assert _unordered(capture.answer(send, index)) == _unordered(RECORDED[str(index)])
