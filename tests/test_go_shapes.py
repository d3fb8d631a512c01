"""How Go's types shape what kube-apiserver 1.36.2 stores and compares: a pointer to an empty struct
kept and told from none (a Job's immutable template refuses `lifecycle: {}`, takes `nodeSelector: {}`),
fields without omitempty written when unset (`sources: null`, `divisor: "0"`), and managedFields of the
object as Go wrote it. Answers recorded by tools/capture_go_shapes.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool, without_uids
from support import ServerProcess

capture, RECORDED = tool("capture_go_shapes")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_object_is_shaped_as_go_shapes_it(send: capture.Send, index: int) -> None:
    assert without_uids(capture.answer(send, index)) == without_uids(RECORDED[capture.CASES[index][0]])
