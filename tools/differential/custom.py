"""Custom resources: writes to the objects of a CustomResourceDefinition each case installs first.

Every case creates its own CRD (a group of its own), waits until the resource is served, then sends
its request: creates within and outside the schema (ranges, enums, patterns, lengths, required
fields, list-sets and list-maps with duplicates, unknown fields pruned or refused under each
fieldValidation, a preserved free-form field, a CEL rule, defaults), every patch type (a strategic
merge patch is refused for custom resources), server-side apply by two managers, and the status and
scale subresources. They are reported under the kind `CustomResource`.
"""

from __future__ import annotations

import copy
from typing import Any

from tools.differential.cases import (
    APPLY,
    JSON_PATCH,
    MERGE,
    STRATEGIC,
    Case,
    Request,
    post,
    put_read,
    request,
    token_of,
)
from tools.differential.seeds import Obj

LABEL = "CustomResource"
_INT = {"type": "integer"}
_SPEC_SCHEMA: Obj = {
    "type": "object",
    "required": ["replicas"],
    "x-kubernetes-validations": [{"rule": "self.replicas <= 5 || self.mode == 'B'",
                                  "message": "more than 5 replicas need mode B"}],
    "properties": {
        "replicas": {"type": "integer", "minimum": 0, "maximum": 10},
        "mode": {"type": "string", "enum": ["A", "B"], "default": "A"},
        "name": {"type": "string", "maxLength": 8, "pattern": "^[a-z]+$"},
        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port"],
                  "items": {"type": "object", "required": ["port"],
                            "properties": {"port": _INT, "name": {"type": "string"}}}},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    },
}
_STATUS_SCHEMA: Obj = {"type": "object", "properties": {"replicas": _INT, "phase": {"type": "string"}}}


def _crd(group: str) -> Obj:
    schema = {"type": "object", "properties": {"spec": _SPEC_SCHEMA, "status": _STATUS_SCHEMA}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"widgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema},
                                   "subresources": {"status": {}, "scale": {
                                       "specReplicasPath": ".spec.replicas",
                                       "statusReplicasPath": ".status.replicas"}}}]}}


class _Case:
    def __init__(self, family: str, detail: str) -> None:
        self.id = f"{LABEL}/{family}/{detail}"
        token = token_of(self.id)
        self.namespace = f"d-{token}"
        self.group = f"w{token}.example.com"
        self.collection = f"/apis/{self.group}/v1/namespaces/{self.namespace}/widgets"
        self.item = f"{self.collection}/obj"
        self.obj: Obj = {"apiVersion": f"{self.group}/v1", "kind": "Widget",
                         "metadata": {"name": "obj", "namespace": self.namespace}, "spec": {"replicas": 1}}

    def served(self) -> list[Request]:
        """Install the CRD, then list until its resource is served (the reference establishes it async)."""
        crd = post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", _crd(self.group))
        return [crd, {"method": "GET", "path": self.collection, "until": 200}]

    def case(self, req: Request, setup: list[Request] | None = None, check: bool = True) -> Case:
        out: Case = {"id": self.id, "kind": LABEL, "namespace": self.namespace,
                     "setup": self.served() + (setup or []), "request": req}
        if check:
            out["check"] = {"method": "GET", "path": self.item}
        return out


_SPECS: dict[str, Any] = {
    "valid-minimal": {"replicas": 1},
    "valid-full": {"replicas": 3, "mode": "B", "name": "abc", "tags": ["a", "b"],
                   "ports": [{"port": 80, "name": "http"}], "extra": {"free": {"form": 1}}},
    "replicas-zero": {"replicas": 0},
    "replicas-negative": {"replicas": -1},
    "replicas-over-maximum": {"replicas": 11},
    "replicas-string": {"replicas": "3"},
    "replicas-missing": {"mode": "A"},
    "mode-unknown-enum": {"replicas": 1, "mode": "C"},
    "name-too-long": {"replicas": 1, "name": "abcdefghi"},
    "name-bad-pattern": {"replicas": 1, "name": "A1"},
    "tags-duplicate": {"replicas": 1, "tags": ["a", "a"]},
    "ports-duplicate-key": {"replicas": 1, "ports": [{"port": 80}, {"port": 80, "name": "x"}]},
    "ports-missing-key": {"replicas": 1, "ports": [{"name": "x"}]},
    "cel-rule-broken": {"replicas": 7, "mode": "A"},
    "cel-rule-kept": {"replicas": 7, "mode": "B"},
    "unknown-field": {"replicas": 1, "unknown": True},
    "null-field": {"replicas": 1, "mode": None},
    "spec-not-object": "text",
}


