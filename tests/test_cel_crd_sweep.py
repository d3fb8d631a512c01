"""CRD `x-kubernetes-validations` as kube-apiserver 1.36.2 runs them, request by request: the sweep of
tests/cel_crd_sweep.py (CRDs in the image of Gateway API, cert-manager, cluster-api, Karpenter and
Crossplane; CRDs refused for their rules; custom resources created, patched, applied, dry-run and
written through status and scale) replayed through the official Python client and compared, answer by
answer (code, message, causes, warnings, the kept parts of objects), with the reference's answers that
tools/capture_cel_crd_sweep.py recorded in tests/fixtures/cel_crd_sweep.json.
"""

from __future__ import annotations

import json
from typing import Any

import cel_crd_sweep as sweep
import pytest
from admission_replay import api_client
from support import ServerProcess

# Once, on the embedded store: rules are decided before the store.
pytestmark = pytest.mark.store_once

# Steps whose answers still differ from kube-apiserver 1.36.2's, and why (this list only shrinks).
KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def answers(shared_server: ServerProcess) -> dict[str, list[dict[str, Any]]]:
    api = api_client(shared_server.kubeconfig)
    setup = sweep.run(api, sweep.setup_steps())
    sweep.wait_served(api, setup)
    return {"setup": setup, "broken": sweep.run(api, sweep.broken_steps()), "steps": sweep.run(api, sweep.STEPS)}


def recorded(part: str) -> list[dict[str, Any]]:
    assert sweep.FIXTURE.exists(), "record the reference's answers: tools/capture_cel_crd_sweep.py"
    return sweep.answers(json.loads(sweep.FIXTURE.read_text())[part])


@pytest.mark.parametrize("part", ["setup", "broken", "steps"])
def test_ours_equal_the_recorded_reference(answers: dict[str, list[dict[str, Any]]], part: str) -> None:
    wanted = recorded(part)
    assert [a["step"] for a in answers[part]] == [w["step"] for w in wanted]
    differing = [(got["step"], got, want) for got, want in zip(answers[part], wanted)
                 if got != want and got["step"] not in KNOWN_DIFFERENCES]
    assert not differing, json.dumps(differing, indent=1)[:20000]
    now_equal = [got["step"] for got, want in zip(answers[part], wanted)
                 if got == want and got["step"] in KNOWN_DIFFERENCES]
    assert not now_equal, f"agree now, take them off KNOWN_DIFFERENCES: {now_equal}"
