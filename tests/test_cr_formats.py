"""A custom resource's strings judged against every format a CRD's schema supports as kube-apiserver
1.36.2 judges them (kube-openapi's strfmt.Default registry): values each format's Go check takes and
refuses, and format names with and without hyphens or in an unknown case. Answers recorded by
tools/capture_cr_formats.py."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from support import ServerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import capture_cr_formats as capture

pytestmark = pytest.mark.store_once

with open(capture.FIXTURE) as f:
    RECORDED: dict[str, Any] = json.load(f)


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.patching.Send:
    sender = capture.patching.sender(shared_server.kubeconfig)
    capture.prepare(sender)
    return sender


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_string_is_judged_against_its_format_as_kube_apiserver_does(send: capture.patching.Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert capture.answer(send, index) == RECORDED[name]
