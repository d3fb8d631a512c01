"""ValidatingAdmissionWebhook as 1.36 runs it (`plugin/webhook/validating/dispatcher.go`): every
matching webhook called at once, the request refused by the first failure (a refusal, or a failed call
under failurePolicy Fail); a failed call under Ignore passes, noted in the audit annotations.
"""

from __future__ import annotations

import asyncio

from apiserver import errors
from apiserver.admission.attributes import Attributes
from apiserver.admission.chain import Verdict, with_warnings
from apiserver.admission.webhook import review
from apiserver.admission.webhook.calling import Caller, failed
from apiserver.admission.webhook.client import CallFailed
from apiserver.admission.webhook.configurations import Webhook, WebhookSource
from apiserver.admission.webhook.matching import Invocation, Matcher, exempt

NAME = "ValidatingAdmissionWebhook"
_FAILED_OPEN_KEY = "failed-open.validating.webhook.admission.k8s.io/round_0_index_{index}"


class ValidatingWebhooks:
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

    async def validate(self, a: Attributes) -> Verdict:
        invocations: list[tuple[int, Invocation]] = []
        for index, hook in enumerate(self._source.webhooks):
            invocation = self._matcher.invocation(hook, a)
            if invocation is not None:
                invocations.append((index, invocation))
        if not invocations:
            return Verdict()
        outcomes = await asyncio.gather(*(self._call(index, inv.webhook, a, inv)
                                          for index, inv in invocations))
        warnings = [w for outcome in outcomes for w in outcome.warnings]
        annotations = [pair for outcome in outcomes for pair in outcome.audit_annotations]
        refusal = next((outcome.refusal for outcome in outcomes if outcome.refusal is not None), None)
        if refusal is not None:
            raise with_warnings(refusal, warnings)
        return Verdict(tuple(warnings), tuple(annotations))

    async def _call(self, index: int, hook: Webhook, a: Attributes, invocation: Invocation) -> _Outcome:
        try:
            response = await self._caller.call(hook, a, invocation, False)
        except CallFailed as exc:
            if hook.fails_open:
                return _Outcome((), ((_FAILED_OPEN_KEY.format(index=index), hook.name),), None)
            return _Outcome((), (), failed(hook, exc.reason))
        except errors.ApiError as exc:
            return _Outcome((), (), exc)
        annotations = tuple((f"{hook.name}/{k}", v) for k, v in response.audit_annotations.items())
        refusal = None if response.allowed else review.denied(hook.name, response.result)
        return _Outcome(response.warnings, annotations, refusal)


class _Outcome:
    __slots__ = ("audit_annotations", "refusal", "warnings")

    def __init__(self, warnings: tuple[str, ...], audit_annotations: tuple[tuple[str, str], ...],
                 refusal: errors.ApiError | None) -> None:
        self.warnings = warnings
        self.audit_annotations = audit_annotations
        self.refusal = refusal
