"""Records kube-apiserver's answers to tests/cel_macro_scenarios.py (cel-go's two-variable comprehensions
and `sortBy` in CRD rules, a ValidatingAdmissionPolicy and a webhook's matchConditions) as the tests'
fixture, tests/fixtures/cel_macros.json.

Run against the reference (kube-apiserver 1.36.2):
    KUBECONFIG_PATH=$(/work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-celmacros)
    python3 tools/capture_cel_macros.py "$KUBECONFIG_PATH"
    /work/shared/reference/stop.sh ~/ref-run-celmacros
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cel_macro_scenarios as scenarios


def main(kubeconfig: str) -> None:
    crds = scenarios.create_crds(kubeconfig)
    subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "wait", "--for=condition=Established",
                    f"crd/macroprobes.{scenarios.GROUP}", "--timeout=60s"], check=True, capture_output=True)
    time.sleep(2)  # discovery catches up with a new CRD a moment after it is established
    probe = scenarios.run_probe(kubeconfig)
    created = scenarios.create_objects(kubeconfig)
    time.sleep(5)  # the policies and webhooks reach admission through informers
    steps = scenarios.run_steps(kubeconfig)
    scenarios.FIXTURE.write_text(json.dumps({"crds": crds, "probe": probe, "created": created, "steps": steps},
                                            indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
