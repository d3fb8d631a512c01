"""The taint eviction controller: pods leave nodes whose NoExecute taints they do not tolerate.

A pod that tolerates none of a node's NoExecute taints is deleted at once; one whose tolerations
carry tolerationSeconds (the 300s every pod gets for `not-ready` and `unreachable`) is deleted when
the shortest of them, counted from the taint's timeAdded, runs out; a toleration without a limit
keeps it there. Deleting goes through the API, so the pod's owner replaces it elsewhere.
"""

from __future__ import annotations

import datetime
from typing import Hashable

from apiserver.controllers.base import Context, Controller, Obj, object_key
from apiserver.controllers.events import Recorder
from apiserver.controllers.scheduling import tolerates


def _matching(tolerations: list[Obj], taint: Obj) -> list[Obj]:
    return [t for t in tolerations if tolerates([t], taint)]


def eviction_delay(pod: Obj, taints: list[Obj], now: datetime.datetime) -> float | None:
    """Seconds until the pod must go (0: now), or None when it may stay."""
    tolerations = (pod.get("spec") or {}).get("tolerations") or []
    delay: float | None = None
    for taint in taints:
        if taint.get("effect") != "NoExecute":
            continue
        matching = _matching(tolerations, taint)
        if not matching:
            return 0.0
        limits = [t["tolerationSeconds"] for t in matching if t.get("tolerationSeconds") is not None]
        if not limits or len(limits) < len(matching):
            continue  # a toleration without a limit: stays for this taint
        added = taint.get("timeAdded")
        since = (now - datetime.datetime.fromisoformat(added.replace("Z", "+00:00"))).total_seconds() if added else 0
        left = max(min(limits) - since, 0.0)
        delay = left if delay is None else min(delay, left)
    return delay


class TaintEviction(Controller):
    name = "taint-eviction-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.pods_type = ctx.resource("", "v1", "pods")
        self.nodes = ctx.informer("", "v1", "nodes")
        self.pods = ctx.informer("", "v1", "pods")
        self.events = Recorder(self.client, self.name)
        self.nodes.add_handler(self._node_changed)
        self.pods.add_handler(self._pod_changed)

    def _node_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is None or not any(t.get("effect") == "NoExecute" for t in (new.get("spec") or {}).get("taints") or ()):
            return
        node_name = new["metadata"]["name"]
        for pod in self.pods:
            if (pod.get("spec") or {}).get("nodeName") == node_name:
                self.queue.add(object_key(pod))

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None and (new.get("spec") or {}).get("nodeName"):
            self.queue.add(object_key(new))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        pod = self.pods.get(*key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        node = self.nodes.get("", (pod.get("spec") or {}).get("nodeName") or "")
        if node is None:
            return
        delay = eviction_delay(pod, (node.get("spec") or {}).get("taints") or [],
                               datetime.datetime.now(datetime.timezone.utc))
        if delay is None:
            return
        if delay > 0:
            self.queue.add_after(key, delay)
            return
        meta = pod["metadata"]
        await self.events.record(pod, "Normal", "TaintManagerEviction", "Delete",
                                 f"Marking for deletion Pod {meta['namespace']}/{meta['name']}")
        await self.client.delete(self.pods_type, meta["namespace"], meta["name"],
                                 {"preconditions": {"uid": meta["uid"]}})
