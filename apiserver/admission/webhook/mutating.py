"""MutatingAdmissionWebhook as 1.36 runs it (`plugin/webhook/mutating/dispatcher.go`): the matching
webhooks one after another, each shown the object as the previous one left it, a JSONPatch answer
applied and the object defaulted again; failurePolicy Ignore lets a failed call pass (noted in the
audit annotations), never a refusal.

Reinvocation: a webhook that changed the object asks the chain to run the mutating plugins once
more; in that second round only webhooks with reinvocationPolicy IfNeeded that ran before are
called again, and only when something changed the object after them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from apiserver import errors
from apiserver.admission.attributes import Attributes, Obj
from apiserver.admission.chain import Verdict, with_warnings
from apiserver.admission.webhook import review
from apiserver.admission.webhook.calling import Caller, failed, internal_error
from apiserver.admission.webhook.client import CallFailed
from apiserver.admission.webhook.configurations import Webhook, WebhookSource
from apiserver.admission.webhook.matching import Invocation, Matcher, exempt
from apiserver.patching import gojsonpatch

NAME = "MutatingAdmissionWebhook"
_MUTATION_KEY = "mutation.webhook.admission.k8s.io/round_{round}_index_{index}"
_FAILED_OPEN_KEY = "failed-open." + _MUTATION_KEY


@dataclass
class _Reinvocation:
    """Upstream's webhookReinvokeContext, kept in the request's Attributes.state."""

    last_output: Obj | None = None
    invoked: set[str] = field(default_factory=set)  # reinvocable webhooks called since the last change
    reinvoke: set[str] = field(default_factory=set)

    def require_reinvoking(self) -> None:
        self.reinvoke |= self.invoked
        self.invoked = set()


class MutatingWebhooks:
    name = NAME

    def __init__(self, source: WebhookSource, matcher: Matcher, caller: Caller) -> None:
        self._source = source
        self._matcher = matcher
        self._caller = caller

    async def start(self) -> None:
        self._source.start()

    async def stop(self) -> None:
        self._source.stop()
        await self._caller.close()

    @property
    def idle(self) -> bool:
        return not self._source.webhooks

    def handles(self, a: Attributes) -> bool:
        hooks = self._source.webhooks
        return bool(hooks) and not exempt(a) and self._matcher.could_match(hooks, a)

    async def admit(self, a: Attributes) -> Verdict:
        context: _Reinvocation = a.state.setdefault(NAME, _Reinvocation())
        if a.reinvoking and a.object != context.last_output:
            context.require_reinvoking()  # in-tree plugins changed the object since the webhooks saw it
        warnings: list[str] = []
        annotations: dict[str, str] = {}
        try:
            for index, hook in enumerate(self._source.webhooks):
                invocation = self._matcher.invocation(hook, a)
                if invocation is None or (a.reinvoking and hook.uid not in context.reinvoke):
                    continue
                keys = {"round": int(a.reinvoking), "index": index}
                try:
                    changed = await self._call(hook, a, invocation, warnings, annotations)
                except CallFailed as exc:
                    if not hook.fails_open:
                        raise failed(hook, exc.reason) from None
                    annotations[_FAILED_OPEN_KEY.format(**keys)] = hook.name
                    changed = False
                annotations[_MUTATION_KEY.format(**keys)] = _mutation_annotation(hook, changed)
                if changed:
                    context.require_reinvoking()
                    a.reinvoke = True
                if hook.reinvocation_policy == "IfNeeded":
                    context.invoked.add(hook.uid)
        except errors.ApiError as refusal:
            raise with_warnings(refusal, warnings) from None
        finally:
            context.last_output = None if a.object is None else orjson.loads(orjson.dumps(a.object))
        return Verdict(tuple(warnings), tuple(annotations.items()))

    async def _call(self, hook: Webhook, a: Attributes, invocation: Invocation, warnings: list[str],
                    annotations: dict[str, str]) -> bool:
        """Whether the webhook changed the object; a.object is then the changed one."""
        shown = await self._caller.shown_converted(a, invocation, a.object, fresh=True)
        response = await self._caller.call(hook, a, invocation, True, shown)
        warnings.extend(response.warnings)
        annotations.update((f"{hook.name}/{k}", v) for k, v in response.audit_annotations.items())
        if not response.allowed:
            raise review.denied(hook.name, response.result)
        if not response.patch:
            return False
        try:
            operations = gojsonpatch.decode(orjson.loads(response.patch))
        except orjson.JSONDecodeError as exc:
            raise CallFailed(f"received undecodable patch in webhook response: {exc}") from None
        except gojsonpatch.PatchError as exc:
            raise CallFailed(f"received undecodable patch in webhook response: {exc}") from None
        if not operations:
            return False
        if shown is None:
            raise internal_error(f'admission webhook "{hook.name}" attempted to modify the object, '
                                 "which is not supported for this operation")
        if response.patch_type != "JSONPatch":
            raise CallFailed(f'unsupported patch type "{response.patch_type}"')
        try:
            patched = gojsonpatch.apply(shown, operations)
        except gojsonpatch.PatchError as exc:
            raise internal_error(str(exc)) from None
        if not isinstance(patched, dict) or patched == shown:
            return False
        a.object = await self._caller.stored_converted(a, invocation, patched)
        return True


def _mutation_annotation(hook: Webhook, mutated: bool) -> str:
    value = {"configuration": hook.configuration, "webhook": hook.name, "mutated": mutated}
    return orjson.dumps(value).decode()
