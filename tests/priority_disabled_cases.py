"""Pods and PriorityClasses written while the Priority admission plugin is disabled: neither half acts,
no priority is resolved (or kept on update), and a second global default is let in.

The answer kept is the status, and the priority fields of an accepted pod or the message of a refusal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from email.message import Message
from typing import Any

FIXTURE = "priority_disabled.json"
NAMESPACE = "default"
Exchange = Callable[[str, str, "bytes | None", str], tuple[int, bytes, Message]]
_PODS = f"/api/v1/namespaces/{NAMESPACE}/pods"
_CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses"
_FIELDS = ("priority", "priorityClassName", "preemptionPolicy")
_POD_CASES = {
    "plain": {},
    "missing-class": {"priorityClassName": "nope"},
    "stated-priority": {"priority": 5},
    "stated-policy": {"preemptionPolicy": "Never"},
    "system-class": {"priorityClassName": "system-node-critical"},
}
_DEFAULTS = ("disabled-default-a", "disabled-default-b")


def _pod(name: str, spec: dict[str, Any]) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"prio-{name}"},
                       "spec": {"containers": [{"name": "c", "image": "busybox"}], **spec}}).encode()


def _answer(status: int, raw: bytes) -> dict[str, Any]:
    body = json.loads(raw)
    if status >= 300:
        return {"code": status, "message": body.get("message")}
    return {"code": status, **{k: body["spec"].get(k) for k in _FIELDS if "spec" in body}}


def run(send: Exchange) -> dict[str, dict[str, Any]]:
    answers = {}
    for name, spec in _POD_CASES.items():
        answers[f"create-{name}"] = _answer(*send("POST", _PODS, _pod(name, spec), "application/json")[:2])
    # An update leaving out the priority the pod stated: nothing gives it back.
    status, raw, _ = send("GET", f"{_PODS}/prio-stated-priority", None, "")
    current = json.loads(raw)
    current["spec"].pop("priority", None)
    answers["update-dropping-priority"] = _answer(*send("PUT", f"{_PODS}/prio-stated-priority",
                                                        json.dumps(current).encode(), "application/json")[:2])
    for name in _DEFAULTS:
        body = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                "value": 10, "globalDefault": True}
        status, raw, _ = send("POST", _CLASSES, json.dumps(body).encode(), "application/json")
        answers[f"create-class-{name}"] = {"code": status}
    answers["create-after-defaults"] = _answer(*send("POST", _PODS, _pod("after-defaults", {}),
                                                     "application/json")[:2])
    return answers


def cleanup(send: Exchange) -> None:
    for name in _DEFAULTS:
        send("DELETE", f"{_CLASSES}/{name}", None, "")
    for name in (*_POD_CASES, "after-defaults"):
        send("DELETE", f"{_PODS}/prio-{name}?gracePeriodSeconds=0", None, "")
