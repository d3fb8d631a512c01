"""The node lifecycle controller: a node's taints follow its conditions, and a node whose kubelet stops
heartbeating becomes Unknown (then unreachable) after the monitor grace period
(`--node-monitor-grace-period`, 50s as upstream's default). A node that never reported (no Ready
condition) is given the startup grace period from its creation (`--node-startup-grace-period`, 60s),
then gets Unknown conditions with reason NodeStatusNeverUpdated, as tryUpdateNodeHealth writes them.

Taints by condition as upstream's TaintNodesByCondition: Ready False is `not-ready`, Unknown is
`unreachable` (both NoSchedule, and NoExecute with the time added), pressure conditions True add their
NoSchedule taints, and `spec.unschedulable` adds `node.kubernetes.io/unschedulable`. The grace period
is checked at the moment it would run out for each node, never by scanning.
"""

from __future__ import annotations

import copy

import datetime
from typing import Any, Hashable

from apiserver.controllers.base import Context, Controller, Obj
from apiserver.kinds.objects import now_rfc3339

LEASE_NAMESPACE = "kube-node-lease"

_BY_CONDITION = {
    ("Ready", "False"): "node.kubernetes.io/not-ready",
    ("Ready", "Unknown"): "node.kubernetes.io/unreachable",
    ("MemoryPressure", "True"): "node.kubernetes.io/memory-pressure",
    ("DiskPressure", "True"): "node.kubernetes.io/disk-pressure",
    ("NetworkUnavailable", "True"): "node.kubernetes.io/network-unavailable",
    ("PIDPressure", "True"): "node.kubernetes.io/pid-pressure",
}
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_MANAGED = frozenset(_BY_CONDITION.values()) | {UNSCHEDULABLE}
_NO_EXECUTE = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


def _parse_time(text: Any) -> datetime.datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


# Turned Unknown when the kubelet goes silent; NetworkUnavailable is the control plane's to manage.
_WATCHED_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")


def _ready(node: Obj) -> Obj | None:
    return next((c for c in (node.get("status") or {}).get("conditions") or () if c.get("type") == "Ready"), None)


def wanted_taints(node: Obj, current: list[Obj]) -> list[Obj]:
    """The node's taints with the managed ones as its conditions ask, others kept in place."""
    conditions = {c.get("type"): c.get("status") for c in (node.get("status") or {}).get("conditions") or ()}
    keys = [key for (kind, status), key in _BY_CONDITION.items() if conditions.get(kind) == status]
    if (node.get("spec") or {}).get("unschedulable"):
        keys.append(UNSCHEDULABLE)
    wanted = [(key, "NoSchedule") for key in keys] + [(key, "NoExecute") for key in keys if key in _NO_EXECUTE]
    kept = [t for t in current if t.get("key") not in _MANAGED or (t.get("key"), t.get("effect")) in wanted]
    have = {(t.get("key"), t.get("effect")) for t in kept}
    for key, effect in wanted:
        if (key, effect) not in have:
            taint: Obj = {"key": key, "effect": effect}
            if effect == "NoExecute":
                taint["timeAdded"] = now_rfc3339()
            kept.append(taint)
    return kept


class NodeLifecycle(Controller):
    name = "node-lifecycle-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.nodes_type = ctx.resource("", "v1", "nodes")
        self.grace = ctx.node_monitor_grace_seconds
        self.startup_grace = ctx.settings.node_startup_grace_seconds
        self.nodes = ctx.informer("", "v1", "nodes")
        self.leases = ctx.informer("coordination.k8s.io", "v1", "leases")
        self.nodes.add_handler(self._node_changed)
        self.leases.add_handler(self._lease_changed)

    def _node_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None:
            self.queue.add(new["metadata"]["name"])

    def _lease_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None and new["metadata"].get("namespace") == LEASE_NAMESPACE:
            self.queue.add(new["metadata"]["name"])

    def _last_heard(self, node: Obj) -> datetime.datetime | None:
        times = []
        lease = self.leases.get(LEASE_NAMESPACE, node["metadata"]["name"])
        if lease is not None:
            times.append(_parse_time((lease.get("spec") or {}).get("renewTime")))
        if _ready(node) is None:  # never reported: counted from its creation
            times.append(_parse_time(node["metadata"].get("creationTimestamp")))
        for condition in (node.get("status") or {}).get("conditions") or ():
            if condition.get("type") == "Ready":
                times.append(_parse_time(condition.get("lastHeartbeatTime")))
        known = [t for t in times if t is not None]
        return max(known) if known else None

    async def sync(self, key: Hashable) -> None:
        name = str(key)
        cached = self.nodes.get("", name)
        if cached is None:
            return
        # A copy: the informer's object is what every controller's handlers compare the next change with.
        node = copy.deepcopy(cached)
        heard = self._last_heard(node)
        grace = self.grace if _ready(node) is not None else self.startup_grace
        if heard is not None:
            silent = (datetime.datetime.now(datetime.timezone.utc) - heard).total_seconds()
            if silent > grace:
                if await self._mark_unknown(node):
                    return  # the status change comes back through the informer
            else:
                self.queue.add_after(name, grace - silent + 1)
        current = list((node.get("spec") or {}).get("taints") or ())
        taints = wanted_taints(node, current)
        if taints != current:
            node.setdefault("spec", {})["taints"] = taints
            if not taints:
                del node["spec"]["taints"]
            await self.client.update(self.nodes_type, node)

    async def _mark_unknown(self, node: Obj) -> bool:
        now = now_rfc3339()
        changed = False
        conditions = node.setdefault("status", {}).setdefault("conditions", [])
        for kind in _WATCHED_CONDITIONS:
            condition = next((c for c in conditions if c.get("type") == kind), None)
            if condition is None:
                conditions.append({"type": kind, "status": "Unknown",
                                   "lastHeartbeatTime": node["metadata"].get("creationTimestamp"),
                                   "lastTransitionTime": now, "reason": "NodeStatusNeverUpdated",
                                   "message": "Kubelet never posted node status."})
                changed = True
            elif condition.get("status") != "Unknown":
                condition.update({"status": "Unknown", "lastTransitionTime": now, "reason": "NodeStatusUnknown",
                                  "message": "Kubelet stopped posting node status."})
                changed = True
        if changed:
            await self.client.update(self.nodes_type, node, subresource="status")
        return changed
