"""Admission policies and their bindings are refused to a user who could not read the params they point
at, as kube-apiserver 1.36.2's strategies refuse them (authz.go): get on every object of a policy's
paramKind, get (or list) on what a binding's paramRef names, the administrator never asked, an update
that keeps the paramKind not asked again; each refusal a Forbidden in the same 422, worded with the user
as Go prints it. Answers recorded by tools/capture_policy_param_access.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_policy_param_access")

# Once, on the embedded store: who may write a policy is decided above the store.
pytestmark = pytest.mark.store_once


def test_every_case_was_recorded_and_both_answers_occur() -> None:
    assert sorted(RECORDED) == sorted(capture.CASES)
    assert {answer["code"] for answer in RECORDED.values()} == {200, 201, 422}


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("name", sorted(capture.CASES))
def test_policy_write_is_answered_as_kube_apiserver_answers(send: capture.Send, name: str) -> None:
    assert capture.run_case(send, name) == RECORDED[name]
