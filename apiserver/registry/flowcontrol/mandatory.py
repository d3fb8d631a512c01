"""The mandatory API priority-and-fairness objects (`exempt` and `catch-all`), whose spec is fixed:
pkg/apis/flowcontrol/validation's ValidateFlowSchema and ValidateIfMandatoryPriorityLevelConfigurationObject.

The fixed specs are the ones this server bootstraps (apiserver/data/bootstrap.json, read off a real
kube-apiserver). Upstream compares internal Go structs with apiequality.Semantic (an empty list equals
an absent one, a pointer to zero does not equal nil) and shows the refused spec as json.Marshal writes
the internal struct: Go field names, nil pointers and lists as null.
"""

from __future__ import annotations

import functools
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.bootstrap import bootstrap_objects
from apiserver.registry import field

Obj = dict[str, Any]
_MANDATORY = ("exempt", "catch-all")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _strings(value: Any, compared: bool) -> list[Any] | None:
    if isinstance(value, list):
        return list(value)
    return [] if compared else None


def _items(value: Any, compared: bool) -> list[Obj] | None:
    if isinstance(value, list):
        return [_dict(item) for item in value]
    return [] if compared else None


def _named(value: Any) -> Obj | None:
    return {"Name": _dict(value).get("name", "")} if isinstance(value, dict) else None


def _subject(subject: Obj) -> Obj:
    account = subject.get("serviceAccount")
    return {"Kind": subject.get("kind", ""), "User": _named(subject.get("user")),
            "Group": _named(subject.get("group")),
            "ServiceAccount": {"Namespace": _dict(account).get("namespace", ""), "Name": _dict(account).get("name", "")}
            if isinstance(account, dict) else None}


def flow_schema_spec(spec: Obj, compared: bool = False) -> Obj:
    """The internal FlowSchemaSpec of a v1 spec; `compared`: absent lists as empty ones (Semantic)."""
    method = spec.get("distinguisherMethod")
    rules = []
    for rule in _items(spec.get("rules"), compared) or ():
        subjects = _items(rule.get("subjects"), compared)
        resources = _items(rule.get("resourceRules"), compared)
        non_resources = _items(rule.get("nonResourceRules"), compared)
        rules.append({
            "Subjects": None if subjects is None else [_subject(s) for s in subjects],
            "ResourceRules": None if resources is None else [{
                "Verbs": _strings(r.get("verbs"), compared), "APIGroups": _strings(r.get("apiGroups"), compared),
                "Resources": _strings(r.get("resources"), compared), "ClusterScope": r.get("clusterScope") is True,
                "Namespaces": _strings(r.get("namespaces"), compared)} for r in resources],
            "NonResourceRules": None if non_resources is None else [{
                "Verbs": _strings(r.get("verbs"), compared),
                "NonResourceURLs": _strings(r.get("nonResourceURLs"), compared)} for r in non_resources]})
    return {"PriorityLevelConfiguration": {"Name": _dict(spec.get("priorityLevelConfiguration")).get("name", "")},
            "MatchingPrecedence": spec.get("matchingPrecedence", 0),
            "DistinguisherMethod": {"Type": _dict(method).get("type", "")} if isinstance(method, dict) else None,
            "Rules": rules if isinstance(spec.get("rules"), list) or compared else None}


def level_spec(spec: Obj) -> Obj:
    """The internal PriorityLevelConfigurationSpec of a v1 spec."""
    limited, exempt = spec.get("limited"), spec.get("exempt")
    internal_limited = None
    if isinstance(limited, dict):
        response = _dict(limited.get("limitResponse"))
        queuing = response.get("queuing")
        internal_limited = {
            "NominalConcurrencyShares": limited.get("nominalConcurrencyShares") or 0,
            "LimitResponse": {"Type": response.get("type", ""), "Queuing": {
                "Queues": _dict(queuing).get("queues", 0), "HandSize": _dict(queuing).get("handSize", 0),
                "QueueLengthLimit": _dict(queuing).get("queueLengthLimit", 0)} if isinstance(queuing, dict) else None},
            "LendablePercent": limited.get("lendablePercent"),
            "BorrowingLimitPercent": limited.get("borrowingLimitPercent")}
    internal_exempt = {"NominalConcurrencyShares": _dict(exempt).get("nominalConcurrencyShares"),
                       "LendablePercent": _dict(exempt).get("lendablePercent")} if isinstance(exempt, dict) else None
    return {"Type": spec.get("type", ""), "Limited": internal_limited, "Exempt": internal_exempt}


@functools.cache
def _fixed(resource: str) -> dict[str, Obj]:
    return {o.body["metadata"]["name"]: o.body.get("spec") or {} for o in bootstrap_objects()
            if o.group == "flowcontrol.apiserver.k8s.io" and o.resource == resource
            and o.body["metadata"]["name"] in _MANDATORY}


def flow_schema(name: str, spec: Obj) -> list[FieldError]:
    fixed = _fixed("flowschemas").get(name)
    if fixed is None or flow_schema_spec(spec, True) == flow_schema_spec(fixed, True):
        return []
    return [field.invalid_shown("spec", field.go_json(flow_schema_spec(spec)),
                                f"spec of '{name}' must equal the fixed value")]


def priority_level(name: str, spec: Obj) -> list[FieldError]:
    fixed = _fixed("prioritylevelconfigurations").get(name)
    if fixed is None:
        return []
    have, want = level_spec(spec), level_spec(fixed)
    if name == "exempt":
        # Only the exempt level's exempt member may be tuned.
        if {**have, "Exempt": None} == {**want, "Exempt": None}:
            return []
        return [field.invalid_shown("spec", field.go_json(have),
                                    f"spec of '{name}' except the 'spec.exempt' field must equal the fixed value")]
    if have == want:
        return []
    return [field.invalid_shown("spec", field.go_json(have), f"spec of '{name}' must equal the fixed value")]
