"""The persistentvolumeclaim-protection and persistentvolume-protection controllers, as upstream's
`pkg/controller/volume/pvcprotection` and `pvprotection`.

Admission (StorageObjectInUseProtection) puts `kubernetes.io/pvc-protection` on every claim and
`kubernetes.io/pv-protection` on every volume; these controllers add them to objects that lack them and
take them off a deleted object once nothing uses it, which is when its delete completes: a claim is in
use while a pod scheduled to a node names it (a generic ephemeral volume's claim only until its pod is
shut down), a volume while it is Bound.
"""

from __future__ import annotations

from typing import Hashable

from apiserver.controllers.base import Context, Controller, Obj, either
from apiserver.controllers.client import Client
from apiserver.controllers.volumes import PV_PROTECTION, PVC_PROTECTION
from apiserver.kinds.resources import ResourceType


def _shut_down(pod: Obj) -> bool:
    """Processed by its kubelet for deletion, or force-deleted: it holds its volumes no longer."""
    meta = pod["metadata"]
    return bool(meta.get("deletionTimestamp")) and meta.get("deletionGracePeriodSeconds") == 0


def uses_claim(pod: Obj, claim_name: str) -> bool:
    """upstream's podUsesPVCForDeletion."""
    spec = pod.get("spec") or {}
    if not spec.get("nodeName"):
        return False  # the kubelet sees only scheduled pods, and starts none with a deleted claim
    for volume in spec.get("volumes") or ():
        if (volume.get("persistentVolumeClaim") or {}).get("claimName") == claim_name:
            return True
        if volume.get("ephemeral") and not _shut_down(pod) and \
                f"{pod['metadata']['name']}-{volume.get('name', '')}" == claim_name:
            return True
    return False


async def _set_finalizer(client: Client, rt: ResourceType, obj: Obj, finalizer: str, present: bool) -> None:
    finalizers = [f for f in obj["metadata"].get("finalizers") or () if f != finalizer]
    if present:
        finalizers.append(finalizer)
    if finalizers:
        obj["metadata"]["finalizers"] = finalizers
    else:
        obj["metadata"].pop("finalizers", None)
    await client.update(rt, obj)


class ClaimProtection(Controller):
    name = "persistentvolumeclaim-protection-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.claims_type = ctx.resource("", "v1", "persistentvolumeclaims")
        self.claims = ctx.informer("", "v1", "persistentvolumeclaims")
        self.pods = ctx.informer("", "v1", "pods")
        self.claims.add_handler(self.enqueue_changed)
        self.pods.add_handler(self._pod_changed)

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        pod = either(old, new)
        namespace = pod["metadata"].get("namespace", "")
        names = set()
        for state in (old, new):
            for volume in ((state or {}).get("spec") or {}).get("volumes") or ():
                if volume.get("persistentVolumeClaim"):
                    names.add(volume["persistentVolumeClaim"].get("claimName", ""))
                elif volume.get("ephemeral"):
                    names.add(f"{pod['metadata']['name']}-{volume.get('name', '')}")
        for name in names:
            claim = self.claims.get(namespace, name)
            if claim is not None and claim["metadata"].get("deletionTimestamp"):
                self.queue.add((namespace, name))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        namespace, name = key
        claim = self.claims.get(namespace, name)
        if claim is None:
            return
        finalizers = claim["metadata"].get("finalizers") or []
        if claim["metadata"].get("deletionTimestamp"):
            if PVC_PROTECTION in finalizers and not any(uses_claim(p, name) for p in self.pods.items(namespace)):
                await _set_finalizer(self.client, self.claims_type, claim, PVC_PROTECTION, False)
        elif PVC_PROTECTION not in finalizers:
            await _set_finalizer(self.client, self.claims_type, claim, PVC_PROTECTION, True)


class VolumeProtection(Controller):
    name = "persistentvolume-protection-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.volumes_type = ctx.resource("", "v1", "persistentvolumes")
        self.volumes = ctx.informer("", "v1", "persistentvolumes")
        self.volumes.add_handler(self.enqueue_changed)

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        volume = self.volumes.get("", key[1])
        if volume is None:
            return
        finalizers = volume["metadata"].get("finalizers") or []
        if volume["metadata"].get("deletionTimestamp"):
            if PV_PROTECTION in finalizers and (volume.get("status") or {}).get("phase") != "Bound":
                await _set_finalizer(self.client, self.volumes_type, volume, PV_PROTECTION, False)
        elif PV_PROTECTION not in finalizers:
            await _set_finalizer(self.client, self.volumes_type, volume, PV_PROTECTION, True)
