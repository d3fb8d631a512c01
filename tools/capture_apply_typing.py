"""Records how kube-apiserver refuses a server-side apply configuration whose values are not of their
field's type: structured-merge-diff's typing of the configuration ("failed to create typed patch object":
a scalar of the wrong kind, a map or list where the other is wanted, items a set or keyed list cannot
name) and the unstructured converter's refusal of the applied object ("failed to convert new object":
a fractional integer, int-or-string, times and quantities given what their own unmarshalling refuses).

Usage: python tools/capture_apply_typing.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Every case is a dry-run apply by one manager, to an existing Deployment, ConfigMap or custom resource
(update) or to a Deployment that does not exist (create). tests/test_apply_typing.py holds ours to the answers
(apiserver/kinds/structuredmerge.py typed_errors, apiserver/patching/unstructured.py restore_error).
"""

from __future__ import annotations

import copy
import json
import os
import sys
from typing import Any

import capture_patch_decoding as patching  # its sender and record serve here too

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "apply_typing.json")
NAMESPACE = "applytyping"
APPLY = "application/apply-patch+yaml"
DEPLOYMENTS = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments"
CONFIGMAPS = f"/api/v1/namespaces/{NAMESPACE}/configmaps"

_SPEC = {"replicas": 1, "selector": {"matchLabels": {"app": "s"}},
         "template": {"metadata": {"labels": {"app": "s"}}, "spec": {"containers": [{"name": "a", "image": "img"}]}}}


def _deployment(name: str, changes: dict[str, Any]) -> dict[str, Any]:
    """The Deployment with each change (a dotted path, "containers" for the first container's fields)
    written over it."""
    spec = copy.deepcopy(_SPEC)
    for path, value in changes.items():
        node: Any = spec
        *parents, last = path.replace("containers.", "template.spec.containers.0.").split(".")
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
        node[last] = value
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": spec}


def _configmap(name: str, **fields: Any) -> dict[str, Any]:
    meta = fields.pop("metadata", {})
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}, **fields}


_DEPLOYMENT_CHANGES: dict[str, dict[str, Any]] = {
    "replicas a bool": {"replicas": True},
    "replicas a string": {"replicas": "x"},
    "replicas a list": {"replicas": [1]},
    "replicas a map": {"replicas": {"a": 1}},
    "replicas a fraction": {"replicas": 1.5},
    "replicas a whole float": {"replicas": 2.0},
    "paused a string": {"paused": "yes"},
    "paused a number": {"paused": 3},
    "paused a map": {"paused": {"a": "b", "c": [1, None]}},
    "image a number": {"containers.image": 5},
    "image a fraction": {"containers.image": 5.5},
    "image a bool": {"containers.image": True},
    "image a list": {"containers.image": ["x", 1, None]},
    "image a map": {"containers.image": {"x": "y", "n": 1, "q": "tab\t\u00e9\u0001"}},
    "args item a number": {"containers.args": ["ok", 7]},
    "selector a string": {"selector": "x"},
    "selector a list": {"selector": ["a", 2]},
    "selector a number": {"selector": 3},
    "containers a map": {"template.spec.containers": {"a": 1}},
    "containers a string": {"template.spec.containers": "x"},
    "containers item a string": {"template.spec.containers": ["x"]},
    "containers item null": {"template.spec.containers": [None]},
    "containers item without name": {"template.spec.containers": [{"image": "i"}]},
    "cpu limit a number": {"containers.resources": {"limits": {"cpu": 1}}},
    "cpu limit a bool": {"containers.resources": {"limits": {"cpu": True}}},
    "cpu limit a map": {"containers.resources": {"limits": {"cpu": {"a": 1}}}},
    "cpu limit bad text": {"containers.resources": {"limits": {"cpu": "lots"}}},
    "container port a string": {"containers.ports": [{"containerPort": "80"}]},
    "maxSurge a bool": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": True}}},
    "maxSurge a map": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": {"a": 1}}}},
    "maxSurge a list": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": [1]}}},
    "maxSurge a fraction": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1.5}}},
    "maxSurge too large": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1 << 40}}},
    "maxSurge a tiny float": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1e-7}}},
    "template label a number": {"template.metadata.labels": {"app": "s", "n": 5}},
    "template creationTimestamp a number": {"template.metadata.creationTimestamp": 5},
    "template creationTimestamp a bool": {"template.metadata.creationTimestamp": False},
    "template creationTimestamp bad text": {"template.metadata.creationTimestamp": "yesterday"},
    "template finalizers item a map": {"template.metadata.finalizers": [{"a": 1}]},
    "template finalizers item a list": {"template.metadata.finalizers": [["x"]]},
    "template finalizers item null": {"template.metadata.finalizers": ["x", None]},
    "template finalizers duplicated": {"template.metadata.finalizers": ["x", "x"]},
    "several wrong fields": {"replicas": "x", "paused": "y", "minReadySeconds": True, "selector": 3},
}

