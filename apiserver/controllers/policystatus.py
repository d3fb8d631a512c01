"""The ValidatingAdmissionPolicy status controller (kube-controller-manager's
`validatingadmissionpolicy-status-controller`): each new generation of a policy gets its expressions
type-checked against the kinds it matches (apiserver/admission/policy/typechecking.py), written to
`status.typeChecking` with `status.observedGeneration`."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from apiserver.admission.policy import typechecking
from apiserver.controllers.base import Context, Controller
from apiserver.kinds.resources import ResourceType

GROUP = "admissionregistration.k8s.io"


class _Served:
    """The served types as the type checker looks them up: None for what is not served."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        try:
            return self._ctx.resource(group, version, plural)
        except LookupError:
            return None


class ValidatingAdmissionPolicyStatusController(Controller):
    name = "validatingadmissionpolicy-status-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.policies_type = ctx.resource(GROUP, "v1", "validatingadmissionpolicies")
        self.policies = ctx.informer(GROUP, "v1", "validatingadmissionpolicies")
        self.policies.add_handler(self.enqueue_changed)
        self.served = _Served(ctx)

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        policy = self.policies.get(*key)
        if policy is None:
            return
        generation = int(policy["metadata"].get("generation") or 0)
        status: dict[str, Any] = policy.get("status") or {}
        if generation <= int(status.get("observedGeneration") or 0):
            return
        found = typechecking.warnings(policy, self.served)
        checked: dict[str, Any] = {"expressionWarnings": found} if found else {}
        body = {"status": {"observedGeneration": generation, "typeChecking": checked}}
        await self.client.patch(self.policies_type, "", policy["metadata"]["name"], body, subresource="status")
