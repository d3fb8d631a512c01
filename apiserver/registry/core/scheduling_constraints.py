"""A pod's scheduling constraints: validateAffinity (node, pod and anti-affinity) and
validateTopologySpreadConstraints of pkg/apis/core/validation/validation.go, at 1.36's gates
(matchLabelKeys merged into the selector).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, qualified_name
from apiserver.registry import field
from apiserver.registry.core import volume_sources
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

_WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
_NODE_POLICIES = ("Honor", "Ignore")


def _label_name(value: str, path: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in qualified_name(value)]


def _label_keys(keys: list[Any], selector: Any, path: str) -> list[FieldError]:
    """validateLabelKeys."""
    if not keys:
        return []
    if selector is None:
        return [field.forbidden(path, "must not be specified when labelSelector is not set")]
    found: list[FieldError] = []
    for i, key in enumerate(keys):
        found += _label_name(key or "", f"{path}[{i}]")
    return found


def _selector_keys(selector: Any) -> list[tuple[str, bool]]:
    """The selector's keys, matchLabels' first, each with whether it was seen before (in Go's visit order)."""
    seen: set[str] = set((selector or {}).get("matchLabels") or {})
    keys: list[tuple[str, bool]] = []
    for expression in (selector or {}).get("matchExpressions") or []:
        key = (expression or {}).get("key") or ""
        keys.append((key, key in seen))
        seen.add(key)
    return keys


def match_and_mismatch_label_keys(match: list[Any], mismatch: list[Any], selector: Any,
                                  path: str) -> list[FieldError]:
    """ValidateMatchLabelKeysAndMismatchLabelKeys (a key in both the keys and the selector is reported at
    `path[i]`, as upstream reports it)."""
    found = _label_keys(match, selector, f"{path}.matchLabelKeys")
    found += _label_keys(mismatch, selector, f"{path}.mismatchLabelKeys")
    if isinstance(selector, dict):
        index = {key: i for i, key in enumerate(match)}
        for key, seen in _selector_keys(selector):
            if key in index and seen:
                found.append(field.invalid(f"{path}[{index[key]}]", key, "exists in both matchLabelKeys and labelSelector"))
    mismatched = set(mismatch)
    found += [field.invalid(f"{path}.matchLabelKeys[{i}]", key, "exists in both matchLabelKeys and mismatchLabelKeys")
              for i, key in enumerate(match) if key in mismatched]
    return found


def topology_spread_constraints(constraints: list[Any], path: str) -> list[FieldError]:
    found: list[FieldError] = []
    for i, constraint in enumerate(constraints):
        constraint = constraint if isinstance(constraint, dict) else {}
        at = f"{path}[{i}]"
        skew = constraint.get("maxSkew") or 0
        if skew <= 0:
            found.append(field.invalid(f"{at}.maxSkew", skew, "must be greater than zero"))
        key, action = constraint.get("topologyKey") or "", constraint.get("whenUnsatisfiable") or ""
        if not key:
            found.append(field.required(f"{at}.topologyKey", "can not be empty"))
        if action not in _WHEN_UNSATISFIABLE:
            found.append(field.not_supported(f"{at}.whenUnsatisfiable", action, _WHEN_UNSATISFIABLE))
        for later in constraints[i + 1:]:
            later = later if isinstance(later, dict) else {}
            if (later.get("topologyKey") or "") == key and (later.get("whenUnsatisfiable") or "") == action:
                found.append(field.duplicate(f"{at}.{{topologyKey, whenUnsatisfiable}}", f"{{{key}, {action}}}"))
                break
        domains = constraint.get("minDomains")
        if domains is not None:
            if domains <= 0:
                found.append(field.invalid(f"{at}.minDomains", domains, "must be greater than zero"))
            if action != "DoNotSchedule":
                found.append(field.invalid(f"{at}.minDomains", domains,
                                           f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"))
        for policy_key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(policy_key)
            if policy is not None and policy not in _NODE_POLICIES:
                found.append(field.not_supported(f"{at}.{policy_key}", policy, _NODE_POLICIES))
        selector = constraint.get("labelSelector")
        found += match_and_mismatch_label_keys(constraint.get("matchLabelKeys") or [], [], selector, at)
        found += label_selector(selector, f"{at}.labelSelector")
    return found


def _pod_affinity_term(term: Obj, path: str) -> list[FieldError]:
    selector = term.get("labelSelector")
    found = label_selector(selector, f"{path}.labelSelector")
    found += label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for name in term.get("namespaces") or []:
        found += [field.invalid(f"{path}.namespace", name, msg) for msg in dns1123_label(name or "")]
    found += match_and_mismatch_label_keys(term.get("matchLabelKeys") or [], term.get("mismatchLabelKeys") or [],
                                           selector, path)
    key = term.get("topologyKey") or ""
    if not key:
        found.append(field.required(f"{path}.topologyKey", "can not be empty"))
    return found + _label_name(key, f"{path}.topologyKey")


def _pod_affinity(affinity: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(required or []):
        found += _pod_affinity_term(term if isinstance(term, dict) else {},
                                    f"{path}.requiredDuringSchedulingIgnoredDuringExecution[{i}]")
    for i, weighted in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        weighted = weighted if isinstance(weighted, dict) else {}
        at = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        weight = weighted.get("weight") or 0
        if not 0 < weight <= 100:
            found.append(field.invalid(f"{at}.weight", weight, "must be in the range 1-100"))
        found += _pod_affinity_term(weighted.get("podAffinityTerm") or {}, f"{at}.podAffinityTerm")
    return found


def _node_affinity(affinity: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is not None:
        found += volume_sources.node_selector(required, False, f"{path}.requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        term = term if isinstance(term, dict) else {}
        at = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        weight = term.get("weight") or 0
        if not 0 < weight <= 100:
            found.append(field.invalid(f"{at}.weight", weight, "must be in the range 1-100"))
        found += volume_sources.node_selector_term(term.get("preference") or {}, True, f"{at}.preference")
    return found


def affinity(value: Any, path: str) -> list[FieldError]:
    """validateAffinity."""
    if not isinstance(value, dict):
        return []
    found: list[FieldError] = []
    if isinstance(value.get("nodeAffinity"), dict):
        found += _node_affinity(value["nodeAffinity"], f"{path}.nodeAffinity")
    for key in ("podAffinity", "podAntiAffinity"):
        if isinstance(value.get(key), dict):
            found += _pod_affinity(value[key], f"{path}.{key}")
    return found


def _apply_label_keys(selector: Obj, keys: Any, operator: str, labels: Obj) -> None:
    """applyLabelKeysToLabelSelector: a requirement for each key the pod's labels have."""
    for key in keys if isinstance(keys, list) else ():
        if isinstance(key, str) and key in labels:
            selector.setdefault("matchExpressions", [])
            if selector["matchExpressions"] is None:
                selector["matchExpressions"] = []
            selector["matchExpressions"].append({"key": key, "operator": operator, "values": [labels[key]]})


def _affinity_term(term: Any, labels: Obj) -> None:
    """applyMatchLabelKeysAndMismatchLabelKeys (a null selector matches nothing, and is left so)."""
    if not isinstance(term, dict) or not isinstance(term.get("labelSelector"), dict):
        return
    _apply_label_keys(term["labelSelector"], term.get("matchLabelKeys"), "In", labels)
    _apply_label_keys(term["labelSelector"], term.get("mismatchLabelKeys"), "NotIn", labels)


def merge_label_keys(spec: Obj, labels: Any) -> None:
    """The pod strategy's mutatePodAffinity and mutateTopologySpreadConstraints on a created pod (their gates
    are on in 1.36): each term's matchLabelKeys become In requirements of its selector, and an affinity
    term's mismatchLabelKeys NotIn ones, with the values of the pod's own labels."""
    labels = labels if isinstance(labels, dict) else {}
    affinity = spec.get("affinity") if isinstance(spec.get("affinity"), dict) else {}
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(kind) if isinstance(affinity.get(kind), dict) else {}
        for weighted in terms.get("preferredDuringSchedulingIgnoredDuringExecution") or ():
            if isinstance(weighted, dict):
                _affinity_term(weighted.get("podAffinityTerm"), labels)
        for term in terms.get("requiredDuringSchedulingIgnoredDuringExecution") or ():
            _affinity_term(term, labels)
    for constraint in spec.get("topologySpreadConstraints") or ():
        if isinstance(constraint, dict) and isinstance(constraint.get("labelSelector"), dict):
            _apply_label_keys(constraint["labelSelector"], constraint.get("matchLabelKeys"), "In", labels)
