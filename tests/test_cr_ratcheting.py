"""A custom object stored before its CRD grew stricter is ratcheted as kube-apiserver 1.36.2 ratchets it:
a failing value equal to the old value it correlates with, or without one (a set's or an atomic list's
item, a map's new key) under an unchanged correlated ancestor, is let through with a warning. Answers
recorded by tools/capture_cr_ratcheting.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_cr_ratcheting")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_update_is_ratcheted_as_kube_apiserver_ratchets_it(send: capture.Send, index: int) -> None:
    assert capture.answer(send, index) == RECORDED[capture.CASES[index][0]]
