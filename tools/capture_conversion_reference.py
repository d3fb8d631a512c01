"""Records what the reference kube-apiserver sends to a CRD conversion webhook and answers its
clients, as fixtures for tests/test_conversion_webhooks.py.

    /work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-conversion
    python3 tools/capture_conversion_reference.py ~/ref-run-conversion/kubeconfig [scenario ...]
    /work/shared/reference/stop.sh ~/ref-run-conversion

Runs each scenario of tests/conversion_scenarios.py against the server the kubeconfig names, with the
webhook served on 127.0.0.1 by tests/webhook_server.py, and writes the normalized results to
tests/fixtures/conversion/<scenario>.json.
"""

from __future__ import annotations

import json
import os
import random
import string
import sys
import tempfile

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))

from conversion_scenarios import SCENARIOS, compared
from webhook_scenarios import DNS_NAMES, Cluster
from webhook_server import WebhookServer, make_certificates

FIXTURES = os.path.join(REPO, "tests", "fixtures", "conversion")


def main(kubeconfig: str, names: list[str]) -> None:
    with open(kubeconfig) as f:
        config = yaml.safe_load(f)
    server = config["clusters"][0]["cluster"]["server"]
    token = config["users"][0]["user"]["token"]
    directory = tempfile.mkdtemp()
    certificates = make_certificates(os.path.join(directory, "webhook"), DNS_NAMES)
    other = make_certificates(os.path.join(directory, "other"), ca_name="another-ca")
    webhook = WebhookServer(certificates).start()
    try:
        run = "".join(random.choices(string.ascii_lowercase, k=5))
        cluster = Cluster(server, token, webhook, certificates, other.ca_bundle, run)
        for name in names or list(SCENARIOS):
            result = compared(SCENARIOS[name](cluster), run)
            with open(os.path.join(FIXTURES, f"{name}.json"), "w") as f:
                json.dump(result, f, indent=1, sort_keys=True)
                f.write("\n")
            print(f"recorded {name}")
    finally:
        webhook.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
