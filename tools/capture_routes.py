"""Records kube-apiserver's answers to every method on the paths a resource is reached by, with and
without a namespace and a name, for a built-in namespaced resource, a custom one and a cluster-scoped
one, into tests/fixtures/routes.json; and to updates of a missing object with bodies the update handler
refuses before it looks the object up.

Across namespaces only a list or watch is routed (go-restful answers 405 for another method, 404 for an
object's path; the CRD handler passes them on to http.NotFound); a POST to an object's path is a 405,
but the CRD handler creates from it with the body's name; an update or patch of a collection is a 405,
or the CRD handler's "name must be provided"; a DeleteCollection's list options and a delete's
preconditions come from the query. Every write is a dry run.

Usage: python tools/capture_routes.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
tests/test_routes.py holds ours (apiserver/http/app.py, apiserver/http/endpoint.py) to them.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "routes.json")
JSON = "application/json"
MERGE = "application/merge-patch+json"
NAMESPACE = "routes"
Send = patching.Send
Obj = dict[str, Any]

_CRD: Obj = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.routes.example.com"},
    "spec": {"group": "routes.example.com", "names": {"plural": "gadgets", "kind": "Gadget"}, "scope": "Namespaced",
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
_BODIES: dict[str, Obj] = {
    "configmaps": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "made"}},
    "gadgets": {"apiVersion": "routes.example.com/v1", "kind": "Gadget", "metadata": {"name": "made"}},
    "nodes": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "made"}},
}
_PREFIXES = {"configmaps": "/api/v1", "gadgets": "/apis/routes.example.com/v1", "nodes": "/api/v1"}


def _paths(resource: str) -> list[str]:
    prefix = _PREFIXES[resource]
    found = [f"{prefix}/{resource}", f"{prefix}/{resource}/thing", f"{prefix}/{resource}/thing/status"]
    if resource != "nodes":
        found += [f"{prefix}/namespaces/{NAMESPACE}/{resource}", f"{prefix}/namespaces/{NAMESPACE}/{resource}/thing"]
    return found


# name -> (method, path, body, content type)
CASES: dict[str, tuple[str, str, Any, str]] = {
    f"{method} {path}": (method, path, None if method == "GET" else _BODIES[resource],
                         MERGE if method == "PATCH" else JSON)
    for resource in _BODIES for path in _paths(resource) for method in ("GET", "POST", "PUT", "PATCH", "DELETE")
}
_MISSING = f"/api/v1/namespaces/{NAMESPACE}/configmaps/missing"
CASES.update({
    f"PUT missing, {what}": ("PUT", _MISSING, body, JSON) for what, body in (
        ("a mistyped field", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "missing"},
                              "data": {"a": 1}}),
        ("another kind", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "missing"}}),
        ("another group's kind", {"apiVersion": "routes.example.com/v1", "kind": "Gadget",
                                  "metadata": {"name": "missing"}}),
        ("another name", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}}),
        ("another namespace", {"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "missing", "namespace": "elsewhere"}}),
        ("an array", [1]),
        ("a bad label", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "missing",
                                                                             "labels": {"a b": "c"}}}),
        ("no type meta", {"metadata": {"name": "missing"}}),
    )
})


_COLLECTION = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
# A DeleteCollection lists with the request's list options (one page when it sets a limit) and answers the
# list; a uid or resourceVersion parameter of any delete is a precondition too.
CASES.update({
    f"DELETE {what}": ("DELETE", path, None, JSON) for what, path in (
        ("a collection, limit 1", f"{_COLLECTION}?limit=1"),
        ("a collection, limit 2", f"{_COLLECTION}?limit=2"),
        ("a collection, selected", f"{_COLLECTION}?labelSelector=tier%3Dfront"),
        ("a collection, a bad continue", f"{_COLLECTION}?continue=abc"),
        ("a collection, resourceVersion 0", f"{_COLLECTION}?resourceVersion=0&limit=1"),
        ("a collection, all", _COLLECTION),
        ("an object, resourceVersion 5", f"{_COLLECTION}/c2?resourceVersion=5"),
        ("an object, another uid", f"{_COLLECTION}/c2?uid=4f0c8a52-0000-4000-8000-000000000009"),
        ("a missing object, a uid", f"{_COLLECTION}/nothing?uid=4f0c8a52-0000-4000-8000-000000000009"),
    )
})
_SCALE = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/web/scale"
# A /scale body is decoded as autoscaling/v1's Scale, and its name checked, before the object is looked up;
# a patch of it that names another kind or version is the patched document's 422.
CASES.update({
    f"scale {what}": (method, path, body, MERGE if method == "PATCH" else JSON) for what, method, path, body in (
        ("PUT a Pod", "PUT", _SCALE, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}}),
        ("PUT autoscaling/v2", "PUT", _SCALE, {"apiVersion": "autoscaling/v2", "kind": "Scale",
                                               "metadata": {"name": "web"}, "spec": {"replicas": 1}}),
        ("PUT apps/v1beta2", "PUT", _SCALE, {"apiVersion": "apps/v1beta2", "kind": "Scale",
                                             "metadata": {"name": "web"}, "spec": {"replicas": 1}}),
        ("PUT another name", "PUT", _SCALE, {"apiVersion": "autoscaling/v1", "kind": "Scale",
                                             "metadata": {"name": "other"}, "spec": {"replicas": 1}}),
        ("PUT another namespace", "PUT", _SCALE, {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {
            "name": "web", "namespace": "elsewhere"}, "spec": {"replicas": 1}}),
        ("PUT no type meta", "PUT", _SCALE, {"metadata": {"name": "web"}, "spec": {"replicas": 2}}),
        ("PUT a Pod to a missing object", "PUT", _SCALE.replace("/web/", "/missing/"),
         {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "missing"}}),
        ("PATCH to a Pod", "PATCH", _SCALE, {"kind": "Pod"}),
        ("PATCH to autoscaling/v2", "PATCH", _SCALE, {"apiVersion": "autoscaling/v2"}),
        ("PATCH the replicas", "PATCH", _SCALE, {"spec": {"replicas": 3}}),
    )
})
_IN_RECORD = re.compile(r"in record \([^)]*\)")
_PATCHED = re.compile(r'patch: Invalid value: ".*": ')


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)
    send("POST", f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments", json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
            "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "containers": [{"name": "app", "image": "registry.example/app:1"}]}}}}).encode(), JSON)
    for name, labels in (("c1", {"tier": "front"}), ("c2", {}), ("c3", {})):
        send("POST", _COLLECTION, json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": name, "labels": labels}}).encode(), JSON)
    send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json.dumps(_CRD).encode(), JSON)
    for _ in range(60):
        status, _, _ = send("GET", f"{_PREFIXES['gadgets']}/namespaces/{NAMESPACE}/gadgets", None, JSON)
        if status == 200:
            return
        time.sleep(0.5)
    raise AssertionError("the CRD is not served")


def run_case(send: Send, name: str) -> Obj:
    method, path, body, content_type = CASES[name]
    query = "" if method == "GET" else ("&" if "?" in path else "?") + "dryRun=All"
    status, answer, _ = send(method, path + query, None if body is None else json.dumps(body).encode(), content_type)
    if isinstance(answer, dict) and answer.get("kind") == "Status":
        message = answer.get("message")
        if isinstance(message, str):
            # What differs between servers: an object's version, and the patched document a 422 prints.
            message = _PATCHED.sub("patch: Invalid value: (the patched object): ",
                                   _IN_RECORD.sub("in record (...)", message))
        return {"code": status, "reason": answer.get("reason"), "message": message}
    if isinstance(answer, dict) and answer.get("kind") == "Scale":
        return {"code": status, "kind": "Scale", "spec": answer.get("spec")}
    if isinstance(answer, dict) and method == "DELETE" and "items" in answer:
        meta = answer.get("metadata") or {}
        return {"code": status, "kind": answer.get("kind"), "metadata": sorted(meta),
                "remainingItemCount": meta.get("remainingItemCount"),
                "items": [(item.get("metadata") or {}).get("name") for item in answer["items"] or ()]}
    if isinstance(answer, dict):
        return {"code": status, "kind": answer.get("kind")}
    return {"code": status, "text": answer}


if __name__ == "__main__":
    patching.record_cases(sys.argv[1], sys.modules[__name__])
