"""Which webhooks a request calls, as upstream's ShouldCallHook decides (`generic/webhook.go`,
`predicates/rules`, `predicates/namespace`, `predicates/object`): namespaceSelector, objectSelector,
then the rules on the request's own resource or, under matchPolicy Equivalent, on an equivalent one
(the same objects served under another group or version: what this server stores under one key).

Requests on the admission configuration kinds themselves are never sent to webhooks, so that no
webhook can lock itself in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import orjson

from apiserver import errors
from apiserver.admission import authorization
from apiserver.admission.attributes import Attributes, GroupVersionKind, GroupVersionResource
from apiserver.admission.policy.compiled import conditions_cost
from apiserver.admission.webhook.configurations import GROUP, Rule, Webhook
from apiserver.cel.budget import OUT_OF_BUDGET
from apiserver.cel.environment import activation
from apiserver.storage.interface import Store

_EXEMPT_KINDS = frozenset({"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                           "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                           "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"})
_NAMESPACES = GroupVersionResource("", "v1", "namespaces")


class Invocation(NamedTuple):
    """A webhook to call, and the resource and kind it is shown the request as."""

    webhook: Webhook
    resource: GroupVersionResource
    kind: GroupVersionKind


def exempt(a: Attributes) -> bool:
    return a.kind.group == GROUP and a.kind.kind in _EXEMPT_KINDS


def _any(items: frozenset[str], requested: str) -> bool:
    return "*" in items or requested in items


def rule_matches(rule: Rule, a: Attributes, resource: GroupVersionResource) -> bool:
    if rule.scope == "Namespaced" and (resource == _NAMESPACES or not a.namespace):
        return False
    if rule.scope == "Cluster" and not (resource == _NAMESPACES or not a.namespace):
        return False
    if rule.scope not in ("*", "Namespaced", "Cluster"):
        return False
    if not ("*" in rule.operations or a.operation in rule.operations):
        return False
    if not (_any(rule.groups, resource.group) and _any(rule.versions, resource.version)):
        return False
    return any((res == "*" or res == resource.resource) and (sub == "*" or sub == a.subresource)
               for res, sub in rule.resources)


# The resources served from the same stored objects as one (equivalents), and the kind each serves.
Equivalents = Callable[[GroupVersionResource, str], list[tuple[GroupVersionResource, GroupVersionKind]]]


def matching_resource(hook: Webhook, a: Attributes,
                      equivalents: Equivalents) -> tuple[GroupVersionResource, GroupVersionKind] | None:
    """The resource and kind under which `hook`'s rules match the request, None if they do not."""
    if any(rule_matches(rule, a, a.resource) for rule in hook.rules):
        return a.resource, a.kind
    if hook.match_policy != "Equivalent":
        return None
    for rule in hook.rules:
        for resource, kind in equivalents(a.resource, a.subresource):
            if resource != a.resource and rule_matches(rule, a, resource):
                return resource, kind
    return None


def _labels(obj: dict[str, Any] | None) -> dict[str, str] | None:
    if obj is None:
        return None
    return (obj.get("metadata") or {}).get("labels") or {}


def _request_variable(a: Attributes, invocation: Invocation) -> dict[str, Any]:
    """CEL's `request`: the AdmissionRequest the webhook would be sent (upstream's CreateAdmissionRequest)."""
    kind, resource = invocation.kind, invocation.resource
    user: dict[str, Any] = {"username": a.user.name}
    if a.user.uid:
        user["uid"] = a.user.uid
    if a.user.groups:
        user["groups"] = list(a.user.groups)
    if a.user.extra:
        user["extra"] = a.user.extra_json()
    request: dict[str, Any] = {
        "uid": "", "kind": {"group": kind.group, "version": kind.version, "kind": kind.kind},
        "resource": {"group": resource.group, "version": resource.version, "resource": resource.resource},
        "requestKind": {"group": a.kind.group, "version": a.kind.version, "kind": a.kind.kind},
        "requestResource": {"group": a.resource.group, "version": a.resource.version,
                            "resource": a.resource.resource},
        "name": a.name, "namespace": a.namespace, "operation": a.operation, "userInfo": user,
        "dryRun": a.dry_run}
    if a.subresource:
        request["subResource"] = request["requestSubResource"] = a.subresource
    if a.options is not None:
        request["options"] = a.options
    return request


