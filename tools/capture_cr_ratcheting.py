"""Records which failures of a custom object stored before its CRD grew stricter kube-apiserver lets
through on an update (validation ratcheting): a value equal to the old value it correlates with, and a
value with none (an item of a set or of an atomic list) whose nearest correlated ancestor is unchanged,
for x-kubernetes-validations rules and for the schema's own checks alike; a ratcheted failure is sent
back as a warning.

Usage: python tools/capture_cr_ratcheting.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
The object is written under a lax CRD, which is then made strict; every later write is a dry run. An
answer keeps the status, a refusal's message and the Warning lines. tests/test_cr_ratcheting.py holds
ours to them (apiserver/kinds/crvalidations.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "cr_ratcheting.json")
Send = patching.Send

NAMESPACE = "ratcheting"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/shelves.ratcheting.example.io"
SHELVES = f"/apis/ratcheting.example.io/v1/namespaces/{NAMESPACE}/shelves"
JSON = "application/json"
MERGE = "application/merge-patch+json"


def _crd(strict: bool) -> dict[str, Any]:
    """The CRD, lax (nothing but types) or strict (a rule and a maxLength at every kind of level)."""
    def short(schema: dict[str, Any], rule: str, message: str) -> dict[str, Any]:
        return {**schema, "x-kubernetes-validations": [{"rule": rule, "message": message}]} if strict else schema

    text = {"type": "string", **({"maxLength": 5} if strict else {})}
    word = short({"type": "string"}, "self.size() <= 5", "short")
    book = short({"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"n": {"type": "string"}}},
                 "self.n.size() <= 5", "short n")
    entry = short({"type": "object", "required": ["k"], "properties": {"k": {"type": "string"}, "v": text}},
                  "self.k.size() <= 5", "short k")
    spec = {"type": "object", "properties": {
        "note": {"type": "string"},
        "title": short({"type": "string"}, "self.size() <= 5", "short title"),
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": word},
        "books": {"type": "array", "x-kubernetes-list-type": "set", "items": book},
        "lines": {"type": "array", "items": word},
        "codes": {"type": "array", "items": text},
        "entries": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                    "items": entry},
        "labels": {"type": "object", "additionalProperties": word},
        "shelf": {"type": "object", "properties": {"label": word, "size": {"type": "string"}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "shelves.ratcheting.example.io"},
            "spec": {"group": "ratcheting.example.io", "scope": "Namespaced",
                     "names": {"plural": "shelves", "singular": "shelf", "kind": "Shelf"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": spec}}}}]}}


STORED = {"note": "a", "title": "toolong", "tags": ["toolong", "ok"], "books": [{"n": "toolong"}, {"n": "ok"}],
          "lines": ["toolong"], "codes": ["toolong"], "entries": [{"k": "toolong", "v": "toolong"}],
          "labels": {"a": "toolong"}, "shelf": {"label": "toolong", "size": "s"}}

# (name, merge patch of the stored object)
CASES: list[tuple[str, dict[str, Any]]] = [
    ("another field changed", {"spec": {"note": "b"}}),
    ("the failing scalar changed", {"spec": {"title": "longer"}}),
    ("a set gains an item", {"spec": {"tags": ["toolong", "ok", "x"]}}),
    ("a set of atomic maps gains an item", {"spec": {"books": [{"n": "toolong"}, {"n": "ok"}, {"n": "x"}]}}),
    ("a set reordered", {"spec": {"tags": ["ok", "toolong"]}}),
    ("an atomic list gains an item", {"spec": {"lines": ["toolong", "x"]}}),
    ("an atomic list of maxLength strings gains an item", {"spec": {"codes": ["toolong", "x"]}}),
    ("a map list gains an entry", {"spec": {"entries": [{"k": "toolong", "v": "toolong"}, {"k": "b", "v": "x"}]}}),
    ("a map list entry's other field changed", {"spec": {"entries": [{"k": "toolong", "v": "tooolong"}]}}),
    ("a map gains a key", {"spec": {"labels": {"b": "x"}}}),
    ("a failing value moved to another key", {"spec": {"labels": {"a": None, "b": "toolong"}}}),
    ("a struct's other field changed", {"spec": {"shelf": {"size": "m"}}}),
    ("a failing value added", {"spec": {"shelf": {"label": "toolong", "size": "s"}, "title": "toolong",
                                        "tags": ["toolong", "ok", "toolong2"]}}),
]


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)
    patching.forget_crd(send, "shelves.ratcheting.example.io")
    status, body, _ = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           json.dumps(_crd(False)).encode(), JSON)
    assert status == 201, body
    status, body = patching.until_served(send, "POST", SHELVES, json.dumps(
        {"apiVersion": "ratcheting.example.io/v1", "kind": "Shelf", "metadata": {"name": "stored"},
         "spec": STORED}).encode(), JSON, (201,))
    assert status == 201, body
    status, crd, _ = send("GET", CRD_PATH, None, JSON)
    strict = _crd(True)
    strict["metadata"]["resourceVersion"] = crd["metadata"]["resourceVersion"]
    status, body, _ = send("PUT", CRD_PATH, json.dumps(strict).encode(), JSON)
    assert status == 200, body
    deadline = time.monotonic() + 60  # until the handler judges by the strict schema
    while send("POST", f"{SHELVES}?dryRun=All", json.dumps(
            {"apiVersion": "ratcheting.example.io/v1", "kind": "Shelf", "metadata": {"name": "probe"},
             "spec": {"title": "toolong"}}).encode(), JSON)[0] != 422:
        assert time.monotonic() < deadline, "the strict CRD was never in force"
        time.sleep(0.5)


def answer(send: Send, index: int) -> dict[str, Any]:
    _, patch = CASES[index]
    status, reply, warnings = send("PATCH", f"{SHELVES}/stored?dryRun=All", json.dumps(patch).encode(), MERGE)
    if not (isinstance(reply, dict) and reply.get("kind") == "Status"):
        return {"status": status, "warnings": sorted(warnings)}
    # Causes sorted: upstream walks the spec's properties in Go's random map order.
    causes = sorted(f"{c.get('field')}: {c.get('message')}" for c in (reply.get("details") or {}).get("causes", []))
    return {"status": status, "causes": causes, "warnings": sorted(warnings)}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {case[0]: answer(send, i) for i, case in enumerate(CASES)})


if __name__ == "__main__":
    main(sys.argv[1])
