"""A write's options and a request's malformed parts refused as kube-apiserver 1.36.2 refuses them, before
any object is judged: dryRun, fieldManager and fieldValidation of creates, updates and patches (a create
with dryRun=Bogus was carried out here as a real write), a patch of no patch type, DeleteOptions from the
query and from the body, null bodies, metadata that is no object, names that do not match the URL, and a
delete's preconditions. Answers recorded by tools/capture_request_options.py."""

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

import capture_request_options as capture

pytestmark = pytest.mark.store_once

with open(capture.FIXTURE) as f:
    RECORDED: dict[str, Any] = json.load(f)

_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _comparable(answer: dict[str, Any]) -> str:
    return _UID.sub("UID", json.dumps(answer, sort_keys=True))


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.patching.Send:
    sender = capture.patching.sender(shared_server.kubeconfig)
    capture.prepare(sender)
    return sender


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_request_is_answered_as_kube_apiserver_does(send: capture.patching.Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert _comparable(capture.answer(send, index)) == _comparable(RECORDED[name])


def test_a_refused_dry_run_writes_nothing(send: capture.patching.Send) -> None:
    """The create with dryRun=Bogus was refused, so the object it named does not exist."""
    status, _, _ = send("GET", capture.COLLECTION + "/made-by-case", None, capture.JSON)
    assert status == 404
    assert RECORDED["create dryRun Bogus"]["status"] == 422
