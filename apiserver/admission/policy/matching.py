"""Which requests an admission policy or binding applies to: upstream's `policy/matching` and `rules`.

`matchConstraints` (a policy) and `matchResources` (a binding) say it with the same fields:
`resourceRules` and `excludeResourceRules` (operations, apiGroups, apiVersions, resources with
subresources such as `pods/status` or `*/scale`, scope, resourceNames), `namespaceSelector` (the
namespace's labels; a cluster-scoped request other than a Namespace always matches) and
`objectSelector` (the new or the old object's labels). Under `matchPolicy: Equivalent` (the default)
rules that do not name the requested resource match the resources served from the same objects
(autoscaling/v2 for an autoscaling/v1 request), and the policy sees the request as of that resource.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from apiserver.admission.attributes import Attributes, GroupVersionKind, GroupVersionResource
from apiserver.controllers.selectors import label_selector_matches

NamespaceLabels = Callable[[str], Mapping[str, str] | None]
# The resources served from the same stored objects as the request's, each with the kind it serves.
Equivalents = Callable[[GroupVersionResource, str], list[tuple[GroupVersionResource, GroupVersionKind]]]
Matched = tuple[GroupVersionResource, GroupVersionKind]


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


def rule_matches(rule: Mapping[str, Any], attributes: Attributes, namespaced: bool,
                 resource: GroupVersionResource | None = None) -> bool:
    """One RuleWithOperations against a request (upstream's rules.Matcher), as of `resource` (an
    equivalent of the request's own)."""
    resource = resource or attributes.resource
    if not _listed(rule.get("operations"), attributes.operation):
        return False
    if not _listed(rule.get("apiGroups"), resource.group):
        return False
    if not _listed(rule.get("apiVersions"), resource.version):
        return False
    if not _resource_listed(rule.get("resources"), resource.resource, attributes.subresource):
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


def _matched_by_rules(rules: Any, attributes: Attributes, namespaced: bool, exact: bool,
                      equivalents: Equivalents) -> Matched | None:
    """upstream's matchesResourceRules: the request's resource, else (not `exact`) an equivalent one."""
    if _rules_match(rules, attributes, namespaced):
        return attributes.resource, attributes.kind
    if exact or not isinstance(rules, list):
        return None
    for rule in rules:
        for resource, kind in equivalents(attributes.resource, attributes.subresource):
            if resource != attributes.resource and isinstance(rule, dict) and rule_matches(
                    rule, attributes, namespaced, resource):
                return resource, kind
    return None


def matched(constraints: Mapping[str, Any] | None, attributes: Attributes, namespaced: bool,
            namespace_labels: NamespaceLabels, equivalents: Equivalents) -> Matched | None:
    """The resource and kind as of which `constraints` (matchConstraints or matchResources) select the
    request, None if they do not."""
    if constraints is None:
        return attributes.resource, attributes.kind
    if not _namespace_selector_matches(constraints.get("namespaceSelector"), attributes, namespace_labels):
        return None
    if not _object_selector_matches(constraints.get("objectSelector"), attributes):
        return None
    exact = constraints.get("matchPolicy") == "Exact"
    if _matched_by_rules(constraints.get("excludeResourceRules"), attributes, namespaced, exact, equivalents):
        return None
    rules = constraints.get("resourceRules")
    if not rules:
        return attributes.resource, attributes.kind
    return _matched_by_rules(rules, attributes, namespaced, exact, equivalents)


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
