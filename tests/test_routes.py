"""Every method on the paths a resource is reached by, with and without a namespace and a name (a built-in
namespaced resource, a custom one, a cluster-scoped one), and updates of a missing object whose bodies the
handler refuses first, answer as kube-apiserver 1.36.2 answers: across namespaces only a list or watch
is routed, a body is decoded and its name checked before the object is looked up. Answers recorded by
tools/capture_routes.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_routes")


def test_every_case_was_recorded() -> None:
    assert sorted(RECORDED) == sorted(capture.CASES)
    assert {answer["code"] for answer in RECORDED.values()} >= {200, 201, 400, 404, 405}


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("name", sorted(capture.CASES))
def test_route_is_answered_as_kube_apiserver_answers(send: capture.Send, name: str) -> None:
    assert capture.run_case(send, name) == RECORDED[name]
