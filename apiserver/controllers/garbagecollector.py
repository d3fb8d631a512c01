"""The garbage collector: dependents follow their owners' deletion as the owners' ownerReferences and
deletion policy say.

A graph of every object's owners (by uid) is kept from the informers of all stored types: the built-in
ones, and each custom resource from the time its CRD is established.
A dependent whose owners are all gone is deleted (Background, or its own pending policy); one that
keeps some owner loses only its dangling references. An owner held by `orphan` has its reference
taken off every dependent and then the finalizer removed; one held by `foregroundDeletion` has its
dependents deleted (in the foreground too) and loses the finalizer once none that blocks it is left.
An owner missing from the graph is looked up before anything is deleted, so an informer that is a
step behind never costs a dependent its life.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj
from apiserver.controllers.client import MERGE_PATCH, STRATEGIC_PATCH
from apiserver.kinds.propagation import FOREGROUND, ORPHAN
from apiserver.kinds.resources import ResourceType


@dataclass
class GraphNode:
    rt: ResourceType
    namespace: str
    name: str
    owners: list[Obj]
    finalizers: list[str]
    deleting: bool
    dependents: set[str] = field(default_factory=set)

    @property
    def foreground(self) -> bool:
        return self.deleting and FOREGROUND in self.finalizers


def _uid(obj: Obj) -> str:
    return str(obj["metadata"].get("uid", ""))


class GarbageCollector(Controller):
    name = "garbage-collector-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.graph: dict[str, GraphNode] = {}
        self.dependents: dict[str, set[str]] = {}  # owner uid -> dependent uids, the owner known or not
        self._custom_followed: set[str] = set()
        for rt in self.client.stored_types():
            if rt.kind == "Event":
                continue  # never owners, rarely dependents, and the busiest feed of all
            ctx.informers.for_type(rt).add_handler(self._handler(rt))
            if rt.kind == "CustomResourceDefinition":
                ctx.informers.for_type(rt).add_handler(self._crd_changed)

    def _crd_changed(self, old: Obj | None, new: Obj | None) -> None:
        """Follows the custom resources of every CRD the registry serves by now."""
        for rt in self.client.custom_types():
            if rt.storage_key not in self._custom_followed:
                self._custom_followed.add(rt.storage_key)
                self.ctx.informers.follow(rt).add_handler(self._handler(rt))

    def _handler(self, rt: ResourceType) -> Any:
        def changed(old: Obj | None, new: Obj | None) -> None:
            if new is None:
                assert old is not None
                self._removed(old)
            else:
                self._changed(rt, old, new)
        return changed

    def _changed(self, rt: ResourceType, old: Obj | None, new: Obj) -> None:
        uid = _uid(new)
        meta = new["metadata"]
        owners = list(meta.get("ownerReferences") or ())
        before = self.graph.get(uid)
        if before is not None:
            for ref in before.owners:
                self.dependents.get(str(ref.get("uid")), set()).discard(uid)
        node = GraphNode(rt, meta.get("namespace", ""), meta["name"], owners, list(meta.get("finalizers") or ()),
                         bool(meta.get("deletionTimestamp")))
        self.graph[uid] = node
        for ref in owners:
            self.dependents.setdefault(str(ref.get("uid")), set()).add(uid)
        if node.deleting and (ORPHAN in node.finalizers or FOREGROUND in node.finalizers):
            self.queue.add(("owner", uid))
        if owners and (before is None or before.owners != owners):
            self.queue.add(("dependent", uid))

    def _removed(self, old: Obj) -> None:
        uid = _uid(old)
        node = self.graph.pop(uid, None)
        if node is None:
            return
        for ref in node.owners:
            owner_uid = str(ref.get("uid"))
            self.dependents.get(owner_uid, set()).discard(uid)
            if owner_uid in self.graph and self.graph[owner_uid].foreground:
                self.queue.add(("owner", owner_uid))
        for dependent in self.dependents.get(uid, ()):
            self.queue.add(("dependent", dependent))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        role, uid = key
        node = self.graph.get(uid)
        if node is None:
            return
        if role == "owner":
            await self._owner(uid, node)
        else:
            await self._dependent(uid, node)

    def _owner_state(self, ref: Obj, namespace: str) -> str:
        """"solid", "waiting" (deleting its dependents first) or "absent"."""
        owner = self.graph.get(str(ref.get("uid")))
        if owner is not None:
            return "waiting" if owner.foreground else "solid"
        rt = self.client.for_kind(str(ref.get("apiVersion", "")), str(ref.get("kind", "")))
        if rt is None:
            return "solid"  # a kind not served here: never a reason to delete
        found = self.client.get(rt, namespace if rt.namespaced else "", str(ref.get("name", "")))
        if found is not None and _uid(found) == ref.get("uid"):
            return "solid"
        return "absent"

    async def _dependent(self, uid: str, node: GraphNode) -> None:
        if node.deleting:
            return
        states = {str(ref.get("uid")): self._owner_state(ref, node.namespace) for ref in node.owners}
        if not states:
            return
        absent = [u for u, state in states.items() if state == "absent"]
        waiting = [u for u, state in states.items() if state == "waiting"]
        solid = [u for u, state in states.items() if state == "solid"]
        if solid:
            if absent:
                await self._drop_references(node, uid, set(absent))
            return
        if waiting:
            policy = "Foreground"
        elif ORPHAN in node.finalizers:
            policy = "Orphan"
        elif FOREGROUND in node.finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        await self.client.delete(node.rt, node.namespace, node.name,
                                 {"propagationPolicy": policy, "preconditions": {"uid": uid}})

    async def _owner(self, uid: str, node: GraphNode) -> None:
        if not node.deleting:
            return
        dependents = [d for d in self.dependents.get(uid, ()) if d in self.graph]
        if ORPHAN in node.finalizers:
            for dependent_uid in dependents:
                await self._drop_references(self.graph[dependent_uid], dependent_uid, {uid})
            await self._drop_finalizer(node, ORPHAN)
            return
        if FOREGROUND not in node.finalizers:
            return
        blocking = []
        for dependent_uid in dependents:
            dependent = self.graph[dependent_uid]
            if not dependent.deleting:
                self.queue.add(("dependent", dependent_uid))
            if any(ref.get("uid") == uid and ref.get("blockOwnerDeletion") for ref in dependent.owners):
                blocking.append(dependent_uid)
        if not blocking:
            await self._drop_finalizer(node, FOREGROUND)

    async def _drop_references(self, node: GraphNode, uid: str, owners: set[str]) -> None:
        """Takes owner references off a dependent, with its uid as a precondition (upstream's patch)."""
        left = [ref for ref in node.owners if ref.get("uid") not in owners]
        # Go drops an empty list when it writes the object; a patch that deletes the field does the same here.
        if node.rt.custom is not None:  # no strategic merge for custom resources: the list as it is left
            await self.client.patch(node.rt, node.namespace, node.name,
                                    {"metadata": {"ownerReferences": left or None, "uid": uid}}, MERGE_PATCH)
            return
        references: Any = [{"$patch": "delete", "uid": u} for u in sorted(owners)] if left else None
        await self.client.patch(node.rt, node.namespace, node.name,
                                {"metadata": {"ownerReferences": references, "uid": uid}}, STRATEGIC_PATCH)

    async def _drop_finalizer(self, node: GraphNode, finalizer: str) -> None:
        current = self.client.get(node.rt, node.namespace, node.name)
        if current is None:
            return
        meta = current["metadata"]
        if finalizer not in (meta.get("finalizers") or ()):
            return
        meta["finalizers"] = [f for f in meta["finalizers"] if f != finalizer]
        try:
            await self.client.update(node.rt, current)
        except errors.ApiError as exc:
            if exc.code != 404:
                raise
