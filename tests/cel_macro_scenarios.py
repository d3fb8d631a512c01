"""Steps that exercise cel-go's two-variable comprehension macros (`all`, `exists`, `existsOne`/`exists_one`,
`transformList`, `transformMap`, `transformMapEntry`) and the lists library's `sortBy`, as kube-apiserver
1.36 offers them in every CEL expression, shared by the test and the script that recorded kube-apiserver
1.36.2's answers (tools/capture_cel_macros.py).

CRD rules: one CRD whose rules each hold or fail on a probe object (a rule's message names it), with
messageExpressions rendering results, and one whose rules the reference refuses (misused macros, type
errors placed where the text as written has them, cost). A ValidatingAdmissionPolicy whose validations,
variables and messageExpression use them, with one whose expression does not compile, and a webhook
whose matchCondition uses one (nothing answers it, so whether a write fails tells whether it matched).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cel_library_scenarios import kubectl, lines

FIXTURE = Path(__file__).parent / "fixtures" / "cel_macros.json"
GROUP = "macros.example.io"
NAMESPACE = "macro-probe"

# Each a rule on the probe's spec: "rNN" in the answer means it did not hold (or failed to evaluate).
RULES: list[str] = [
    "self.items.all(i, v, v.score > 0)",
    "self.items.all(i, v, i < 2)",
    "self.labels.exists(k, v, k == 'app' && v == 'web')",
    "self.labels.exists(k, v, v == 'none')",
    "self.tags.existsOne(i, v, v == 'y')",
    "self.tags.exists_one(i, v, v == 'x')",
    "self.items.transformList(i, v, v.name) == ['b', 'a', 'c']",
    "self.items.transformList(i, v, v.score > 1, v.name + 'x') == ['bx', 'ax']",
    "self.labels.transformMap(k, v, v + '!') == {'app': 'web!', 'tier': 'db!'}",
    "self.labels.transformMap(k, v, k != 'app', v.size()) == {'tier': 2}",
    "self.tags.transformMap(i, v, v) == {0: 'x', 1: 'y', 2: 'x'}",
    "self.labels.transformMapEntry(k, v, {v: k}) == {'web': 'app', 'db': 'tier'}",
    "self.items.transformMapEntry(i, v, v.score >= 2, {v.name: i}) == {'b': 0, 'a': 1}",
    "self.items.sortBy(e, e.score).map(e, e.name) == ['c', 'b', 'a']",
    "self.tags.sortBy(t, t) == ['x', 'x', 'y']",
    "self.items.sortBy(e, -e.score)[0].name == 'a'",
    "[3, 1, 2].sortBy(x, x) == [1, 2, 3]",
    "self.tags.transformMapEntry(i, v, {v: i}).size() == 2",
    "self.items.transformList(i, v, v.score).sortBy(s, s) == [1, 2, 3]",
    "self.labels.all(k, v, self.labels.exists(k2, v2, k2 == k && v2 == v))",
    "{'a': 1}.all(k, v, k == 'a' && v == 1)",
    "self.items.exists(i, v, self.tags.exists(j, w, i == j && w == 'y'))",
    "self.tags.sortBy(e, e).size() == 3 && self.tags.transformList(i, v, i) == [0, 1, 2]",
    "self.items.sortBy(e, e.name).map(e, e.score) == [3, 2, 1]",
    "(self.tags).sortBy(t, t)[2] == 'y' && [[2, 1].sortBy(x, x)].all(i, l, l[0] == 1)",
    "self.labels.transformMapEntry(k, v, k == 'app', {'x': v}).x == 'web'",
]
# Each rendered as the message of an always-failing rule on the spec.
MESSAGES: list[str] = [
    "self.items.sortBy(e, e.name)[0].name",
    "self.labels.transformList(k, v, k).sortBy(s, s)[1]",
    "self.tags.transformList(i, v, v).sortBy(s, s)[2]",
]
# Rules the reference refuses, each on an object field of its own (the probe's shape).
BAD_RULES: list[str] = [
    "self.items.all(i, 1, true)",
    "self.items.all(i, i, true)",
    "self.items.all(__result__, v, true)",
    "self.labels.transformMap(k, v, v + 1) == {}",
    "self.items.exists(i, v, w)",
    "self.labels.transformMap(k, v, v)",
    "'abc'.sortBy(e, e) == 'abc'",
    "self.tags.sortBy(1, 2) == []",
    "self.labels.transformList(k, v, {k: v}).sortBy(e, e) == []",
    "self.items.sortBy(e, e.nope) == []",
    "self.free.all(i, v, self.free.all(j, w, v != w))",
    "self.free.transformMap(i, v, v).size() > 0",
    "self.tags.existsOne(i, v, v)",
    "self.tags.transformList(i, v, v, v) == []",
    "self.tags.all(i.j, v, true)",
    "self.tags.sortBy(e, e + 1) == []",
    "self.tags.all(i, v,\n  v.size() > 0) &&\n self.tags.sortBy(e, e.nope) == []",
    "self.tags.sortBy(e, e).transformList(i, v, v + 1) == []",
    "self.free.sortBy(e, e) == []",
    "self.items.transformMap(i, v, v.score).exists(k, v, v > 'a')",
    "self.tags.exists_one(i, v, w)",
    "{}.sortBy(e, e) == []",
    "self.items.transformList(i, v, v.score > 1, v.name + string(i)) == ['b0', 'a1']",
    "message:self.tags.transformList(i, v, v)",
    # The single-variable existsOne is cel-go's but not in Kubernetes' environment (only exists_one).
    "self.tags.existsOne(x, x == 'y')",
    # Estimated between once and a hundred times the budget: upstream names the factor.
    "self.free.exists(i, v, self.tags.exists(j, w, v == w))",
    "self.mid.sortBy(e, e).size() > 0",
    "self.mid.sortBy(e, e.size()).size() > 0",
    "self.mid.transformMapEntry(i, v, {v: self.mid.transformList(j, w, w + v)}).size() > 0",
    "self.labels.transformMap(k, v, self.free.filter(f, f == v + k)).size() > 0",
]

_STRING = {"type": "string", "maxLength": 20}
_PROBE_PROPERTIES: dict[str, Any] = {
    "items": {"type": "array", "maxItems": 10, "items": {"type": "object", "properties": {
        "name": _STRING, "score": {"type": "integer"}}}},
    "labels": {"type": "object", "maxProperties": 10, "additionalProperties": _STRING},
    "tags": {"type": "array", "maxItems": 10, "items": _STRING},
    "free": {"type": "array", "items": {"type": "string"}},
    "mid": {"type": "array", "maxItems": 2000, "items": {"type": "string", "maxLength": 5}},
}


def _crd(plural: str, kind: str, spec_schema: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": spec_schema}}}}]}}


def _rule(rule: str) -> dict[str, str]:
    if rule.startswith("message:"):
        return {"rule": "false", "messageExpression": rule.removeprefix("message:")}
    return {"rule": rule, "message": "spans lines"} if "\n" in rule else {"rule": rule}


PROBE_CRD = _crd("macroprobes", "MacroProbe", {
    "type": "object", "properties": _PROBE_PROPERTIES,
    "x-kubernetes-validations": [{"rule": rule, "message": f"r{i:02d}"} for i, rule in enumerate(RULES)]
    + [{"rule": "false", "messageExpression": message} for message in MESSAGES]})
BAD_CRD = _crd("badmacroprobes", "BadMacroProbe", {"type": "object", "properties": {
    f"b{i:02d}": {"type": "object", "properties": _PROBE_PROPERTIES, "x-kubernetes-validations": [_rule(rule)]}
    for i, rule in enumerate(BAD_RULES)}})

PROBE_SPEC = {"items": [{"name": "b", "score": 2}, {"name": "a", "score": 3}, {"name": "c", "score": 1}],
              "labels": {"app": "web", "tier": "db"}, "tags": ["x", "y", "x"], "free": []}


def create_crds(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    answers = []
    for crd in (PROBE_CRD, BAD_CRD):
        code, _, stderr = kubectl(kubeconfig, ["create", "-f", "-"], json.dumps(crd))
        answers.append((crd["metadata"]["name"], code, lines(stderr)))
    return answers


def run_probe(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    probe = {"apiVersion": f"{GROUP}/v1", "kind": "MacroProbe", "metadata": {"name": "probe", "namespace": "default"},
             "spec": PROBE_SPEC}
    code, _, stderr = kubectl(kubeconfig, ["create", "--dry-run=server", "-f", "-"], json.dumps(probe))
    return [("probe", code, lines(stderr))]


def _policy(name: str, validations: list[dict[str, Any]], variables: list[dict[str, str]]) -> list[dict[str, Any]]:
    api = "admissionregistration.k8s.io/v1"
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    selector = {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}}
    return [{"apiVersion": api, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
             "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules,
                                                                     "namespaceSelector": selector},
                      "matchConditions": [{"name": "only-probes",
                                           "expression": f"object.metadata.name.startsWith('{name}')"}],
                      "variables": variables, "validations": validations}},
            {"apiVersion": api, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
             "spec": {"policyName": name, "validationActions": ["Deny"]}}]


_HOOK = {
    "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
    "metadata": {"name": "macro-hook"},
    "webhooks": [{"name": "macro.probe.example.io", "clientConfig": {"url": "https://127.0.0.1:9/never"},
                  "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                             "resources": ["configmaps"]}],
                  "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}},
                  "matchConditions": [{"name": "hooked", "expression": "object.metadata.name.startsWith('hooked')"},
                                      {"name": "asks", "expression":
                                       "has(object.data) && object.data.exists(k, v, v == 'call')"}],
                  "sideEffects": "None", "admissionReviewVersions": ["v1"], "failurePolicy": "Fail",
                  "timeoutSeconds": 2}]}
_BAD_HOOK = json.loads(json.dumps(_HOOK))
_BAD_HOOK["metadata"]["name"] = "bad-macro-hook"
_BAD_HOOK["webhooks"][0]["matchConditions"][1]["expression"] = "object.data.exists(k, k, true)"

OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
    *_policy("shape", [
        {"expression": "!has(object.data) || object.data.all(k, v, v.size() < 10)",
         "message": "data values must be short"},
        {"expression": "!has(object.data) || !object.data.exists(k, v, v == 'forbidden')",
         "messageExpression": "'keys: ' + object.data.transformList(k, v, k).sortBy(s, s).join(',')"},
        {"expression": "variables.keys.all(i, k, k.size() <= 5)", "message": "keys too long"},
        {"expression": "variables.lengths.all(k, n, n > 0)", "message": "empty values"},
    ], [{"name": "keys", "expression": "has(object.data) ? object.data.transformList(k, v, k) : []"},
        {"name": "lengths", "expression": "has(object.data) ? object.data.transformMap(k, v, v.size()) : {}"}]),
    *_policy("broken", [{"expression": "object.data.all(k, 1, true)"}], []),
    _HOOK,
    _BAD_HOOK,
]


def _configmap(name: str, data: dict[str, str]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NAMESPACE},
                       "data": data})


# (step, object name, data)
STEPS: list[tuple[str, str, dict[str, str]]] = [
    ("shape-ok", "shape-ok", {"a": "1", "b": "2"}),
    ("shape-long-value", "shape-long", {"a": "0123456789x"}),
    ("shape-forbidden", "shape-forbidden", {"b": "forbidden", "a": "x"}),
    ("shape-long-key", "shape-long-key", {"abcdefg": "1"}),
    ("shape-empty-value", "shape-empty", {"a": ""}),
    ("broken", "broken-a", {"a": "1"}),
    ("hooked-quiet", "hooked-quiet", {"a": "1"}),
    ("hooked-call", "hooked-call", {"a": "call"}),
]
# Steps whose error text is Go's HTTP client's own: only whether they failed is compared.
CODE_ONLY = ("hooked-call",)


def create_objects(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    answers = []
    for obj in OBJECTS:
        code, _, stderr = kubectl(kubeconfig, ["create", "-f", "-"], json.dumps(obj))
        answers.append((f"{obj['kind']}/{obj['metadata']['name']}", code, lines(stderr)))
    return answers


def run_steps(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    steps = []
    for name, object_name, data in STEPS:
        code, _, stderr = kubectl(kubeconfig, ["create", "--dry-run=server", "-f", "-"], _configmap(object_name, data))
        steps.append((name, code, [] if name in CODE_ONLY else lines(stderr)))
    return steps
