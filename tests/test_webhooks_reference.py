"""Admission webhooks against the reference's recorded answers: each scenario of webhook_scenarios
runs against this server with real HTTPS webhooks on loopback, and what the webhooks were sent and
what the client saw must equal what kube-apiserver 1.36.2 sent and answered
(tests/fixtures/webhooks, recorded by tools/capture_webhook_reference.py)."""

from __future__ import annotations

import difflib
import json
import os
from typing import Any, Iterator

import pytest
from support import ServerProcess
from webhook_scenarios import DNS_NAMES, SCENARIOS, Cluster, normalized
from webhook_server import WebhookServer, make_certificates

# Once, on the embedded store: admission is decided before the store.
pytestmark = pytest.mark.store_once

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "webhooks")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    directory = tmp_path_factory.mktemp("webhooks")
    server = ServerProcess(str(directory / "server"))
    server.start()
    certificates = make_certificates(str(directory / "webhook"), DNS_NAMES)
    webhooks = WebhookServer(certificates).start()
    try:
        yield Cluster(server.url, server.token, webhooks, certificates,
                      make_certificates(str(directory / "other"), ca_name="another-ca").ca_bundle)
    finally:
        webhooks.stop()
        server.stop_all()


def _recorded(name: str) -> Any:
    with open(os.path.join(FIXTURES, f"{name}.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_scenario_goes_as_on_the_reference(cluster: Cluster, name: str) -> None:
    ours = json.loads(json.dumps(normalized(SCENARIOS[name](cluster), cluster.run)))
    recorded = _recorded(name)
    if ours != recorded:
        diff = difflib.unified_diff(_lines(recorded), _lines(ours), "reference", "ours", lineterm="")
        pytest.fail("\n".join(diff), pytrace=False)


def _lines(value: Any) -> list[str]:
    return json.dumps(value, indent=1, sort_keys=True).splitlines()
