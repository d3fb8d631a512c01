"""Admission webhooks: MutatingAdmissionWebhook and ValidatingAdmissionWebhook, registered in the
admission chain under their upstream names.

`configurations` reads the webhooks from the store, `matching` decides which a request calls,
`review` writes the AdmissionReview and checks the answer, `client` makes the HTTPS call, `calling`
puts those together for one webhook, and `mutating` / `validating` are the two plugins.
"""

from __future__ import annotations

from apiserver.admission import authorization
from apiserver.admission.attributes import GroupVersionKind, GroupVersionResource
from apiserver.admission.plugins import PluginContext, register
from apiserver.admission.webhook import mutating, validating
from apiserver.admission.webhook.calling import Caller
from apiserver.admission.webhook.client import WebhookClient
from apiserver.admission.webhook.configurations import MUTATING, VALIDATING, WebhookSource
from apiserver.admission.webhook.matching import Equivalents, Matcher
from apiserver.kinds.resources import Registry, ResourceType


def equivalents_in(registry: Registry) -> Equivalents:
    """The resources stored with a request's resource (the same objects in other groups or versions),
    each with the kind it serves for the request's subresource: upstream's EquivalentResourceMapper."""

    def equivalents(resource: GroupVersionResource, subresource: str) -> list[tuple[GroupVersionResource,
                                                                                      GroupVersionKind]]:
        asked = registry.lookup(resource.group, resource.version, resource.resource)
        if asked is None:
            return []
        found = []
        for rt in registry.types:
            if rt.storage_key == asked.storage_key and rt.plural == asked.plural:
                kind = _kind_for(rt, subresource)
                if kind is not None:
                    found.append((GroupVersionResource(rt.group, rt.version, rt.plural), kind))
        return found
    return equivalents


def _kind_for(rt: ResourceType, subresource: str) -> GroupVersionKind | None:
    if not subresource:
        return GroupVersionKind(rt.group, rt.version, rt.kind)
    sub = rt.subresource(subresource)
    if sub is None:
        return None
    if sub.group or sub.version:
        return GroupVersionKind(sub.group, sub.version, sub.kind)
    return GroupVersionKind(rt.group, rt.version, sub.kind)


def _parts(context: PluginContext, storage_key: str, mutates: bool) -> tuple[WebhookSource, Matcher, Caller]:
    caller = Caller(WebhookClient(context.store), context.registry, getattr(context.endpoint, "conversion", None))
    return (WebhookSource(context.store, storage_key, mutates),
            Matcher(context.store, equivalents_in(context.registry), caller.shown,
                    authorization.register(context.authorizer)), caller)


register(mutating.NAME, lambda context: mutating.MutatingWebhooks(*_parts(context, MUTATING, True)))
register(validating.NAME, lambda context: validating.ValidatingWebhooks(*_parts(context, VALIDATING, False)))
