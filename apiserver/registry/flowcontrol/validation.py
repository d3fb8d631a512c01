"""flowcontrol.apiserver.k8s.io validation: pkg/apis/flowcontrol/validation/validation.go
(ValidateFlowSchema, ValidatePriorityLevelConfiguration and their parts) for v1 requests.

The mandatory objects' fixed specs are `mandatory.py`'s.
"""

from __future__ import annotations

import math
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain
from apiserver.registry import field
from apiserver.registry import meta as object_meta
from apiserver.registry.flowcontrol import mandatory

Obj = dict[str, Any]

_DISTINGUISHER_METHODS = ("ByNamespace", "ByUser")
_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch")
_SUBJECT_KINDS = ("Group", "ServiceAccount", "User")
_ENABLEMENTS = ("Exempt", "Limited")
_LIMIT_RESPONSES = ("Queue", "Reject")
_MAX_MATCHING_PRECEDENCE = 10000
_MAX_QUEUES = 10 * 1000 * 1000
_MAX_HASH_BITS = 60
_PRESERVE_ZERO_SHARES = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"
_NAMESPACE_INTRO = "each member of this list must be '*' or a DNS-1123 label; "


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _strings(value: Any) -> list[str]:
    return [_text(v) for v in _list(value)]


def _metadata(obj: Obj) -> list[FieldError]:
    """The strategies' ValidateUpdate is their Validate: the new object's metadata is judged again."""
    return object_meta.validate(_dict(obj.get("metadata")), False, object_meta.subdomain_name)


# -- FlowSchema ---------------------------------------------------------------------------------------


def _subject(subject: Obj, path: str) -> list[FieldError]:
    """ValidateFlowSchemaSubject: the member its kind names is required, the others forbidden."""
    kind = _text(subject.get("kind"))
    members = {"ServiceAccount": "serviceAccount", "User": "user", "Group": "group"}
    if kind not in members:
        return [field.not_supported(f"{path}.kind", kind, _SUBJECT_KINDS)]
    own = members[kind]
    value = subject.get(own)
    found: list[FieldError] = []
    if not isinstance(value, dict):
        found.append(field.required(f"{path}.{own}", f"{own} is required when subject kind is '{kind}'"))
    elif kind == "ServiceAccount":
        found += _service_account(value, f"{path}.{own}")
    elif not _text(value.get("name")):
        found.append(field.required(f"{path}.{own}.name"))
    forbidden = {"ServiceAccount": ("user", "group"), "User": ("serviceAccount", "group"),
                 "Group": ("serviceAccount", "user")}[kind]
    for other in forbidden:
        if isinstance(subject.get(other), dict):
            other_kind = {"user": "User", "group": "Group", "serviceAccount": "ServiceAccount"}[other]
            found.append(field.forbidden(f"{path}.{other}", f"{other} is forbidden when subject kind is not '{other_kind}'"))
    return found


