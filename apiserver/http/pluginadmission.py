"""Where the write path meets the stateful default plugins (apiserver/admissionplugins): it shows them
the store and writes what ResourceQuota charges.

Called once per create or update, after the object's defaults and the plugins that need only the
object, before it is reshaped and written. The quotas a write spends are written first (their
`status.used`, as kube-apiserver's own client would through resourcequotas/status); when another
write changed one of them meanwhile, the decision is taken again on the newer quotas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from apiserver import errors
from apiserver.admissionplugins import chain
from apiserver.admissionplugins.podsecurity import Exemptions
from apiserver.admissionplugins.request import Obj, Operation, Request
from apiserver.kinds import managedfields, objects

if TYPE_CHECKING:
    from apiserver.http.endpoint import Endpoint, Target

_QUOTAS = "resourcequotas"
# upstream's quota evaluator retries its status updates this many times on conflicts
_QUOTA_ATTEMPTS = 3


class PluginAdmission:
    def __init__(self, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self.exemptions = Exemptions()

    # -- chain.Stored ------------------------------------------------------------------------------

    def objects(self, storage_key: str, namespace: str) -> list[Obj]:
        return [orjson.loads(stored.data) for _, stored in self._endpoint.store.list(storage_key, namespace)[1]]

    def namespace(self, name: str) -> Obj | None:
        stored = self._endpoint.store.latest(("namespaces", "", name))
        return None if stored is None else orjson.loads(stored.data)  # type: ignore[no-any-return]

    # -- the write path ------------------------------------------------------------------------------

    async def admit(self, t: Target, operation: Operation, obj: Obj, old: Obj | None) -> dict[str, str]:
        """Mutates `obj`, raises a plugin's refusal, charges quotas; the Warning header to answer with."""
        request = Request(operation, t.rt.group, t.rt.plural, t.subresource or "", t.namespace if t.rt.namespaced
                          else "", t.name or "" if operation != "CREATE" else "", obj, old,
                          t.requester.name if t.requester is not None else "", t.dry_run)
        chain.mutate(request, self)
        warnings = chain.validate(request, self, self.exemptions)
        await self._charge(request)
        if not warnings:
            return {}
        return {"Warning": ", ".join("299 - " + orjson.dumps(w).decode() for w in warnings)}

    async def _charge(self, request: Request) -> None:
        from apiserver.http.endpoint import Target  # the endpoint imports this module

        rt = self._endpoint.registry.lookup("", "v1", _QUOTAS)
        if rt is None:
            return
        for attempt in range(1, _QUOTA_ATTEMPTS + 1):
            charged = chain.quota_charges(request, self)
            if request.dry_run or not charged:
                return
            try:
                for quota in charged:
                    name = quota["metadata"]["name"]
                    key = (rt.storage_key, request.namespace, name)
                    current = self._endpoint.store.latest(key)
                    if current is None or orjson.loads(current.data)["metadata"].get("resourceVersion") != \
                            quota["metadata"].get("resourceVersion"):
                        raise _QuotaChanged()
                    target = Target(rt, request.namespace, name, "status", {}, managedfields.KUBE_APISERVER)
                    prepared = objects.prepare_update(rt, quota, orjson.loads(current.data), "status",
                                                      managedfields.KUBE_APISERVER)
                    prepared["metadata"]["resourceVersion"] = quota["metadata"].get("resourceVersion")
                    await self._endpoint.write_object(target, key, prepared, current)
                return
            except (_QuotaChanged, errors.ApiError) as exc:
                if isinstance(exc, errors.ApiError) and exc.code != 409:
                    raise
                if attempt == _QUOTA_ATTEMPTS:
                    raise errors.ApiError(409, "Conflict", _conflict_message(request), None) from None
                await self._endpoint.caught_up(None)


class _QuotaChanged(Exception):
    """A quota was written after the charge was decided on it."""


def _conflict_message(request: Request) -> str:
    return (f"Operation cannot be fulfilled on resourcequotas: the resource quota of namespace "
            f"{request.namespace} changed while this {request.resource} write was charged to it; try again")


def header_merged(first: dict[str, str], second: dict[str, str]) -> dict[str, str]:
    """Two Warning headers as one, the first's warnings first."""
    merged: dict[str, Any] = dict(first)
    for key, value in second.items():
        merged[key] = f"{merged[key]}, {value}" if key in merged else value
    return merged
