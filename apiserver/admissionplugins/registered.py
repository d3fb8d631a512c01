"""The stateful default plugins on the admission seam (apiserver/admission): each registered under its
upstream name, which places it in the chain, and each a thin adapter from the seam's Attributes to
the pure rules beside it.

They read the store directly (a namespace's LimitRanges and ResourceQuotas, the namespace itself, a
RuntimeClass or StorageClass by name), as upstream's plugins read their informers. ResourceQuota, the
last validating plugin, writes the quotas a write spends before the write is stored; when another
write changed one of them meanwhile, it decides again on the newer quotas, as upstream's evaluator
retries its status updates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from apiserver import errors
from apiserver.admission.attributes import Attributes
from apiserver.admission.chain import ALLOWED, Verdict
from apiserver.admission.plugins import PluginContext, register
from apiserver.admissionplugins import (
    admissionconfig,
    certificates,
    limitranger,
    objectrules,
    podresize,
    podsecurity,
    priority,
    resourcequota,
    runtimeclass,
)
from apiserver.admissionplugins.request import Obj, Request
from apiserver.registry import admission_plugins

# upstream's quota evaluator retries its status updates this many times on conflicts
_QUOTA_ATTEMPTS = 3


def request_of(attributes: Attributes) -> Request:
    return Request(attributes.operation, attributes.resource.group, attributes.resource.resource,
                   attributes.subresource, attributes.namespace, attributes.name, attributes.object,
                   attributes.old_object, attributes.user.name, attributes.dry_run)


class StoreView:
    """What the plugins read, decoded from the store as it is now."""

    def __init__(self, context: PluginContext) -> None:
        self._store = context.store

    def objects(self, storage_key: str, namespace: str) -> list[Obj]:
        return [orjson.loads(stored.data) for _, stored in self._store.list(storage_key, namespace)[1]]

    def namespace(self, name: str) -> Obj | None:
        stored = self._store.latest(("namespaces", "", name))
        return None if stored is None else orjson.loads(stored.data)

    def named(self, storage_key: str) -> Callable[[str], Obj | None]:
        """A cluster-scoped object by name."""
        def lookup(name: str) -> Obj | None:
            stored = self._store.latest((storage_key, "", name))
            return None if stored is None else orjson.loads(stored.data)
        return lookup


class LimitRanger:
    name = "LimitRanger"

    def __init__(self, context: PluginContext) -> None:
        self.stored = StoreView(context)

    def handles(self, attributes: Attributes) -> bool:
        return limitranger.applies(request_of(attributes))

    async def admit(self, attributes: Attributes) -> Verdict:
        request = request_of(attributes)
        limitranger.mutate(request, self.stored.objects("limitranges", request.namespace))
        return ALLOWED

    async def validate(self, attributes: Attributes) -> Verdict:
        request = request_of(attributes)
        limitranger.validate(request, self.stored.objects("limitranges", request.namespace))
        return ALLOWED


class PodSecurity:
    name = "PodSecurity"
    _RESOURCES = frozenset({("", "pods"), ("", "namespaces"), *podsecurity.TEMPLATES})

    def __init__(self, context: PluginContext) -> None:
        self.stored = StoreView(context)
        self.exemptions = admissionconfig.load(context.admission_config_file)

    def handles(self, attributes: Attributes) -> bool:
        return attributes.operation in ("CREATE", "UPDATE") and \
            (attributes.resource.group, attributes.resource.resource) in self._RESOURCES

    async def validate(self, attributes: Attributes) -> Verdict:
        decision = podsecurity.validate(request_of(attributes), self.stored, self.exemptions)
        return Verdict(decision.warnings, decision.annotations) if decision != podsecurity.NOTHING else ALLOWED


class Priority:
    name = "Priority"

    def __init__(self, context: PluginContext) -> None:
        self.stored = StoreView(context)

    def handles(self, attributes: Attributes) -> bool:
        return priority.applies(request_of(attributes))

    async def admit(self, attributes: Attributes) -> Verdict:
        priority.admit_pod(request_of(attributes), self.stored.objects("scheduling.k8s.io/priorityclasses", ""))
        return ALLOWED

    async def validate(self, attributes: Attributes) -> Verdict:
        priority.check_single_default(request_of(attributes),
                                      self.stored.objects("scheduling.k8s.io/priorityclasses", ""))
        return ALLOWED


class PersistentVolumeClaimResize:
    name = "PersistentVolumeClaimResize"

    def __init__(self, context: PluginContext) -> None:
        self.storage_class = StoreView(context).named("storage.k8s.io/storageclasses")

    def handles(self, attributes: Attributes) -> bool:
        return attributes.operation == "UPDATE" and attributes.resource.resource == "persistentvolumeclaims" \
            and not attributes.resource.group and not attributes.subresource

    async def validate(self, attributes: Attributes) -> Verdict:
        objectrules.check_resize(request_of(attributes), self.storage_class)
        return ALLOWED


class RuntimeClass:
    name = "RuntimeClass"

    def __init__(self, context: PluginContext) -> None:
        self.runtime_class = StoreView(context).named("node.k8s.io/runtimeclasses")

    def handles(self, attributes: Attributes) -> bool:
        return runtimeclass.applies(request_of(attributes))

    async def admit(self, attributes: Attributes) -> Verdict:
        request = request_of(attributes)
        if request.obj is not None and (request.obj.get("spec") or {}).get("runtimeClassName"):
            # DefaultTolerationSeconds runs before RuntimeClass upstream, so a class's tolerations follow
            # the defaulted ones; this server applies it later, with the create strategy (where it then
            # finds them present), so it is applied here first.
            admission_plugins.default_toleration_seconds(request.obj.setdefault("spec", {}))
        runtimeclass.mutate(request, self.runtime_class)
        return ALLOWED

    async def validate(self, attributes: Attributes) -> Verdict:
        runtimeclass.validate(request_of(attributes), self.runtime_class)
        return ALLOWED


class CertificateSubjectRestriction:
    name = "CertificateSubjectRestriction"

    def __init__(self, context: PluginContext) -> None:
        pass

    def handles(self, attributes: Attributes) -> bool:
        return attributes.operation == "CREATE" and attributes.resource.resource == "certificatesigningrequests"

    async def validate(self, attributes: Attributes) -> Verdict:
        objectrules.check_subject(request_of(attributes))
        return ALLOWED


class CertificateApproval:
    name = "CertificateApproval"

    def __init__(self, context: PluginContext) -> None:
        self.authorizer = context.authorizer

    def handles(self, attributes: Attributes) -> bool:
        return attributes.operation == "UPDATE" and attributes.subresource == "approval" \
            and attributes.resource.resource == "certificatesigningrequests"

    async def validate(self, attributes: Attributes) -> Verdict:
        certificates.check_approval(request_of(attributes), attributes.user, self.authorizer)
        return ALLOWED


class CertificateSigning:
    name = "CertificateSigning"

    def __init__(self, context: PluginContext) -> None:
        self.authorizer = context.authorizer

    def handles(self, attributes: Attributes) -> bool:
        return attributes.operation == "UPDATE" and attributes.subresource == "status" \
            and attributes.resource.resource == "certificatesigningrequests"

    async def validate(self, attributes: Attributes) -> Verdict:
        certificates.check_signing(request_of(attributes), attributes.user, self.authorizer)
        return ALLOWED


class NodeDeclaredFeatureValidator:
    name = "NodeDeclaredFeatureValidator"

    def __init__(self, context: PluginContext) -> None:
        self.node = StoreView(context).named("nodes")

    def handles(self, attributes: Attributes) -> bool:
        return podresize.declared_features_apply(request_of(attributes))

    async def validate(self, attributes: Attributes) -> Verdict:
        podresize.validate_declared_features(request_of(attributes), self.node)
        return ALLOWED


class PodResizeValidator:
    name = "PodResizeValidator"

    def __init__(self, context: PluginContext) -> None:
        self.node = StoreView(context).named("nodes")

    def handles(self, attributes: Attributes) -> bool:
        return podresize.applies(request_of(attributes))

    async def validate(self, attributes: Attributes) -> Verdict:
        podresize.validate(request_of(attributes), self.node)
        return ALLOWED


class ResourceQuota:
    name = "ResourceQuota"

    def __init__(self, context: PluginContext) -> None:
        self.stored = StoreView(context)
        self.endpoint: Any = context.endpoint
        self.store: Any = context.store
        self.quotas_type = context.registry.lookup("", "v1", "resourcequotas")

    def handles(self, attributes: Attributes) -> bool:
        return resourcequota.applies(request_of(attributes))

    async def validate(self, attributes: Attributes) -> Verdict:
        request = request_of(attributes)
        for attempt in range(1, _QUOTA_ATTEMPTS + 1):
            charged = resourcequota.charge(request, self.stored.objects("resourcequotas", request.namespace))
            if request.dry_run or not charged:
                return ALLOWED
            try:
                for quota in charged:
                    await self._write(quota)
                return ALLOWED
            except (_QuotaChanged, errors.ApiError) as exc:
                if isinstance(exc, errors.ApiError) and exc.code != 409:
                    raise
                if attempt == _QUOTA_ATTEMPTS:
                    raise errors.ApiError(409, "Conflict", f"Operation cannot be fulfilled on resourcequotas: "
                                          f"the quotas of namespace {request.namespace} kept changing while this "
                                          f"write was charged to them; try again", None) from None
                await self.endpoint.caught_up(None)
        return ALLOWED

    async def _write(self, quota: Obj) -> None:
        meta = quota["metadata"]
        current = self.store.latest((self.quotas_type.storage_key, meta["namespace"], meta["name"]))
        if current is None or orjson.loads(current.data)["metadata"].get("resourceVersion") != meta.get(
                "resourceVersion"):
            raise _QuotaChanged()
        await self.endpoint.write_status(self.quotas_type, quota, current)


class _QuotaChanged(Exception):
    """A quota was written after the charge was decided on it."""


register(LimitRanger.name, LimitRanger)
register(PodSecurity.name, PodSecurity)
register(Priority.name, Priority)
register(PersistentVolumeClaimResize.name, PersistentVolumeClaimResize)
register(RuntimeClass.name, RuntimeClass)
register(CertificateApproval.name, CertificateApproval)
register(CertificateSigning.name, CertificateSigning)
register(CertificateSubjectRestriction.name, CertificateSubjectRestriction)
register(NodeDeclaredFeatureValidator.name, NodeDeclaredFeatureValidator)
register(PodResizeValidator.name, PodResizeValidator)
register(ResourceQuota.name, ResourceQuota)
