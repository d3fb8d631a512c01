"""A custom resource's values judged against the types, formats and numeric ranges of its CRD's schema as
kube-apiserver 1.36.2 judges them (kube-openapi's type, format and number validators): values of every
JSON kind sent to fields of each type and format, numbers at the edges of int32, int64 and float, bounds
and factors of the wrong kind, enums, and the nulls dropped before validation, in creates, updates and
server-side applies. Answers recorded by tools/capture_cr_types.py."""

from __future__ import annotations

import pytest
from recorded import Send, prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_cr_types")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_value_is_judged_as_kube_apiserver_does(send: Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert capture.answer(send, index) == RECORDED[name]
