"""The stateful default plugins in kube-apiserver 1.36's order (pkg/kubeapiserver/options/plugins.go):
LimitRanger's defaults in the mutating phase; LimitRanger's bounds, PodSecurity and, last of all,
ResourceQuota in the validating phase.

The write path hands over the request and a view of the store (`Stored`); what the quota plugin
decides to charge comes back for the caller to write before the object, since only it can write.
"""

from __future__ import annotations

from typing import Protocol

from apiserver.admissionplugins import limitranger, podsecurity, resourcequota
from apiserver.admissionplugins.request import Obj, Request


class Stored(Protocol):
    def objects(self, storage_key: str, namespace: str) -> list[Obj]:
        """A namespace's objects of one resource, sorted by name."""

    def namespace(self, name: str) -> Obj | None:
        ...


def mutate(request: Request, stored: Stored) -> None:
    if limitranger.applies(request) and request.resource == "pods":
        limitranger.mutate(request, stored.objects("limitranges", request.namespace))


def validate(request: Request, stored: Stored, exemptions: podsecurity.Exemptions) -> list[str]:
    """Raises the first plugin's refusal; the warnings PodSecurity answers with otherwise."""
    if limitranger.applies(request):
        limitranger.validate(request, stored.objects("limitranges", request.namespace))
    return podsecurity.validate(request, stored, exemptions)


def quota_charges(request: Request, stored: Stored) -> list[Obj]:
    """The ResourceQuotas to write with their raised `status.used` (raises when one refuses)."""
    if not resourcequota.applies(request):
        return []
    return resourcequota.charge(request, stored.objects("resourcequotas", request.namespace))
