"""The replicaset controller: as many pods as `spec.replicas` asks, made from the template, and a status
that counts them.

Pods are created with `generateName: <rs>-` and a controller reference; surplus pods go in upstream's
order (unscheduled, pending, not ready, restarted more, newest first). Pods this controller made or
removed count at once, before the informer hears of them (upstream's "expectations"), so a second
sync never makes the same pod twice.
"""

from __future__ import annotations

import asyncio
import datetime
from typing import Any, Hashable, Mapping

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.client import STRATEGIC_PATCH
from apiserver.controllers.events import Recorder
from apiserver.controllers.selectors import label_selector_matches

_BURST = 500  # upstream's burstReplicas: pods made or removed in one sync


def controller_of(obj: Obj) -> Obj | None:
    for ref in obj["metadata"].get("ownerReferences") or ():
        if ref.get("controller"):
            return ref  # type: ignore[no-any-return]
    return None


def is_active(pod: Obj) -> bool:
    return not pod["metadata"].get("deletionTimestamp") and \
        (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")


def is_ready(pod: Obj) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or ())


def ready_for(pod: Obj) -> float:
    """Seconds since the pod became Ready (what minReadySeconds counts)."""
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "Ready" and condition.get("status") == "True":
            since = condition.get("lastTransitionTime")
            if not since:
                return 0.0
            began = datetime.datetime.fromisoformat(str(since).replace("Z", "+00:00"))
            return (datetime.datetime.now(datetime.timezone.utc) - began).total_seconds()
    return 0.0


def owner_reference(owner: Obj) -> Obj:
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}


def _deletion_rank(pod: Obj) -> tuple[Any, ...]:
    """controller.ActivePods' order, most deletable first."""
    status = pod.get("status") or {}
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(status.get("phase", "Pending"), 0)
    restarts = sum(int(c.get("restartCount", 0)) for c in status.get("containerStatuses") or ())
    created = pod["metadata"].get("creationTimestamp", "")
    return (bool((pod.get("spec") or {}).get("nodeName")), phase_rank, is_ready(pod), -restarts,
            _reversed(created))


def _reversed(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)


class Owned:
    """Pods one controller object owns, with what it created or deleted and has not yet seen come back."""

    def __init__(self) -> None:
        self.created: dict[str, set[str]] = {}  # owner uid -> pod names made, not seen yet
        self.deleted: dict[str, set[str]] = {}  # owner uid -> pod names removed, still seen

    def seen(self, owner_uid: str, name: str, gone: bool) -> None:
        self.created.get(owner_uid, set()).discard(name)
        if gone:
            self.deleted.get(owner_uid, set()).discard(name)


