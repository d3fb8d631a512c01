"""The default admission plugins that decide on stored state, and the privileged-container check, answer
as kube-apiserver 1.36.2 did: each scenario of admission_scenarios.py is replayed against this server
through the official Python client and compared, answer by answer (code, message, warnings, the kept
parts of objects), with the reference's answers that tools/capture_admission_plugins.py recorded.
"""

from __future__ import annotations

import json
import os
from typing import Iterator

import pytest
from admission_replay import api_client, run
from admission_scenarios import SCENARIOS
from support import ServerProcess

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "admission_fixtures")


@pytest.fixture(scope="module")
def controlled_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """With every controller, as the reference ran: the quota controller fills quotas' status, and the
    root CA publisher's ConfigMap counts against count/configmaps there too."""
    proc = ServerProcess(str(tmp_path_factory.mktemp("server")), extra_args=["--controllers=*"])
    proc.start()
    try:
        yield proc
    finally:
        proc.stop_all()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_answers_as_the_reference(controlled_server: ServerProcess, scenario: str) -> None:
    with open(os.path.join(FIXTURES, f"{scenario}.json")) as f:
        expected = json.load(f)
    answers = run(api_client(controlled_server.kubeconfig), SCENARIOS[scenario])
    assert [a["step"] for a in answers] == [e["step"] for e in expected]
    for answer, wanted in zip(answers, expected):
        assert answer == wanted, answer["step"]
