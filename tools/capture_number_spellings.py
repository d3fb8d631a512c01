"""Records how kube-apiserver reads JSON numbers with a fraction or an exponent (`1e3`, `1.0`, `2.50`):
refused for an integer field of a built-in type and named as the body spelled them (creates, updates,
merge and JSON patches, a DeleteOptions body), taken as whole float64s where the object is converted
from a map (strategic merge, apply, YAML bodies), and stored and served as integers when whole in a
custom resource, whatever its schema says of the field. Converted from a map, an integer past its
field's width wraps as Go's reflect conversion wraps it (4294967297 replicas are 1).

Usage: python tools/capture_number_spellings.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Every write is a dry run against one Deployment and one custom resource. An answer keeps the status,
a refusal's message (uids, versions, times and the manager's name masked: a patch's refusal prints the
whole patched object) or a success's spec, as decoded (so `1000` and `1000.0` differ).
tests/test_number_spellings.py holds ours to them (apiserver/wire/gonumbers.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "number_spellings.json")
Send = patching.Send

NAMESPACE = "numbers"
DEPLOYMENTS = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments"
GAUGES = f"/apis/numbers.example.io/v1/namespaces/{NAMESPACE}/gauges"
JSON = "application/json"
YAML = "application/yaml"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"

# A MutatingAdmissionPolicy whose JSONPatch sets replicas, per namespace: the mutated object is decoded
# as JSON (an int32 past its range refused), not converted as a strategic merge's is.
MUTATED = {"past-int32": "4294967297", "a-double": "1e3", "a-fraction": "1.5"}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "gauges.numbers.example.io"},
       "spec": {"group": "numbers.example.io", "scope": "Namespaced",
                "names": {"plural": "gauges", "singular": "gauge", "kind": "Gauge"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": {
                        "count": {"type": "integer"}, "ratio": {"type": "number"},
                        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}}}]}}


def _deployment(name: str, replicas: str, grace: str = "30") -> bytes:
    return ('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"' + name + '"},"spec":{"replicas":'
            + replicas + ',"selector":{"matchLabels":{"app":"n"}},"template":{"metadata":{"labels":{"app":"n"}},'
            '"spec":{"terminationGracePeriodSeconds":' + grace
            + ',"containers":[{"name":"c","image":"nginx:1.27"}]}}}}').encode()


def _deployment_yaml(replicas: str) -> bytes:
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: yaml\nspec:\n  replicas: {replicas}\n"
            "  selector:\n    matchLabels: {app: n}\n  template:\n    metadata:\n      labels: {app: n}\n"
            "    spec:\n      containers: [{name: c, image: 'nginx:1.27'}]\n").encode()


def _gauge(name: str, field: str, literal: str) -> bytes:
    spec = f'"{field}":{literal}' if field != "free" else f'"free":{{"n":{literal},"l":[{literal}]}}'
    return f'{{"apiVersion":"numbers.example.io/v1","kind":"Gauge","metadata":{{"name":"{name}"}},"spec":{{{spec}}}}}'.encode()


_LITERALS = ("1e3", "1E3", "1.0", "1000.0", "10e-1", "2E+0", "1.5", "-0", "-1.0", "0.0", "1e21", "2.50",
             "99999999999999999999", "-99999999999999999999", "9223372036854775808")
_PATCH_LITERALS = ("1e3", "1.0", "1.5", "2E0", "1e21")

# (name, method, path, body, content type)
CASES: list[tuple[str, str, str, bytes, str]] = [
    *[(f"create replicas {lit}", "POST", f"{DEPLOYMENTS}?dryRun=All", _deployment("made", lit), JSON)
      for lit in _LITERALS],
    ("create grace period 30.0", "POST", f"{DEPLOYMENTS}?dryRun=All", _deployment("made", "1", "30.0"), JSON),
    ("create two fractions, the first named", "POST", f"{DEPLOYMENTS}?dryRun=All",
     _deployment("made", "2.0", "3e1"), JSON),
    ("create a fraction in a string only", "POST", f"{DEPLOYMENTS}?dryRun=All", _deployment("v1.0", "1"), JSON),
    *[(f"create yaml replicas {lit}", "POST", f"{DEPLOYMENTS}?dryRun=All", _deployment_yaml(lit), YAML)
      for lit in ("1e3", "1.0", "1.5", "1.50", "1e21", "1.5e-7")],
    ("create json as yaml replicas 1.0", "POST", f"{DEPLOYMENTS}?dryRun=All", _deployment("made", "1.0"), YAML),
    ("create json as yaml replicas 1.50", "POST", f"{DEPLOYMENTS}?dryRun=All", _deployment("made", "1.50"), YAML),
    *[(f"update replicas {lit}", "PUT", f"{DEPLOYMENTS}/base?dryRun=All", _deployment("base", lit), JSON)
      for lit in ("1e3", "1.0", "1.5")],
    *[(f"{kind} replicas {lit}", "PATCH", f"{DEPLOYMENTS}/base?dryRun=All", body, media)
      for lit in _PATCH_LITERALS
      for kind, media, body in (
          ("merge patch", MERGE, b'{"spec":{"replicas":%s}}' % lit.encode()),
          ("json patch", JSON_PATCH, b'[{"op":"replace","path":"/spec/replicas","value":%s}]' % lit.encode()),
          ("strategic merge patch", STRATEGIC, b'{"spec":{"replicas":%s}}' % lit.encode()))],
    *[(f"strategic merge patch replicas {lit}", "PATCH", f"{DEPLOYMENTS}/base?dryRun=All",
       b'{"spec":{"replicas":%s}}' % lit.encode(), STRATEGIC) for lit in ("4294967297", "1e10", "-1e10", "2147483648")],
    ("strategic merge patch grace period 1e19", "PATCH", f"{DEPLOYMENTS}/base?dryRun=All",
     b'{"spec":{"template":{"spec":{"terminationGracePeriodSeconds":1e19}}}}', STRATEGIC),
    *[(f"merge patch replicas {lit}", "PATCH", f"{DEPLOYMENTS}/base?dryRun=All",
       b'{"spec":{"replicas":%s}}' % lit.encode(), MERGE) for lit in ("4294967297", "99999999999999999999")],
    ("merge patch two spellings of one value", "PATCH", f"{DEPLOYMENTS}/base?dryRun=All",
     b'{"spec":{"replicas":1e0,"template":{"spec":{"terminationGracePeriodSeconds":1.0}}}}', MERGE),
    ("json patch copy of a fraction", "PATCH", f"{DEPLOYMENTS}/base?dryRun=All",
     (b'[{"op":"add","path":"/metadata/labels","value":{"a":"b"}},{"op":"replace","path":"/spec/replicas",'
      b'"value":3.0}]'), JSON_PATCH),
    *[(f"apply replicas {lit}", "PATCH", f"{DEPLOYMENTS}/base?dryRun=All&fieldManager=numbers&force=true",
       b'{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"base"},"spec":{"replicas":%s}}'
       % lit.encode(), APPLY) for lit in ("1e3", "1.0", "1.5", "4294967297", "1e10", "1e19")],
    ("apply create replicas 4294967297", "PATCH", f"{DEPLOYMENTS}/applied?dryRun=All&fieldManager=numbers",
     (b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: applied}\nspec:\n  replicas: 4294967297\n"
      b"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
      b"    spec: {containers: [{name: c, image: 'nginx:1.27'}]}\n"), APPLY),
    *[(f"custom create {field} {lit}", "POST", f"{GAUGES}?dryRun=All", _gauge("made", field, lit), JSON)
      for field in ("count", "ratio", "free") for lit in ("1e3", "1.0", "2.50", "1.5e-7", "1e21")],
    *[(f"custom merge patch {field} {lit}", "PATCH", f"{GAUGES}/base?dryRun=All",
       b'{"spec":{"%s":%s}}' % (field.encode(), lit.encode()), MERGE)
      for field in ("count", "ratio") for lit in ("1e3", "1.0", "2.50")],
    ("custom json patch ratio 4.0", "PATCH", f"{GAUGES}/base?dryRun=All",
     b'[{"op":"replace","path":"/spec/ratio","value":4.0}]', JSON_PATCH),
    ("custom update count 7.0", "PUT", f"{GAUGES}/base?dryRun=All", _gauge("base", "count", "7.0"), JSON),
    *[(f"mutating policy sets replicas to {value}", "POST",
       f"/apis/apps/v1/namespaces/numbers-{name}/deployments?dryRun=All", _deployment("made", "1"), JSON)
      for name, value in MUTATED.items()],
    ("delete body gracePeriodSeconds 1.0", "DELETE", f"{DEPLOYMENTS}/base",
     b'{"dryRun":["All"],"gracePeriodSeconds":1.0}', JSON),
    ("delete body gracePeriodSeconds 1e1", "DELETE", f"{DEPLOYMENTS}/base",
     b'{"dryRun":["All"],"gracePeriodSeconds":1e1}', JSON),
    ("delete body gracePeriodSeconds past 64 bits", "DELETE", f"{DEPLOYMENTS}/base",
     b'{"dryRun":["All"],"gracePeriodSeconds":99999999999999999999}', JSON),
    ("custom create count past 64 bits", "POST", f"{GAUGES}?dryRun=All",
     _gauge("made", "count", "99999999999999999999"), JSON),
]

_ADMISSION = "/apis/admissionregistration.k8s.io/v1"


def _mutating_policy(send: Send, name: str, value: str) -> None:
    rules = [{"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"], "operations": ["CREATE"]}]
    selector = {"matchLabels": {"numbers-mutation": name}}
    policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
              "metadata": {"name": f"numbers-{name}"},
              "spec": {"matchConstraints": {"resourceRules": rules, "namespaceSelector": selector},
                       "reinvocationPolicy": "Never", "mutations": [{"patchType": "JSONPatch", "jsonPatch": {
                           "expression": f"[JSONPatch{{op: 'replace', path: '/spec/replicas', value: {value}}}]"}}]}}
    binding = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
               "metadata": {"name": f"numbers-{name}"},
               "spec": {"policyName": f"numbers-{name}", "matchResources": {"namespaceSelector": selector}}}
    send("POST", f"{_ADMISSION}/mutatingadmissionpolicies", json.dumps(policy).encode(), JSON)
    send("POST", f"{_ADMISSION}/mutatingadmissionpolicybindings", json.dumps(binding).encode(), JSON)
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": f"numbers-{name}", "labels": {"numbers-mutation": name}}}).encode(), JSON)
    path = f"/apis/apps/v1/namespaces/numbers-{name}/deployments?dryRun=All"
    deadline = time.monotonic() + 60  # until the policy is enforced
    while True:
        status, reply, _ = send("POST", path, _deployment("made", "1"), JSON)
        if status != 201 or reply["spec"]["replicas"] != 1 or time.monotonic() > deadline:
            return
        time.sleep(0.5)


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)
    for name, value in MUTATED.items():
        _mutating_policy(send, name, value)
    status, body, _ = send("POST", DEPLOYMENTS, _deployment("base", "1"), JSON)
    assert status in (201, 409), body
    status, body, _ = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           json.dumps(CRD).encode(), JSON)
    assert status in (201, 409), body
    status, body = patching.until_served(send, "POST", GAUGES, _gauge("base", "count", "1"), JSON, (201, 409))
    assert status in (201, 409), body


def answer(send: Send, index: int) -> dict[str, Any]:
    _, method, path, body, content_type = CASES[index]
    status, reply, _ = send(method, path, body, content_type)
    if isinstance(reply, dict) and reply.get("kind") == "Status":
        return {"status": status, "message": patching.masked(str(reply.get("message")))}
    return {"status": status, "spec": reply.get("spec") if isinstance(reply, dict) else reply}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {case[0]: answer(send, i) for i, case in enumerate(CASES)})


if __name__ == "__main__":
    main(sys.argv[1])
