"""A custom resource's values judged against the types, formats and numeric ranges of its CRD's schema as
kube-apiserver 1.36.2 judges them (kube-openapi's type, format and number validators): values of every
JSON kind sent to fields of each type and format, numbers at the edges of int32, int64 and float, bounds
and factors of the wrong kind, enums, and the nulls dropped before validation, in creates, updates and
server-side applies. Answers recorded by tools/capture_cr_types.py."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from support import ServerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import capture_cr_types as capture

pytestmark = pytest.mark.store_once

with open(capture.FIXTURE) as f:
    RECORDED: dict[str, Any] = json.load(f)


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.patching.Send:
    sender = capture.patching.sender(shared_server.kubeconfig)
    capture.prepare(sender)
    return sender


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_value_is_judged_as_kube_apiserver_does(send: capture.patching.Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert capture.answer(send, index) == RECORDED[name]
