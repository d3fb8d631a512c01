"""A request's options and path read as kube-apiserver 1.36.2 reads them before any object is judged:
ListOptions of lists, watches and deletecollections (the query's conversion, then ValidateListOptions),
DeleteOptions from the query and from a body decoded in the meta internal scheme, paths no route takes
(Go's plain-text 404 beside go-restful's Status), a custom resource's unknown subresource, a dry-run
create naming a resourceVersion, and a deletecollection's items. Answers recorded by
tools/capture_request_refusals.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool, without_uids
from support import ServerProcess

capture, RECORDED = tool("capture_request_refusals")

pytestmark = pytest.mark.store_once



@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_request_is_read_as_kube_apiserver_reads_it(send: capture.Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert without_uids(capture.answer(send, index)) == without_uids(RECORDED[name])


def test_a_refused_delete_body_deletes_nothing(send: capture.Send) -> None:
    """A body naming another kind is refused before the delete, whatever the query says."""
    index = next(i for i, case in enumerate(capture.CASES) if case[0] == "delete body naming a Pod")
    assert capture.answer(send, index)["status"] == 400
    status, _, _, _ = send("GET", f"{capture.CONFIGMAPS}/refusal-{index}", None, capture.JSON)
    assert status == 200
