"""ResourceQuota admission and the resourcequota controller answer sequences of writes drawn at random
(pods, services, claims, config maps and secrets created, services' types and claims' storage changed,
objects deleted) against quotas drawn at random as kube-apiserver 1.36.2 does: each write's status and
refusal in the same words, and the quotas' usage after each recount and at the end. Answers recorded
by tools/capture_quota_random.py.

Not store_once: the writes are real, and what admission charges is written to the quotas' status before
the object, on both stores."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_quota_random")

# the controllers the reference ran that touch what the quotas count: the quota controller, the root CA
# publisher (its config map counts in count/configmaps), the claim protection controller (a deleted
# claim is counted until it lets the claim go) and the binder (only a bound claim's storage can grow)
CONTROLLERS = ("--controllers=resourcequota-controller,root-ca-certificate-publisher-controller,"
               "persistentvolumeclaim-protection-controller,persistentvolume-binder-controller")


@pytest.fixture(scope="module")
def send(tmp_path_factory: pytest.TempPathFactory) -> Iterator[capture.Send]:
    with ServerProcess(str(tmp_path_factory.mktemp("quota")), extra_args=[CONTROLLERS]) as server:
        yield prepared_sender(server, capture)


def test_the_draw_is_what_was_recorded() -> None:
    assert sorted(RECORDED, key=int) == [str(i) for i in range(capture.SCENARIOS)]
    steps = [step for i in range(capture.SCENARIOS) for step in RECORDED[str(i)]["steps"]]
    assert [step["write"] for step in steps] == [
        f"{method} {resource}/{name}" for i in range(capture.SCENARIOS)
        for method, resource, name, _, _ in capture.sequence(i)]
    assert {step["status"] for step in steps} == {200, 201, 403, 404, 422}
    assert any("or" in step for step in steps), "no write was refused by two quotas"


def _chosen(answer: dict[str, Any], recorded: dict[str, Any]) -> dict[str, Any]:
    """Our answer with a refusal naming another quota that also refused (the reference lists a
    namespace's quotas in Go's map order, so it names either) taken as the recorded wording."""
    steps = []
    for ours, theirs in zip(answer["steps"], recorded["steps"]):
        if ours.get("message") in theirs.get("or", ()):
            ours = {**ours, "message": theirs["message"], "or": theirs["or"]}
        elif "or" in theirs and ours.get("message") == theirs.get("message"):
            ours = {**ours, "or": theirs["or"]}
        steps.append(ours)
    return {**answer, "steps": steps}


@pytest.mark.parametrize("index", range(capture.SCENARIOS))
def test_writes_are_charged_as_kube_apiserver_charges_them(send: capture.Send, index: int) -> None:
    recorded = RECORDED[str(index)]
    assert _chosen(capture.answer(send, index, recorded), recorded) == recorded
