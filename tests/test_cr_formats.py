"""A custom resource's strings judged against every format a CRD's schema supports as kube-apiserver
1.36.2 judges them (kube-openapi's strfmt.Default registry): values each format's Go check takes and
refuses, and format names with and without hyphens or in an unknown case. Answers recorded by
tools/capture_cr_formats.py."""

from __future__ import annotations

import pytest
from recorded import Send, prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_cr_formats")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_string_is_judged_against_its_format_as_kube_apiserver_does(send: Send, index: int) -> None:
    name = capture.CASES[index][0]
    assert capture.answer(send, index) == RECORDED[name]
