"""What the pod strategy writes into a created pod, as kube-apiserver 1.36.2 writes it: the
SchedulingGated condition, and matchLabelKeys/mismatchLabelKeys merged into selectors with the pod's
own label values (a Deployment's template is left as sent). Answers recorded by
tools/capture_pod_prepare.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_pod_prepare")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_created_pod_is_prepared_as_kube_apiserver_prepares_it(send: capture.Send, index: int) -> None:
    assert capture.answer(send, index) == RECORDED[capture.CASES[index][0]]
