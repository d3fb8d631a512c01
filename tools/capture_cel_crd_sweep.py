"""Records kube-apiserver's answers to the CRD-rule sweep (tests/cel_crd_sweep.py) as the tests' fixture,
tests/fixtures/cel_crd_sweep.json.

Run against a fresh reference (kube-apiserver 1.36.2; the steps' names are fixed):
    KUBECONFIG_PATH=$(/work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-celcrd)
    python3 tools/capture_cel_crd_sweep.py "$KUBECONFIG_PATH"
    /work/shared/reference/stop.sh ~/ref-run-celcrd
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cel_crd_sweep as sweep
from admission_replay import api_client


def main(kubeconfig: str) -> None:
    api = api_client(kubeconfig)
    setup = sweep.run(api, sweep.setup_steps())
    sweep.wait_served(api, setup)
    broken = sweep.run(api, sweep.broken_steps())
    steps = sweep.run(api, sweep.STEPS)
    sweep.FIXTURE.write_text(json.dumps({"setup": setup, "broken": broken, "steps": steps}, indent=1,
                                        sort_keys=True) + "\n")
    print(f"{len(setup)} setup, {len(broken)} refused CRDs, {len(steps)} steps")


if __name__ == "__main__":
    main(sys.argv[1])
