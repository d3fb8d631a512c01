"""Records kube-apiserver's answers to Eviction bodies (POST pods/NAME/eviction) into
tests/fixtures/eviction_bodies.json: other kinds and versions, mistyped and unknown fields, names and
namespaces that do not match, and delete options EvictionREST or the pod's delete refuses.

Usage: python tools/capture_eviction_bodies.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
The pod evicted is on no node, so an eviction that is let through deletes it at once: every case but
those refused before the delete is a dry run, and the pod is made again before each case. An answer
keeps the status, the message and the Warning headers; afterwards, whether the pod is there and its
conditions' types. tests/test_eviction_bodies.py holds ours (apiserver/http/eviction.py) to them.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "eviction_bodies.json")
JSON = "application/json"
NAMESPACE = "eviction-bodies"
POD = f"/api/v1/namespaces/{NAMESPACE}/pods"
EVICTION = f"{POD}/web/eviction"
Send = patching.Send
Obj = dict[str, Any]


def _eviction(**fields: Any) -> Obj:
    return {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"}, **fields}


# name -> (query, body, content type)
CASES: dict[str, tuple[str, Any, str]] = {
    "no-type-meta": ("?dryRun=All", {"metadata": {"name": "web"}}, JSON),
    "a-pod": ("?dryRun=All", {**_eviction(), "apiVersion": "v1", "kind": "Pod"}, JSON),
    "v1beta1": ("?dryRun=All", {**_eviction(), "apiVersion": "policy/v1beta1"}, JSON),
    "v1beta2": ("?dryRun=All", {**_eviction(), "apiVersion": "policy/v1beta2"}, JSON),
    "another-group": ("?dryRun=All", {**_eviction(), "apiVersion": "apps/v1"}, JSON),
    "not-an-object": ("", [1], JSON),
    "yaml": ("?dryRun=All", "apiVersion: policy/v1\nkind: Eviction\nmetadata:\n  name: web\n", "application/yaml"),
    "unknown-field-strict": ("?dryRun=All&fieldValidation=Strict", _eviction(bogus=1), JSON),
    "unknown-field-warn": ("?dryRun=All&fieldValidation=Warn", _eviction(bogus=1), JSON),
    "metadata-a-string": ("?dryRun=All", {**_eviction(), "metadata": "web"}, JSON),
    "no-metadata": ("?dryRun=All", {"apiVersion": "policy/v1", "kind": "Eviction"}, JSON),
    "name-mismatch": ("?dryRun=All", {**_eviction(), "metadata": {"name": "other"}}, JSON),
    "namespace-mismatch": ("?dryRun=All", {**_eviction(), "metadata": {"name": "web", "namespace": "x"}}, JSON),
    "options-a-string": ("?dryRun=All", _eviction(deleteOptions="now"), JSON),
    "grace-a-string": ("?dryRun=All", _eviction(deleteOptions={"gracePeriodSeconds": "30"}), JSON),
    "precondition-uid-a-number": ("?dryRun=All", _eviction(deleteOptions={"preconditions": {"uid": 5}}), JSON),
    "dry-run-a-string": ("?dryRun=All", _eviction(deleteOptions={"dryRun": "All"}), JSON),
    "dry-run-unsupported": ("", _eviction(deleteOptions={"dryRun": ["Some"]}), JSON),
    "dry-run-mismatch": ("?dryRun=All", _eviction(deleteOptions={"dryRun": ["Some"]}), JSON),
    "propagation-unsupported": ("?dryRun=All", _eviction(deleteOptions={"propagationPolicy": "Sideways"}), JSON),
    "orphan-and-propagation": ("?dryRun=All", _eviction(deleteOptions={"propagationPolicy": "Orphan",
                                                                       "orphanDependents": True}), JSON),
    "ignore-store-read-error": ("?dryRun=All", _eviction(deleteOptions={
        "ignoreStoreReadErrorWithClusterBreakingPotential": True}), JSON),
    "dry-run-in-body": ("", _eviction(deleteOptions={"dryRun": ["All"]}), JSON),
    "evicted": ("", _eviction(), JSON),
}


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)


def _pod(send: Send) -> None:
    """The pod `web` as new: on no node, so a delete removes it at once."""
    send("DELETE", f"{POD}/web", None, JSON)
    status, body, _ = send("POST", POD, json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                                                    "spec": {"containers": [{"name": "app",
                                                                             "image": "registry.example/app:1"}]}}
                                                   ).encode(), JSON)
    assert status == 201, body


def run_case(send: Send, name: str) -> Obj:
    query, body, content_type = CASES[name]
    _pod(send)
    data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    status, answer, warnings = send("POST", EVICTION + query, data, content_type)
    message = answer.get("message") if isinstance(answer, dict) else answer
    _, pod, _ = send("GET", f"{POD}/web", None, JSON)
    conditions = [c.get("type") for c in ((pod.get("status") or {}).get("conditions") or ())] \
        if isinstance(pod, dict) and pod.get("kind") == "Pod" else None
    return {"code": status, "message": message, "warnings": warnings, "pod conditions": conditions}


if __name__ == "__main__":
    patching.record_cases(sys.argv[1], sys.modules[__name__])
