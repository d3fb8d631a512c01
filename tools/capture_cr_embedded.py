"""Records how kube-apiserver decodes the resources a custom object embeds (x-kubernetes-embedded-resource):
their apiVersion and kind must be strings and their metadata must decode as an ObjectMeta (a 400 while
decoding, in encoding/json's words), and that metadata is written back as ObjectMeta writes itself:
unknown fields dropped (and named under fieldValidation Warn or Strict, sorted), empty ones left out,
times in UTC (schemaobjectmeta's Coerce).

Usage: python tools/capture_cr_embedded.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Every write is a dry run. An answer keeps the status, a refusal's message or a success's spec, and the
Warning lines. tests/test_cr_embedded.py holds ours to them (apiserver/crd/objectmeta.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "cr_embedded.json")
Send = patching.Send

NAMESPACE = "embedding"
PLURAL = "fleets"
TEMPLATES = f"/apis/embedding.example.io/v1/namespaces/{NAMESPACE}/{PLURAL}"
JSON = "application/json"
MERGE = "application/merge-patch+json"

_RESOURCE = {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": f"{PLURAL}.embedding.example.io"},
       "spec": {"group": "embedding.example.io", "scope": "Namespaced",
                "names": {"plural": PLURAL, "singular": "fleet", "kind": "Fleet"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": {
                        "template": _RESOURCE,
                        "members": {"type": "array", "items": _RESOURCE},
                        "named": {"type": "object", "additionalProperties": _RESOURCE},
                        "typed": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
                            "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                            "metadata": {"type": "object"}, "data": {"type": "string"}}}}}}}}}]}}


def _resource(metadata: Any, kind: Any = "ConfigMap", api_version: Any = "v1") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata}


def _fleet(name: str, spec: dict[str, Any]) -> bytes:
    return json.dumps({"apiVersion": "embedding.example.io/v1", "kind": "Fleet", "metadata": {"name": name},
                       "spec": spec}).encode()


_STRANGER = {"template": _resource({"name": "a", "stranger": 1})}
# (name, method, path, body, content type)
CASES: list[tuple[str, str, str, bytes, str]] = [
    *[(f"unknown metadata field {how or 'no directive'}", "POST",
       f"{TEMPLATES}?dryRun=All" + (f"&fieldValidation={how}" if how else ""), _fleet("made", _STRANGER), JSON)
      for how in ("", "Ignore", "Warn", "Strict")],
    ("unknown fields in two resources, sorted", "POST", f"{TEMPLATES}?dryRun=All&fieldValidation=Warn",
     _fleet("made", {"template": _resource({"zeta": 1, "alpha": 2}),
                     "members": [_resource({"name": "m", "beta": 3})]}), JSON),
    ("unknown field in an owner reference", "POST", f"{TEMPLATES}?dryRun=All&fieldValidation=Warn",
     _fleet("made", {"template": _resource({"ownerReferences": [
         {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "bogus": True}]})}), JSON),
    ("unknown field beside an unknown spec field", "POST", f"{TEMPLATES}?dryRun=All&fieldValidation=Strict",
     _fleet("made", {"extra": 1, "template": _resource({"stranger": 1})}), JSON),
    ("labels a string", "POST", f"{TEMPLATES}?dryRun=All", _fleet("made", {"template": _resource({"labels": "x"})}),
     JSON),
    ("generation a string", "POST", f"{TEMPLATES}?dryRun=All",
     _fleet("made", {"template": _resource({"generation": "1"})}), JSON),
    ("metadata a string", "POST", f"{TEMPLATES}?dryRun=All", _fleet("made", {"template": _resource("x")}), JSON),
    ("metadata a list", "POST", f"{TEMPLATES}?dryRun=All", _fleet("made", {"template": _resource([1])}), JSON),
    ("metadata null", "POST", f"{TEMPLATES}?dryRun=All", _fleet("made", {"template": _resource(None)}), JSON),
    ("kind a number", "POST", f"{TEMPLATES}?dryRun=All", _fleet("made", {"template": _resource({}, kind=5)}), JSON),
    ("apiVersion a bool", "POST", f"{TEMPLATES}?dryRun=All",
     _fleet("made", {"template": _resource({}, api_version=True)}), JSON),
    ("kind a number in a list", "POST", f"{TEMPLATES}?dryRun=All",
     _fleet("made", {"members": [_resource({}), _resource({}, kind=[])]}), JSON),
    ("labels a number in a map", "POST", f"{TEMPLATES}?dryRun=All",
     _fleet("made", {"named": {"x": _resource({"labels": 1})}}), JSON),
    ("empty and zero fields", "POST", f"{TEMPLATES}?dryRun=All",
     _fleet("made", {"template": _resource({"name": "", "namespace": "", "generation": 0, "labels": {},
                                            "finalizers": [], "uid": "u", "creationTimestamp": None})}), JSON),
    ("times in another zone", "POST", f"{TEMPLATES}?dryRun=All",
     _fleet("made", {"template": _resource({"name": "t", "creationTimestamp": "2024-05-01T10:00:00+02:00",
                                            "deletionTimestamp": "2024-05-01T10:00:00.5Z"})}), JSON),
    ("a typed embedded resource", "POST", f"{TEMPLATES}?dryRun=All&fieldValidation=Warn",
     _fleet("made", {"typed": {"apiVersion": "v1", "kind": "ConfigMap", "data": "d",
                               "metadata": {"name": "n", "stranger": 1}}}), JSON),
    ("merge patch adds an unknown metadata field", "PATCH", f"{TEMPLATES}/base?dryRun=All&fieldValidation=Strict",
     b'{"spec":{"template":{"metadata":{"stranger":1}}}}', MERGE),
    ("merge patch makes labels a string", "PATCH", f"{TEMPLATES}/base?dryRun=All",
     b'{"spec":{"template":{"metadata":{"labels":"x"}}}}', MERGE),
    ("update with an unknown metadata field", "PUT", f"{TEMPLATES}/base?dryRun=All&fieldValidation=Warn",
     _fleet("base", _STRANGER), JSON),
]


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)
    status, body, _ = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           json.dumps(CRD).encode(), JSON)
    assert status in (201, 409), body
    status, body = patching.until_served(send, "POST", TEMPLATES,
                                         _fleet("base", {"template": _resource({"name": "b"})}), JSON, (201, 409))
    assert status in (201, 409), body


def answer(send: Send, index: int) -> dict[str, Any]:
    _, method, path, body, content_type = CASES[index]
    status, reply, warnings = send(method, path, body, content_type)
    if isinstance(reply, dict) and reply.get("kind") == "Status":
        return {"status": status, "message": patching.masked(str(reply.get("message"))), "warnings": warnings}
    return {"status": status, "spec": reply.get("spec") if isinstance(reply, dict) else reply, "warnings": warnings}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {case[0]: answer(send, i) for i, case in enumerate(CASES)})


if __name__ == "__main__":
    main(sys.argv[1])
