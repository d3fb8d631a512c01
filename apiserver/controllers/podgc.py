"""The pod-garbage-collector-controller, as upstream's `pkg/controller/podgc`.

Finished pods (Succeeded, Failed) beyond `--terminated-pod-gc-threshold` are deleted, evicted ones first
and then the oldest; pods bound to a node that no longer exists (still gone after the 40 s quarantine),
deleting pods that were never scheduled, and deleting pods of a node that is not Ready and tainted
`node.kubernetes.io/out-of-service` are marked Failed (an orphan with the DisruptionTarget condition
`DeletionByPodGC`) and deleted at once. Upstream looks every 20 s; here the informers say when.
"""

from __future__ import annotations

from typing import Any, Hashable

from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.client import STRATEGIC_PATCH
from apiserver.kinds.objects import now_rfc3339

QUARANTINE_SECONDS = 40.0
OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
_TERMINATED = "terminated"


def is_terminated(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase", "Pending") not in ("Pending", "Running", "Unknown")


def _out_of_service(node: Obj) -> bool:
    ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                for c in (node.get("status") or {}).get("conditions") or ())
    return not ready and any(t.get("key") == OUT_OF_SERVICE for t in (node.get("spec") or {}).get("taints") or ())


def _evicted_first_then_oldest(pod: Obj) -> tuple[int, str]:
    evicted = (pod.get("status") or {}).get("reason") == "Evicted"
    return (0 if evicted else 1, str(pod["metadata"].get("creationTimestamp", "")))


class PodGarbageCollector(Controller):
    name = "pod-garbage-collector-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.pods_type = ctx.resource("", "v1", "pods")
        self.pods = ctx.informer("", "v1", "pods")
        self.nodes = ctx.informer("", "v1", "nodes")
        self.nodes_type = ctx.resource("", "v1", "nodes")
        self.threshold = ctx.settings.terminated_pod_gc_threshold
        self.terminated: set[tuple[str, str]] = set()
        self.pods.add_handler(self._pod_changed)
        self.nodes.add_handler(self._node_changed)

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        key = object_key(either(old, new))
        if new is None:
            self.terminated.discard(key)
            return
        if is_terminated(new):
            self.terminated.add(key)
            if 0 < self.threshold < len(self.terminated):
                self.queue.add((_TERMINATED,))
        else:
            self.terminated.discard(key)
        node = (new.get("spec") or {}).get("nodeName")
        if new["metadata"].get("deletionTimestamp") and not node:
            self.queue.add(("unscheduled", *key))
        elif new["metadata"].get("deletionTimestamp") and node:
            self.queue.add(("out-of-service", node))
        elif node and self.nodes.synced.is_set() and self.nodes.get("", node) is None:
            self.queue.add_after(("node", node), QUARANTINE_SECONDS)

    def _node_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is None and old is not None:
            self.queue.add_after(("node", old["metadata"]["name"]), QUARANTINE_SECONDS)
        elif new is not None and _out_of_service(new):
            self.queue.add(("out-of-service", new["metadata"]["name"]))

    async def run(self) -> None:
        # Pods of nodes that were gone before this server started.
        for pod in self.pods:
            node = (pod.get("spec") or {}).get("nodeName")
            if node and self.nodes.get("", node) is None:
                self.queue.add_after(("node", node), QUARANTINE_SECONDS)
        await super().run()

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        if key[0] == _TERMINATED:
            await self._terminated()
        elif key[0] == "out-of-service":
            await self._terminating_out_of_service(key[1])
        elif key[0] == "unscheduled":
            pod = self.pods.get(key[1], key[2])
            if pod is not None and pod["metadata"].get("deletionTimestamp") and not pod["spec"].get("nodeName"):
                await self._fail_and_delete(pod, None)
        else:
            await self._orphans(key[1])

    async def _terminated(self) -> None:
        pods = [p for p in (self.pods.get(*k) for k in self.terminated) if p is not None]
        excess = len(pods) - self.threshold
        if self.threshold <= 0 or excess <= 0:
            return
        for pod in sorted(pods, key=_evicted_first_then_oldest)[:excess]:
            await self._fail_and_delete(pod, None)

    async def _terminating_out_of_service(self, name: str) -> None:
        """gcTerminating: deleting pods of a node that is not Ready and marked out of service go at once."""
        node = self.nodes.get("", name)
        if node is None or not _out_of_service(node):
            return
        for pod in self.pods:
            if (pod.get("spec") or {}).get("nodeName") == name and pod["metadata"].get("deletionTimestamp") \
                    and not is_terminated(pod):
                await self._fail_and_delete(pod, None)

    async def _orphans(self, node: str) -> None:
        # After the quarantine, asked of the store itself, as upstream asks the API server.
        if self.nodes.get("", node) is not None or self.client.get(self.nodes_type, "", node) is not None:
            return
        condition = {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
                     "message": "PodGC: node no longer exists"}
        for pod in self.pods:
            if (pod.get("spec") or {}).get("nodeName") == node:
                await self._fail_and_delete(pod, condition)

    async def _fail_and_delete(self, pod: Obj, condition: dict[str, Any] | None) -> None:
        namespace, name = object_key(pod)
        if not is_terminated(pod):
            status: Obj = {"phase": "Failed"}
            if condition is not None:
                status["conditions"] = [{**condition, "lastProbeTime": None, "lastTransitionTime": now_rfc3339()}]
            await self.client.patch(self.pods_type, namespace, name, {"status": status},
                                    STRATEGIC_PATCH, subresource="status")
        await self.client.delete(self.pods_type, namespace, name,
                                 {"gracePeriodSeconds": 0, "preconditions": {"uid": pod["metadata"].get("uid")}})
