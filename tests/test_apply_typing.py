"""Server-side apply configurations whose values are not of their field's type, refused as
kube-apiserver 1.36.2 refuses them: structured-merge-diff's typing of the configuration and the
unstructured converter's refusal of the applied object, in their words. Answers recorded by
tools/capture_apply_typing.py.

Upstream answers both with a 500. Ours answers the typing's with a 422 and the same message, the one
deviation the SSA goldens accept (../shared/golden/ssa/compare_ssa.py: a client's configuration is not a
server error), and the conversion's as upstream does. Where several values are wrong upstream lists
them in Go's random map order, so the lines are compared as a set."""

from __future__ import annotations

from typing import Any

import pytest
from recorded import Send, prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_apply_typing")

pytestmark = pytest.mark.store_once


def _comparable(answer: dict[str, Any]) -> tuple[int, Any]:
    status, message = answer["status"], answer["message"]
    if status == 500 and message.startswith("failed to create typed patch object"):
        status = 422  # the house's one deviation, see the module's docstring
    if message and "errors:\n" in message:
        head, _, lines = message.partition("errors:\n")
        return status, (head, sorted(lines.split("\n")))
    return status, message


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_mistyped_configuration_is_refused_as_kube_apiserver_does(send: Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert _comparable(capture.answer(send, index)) == _comparable(RECORDED[name])


def test_a_refused_configuration_changes_nothing(send: Send) -> None:
    """The Deployment the refused applies named is as its owner applied it."""
    status, deployment, _ = send("GET", f"{capture.DEPLOYMENTS}/shaped", None, "application/json")
    assert status == 200
    assert deployment["spec"]["replicas"] == 1 and deployment["metadata"]["generation"] == 1
    assert send("GET", f"{capture.DEPLOYMENTS}/absent", None, "application/json")[0] == 404
