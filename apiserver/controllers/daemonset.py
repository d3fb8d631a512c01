"""The daemonset controller: one pod of the DaemonSet on every node its template fits, and none elsewhere.

A node fits when the template's nodeSelector and required node affinity match it and its NoSchedule
and NoExecute taints are tolerated, counting the tolerations upstream adds to every daemon pod. Each
pod is pinned to its node by a required node affinity on `metadata.name` and placed by the scheduler,
as upstream does. A changed template rolls node by node (maxUnavailable, default 1): an outdated pod
is deleted while no more than that many daemon pods are unavailable, and its replacement follows.
Each template is kept as a ControllerRevision `<ds>-<pod-template-hash>` whose hash pods carry in
`controller-revision-hash` (upstream's snapshot); `kubectl rollout undo` puts an older template back,
and that revision is renumbered as the newest. Old revisions no pod uses go beyond
`revisionHistoryLimit`.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.events import Recorder
from apiserver.controllers.history import (
    REVISION_LABEL,
    Histories,
    history_limit,
    new_revision,
    revision_number,
    same_data,
    template_patch,
)
from apiserver.controllers.podtemplatehash import compute_hash
from apiserver.controllers.replicaset import controller_of, is_ready, owner_reference
from apiserver.controllers.rollout import scaled_value
from apiserver.controllers.scheduling import tolerates
from apiserver.controllers.selectors import node_selector_term_matches

GENERATION_LABEL = "pod-template-generation"

# util.AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates.
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]
HOST_NETWORK_TOLERATION = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                           "effect": "NoSchedule"}


def daemon_tolerations(spec: Obj) -> list[Obj]:
    tolerations = list(spec.get("tolerations") or [])
    extra = [*DAEMON_TOLERATIONS, *([HOST_NETWORK_TOLERATION] if spec.get("hostNetwork") else [])]
    for toleration in extra:
        if not any(t.get("key") == toleration["key"] and t.get("effect") == toleration["effect"]
                   for t in tolerations):
            tolerations.append(dict(toleration))
    return tolerations


def should_run(template_spec: Obj, node: Obj) -> bool:
    labels = node["metadata"].get("labels") or {}
    if any(labels.get(k) != v for k, v in (template_spec.get("nodeSelector") or {}).items()):
        return False
    required = (((template_spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if required is not None and not any(node_selector_term_matches(t, node)
                                        for t in required.get("nodeSelectorTerms") or ()):
        return False
    tolerations = daemon_tolerations(template_spec)
    return all(tolerates(tolerations, taint) for taint in (node.get("spec") or {}).get("taints") or ()
               if taint.get("effect") in ("NoSchedule", "NoExecute"))


def _pinned(spec: Obj, node_name: str) -> Obj:
    """The template's spec with the node affinity that holds the pod to one node."""
    spec = copy.deepcopy(spec)
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    affinity = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    spec["tolerations"] = daemon_tolerations(spec)
    return spec


