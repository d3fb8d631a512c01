"""Records kube-controller-manager 1.36's answers to tests/controller_scenarios.py in
tests/data/controller_answers.json, which tests/test_controller_answers.py holds this server to.

Usage: python tools/capture_controller_answers.py BIN DIR
BIN holds kube-apiserver and kube-controller-manager 1.36.2; DIR is scratch space. The reference API
server is started with ../shared/reference/start.sh (without its controllers); kube-controller-manager
is started here with the flags the scenarios need (a signing CA, node CIDR allocation) and stopped after.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from controller_scenarios import SCENARIOS  # noqa: E402

from apiserver.auth import pki  # noqa: E402

SHARED = os.environ.get("FASTKUBE_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
OUT = os.path.join(REPO, "tests", "data", "controller_answers.json")
CONTROLLERS = ("persistentvolume-binder-controller,persistentvolumeclaim-protection-controller,"
               "persistentvolume-protection-controller,certificatesigningrequest-signing-controller,"
               "node-ipam-controller,horizontal-pod-autoscaler-controller")


def main(binaries: str, directory: str) -> None:
    kubeconfig = subprocess.run([os.path.join(SHARED, "reference", "start.sh"), binaries, directory],
                                check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    pki.ensure_credentials(directory, [])  # a CA (pki/ca.crt, pki/ca.key) for the CSR signer to sign with
    manager = subprocess.Popen([
        os.path.join(binaries, "kube-controller-manager"), f"--kubeconfig={kubeconfig}", f"--controllers={CONTROLLERS}",
        f"--cluster-signing-cert-file={directory}/pki/ca.crt", f"--cluster-signing-key-file={directory}/pki/ca.key",
        "--allocate-node-cidrs", "--cluster-cidr=10.244.0.0/16", "--leader-elect=false", "--secure-port=0",
        "--use-service-account-credentials=false", "--horizontal-pod-autoscaler-sync-period=1s"],
        stdout=open(os.path.join(directory, "kcm.log"), "wb"), stderr=subprocess.STDOUT)

    def kubectl(*args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([os.path.join(binaries, "kubectl"), "--kubeconfig", kubeconfig, *args], check=check,
                              capture_output=True, text=True, input=stdin)

    try:
        answers: dict[str, Any] = {name: scenario(kubectl) for name, scenario in SCENARIOS.items()}
    finally:
        manager.send_signal(signal.SIGTERM)
        manager.wait()
        subprocess.run([os.path.join(SHARED, "reference", "stop.sh"), directory], check=False)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(answers, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
