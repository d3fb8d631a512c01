"""Writes that collect warnings from decoding, the Pod strategy and validating admission at once, for
the order they are answered in (upstream's recorder keeps them as they were added, whatever the outcome).

Each Pod carries an unknown field (fieldValidation=Warn: decoding's warning), a deprecated node label in
its nodeSelector (the strategy's WarningsOnCreate/Update), and lands in a namespace that PodSecurity
warns about; a ValidatingAdmissionPolicy warns about every Pod, another denies those labelled
`deny: "yes"`. The answer kept is the status and the warning texts in order.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from email.message import Message
from typing import Any

FIXTURE = "warning_order.json"
NAMESPACE = "warnings-in-order"
Exchange = Callable[[str, str, "bytes | None", str], tuple[int, bytes, Message]]
_POLICIES = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
_BINDINGS = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
_PODS = f"/api/v1/namespaces/{NAMESPACE}/pods"
_WARN = "?fieldValidation=Warn"
_TEXT = re.compile(r'299 - "((?:[^"\\]|\\.)*)"')


def _policy(name: str, expression: str, action: str) -> list[tuple[str, dict[str, Any]]]:
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["pods"]}]
    policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
              "metadata": {"name": name},
              "spec": {"matchConstraints": {"resourceRules": rules, "namespaceSelector": {
                  "matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}}},
                       "validations": [{"expression": expression, "message": f"{name} says no"}]}}
    binding = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
               "metadata": {"name": name}, "spec": {"policyName": name, "validationActions": [action]}}
    return [(_POLICIES, policy), (_BINDINGS, binding)]


_SETUP = [
    ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": NAMESPACE, "labels": {"pod-security.kubernetes.io/warn": "baseline"}}}),
    *_policy("warning-order-warn", "false", "Warn"),
    *_policy("warning-order-deny", "!has(object.metadata.labels) || object.metadata.labels[?'deny'].orValue('') != 'yes'",
             "Deny"),
]


def pod(name: str, labels: dict[str, str] | None = None, container: str = "c") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {"a": "b"}},
            "unknownField": 1,
            "spec": {"nodeSelector": {"beta.kubernetes.io/arch": "amd64"}, "hostNetwork": True,
                     "containers": [{"name": container, "image": "busybox"}]}}


def texts(headers: Message) -> list[str]:
    """The warnings' texts in order, across every Warning header line."""
    return [m.group(1) for line in headers.get_all("Warning") or [] for m in _TEXT.finditer(line)]


def _body(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


def prepare(send: Exchange) -> None:
    for path, body in _SETUP:
        status, raw, _ = send("POST", path, _body(body), "application/json")
        assert status in (201, 409), (path, status, raw)
    # Until both policies are in force: the denied dry-run refused, with the warning policy's warning.
    for _ in range(200):
        status, _, headers = send("POST", _PODS + "?dryRun=All", _body(pod("probe", {"deny": "yes"})),
                                  "application/json")
        if status == 422 and any("warning-order-warn" in t for t in texts(headers)):
            return
        time.sleep(0.1)
    raise RuntimeError("the policies were not enforced in time")


def _step(send: Exchange, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
    status, _, headers = send(method, path, None if body is None else _body(body), "application/json")
    return {"code": status, "warnings": texts(headers)}


def run(send: Exchange) -> dict[str, dict[str, Any]]:
    allowed = pod("allowed")
    answers = {
        "create-allowed": _step(send, "POST", _PODS + _WARN, allowed),
        "create-denied-by-policy": _step(send, "POST", _PODS + _WARN, pod("denied", {"deny": "yes"})),
        "create-invalid": _step(send, "POST", _PODS + _WARN, pod("invalid", container="Bad_Name")),
        "create-dry-run": _step(send, "POST", _PODS + _WARN + "&dryRun=All", pod("dry")),
    }
    for name, labels in (("update-allowed", {"a": "c"}), ("update-denied-by-policy", {"deny": "yes"})):
        current = json.loads(send("GET", f"{_PODS}/allowed", None, "")[1])
        current["metadata"]["labels"] = labels
        answers[name] = _step(send, "PUT", f"{_PODS}/allowed{_WARN}", {**current, "unknownField": 1})
    return answers


def cleanup(send: Exchange) -> None:
    """Removes the Pod and policies; the namespace stays (without controllers it would stay Terminating)."""
    send("DELETE", f"{_PODS}/allowed?gracePeriodSeconds=0", None, "")
    for path, body in reversed(_SETUP[1:]):
        send("DELETE", f"{path}/{body['metadata']['name']}", None, "")
