"""The persistentvolume-binder controller: claims bound to volumes, as upstream's `pkg/controller/volume/persistentvolume`.

An unbound claim gets the volume that matches it best (apiserver.controllers.volumes); without one it
waits: for its first consumer under a `WaitForFirstConsumer` class until the scheduler names a node
(`volume.kubernetes.io/selected-node`), else for its class's provisioner, which it names in
`volume.kubernetes.io/storage-provisioner` (upstream's external provisioning), else for an
administrator. Binding writes the volume's `claimRef` and phase, then the claim's `volumeName` and
phase, each marked `pv.kubernetes.io/bound-by-controller` when this controller chose it. A volume whose
claim is gone is Released; the claim of a volume that is gone is Lost.
"""

from __future__ import annotations

from typing import Hashable

from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.events import Recorder
from apiserver.controllers.volumes import (
    BETA_STORAGE_PROVISIONER,
    BIND_COMPLETED,
    BOUND_BY_CONTROLLER,
    SELECTED_NODE,
    STORAGE_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    best_match,
    claim_class,
    is_prebound_to,
)

EVENT_SOURCE = "persistentvolume-controller"


class PersistentVolumeBinder(Controller):
    name = "persistentvolume-binder-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.claims_type = ctx.resource("", "v1", "persistentvolumeclaims")
        self.volumes_type = ctx.resource("", "v1", "persistentvolumes")
        self.claims = ctx.informer("", "v1", "persistentvolumeclaims")
        self.volumes = ctx.informer("", "v1", "persistentvolumes")
        self.classes = ctx.informer("storage.k8s.io", "v1", "storageclasses")
        self.events = Recorder(self.client, EVENT_SOURCE)
        self._told: dict[str, str] = {}  # claim uid -> the last waiting reason an event gave
        self.claims.add_handler(self._claim_changed)
        self.volumes.add_handler(self._volume_changed)
        self.classes.add_handler(self._class_changed)

    def _claim_changed(self, old: Obj | None, new: Obj | None) -> None:
        claim = either(old, new)
        if new is not None:
            self.queue.add(("claim", *object_key(new)))
        else:
            self._told.pop(claim["metadata"].get("uid", ""), None)
        volume = (claim.get("spec") or {}).get("volumeName")
        if volume:
            self.queue.add(("volume", volume))
        if new is None:
            for pv in self.volumes:  # a volume pre-bound to it (or bound) is released
                if is_prebound_to(pv, claim):
                    self.queue.add(("volume", pv["metadata"]["name"]))

    def _volume_changed(self, old: Obj | None, new: Obj | None) -> None:
        volume = either(old, new)
        if new is not None:
            self.queue.add(("volume", new["metadata"]["name"]))
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        if ref.get("name"):
            self.queue.add(("claim", ref.get("namespace", ""), ref["name"]))
        if new is not None and not ref:
            self._pending_claims()  # a new free volume may serve a waiting claim

    def _class_changed(self, old: Obj | None, new: Obj | None) -> None:
        self._pending_claims()

    def _pending_claims(self) -> None:
        for claim in self.claims:
            if not (claim.get("spec") or {}).get("volumeName"):
                self.queue.add(("claim", *object_key(claim)))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        if key[0] == "claim":
            claim = self.claims.get(key[1], key[2])
            if claim is not None and not claim["metadata"].get("deletionTimestamp"):
                await self._sync_claim(claim)
        else:
            volume = self.volumes.get("", key[1])
            if volume is not None:
                await self._sync_volume(volume)

    # -- claims ----------------------------------------------------------------------------------

    async def _sync_claim(self, claim: Obj) -> None:
        spec = claim.get("spec") or {}
        if spec.get("volumeName"):
            await self._sync_bound_claim(claim, spec["volumeName"])
            return
        class_name = claim_class(claim)
        storage_class = self.classes.get("", class_name) if class_name else None
        delay = storage_class is not None and storage_class.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER
        volume = best_match(claim, self.volumes, delay)
        if volume is not None:
            await self._bind(volume, claim)
            return
        annotations = claim["metadata"].get("annotations") or {}
        if delay and SELECTED_NODE not in annotations:
            await self._tell(claim, "Normal", "WaitForFirstConsumer",
                             "waiting for first consumer to be created before binding")
        elif class_name and storage_class is None:
            await self._tell(claim, "Warning", "ProvisioningFailed",
                             f'storageclass.storage.k8s.io "{class_name}" not found')
        elif storage_class is not None:
            provisioner = str(storage_class.get("provisioner", ""))
            if annotations.get(STORAGE_PROVISIONER) != provisioner:
                await self.client.patch(self.claims_type, claim["metadata"]["namespace"], claim["metadata"]["name"],
                                        {"metadata": {"annotations": {STORAGE_PROVISIONER: provisioner,
                                                                      BETA_STORAGE_PROVISIONER: provisioner}}})
            await self._tell(claim, "Normal", "ExternalProvisioning",
                             f"Waiting for a volume to be created either by the external provisioner '{provisioner}' "
                             "or manually by the system administrator. If volume creation is delayed, please "
                             "verify that the provisioner is running and correctly registered.")
        else:
            await self._tell(claim, "Normal", "FailedBinding",
                             "no persistent volumes available for this claim and no storage class is set")

    async def _sync_bound_claim(self, claim: Obj, volume_name: str) -> None:
        volume = self.volumes.get("", volume_name)
        phase = (claim.get("status") or {}).get("phase")
        if volume is None:
            if phase == "Bound":
                await self._claim_phase(claim, "Lost")
                await self._tell(claim, "Warning", "ClaimLost",
                                 "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
            return
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        if not ref.get("name") or (is_prebound_to(volume, claim) and not ref.get("uid")):
            await self._bind(volume, claim)
        elif ref.get("uid") == claim["metadata"].get("uid"):
            if phase != "Bound":
                await self._claim_bound(claim, volume)
        else:
            await self._tell(claim, "Warning", "FailedBinding",
                             f'volume "{volume_name}" already bound to a different claim.')

    async def _bind(self, volume: Obj, claim: Obj) -> None:
        """Volume first, then claim, as upstream's bind(): a crash in between leaves the volume
        pointing at a claim that the next sync finishes binding."""
        meta = claim["metadata"]
        spec = volume.setdefault("spec", {})
        ref = spec.get("claimRef") or {}
        if ref.get("uid") != meta.get("uid"):
            if not ref:
                volume["metadata"].setdefault("annotations", {})[BOUND_BY_CONTROLLER] = "yes"
            spec["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": meta["namespace"], "name": meta["name"],
                                "uid": meta.get("uid"), "apiVersion": "v1",
                                "resourceVersion": meta.get("resourceVersion")}
            volume = await self.client.update(self.volumes_type, volume)
        if (volume.get("status") or {}).get("phase") != "Bound":
            volume["status"] = {**(volume.get("status") or {}), "phase": "Bound"}
            volume = await self.client.update(self.volumes_type, volume, subresource="status")
        annotations = meta.setdefault("annotations", {})
        claim_spec = claim.setdefault("spec", {})
        if claim_spec.get("volumeName") != volume["metadata"]["name"] or annotations.get(BIND_COMPLETED) != "yes":
            if claim_spec.get("volumeName") != volume["metadata"]["name"]:
                annotations[BOUND_BY_CONTROLLER] = "yes"
                claim_spec["volumeName"] = volume["metadata"]["name"]
            annotations[BIND_COMPLETED] = "yes"
            claim = await self.client.update(self.claims_type, claim)
        await self._claim_bound(claim, volume)

    async def _claim_bound(self, claim: Obj, volume: Obj) -> None:
        volume_spec = volume.get("spec") or {}
        claim["status"] = {**(claim.get("status") or {}), "phase": "Bound",
                           "accessModes": volume_spec.get("accessModes") or [],
                           "capacity": dict(volume_spec.get("capacity") or {})}
        await self.client.update(self.claims_type, claim, subresource="status")
        self._told.pop(claim["metadata"].get("uid", ""), None)

    async def _claim_phase(self, claim: Obj, phase: str) -> None:
        claim["status"] = {**(claim.get("status") or {}), "phase": phase}
        await self.client.update(self.claims_type, claim, subresource="status")

    async def _tell(self, claim: Obj, kind: str, reason: str, note: str) -> None:
        """An event for a claim that waits, once per reason (upstream repeats it each resync)."""
        uid = claim["metadata"].get("uid", "")
        if self._told.get(uid) != reason:
            self._told[uid] = reason
            await self.events.record(claim, kind, reason, reason, note)

    # -- volumes ---------------------------------------------------------------------------------

    async def _sync_volume(self, volume: Obj) -> None:
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        phase = (volume.get("status") or {}).get("phase")
        if not ref.get("name") or not ref.get("uid"):
            if phase not in ("Available", "Released", "Failed"):
                await self._volume_phase(volume, "Available")
            return
        claim = self.claims.get(ref.get("namespace", ""), ref["name"])
        if claim is None or claim["metadata"].get("uid") != ref["uid"]:
            if phase not in ("Released", "Failed"):
                await self._volume_phase(volume, "Released")
            return
        if (claim.get("spec") or {}).get("volumeName") == volume["metadata"]["name"] and phase != "Bound":
            await self._volume_phase(volume, "Bound")

    async def _volume_phase(self, volume: Obj, phase: str) -> None:
        volume["status"] = {**(volume.get("status") or {}), "phase": phase}
        await self.client.update(self.volumes_type, volume, subresource="status")
