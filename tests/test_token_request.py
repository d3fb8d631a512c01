"""TokenRequests (serviceaccounts/NAME/token) are decoded, kept and refused as kube-apiserver 1.36.2's
create handler and TokenREST.Create do: bodies of other kinds or versions and mistyped or unknown fields
a 400, the request's metadata kept with the service account's uid and managedFields of its own, a uid
that is not the account's a 409, the object to bind to found by group and kind. Answers recorded by
tools/capture_token_request.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_token_request")

# Once, on the embedded store: a TokenRequest stores nothing.
pytestmark = pytest.mark.store_once


def test_every_case_was_recorded() -> None:
    assert sorted(RECORDED) == sorted(capture.CASES)
    assert {answer["code"] for answer in RECORDED.values()} == {201, 400, 404, 409, 422}


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("name", sorted(capture.CASES))
def test_token_request_is_answered_as_kube_apiserver_answers(send: capture.Send, name: str) -> None:
    assert capture.run_case(send, name) == RECORDED[name]
