"""The simulated storage provisioner: the default StorageClass `standard` and volumes for the claims that
name it, as kind's and k3s's local-path provisioners behave.

On start it creates the StorageClass `standard` (the cluster's default, `WaitForFirstConsumer`,
reclaim policy Delete, provisioner `fastkube.io/simulated`) unless one of that name exists, so a
server without controllers has no StorageClass, as the goldens show. A claim the binder handed to this
provisioner (`volume.kubernetes.io/storage-provisioner`) gets a hostPath volume `pvc-<claim uid>` of
the size it requests, pre-bound to it, pinned to the node the scheduler chose for its first consumer.
A released volume it provisioned whose reclaim policy is Delete is deleted.
"""

from __future__ import annotations

from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, object_key
from apiserver.controllers.events import Recorder
from apiserver.controllers.volumes import (
    PROVISIONED_BY,
    SELECTED_NODE,
    STORAGE_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    claim_class,
)

PROVISIONER = "fastkube.io/simulated"
DEFAULT_CLASS = "standard"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
HOST_PATH_ROOT = "/var/local-path-provisioner"


def default_storage_class() -> Obj:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": DEFAULT_CLASS, "annotations": {DEFAULT_CLASS_ANNOTATION: "true"}},
            "provisioner": PROVISIONER, "reclaimPolicy": "Delete", "volumeBindingMode": WAIT_FOR_FIRST_CONSUMER}


class SimulatedProvisioner(Controller):
    name = "fastkube-simulated-provisioner"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.claims_type = ctx.resource("", "v1", "persistentvolumeclaims")
        self.volumes_type = ctx.resource("", "v1", "persistentvolumes")
        self.classes_type = ctx.resource("storage.k8s.io", "v1", "storageclasses")
        self.claims = ctx.informer("", "v1", "persistentvolumeclaims")
        self.volumes = ctx.informer("", "v1", "persistentvolumes")
        self.classes = ctx.informer("storage.k8s.io", "v1", "storageclasses")
        self.events = Recorder(self.client, PROVISIONER)
        self.claims.add_handler(self._claim_changed)
        self.volumes.add_handler(self._volume_changed)

    def _claim_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None:
            self.queue.add(("claim", *object_key(new)))

    def _volume_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None:
            self.queue.add(("volume", new["metadata"]["name"]))

    async def run(self) -> None:
        if self.client.get(self.classes_type, "", DEFAULT_CLASS) is None:
            try:
                await self.client.create(self.classes_type, "", default_storage_class())
            except errors.ApiError as exc:
                if exc.code != 409:
                    raise
        await super().run()

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        if key[0] == "claim":
            claim = self.claims.get(key[1], key[2])
            if claim is not None:
                await self._provision(claim)
        else:
            volume = self.volumes.get("", key[1])
            if volume is not None:
                await self._reclaim(volume)

    async def _provision(self, claim: Obj) -> None:
        meta, spec = claim["metadata"], claim.get("spec") or {}
        annotations = meta.get("annotations") or {}
        if meta.get("deletionTimestamp") or spec.get("volumeName") or annotations.get(STORAGE_PROVISIONER) != PROVISIONER:
            return
        storage_class = self.classes.get("", claim_class(claim))
        if storage_class is None:
            return
        node = annotations.get(SELECTED_NODE)
        if storage_class.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER and not node:
            return
        name = f"pvc-{meta['uid']}"
        if self.volumes.get("", name) is not None or self.client.get(self.volumes_type, "", name) is not None:
            return
        where = f"{meta['namespace']}/{meta['name']}"
        await self.events.record(claim, "Normal", "Provisioning", "Provisioning",
                                 f'External provisioner is provisioning volume for claim "{where}"')
        volume_spec: Obj = {
            "capacity": {"storage": ((spec.get("resources") or {}).get("requests") or {}).get("storage", "1Gi")},
            "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": storage_class.get("reclaimPolicy", "Delete"),
            "storageClassName": storage_class["metadata"]["name"],
            "volumeMode": spec.get("volumeMode", "Filesystem"),
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": meta["namespace"], "name": meta["name"],
                         "uid": meta["uid"], "apiVersion": "v1", "resourceVersion": meta.get("resourceVersion")},
            "hostPath": {"path": f"{HOST_PATH_ROOT}/{name}_{meta['namespace']}_{meta['name']}",
                         "type": "DirectoryOrCreate"}}
        if storage_class.get("mountOptions"):
            volume_spec["mountOptions"] = storage_class["mountOptions"]
        if node:
            volume_spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}
        try:
            await self.client.create(self.volumes_type, "", {
                "apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": name, "annotations": {PROVISIONED_BY: PROVISIONER}}, "spec": volume_spec})
        except errors.ApiError as exc:
            if exc.code != 409:
                raise
            return
        await self.events.record(claim, "Normal", "ProvisioningSucceeded", "Provisioning",
                                 f"Successfully provisioned volume {name}")

    async def _reclaim(self, volume: Obj) -> None:
        meta, spec = volume["metadata"], volume.get("spec") or {}
        if (meta.get("annotations") or {}).get(PROVISIONED_BY) != PROVISIONER or meta.get("deletionTimestamp"):
            return
        if (volume.get("status") or {}).get("phase") == "Released" and \
                spec.get("persistentVolumeReclaimPolicy") == "Delete":
            await self.client.delete(self.volumes_type, "", meta["name"])
