"""The stateful default plugins in kube-apiserver 1.36's order (pkg/kubeapiserver/options/plugins.go):
LimitRanger's defaults and RuntimeClass's overhead and scheduling in the mutating phase; LimitRanger's
bounds, PodSecurity, PersistentVolumeClaimResize, RuntimeClass's overhead check,
CertificateSubjectRestriction and, last of all, ResourceQuota in the validating phase.

The write path hands over the request and a view of the store (`Stored`); what the quota plugin
decides to charge comes back for the caller to write before the object, since only it can write.
"""

from __future__ import annotations

from typing import Callable, Protocol

from apiserver.admissionplugins import limitranger, objectrules, podsecurity, resourcequota, runtimeclass
from apiserver.admissionplugins.request import Obj, Request


class Stored(Protocol):
    def objects(self, storage_key: str, namespace: str) -> list[Obj]:
        """A namespace's objects of one resource, sorted by name."""

    def namespace(self, name: str) -> Obj | None:
        ...


_RUNTIME_CLASSES = "node.k8s.io/runtimeclasses"
_STORAGE_CLASSES = "storage.k8s.io/storageclasses"


def _named(stored: Stored, storage_key: str) -> Callable[[str], Obj | None]:
    """A cluster-scoped object by name."""
    return lambda name: next((c for c in stored.objects(storage_key, "") if c["metadata"]["name"] == name), None)


def _runtime_class(stored: Stored) -> runtimeclass.Lookup:
    return _named(stored, _RUNTIME_CLASSES)


def mutate(request: Request, stored: Stored) -> None:
    if limitranger.applies(request) and request.resource == "pods":
        limitranger.mutate(request, stored.objects("limitranges", request.namespace))
    runtimeclass.mutate(request, _runtime_class(stored))


def validate(request: Request, stored: Stored, exemptions: podsecurity.Exemptions) -> list[str]:
    """Raises the first plugin's refusal; the warnings PodSecurity answers with otherwise."""
    if limitranger.applies(request):
        limitranger.validate(request, stored.objects("limitranges", request.namespace))
    warnings = podsecurity.validate(request, stored, exemptions)
    objectrules.check_resize(request, _named(stored, _STORAGE_CLASSES))
    runtimeclass.validate(request, _runtime_class(stored))
    objectrules.check_subject(request)
    return warnings


def quota_charges(request: Request, stored: Stored) -> list[Obj]:
    """The ResourceQuotas to write with their raised `status.used` (raises when one refuses)."""
    if not resourcequota.applies(request):
        return []
    return resourcequota.charge(request, stored.objects("resourcequotas", request.namespace))
