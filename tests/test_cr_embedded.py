"""The resources a custom object embeds are decoded as kube-apiserver 1.36.2 decodes them: type meta
that is no string and metadata that is no ObjectMeta refused in encoding/json's words (a 400, or a
patch's 422), metadata written back as ObjectMeta writes itself, its unknown fields named under
fieldValidation. Answers recorded by tools/capture_cr_embedded.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool, without_uids
from support import ServerProcess

capture, RECORDED = tool("capture_cr_embedded")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_embedded_resource_is_decoded_as_kube_apiserver_decodes_it(send: capture.Send, index: int) -> None:
    assert without_uids(capture.answer(send, index)) == without_uids(RECORDED[capture.CASES[index][0]])


def test_the_stored_object_keeps_the_coerced_metadata(send: capture.Send) -> None:
    """Not only the dry run's answer: the object written and read back lost the unknown field."""
    status, created, _ = send("POST", capture.TEMPLATES, capture._fleet("stored", capture._STRANGER), capture.JSON)
    assert status == 201, created
    status, read, _ = send("GET", f"{capture.TEMPLATES}/stored", None, capture.JSON)
    assert status == 200 and read["spec"]["template"]["metadata"] == {"name": "a"}
