"""PodSecurity judges pods drawn at random (host namespaces, capabilities, users, seccomp, AppArmor,
SELinux, sysctls, volumes and more, at the pod's and the containers' levels) as kube-apiserver 1.36.2
judges them, in namespaces enforcing, warning and auditing levels at several versions: the same status,
message and warnings. Answers recorded by tools/capture_podsecurity_random.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_podsecurity_random")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


def test_the_draw_is_what_was_recorded() -> None:
    assert sorted(RECORDED, key=int) == [str(i) for i in range(capture.PODS)]
    assert {a["status"] for a in RECORDED.values()} == {201, 403, 422}


@pytest.mark.parametrize("index", range(capture.PODS))
def test_pod_is_judged_as_kube_apiserver_judges_it(send: capture.Send, index: int) -> None:
    assert capture.answer(send, index) == RECORDED[str(index)]
