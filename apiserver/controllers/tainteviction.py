"""The taint eviction controller: pods leave nodes whose NoExecute taints they do not tolerate.

As upstream's pkg/controller/tainteviction: a pod that does not tolerate every NoExecute taint of its
node is deleted at once; otherwise the shortest tolerationSeconds among the tolerations used (the 300s
every pod gets for `not-ready` and `unreachable`) is counted from when this controller first found the
pod there, not from the taint's timeAdded, so a pod bound to a node tainted long ago still gets its
full grace; a deletion once scheduled keeps its time, and is cancelled when the taints go or come to be
tolerated forever. Deleting goes through the API, so the pod's owner replaces it elsewhere.
"""

from __future__ import annotations

import time
from collections.abc import Hashable

from apiserver.controllers.base import Context, Controller, Obj, object_key
from apiserver.controllers.events import Recorder
from apiserver.controllers.scheduling import tolerates


def matching_tolerations(taints: list[Obj], tolerations: list[Obj]) -> list[Obj] | None:
    """GetMatchingTolerations: the first toleration of each taint, or None when a taint has none."""
    used: list[Obj] = []
    for taint in taints:
        first = next((t for t in tolerations if tolerates([t], taint)), None)
        if first is None:
            return None
        used.append(first)
    return used


def min_toleration_seconds(used: list[Obj]) -> float | None:
    """getMinTolerationTime: seconds the pod may stay (0 for none used), None when it may stay forever."""
    if not used:
        return 0.0
    limits = [t["tolerationSeconds"] for t in used if t.get("tolerationSeconds") is not None]
    if not limits:
        return None
    return float(max(min(limits), 0))


def _no_execute(node: Obj | None) -> list[Obj]:
    return [t for t in ((node or {}).get("spec") or {}).get("taints") or () if t.get("effect") == "NoExecute"]


class TaintEviction(Controller):
    name = "taint-eviction-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.pods_type = ctx.resource("", "v1", "pods")
        self.nodes = ctx.informer("", "v1", "nodes")
        self.pods = ctx.informer("", "v1", "pods")
        self.events = Recorder(self.client, self.name)
        # When each pod's scheduled deletion falls due (monotonic seconds), as the eviction queue's work.
        self._due: dict[tuple[str, str], float] = {}
        self.nodes.add_handler(self._node_changed)
        self.pods.add_handler(self._pod_changed)

    def _node_changed(self, old: Obj | None, new: Obj | None) -> None:
        # Taints coming and going both matter (going cancels the deletions they scheduled); a node update
        # that leaves its NoExecute taints as they were (a heartbeat) changes nothing, as upstream's NodeUpdated.
        if _no_execute(old) == _no_execute(new):
            return
        node_name = (new or old or {})["metadata"]["name"]
        for pod in self.pods:
            if (pod.get("spec") or {}).get("nodeName") == node_name:
                self.queue.add(object_key(pod))

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        pod = new if new is not None else old
        if pod is not None and (pod.get("spec") or {}).get("nodeName"):
            self.queue.add(object_key(pod))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        pod = self.pods.get(*key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            self._due.pop(key, None)
            return
        node = self.nodes.get("", (pod.get("spec") or {}).get("nodeName") or "")
        taints = _no_execute(node)
        if not taints:
            await self._cancel(pod, key)
            return
        used = matching_tolerations(taints, (pod.get("spec") or {}).get("tolerations") or [])
        stay = 0.0 if used is None else min_toleration_seconds(used)
        if stay is None:
            await self._cancel(pod, key)
            return
        now = time.monotonic()
        due = now if used is None else self._due.setdefault(key, now + stay)
        if due > now:
            self.queue.add_after(key, due - now)
            return
        self._due.pop(key, None)
        meta = pod["metadata"]
        await self.events.record(pod, "Normal", "TaintManagerEviction", "Delete",
                                 f"Marking for deletion Pod {meta['namespace']}/{meta['name']}")
        await self.client.delete(self.pods_type, meta["namespace"], meta["name"],
                                 {"preconditions": {"uid": meta["uid"]}})

    async def _cancel(self, pod: Obj, key: tuple[str, str]) -> None:
        if self._due.pop(key, None) is not None:
            meta = pod["metadata"]
            await self.events.record(pod, "Normal", "TaintManagerEviction", "Cancel",
                                     f"Cancelling deletion of Pod {meta['namespace']}/{meta['name']}")
