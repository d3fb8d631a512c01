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

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from capture_webhook_reference import record
from conversion_scenarios import SCENARIOS, compared

FIXTURES = os.path.join(REPO, "tests", "fixtures", "conversion")


if __name__ == "__main__":
    record(sys.argv[1], sys.argv[2:], SCENARIOS, compared, FIXTURES)
