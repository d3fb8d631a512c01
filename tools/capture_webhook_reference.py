"""Records what the reference kube-apiserver sends to admission webhooks and answers its clients, as
fixtures for tests/test_webhooks_reference.py.

    /work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-webhooks
    python3 tools/capture_webhook_reference.py ~/ref-run-webhooks/kubeconfig [scenario ...]

Runs each scenario of tests/webhook_scenarios.py against the server the kubeconfig names, with the
webhooks served on 127.0.0.1 by tests/webhook_server.py, and writes the normalized results to
tests/fixtures/webhooks/<scenario>.json.
"""

from __future__ import annotations

import json
import os
import random
import string
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))

from webhook_scenarios import DNS_NAMES, SCENARIOS, Cluster, normalized
from webhook_server import WebhookServer, make_certificates

FIXTURES = os.path.join(REPO, "tests", "fixtures", "webhooks")


def record(kubeconfig: str, names: list[str], scenarios: dict[str, Callable[[Cluster], Any]],
           normalize: Callable[[Any, str], Any], fixtures: str) -> None:
    """Runs the named scenarios (all when none) against the kubeconfig's server, with webhooks served on
    127.0.0.1, and writes each normalized result to fixtures/<scenario>.json."""
    with open(kubeconfig) as f:
        config = yaml.safe_load(f)
    server = config["clusters"][0]["cluster"]["server"]
    token = config["users"][0]["user"]["token"]
    directory = tempfile.mkdtemp()
    certificates = make_certificates(os.path.join(directory, "webhook"), DNS_NAMES)
    other = make_certificates(os.path.join(directory, "other"), ca_name="another-ca")
    webhooks = WebhookServer(certificates).start()
    try:
        run = "".join(random.choices(string.ascii_lowercase, k=5))
        cluster = Cluster(server, token, webhooks, certificates, other.ca_bundle, run)
        for name in names or list(scenarios):
            result = normalize(scenarios[name](cluster), run)
            with open(os.path.join(fixtures, f"{name}.json"), "w") as f:
                json.dump(result, f, indent=1, sort_keys=True)
                f.write("\n")
            print(f"recorded {name}")
    finally:
        webhooks.stop()


if __name__ == "__main__":
    record(sys.argv[1], sys.argv[2:], SCENARIOS, normalized, FIXTURES)
