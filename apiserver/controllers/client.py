"""The in-process API client: controllers read and write through the Endpoint, as any request does.

A write here passes the same admission, defaulting, validation and managedFields as one over HTTP;
only the socket and the JSON round trip of the request line are skipped. The manager name comes from
the user agent, as upstream's does: `kube-controller-manager/v1.36.2 ...` is credited as
`kube-controller-manager`.
"""

from __future__ import annotations

from typing import Any

import orjson

from apiserver import errors
from apiserver.auth.tokens import User
from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds import managedfields
from apiserver.kinds.resources import Registry, ResourceType
from apiserver.reply import Reply
from apiserver.shapes.shape import JSON_SHAPE

KUBE_VERSION = "v1.36.2"
CONTROLLER_MANAGER = f"kube-controller-manager/{KUBE_VERSION} (linux/amd64) kubernetes/fastkube"
SCHEDULER = f"kube-scheduler/{KUBE_VERSION} (linux/amd64) kubernetes/fastkube"
KUBELET = f"kubelet/{KUBE_VERSION} (linux/amd64) kubernetes/fastkube"
# kube-apiserver's writes to itself (its identity Lease) name the binary it ran as, as the goldens show.
KUBE_APISERVER = f"{managedfields.KUBE_APISERVER}/{KUBE_VERSION} (linux/amd64) kubernetes/fastkube"
# The CSR signer writes certificates as its own service account, as kube-controller-manager does with
# --use-service-account-credentials (kubeadm's setting): CertificateSigning lets only a user the RBAC
# bootstrap policy allows `sign` on the signer write them, and system:kube-controller-manager is not one.
CERTIFICATE_CONTROLLER = f"{CONTROLLER_MANAGER}/system:serviceaccount:kube-system:certificate-controller"

# Who admission is told writes, per component: the users a kubeadm cluster's components authenticate
# as, so webhooks and admission plugins see the controllers' writes as upstream's do. The simulated
# kubelet's writes are not admitted: its user would name a node (system:node:<name>) it does not have.
_USERS = {
    CONTROLLER_MANAGER: User("system:kube-controller-manager", "", ("system:authenticated",)),
    SCHEDULER: User("system:kube-scheduler", "", ("system:authenticated",)),
    KUBE_APISERVER: User("system:apiserver", "", ("system:authenticated", "system:masters")),
    CERTIFICATE_CONTROLLER: User("system:serviceaccount:kube-system:certificate-controller", "",
                                 ("system:serviceaccounts", "system:serviceaccounts:kube-system",
                                  "system:authenticated")),
}

MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"

Obj = dict[str, Any]


class Client:
    """get, create, update, patch, delete on one resource type at a time, as a named component."""

    def __init__(self, endpoint: Endpoint, registry: Registry, user_agent: str) -> None:
        self._endpoint = endpoint
        self._registry = registry
        self.user_agent = user_agent

    def with_agent(self, user_agent: str) -> Client:
        return Client(self._endpoint, self._registry, user_agent)

    def resource(self, group: str, version: str, plural: str) -> ResourceType:
        rt = self._registry.lookup(group, version, plural)
        if rt is None:
            raise LookupError(f"{plural}.{group}/{version} is not served")
        return rt

    def custom_type(self, group: str, plural: str) -> ResourceType | None:
        """A served custom resource by group and plural, in whichever version."""
        return next((rt for rt in self._registry.types
                     if rt.custom is not None and rt.group == group and rt.plural == plural), None)

    def for_kind(self, api_version: str, kind: str) -> ResourceType | None:
        """The served type an ownerReference names (the RESTMapper's job), or None."""
        group, _, version = api_version.rpartition("/")
        for rt in self._registry.types:
            if rt.group == group and rt.version == version and rt.kind == kind and not rt.synthetic:
                return rt
        return None

    def stored_types(self) -> list[ResourceType]:
        """One served type per stored resource (events once, in the core group)."""
        found: dict[str, ResourceType] = {}
        for rt in self._registry.types:
            if not rt.synthetic and rt.custom is None:
                found.setdefault(rt.storage_key, rt)
        return list(found.values())

    def custom_types(self) -> list[ResourceType]:
        """One served type per custom resource whose CRD is established now."""
        found: dict[str, ResourceType] = {}
        for rt in self._registry.types:
            if rt.custom is not None:
                found.setdefault(rt.storage_key, rt)
        return list(found.values())

    @property
    def endpoint(self) -> Endpoint:
        return self._endpoint

    def _target(self, rt: ResourceType, namespace: str, name: str | None,
                subresource: str | None = None) -> Target:
        return Target(rt, namespace if rt.namespaced else "", name, subresource, {}, self.user_agent,
                      user=_USERS.get(self.user_agent))

    def get(self, rt: ResourceType, namespace: str, name: str, subresource: str | None = None) -> Obj | None:
        """The object's durable state (or that of its subresource, such as `scale`), or None."""
        try:
            return _decoded(self._endpoint.get(self._target(rt, namespace, name, subresource), JSON_SHAPE))
        except errors.ApiError as exc:
            if exc.code == 404:
                return None
            raise

    async def create(self, rt: ResourceType, namespace: str, obj: Obj) -> Obj:
        return _decoded(await self._endpoint.create(self._target(rt, namespace, None), orjson.dumps(obj),
                                                    "application/json"))

    async def create_subresource(self, rt: ResourceType, namespace: str, name: str, subresource: str,
                                 obj: Obj) -> Obj:
        return _decoded(await self._endpoint.create_subresource(self._target(rt, namespace, name, subresource),
                                                                orjson.dumps(obj), "application/json"))

    async def update(self, rt: ResourceType, obj: Obj, subresource: str | None = None) -> Obj:
        meta = obj["metadata"]
        target = self._target(rt, meta.get("namespace", ""), meta["name"], subresource)
        return _decoded(await self._endpoint.update(target, orjson.dumps(obj), "application/json"))

    async def patch(self, rt: ResourceType, namespace: str, name: str, body: Obj,
                    content_type: str = MERGE_PATCH, subresource: str | None = None) -> Obj:
        target = self._target(rt, namespace, name, subresource)
        return _decoded(await self._endpoint.patch(target, orjson.dumps(body), content_type))

    async def delete(self, rt: ResourceType, namespace: str, name: str, options: Obj | None = None) -> None:
        """Deletes, or marks for deletion; an object already gone is not an error here."""
        try:
            await self._endpoint.delete(self._target(rt, namespace, name), orjson.dumps(options or {}),
                                        "application/json")
        except errors.ApiError as exc:
            if exc.code != 404:
                raise


def _decoded(reply: Reply) -> Obj:
    return orjson.loads(reply.body)  # type: ignore[no-any-return]
