"""RBAC's rules as upstream evaluates them: pure functions over Role, ClusterRole and binding objects.

A rule allows a request when its verbs, API groups, resources (with `*/subresource`) and
resourceNames match, or for a path its nonResourceURLs (`/prefix/*`); a binding applies to a user by
name, by group, or as `system:serviceaccount:<ns>:<name>` (a ServiceAccount subject without a
namespace means the binding's). A ClusterRole with an aggregationRule holds the rules of every
ClusterRole its selectors match, resolved here rather than by a controller, so it is always current.
`covers` is upstream's escalation check: each requested rule broken into single tuples, each of which
one held rule must cover whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

ALL = "*"
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True)
class Rule:
    verbs: tuple[str, ...]
    groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()

    def allows(self, verb: str, group: str, resource: str, subresource: str | None, name: str) -> bool:
        return (self._verb(verb) and (ALL in self.groups or group in self.groups)
                and _resource_matches(self.resources, resource, subresource)
                and (not self.names or name in self.names))

    def allows_path(self, verb: str, path: str) -> bool:
        return self._verb(verb) and any(_url_matches(url, path) for url in self.urls)

    def _verb(self, verb: str) -> bool:
        return ALL in self.verbs or verb in self.verbs

    def to_json(self) -> dict[str, Any]:
        """The PolicyRule, fields in Go's order, empty ones left out as Go's omitempty does."""
        out: dict[str, Any] = {"verbs": list(self.verbs)}
        for key, values in (("apiGroups", self.groups), ("resources", self.resources),
                            ("resourceNames", self.names), ("nonResourceURLs", self.urls)):
            if values:
                out[key] = list(values)
        return out

    def compact(self) -> str:
        """Upstream's CompactString, as escalation messages print a rule (Go's %q of string slices)."""
        parts = [f"{label}:{_go_quoted(values)}" for label, values in (
            ("APIGroups", self.groups), ("Resources", self.resources), ("NonResourceURLs", self.urls),
            ("ResourceNames", self.names), ("Verbs", self.verbs)) if values]
        return "{" + ", ".join(parts) + "}"


def _go_quoted(values: Iterable[str]) -> str:
    return "[" + " ".join(go_quote(v) for v in values) + "]"


def go_quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _resource_matches(resources: tuple[str, ...], resource: str, subresource: str | None) -> bool:
    combined = f"{resource}/{subresource}" if subresource else resource
    for held in resources:
        if held == ALL or held == combined:
            return True
        if subresource and held == "*/" + subresource:
            return True
    return False


def _url_matches(held: str, path: str) -> bool:
    if held == ALL or held == path:
        return True
    return held.endswith("*") and path.startswith(held[:-1])


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def rules_of(obj: Mapping[str, Any]) -> list[Rule]:
    """The rules a Role or ClusterRole object states (its aggregation aside)."""
    out = []
    for raw in obj.get("rules") or ():
        if isinstance(raw, dict):
            out.append(Rule(_strings(raw.get("verbs")), _strings(raw.get("apiGroups")),
                            _strings(raw.get("resources")), _strings(raw.get("resourceNames")),
                            _strings(raw.get("nonResourceURLs"))))
    return out


def _selector_matches(selector: Any, labels: Mapping[str, str]) -> bool:
    """A metav1.LabelSelector: every matchLabels pair and every matchExpressions requirement holds."""
    if not isinstance(selector, dict):
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or ():
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values") or ()
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def aggregated_rules(cluster_roles: Mapping[str, Mapping[str, Any]]) -> dict[str, list[Rule]]:
    """Every ClusterRole's effective rules, as the clusterrole-aggregation controller leaves them once it
    has settled: an aggregated role gets, selector by selector and in name order within one, the rules of
    every other role it selects, without repeats (an aggregated role's own until it is synced, so chains
    follow: edit takes view's). Synced round by round to the fixed point, which loops settle on too; a
    round costs the aggregated roles' rules, never a walk of the paths through them."""
    rules = {name: rules_of(obj) for name, obj in cluster_roles.items()}
    selected: dict[str, list[str]] = {}  # an aggregated role: whom it takes rules from, in order
    for name, obj in cluster_roles.items():
        aggregation = obj.get("aggregationRule")
        if not isinstance(aggregation, dict):
            continue
        sources: list[str] = []
        for selector in aggregation.get("clusterRoleSelectors") or ():
            sources += [other for other in sorted(cluster_roles) if other != name and _selector_matches(
                selector, (cluster_roles[other].get("metadata") or {}).get("labels") or {})]
        selected[name] = sources
    for _ in range(len(selected) + 1):
        changed = False
        for name in sorted(selected):
            synced: list[Rule] = []
            seen: set[Rule] = set()
            for source in selected[name]:
                for rule in rules[source]:
                    if rule not in seen:
                        seen.add(rule)
                        synced.append(rule)
            if synced != rules[name]:
                rules[name], changed = synced, True
        if not changed:
            break
    return rules


def service_account_user(namespace: str, name: str) -> str:
    return f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"


def applying_subject(subjects: Any, user: str, groups: tuple[str, ...], binding_namespace: str
                     ) -> dict[str, Any] | None:
    """The first subject of a binding that names the user, directly, by group or as its ServiceAccount."""
    for subject in subjects or ():
        if not isinstance(subject, dict):
            continue
        kind, name = subject.get("kind"), subject.get("name")
        if kind == "User" and name == user:
            return subject
        if kind == "Group" and name in groups:
            return subject
        if kind == "ServiceAccount":
            namespace = subject.get("namespace") or binding_namespace
            if service_account_user(namespace, str(name)) == user:
                return subject
    return None


def describe_subject(subject: dict[str, Any], binding_namespace: str) -> str:
    """As upstream names the subject that let a request in (SubjectAccessReview reasons)."""
    kind, name = str(subject.get("kind", "")), str(subject.get("name", ""))
    if kind == "ServiceAccount":
        return f"{kind} {go_quote(name + '/' + (subject.get('namespace') or binding_namespace))}"
    return f"{kind} {go_quote(name)}"


# -- escalation -------------------------------------------------------------------------------------

def _breakdown(rule: Rule) -> list[Rule]:
    """A rule as single (group, resource, verb, name) and (url, verb) tuples."""
    out = []
    for group in rule.groups:
        for resource in rule.resources:
            for verb in rule.verbs:
                if rule.names:
                    out += [Rule((verb,), (group,), (resource,), (name,)) for name in rule.names]
                else:
                    out.append(Rule((verb,), (group,), (resource,)))
    for url in rule.urls:
        out += [Rule((verb,), urls=(url,)) for verb in rule.verbs]
    return out


def _resources_cover(held: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    if ALL in held:
        return True
    for resource in wanted:
        if resource in held:
            continue
        if "/" not in resource or "*/" + resource.split("/", 1)[1] not in held:
            return False
    return True


def _urls_cover(held: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    return all(any(h == w or (h.endswith("*") and w.startswith(h.rstrip("*"))) for h in held) for w in wanted)


def _rule_covers(owner: Rule, sub: Rule) -> bool:
    if not (ALL in owner.verbs or set(sub.verbs) <= set(owner.verbs)):
        return False
    if not (ALL in owner.groups or set(sub.groups) <= set(owner.groups)):
        return False
    if not _resources_cover(owner.resources, sub.resources) or not _urls_cover(owner.urls, sub.urls):
        return False
    if not sub.names:
        return not owner.names
    return not owner.names or set(sub.names) <= set(owner.names)


def missing_rules(held: list[Rule], wanted: list[Rule]) -> list[str]:
    """What of `wanted` no held rule covers, compacted and worded as upstream's escalation error lists it."""
    missing = [sub for rule in wanted for sub in _breakdown(rule) if not any(_rule_covers(h, sub) for h in held)]
    simple: dict[tuple[str, str, str], list[str]] = {}
    compacted: list[Rule] = []
    for rule in missing:
        if rule.urls or len(rule.names) > 1:
            compacted.append(rule)
            continue
        verbs = simple.setdefault((rule.groups[0], rule.resources[0], rule.names[0] if rule.names else ""), [])
        verbs += rule.verbs
    for (group, resource, name), verbs in simple.items():
        compacted.append(Rule(tuple(verbs), (group,), (resource,), (name,) if name else ()))
    return sorted({rule.compact() for rule in compacted})
