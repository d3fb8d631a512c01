"""A request's options and path read as kube-apiserver 1.36.2 reads them before any object is judged:
ListOptions of lists, watches and deletecollections (the query's conversion, then ValidateListOptions),
DeleteOptions from the query and from a body decoded in the meta internal scheme, paths no route takes
(Go's plain-text 404 beside go-restful's Status), a custom resource's unknown subresource, a dry-run
create naming a resourceVersion, and a deletecollection's items. Answers recorded by
tools/capture_request_refusals.py."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import pytest
from support import ServerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import capture_request_refusals as capture

pytestmark = pytest.mark.store_once

with open(capture.FIXTURE) as f:
    RECORDED: dict[str, Any] = json.load(f)

_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _comparable(answer: dict[str, Any]) -> str:
    return _UID.sub("UID", json.dumps(answer, sort_keys=True))


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    sender = capture.sender(shared_server.kubeconfig)
    capture.prepare(sender)
    return sender


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_request_is_read_as_kube_apiserver_reads_it(send: capture.Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert _comparable(capture.answer(send, index)) == _comparable(RECORDED[name])


def test_a_refused_delete_body_deletes_nothing(send: capture.Send) -> None:
    """A body naming another kind is refused before the delete, whatever the query says."""
    index = next(i for i, case in enumerate(capture.CASES) if case[0] == "delete body naming a Pod")
    assert capture.answer(send, index)["status"] == 400
    status, _, _, _ = send("GET", f"{capture.CONFIGMAPS}/refusal-{index}", None, capture.JSON)
    assert status == 200