_CONFIGMAPS: dict[str, dict[str, Any]] = {
    "configmap data value a number": {"data": {"a": None, "b": 1}},
    "configmap data a string and binaryData value a number": {"data": "x", "binaryData": {"k": 5}},
    "configmap annotations a list and data value a list": {"metadata": {"annotations": ["a"]},
                                                           "data": {"k": [1, None, "s", 1.5, {"a": None}]}},
    "configmap immutable a string": {"immutable": "yes"},
    "configmap labels a map of maps": {"metadata": {"labels": {"a": {"b": "c"}}}},
}

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "gadgets.applytyping.example.io"},
       "spec": {"group": "applytyping.example.io", "scope": "Namespaced",
                "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": {
                        "size": {"type": "integer"}, "ratio": {"type": "number"}, "name": {"type": "string"},
                        "when": {"type": "string", "format": "date-time"}, "flag": {"type": "boolean"},
                        "port": {"x-kubernetes-int-or-string": True},
                        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                        "items": {"type": "array", "x-kubernetes-list-type": "map",
                                  "x-kubernetes-list-map-keys": ["name"],
                                  "items": {"type": "object", "required": ["name"], "properties": {
                                      "name": {"type": "string"}, "count": {"type": "integer"}}}},
                    }}}}}}]}}
GADGETS = f"/apis/applytyping.example.io/v1/namespaces/{NAMESPACE}/gadgets"

_GADGET_SPECS: dict[str, dict[str, Any]] = {
    "gadget size a string": {"size": "x"},
    "gadget size a bool": {"size": True},
    "gadget size a fraction": {"size": 1.5},
    "gadget ratio a string": {"ratio": "half"},
    "gadget name a number": {"name": 5},
    "gadget name a map": {"name": {"a": 1}},
    "gadget flag a string": {"flag": "yes"},
    "gadget port a map": {"port": {"a": 1}},
    "gadget port a bool": {"port": True},
    "gadget free anything": {"free": {"a": [1, {"b": None}], "c": True}},
    "gadget labels value a number": {"labels": {"a": 1}},
    "gadget tags duplicated": {"tags": ["x", "x"]},
    "gadget tags item a map": {"tags": [{"a": 1}]},
    "gadget items duplicated": {"items": [{"name": "a"}, {"name": "a", "count": 2}]},
    "gadget items item without key": {"items": [{"count": 1}]},
    "gadget items count a string": {"items": [{"name": "a", "count": "two"}]},
    "gadget undeclared field": {"bogus": 1},
    "gadget spec a list": [1],
}


def _gadget(name: str, spec: Any) -> dict[str, Any]:
    return {"apiVersion": "applytyping.example.io/v1", "kind": "Gadget", "metadata": {"name": name}, "spec": spec}


# (name, path, configuration): each Deployment case as an update and as a create, then the ConfigMaps.
CASES: list[tuple[str, str, dict[str, Any]]] = [
    *((name, f"{DEPLOYMENTS}/shaped", _deployment("shaped", changes)) for name, changes in _DEPLOYMENT_CHANGES.items()),
    *((f"create: {name}", f"{DEPLOYMENTS}/absent", _deployment("absent", changes))
      for name, changes in _DEPLOYMENT_CHANGES.items()),
    *((name, f"{CONFIGMAPS}/settings", _configmap("settings", **copy.deepcopy(fields)))
      for name, fields in _CONFIGMAPS.items()),
    *((name, f"{GADGETS}/g1", _gadget("g1", spec)) for name, spec in _GADGET_SPECS.items()),
]


def prepare(send: patching.Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), "application/json")
    status, reply, _ = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                            json.dumps(CRD).encode(), "application/json")
    assert status in (201, 409), reply
    for path, body in ((f"{DEPLOYMENTS}/shaped", _deployment("shaped", {})),
                       (f"{CONFIGMAPS}/settings", _configmap("settings", data={"a": "1"})),
                       (f"{GADGETS}/g1", _gadget("g1", {"size": 1}))):
        status, reply = patching.until_served(send, "PATCH", path + "?fieldManager=owner", json.dumps(body).encode(),
                                              APPLY, (200, 201))
        assert status in (200, 201), reply


def answer(send: patching.Send, index: int) -> dict[str, Any]:
    """One case's answer: the status, and the message of a refusal (of a success, nothing more)."""
    _, path, config = CASES[index]
    status, reply, _ = send("PATCH", path + "?fieldManager=typist&dryRun=All", json.dumps(config).encode(), APPLY)
    return {"status": status, "message": reply.get("message") if status >= 400 else None}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {name: answer(send, i) for i, (name, *_) in enumerate(CASES)})


if __name__ == "__main__":
    main(sys.argv[1])
