"""A write's options and a request's malformed parts refused as kube-apiserver 1.36.2 refuses them, before
any object is judged: dryRun, fieldManager and fieldValidation of creates, updates and patches (a create
with dryRun=Bogus was carried out here as a real write), a patch of no patch type, DeleteOptions from the
query and from the body, null bodies, metadata that is no object, names that do not match the URL, and a
delete's preconditions. Answers recorded by tools/capture_request_options.py."""

from __future__ import annotations

import pytest
from recorded import Send, prepared_sender, tool, without_uids
from support import ServerProcess

capture, RECORDED = tool("capture_request_options")

pytestmark = pytest.mark.store_once



@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_request_is_answered_as_kube_apiserver_does(send: Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert without_uids(capture.answer(send, index)) == without_uids(RECORDED[name])


def test_a_refused_dry_run_writes_nothing(send: Send) -> None:
    """The create with dryRun=Bogus was refused, so the object it named does not exist."""
    status, _, _ = send("GET", capture.COLLECTION + "/made-by-case", None, capture.JSON)
    assert status == 404
    assert RECORDED["create dryRun Bogus"]["status"] == 422
