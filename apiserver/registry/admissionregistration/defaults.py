"""Defaulting of admissionregistration.k8s.io/v1: webhook configurations and admission policies.

Upstream's SetDefaults_* for these kinds (pkg/apis/admissionregistration/v1/defaults.go): a webhook or
policy that does not say otherwise fails closed, matches equivalent requests, selects every namespace
and object, and its rules apply at every scope. These objects are stored and listed; nothing here
calls a webhook or evaluates a policy.
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def _default(obj: Obj, key: str, value: Any) -> None:
    """A field sent as null is unset, as Go decodes it: the default fills it too."""
    if obj.get(key) is None:
        obj[key] = value


def _rules(rules: Any) -> None:
    for rule in rules or ():
        if isinstance(rule, dict):
            _default(rule, "scope", "*")


def _match_resources(match: Any) -> None:
    """MatchResources of a policy or binding; also a webhook's selectors and match policy."""
    if not isinstance(match, dict):
        return
    _default(match, "namespaceSelector", {})
    _default(match, "objectSelector", {})
    _default(match, "matchPolicy", "Equivalent")
    _rules(match.get("resourceRules"))
    _rules(match.get("excludeResourceRules"))


def _webhook(webhook: Any, mutating: bool) -> None:
    if not isinstance(webhook, dict):
        return
    _rules(webhook.get("rules"))
    _default(webhook, "failurePolicy", "Fail")
    _default(webhook, "matchPolicy", "Equivalent")
    _default(webhook, "namespaceSelector", {})
    _default(webhook, "objectSelector", {})
    _default(webhook, "timeoutSeconds", 10)
    if mutating:
        _default(webhook, "reinvocationPolicy", "Never")
    service = (webhook.get("clientConfig") or {}).get("service")
    if isinstance(service, dict):
        _default(service, "port", 443)


def validating_webhook_configuration(obj: Obj) -> None:
    for webhook in obj.get("webhooks") or ():
        _webhook(webhook, mutating=False)


def mutating_webhook_configuration(obj: Obj) -> None:
    for webhook in obj.get("webhooks") or ():
        _webhook(webhook, mutating=True)


def admission_policy(obj: Obj) -> None:
    # The spec is a struct: sent null or left out, Go decodes it empty, and its defaults apply.
    _default(obj, "spec", {})
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _default(spec, "failurePolicy", "Fail")
        _match_resources(spec.get("matchConstraints"))


def mutating_admission_policy(obj: Obj) -> None:
    admission_policy(obj)


def policy_binding(obj: Obj) -> None:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _match_resources(spec.get("matchResources"))
