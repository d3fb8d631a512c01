"""PATCH bodies decoded as kube-apiserver 1.36.2's patch handler decodes them: every patch type under every
fieldValidation directive, sent bodies of the wrong shape, null, broken JSON, unknown and repeated fields,
and operations that fail. The answers were recorded from the reference by tools/capture_patch_decoding.py;
before, 377 of these 480 were answered otherwise (a null JSON patch refused, `replace` of a missing key
refused where json-patch v4 adds it, Python's parser's words in place of Go's, a merge patch's strict
errors as a create's 400)."""

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

import capture_patch_decoding as capture

pytestmark = pytest.mark.store_once

with open(capture.FIXTURE) as f:
    RECORDED: dict[str, Any] = json.load(f)

# What differs between two servers and two runs: the object's uid, resourceVersion and times, which a
# refused patch's message shows inside the patched document.
_VOLATILE = [(re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "UID"),
             (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "TIME"),
             (re.compile(r'(resourceVersion\\*":\\*")\d+'), r"\1RV")]


def _comparable(answer: dict[str, Any]) -> str:
    text = json.dumps(answer, sort_keys=True)
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    sender = capture.sender(shared_server.kubeconfig)
    capture.prepare(sender)
    return sender


@pytest.mark.parametrize(("name", "kind", "directive", "body"), capture.cases(), ids=[c[0] for c in capture.cases()])
def test_patch_is_decoded_as_kube_apiserver_does(send: capture.Send, name: str, kind: str, directive: str,
                                                 body: bytes) -> None:
    answer = capture.answer(send, kind, directive, body, name.startswith("custom"))
    assert _comparable(answer) == _comparable(RECORDED[name])


def test_the_recorded_answers_cover_each_step() -> None:
    """The fixture holds a refusal at each step of the handler, and successes with and without warnings."""
    messages = [(a["body"] or {}).get("message", "") for a in RECORDED.values() if a["status"] != 200]
    assert any(m.startswith("error decoding patch: ") for m in messages)
    assert "Invalid JSON Patch" in messages
    assert any("strict decoding error" in m for m in messages)
    assert any("was undeterminable: name must be provided" in m for m in messages)
    assert any(a["status"] == 200 and a["warnings"] for a in RECORDED.values())
    assert len(RECORDED) == len(capture.cases())
