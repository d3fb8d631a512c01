"""ValidatingAdmissionPolicy and MutatingAdmissionPolicy answer as kube-apiserver 1.36.2 did: each
scenario of tests/policy_sweep_scenarios.py (matching, params, expressions and their errors, request
fields, validation actions, UPDATE and DELETE, mutations, policies refused when written) is replayed
through the official Python client and compared, answer by answer (code, message, causes, warnings, the
kept parts of objects), with the reference's answers that tools/capture_policy_sweep.py recorded.
"""

from __future__ import annotations

import json
import os

import pytest
from admission_replay import api_client, run
from policy_sweep_scenarios import SCENARIOS, normalized
from support import ServerProcess

# Once, on the embedded store: admission is decided before the store.
pytestmark = pytest.mark.store_once

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "policy_sweep")
# Answers that still differ, and why: each is checked to differ still, so that fixing it shows here.
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_answers_as_the_reference(shared_server: ServerProcess, scenario: str) -> None:
    with open(os.path.join(FIXTURES, f"{scenario}.json")) as f:
        expected = json.load(f)
    answers = normalized(run(api_client(shared_server.kubeconfig), SCENARIOS[scenario]))
    assert [a["step"] for a in answers] == [e["step"] for e in expected]
    for answer, wanted in zip(answers, expected):
        if (scenario, answer["step"]) in KNOWN_DIFFERENCES:
            assert answer != wanted, f"{answer['step']} agrees now: drop it from KNOWN_DIFFERENCES"
        else:
            assert answer == wanted, answer["step"]
