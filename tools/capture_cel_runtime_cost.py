"""Records where kube-apiserver's runtime CEL cost limits start refusing: for each shape of an
expensive CRD rule, ValidatingAdmissionPolicy or webhook matchCondition, the largest size (a list's
length, a string's, a ConfigMap's keys) the reference stays within the limits at, found by bisection,
and its answers at that size and one past it.

Usage: python tools/capture_cel_runtime_cost.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
The CRD's rules pass the static limits when it is written (each is held to StaticEstimatedCostLimit)
but can cost more than PerCallLimit (1,000,000) when run, or together more than a custom object's
RuntimeCELCostBudget (10,000,000); a policy binding's expressions share 10,000,000 and matchConditions
2,500,000 (RuntimeCELCostBudgetMatchConditions). Every write is a dry run. Request bodies are built here from a size,
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
    "nested": _ruled(_strings(600, 4), {"rule": "self.all(x, self.all(y, x != y || x == y))"}),
    "exists": _ruled(_strings(600, 4), {"rule": "!self.exists(x, self.exists(y, x == y + 'z'))"}),
    "concat": _ruled(_strings(50, 4000), {"rule": "self.all(x, self.all(y, (x + y).size() >= 0))"}),
    "pattern": _ruled(_strings(100, 20000), {"rule": "self.all(x, x.matches('^[a-z]+(-[a-z]+)*$'))"}),
    "member": _ruled({"type": "object", "properties": {"a": _strings(2000, 8), "b": _strings(2000, 8)}},
                     {"rule": "self.a.all(x, x in self.b)"}),
    "filtered": _ruled(_strings(1000, 4), {"rule": "self.filter(x, x.startsWith('a')).size() + "
                                                  "self.map(x, x + 'b').size() >= 0 && self.all(x, "
                                                  "self.exists_one(y, y == x) ? true : self[0] == x)"}),
    "library": _ruled(_strings(200, 12000), {"rule": "self.all(x, x.lowerAscii().size() + x.split('-').size() + "
                                                     "x.indexOf('z') >= 0 && x.replace('a', 'bb') != '')"}),
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
    ("nested all over n strings", "nested", 600, lambda n: _words(n)),
    ("nested exists with concatenation over n strings", "exists", 600, lambda n: _words(n)),
    ("concatenated pairs of 50 strings of n characters", "concat", 4000, lambda n: ["a" * n] * 50),
    ("matches over 100 strings of n characters", "pattern", 20000, lambda n: ["a" * n] * 100),
    ("n strings each in n strings", "member", 2000, lambda n: {"a": _words(n), "b": _words(n)}),
    ("filter, map and exists_one over n strings", "filtered", 1000, lambda n: _words(n)),
    ("string library over 200 strings of n characters", "library", 12000, lambda n: [("ab-" * n)[:n]] * 200),
    ("messageExpression over n strings", "message", 900, lambda n: _words(n)),
    ("n items each with 3 rules over 100 strings", "items", 80, lambda n: [{"l": _words(100)}] * n),
    ("12 rules over n strings", "rules", 400, lambda n: _words(n)),
]


PAIRS = "object.data.all(k, object.data.all(j, k == j || k != j))"
POLICIES_PATH = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
BINDINGS_PATH = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"


def _policy(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """A policy on the creates of ConfigMaps in the namespace labelled for it."""
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": f"celcost-{name}"},
            "spec": {"failurePolicy": "Fail", "matchConstraints": {
                "namespaceSelector": {"matchLabels": {"celcost": name}},
                "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                   "resources": ["configmaps"]}]}, **spec}}


# (name, the policy's spec): each is tried on a ConfigMap of n data keys in a namespace of its own.
POLICY_SHAPES: list[tuple[str, dict[str, Any]]] = [
    ("policy-validation", {"validations": [{"expression": PAIRS}]}),
    ("policy-variable", {"variables": [{"name": "pairs", "expression": PAIRS}],
                  "validations": [{"expression": "variables.pairs"}]}),
    ("policy-validations", {"validations": [{"expression": f"{PAIRS} || {n} == 0"} for n in range(12)]}),
    ("policy-message", {"validations": [
        {"expression": f"{PAIRS} && false", "messageExpression": f"string({PAIRS})"},
        *({"expression": f"{PAIRS} || {n} == 0"} for n in range(10))]}),
    ("policy-conditions", {"matchConditions": [{"name": f"c{n}", "expression": f"{PAIRS} || {n} == 0"}
                                             for n in range(3)],
                         "validations": [{"expression": "false"}]}),
]


# (name, matchConditions) of a webhook on the creates of ConfigMaps in the namespace labelled for it: its
# conditions are false within the limits (the webhook, which nothing serves, is not called).
WEBHOOK_SHAPES: list[tuple[str, list[dict[str, str]]]] = [
    ("webhook-condition", [{"name": "c", "expression": f"{PAIRS} && false"}]),
    ("webhook-conditions", [{"name": f"c{n}", "expression": f"{PAIRS} && {n} < 0"} for n in range(3)]),
]
WEBHOOKS_PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"


def _webhooks() -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "celcost"},
            "webhooks": [{"name": f"{name}.celcost.example.io", "clientConfig": {"url": "https://127.0.0.1:9/"},
                          "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                     "resources": ["configmaps"]}],
                          "namespaceSelector": {"matchLabels": {"celcost": name}}, "sideEffects": "None",
                          "admissionReviewVersions": ["v1"], "failurePolicy": "Fail", "matchConditions": conditions}
                         for name, conditions in WEBHOOK_SHAPES]}


def _configmap(keys: int) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                       "data": {f"k{n:05}": "v" for n in range(keys)}}).encode()


def prepare_policies(send: Send) -> None:
    """The policies and webhooks, and a namespace for each, in force."""
    for name in [shape[0] for shape in POLICY_SHAPES] + [shape[0] for shape in WEBHOOK_SHAPES]:
        send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {
            "name": f"celcost-{name}", "labels": {"celcost": name}}}).encode(), JSON)
    send("DELETE", f"{WEBHOOKS_PATH}/celcost", None, JSON)
    status, body, _ = send("POST", WEBHOOKS_PATH, json.dumps(_webhooks()).encode(), JSON)
    assert status == 201, body
    for name, spec in POLICY_SHAPES:
        send("DELETE", f"{BINDINGS_PATH}/celcost-{name}", None, JSON)
        send("DELETE", f"{POLICIES_PATH}/celcost-{name}", None, JSON)
        status, body, _ = send("POST", POLICIES_PATH, json.dumps(_policy(name, spec)).encode(), JSON)
        assert status == 201, body
        status, body, _ = send("POST", BINDINGS_PATH, json.dumps({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"celcost-{name}"},
            "spec": {"policyName": f"celcost-{name}", "validationActions": ["Deny"]}}).encode(), JSON)
        assert status == 201, body
    deadline = time.monotonic() + 60  # until every policy and webhook is in force: a large ConfigMap is refused
    for name in [shape[0] for shape in POLICY_SHAPES] + [shape[0] for shape in WEBHOOK_SHAPES]:
        while configmap_answer(send, name, 1000)["status"] == 201:
            assert time.monotonic() < deadline, f"{name} was never in force"
            time.sleep(0.5)


def configmap_answer(send: Send, name: str, keys: int) -> dict[str, Any]:
    """The answer to a dry-run create of a ConfigMap of `keys` entries in the namespace of a policy's or
    webhook's shape."""
    status, reply, _ = send("POST", f"/api/v1/namespaces/celcost-{name}/configmaps?dryRun=All",
                            _configmap(keys), JSON)
    if status == 201:
        return {"status": status}
    return {"status": status, "message": reply.get("message") if isinstance(reply, dict) else reply}


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
    """Whether the answer is the expressions' own, not a cost limit's."""
    text = json.dumps(found)
    return not any(words in text for words in ("cost limit exceeded", "cost exceeds limit", "cost budget"))


def flip(ask: Callable[[int], dict[str, Any]], high: int) -> int:
    """The largest size the shape stays within the limits at (the smallest one does, `high` does not)."""
    low = 1
    assert within(ask(low))
    assert not within(ask(high))
    while high - low > 1:
        middle = (low + high) // 2
        if within(ask(middle)):
            low = middle
        else:
            high = middle
    return low


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    prepare_policies(send)
    answers = {}
    for index, (name, _, high, _) in enumerate(SHAPES):
        size = flip(lambda n, index=index: answer(send, index, n), high)
        answers[name] = {"size": size, "accepted": answer(send, index, size),
                         "refused": answer(send, index, size + 1)}
        print(f"{name}: {size}", file=sys.stderr)
    for name in [shape[0] for shape in POLICY_SHAPES] + [shape[0] for shape in WEBHOOK_SHAPES]:
        size = flip(lambda n, name=name: configmap_answer(send, name, n), 1000)
        answers[name] = {"size": size, "accepted": configmap_answer(send, name, size),
                         "refused": configmap_answer(send, name, size + 1)}
        print(f"{name}: {size}", file=sys.stderr)
    patching.record(FIXTURE, answers)


if __name__ == "__main__":
    main(sys.argv[1])
