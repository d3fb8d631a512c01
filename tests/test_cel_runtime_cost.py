"""CEL is held to kube-apiserver 1.36.2's runtime cost limits: an expression is cancelled once it costs
more than the per-call limit, a custom object's rules share one budget, and so do a policy binding's
validations (with their variables and messageExpressions) and its matchConditions, as do a webhook's; each shape flips
from within the limits to past them at the size the reference flips at, with its words. Answers
recorded by tools/capture_cel_runtime_cost.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_cel_runtime_cost")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    sender = prepared_sender(shared_server, capture)
    capture.prepare_policies(sender)
    return sender


@pytest.mark.parametrize("index", range(len(capture.SHAPES)), ids=[s[0] for s in capture.SHAPES])
def test_rule_flips_where_kube_apiserver_flips(send: capture.Send, index: int) -> None:
    recorded = RECORDED[capture.SHAPES[index][0]]
    assert capture.answer(send, index, recorded["size"]) == recorded["accepted"]
    assert capture.answer(send, index, recorded["size"] + 1) == recorded["refused"]


ADMISSION = [shape[0] for shape in capture.POLICY_SHAPES] + [shape[0] for shape in capture.WEBHOOK_SHAPES]


@pytest.mark.parametrize("name", ADMISSION)
def test_admission_flips_where_kube_apiserver_flips(send: capture.Send, name: str) -> None:
    recorded = RECORDED[name]
    assert capture.configmap_answer(send, name, recorded["size"]) == recorded["accepted"]
    assert capture.configmap_answer(send, name, recorded["size"] + 1) == recorded["refused"]
