"""YAML bodies kube-apiserver 1.36.2 cannot turn into an object, refused in its words: go-yaml's syntax
errors with the line its parser names, its refusals of tags, anchors and map keys, and sigs.k8s.io/yaml's
of what JSON cannot hold, for a create (application/yaml) and a server-side apply. Answers recorded by
tools/capture_yaml_bodies.py."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from support import ServerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import capture_yaml_bodies as capture

pytestmark = pytest.mark.store_once

with open(capture.FIXTURE) as f:
    RECORDED: dict[str, Any] = json.load(f)


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.patching.Send:
    sender = capture.patching.sender(shared_server.kubeconfig)
    capture.prepare(sender)
    return sender


@pytest.mark.parametrize("document", capture.DOCUMENTS, ids=[repr(d)[2:42] for d in capture.DOCUMENTS])
def test_yaml_body_is_read_as_kube_apiserver_reads_it(send: capture.patching.Send, document: bytes) -> None:
    assert capture.answer(send, document) == RECORDED[document.hex()]


def test_refused_bodies_create_nothing(send: capture.patching.Send) -> None:
    status, listed, _ = send("GET", capture.CONFIGMAPS, None, "application/json")
    assert status == 200
    assert [item["metadata"]["name"] for item in listed["items"]] == []