def _service_account(subject: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    name, namespace = _text(subject.get("name")), _text(subject.get("namespace"))
    if not name:
        found.append(field.required(f"{path}.name"))
    elif name != "*":
        found += [field.invalid(f"{path}.name", name, msg) for msg in dns1123_subdomain(name)]
    if namespace:
        found += [field.invalid(f"{path}.namespace", namespace, msg) for msg in dns1123_label(namespace)]
    else:
        found.append(field.required(f"{path}.namespace", "must specify namespace for service account"))
    return found


def _verbs(verbs: list[str], path: str) -> list[FieldError]:
    if not verbs:
        return [field.required(path, "verbs must contain at least one value")]
    if "*" in verbs:
        return [field.invalid(path, verbs, "if '*' is present, must not specify other verbs")] if len(verbs) > 1 else []
    if not set(verbs) <= set(_VERBS):
        return [field.not_supported(path, verbs, _VERBS)]
    return []


def _non_resource_url(url: str, path: str) -> list[FieldError]:
    """ValidateNonResourceURLPath."""
    if not url:
        return [field.invalid(path, url, "must not be empty")]
    if url == "/":
        return []
    if not url.startswith("/"):
        return [field.invalid(path, url, "must start with slash")]
    if " " in url:
        return [field.invalid(path, url, "must not contain white-space")]
    if "//" in url:
        return [field.invalid(path, url, "must not contain double slash")]
    wildcards = url.count("*")
    if wildcards > 1 or (wildcards == 1 and url[-2:] != "/*"):
        return [field.invalid(path, url, "wildcard can only do suffix matching")]
    return []


def _non_resource_rule(rule: Obj, path: str) -> list[FieldError]:
    found = _verbs(_strings(rule.get("verbs")), f"{path}.verbs")
    urls = _strings(rule.get("nonResourceURLs"))
    if not urls:
        found.append(field.required(f"{path}.nonResourceURLs", "nonResourceURLs must contain at least one value"))
    elif "*" in urls:
        if len(urls) > 1:
            found.append(field.invalid(f"{path}.nonResourceURLs", urls,
                                       "if '*' is present, must not specify other non-resource URLs"))
    else:
        for index, url in enumerate(urls):
            found += _non_resource_url(url, f"{path}.nonResourceURLs[{index}]")
    return found


def _resource_rule(rule: Obj, path: str) -> list[FieldError]:
    found = _verbs(_strings(rule.get("verbs")), f"{path}.verbs")
    groups, resources = _strings(rule.get("apiGroups")), _strings(rule.get("resources"))
    if not groups:
        found.append(field.required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    elif len(groups) > 1 and "*" in groups:
        found.append(field.invalid(f"{path}.apiGroups", groups, "if '*' is present, must not specify other api groups"))
    if not resources:
        found.append(field.required(f"{path}.resources", "resource rules must supply at least one resource"))
    elif len(resources) > 1 and "*" in resources:
        found.append(field.invalid(f"{path}.resources", resources, "if '*' is present, must not specify other resources"))
    namespaces = _strings(rule.get("namespaces"))
    if not namespaces and rule.get("clusterScope") is not True:
        found.append(field.required(f"{path}.namespaces",
                                    "resource rules that are not cluster scoped must supply at least one namespace"))
    elif "*" in namespaces:
        if len(namespaces) > 1:
            found.append(field.invalid(f"{path}.namespaces", namespaces,
                                       "if '*' is present, must not specify other namespaces"))
    else:
        for index, namespace in enumerate(namespaces):
            found += [field.invalid(f"{path}.namespaces[{index}]", namespace, _NAMESPACE_INTRO + msg)
                      for msg in dns1123_label(namespace)]
    return found


def _rule(rule: Obj, path: str) -> list[FieldError]:
    """ValidateFlowSchemaPolicyRulesWithSubjects."""
    found: list[FieldError] = []
    subjects = _list(rule.get("subjects"))
    if subjects:
        for index, subject in enumerate(subjects):
            found += _subject(_dict(subject), f"{path}.subjects[{index}]")
    else:
        found.append(field.required(f"{path}.subjects", "subjects must contain at least one value"))
    resource_rules, non_resource_rules = _list(rule.get("resourceRules")), _list(rule.get("nonResourceRules"))
    if not resource_rules and not non_resource_rules:
        found.append(field.required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"))
    for index, item in enumerate(resource_rules):
        found += _resource_rule(_dict(item), f"{path}.resourceRules[{index}]")
    for index, item in enumerate(non_resource_rules):
        found += _non_resource_rule(_dict(item), f"{path}.nonResourceRules[{index}]")
    return found


def _conditions(obj: Obj) -> list[FieldError]:
    """Validate...Status: condition types present and not repeated."""
    found: list[FieldError] = []
    seen: set[str] = set()
    for index, condition in enumerate(_list(_dict(obj.get("status")).get("conditions"))):
        kind = _text(_dict(condition).get("type"))
        if kind in seen:
            found.append(field.duplicate(f"status.conditions[{index}].type", kind))
        seen.add(kind)
        if not kind:
            found.append(field.required(f"status.conditions[{index}].type"))
    return found


def flow_schema(obj: Obj) -> list[FieldError]:
    """ValidateFlowSchema past its ValidateObjectMeta, which the write path runs."""
    spec = _dict(obj.get("spec"))
    name = _text(_dict(obj.get("metadata")).get("name"))
    found: list[FieldError] = []
    precedence = _int(spec.get("matchingPrecedence"))
    if precedence <= 0:
        found.append(field.invalid("spec.matchingPrecedence", precedence, "must be a positive value"))
    if precedence > _MAX_MATCHING_PRECEDENCE:
        found.append(field.invalid("spec.matchingPrecedence", precedence,
                                   f"must not be greater than {_MAX_MATCHING_PRECEDENCE}"))
    if precedence == 1 and name != "exempt":
        found.append(field.invalid("spec.matchingPrecedence", precedence,
                                   "only the schema named 'exempt' may have matchingPrecedence 1"))
    method = spec.get("distinguisherMethod")
    if isinstance(method, dict) and method.get("type") not in _DISTINGUISHER_METHODS:
        # The internal FlowDistinguisherMethod, whose json tags are its Go field names.
        shown = field.go_json({"Type": _text(method.get("type"))})
        found.append(field.not_supported_shown("spec.distinguisherMethod.type", shown, _DISTINGUISHER_METHODS))
    level = _text(_dict(spec.get("priorityLevelConfiguration")).get("name"))
    if level:
        found += [field.invalid("spec.priorityLevelConfiguration.name", level, msg) for msg in dns1123_subdomain(level)]
    else:
        found.append(field.required("spec.priorityLevelConfiguration.name", "must reference a priority level"))
    for index, rule in enumerate(_list(spec.get("rules"))):
        found += _rule(_dict(rule), f"spec.rules[{index}]")
    return found + mandatory.flow_schema(name, spec) + _conditions(obj)


def flow_schema_update(new: Obj, old: Obj) -> list[FieldError]:
    return _metadata(new) + flow_schema(new)


def status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    """ValidateFlowSchemaStatusUpdate and ValidatePriorityLevelConfigurationStatusUpdate: the conditions alone."""
    return _conditions(new)


# -- PriorityLevelConfiguration ----------------------------------------------------------------------


def _queuing(queuing: Obj, path: str) -> list[FieldError]:
    """ValidatePriorityLevelQueuingConfiguration."""
    found: list[FieldError] = []
    length, queues, hand = _int(queuing.get("queueLengthLimit")), _int(queuing.get("queues")), _int(queuing.get("handSize"))
    if length <= 0:
        found.append(field.invalid(f"{path}.queueLengthLimit", length, "must be positive"))
    if queues <= 0:
        found.append(field.invalid(f"{path}.queues", queues, "must be positive"))
    elif queues > _MAX_QUEUES:
        found.append(field.invalid(f"{path}.queues", queues, f"must not be greater than {_MAX_QUEUES}"))
    if hand <= 0:
        found.append(field.invalid(f"{path}.handSize", hand, "must be positive"))
    elif hand > queues:
        found.append(field.invalid(f"{path}.handSize", hand, f"should not be greater than queues ({queues})"))
    elif math.ceil(math.log2(queues) * hand) > _MAX_HASH_BITS:
        found.append(field.invalid(f"{path}.handSize", hand, f"required entropy bits of deckSize {queues} and handSize "
                                                             f"{hand} should not be greater than {_MAX_HASH_BITS}"))
    return found


def _limit_response(response: Obj, path: str) -> list[FieldError]:
    kind = _text(response.get("type"))
    queuing = response.get("queuing")
    if kind == "Reject":
        if isinstance(queuing, dict):
            return [field.forbidden(f"{path}.queuing", "must be nil if limited.limitResponse.type is not Limited")]
        return []
    if kind == "Queue":
        if not isinstance(queuing, dict):
            return [field.required(f"{path}.queuing", "must not be empty if limited.limitResponse.type is Limited")]
        return _queuing(queuing, f"{path}.queuing")
    return [field.not_supported(f"{path}.type", kind, _LIMIT_RESPONSES)]


def _percent(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= 100:
        return [field.invalid(path, value, "must be between 0 and 100, inclusive")]
    return []


def _limited(limited: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    shares = _int(limited.get("nominalConcurrencyShares"))
    if shares < 0:
        found.append(field.invalid(f"{path}.nominalConcurrencyShares", shares, "must be a non-negative integer"))
    found += _limit_response(_dict(limited.get("limitResponse")), f"{path}.limitResponse")
    found += _percent(limited.get("lendablePercent"), f"{path}.lendablePercent")
    borrowing = limited.get("borrowingLimitPercent")
    if isinstance(borrowing, int) and not isinstance(borrowing, bool) and borrowing < 0:
        found.append(field.invalid(f"{path}.borrowingLimitPercent", borrowing, "if specified, must be a non-negative integer"))
    return found


def _exempt(exempt: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    shares = exempt.get("nominalConcurrencyShares")
    if isinstance(shares, int) and not isinstance(shares, bool) and shares < 0:
        found.append(field.invalid(f"{path}.nominalConcurrencyShares", shares, "must be a non-negative integer"))
    return found + _percent(exempt.get("lendablePercent"), f"{path}.lendablePercent")


def _level_spec(spec: Obj, name: str) -> list[FieldError]:
    """ValidatePriorityLevelConfigurationSpec."""
    found: list[FieldError] = []
    kind = _text(spec.get("type"))
    if (name == "exempt") != (kind == "Exempt"):
        found.append(field.invalid("spec.type", kind, "must be 'Exempt' if and only if `name` is 'exempt'"))
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if kind == "Exempt":
        if isinstance(limited, dict):
            found.append(field.forbidden("spec.limited", "must be nil if the type is not Limited"))
        if isinstance(exempt, dict):
            found += _exempt(exempt, "spec.exempt")
    elif kind == "Limited":
        if isinstance(exempt, dict):
            found.append(field.forbidden("spec.exempt", "must be nil if the type is Limited"))
        if not isinstance(limited, dict):
            found.append(field.required("spec.limited", "must not be empty when type is Limited"))
        else:
            found += _limited(limited, "spec.limited")
    else:
        found.append(field.not_supported("spec.type", kind, _ENABLEMENTS))
    return found


def priority_level_configuration(obj: Obj) -> list[FieldError]:
    """ValidatePriorityLevelConfiguration past its ValidateObjectMeta, which the write path runs."""
    meta = _dict(obj.get("metadata"))
    found: list[FieldError] = []
    if _PRESERVE_ZERO_SHARES in _dict(meta.get("annotations")):
        found.append(field.forbidden("metadata.annotations", f"annotation '{_PRESERVE_ZERO_SHARES}' is forbidden"))
    name, spec = _text(meta.get("name")), _dict(obj.get("spec"))
    found += _level_spec(spec, name)
    return found + mandatory.priority_level(name, spec) + _conditions(obj)


def priority_level_configuration_update(new: Obj, old: Obj) -> list[FieldError]:
    return _metadata(new) + priority_level_configuration(new)
