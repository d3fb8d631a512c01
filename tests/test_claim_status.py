"""A ResourceClaim's status writes (resourceclaims/status) are prepared and judged as kube-apiserver
1.36.2's resourceclaimStatusStrategy does: the namespace's admin-access label, the synthetic
resourceclaims/binding and resourceclaims/driver permissions of the user who writes (impersonated), then
ValidateResourceClaimStatusUpdate, all in one 422. Answers recorded by tools/capture_claim_status.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool, without_uids
from support import ServerProcess

capture, RECORDED = tool("capture_claim_status")

pytestmark = pytest.mark.store_once


def test_every_case_was_recorded_and_ran() -> None:
    assert sorted(RECORDED) == sorted(capture.CASES)
    assert not [name for name, answer in RECORDED.items() if "code" not in answer]
    assert {answer["code"] for answer in RECORDED.values()} == {200, 422}


@pytest.fixture(scope="module")
def send(shared_server: ServerProcess) -> capture.Send:
    return prepared_sender(shared_server, capture)


@pytest.mark.parametrize("name", sorted(capture.CASES))
def test_status_write_is_answered_as_kube_apiserver_answers(send: capture.Send, name: str) -> None:
    assert without_uids(capture.run_case(send, name)) == without_uids(RECORDED[name])
