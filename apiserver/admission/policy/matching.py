"""Which requests an admission policy or binding applies to: upstream's `policy/matching` and `rules`.

`matchConstraints` (a policy) and `matchResources` (a binding) say it with the same fields:
`resourceRules` and `excludeResourceRules` (operations, apiGroups, apiVersions, resources with
subresources such as `pods/status` or `*/scale`, scope, resourceNames), `namespaceSelector` (the
namespace's labels; a cluster-scoped request other than a Namespace always matches) and
`objectSelector` (the new or the old object's labels). `matchPolicy: Equivalent` matches only the
requested resource here: this server serves each resource under one group.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from apiserver.admission.attributes import Attributes
from apiserver.controllers.selectors import label_selector_matches

NamespaceLabels = Callable[[str], Mapping[str, str] | None]


def _listed(values: Any, value: str) -> bool:
    return isinstance(values, list) and ("*" in values or value in values)


def _resource_listed(resources: Any, resource: str, subresource: str) -> bool:
    if not isinstance(resources, list):
        return False
    for entry in resources:
        if not isinstance(entry, str):
            continue
        name, _, sub = entry.partition("/")
        if sub:
            if (name in ("*", resource)) and (sub in ("*", subresource)) and subresource:
                return True
        elif not subresource and name in ("*", resource):
            return True
    return False


def rule_matches(rule: Mapping[str, Any], attributes: Attributes, namespaced: bool) -> bool:
    """One RuleWithOperations against a request (upstream's rules.Matcher)."""
    if not _listed(rule.get("operations"), attributes.operation):
        return False
    if not _listed(rule.get("apiGroups"), attributes.resource.group):
        return False
    if not _listed(rule.get("apiVersions"), attributes.resource.version):
        return False
    if not _resource_listed(rule.get("resources"), attributes.resource.resource, attributes.subresource):
        return False
    scope = rule.get("scope") or "*"
    if scope == "Cluster" and namespaced or scope == "Namespaced" and not namespaced:
        return False
    names = rule.get("resourceNames")
    return not names or attributes.name in names


def _rules_match(rules: Any, attributes: Attributes, namespaced: bool) -> bool:
    return isinstance(rules, list) and any(isinstance(r, dict) and rule_matches(r, attributes, namespaced)
                                           for r in rules)


def _labels(obj: Mapping[str, Any] | None) -> Mapping[str, str] | None:
    if obj is None:
        return None
    return (obj.get("metadata") or {}).get("labels") or {}


def _object_selector_matches(selector: Any, attributes: Attributes) -> bool:
    if not selector:
        return True
    found = [labels for labels in (_labels(attributes.object), _labels(attributes.old_object)) if labels is not None]
    return any(label_selector_matches(selector, labels) for labels in found)


def _namespace_selector_matches(selector: Any, attributes: Attributes, namespace_labels: NamespaceLabels) -> bool:
    namespace = attributes.namespace
    is_namespace = attributes.resource.resource == "namespaces" and not attributes.resource.group
    if not namespace and not is_namespace:
        return True
    if not selector:
        return True
    if is_namespace:
        labels = _labels(attributes.object if attributes.object is not None else attributes.old_object) or {}
    else:
        labels = namespace_labels(namespace) or {}
    return label_selector_matches(selector, labels)


def matches(constraints: Mapping[str, Any] | None, attributes: Attributes, namespaced: bool,
            namespace_labels: NamespaceLabels) -> bool:
    """Whether `constraints` (matchConstraints or matchResources) select the request."""
    if constraints is None:
        return True
    if not _namespace_selector_matches(constraints.get("namespaceSelector"), attributes, namespace_labels):
        return False
    if not _object_selector_matches(constraints.get("objectSelector"), attributes):
        return False
    if _rules_match(constraints.get("excludeResourceRules"), attributes, namespaced):
        return False
    rules = constraints.get("resourceRules")
    return not rules or _rules_match(rules, attributes, namespaced)


def may_match(constraints: Mapping[str, Any] | None, group: str, resource: str) -> bool:
    """A cheap first look that never says no wrongly: could any resource rule select this resource?"""
    if constraints is None or not constraints.get("resourceRules"):
        return True
    for rule in constraints["resourceRules"]:
        if not isinstance(rule, dict) or not _listed(rule.get("apiGroups"), group):
            continue
        names = [str(r).partition("/")[0] for r in rule.get("resources") or ()]
        if "*" in names or resource in names:
            return True
    return False
