"""Records where kube-apiserver's runtime CEL cost limits start refusing: for each shape of an
expensive rule or policy, the largest size (a list's length, a string's) the reference accepts, found
by bisection, and its answers at that size and one past it.

Usage: python tools/capture_cel_runtime_cost.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
The CRD's rules pass the static limits when it is written (each is held to StaticEstimatedCostLimit)
but can cost more than PerCallLimit (1,000,000) when run, or together more than a custom object's
RuntimeCELCostBudget (10,000,000). Every write is a dry run. Request bodies are built here from a size,
so the fixture keeps only the sizes and the answers. tests/test_cel_runtime_cost.py holds ours to them
(apiserver/cel/runtimecost.py, apiserver/cel/budget.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "cel_runtime_cost.json")
Send = patching.Send

NAMESPACE = "celcost"
GROUP = "celcost.example.io"
CRD_NAME = f"gauges.{GROUP}"
GAUGES = f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/gauges"
JSON = "application/json"


def _strings(max_items: int, max_length: int) -> dict[str, Any]:
    return {"type": "array", "maxItems": max_items, "items": {"type": "string", "maxLength": max_length}}


def _ruled(schema: dict[str, Any], *rules: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "x-kubernetes-validations": list(rules)}


# Each field of the spec is one shape: its rules run only when a case sets it.
SPEC: dict[str, Any] = {"type": "object", "properties": {
    "nested": _ruled(_strings(900, 4), {"rule": "self.all(x, self.all(y, x != y || x == y))"}),
    "exists": _ruled(_strings(600, 4), {"rule": "!self.exists(x, self.exists(y, x == y + 'z'))"}),
    "concat": _ruled(_strings(50, 4000), {"rule": "self.all(x, self.all(y, (x + y).size() >= 0))"}),
    "pattern": _ruled(_strings(100, 20000), {"rule": "self.all(x, x.matches('^[a-z]+(-[a-z]+)*$'))"}),
    "member": _ruled({"type": "object", "properties": {"a": _strings(2000, 8), "b": _strings(2000, 8)}},
                     {"rule": "self.a.all(x, x in self.b)"}),
    "filtered": _ruled(_strings(1000, 4), {"rule": "self.filter(x, x.startsWith('a')).size() + "
                                                  "self.map(x, x + 'b').size() >= 0 && self.all(x, "
                                                  "self.exists_one(y, y == x) ? true : self[0] == x)"}),
    "message": _ruled(_strings(900, 4), {"rule": "self.size() == 0",
                                         "messageExpression": "self.all(x, self.all(y, x == y || x != y)) ? 'all' : 'none'"}),
    "items": {"type": "array", "maxItems": 80, "items": _ruled(
        {"type": "object", "properties": {"l": _strings(100, 4)}},
        *[{"rule": f"self.l.all(x, self.l.all(y, x == y || x != y || {n} == 0))"} for n in range(3)])},
    "rules": _ruled(_strings(400, 4), *[{"rule": f"self.all(x, self.all(y, x != y || x == y || {n} == 0))"}
                                        for n in range(12)]),
}}


def _words(count: int, length: int = 4) -> list[str]:
    """`count` distinct lowercase words of `length` letters."""
    out = []
    for n in range(count):
        word = ""
        for _ in range(length):
            word, n = chr(ord("a") + n % 26) + word, n // 26
        out.append(word)
    return out


# (name, field, the largest size to try, the value of that field at a size)
SHAPES: list[tuple[str, str, int, Callable[[int], Any]]] = [
    ("nested all over n strings", "nested", 900, lambda n: _words(n)),
    ("nested exists with concatenation over n strings", "exists", 600, lambda n: _words(n)),
    ("concatenated pairs of 50 strings of n characters", "concat", 4000, lambda n: ["a" * n] * 50),
    ("matches over 100 strings of n characters", "pattern", 20000, lambda n: ["a" * n] * 100),
    ("n strings each in n strings", "member", 2000, lambda n: {"a": _words(n), "b": _words(n)}),
    ("filter, map and exists_one over n strings", "filtered", 1000, lambda n: _words(n)),
    ("messageExpression over n strings", "message", 900, lambda n: _words(n)),
    ("n items each with 3 rules over 100 strings", "items", 80, lambda n: [{"l": _words(100)}] * n),
    ("12 rules over n strings", "rules", 400, lambda n: _words(n)),
]


def _crd() -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": CRD_NAME},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": "gauges", "singular": "gauge", "kind": "Gauge"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": SPEC}}}}]}}


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)
    patching.forget_crd(send, CRD_NAME)
    status, body, _ = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           json.dumps(_crd()).encode(), JSON)
    assert status == 201, body
    status, body = patching.until_served(send, "POST", f"{GAUGES}?dryRun=All", _gauge("nested", []), JSON, (201,))
    assert status == 201, body


def _gauge(field: str, value: Any) -> bytes:
    return json.dumps({"apiVersion": f"{GROUP}/v1", "kind": "Gauge", "metadata": {"name": "g"},
                       "spec": {field: value}}).encode()


def answer(send: Send, index: int, size: int) -> dict[str, Any]:
    """The answer to a dry-run create of the shape at `size`: its status, and a refusal's causes."""
    _, field, _, value = SHAPES[index]
    status, reply, _ = send("POST", f"{GAUGES}?dryRun=All", _gauge(field, value(size)), JSON)
    if status == 201:
        return {"status": status}
    details = reply.get("details") or {} if isinstance(reply, dict) else {}
    return {"status": status, "message": reply.get("message") if isinstance(reply, dict) else reply,
            "causes": [f"{c.get('field')}: {c.get('message')}" for c in details.get("causes", [])]}


def within(found: dict[str, Any]) -> bool:
    """Whether the answer is the rules' own, not a cost limit's."""
    return "no further validation rules will be run" not in json.dumps(found)


def flip(send: Send, index: int) -> int:
    """The largest size the shape stays within the limits at (the smallest one does)."""
    low, high = 1, SHAPES[index][2]
    assert within(answer(send, index, low))
    assert not within(answer(send, index, high)), SHAPES[index][0]
    while high - low > 1:
        middle = (low + high) // 2
        if within(answer(send, index, middle)):
            low = middle
        else:
            high = middle
    return low


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    answers = {}
    for index, (name, *_) in enumerate(SHAPES):
        started = time.monotonic()
        size = flip(send, index)
        answers[name] = {"size": size, "accepted": answer(send, index, size),
                         "refused": answer(send, index, size + 1)}
        print(f"{name}: {size} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    patching.record(FIXTURE, answers)


if __name__ == "__main__":
    main(sys.argv[1])