def _target_node(pod: Obj) -> str | None:
    if (pod.get("spec") or {}).get("nodeName"):
        return str(pod["spec"]["nodeName"])
    required = ((((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or ():
        for field in term.get("matchFields") or ():
            if field.get("key") == "metadata.name" and field.get("values"):
                return str(field["values"][0])
    return None


def _updated(pod: Obj, generation: str, template_hash: str) -> bool:
    """IsPodUpdated: the pod carries the template's hash or its generation."""
    labels = pod["metadata"].get("labels") or {}
    return labels.get(REVISION_LABEL) == template_hash or labels.get(GENERATION_LABEL) == generation


class DaemonSetController(Controller):
    name = "daemonset-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.ds_type = ctx.resource("apps", "v1", "daemonsets")
        self.pods_type = ctx.resource("", "v1", "pods")
        self.daemonsets = ctx.informer("apps", "v1", "daemonsets")
        self.nodes = ctx.informer("", "v1", "nodes")
        self.pods = ctx.informer("", "v1", "pods")
        self.histories = Histories(self.client, ctx.informer("apps", "v1", "controllerrevisions"))
        self.pending: dict[str, dict[str, str]] = {}  # DaemonSet uid -> pod made, not seen yet -> its node
        self.events = Recorder(self.client, self.name)
        self.daemonsets.add_handler(self.enqueue_changed)
        self.nodes.add_handler(self._node_changed)
        self.pods.add_handler(self._pod_changed)

    def _node_changed(self, old: Obj | None, new: Obj | None) -> None:
        for ds in self.daemonsets:
            self.queue.add(object_key(ds))

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        pod = either(old, new)
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != "DaemonSet":
            return
        self.pending.get(str(ref.get("uid")), {}).pop(pod["metadata"]["name"], None)
        self.queue.add((pod["metadata"].get("namespace", ""), ref["name"]))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        ds = self.daemonsets.get(*key)
        if ds is None or ds["metadata"].get("deletionTimestamp"):
            return
        uid = ds["metadata"]["uid"]
        generation = str(ds["metadata"].get("generation", 1))
        pods = [p for p in self.pods.items(ds["metadata"]["namespace"])
                if (ref := controller_of(p)) is not None and ref.get("uid") == uid]
        live = [p for p in pods if not p["metadata"].get("deletionTimestamp")
                and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        by_node: dict[str, list[Obj]] = {}
        for pod in live:
            node = _target_node(pod)
            if node is not None:
                by_node.setdefault(node, []).append(pod)
        template_spec = ds["spec"]["template"].get("spec") or {}
        wanted = sorted(n["metadata"]["name"] for n in self.nodes if should_run(template_spec, n))
        pending_nodes = set(self.pending.get(uid, {}).values())
        create = [n for n in wanted if n not in by_node and n not in pending_nodes]
        surplus = [p for n, ps in by_node.items() for p in (ps if n not in wanted else ps[1:])]
        current, old = await self._construct_history(ds)
        # A revision written without the label (by an older controller) goes by its name, as upstream's.
        template_hash = (current["metadata"].get("labels") or {}).get(REVISION_LABEL) or current["metadata"]["name"]
        await self._create(ds, create, template_hash)
        await self._delete(ds, surplus)
        await self._roll(ds, by_node, wanted, generation, template_hash)
        await self._clean_up_history(ds, old, pods)
        await self._status(ds, by_node, wanted, generation, template_hash)

    async def _construct_history(self, ds: Obj) -> tuple[Obj, list[Obj]]:
        """(the revision of the template, the others), as upstream's constructHistory: the matching
        revision with the highest number, renumbered past the others when it is older than they are,
        or a new snapshot."""
        data = template_patch(ds)
        current: list[Obj] = []
        old: list[Obj] = []
        for revision in self.histories.owned(ds):
            (current if same_data(revision, data) else old).append(revision)
        number = max((revision_number(r) for r in old), default=0) + 1
        if current:
            return await self.histories.renumber(current[-1], max(number, revision_number(current[-1]))), old
        meta = ds["metadata"]
        collisions = (ds.get("status") or {}).get("collisionCount")
        template = ds["spec"]["template"]
        template_hash = compute_hash(template, collisions)
        labels = {**((template.get("metadata") or {}).get("labels") or {}), REVISION_LABEL: template_hash}
        name = f"{meta['name']}-{template_hash}"
        claimed = await self.histories.claim(
            new_revision(ds, name, labels, data, number, meta.get("annotations")), data)
        if claimed is not None:
            return claimed, old
        # Another template holds the name: count a collision, so that the next sync hashes anew.
        status = {**(ds.get("status") or {}), "collisionCount": int(collisions or 0) + 1}
        await self.client.update(self.ds_type, {**ds, "status": status}, subresource="status")
        raise errors.conflict("controllerrevisions", "apps", name, "the name is held by another template")

    async def _clean_up_history(self, ds: Obj, old: list[Obj], pods: list[Obj]) -> None:
        """Upstream's cleanupHistory: the oldest revisions beyond the limit, skipping those pods still use."""
        excess = len(old) - history_limit(ds)
        live = {(p["metadata"].get("labels") or {}).get(REVISION_LABEL) for p in pods}
        for revision in old:
            if excess <= 0:
                return
            if (revision["metadata"].get("labels") or {}).get(REVISION_LABEL) in live:
                continue
            await self.histories.delete(revision)
            excess -= 1

    async def _create(self, ds: Obj, nodes: list[str], template_hash: str) -> None:
        if not nodes:
            return
        meta = ds["metadata"]
        template = ds["spec"]["template"]
        labels = dict((template.get("metadata") or {}).get("labels") or {})
        labels[REVISION_LABEL] = template_hash
        labels[GENERATION_LABEL] = str(meta.get("generation", 1))
        bodies = []
        for node in nodes:
            pod_meta: Obj = {"generateName": f"{meta['name']}-", "labels": labels,
                             "ownerReferences": [owner_reference(ds)]}
            if (template.get("metadata") or {}).get("annotations"):
                pod_meta["annotations"] = dict(template["metadata"]["annotations"])
            bodies.append({"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta,
                           "spec": _pinned(template.get("spec") or {}, node)})
        created = await asyncio.gather(*(self.client.create(self.pods_type, meta["namespace"], body)
                                         for body in bodies))
        pending = self.pending.setdefault(meta["uid"], {})
        for pod, node in zip(created, nodes):
            if self.pods.get(meta["namespace"], pod["metadata"]["name"]) is None:
                pending[pod["metadata"]["name"]] = node
            await self.events.record(ds, "Normal", "SuccessfulCreate", "Create",
                                     f"Created pod: {pod['metadata']['name']}")

    async def _delete(self, ds: Obj, pods: list[Obj]) -> None:
        await asyncio.gather(*(self.client.delete(self.pods_type, p["metadata"]["namespace"], p["metadata"]["name"],
                                                  {"preconditions": {"uid": p["metadata"]["uid"]}}) for p in pods))

    async def _roll(self, ds: Obj, by_node: dict[str, list[Obj]], wanted: list[str], generation: str,
                    template_hash: str) -> None:
        strategy = ds["spec"].get("updateStrategy") or {}
        if (strategy.get("type") or "RollingUpdate") != "RollingUpdate":
            return
        budget = scaled_value((strategy.get("rollingUpdate") or {}).get("maxUnavailable", 1), len(wanted), True)
        unavailable = sum(1 for n in wanted if not any(is_ready(p) for p in by_node.get(n, [])))
        outdated = [ps[0] for n, ps in sorted(by_node.items()) if n in wanted
                    and not _updated(ps[0], generation, template_hash)]
        room = max(budget - unavailable, 0)
        await self._delete(ds, outdated[:room])

    async def _status(self, ds: Obj, by_node: dict[str, list[Obj]], wanted: list[str], generation: str,
                      template_hash: str) -> None:
        scheduled = [n for n in wanted if n in by_node]
        ready = [n for n in scheduled if any(is_ready(p) for p in by_node[n])]
        updated = [n for n in scheduled if _updated(by_node[n][0], generation, template_hash)]
        status: Obj = {"currentNumberScheduled": len(scheduled),
                       "numberMisscheduled": sum(1 for n in by_node if n not in wanted),
                       "desiredNumberScheduled": len(wanted), "numberReady": len(ready),
                       "observedGeneration": ds["metadata"].get("generation", 1),
                       "updatedNumberScheduled": len(updated), "numberAvailable": len(ready),
                       "numberUnavailable": len(wanted) - len(ready)}
        for field_name in ("observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable"):
            if not status[field_name]:
                del status[field_name]  # omitempty; the first four are always written
        old = ds.get("status") or {}
        if old.get("collisionCount") is not None:
            status["collisionCount"] = old["collisionCount"]
        if old.get("conditions"):
            status["conditions"] = old["conditions"]
        if status != old:
            await self.client.update(self.ds_type, {**ds, "status": status}, subresource="status")
