"""The ephemeral-volume-controller: a pod's generic ephemeral volumes get their claims, as upstream's
`pkg/controller/volume/ephemeral` makes them.

For each `volumes[].ephemeral` of a pod that is not being deleted, the claim `<pod>-<volume>` is
created from its `volumeClaimTemplate` (its labels, annotations and spec), owned by the pod
(controller, blocking its deletion), so the garbage collector removes it with the pod. A claim of that
name the pod does not own is left alone, and the pod waits, as upstream's does.
"""

from __future__ import annotations

from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, object_key


class EphemeralVolumes(Controller):
    name = "ephemeral-volume-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.claims_type = ctx.resource("", "v1", "persistentvolumeclaims")
        self.pods = ctx.informer("", "v1", "pods")
        self.claims = ctx.informer("", "v1", "persistentvolumeclaims")
        self.pods.add_handler(self._pod_changed)
        self.claims.add_handler(self._claim_changed)

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None and any(v.get("ephemeral") for v in (new.get("spec") or {}).get("volumes") or ()):
            self.queue.add(object_key(new))

    def _claim_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is None:  # a pod's claim deleted under it is made again
            claim = either(old, new)
            for ref in claim["metadata"].get("ownerReferences") or ():
                if ref.get("kind") == "Pod" and ref.get("controller"):
                    self.queue.add((claim["metadata"].get("namespace", ""), ref.get("name", "")))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        pod = self.pods.get(*key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        meta = pod["metadata"]
        for volume in (pod.get("spec") or {}).get("volumes") or ():
            template = (volume.get("ephemeral") or {}).get("volumeClaimTemplate")
            if template is None:
                continue
            name = f"{meta['name']}-{volume.get('name', '')}"
            if self.claims.get(meta["namespace"], name) is not None:
                continue
            template_meta = template.get("metadata") or {}
            claim_meta: Obj = {"name": name, "ownerReferences": [{
                "apiVersion": "v1", "kind": "Pod", "name": meta["name"], "uid": meta.get("uid"),
                "controller": True, "blockOwnerDeletion": True}]}
            for field in ("labels", "annotations"):
                if template_meta.get(field):
                    claim_meta[field] = template_meta[field]
            try:
                await self.client.create(self.claims_type, meta["namespace"], {
                    "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": claim_meta,
                    "spec": template.get("spec") or {}})
            except errors.ApiError as exc:
                if exc.code != 409:
                    raise
