"""What of an answer is compared: code, reason, message, warnings and the body, minus what must differ.

The body is normalized as ../shared/golden/compare.py normalizes the goldens (uids, resourceVersions,
creation timestamps and selfLinks dropped; times, ages, UUIDs, allocated cluster IPs and node ports
replaced by placeholders), and further: the names a server generates from `generateName` (the
harness's prefixes are `gen-` and `Gen_`), every clusterIP a Service is given, whatever its range,
times and resourceVersions inside messages (a refused patch quotes the object), the order of a
SelfSubjectRulesReview's rules (kube-apiserver gathers them from a map), and the status of the kinds
whose status kube-apiserver's own controllers write moments after a write (an answer holds it or
not by chance), with those controllers' managedFields entries (status entries of managers other
than the harness's own: `differential`, `first` and `second`). managedFields are otherwise kept,
their times made placeholders: who owns which field is part of the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tools.differential.client import Answer

AGE = re.compile(r"^(?:\d+[smhdy])+$")
AGO = re.compile(r"\((?:\d+[smhdy])+ ago\)")
CLUSTER_IP = re.compile(r"\b10\.(?:9[6-9]|1[01][0-9])\.\d{1,3}\.\d{1,3}\b")
NODEPORT = re.compile(r":3\d{4}/")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$")
TIME_INSIDE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")
RESOURCE_VERSION_INSIDE = re.compile(r'(resourceVersion\\*"\\*:\\*")\d+')
GENERATED = re.compile(r"\b(gen-|Gen_)[a-z0-9]{5}\b")
DROP_META = {"uid", "resourceVersion", "creationTimestamp", "selfLink"}
ALLOCATED_IPS = {"clusterIP", "clusterIPs"}
NODE_PORTS = {"nodePort", "healthCheckNodePort"}
HARNESS_MANAGERS = {"differential", "first", "second"}
STATUS_BY_CONTROLLERS = {"CustomResourceDefinition", "APIService", "ServiceCIDR", "FlowSchema",
                         "PriorityLevelConfiguration"}

Normalized = dict[str, Any]


def norm_str(s: str) -> str:
    if AGE.match(s) or RFC3339.match(s):
        return "<time>"
    s = AGO.sub("(<age> ago)", s)
    s = TIME_INSIDE.sub("<time>", s)
    s = RESOURCE_VERSION_INSIDE.sub(r"\1<rv>", s)
    s = CLUSTER_IP.sub("<clusterip>", s)
    s = UUID.sub("<uuid>", s)
    s = GENERATED.sub(r"\1<suffix>", s)
    return NODEPORT.sub(":<nodeport>/", s)


def _allocated(value: Any) -> Any:
    if isinstance(value, list):
        return [_allocated(v) for v in value]
    return value if value in ("None", "", None) else "<clusterip>"


def _by_controller(entry: Any) -> bool:
    return (isinstance(entry, dict) and entry.get("subresource") == "status"
            and entry.get("manager") not in HARNESS_MANAGERS)


def norm(value: Any) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in DROP_META:
                continue
            if key == "continue" and isinstance(item, str):
                out[key] = "<continue>" if item else ""
            elif key in NODE_PORTS and isinstance(item, int):
                out[key] = "<nodeport>"
            elif key in ALLOCATED_IPS:
                out[key] = _allocated(item)
            elif key == "deletionTimestamp":
                out[key] = "<time>"
            elif key == "status" and value.get("kind") in STATUS_BY_CONTROLLERS:
                out[key] = "<set by controllers>"
            elif key == "managedFields" and isinstance(item, list):
                out[key] = [norm(e) for e in item if not _by_controller(e)]
            else:
                out[key] = norm(item)
        return out
    if isinstance(value, list):
        return [norm(v) for v in value]
    if isinstance(value, str):
        return norm_str(value)
    return value


def _sorted_rules(body: Any) -> None:
    status = body.get("status") if isinstance(body, dict) else None
    if body.get("kind") == "SelfSubjectRulesReview" and isinstance(status, dict):
        for key in ("resourceRules", "nonResourceRules"):
            if isinstance(status.get(key), list):
                status[key] = sorted(status[key], key=lambda rule: json.dumps(rule, sort_keys=True))


def answer_record(answer: Answer) -> Normalized:
    """The compared record of one answer: code, reason, message, warnings, normalized body."""
    record: Normalized = {"code": answer.status}
    try:
        body: Any = json.loads(answer.body) if answer.body.strip() else None
    except ValueError:
        body = {"text": norm_str(answer.body.decode("utf-8", "replace").strip())}
    if isinstance(body, dict) and body.get("kind") == "Status":
        record["reason"] = body.get("reason", "")
        record["message"] = norm_str(str(body.get("message", "")))
    if answer.warnings:
        record["warnings"] = [norm_str(w) for w in answer.warnings]
    if isinstance(body, dict):
        _sorted_rules(body)
    record["body"] = norm(body)
    return record
