"""The statefulset controller: pods `<set>-0`..`<set>-N-1` with stable names, each with its
PersistentVolumeClaims from volumeClaimTemplates, created in order (OrderedReady: the next only
once the previous ones are Running and Ready; Parallel: all at once) and removed from the highest
ordinal down. A changed template rolls from the highest ordinal down, one pod at a time, above
`partition`. Each template is kept as a ControllerRevision `<set>-<hash>` (see `history`), which pods
name in their `controller-revision-hash` label; a template equal to an older revision's (`kubectl
rollout undo`) takes that revision back with the next revision number, and revisions no pod uses go
beyond `revisionHistoryLimit`.
"""

from __future__ import annotations

import copy
import re
from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either
from apiserver.controllers.events import Recorder
from apiserver.controllers.history import (
    HASH_LABEL,
    REVISION_LABEL,
    Histories,
    hash_revision,
    history_limit,
    new_revision,
    revision_name,
    revision_number,
    same_data,
    template_patch,
)
from apiserver.controllers.replicaset import controller_of, is_ready, owner_reference

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


def ordinal(set_name: str, pod_name: str) -> int | None:
    match = re.fullmatch(re.escape(set_name) + r"-(0|[1-9][0-9]*)", pod_name)
    return int(match.group(1)) if match else None