# An object as a webhook is shown it (in the invocation's version): `Caller.shown`.
Shown = Callable[[Attributes, Invocation, dict[str, Any] | None], dict[str, Any] | None]


def conditions_match(hook: Webhook, a: Attributes, invocation: Invocation, shown: Shown,
                     decider: int | None = None) -> bool:
    """The webhook's matchConditions (upstream's matchconditions.Matcher): all are evaluated; any false
    skips the webhook; errors without a false skip it under failurePolicy Ignore and refuse the
    request (403) under Fail."""
    data = {"object": shown(a, invocation, a.object), "oldObject": shown(a, invocation, a.old_object),
            "request": _request_variable(a, invocation)}
    if decider is not None:
        data["authorizer"] = authorization.request_authorizer(decider, a)
    cancelled = conditions_cost([condition.expression for condition in hook.match_conditions], data)
    if cancelled is None:
        if hook.fails_open:
            return False
        raise errors.forbidden_object(a.resource.resource, a.resource.group, a.name, OUT_OF_BUDGET)
    bound = activation(data)
    failures = []
    for index, condition in enumerate(hook.match_conditions):
        if index in cancelled:
            failures.append(condition.expression.cancelled)
            continue
        value, error = condition.expression.run(bound)
        if error is not None:
            failures.append(error)
        elif value is False:
            return False
    if not failures:
        return True
    if hook.fails_open:
        return False
    why = failures[0] if len(failures) == 1 else "[" + ", ".join(failures) + "]"
    raise errors.forbidden_object(a.resource.resource, a.resource.group, a.name, why)


class Matcher:
    """Decides which webhooks one request calls; reads namespaces' labels from the store."""

    def __init__(self, store: Store, equivalents: Equivalents, shown: Shown, decider: int | None = None) -> None:
        self._shown = shown
        self._store = store
        self._equivalents = equivalents
        self._decider = decider  # the server's authorizer, as match conditions' `authorizer` asks it

    def _namespace_labels(self, a: Attributes) -> dict[str, str]:
        if a.resource.resource == "namespaces" and not a.subresource and a.operation in ("CREATE", "UPDATE"):
            return _labels(a.object) or {}
        stored = self._store.latest(("namespaces", "", a.namespace))
        if stored is None:
            raise errors.not_found("namespaces", "", a.namespace)
        return (orjson.loads(stored.data)["metadata"].get("labels")) or {}

    def namespace_matches(self, hook: Webhook, a: Attributes) -> bool:
        if not a.namespace and a.resource.resource != "namespaces":
            return True
        if hook.namespace_selector is None:
            raise errors.internal(f"webhook {hook.name!r} has a namespaceSelector that cannot be read")
        if hook.namespace_selector.empty:
            return True
        return hook.namespace_selector.matches(self._namespace_labels(a))

    def object_matches(self, hook: Webhook, a: Attributes) -> bool:
        if hook.object_selector is None:
            raise errors.internal(f"webhook {hook.name!r} has an objectSelector that cannot be read")
        if hook.object_selector.empty:
            return True
        return any(labels is not None and hook.object_selector.matches(labels)
                   for labels in (_labels(a.object), _labels(a.old_object)))

    def invocation(self, hook: Webhook, a: Attributes) -> Invocation | None:
        """Upstream's order: selectors first (their errors count only if the rules match), then rules."""
        namespace_error = object_error = None
        try:
            namespaced = self.namespace_matches(hook, a)
        except errors.ApiError as exc:
            namespaced, namespace_error = True, exc
        if not namespaced:
            return None
        try:
            selected = self.object_matches(hook, a)
        except errors.ApiError as exc:
            selected, object_error = True, exc
        if not selected:
            return None
        found = matching_resource(hook, a, self._equivalents)
        if found is None:
            return None
        if namespace_error is not None:
            raise namespace_error
        if object_error is not None:
            raise object_error
        invocation = Invocation(hook, found[0], found[1])
        if hook.match_conditions and not conditions_match(hook, a, invocation, self._shown, self._decider):
            return None
        return invocation

    def could_match(self, hooks: tuple[Webhook, ...], a: Attributes) -> bool:
        """Whether any webhook's rules match the request (selectors aside): the plugins' cheap `handles`."""
        return any(matching_resource(hook, a, self._equivalents) is not None for hook in hooks)
