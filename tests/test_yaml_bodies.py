"""YAML bodies kube-apiserver 1.36.2 cannot turn into an object, refused in its words: go-yaml's syntax
errors with the line its parser names, its refusals of tags, anchors and map keys, and sigs.k8s.io/yaml's
of what JSON cannot hold, for a create (application/yaml) and a server-side apply. Answers recorded by
tools/capture_yaml_bodies.py."""

from __future__ import annotations

import pytest
from recorded import Send, prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_yaml_bodies")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("document", capture.DOCUMENTS, ids=[repr(d)[2:42] for d in capture.DOCUMENTS])
def test_yaml_body_is_read_as_kube_apiserver_reads_it(send: Send, document: bytes) -> None:
    assert capture.answer(send, document) == RECORDED[document.hex()]


def test_refused_bodies_create_nothing(send: Send) -> None:
    status, listed, _ = send("GET", capture.CONFIGMAPS, None, "application/json")
    assert status == 200
    assert [item["metadata"]["name"] for item in listed["items"]] == []
