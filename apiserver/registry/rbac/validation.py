"""rbac.authorization.k8s.io/v1 validation: pkg/apis/rbac/validation/validation.go, every function.

Each ValidateXUpdate is ValidateX of the new object (its ValidateObjectMeta included: the metadata is
judged again) followed by ValidateObjectMetaUpdate, which the write path runs itself."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_subdomain, label_value, path_segment_name, qualified_name
from apiserver.registry import field
from apiserver.registry import meta as object_meta

Obj = dict[str, Any]

GROUP = "rbac.authorization.k8s.io"


def _policy_rules(obj: Obj, namespaced: bool) -> list[FieldError]:
    """ValidatePolicyRule of each rule."""
    found: list[FieldError] = []
    for index, rule in enumerate(obj.get("rules") or ()):
        path = f"rules[{index}]"
        if not isinstance(rule, dict):
            rule = {}
        if not rule.get("verbs"):
            found.append(field.required(f"{path}.verbs", "verbs must contain at least one value"))
        urls = rule.get("nonResourceURLs")
        if urls:
            shown = field.go_json(urls)
            if namespaced:
                found.append(field.invalid_shown(f"{path}.nonResourceURLs", shown,
                                                 "namespaced rules cannot apply to non-resource URLs"))
            if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
                found.append(field.invalid_shown(f"{path}.nonResourceURLs", shown,
                                                 "rules cannot apply to both regular resources and non-resource URLs"))
            continue
        if not rule.get("apiGroups"):
            found.append(field.required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
        if not rule.get("resources"):
            found.append(field.required(f"{path}.resources", "resource rules must supply at least one resource"))
    return found


def _selector(selector: Obj, path: str, allow_invalid_values: bool) -> list[FieldError]:
    """metav1validation.ValidateLabelSelector: matchLabels, then each expression's operator, key and values."""
    found = object_meta.labels(selector.get("matchLabels"), f"{path}.matchLabels")
    for index, expression in enumerate(selector.get("matchExpressions") or ()):
        at = f"{path}.matchExpressions[{index}]"
        expression = expression if isinstance(expression, dict) else {}
        operator, values = str(expression.get("operator") or ""), list(expression.get("values") or ())
        if operator in ("In", "NotIn"):
            if not values:
                found.append(field.required(f"{at}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                found.append(field.forbidden(f"{at}.values",
                                             "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            found.append(field.invalid(f"{at}.operator", operator, "not a valid selector operator"))
        key = str(expression.get("key") or "")
        found += [field.invalid(f"{at}.key", key, msg) for msg in qualified_name(key)]
        if not allow_invalid_values:
            found += [field.invalid(f"{at}.values[{i}]", value, msg)
                      for i, value in enumerate(values) for msg in label_value(str(value))]
    return found


def _selectors(obj: Obj) -> list[Obj]:
    rule = obj.get("aggregationRule")
    selectors = rule.get("clusterRoleSelectors") if isinstance(rule, dict) else None
    return [s if isinstance(s, dict) else {} for s in selectors or ()]


def _aggregation(obj: Obj, allow_invalid_values: bool) -> list[FieldError]:
    if not isinstance(obj.get("aggregationRule"), dict):
        return []
    found: list[FieldError] = []
    selectors = _selectors(obj)
    if not selectors:
        found.append(field.required("aggregationRule.clusterRoleSelectors",
                                    "at least one clusterRoleSelector required if aggregationRule is non-nil"))
    for index, selector in enumerate(selectors):
        path = f"aggregationRule.clusterRoleSelectors[{index}]"
        found += _selector(selector, path, allow_invalid_values)
        # LabelSelectorAsSelector refuses what the strict check refuses; the value shown is the nil
        # labels.Selector it returned.
        if _selector(selector, path, False):
            found.append(field.invalid_shown(path, "null", "invalid label selector."))
    return found


def _metadata(obj: Obj, namespaced: bool) -> list[FieldError]:
    return object_meta.validate(obj.get("metadata") or {}, namespaced, object_meta.path_segment)


def role(obj: Obj) -> list[FieldError]:
    return _policy_rules(obj, namespaced=True)


def role_update(new: Obj, old: Obj) -> list[FieldError]:
    return _metadata(new, True) + role(new)


def cluster_role(obj: Obj) -> list[FieldError]:
    return _policy_rules(obj, namespaced=False) + _aggregation(obj, False)


def cluster_role_update(new: Obj, old: Obj) -> list[FieldError]:
    """An old role whose selectors hold invalid label values may keep them (hasInvalidLabelValueInLabelSelector)."""
    tolerated = any(_selector(s, "", False) for s in _selectors(old))
    return _metadata(new, False) + _policy_rules(new, namespaced=False) + _aggregation(new, tolerated)


def _subjects(obj: Obj, namespaced: bool) -> list[FieldError]:
    found: list[FieldError] = []
    for index, subject in enumerate(obj.get("subjects") or ()):
        path = f"subjects[{index}]"
        if not isinstance(subject, dict):
            subject = {}
        name, kind, group = subject.get("name") or "", subject.get("kind"), subject.get("apiGroup") or ""
        if not name:
            found.append(field.required(f"{path}.name"))
        if kind == "ServiceAccount":
            if name:
                found += [field.invalid(f"{path}.name", name, detail) for detail in dns1123_subdomain(name)]
            if group:
                found.append(field.not_supported(f"{path}.apiGroup", group, ("",)))
            if not namespaced and not subject.get("namespace"):
                found.append(field.required(f"{path}.namespace"))
        elif kind in ("User", "Group"):
            if group != GROUP:
                found.append(field.not_supported(f"{path}.apiGroup", group, (GROUP,)))
        else:
            found.append(field.not_supported(f"{path}.kind", kind or "", ("ServiceAccount", "User", "Group")))
    return found


def _binding(obj: Obj, kinds: tuple[str, ...], namespaced: bool) -> list[FieldError]:
    found: list[FieldError] = []
    ref = obj.get("roleRef") if isinstance(obj.get("roleRef"), dict) else {}
    assert isinstance(ref, dict)
    if ref.get("apiGroup") != GROUP:
        found.append(field.not_supported("roleRef.apiGroup", ref.get("apiGroup") or "", (GROUP,)))
    if ref.get("kind") not in kinds:
        found.append(field.not_supported("roleRef.kind", ref.get("kind") or "", kinds))
    name = ref.get("name") or ""
    if not name:
        found.append(field.required("roleRef.name"))
    else:
        found += [field.invalid("roleRef.name", name, detail) for detail in path_segment_name(name)]
    found += _subjects(obj, namespaced)
    return found


def _fixed_role_ref(new: Obj, old: Obj) -> list[FieldError]:
    ref = new.get("roleRef") if isinstance(new.get("roleRef"), dict) else {}
    assert isinstance(ref, dict)
    if (old.get("roleRef") or {}) == ref:
        return []
    # The internal rbac.RoleRef, which has no json tags: Go's field names.
    shown = field.go_json({name: ref.get(key) or "" for name, key in (
        ("APIGroup", "apiGroup"), ("Kind", "kind"), ("Name", "name"))})
    return [field.invalid_shown("roleRef", shown, "cannot change roleRef")]


def role_binding(obj: Obj) -> list[FieldError]:
    return _binding(obj, ("Role", "ClusterRole"), True)


def role_binding_update(new: Obj, old: Obj) -> list[FieldError]:
    return _metadata(new, True) + role_binding(new) + _fixed_role_ref(new, old)


def cluster_role_binding(obj: Obj) -> list[FieldError]:
    return _binding(obj, ("ClusterRole",), False)


def cluster_role_binding_update(new: Obj, old: Obj) -> list[FieldError]:
    return _metadata(new, False) + cluster_role_binding(new) + _fixed_role_ref(new, old)
