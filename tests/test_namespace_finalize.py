"""namespaces/NAME/finalize writes the spec's finalizers as kube-apiserver 1.36.2's namespaceFinalizeStrategy
does: the object as an update takes it but its status, ValidateNamespaceFinalizeUpdate's refusals,
managedFields of the finalize subresource, and a Terminating namespace whose finalizers are all taken off
removed at once, the usual cure for one stuck Terminating. Answers recorded by
tools/capture_namespace_finalize.py."""

from __future__ import annotations

import json

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_namespace_finalize")


def test_every_case_was_recorded() -> None:
    assert sorted(RECORDED) == sorted(capture.CASES)
    assert RECORDED["terminating-released"]["afterwards"]["code"] == 404


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("name", sorted(capture.CASES))
def test_finalize_is_answered_as_kube_apiserver_answers(send: capture.Send, name: str) -> None:
    # The fixture holds JSON: tuples come back as lists.
    assert json.loads(json.dumps(capture.run_case(send, name))) == RECORDED[name]
