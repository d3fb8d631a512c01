"""One webhook call, shared by the mutating and validating plugins: the object shown in the webhook's
version, the dry-run check against sideEffects, the review sent and its answer verified (the plugins
take its warnings, audit annotations, refusal or patch from there).

Failures are upstream's three kinds: `CallFailed` (the webhook could not be asked or answered
unusably: subject to failurePolicy), a refusal (the webhook's own status, `review.denied`), and an
ApiError raised as it is (dry run unsupported, a patch that cannot be applied).
"""

from __future__ import annotations

from typing import Any

import orjson

from apiserver import errors
from apiserver.admission.attributes import Attributes, Obj
from apiserver.admission.webhook import review
from apiserver.admission.webhook.client import CallFailed, WebhookClient
from apiserver.admission.webhook.configurations import Webhook
from apiserver.admission.webhook.matching import Invocation
from apiserver.crd import converting  # as a module: crd.crdspec imports this package while it loads
from apiserver.kinds import shaping
from apiserver.kinds.conversion import codec_for
from apiserver.kinds.resources import Registry, ResourceType
from apiserver.registry.lookup import strategy_for


def internal_error(text: str) -> errors.ApiError:
    """apierrors.NewInternalError: the error's text as the message's tail and as the one cause."""
    return errors.ApiError(500, "InternalError", f"Internal error occurred: {text}",
                           {"causes": [{"message": text}]})


def failed(hook: Webhook, reason: str) -> errors.ApiError:
    """A failing-closed call, as NewInternalError(ErrCallingWebhook) renders it."""
    return internal_error(f'failed calling webhook "{hook.name}": {reason}')


def dry_run_unsupported(hook: Webhook) -> errors.ApiError:
    return errors.bad_request(f'admission webhook "{hook.name}" does not support dry run')


class Caller:
    def __init__(self, client: WebhookClient, registry: Registry, conversion: converting.CustomConversion | None = None) -> None:
        self._client = client
        self._registry = registry
        self._conversion = conversion  # CRDs' conversion webhooks, for objects of their other versions

    async def close(self) -> None:
        await self._client.close()

    def _type(self, a: Attributes, invocation: Invocation) -> ResourceType | None:
        """The type whose version the webhook is shown objects in; None for a subresource's own kind."""
        resource = invocation.resource
        rt = self._registry.lookup(resource.group, resource.version, resource.resource)
        if rt is None or rt.kind != a.kind.kind:
            return None
        return rt

    def shown(self, a: Attributes, invocation: Invocation, obj: Obj | None,
              fresh: bool = False) -> Obj | None:
        """`obj` (stored form) as the webhook is shown it: in its version, every field Go writes.

        Only a `fresh` object (a mutating plugin's, not yet through the registry) needs Go's fields
        added: a stored object, and one the registry prepared, already have them."""
        if obj is None:
            return None
        copied: Obj = orjson.loads(orjson.dumps(obj))
        meta = copied.get("metadata")
        if isinstance(meta, dict) and meta.get("resourceVersion") == "":
            del meta["resourceVersion"]  # the place the store numbers a new object at: not set yet
        rt = self._type(a, invocation)
        if rt is not None:
            copied = codec_for(rt).served(copied)
        return shaping.shaped_object(copied) if fresh else copied

    async def shown_converted(self, a: Attributes, invocation: Invocation, obj: Obj | None,
                              fresh: bool = False) -> Obj | None:
        """`shown`, and a custom object of another version than the webhook's converted into it by its
        CRD's conversion webhook, as upstream's Equivalent matching converts it."""
        shown = self.shown(a, invocation, obj, fresh)
        rt = self._type(a, invocation)
        if shown is None or rt is None or self._conversion is None or not converting.converts(rt):
            return shown
        return await self._conversion.into(rt, shown, rt.api_version)

    async def stored_converted(self, a: Attributes, invocation: Invocation, obj: Obj) -> Obj:
        """`stored`, after a custom object is converted back into the version the request is in."""
        rt = self._type(a, invocation)
        asked = (a.object or {}).get("apiVersion")
        if rt is not None and self._conversion is not None and converting.converts(rt) and isinstance(asked, str):
            obj = await self._conversion.into(rt, obj, asked)
            requested = self._registry.lookup(rt.group, asked.rpartition("/")[2], rt.plural)
            if requested is not None and requested.custom is not None:
                requested.custom.prepare(obj)
            return obj
        return self.stored(a, invocation, obj)

    def stored(self, a: Attributes, invocation: Invocation, obj: Obj) -> Obj:
        """A patched object back in the form the write path holds, defaulted again as upstream's
        dispatcher defaults what a webhook changed."""
        rt = self._type(a, invocation)
        if rt is None:
            return obj
        obj = codec_for(rt).stored(obj)
        if rt.custom is not None:
            rt.custom.prepare(obj)
        else:
            strategy_for(rt).default(obj)
        return obj

    async def call(self, hook: Webhook, a: Attributes, invocation: Invocation, mutating: bool,
                   shown: Obj | None = None) -> review.Response:
        """The webhook's verified answer, allowing or not; raises CallFailed or dry run unsupported."""
        if a.dry_run and hook.side_effects not in ("None", "NoneOnDryRun"):
            if hook.side_effects is None:
                raise CallFailed("Webhook SideEffects is nil")
            raise dry_run_unsupported(hook)
        version = review.review_version(hook.review_versions)
        if version is None:
            raise CallFailed("could not create admission objects: webhook does not accept known "
                             "AdmissionReview versions (v1, v1beta1)")
        if shown is None:
            shown = await self.shown_converted(a, invocation, a.object, fresh=mutating)
        old = await self.shown_converted(a, invocation, a.old_object)
        uid, body = review.request(version, a, invocation, shown, old)
        destination = self._client.destination(hook.client, hook.timeout_seconds)
        answer: Any = await self._client.post(destination, hook.client.ca_bundle, orjson.dumps(body),
                                              hook.timeout_seconds)
        mismatch = review.conversion_error(version, answer)
        if mismatch is not None:
            raise CallFailed(f"failed to call webhook: {mismatch}")
        try:
            response = review.verify(version, uid, mutating, answer)
        except review.InvalidResponse as exc:
            raise CallFailed(f"received invalid webhook response: {exc}") from None
        return response
