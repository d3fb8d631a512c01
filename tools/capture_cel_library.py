"""Records kube-apiserver's answers to tests/cel_library_scenarios.py (Kubernetes' CEL format and
authorizer libraries, CRD rule ratcheting's warnings) as the tests' fixture, tests/fixtures/cel_library.json.

Run against the reference (kube-apiserver 1.36.2):
    KUBECONFIG_PATH=$(/work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-cel)
    python3 tools/capture_cel_library.py "$KUBECONFIG_PATH"
    /work/shared/reference/stop.sh ~/ref-run-cel
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cel_library_scenarios as scenarios


def main(kubeconfig: str) -> None:
    crds = scenarios.create_format_crds(kubeconfig)
    for plural in ("formatprobes", "expressionprobes"):
        subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "wait", "--for=condition=Established",
                        f"crd/{plural}.{scenarios.GROUP}", "--timeout=60s"], check=True, capture_output=True)
    time.sleep(2)  # discovery catches up with a new CRD a moment after it is established
    formats = scenarios.run_format_steps(kubeconfig)
    created = scenarios.create_authz_objects(kubeconfig)
    time.sleep(5)  # the policies reach the admission plugin through an informer
    authz = scenarios.run_authz_steps(kubeconfig)
    ratchet = scenarios.run_ratchet_steps(kubeconfig)
    scenarios.FIXTURE.write_text(json.dumps({"crds": crds, "formats": formats, "created": created, "authz": authz,
                                             "ratchet": ratchet}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
