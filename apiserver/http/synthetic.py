"""Resources answered from what the server knows instead of only from the store: the APIServices
of the served group-versions (beside those users create), the componentstatuses, who the caller
is (selfsubjectreviews), and the simulated nodes' metrics (apiserver.http.metricsapi).

kube-apiserver registers one `Local` APIService per group-version it serves; the ones users create
(metrics-server's `v1beta1.metrics.k8s.io`) are stored, and their Available condition is what
upstream's availability controller would find behind them now. Component statuses are probes made
when asked.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import orjson

from apiserver import errors
from apiserver.discovery.documents import ExternalVersion
from apiserver.http import components, metricsapi
from apiserver.http.endpoint import Target
from apiserver.kinds.resources import APISERVICE_PRIORITIES, Registry
from apiserver.query.selection import selection_for
from apiserver.reply import Reply
from apiserver.shapes.shape import Listing, Shape
from apiserver.storage.interface import Store, StoredObject

APISERVICES = ("apiregistration.k8s.io", "apiservices")
# The simulated metrics are served here under metrics-server's priorities, so that scripts that wait for
# `apiservice/v1beta1.metrics.k8s.io` to be Available find it (only while the group is served).
_PRIORITIES = {**APISERVICE_PRIORITIES, (metricsapi.GROUP, metricsapi.VERSION): (100, 100)}
COMPONENTSTATUSES = ("", "componentstatuses")
BINDINGS = ("", "bindings")


class SyntheticResources:
    def __init__(self, registry: Registry, store: Store, created: str, revision: int) -> None:
        self._registry = registry
        self._store = store
        self._created = created
        self._revision = revision  # the local APIServices' resourceVersion: they exist since the start

    def answers(self, t: Target, verb: str) -> bool:
        """Whether this request is answered here rather than by the stored objects alone."""
        which = (t.rt.group, t.rt.plural)
        if which == APISERVICES:
            return verb in ("get", "list") or t.name is not None and t.name in self._local_names()
        # Never stored, but a binding writes a pod: the endpoint binds it as it does for pods/binding.
        return t.rt.synthetic and which != BINDINGS

    def _local_names(self) -> set[str]:
        return {f"{version}.{group}" for group, versions in self._local_group_versions() for version in versions}

    def _local_group_versions(self) -> list[tuple[str, list[str]]]:
        """Custom resources' group-versions, and the built-in ones that have a local APIService (the
        aggregator serves apiregistration.k8s.io itself and registers none for it)."""
        return [(group, [v for v in versions if self._is_local(group, v)])
                for group, versions in self._registry.group_versions().items()]

    def _is_local(self, group: str, version: str) -> bool:
        return (group, version) in _PRIORITIES or any(
            rt.custom for rt in self._registry.in_group_version(group, version))

    def _local_apiservices(self) -> list[dict[str, Any]]:
        out = []
        for group, versions in self._local_group_versions():
            for version in versions:
                name = f"{version}.{group}"
                spec: dict[str, Any] = {}
                if group:
                    spec["group"] = group
                custom = next((rt.custom for rt in self._registry.in_group_version(group, version) if rt.custom),
                              None)
                if custom is not None:
                    # Registered for a CRD when it is established, with the priorities upstream gives CRD groups.
                    created, managed = custom.created, "true"
                    spec.update(version=version, groupPriorityMinimum=1000, versionPriority=100)
                else:
                    created, managed = self._created, "onstart"
                    group_priority, version_priority = _PRIORITIES[(group, version)]
                    spec.update(version=version, groupPriorityMinimum=group_priority, versionPriority=version_priority)
                out.append({
                    "kind": "APIService", "apiVersion": "apiregistration.k8s.io/v1",
                    "metadata": {"name": name, "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, name)),
                                 "resourceVersion": str(self._revision), "creationTimestamp": created,
                                 "labels": {"kube-aggregator.kubernetes.io/automanaged": managed}},
                    "spec": spec,
                    "status": {"conditions": [{"type": "Available", "status": "True",
                                               "lastTransitionTime": created, "reason": "Local",
                                               "message": "Local APIServices are always available"}]},
                })
        return out

    def _apiservices(self, t: Target) -> tuple[int, list[tuple[tuple[str, str, str], StoredObject]]]:
        revision, stored = self._store.list(t.rt.storage_key, None)
        objects = self._local_apiservices()
        local = {o["metadata"]["name"] for o in objects}
        for _, item in stored:
            obj = orjson.loads(item.data)
            if obj["metadata"]["name"] in local:
                continue
            # A local one (no service) keeps the Available condition its create gave it.
            if isinstance((obj.get("spec") or {}).get("service"), dict):
                obj["status"] = {"conditions": [self._availability(obj)]}
            objects.append(obj)
        objects.sort(key=lambda o: o["metadata"]["name"])
        return revision, [(t.key(o["metadata"]["name"]),
                           StoredObject(int(o["metadata"]["resourceVersion"]), orjson.dumps(o))) for o in objects]

    def external_versions(self) -> list[ExternalVersion]:
        """The group-versions of the stored APIServices, which nothing here serves."""
        local = self._local_names()
        found = []
        for _, item in self._store.list(f"{APISERVICES[0]}/{APISERVICES[1]}", None)[1]:
            obj = orjson.loads(item.data)
            spec = obj.get("spec") or {}
            group, version = spec.get("group"), spec.get("version")
            if obj["metadata"]["name"] in local or not isinstance(group, str) or not group \
                    or not isinstance(version, str) or not version:
                continue
            found.append(ExternalVersion(group, version, _int(spec.get("groupPriorityMinimum")),
                                         _int(spec.get("versionPriority"))))
        return found

    def _availability(self, apiservice: dict[str, Any]) -> dict[str, Any]:
        """The Available condition upstream's availability controller sets for a service-backed APIService."""
        service = (apiservice.get("spec") or {}).get("service") or {}
        condition: dict[str, Any] = {"type": "Available", "status": "False",
                                     "lastTransitionTime": apiservice["metadata"].get("creationTimestamp")}
        name, namespace = service.get("name", ""), service.get("namespace", "")
        found = self._store.latest(("services", namespace, name))
        if found is None:
            return {**condition, "reason": "ServiceNotFound", "message": f'service/{name} in "{namespace}" is not present'}
        spec = orjson.loads(found.data).get("spec") or {}
        port = service.get("port", 443)
        if spec.get("type", "ClusterIP") == "ClusterIP":
            ports = [p for p in spec.get("ports") or () if p.get("port") == port]
            if not ports:
                return {**condition, "reason": "ServicePortError",
                        "message": f'service/{name} in "{namespace}" is not listening on port {port}'}
            port_name = ports[0].get("name", "")
            slices = [orjson.loads(s.data) for _, s in self._store.list("discovery.k8s.io/endpointslices", namespace)[1]]
            slices = [s for s in slices if (s["metadata"].get("labels") or {}).get("kubernetes.io/service-name") == name]
            if not slices:
                return {**condition, "reason": "EndpointsNotFound",
                        "message": f'cannot find endpointslices for service/{name} in "{namespace}"'}
            if not any(_ready_endpoint(s, port_name) for s in slices):
                return {**condition, "reason": "MissingEndpoints",
                        "message": f'endpointslices for service/{name} in "{namespace}" have no addresses with '
                                   f'port name "{port_name}"'}
        # Nothing here proxies to an aggregated server, so its discovery check cannot pass.
        group, version = apiservice["spec"].get("group", ""), apiservice["spec"].get("version", "")
        return {**condition, "reason": "FailedDiscoveryCheck",
                "message": f"failing or missing response from https://{name}.{namespace}.svc:{port}/apis/{group}/"
                           f"{version}: this server does not proxy to aggregated API servers"}

    async def serve(self, t: Target, verb: str, shape: Shape) -> Reply:
        which = (t.rt.group, t.rt.plural)
        if which == APISERVICES:
            if verb in ("get", "list"):
                revision, items = self._apiservices(t)
                return _read(t, verb, shape, revision, items)
            raise errors.method_not_allowed(f"{verb} is not supported on {t.name}: kube-apiserver manages the "
                                            "APIServices of the groups it serves")
        if t.rt.group == metricsapi.GROUP and verb in ("get", "list"):
            revision, items = metricsapi.items(self._store, t.rt, t.namespace)
            return _read(t, verb, shape, revision, items)
        if which == COMPONENTSTATUSES and verb in ("get", "list"):
            revision = self._store.revision
            found = await asyncio.gather(*(components.probe(c) for c in components.COMPONENTS))
            items = [(t.key(o["metadata"]["name"]), StoredObject(revision, orjson.dumps(o))) for o in found]
            return _read(t, verb, shape, revision, items, components.RESOURCE_IN_ERRORS)
        raise errors.method_not_allowed(f"{verb} is not supported on {t.rt.qualified_name} by this server")


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _ready_endpoint(endpoint_slice: dict[str, Any], port_name: str) -> bool:
    ready = any((e.get("conditions") or {}).get("ready", True) for e in endpoint_slice.get("endpoints") or ())
    return ready and any(p.get("name", "") == port_name and p.get("port") is not None
                         for p in endpoint_slice.get("ports") or ())


def _read(t: Target, verb: str, shape: Shape, revision: int,
          items: list[tuple[tuple[str, str, str], StoredObject]], resource_in_errors: str | None = None) -> Reply:
    """`resource_in_errors`: the resource a missing object's 404 names, where its REST names another
    than the plural."""
    if verb == "get":
        for key, stored in items:
            if key[2] == t.name:
                return Reply(200, shape.object_body(t.rt, stored), shape.content_type)
        raise errors.not_found(resource_in_errors or t.rt.plural, t.rt.group, t.name or "")
    selection = selection_for(t.rt, None, t.query.get("labelSelector", ""), t.query.get("fieldSelector", ""))
    items = [(key, stored) for key, stored in items if selection.matches(key, stored.data)]
    return Reply(200, shape.list_body(t.rt, Listing(revision, items)), shape.content_type)