def _running_and_ready(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and is_ready(pod) and \
        not pod["metadata"].get("deletionTimestamp")


class StatefulSetController(Controller):
    name = "statefulset-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.sts_type = ctx.resource("apps", "v1", "statefulsets")
        self.pods_type = ctx.resource("", "v1", "pods")
        self.pvc_type = ctx.resource("", "v1", "persistentvolumeclaims")
        self.sets = ctx.informer("apps", "v1", "statefulsets")
        self.pods = ctx.informer("", "v1", "pods")
        self.claims = ctx.informer("", "v1", "persistentvolumeclaims")
        self.histories = Histories(self.client, ctx.informer("apps", "v1", "controllerrevisions"))
        self.events = Recorder(self.client, self.name)
        self.sets.add_handler(self.enqueue_changed)
        self.pods.add_handler(self._pod_changed)

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        pod = either(old, new)
        ref = controller_of(pod)
        if ref is not None and ref.get("kind") == "StatefulSet":
            self.queue.add((pod["metadata"].get("namespace", ""), ref["name"]))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        sts = self.sets.get(*key)
        if sts is None or sts["metadata"].get("deletionTimestamp"):
            return
        meta = sts["metadata"]
        name = meta["name"]
        pods: dict[int, Obj] = {}
        for pod in self.pods.items(meta["namespace"]):
            ref = controller_of(pod)
            index = ordinal(name, pod["metadata"]["name"])
            if ref is not None and ref.get("uid") == meta["uid"] and index is not None:
                pods[index] = pod
        wanted = int(sts["spec"].get("replicas", 1))
        revisions = self.histories.owned(sts)
        update, collisions = await self._update_revision(sts, revisions)
        revision = update["metadata"]["name"]
        parallel = sts["spec"].get("podManagementPolicy") == "Parallel"
        # Failed pods are replaced, as upstream's: delete now, recreate on the next pass.
        for index, pod in sorted(pods.items()):
            if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded") and \
                    not pod["metadata"].get("deletionTimestamp"):
                await self._delete(sts, pod)
                return
        for index in range(wanted):
            if index in pods:
                if not parallel and not _running_and_ready(pods[index]):
                    break  # OrderedReady: wait for this one before the next
                continue
            await self._create(sts, index, revision)
            if not parallel:
                break
        condemned = sorted((i for i in pods if i >= wanted), reverse=True)
        for index in condemned:
            if not pods[index]["metadata"].get("deletionTimestamp"):
                await self._delete(sts, pods[index])
            if not parallel:
                break
        if not condemned:
            await self._roll(sts, pods, wanted, revision)
        current = await self._status(sts, pods, revision, collisions)
        live = {revision, current}
        live.update((p["metadata"].get("labels") or {}).get(REVISION_LABEL, "") for p in pods.values())
        await self.histories.truncate(revisions, live, history_limit(sts))

    async def _update_revision(self, sts: Obj, revisions: list[Obj]) -> tuple[Obj, int]:
        """The revision of the set's template and the collision count, as getStatefulSetRevisions: the
        newest revision if it holds this template, an older one that does renumbered as the newest, else
        a new one (a name taken by other data counts a collision and hashes again)."""
        collisions = int((sts.get("status") or {}).get("collisionCount") or 0)
        data = template_patch(sts)
        number = revision_number(revisions[-1]) + 1 if revisions else 1
        equal = [r for r in revisions if same_data(r, data)]
        if equal and equal[-1] is revisions[-1]:
            return revisions[-1], collisions
        if equal:
            return await self.histories.renumber(equal[-1], number), collisions
        meta = sts["metadata"]
        first_hash = hash_revision(data, collisions)
        labels = {**((sts["spec"]["template"].get("metadata") or {}).get("labels") or {}), HASH_LABEL: first_hash}
        while True:
            name = revision_name(meta["name"], hash_revision(data, collisions))
            claimed = await self.histories.claim(
                new_revision(sts, name, labels, data, number, meta.get("annotations")), data)
            if claimed is not None:
                return claimed, collisions
            collisions += 1

    async def _create(self, sts: Obj, index: int, revision: str) -> None:
        meta = sts["metadata"]
        pod_name = f"{meta['name']}-{index}"
        template = copy.deepcopy(sts["spec"]["template"])
        spec = template.get("spec") or {}
        volumes = list(spec.get("volumes") or [])
        for claim_template in sts["spec"].get("volumeClaimTemplates") or ():
            claim_name = f"{claim_template['metadata']['name']}-{pod_name}"
            await self._ensure_claim(sts, claim_template, claim_name)
            volumes = [v for v in volumes if v.get("name") != claim_template["metadata"]["name"]]
            volumes.append({"name": claim_template["metadata"]["name"],
                            "persistentVolumeClaim": {"claimName": claim_name}})
        if volumes:
            spec["volumes"] = volumes
        spec.setdefault("hostname", pod_name)
        if sts["spec"].get("serviceName"):
            spec.setdefault("subdomain", sts["spec"]["serviceName"])
        labels = {**((template.get("metadata") or {}).get("labels") or {}), REVISION_LABEL: revision,
                  POD_NAME_LABEL: pod_name, POD_INDEX_LABEL: str(index)}
        pod_meta: Obj = {"name": pod_name, "labels": labels, "ownerReferences": [owner_reference(sts)]}
        if (template.get("metadata") or {}).get("annotations"):
            pod_meta["annotations"] = template["metadata"]["annotations"]
        try:
            await self.client.create(self.pods_type, meta["namespace"],
                                     {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec})
        except errors.ApiError as exc:
            if exc.code != 409:
                raise
            return
        await self.events.record(sts, "Normal", "SuccessfulCreate", "Create",
                                 f"create Pod {pod_name} in StatefulSet {meta['name']} successful")

    async def _ensure_claim(self, sts: Obj, claim_template: Obj, claim_name: str) -> None:
        namespace = sts["metadata"]["namespace"]
        if self.claims.get(namespace, claim_name) is not None:
            return
        claim_meta = copy.deepcopy(claim_template.get("metadata") or {})
        claim_meta.update({"name": claim_name, "namespace": namespace})
        labels = {**(claim_meta.get("labels") or {}),
                  **((sts["spec"].get("selector") or {}).get("matchLabels") or {})}
        if labels:
            claim_meta["labels"] = labels
        body = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": claim_meta,
                "spec": copy.deepcopy(claim_template.get("spec") or {})}
        try:
            await self.client.create(self.pvc_type, namespace, body)
        except errors.ApiError as exc:
            if exc.code != 409:
                raise
            return
        await self.events.record(sts, "Normal", "SuccessfulCreate", "Create",
                                 f"create Claim {claim_name} Pod {claim_name.split('-', 1)[-1]} in StatefulSet "
                                 f"{sts['metadata']['name']} success")

    async def _delete(self, sts: Obj, pod: Obj) -> None:
        meta = pod["metadata"]
        await self.client.delete(self.pods_type, meta["namespace"], meta["name"],
                                 {"preconditions": {"uid": meta["uid"]}})
        await self.events.record(sts, "Normal", "SuccessfulDelete", "Delete",
                                 f"delete Pod {meta['name']} in StatefulSet {sts['metadata']['name']} successful")

    async def _roll(self, sts: Obj, pods: dict[int, Obj], wanted: int, revision: str) -> None:
        strategy = sts["spec"].get("updateStrategy") or {}
        if (strategy.get("type") or "RollingUpdate") != "RollingUpdate":
            return
        partition = int((strategy.get("rollingUpdate") or {}).get("partition", 0))
        if any(not _running_and_ready(pods[i]) for i in range(wanted) if i in pods) or len(pods) < wanted:
            return  # one at a time: only when every pod is up
        for index in range(wanted - 1, partition - 1, -1):
            pod = pods.get(index)
            if pod is not None and (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) != revision:
                await self._delete(sts, pod)
                return

    async def _status(self, sts: Obj, pods: dict[int, Obj], revision: str, collisions: int) -> str:
        """Writes the status; returns the current revision's name."""
        live = [p for p in pods.values() if not p["metadata"].get("deletionTimestamp")]
        ready = [p for p in live if _running_and_ready(p)]
        updated = [p for p in live if (p["metadata"].get("labels") or {}).get(REVISION_LABEL) == revision]
        old = sts.get("status") or {}
        current_revision = old.get("currentRevision") or revision
        if len(updated) == len(live) == int(sts["spec"].get("replicas", 1)):
            current_revision = revision
        current = [p for p in live if (p["metadata"].get("labels") or {}).get(REVISION_LABEL) == current_revision]
        status: Obj = {"observedGeneration": sts["metadata"].get("generation", 1), "replicas": len(live),
                       "readyReplicas": len(ready), "currentReplicas": len(current), "updatedReplicas": len(updated),
                       "currentRevision": current_revision, "updateRevision": revision,
                       "collisionCount": collisions, "availableReplicas": len(ready)}
        for field_name in ("readyReplicas", "currentReplicas", "updatedReplicas"):
            if not status[field_name]:
                del status[field_name]  # omitempty; replicas, collisionCount and availableReplicas are not
        if old.get("conditions"):
            status["conditions"] = old["conditions"]
        if status != old:
            await self.client.update(self.sts_type, {**sts, "status": status}, subresource="status")
        return str(current_revision)
