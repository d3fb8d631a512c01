"""Resources computed from the registry instead of stored: the APIServices of the served group-versions."""

from __future__ import annotations

import uuid
from typing import Any

import orjson

from apiserver import errors
from apiserver.http.endpoint import Target
from apiserver.kinds.resources import Registry
from apiserver.reply import Reply, StreamReply
from apiserver.shapes.shape import Listing, Shape
from apiserver.storage.interface import StoredObject

# kube-apiserver's priorities for the built-in groups it registers as local APIServices.
_GROUP_PRIORITY = {"": 18000, "apps": 17800, "events.k8s.io": 17750, "authentication.k8s.io": 17700,
                   "authorization.k8s.io": 17600, "policy": 17600, "batch": 17400,
                   "networking.k8s.io": 17200, "rbac.authorization.k8s.io": 17000, "storage.k8s.io": 16800,
                   "apiextensions.k8s.io": 16700,
                   "coordination.k8s.io": 16500, "discovery.k8s.io": 16200, "apiregistration.k8s.io": 18000}


class SyntheticResources:
    def __init__(self, registry: Registry, created: str, revision: int) -> None:
        self._registry = registry
        self._created = created
        self._revision = revision

    def _apiservices(self) -> list[dict[str, Any]]:
        out = []
        for group, versions in self._registry.group_versions().items():
            for index, version in enumerate(versions):
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
                    spec.update(version=version, groupPriorityMinimum=_GROUP_PRIORITY.get(group, 15000),
                                versionPriority=15 - index if group else 1)
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
        return sorted(out, key=lambda o: o["metadata"]["name"])

    def serve(self, t: Target, verb: str, shape: Shape) -> Reply | StreamReply:
        items = [(t.key(item["metadata"]["name"]), StoredObject(self._revision, orjson.dumps(item)))
                 for item in self._apiservices()]
        if verb == "get":
            for key, stored in items:
                if key[2] == t.name:
                    return Reply(200, shape.object_body(t.rt, stored), shape.content_type)
            raise errors.not_found(t.rt.plural, t.rt.group, t.name or "")
        if verb == "list":
            return Reply(200, shape.list_body(t.rt, Listing(self._revision, items)), shape.content_type)
        raise errors.method_not_allowed(f"{verb} is not supported on {t.rt.qualified_name}: they are read-only")