class ReplicaSetController(Controller):
    """The core upstream shares with ReplicationControllers too: a subclass names its resource, its kind and
    how its selector reads."""

    name = "replicaset-controller"
    reporter = "replicaset-controller"  # the component upstream's events name
    kind = "ReplicaSet"
    resource = ("apps", "v1", "replicasets")

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.rs_type = ctx.resource(*self.resource)
        self.pods_type = ctx.resource("", "v1", "pods")
        self.replicasets = ctx.informer(*self.resource)
        self.pods = ctx.informer("", "v1", "pods")
        self.owned = Owned()
        self.events = Recorder(self.client, self.reporter)
        self.replicasets.add_handler(self.enqueue_changed)
        self.pods.add_handler(self._pod_changed)

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        pod = either(old, new)
        ref = controller_of(pod)
        if ref is None and new is not None and is_active(new):
            # An orphan: any ReplicaSet it matches may adopt it.
            labels = new["metadata"].get("labels") or {}
            for rs in self.replicasets.items(new["metadata"].get("namespace", "")):
                if self.selects(rs, labels):
                    self.queue.add(object_key(rs))
            return
        if ref is None or ref.get("kind") != self.kind:
            return
        self.owned.seen(str(ref.get("uid")), pod["metadata"]["name"], new is None)
        self.queue.add((pod["metadata"].get("namespace", ""), ref["name"]))

    def selects(self, rs: Obj, labels: Mapping[str, str]) -> bool:
        return label_selector_matches((rs.get("spec") or {}).get("selector"), labels)

    def pods_of(self, rs: Obj) -> list[Obj]:
        uid = rs["metadata"]["uid"]
        return [p for p in self.pods.items(rs["metadata"]["namespace"])
                if (ref := controller_of(p)) is not None and ref.get("uid") == uid]

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        rs = self.replicasets.get(*key)
        if rs is None:
            return
        uid = rs["metadata"]["uid"]
        deleted = self.owned.deleted.setdefault(uid, set())
        pods = [p for p in self.pods_of(rs) if is_active(p) and p["metadata"]["name"] not in deleted]
        pending = len(self.owned.created.get(uid, ()))
        if not rs["metadata"].get("deletionTimestamp"):
            pods += await self._adopt(rs)
            await self._manage(rs, pods, pending)
        await self._update_status(rs)

    async def _adopt(self, rs: Obj) -> list[Obj]:
        """Claims the orphan pods the selector matches, as upstream's ControllerRefManager does: a
        patch that adds the controller reference, on the condition that the pod is still the one seen."""
        namespace = rs["metadata"]["namespace"]
        adopted = []
        for pod in self.pods.items(namespace):
            if controller_of(pod) is not None or not is_active(pod) or \
                    not self.selects(rs, pod["metadata"].get("labels") or {}):
                continue
            try:
                adopted.append(await self.client.patch(self.pods_type, namespace, pod["metadata"]["name"], {
                    "metadata": {"ownerReferences": [owner_reference(rs)], "uid": pod["metadata"]["uid"]}},
                    STRATEGIC_PATCH))
            except errors.ApiError as exc:
                if exc.code not in (404, 409, 422):
                    raise
        return adopted

    async def _manage(self, rs: Obj, pods: list[Obj], pending: int) -> None:
        wanted = int((rs.get("spec") or {}).get("replicas", 1))
        diff = len(pods) + pending - wanted
        if diff < 0:
            await self._create(rs, min(-diff, _BURST))
        elif diff > 0 and len(pods) >= diff:
            victims = sorted(pods, key=_deletion_rank)[:min(diff, _BURST)]
            await self._delete(rs, victims)

    async def _create(self, rs: Obj, count: int) -> None:
        meta = rs["metadata"]
        template = (rs.get("spec") or {}).get("template") or {}
        template_meta = template.get("metadata") or {}
        pod_meta: Obj = {"generateName": f"{meta['name']}-", "namespace": meta["namespace"],
                         "labels": dict(template_meta.get("labels") or {}),
                         "ownerReferences": [owner_reference(rs)]}
        if template_meta.get("annotations"):
            pod_meta["annotations"] = dict(template_meta["annotations"])
        if template_meta.get("finalizers"):
            pod_meta["finalizers"] = list(template_meta["finalizers"])
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": template.get("spec") or {}}
        created = self.owned.created.setdefault(meta["uid"], set())
        # Slow start, as upstream: a batch of 1, then 2, 4, ... so a template the server refuses fails once.
        batch, made = 1, 0
        while made < count:
            size = min(batch, count - made)
            results = await asyncio.gather(*(self.client.create(self.pods_type, meta["namespace"], body)
                                             for _ in range(size)), return_exceptions=True)
            failures = [r for r in results if isinstance(r, BaseException)]
            for result in results:
                if isinstance(result, dict):
                    name = result["metadata"]["name"]
                    if self.pods.get(meta["namespace"], name) is None:
                        created.add(name)
            made += size - len(failures)
            if failures:
                failure = failures[0]
                if isinstance(failure, errors.ApiError):
                    await self.events.record(rs, "Warning", "FailedCreate", "Create",
                                             f"Error creating: {failure.message}")
                raise failure
            batch *= 2
        await self.events.record(rs, "Normal", "SuccessfulCreate", "Create",
                                 f"Created {count} pod(s)" if count > 1 else "Created pod")

    async def _delete(self, rs: Obj, victims: list[Obj]) -> None:
        meta = rs["metadata"]
        deleted = self.owned.deleted.setdefault(meta["uid"], set())
        for pod in victims:
            deleted.add(pod["metadata"]["name"])
        await asyncio.gather(*(self.client.delete(self.pods_type, meta["namespace"], p["metadata"]["name"],
                                                  {"preconditions": {"uid": p["metadata"]["uid"]}})
                               for p in victims))
        for pod in victims:
            await self.events.record(rs, "Normal", "SuccessfulDelete", "Delete",
                                     f"Deleted pod: {pod['metadata']['name']}")

    async def _update_status(self, rs: Obj) -> None:
        pods = [p for p in self.pods_of(rs) if is_active(p)]
        labels = ((rs.get("spec") or {}).get("template") or {}).get("metadata", {}).get("labels") or {}
        ready = [p for p in pods if is_ready(p)]
        min_ready = int((rs.get("spec") or {}).get("minReadySeconds") or 0)
        waits = [ready_for(p) for p in ready]
        available = sum(1 for w in waits if w >= min_ready)
        pending = [min_ready - w for w in waits if w < min_ready]
        if pending:
            self.queue.add_after(object_key(rs), min(pending) + 0.1)
        status = dict(rs.get("status") or {})
        wanted = {
            "replicas": len(pods),
            "fullyLabeledReplicas": sum(1 for p in pods if all(
                (p["metadata"].get("labels") or {}).get(k) == v for k, v in labels.items())),
            "readyReplicas": len(ready),
            "availableReplicas": available,
            "observedGeneration": rs["metadata"].get("generation", 1),
        }
        updated = {**status, **wanted}
        for field_name in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
            if not updated[field_name]:
                del updated[field_name]  # omitempty in Go
        if updated == status:
            return
        rs["status"] = updated
        await self.client.update(self.rs_type, rs, subresource="status")