def _creates() -> list[Case]:
    out = []
    for label, spec in _SPECS.items():
        c = _Case("create", label)
        c.obj["spec"] = spec
        out.append(c.case(post(c.collection, c.obj)))
    for mode in ("Strict", "Warn", "Ignore"):
        c = _Case("create", f"unknown-fields-{mode}")
        c.obj["spec"]["unknown"] = 1
        c.obj["topUnknown"] = 2
        out.append(c.case(post(c.collection, c.obj, f"fieldValidation={mode}")))
    c = _Case("create", "bad-name")
    c.obj["metadata"]["name"] = "Bad_Name"
    out.append(c.case(post(c.collection, c.obj), check=False))
    c = _Case("create", "status-ignored")
    c.obj["status"] = {"replicas": 4}
    out.append(c.case(post(c.collection, c.obj)))
    return out


def _writes() -> list[Case]:
    out = []
    changes: dict[str, dict[str, Any]] = {
        "replicas-3": {"replicas": 3}, "replicas-over-maximum": {"replicas": 11},
        "mode-unknown-enum": {"mode": "C"}, "tags-set": {"tags": ["x", "y"]}}
    methods = ("put", "merge", "json", "strategic", "apply-second-manager", "apply-second-manager-force")
    for label, change in changes.items():
        for method in methods:
            c = _Case(f"writes-{method}", label)
            create = [post(c.collection, c.obj)]
            changed = copy.deepcopy(c.obj)
            changed["spec"].update(change)
            if method == "put":
                req = put_read(c.item, changed)
            elif method in ("merge", "strategic"):
                patch_type = MERGE if method == "merge" else STRATEGIC
                req = request("PATCH", c.item, {"spec": change}, "", patch_type)
            elif method == "json":
                req = request("PATCH", c.item, [{"op": "add", "path": f"/spec/{k}", "value": v}
                                                for k, v in change.items()], "", JSON_PATCH)
            else:
                force = "&force=true" if method.endswith("force") else ""
                create = [request("PATCH", c.item, c.obj, "fieldManager=first", APPLY)]
                req = request("PATCH", c.item, changed, "fieldManager=second" + force, APPLY)
            out.append(c.case(req, create))
    return out


def _subresources() -> list[Case]:
    out = []
    for label, replicas in (("three", 3), ("over-maximum", 11), ("negative", -1)):
        c = _Case("scale", label)
        body = {"apiVersion": "autoscaling/v1", "kind": "Scale",
                "metadata": {"name": "obj", "namespace": c.namespace}, "spec": {"replicas": replicas}}
        out.append(c.case(request("PUT", c.item + "/scale", body), [post(c.collection, c.obj)]))
    c = _Case("scale", "get")
    out.append(c.case({"method": "GET", "path": c.item + "/scale"}, [post(c.collection, c.obj)], check=False))
    for label, status in (("replicas", {"replicas": 2}), ("unknown-field", {"unknown": 1}),
                          ("wrong-type", {"replicas": "two"})):
        c = _Case("status", label)
        out.append(c.case(request("PATCH", c.item + "/status", {"status": status}, "", MERGE),
                          [post(c.collection, c.obj)]))
    c = _Case("status", "apply")
    status_apply = {"apiVersion": c.obj["apiVersion"], "kind": "Widget", "metadata": {"name": "obj"},
                    "status": {"phase": "Ready"}}
    out.append(c.case(request("PATCH", c.item + "/status", status_apply, "fieldManager=first", APPLY),
                      [post(c.collection, c.obj)]))
    c = _Case("delete", "existing")
    out.append(c.case({"method": "DELETE", "path": c.item}, [post(c.collection, c.obj)]))
    return out


def custom_cases() -> list[Case]:
    return _creates() + _writes() + _subresources()
