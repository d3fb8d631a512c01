"""Records what kube-apiserver's pod strategy writes into a created pod itself (PrepareForCreate): the
SchedulingGated condition of a pod created with scheduling gates, and the pod's own label values
merged into its affinity terms' and topology spread constraints' selectors from matchLabelKeys and
mismatchLabelKeys; a Deployment's template is left as sent. And the +default markers of the v1 types
the generated defaulters apply (a gRPC probe's service, a file key reference's optional).

Usage: python tools/capture_pod_prepare.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Every create is a dry run; an answer keeps the status and the written spec's affected fields and status
(times masked). tests/test_pod_prepare.py holds ours to them (apiserver/registry/core/strategies.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "pod_prepare.json")
Send = patching.Send
NAMESPACE = "pod-prepare"
JSON = "application/json"
LABELS = {"app": "web", "tier": "front"}

_TERM = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}},
         "matchLabelKeys": ["app", "missing"], "mismatchLabelKeys": ["tier"]}
_SPREAD = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}

# (name, the pod's spec beside one container)
CASES: list[tuple[str, dict[str, Any]]] = [
    ("scheduling gates", {"schedulingGates": [{"name": "example.com/a"}, {"name": "example.com/b"}]}),
    ("no scheduling gates", {"schedulingGates": []}),
    ("affinity terms", {"affinity": {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_TERM],
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 1, "podAffinityTerm": {**_TERM, "labelSelector": {}}}]},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "zone", "labelSelector": {"matchExpressions": None}, "matchLabelKeys": ["app"]}],
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 2, "podAffinityTerm": {"topologyKey": "zone", "labelSelector": {
                    "matchExpressions": [{"key": "x", "operator": "Exists"}]}, "mismatchLabelKeys": ["app"]}}]}}}),
    ("topology spread", {"topologySpreadConstraints": [
        {**_SPREAD, "labelSelector": {"matchLabels": {"a": "b"}}, "matchLabelKeys": ["app", "missing"]},
        {**_SPREAD, "topologyKey": "host", "labelSelector": {}, "matchLabelKeys": ["tier"]},
        {**_SPREAD, "topologyKey": "rack"}]}),
    ("declared defaults of probes and env", {"volumes": [{"name": "cfg", "emptyDir": {}}], "containers": [
        {"name": "c", "image": "registry.example.com/app:1", "livenessProbe": {"grpc": {"port": 1}},
         "readinessProbe": {"grpc": {"port": 2, "service": None}}, "startupProbe": {"grpc": {"port": 3, "service": "s"}},
         "env": [{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "cfg", "path": "p", "key": "k"}}},
                 {"name": "B", "valueFrom": {"fileKeyRef": {"volumeName": "cfg", "path": "p", "key": "k",
                                                            "optional": True}}}]}]}),
]


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)


def _kept(status: int, body: Any, spec_at: tuple[str, ...]) -> dict[str, Any]:
    if status >= 300:
        return {"status": status, "message": body.get("message") if isinstance(body, dict) else body}
    spec: Any = body
    for key in spec_at:
        spec = spec[key]
    conditions = [{**c, "lastTransitionTime": "T"} for c in (body.get("status") or {}).get("conditions") or ()]
    return {"status": status, "affinity": spec.get("affinity"), "spread": spec.get("topologySpreadConstraints"),
            "containers": spec.get("containers"), "conditions": conditions}


def answer(send: Send, index: int) -> dict[str, Any]:
    """The index-th case as a pod and as a Deployment's template, dry-run created."""
    spec = {"containers": [{"name": "c", "image": "registry.example.com/app:1"}], **CASES[index][1]}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{index}", "labels": LABELS}, "spec": spec}
    status, body, _ = send("POST", f"/api/v1/namespaces/{NAMESPACE}/pods?dryRun=All", json.dumps(pod).encode(), JSON)
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"d{index}"},
                  "spec": {"selector": {"matchLabels": LABELS}, "template": {"metadata": {"labels": LABELS},
                                                                            "spec": spec}}}
    templated, body2, _ = send("POST", f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments?dryRun=All",
                               json.dumps(deployment).encode(), JSON)
    return {"pod": _kept(status, body, ("spec",)),
            "deployment": _kept(templated, body2, ("spec", "template", "spec"))}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {name: answer(send, i) for i, (name, _) in enumerate(CASES)})


if __name__ == "__main__":
    main(sys.argv[1])
