"""Serving what CustomResourceDefinitions declare, from the moment they are written.

The part of apiextensions-apiserver's controllers a client can observe, done as the store applies
each CRD change (before the writer hears back): the CRD's resource types join or leave the
registry, discovery is rebuilt, status gets NamesAccepted and Established with the accepted names
and stored versions, and a CRD being deleted has its objects deleted and its cleanup finalizer taken
off (the finalizer controller's sync), which lets it go. At start-up the stored CRDs are served again
the same way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import orjson

from apiserver.crd import crdspec
from apiserver.discovery.documents import Discovery
from apiserver.kinds import managedfields, objects
from apiserver.kinds.resources import Registry, ResourceType
from apiserver.registry import apiextensions
from apiserver.registry.apiextensions import deletion
from apiserver.storage.interface import Change, Key, PreconditionFailed, Store

log = logging.getLogger("apiserver.crd.crds")

STORAGE_KEY = f"{apiextensions.GROUP}/customresourcedefinitions"
# Upstream's finalizer starts from an informer event through its work queue, after the DELETE has been
# answered: a client reading right after its DELETE finds the CRD still Terminating. Ours waits as long,
# with room for a busy server's next request to be answered first.
FINALIZER_DELAY = 0.5


def _condition(kind: str, accepted: bool, reason: str, message: str, since: str) -> dict[str, str]:
    return {"type": kind, "status": "True" if accepted else "False", "lastTransitionTime": since,
            "reason": reason, "message": message}


def crd_status(crd: dict[str, Any], now: str, conflict: str | None = None) -> dict[str, Any]:
    """The status upstream's controllers give a CRD: names accepted and established, unless its plural is taken.

    A condition keeps its lastTransitionTime while its status stays; Established, once true, stays true."""
    old = crd.get("status") or {}
    previous = {c.get("type"): c for c in old.get("conditions") or ()}

    def since(kind: str, status: str) -> str:
        before = previous.get(kind) or {}
        return str(before.get("lastTransitionTime") or now) if before.get("status") == status else now

    names = crd["spec"]["names"]
    if conflict is None:
        accepted = _condition("NamesAccepted", True, "NoConflicts", "no conflicts found",
                              since("NamesAccepted", "True"))
    else:
        accepted = _condition("NamesAccepted", False, "PluralConflict", f'"{conflict}" is already in use',
                              since("NamesAccepted", "False"))
    if conflict is None or (previous.get("Established") or {}).get("status") == "True":
        established = _condition("Established", True, "InitialNamesAccepted",
                                 "the initial names have been accepted", since("Established", "True"))
    else:
        established = _condition("Established", False, "NotAccepted", "not all names are accepted",
                                 since("Established", "False"))
    stored = list(old.get("storedVersions") or ())
    storage = crdspec.storage_version(crd)
    if storage and storage not in stored:
        stored.append(storage)
    # Other controllers' conditions (the finalizer's Terminating) stay as they are.
    others = [c for c in old.get("conditions") or () if c.get("type") not in ("NamesAccepted", "Established")]
    status: dict[str, Any] = {"conditions": [accepted, established, *others]}
    accepted_names = old.get("acceptedNames") if conflict is not None else dict(names)
    status["acceptedNames"] = accepted_names or {"plural": "", "kind": ""}
    status["storedVersions"] = stored
    return status


class CustomResourceDefinitions:
    def __init__(self, store: Store, registry: Registry, discovery: Discovery,
                 leading: Callable[[], bool] = lambda: True) -> None:
        self._store = store
        # Every server serves what CRDs declare; only the leader writes their status and deletes the
        # objects of a deleted one, so that several servers over one etcd do it once.
        self._leading = leading
        self._registry = registry
        self._discovery = discovery
        self._served: dict[str, tuple[Any, list[ResourceType]]] = {}  # CRD name -> (its spec, its types)
        self._writes: set[asyncio.Future[Any]] = set()

    def start(self) -> None:
        """Serves the stored CRDs and follows later changes; needs the running event loop."""
        _, items = self._store.list(STORAGE_KEY, None)
        stored = [(key, orjson.loads(obj.data), obj.rv) for key, obj in items]
        # In the order they were created, as they were first served (status writes follow that order).
        stored.sort(key=lambda entry: (entry[1]["metadata"].get("creationTimestamp", ""), entry[2]))
        for key, crd, rv in stored:
            self._established(key, crd)
            self._queue_finalize(key, crd, rv)
        self._store.subscribe(STORAGE_KEY, self._changed, self.resync)

    def resync(self) -> None:
        """Serves what is stored now: after changes were lost (etcd compacted them before the watch cache
        saw them), or on becoming the leader, which owes the status writes it left to another."""
        _, items = self._store.list(STORAGE_KEY, None)
        current = {key[2]: (key, orjson.loads(obj.data), obj.rv) for key, obj in items}
        for name in [name for name in self._served if name not in current]:
            self._withdraw(name, delete_objects=True)
        for key, crd, rv in current.values():
            self._established(key, crd)
            self._queue_finalize(key, crd, rv)

    def _changed(self, change: Change) -> None:
        # Called from inside the store's commit: a CRD this code cannot serve must not stop other writes.
        try:
            crd = orjson.loads(change.data)
            if change.type == "DELETED":
                self._withdraw(crd["metadata"]["name"], delete_objects=True)
            else:
                self._established(change.key, crd)
                self._queue_finalize(change.key, crd, change.rv)
        except Exception:
            log.exception("could not follow the change of CRD %s", change.key[2])

    def _established(self, key: Key, crd: dict[str, Any]) -> None:
        name = crd["metadata"]["name"]
        spec = crd.get("spec")
        served = self._served.get(name)
        conflict = None
        if served is None or served[0] != spec:
            self._withdraw(name, delete_objects=False)
            types = crdspec.resource_types(crd)
            taken = [rt for rt in types if self._registry.lookup(rt.group, rt.version, rt.plural) is not None]
            # A CRD's name is plural.group, so only a built-in resource can already hold its plural.
            if taken:
                conflict = taken[0].plural
            else:
                for rt in types:
                    self._registry.add(rt)
                self._served[name] = (spec, types)
                self._discovery.invalidate()
        status = crd_status(crd, objects.now_rfc3339(), conflict)
        if status != crd.get("status") and self._leading():
            crd_type = self._registry.lookup(apiextensions.GROUP, "v1", "customresourcedefinitions")
            updated = {**crd, "status": status}
            if crd_type is not None:  # recorded in managedFields as upstream's controllers are
                updated = objects.prepare_update(crd_type, updated, crd, "status", managedfields.KUBE_APISERVER)
            self._submit(key, updated)

    def _queue_finalize(self, key: Key, crd: dict[str, Any], rv: int) -> None:
        if deletion.awaits_cleanup(crd):
            asyncio.get_running_loop().call_later(FINALIZER_DELAY, self._finalize_logged, key, rv)

    def _finalize_logged(self, key: Key, rv: int) -> None:
        try:
            self._finalize(key, rv)
        except Exception:
            log.exception("could not finalize the deletion of CRD %s", key[2])

    def _finalize(self, key: Key, rv: int) -> None:
        """CRDFinalizer.sync on the CRD as it is now (a later change of it brings its own turn): Terminating
        in progress, the objects deleted, then the finalizer off, which deletes the CRD if it was the last."""
        latest = self._store.latest(key)
        if latest is None or latest.rv != rv or not self._leading():
            return
        crd = orjson.loads(latest.data)
        if not deletion.awaits_cleanup(crd):
            return
        crd_type = self._registry.lookup(apiextensions.GROUP, "v1", "customresourcedefinitions")
        if crd_type is None:
            return
        progressing = orjson.loads(latest.data)
        deletion.in_progress(progressing, objects.now_rfc3339())
        progressing = objects.prepare_update(crd_type, progressing, crd, "status", managedfields.KUBE_APISERVER)
        self._submit(key, progressing)
        served = self._served.get(crd["metadata"]["name"])
        if deletion.deletes_instances(crd) and served is not None and served[1]:
            _, items = self._store.list(served[1][0].storage_key, None)
            for item_key, stored in items:
                self._submit(item_key, orjson.loads(stored.data), delete=True)
        done = orjson.loads(orjson.dumps(progressing))
        deletion.cleaned_up(done, objects.now_rfc3339())
        # The CRD status strategy leaves metadata to the writer: the finalizer comes off through /status.
        finalizers = done["metadata"].get("finalizers")
        done = objects.prepare_update(crd_type, done, progressing, "status", managedfields.KUBE_APISERVER)
        if finalizers:
            done["metadata"]["finalizers"] = finalizers
        else:
            done["metadata"].pop("finalizers", None)
        self._submit(key, done, delete=not finalizers)

    def _withdraw(self, name: str, delete_objects: bool) -> None:
        served = self._served.pop(name, None)
        if served is None:
            return
        for rt in served[1]:
            self._registry.remove(rt)
        self._discovery.invalidate()
        if delete_objects and served[1] and self._leading():
            _, items = self._store.list(served[1][0].storage_key, None)
            for key, stored in items:
                self._submit(key, orjson.loads(stored.data), delete=True)

    def _submit(self, key: Key, obj: dict[str, Any], delete: bool = False) -> None:
        try:
            write = self._store.submit(key, obj, self._store.latest(key), delete=delete)
        except PreconditionFailed:
            return  # a newer change is on its way and brings its own turn here
        future = asyncio.ensure_future(write)
        self._writes.add(future)
        future.add_done_callback(self._finished)

    def _finished(self, future: asyncio.Future[Any]) -> None:
        self._writes.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("a CRD controller write failed: %s", future.exception())
