"""rbac.authorization.k8s.io/v1 validation: pkg/apis/rbac/validation/validation.go, for the rules
ported so far."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_subdomain, path_segment_name
from apiserver.registry import field

Obj = dict[str, Any]

GROUP = "rbac.authorization.k8s.io"


def _policy_rules(obj: Obj, namespaced: bool) -> list[FieldError]:
    found: list[FieldError] = []
    for index, rule in enumerate(obj.get("rules") or ()):
        path = f"rules[{index}]"
        if not isinstance(rule, dict):
            continue
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
        if rule.get("resourceNames") and len(rule.get("resources") or ()) > 1:
            found.append(field.required(f"{path}.resourceNames", "resource names cannot apply to multiple resources"))
    return found


def role(obj: Obj) -> list[FieldError]:
    return _policy_rules(obj, namespaced=True)


def cluster_role(obj: Obj) -> list[FieldError]:
    return _policy_rules(obj, namespaced=False)


def _subjects(obj: Obj, namespaced: bool) -> list[FieldError]:
    found: list[FieldError] = []
    for index, subject in enumerate(obj.get("subjects") or ()):
        path = f"subjects[{index}]"
        if not isinstance(subject, dict):
            continue
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
            if not name:
                found.append(field.invalid(f"{path}.name", name, f"{kind.lower()} name cannot be empty"))
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
    return role_binding(new) + _fixed_role_ref(new, old)


def cluster_role_binding(obj: Obj) -> list[FieldError]:
    return _binding(obj, ("ClusterRole",), False)


def cluster_role_binding_update(new: Obj, old: Obj) -> list[FieldError]:
    return cluster_role_binding(new) + _fixed_role_ref(new, old)
