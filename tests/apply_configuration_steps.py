"""The steps of the MutatingAdmissionPolicy ApplyConfiguration comparison, shared by the test
(tests/test_admission_policies.py) and the script that recorded kube-apiserver 1.36.2's answers
(tools/capture_apply_configuration.py): dry-run creates of Deployments in a namespace the policies of
tests/cel_manifests/applyconfiguration.yaml select, each answered by its exit code, the object's
labels, annotations and spec (kubectl -o json) or kubectl's error lines.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from cel_scenarios import error_lines

MANIFEST = Path(__file__).parent / "cel_manifests" / "applyconfiguration.yaml"
FIXTURE = Path(__file__).parent / "fixtures" / "mutating_apply_configuration.json"
NAMESPACE = "map-apply"


def deployment(name: str, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
               containers: int = 1) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": NAMESPACE}
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    app = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata,
            "spec": {"replicas": 1, "selector": {"matchLabels": app},
                     "template": {"metadata": {"labels": app}, "spec": {"containers": [
                         {"name": "web" if i == 0 else f"worker-{i}", "image": "nginx:1.27"} for i in range(containers)]}}}}


INJECT = {"proxy.example.io/inject": "true"}
STEPS: list[tuple[str, dict[str, Any]]] = [
    ("injected", deployment("shop", annotations=INJECT)),
    ("injected-two-containers", deployment("cart", annotations=INJECT, containers=2)),
    ("not-asked", deployment("plain")),
    ("replace", deployment("replaced", labels={"case": "replace"})),
    ("atomic-struct", deployment("selector", labels={"case": "atomic"})),
    ("atomic-list", deployment("args", labels={"case": "atomic-list"})),
    ("type-mismatch", deployment("mismatch", labels={"case": "mismatch"})),
    ("evaluation-error", deployment("broken", labels={"case": "error"})),
    ("both-policies", deployment("both", labels={"case": "replace"}, annotations=INJECT)),
]


def apply_manifest(kubeconfig: str) -> None:
    subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "apply", "-f", str(MANIFEST)], check=True,
                   capture_output=True, timeout=60)
    for _ in range(300):  # policies reach the admission plugin a moment after they are written upstream
        if run_steps(kubeconfig, STEPS[:1])[0][2].get("labels"):
            return
        time.sleep(0.1)
    raise AssertionError("the ApplyConfiguration policy was never applied")


def run_steps(kubeconfig: str, steps: list[tuple[str, dict[str, Any]]] = STEPS) -> list[Any]:
    answers = []
    for name, body in steps:
        result = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "create", "--dry-run=server", "-o", "json",
                                 "-f", "-"], input=json.dumps(body), capture_output=True, text=True, timeout=60,
                                check=False)
        shown: dict[str, Any] = {}
        if result.returncode == 0:
            obj = json.loads(result.stdout)
            shown = {"labels": obj["metadata"].get("labels"), "annotations": obj["metadata"].get("annotations"),
                     "spec": obj["spec"]}
        answers.append([name, result.returncode, shown, error_lines(result.stderr)])
    return answers
