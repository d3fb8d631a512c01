"""JSON numbers with a fraction or an exponent as kube-apiserver 1.36.2 reads them: refused for a
built-in type's integer field by their spelling (`1e3`), whole float64s where an object is converted
from a map (wrapped to the field's width, as Go's conversion wraps them), and integers once whole in a
custom resource. Answers recorded by tools/capture_number_spellings.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool, without_uids
from support import ServerProcess

capture, RECORDED = tool("capture_number_spellings")

pytestmark = pytest.mark.store_once


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("index", range(len(capture.CASES)), ids=[c[0] for c in capture.CASES])
def test_number_is_read_as_kube_apiserver_reads_it(send: capture.Send, index: int) -> None:
    assert without_uids(capture.answer(send, index)) == without_uids(RECORDED[capture.CASES[index][0]])


def test_a_whole_float_is_stored_as_an_integer(send: capture.Send) -> None:
    """Not only the dry run's answer: the custom resource written and read back holds an integer."""
    body = capture._gauge("stored", "ratio", "4.0")
    status, created, _ = send("POST", capture.GAUGES, body, capture.JSON)
    assert status == 201, created
    status, read, _ = send("GET", f"{capture.GAUGES}/stored", None, capture.JSON)
    assert status == 200 and type(read["spec"]["ratio"]) is int and read["spec"]["ratio"] == 4
