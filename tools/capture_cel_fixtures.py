"""Records kube-apiserver's answers to the CRD-rule steps of tests/cel_scenarios.py as the tests' fixture.

Run against the reference (kube-apiserver 1.36.2):
    KUBECONFIG_PATH=$(/work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-cel)
    python3 tools/capture_cel_fixtures.py "$KUBECONFIG_PATH"
    /work/shared/reference/stop.sh ~/ref-run-cel
With --typechecking (the reference started with --controllers) it records instead the status.typeChecking
that kube-controller-manager writes for tests/cel_manifests/typecheck.yaml and typecheck_sweep.yaml.

It creates the CRDs, waits for them to be served, runs every step and writes
tests/fixtures/cel_crd_rules.json, then applies tests/cel_manifests/policies.yaml, runs the policy\nsteps and writes tests/fixtures/cel_policies.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cel_scenarios


def main(kubeconfig: str) -> None:
    crds = cel_scenarios.apply_crds(kubeconfig)
    for name in ("gateways.net.example.io", "certificates.pki.example.io", "machinedeployments.cluster.example.io"):
        subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "wait", "--for=condition=Established",
                        f"crd/{name}", "--timeout=60s"], check=True, capture_output=True)
    time.sleep(2)  # discovery catches up with a new CRD a moment after it is established
    steps = cel_scenarios.run_steps(kubeconfig)
    cel_scenarios.FIXTURE.parent.mkdir(exist_ok=True)
    cel_scenarios.FIXTURE.write_text(json.dumps({"crds": crds, "steps": steps}, indent=1) + "\n")
    subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "apply", "-f", str(cel_scenarios.POLICIES)], check=True,
                   capture_output=True)
    time.sleep(5)  # the policies reach the admission plugin through an informer
    policies = cel_scenarios.run_policy_steps(kubeconfig)
    subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "apply", "-f", str(cel_scenarios.MUTATING)], check=True,
                   capture_output=True)
    time.sleep(5)
    mutating = cel_scenarios.run_mutating_steps(kubeconfig)
    cel_scenarios.POLICY_FIXTURE.write_text(json.dumps({"steps": policies, "mutating": mutating}, indent=1) + "\n")


def typechecking(kubeconfig: str) -> None:
    """The status kube-controller-manager writes: needs the reference started with --controllers."""
    subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "apply", "-f", str(cel_scenarios.TYPECHECK)], check=True,
                   capture_output=True)
    for _ in range(30):
        time.sleep(1)
        got = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "get", "validatingadmissionpolicy", "typo-check",
                              "-o", "json"], check=True, capture_output=True, text=True)
        status = json.loads(got.stdout).get("status") or {}
        if status.get("observedGeneration"):
            cel_scenarios.TYPECHECK_FIXTURE.write_text(json.dumps({"status": status}, indent=1))
            break
    else:
        raise SystemExit("no status.typeChecking: was the reference started with --controllers?")
    subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "apply", "-f", str(cel_scenarios.TYPECHECK_SWEEP)],
                   check=True, capture_output=True)
    for _ in range(30):
        time.sleep(1)
        statuses = cel_scenarios.typechecking_statuses(kubeconfig)
        if statuses is not None:
            cel_scenarios.TYPECHECK_SWEEP_FIXTURE.write_text(json.dumps(statuses, indent=1, sort_keys=True) + "\n")
            return
    raise SystemExit("no status.typeChecking: was the reference started with --controllers?")


if __name__ == "__main__":
    if sys.argv[2:] == ["--typechecking"]:
        typechecking(sys.argv[1])
    else:
        main(sys.argv[1])
