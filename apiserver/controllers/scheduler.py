"""The scheduler: binds each pending pod to a node through pods/binding, as kube-scheduler does.

Pods that fit nowhere get PodScheduled=False (Unschedulable) with upstream's message and a
FailedScheduling event, and wait: any node change, or a pod leaving a node, brings them back. A pod
just bound counts on its node at once (the scheduler cache's "assumed" pods) so the next decision
does not see the room it took as free. A pod's claims are readied before it is bound, as the
VolumeBinding plugin does (apiserver.controllers.volumebinding).
"""

from __future__ import annotations

import logging
from typing import Any, Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.client import SCHEDULER, STRATEGIC_PATCH
from apiserver.controllers.events import Recorder
from apiserver.controllers.scheduling import NOT_HELPFUL, NodeState, decide, fit_error
from apiserver.controllers.volumebinding import VolumeBinding
from apiserver.kinds.objects import now_rfc3339

log = logging.getLogger("apiserver.controllers")

SCHEDULER_NAME = "default-scheduler"

PodKey = tuple[str, str]


def _wants_scheduling(pod: Obj) -> bool:
    spec = pod.get("spec") or {}
    return (not spec.get("nodeName") and not pod["metadata"].get("deletionTimestamp")
            and (spec.get("schedulerName") or SCHEDULER_NAME) == SCHEDULER_NAME and not spec.get("schedulingGates")
            and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"))


def _occupies_node(pod: Obj) -> bool:
    return bool((pod.get("spec") or {}).get("nodeName")) and \
        (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")


class Scheduler(Controller):
    name = "kube-scheduler"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.client = ctx.client.with_agent(SCHEDULER)
        self.pods_type = ctx.resource("", "v1", "pods")
        self.pods = ctx.informer("", "v1", "pods")
        self.nodes = ctx.informer("", "v1", "nodes")
        self.events = Recorder(self.client, SCHEDULER_NAME)
        self.on_node: dict[str, dict[PodKey, Obj]] = {}
        self.where: dict[PodKey, str] = {}
        self.assumed: dict[PodKey, str] = {}
        self.waiting: set[PodKey] = set()
        self.volume_binding = VolumeBinding(self.client, ctx.informer("", "v1", "persistentvolumeclaims"),
                                            ctx.informer("", "v1", "persistentvolumes"),
                                            ctx.informer("storage.k8s.io", "v1", "storageclasses"))
        self.pods.add_handler(self._pod_changed)
        self.nodes.add_handler(self._node_changed)
        for informer in (self.volume_binding.claims, self.volume_binding.volumes, self.volume_binding.classes):
            informer.add_handler(self._node_changed)

    def _place(self, key: PodKey, pod: Obj | None) -> None:
        """Keeps the per-node index of pods that take room."""
        old = self.where.pop(key, None)
        if old is not None:
            self.on_node.get(old, {}).pop(key, None)
        if pod is not None and _occupies_node(pod):
            node = pod["spec"]["nodeName"]
            self.where[key] = node
            self.on_node.setdefault(node, {})[key] = pod

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        key = object_key(either(old, new))
        had_room = key in self.where
        self._place(key, new)
        if new is None or (new.get("spec") or {}).get("nodeName"):
            self.assumed.pop(key, None)
        if new is not None and _wants_scheduling(new):
            self.queue.add(key)
        else:
            self.waiting.discard(key)
        if had_room and key not in self.where:
            self._retry_waiting()

    def _node_changed(self, old: Obj | None, new: Obj | None) -> None:
        self._retry_waiting()

    def _retry_waiting(self) -> None:
        for key in self.waiting:
            self.queue.add(key)

    def _states(self) -> list[NodeState]:
        states = {node["metadata"]["name"]: NodeState(node, dict(self.on_node.get(node["metadata"]["name"], {})))
                  for node in self.nodes}
        for key, node_name in self.assumed.items():
            pod = self.pods.get(*key)
            if pod is not None and node_name in states:
                states[node_name].pods[key] = pod
        return sorted(states.values(), key=lambda s: s.name)

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        pod = self.pods.get(*key)
        if pod is None or not _wants_scheduling(pod) or key in self.assumed:
            self.waiting.discard(key)
            return
        states = self._states()
        refused = self.volume_binding.prefilter(pod)
        if refused is not None:
            self.waiting.add(key)
            nodes = len(states)
            await self._unschedulable(pod, f"0/{nodes} nodes are available: {refused}. preemption: 0/{nodes} nodes "
                                           f"are available: {nodes} {NOT_HELPFUL}.")
            return
        decision = decide(pod, states, lambda node: self.volume_binding.filter(pod, node))
        if decision.node is None:
            self.waiting.add(key)
            await self._unschedulable(pod, fit_error(decision, len(states)))
            return
        self.waiting.discard(key)
        self.assumed[key] = decision.node
        # The binding cycle runs apart from the scheduling cycle, as upstream's: the next pod is decided
        # while this one's binding is made durable, the assumed placement counting meanwhile.
        self.spawn(self._bind(key, pod, decision.node))

    async def _bind(self, key: PodKey, pod: Obj, node: str) -> None:
        namespace, name = key
        node_obj = self.nodes.get("", node)
        try:
            ready = node_obj is not None and await self.volume_binding.prebind(pod, node_obj)
        except errors.ApiError as exc:
            log.info("kube-scheduler: readying the volumes of %s/%s on %s: %s", namespace, name, node, exc.message)
            ready = False
        if not ready:
            self.assumed.pop(key, None)
            self.queue.retry(key)
            return
        try:
            await self.client.create_subresource(self.pods_type, namespace, name, "binding", {
                "apiVersion": "v1", "kind": "Binding",
                "metadata": {"name": name, "namespace": namespace, "uid": pod["metadata"].get("uid")},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node}})
        except errors.ApiError as exc:
            self.assumed.pop(key, None)
            log.info("kube-scheduler: binding %s/%s to %s: %s", namespace, name, node, exc.message)
            self.queue.retry(key)
            return
        await self.events.record(pod, "Normal", "Scheduled", "Binding",
                                 f"Successfully assigned {namespace}/{name} to {node}")

    async def _unschedulable(self, pod: Obj, message: str) -> None:
        current = next((c for c in (pod.get("status") or {}).get("conditions") or () if c.get("type") == "PodScheduled"),
                       None)
        if current is not None and current.get("message") == message and current.get("status") == "False":
            return  # told already; a new event only when the reasons change
        namespace, name = object_key(pod)
        condition: dict[str, Any] = {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                     "lastTransitionTime": now_rfc3339(), "reason": "Unschedulable", "message": message}
        await self.client.patch(self.pods_type, namespace, name, {"status": {"conditions": [condition]}},
                                STRATEGIC_PATCH, subresource="status")
        await self.events.record(pod, "Warning", "FailedScheduling", "Scheduling", message)
