"""The deployment controller: a Deployment's template runs in a ReplicaSet named after its
pod-template-hash, and changes roll from the old ReplicaSets to the new one as the strategy says.

RollingUpdate grows the new ReplicaSet within maxSurge and shrinks the old ones while at most
maxUnavailable pods are missing; Recreate empties the old ones, waits until their pods are gone,
then fills the new one. Revisions are ReplicaSet annotations (`kubectl rollout history|undo` read
and use them), a paused Deployment only scales, and old ReplicaSets beyond revisionHistoryLimit
are deleted once the rollout completes. A change of spec.replicas that the ReplicaSets' desired-replicas
annotations do not match yet (a scaling event) is shared among the active ReplicaSets in proportion
before the rollout goes on.
"""

from __future__ import annotations

import copy
import datetime
from typing import Hashable

from apiserver import errors
from apiserver.controllers import rollout
from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.client import STRATEGIC_PATCH
from apiserver.controllers.events import Recorder
from apiserver.controllers.podtemplatehash import compute_hash
from apiserver.controllers.replicaset import controller_of, owner_reference
from apiserver.controllers.rollout import replicas
from apiserver.controllers.selectors import label_selector_matches


class DeploymentController(Controller):
    name = "deployment-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.deployments_type = ctx.resource("apps", "v1", "deployments")
        self.rs_type = ctx.resource("apps", "v1", "replicasets")
        self.deployments = ctx.informer("apps", "v1", "deployments")
        self.replicasets = ctx.informer("apps", "v1", "replicasets")
        self.pods = ctx.informer("", "v1", "pods")
        self.events = Recorder(self.client, self.name)
        self.deployments.add_handler(self.enqueue_changed)
        self.replicasets.add_handler(self._rs_changed)
        self.pods.add_handler(self._pod_changed)

    def _rs_changed(self, old: Obj | None, new: Obj | None) -> None:
        rs = either(old, new)
        ref = controller_of(rs)
        if ref is None and new is not None:
            labels = new["metadata"].get("labels") or {}
            for deployment in self.deployments.items(new["metadata"].get("namespace", "")):
                if label_selector_matches(deployment["spec"].get("selector"), labels):
                    self.queue.add(object_key(deployment))
            return
        if ref is not None and ref.get("kind") == "Deployment":
            self.queue.add((rs["metadata"].get("namespace", ""), ref["name"]))

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None:
            return  # only a pod's disappearance matters here: Recreate waits for old pods to go
        assert old is not None
        ref = controller_of(old)
        rs = self.replicasets.get(old["metadata"].get("namespace", ""), ref["name"]) if ref else None
        if rs is not None:
            self._rs_changed(None, rs)

    def owned(self, deployment: Obj) -> list[Obj]:
        uid = deployment["metadata"]["uid"]
        return sorted((rs for rs in self.replicasets.items(deployment["metadata"]["namespace"])
                       if (ref := controller_of(rs)) is not None and ref.get("uid") == uid),
                      key=lambda rs: (rs["metadata"].get("creationTimestamp", ""), rs["metadata"]["name"]))

    async def _adopt(self, deployment: Obj) -> list[Obj]:
        """Orphan ReplicaSets the selector matches become this Deployment's, as upstream claims them."""
        selector = deployment["spec"].get("selector")
        namespace = deployment["metadata"]["namespace"]
        adopted = []
        for rs in self.replicasets.items(namespace):
            if controller_of(rs) is not None or rs["metadata"].get("deletionTimestamp") or \
                    not label_selector_matches(selector, rs["metadata"].get("labels") or {}):
                continue
            try:
                adopted.append(await self.client.patch(self.rs_type, namespace, rs["metadata"]["name"], {
                    "metadata": {"ownerReferences": [owner_reference(deployment)], "uid": rs["metadata"]["uid"]}},
                    STRATEGIC_PATCH))
            except errors.ApiError as exc:
                if exc.code not in (404, 409, 422):
                    raise
        return adopted

    def _find_new(self, deployment: Obj, all_rs: list[Obj]) -> Obj | None:
        wanted = rollout.without_hash(deployment["spec"]["template"])
        matching = [rs for rs in all_rs if rollout.without_hash(rs["spec"]["template"]) == wanted]
        return matching[0] if matching else None

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        deployment = self.deployments.get(*key)
        if deployment is None or deployment["metadata"].get("deletionTimestamp"):
            return
        deployment = copy.deepcopy(deployment)
        all_rs = self.owned(deployment) + await self._adopt(deployment)
        new_rs = self._find_new(deployment, all_rs)
        paused = bool(deployment["spec"].get("paused"))
        if paused or rollout.is_scaling_event(deployment, [rs for rs in all_rs if replicas(rs) > 0]):
            # A resize (or anything while paused) scales what exists; the rollout goes on at the next sync.
            await self._scale(deployment, new_rs, all_rs)
            await self._status(deployment, all_rs, new_rs, paused=paused)
            return
        if rollout.is_rolling(deployment):
            await self._rolling(deployment, all_rs, new_rs)
        else:
            await self._recreate(deployment, all_rs, new_rs)

    # -- the new ReplicaSet ----------------------------------------------------------------------

    async def _ensure_new(self, deployment: Obj, all_rs: list[Obj], new_rs: Obj | None) -> tuple[Obj, list[Obj]]:
        old_rs = [rs for rs in all_rs if rs is not new_rs]
        next_revision = max((rollout.revision(rs) for rs in old_rs), default=0) + 1
        meta = deployment["metadata"]
        if new_rs is not None:
            if rollout.revision(new_rs) < next_revision:
                new_rs = await self._bump_revision(new_rs, next_revision)
                await self._progress(deployment, "FoundNewReplicaSet",
                                     f'Found new replica set "{new_rs["metadata"]["name"]}"')
        else:
            new_rs = await self._create_new(deployment, old_rs, next_revision)
        if (meta.get("annotations") or {}).get(rollout.REVISION) != str(rollout.revision(new_rs)):
            meta.setdefault("annotations", {})[rollout.REVISION] = str(rollout.revision(new_rs))
            updated = await self.client.update(self.deployments_type, deployment)
            deployment["metadata"] = updated["metadata"]
        return new_rs, old_rs

    async def _bump_revision(self, rs: Obj, new_revision: int) -> Obj:
        rs = copy.deepcopy(rs)
        annotations = rs["metadata"].setdefault("annotations", {})
        old = annotations.get(rollout.REVISION)
        if old:
            history = [h for h in (annotations.get(rollout.REVISION_HISTORY) or "").split(",") if h]
            annotations[rollout.REVISION_HISTORY] = ",".join([*history, old])
        annotations[rollout.REVISION] = str(new_revision)
        return await self.client.update(self.rs_type, rs)

    async def _create_new(self, deployment: Obj, old_rs: list[Obj], new_revision: int) -> Obj:
        meta = deployment["metadata"]
        spec = deployment["spec"]
        collision = (deployment.get("status") or {}).get("collisionCount")
        pod_hash = compute_hash(spec["template"], collision)
        template = copy.deepcopy(spec["template"])
        template.setdefault("metadata", {}).setdefault("labels", {})[rollout.HASH_LABEL] = pod_hash
        selector = copy.deepcopy(spec.get("selector") or {})
        selector.setdefault("matchLabels", {})[rollout.HASH_LABEL] = pod_hash
        annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k not in rollout.NOT_COPIED}
        annotations.update({rollout.DESIRED_REPLICAS: str(replicas(deployment)),
                            rollout.MAX_REPLICAS: str(replicas(deployment) + rollout.max_surge(deployment)),
                            rollout.REVISION: str(new_revision)})
        body: Obj = {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": f"{meta['name']}-{pod_hash}", "namespace": meta["namespace"],
                         "labels": dict(template["metadata"]["labels"]), "annotations": annotations,
                         "ownerReferences": [owner_reference(deployment)]},
            "spec": {"replicas": 0, "minReadySeconds": spec.get("minReadySeconds", 0), "selector": selector,
                     "template": template}}
        if not body["spec"]["minReadySeconds"]:
            del body["spec"]["minReadySeconds"]
        body["spec"]["replicas"] = rollout.new_rs_replicas(deployment, [*old_rs, body], body)
        try:
            created = await self.client.create(self.rs_type, meta["namespace"], body)
        except errors.ApiError as exc:
            if exc.code != 409:
                raise
            existing = self.client.get(self.rs_type, meta["namespace"], body["metadata"]["name"])
            if existing is not None and (ref := controller_of(existing)) is not None \
                    and ref.get("uid") == meta["uid"] and rollout.without_hash(existing["spec"]["template"]) == \
                    rollout.without_hash(spec["template"]):
                return existing
            # A different template owns the name: count the collision, so the next hash differs.
            status = dict(deployment.get("status") or {})
            status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
            deployment["status"] = status
            await self.client.update(self.deployments_type, deployment, subresource="status")
            raise
        await self._record_scale(deployment, created, 0, replicas(created))
        await self._progress(deployment, "NewReplicaSetCreated", f'Created new replica set "{created["metadata"]["name"]}"')
        return created

    async def _progress(self, deployment: Obj, reason: str, message: str) -> None:
        status = dict(deployment.get("status") or {})
        rollout.set_condition(status, rollout.condition("Progressing", "True", reason, message))
        if status != (deployment.get("status") or {}):
            deployment["status"] = status
            updated = await self.client.update(self.deployments_type, deployment, subresource="status")
            deployment["metadata"] = updated["metadata"]

    # -- scaling ---------------------------------------------------------------------------------

    async def _scale_rs(self, deployment: Obj, rs: Obj, count: int) -> Obj:
        before = replicas(rs)
        annotations = rs["metadata"].get("annotations") or {}
        desired = str(replicas(deployment))
        ceiling = str(replicas(deployment) + rollout.max_surge(deployment))
        if before == count and annotations.get(rollout.DESIRED_REPLICAS) == desired \
                and annotations.get(rollout.MAX_REPLICAS) == ceiling:
            return rs
        rs = copy.deepcopy(rs)
        rs["spec"]["replicas"] = count
        rs["metadata"].setdefault("annotations", {}).update({rollout.DESIRED_REPLICAS: desired,
                                                             rollout.MAX_REPLICAS: ceiling})
        updated = await self.client.update(self.rs_type, rs)
        if before != count:
            await self._record_scale(deployment, updated, before, count)
        return updated

    async def _record_scale(self, deployment: Obj, rs: Obj, before: int, after: int) -> None:
        if before == after:
            return
        direction = "up" if after > before else "down"
        await self.events.record(deployment, "Normal", "ScalingReplicaSet", "Scaling",
                                 f"Scaled {direction} replica set {rs['metadata']['name']} from {before} to {after}")

    async def _scale(self, deployment: Obj, new_rs: Obj | None, all_rs: list[Obj]) -> None:
        """Upstream's scale(): a lone active (or else the newest) ReplicaSet takes spec.replicas; with a
        saturated new ReplicaSet the old ones empty; otherwise, in a rolling Deployment, every active
        ReplicaSet grows or shrinks in proportion to its size."""
        old_rs = [rs for rs in all_rs if rs is not new_rs]
        active = [rs for rs in all_rs if replicas(rs) > 0]
        if len(active) <= 1:
            newest_old = max(old_rs, key=lambda rs: (rs["metadata"].get("creationTimestamp", ""),
                                                     rs["metadata"]["name"]), default=None)
            target = active[0] if active else (new_rs if new_rs is not None else newest_old)
            if target is not None and replicas(target) != replicas(deployment):
                await self._scale_rs(deployment, target, replicas(deployment))
            return
        if rollout.is_saturated(deployment, new_rs):
            for rs in active:
                if rs is not new_rs:
                    await self._scale_rs(deployment, rs, 0)
            return
        if rollout.is_rolling(deployment):
            for rs, size in rollout.proportional_sizes(deployment, active):
                await self._scale_rs(deployment, rs, size)

    # -- strategies ------------------------------------------------------------------------------

    async def _rolling(self, deployment: Obj, all_rs: list[Obj], new_rs: Obj | None) -> None:
        new_rs, old_rs = await self._ensure_new(deployment, all_rs, new_rs)
        all_rs = [*old_rs, new_rs]
        if replicas(new_rs) != replicas(deployment):
            if replicas(new_rs) > replicas(deployment):
                new_rs = await self._scale_rs(deployment, new_rs, replicas(deployment))
            else:
                count = rollout.new_rs_replicas(deployment, all_rs, new_rs)
                if count != replicas(new_rs):
                    new_rs = await self._scale_rs(deployment, new_rs, count)
                    await self._status(deployment, [*old_rs, new_rs], new_rs)
                    return
        old_rs = await self._scale_down_old(deployment, old_rs, new_rs)
        all_rs = [*old_rs, new_rs]
        status = await self._status(deployment, all_rs, new_rs)
        if rollout.complete(deployment, status):
            await self._clean_up(deployment, old_rs)

    async def _scale_down_old(self, deployment: Obj, old_rs: list[Obj], new_rs: Obj) -> list[Obj]:
        """reconcileOldReplicaSets: unhealthy old pods first, then available ones while enough stay up."""
        if sum(replicas(rs) for rs in old_rs) == 0:
            return old_rs
        all_count = sum(replicas(rs) for rs in [*old_rs, new_rs])
        min_available = replicas(deployment) - rollout.max_unavailable(deployment)
        new_unavailable = replicas(new_rs) - rollout.status_count(new_rs, "availableReplicas")
        budget = all_count - min_available - new_unavailable
        if budget <= 0:
            return old_rs
        result = list(old_rs)
        spent = 0
        for i, rs in enumerate(result):
            if spent >= budget:
                break
            unhealthy = replicas(rs) - rollout.status_count(rs, "availableReplicas")
            if replicas(rs) != 0 and unhealthy < 0:
                # More available than asked for: the status predates a scale-down, so its counts cannot be
                # trusted yet (upstream refuses the cleanup then). The status update brings the next sync.
                return result
            if replicas(rs) == 0 or unhealthy == 0:
                continue
            take = min(budget - spent, unhealthy)
            result[i] = await self._scale_rs(deployment, rs, replicas(rs) - take)
            spent += take
        available = sum(rollout.status_count(rs, "availableReplicas") for rs in [*result, new_rs])
        allowed = available - min_available
        taken = 0
        for i, rs in enumerate(result):
            if taken >= allowed:
                break
            if replicas(result[i]) == 0:
                continue
            take = min(replicas(result[i]), allowed - taken)
            result[i] = await self._scale_rs(deployment, result[i], replicas(result[i]) - take)
            taken += take
        return result

    async def _recreate(self, deployment: Obj, all_rs: list[Obj], new_rs: Obj | None) -> None:
        old_rs = [rs for rs in all_rs if rs is not new_rs]
        scaled = False
        for i, rs in enumerate(old_rs):
            if replicas(rs) > 0:
                old_rs[i] = await self._scale_rs(deployment, rs, 0)
                scaled = True
        old_uids = {rs["metadata"]["uid"] for rs in old_rs}
        old_pods = [p for p in self.pods.items(deployment["metadata"]["namespace"])
                    if (ref := controller_of(p)) is not None and ref.get("uid") in old_uids
                    and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        if scaled or old_pods:
            await self._status(deployment, [*old_rs, *([new_rs] if new_rs else [])], new_rs)
            return
        new_rs, old_rs = await self._ensure_new(deployment, all_rs, new_rs)
        if replicas(new_rs) != replicas(deployment):
            new_rs = await self._scale_rs(deployment, new_rs, replicas(deployment))
        status = await self._status(deployment, [*old_rs, new_rs], new_rs)
        if rollout.complete(deployment, status):
            await self._clean_up(deployment, old_rs)

    async def _clean_up(self, deployment: Obj, old_rs: list[Obj]) -> None:
        limit = deployment["spec"].get("revisionHistoryLimit", 10)
        cleanable = [rs for rs in old_rs if replicas(rs) == 0 and rollout.status_count(rs, "replicas") == 0
                     and not rs["metadata"].get("deletionTimestamp")]
        cleanable.sort(key=rollout.revision)
        for rs in cleanable[:max(len(cleanable) - int(limit), 0)]:
            await self.client.delete(self.rs_type, rs["metadata"]["namespace"], rs["metadata"]["name"],
                                     {"preconditions": {"uid": rs["metadata"]["uid"]}})

    # -- status ----------------------------------------------------------------------------------

    def _check_deadline(self, deployment: Obj, status: Obj, new_rs: Obj) -> None:
        """DeploymentTimedOut: no progress for progressDeadlineSeconds since the condition last moved
        turns Progressing False; until then the controller looks again when the deadline comes."""
        deadline = deployment["spec"].get("progressDeadlineSeconds")
        current = rollout.progressing(status)
        if deadline is None or current is None or current.get("reason") in ("NewReplicaSetAvailable",
                                                                            "ProgressDeadlineExceeded"):
            return
        since = datetime.datetime.fromisoformat(str(current.get("lastUpdateTime")).replace("Z", "+00:00"))
        left = (since + datetime.timedelta(seconds=int(deadline)) -
                datetime.datetime.now(datetime.timezone.utc)).total_seconds()
        if left >= 0:
            self.queue.add_after(object_key(deployment), left + 0.5)
            return
        rollout.set_condition(status, rollout.condition(
            "Progressing", "False", "ProgressDeadlineExceeded",
            f'ReplicaSet "{new_rs["metadata"]["name"]}" has timed out progressing.'))

    async def _status(self, deployment: Obj, all_rs: list[Obj], new_rs: Obj | None, paused: bool = False) -> Obj:
        status = rollout.calculate_status(deployment, all_rs, new_rs)
        current = rollout.progressing(status)
        if paused:
            if current is None or current.get("reason") != "DeploymentPaused":
                rollout.set_condition(status, rollout.condition("Progressing", "Unknown", "DeploymentPaused",
                                                                "Deployment is paused"))
        elif current is not None and current.get("reason") == "DeploymentPaused":
            rollout.set_condition(status, rollout.condition("Progressing", "Unknown", "DeploymentResumed",
                                                            "Deployment is resumed"))
        elif new_rs is not None and rollout.complete(deployment, status):
            rollout.set_condition(status, rollout.condition(
                "Progressing", "True", "NewReplicaSetAvailable",
                f'ReplicaSet "{new_rs["metadata"]["name"]}" has successfully progressed.'))
        elif new_rs is not None and rollout.is_progressing(deployment, status):
            updated = rollout.condition("Progressing", "True", "ReplicaSetUpdated",
                                        f'ReplicaSet "{new_rs["metadata"]["name"]}" is progressing.')
            if current is not None and current.get("status") == "True":
                updated["lastTransitionTime"] = current.get("lastTransitionTime")
            status["conditions"] = [c for c in status.get("conditions") or () if c.get("type") != "Progressing"]
            status["conditions"].append(updated)
        elif new_rs is not None:
            self._check_deadline(deployment, status, new_rs)
        status = rollout.omit_zeros(status)
        if status != rollout.omit_zeros(deployment.get("status") or {}):
            deployment["status"] = status
            await self.client.update(self.deployments_type, deployment, subresource="status")
        return status
