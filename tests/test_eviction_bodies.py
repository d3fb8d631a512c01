"""Eviction bodies (pods/NAME/eviction) are decoded and refused as kube-apiserver 1.36.2's create handler,
EvictionREST and the pod's delete refuse them: another kind or version (policy/v1beta1 is accepted),
mistyped and unknown fields a 400 worded as the decoder words them, delete options judged by
ValidateDeleteOptions (a 422) when the pod is deleted, any dryRun value counting as a dry run.
Answers recorded by tools/capture_eviction_bodies.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_eviction_bodies")


def test_every_case_was_recorded() -> None:
    assert sorted(RECORDED) == sorted(capture.CASES)
    assert {answer["code"] for answer in RECORDED.values()} == {201, 400, 422, 500}


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("name", sorted(capture.CASES))
def test_eviction_body_is_answered_as_kube_apiserver_answers(send: capture.Send, name: str) -> None:
    assert capture.run_case(send, name) == RECORDED[name]
