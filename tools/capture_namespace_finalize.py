"""Records kube-apiserver's answers to writes of namespaces/NAME/finalize into
tests/fixtures/namespace_finalize.json: the spec's finalizers taken as sent (the main resource keeps
them), the rest of the object as an update takes it but the status, ValidateNamespaceFinalizeUpdate's
refusals, managedFields of the finalize subresource, and a Terminating namespace whose finalizers are
all taken off removed at once (the usual cure for a namespace stuck Terminating).

Usage: python tools/capture_namespace_finalize.py KUBECONFIG  (a reference started by ../shared/reference/start.sh,
without controllers: nothing but the write under test changes a namespace). Each case makes its own
namespace, `fin-<case>` (one to delete first holds a ConfigMap with a finalizer); its answer keeps the status, a refusal's message, an accepted object's spec,
phase, labels and managedFields' managers and fields, and what a read of the namespace finds afterwards.
tests/test_namespace_finalize.py holds ours (apiserver/kinds/objects.py, apiserver/registry/core/) to them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "namespace_finalize.json")
JSON = "application/json"
Send = patching.Send
Obj = dict[str, Any]
Change = Callable[[Obj], Any]  # the namespace as read -> the body to send


def _finalizers(*names: str) -> Change:
    return lambda ns: {**ns, "spec": {"finalizers": list(names)}}


def _with(**meta: Any) -> Change:
    return lambda ns: {**ns, "metadata": {**ns["metadata"], **meta}, "spec": {"finalizers": ["kubernetes"]}}


# name -> (delete the namespace first, method, query, the body made from the namespace as read)
CASES: dict[str, tuple[bool, str, str, Change]] = {
    "take-off-kubernetes": (False, "PUT", "", _finalizers()),
    "add-one": (False, "PUT", "", _finalizers("kubernetes", "example.com/drain")),
    "bad-names": (False, "PUT", "?dryRun=All", _finalizers("Bad Name", "a/b/c", "kubernetes")),
    "status-ignored": (False, "PUT", "", lambda ns: {**ns, "spec": {"finalizers": []},
                                                     "status": {"phase": "Terminating"}}),
    "labels-taken": (False, "PUT", "", _with(labels={"team": "a"})),
    "bad-label": (False, "PUT", "?dryRun=All", _with(labels={"bad key": "a"})),
    "metadata-finalizer": (False, "PUT", "", _with(finalizers=["example.com/meta"])),
    "name-mismatch": (False, "PUT", "", _with(name="someone-else")),
    "stale-resource-version": (False, "PUT", "", _with(resourceVersion="1")),
    "a-pod": (False, "PUT", "", lambda ns: {"apiVersion": "v1", "kind": "Pod", "metadata": ns["metadata"]}),
    "unknown-field": (False, "PUT", "?fieldValidation=Strict", lambda ns: {**ns, "spec": {"finalizers": [],
                                                                                          "bogus": 1}}),
    "merge-patch": (False, "PATCH", "", lambda ns: {"spec": {"finalizers": []}}),
    "terminating-released": (True, "PUT", "", _finalizers()),
    "terminating-kept": (True, "PUT", "", _finalizers("kubernetes", "example.com/drain")),
}


def prepare(send: Send) -> None:
    return None


def _body(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def _seen(status: int, body: Any) -> Obj:
    if not isinstance(body, dict) or body.get("kind") == "Status":
        return {"code": status, "message": body.get("message") if isinstance(body, dict) else body}
    meta = body.get("metadata") or {}
    return {"code": status, "spec": body.get("spec"), "phase": (body.get("status") or {}).get("phase"),
            "labels": meta.get("labels"), "finalizers": meta.get("finalizers"),
            "deleting": meta.get("deletionTimestamp") is not None,
            "managed": [(e.get("manager"), e.get("operation"), e.get("subresource"), e.get("fieldsV1"))
                        for e in meta.get("managedFields") or ()]}


def run_case(send: Send, name: str) -> Obj:
    delete_first, method, query, change = CASES[name]
    namespace = f"fin-{name}"
    path = f"/api/v1/namespaces/{namespace}"
    status, made, _ = send("POST", "/api/v1/namespaces", _body({"apiVersion": "v1", "kind": "Namespace",
                                                                "metadata": {"name": namespace}}), JSON)
    assert status == 201, made
    if delete_first:
        # A ConfigMap its finalizer holds keeps the namespace Terminating whatever cleans namespaces up.
        send("POST", f"{path}/configmaps", _body({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "held", "finalizers": ["example.com/hold"]}}), JSON)
        send("DELETE", path, None, JSON)
    _, current, _ = send("GET", path, None, JSON)
    content_type = "application/merge-patch+json" if method == "PATCH" else JSON
    status, answer, _ = send(method, f"{path}/finalize{query}", _body(change(current)), content_type)
    read_status, read, _ = send("GET", path, None, JSON)
    return {"answer": _seen(status, answer), "afterwards": _seen(read_status, read)}


if __name__ == "__main__":
    patching.record_cases(sys.argv[1], sys.modules[__name__])
