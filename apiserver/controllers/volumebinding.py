"""kube-scheduler's VolumeBinding plugin: a pod's claims decide where it may go, and for claims whose
class waits for the first consumer, the scheduler chooses their volume or asks for one on its node.

PreFilter refuses a pod whose claim is missing, being deleted, or unbound under an `Immediate` class.
Filter refuses a node a bound volume cannot be used on (its node affinity), or where an unbound
claim finds neither a free matching volume nor a class that provisions. PreBind pre-binds the free
volume chosen (its `claimRef`), or names the node on the claim (`volume.kubernetes.io/selected-node`)
for its provisioner, then waits until every claim is bound before the pod is bound, at most the
plugin's bind timeout.
"""

from __future__ import annotations

import asyncio
from typing import Any

from apiserver.controllers.client import Client
from apiserver.controllers.informer import Informer
from apiserver.controllers.volumes import (
    SELECTED_NODE,
    WAIT_FOR_FIRST_CONSUMER,
    best_match,
    claim_class,
    claim_names,
    is_bound,
    node_fits,
)

Obj = dict[str, Any]
BIND_TIMEOUT_SECONDS = 600.0  # the plugin's default bindTimeoutSeconds
CONFLICT = "node(s) had volume node affinity conflict"
NO_VOLUME = "node(s) didn't find available persistent volumes to bind"
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"


class VolumeBinding:
    def __init__(self, client: Client, claims: Informer, volumes: Informer, classes: Informer) -> None:
        self.client = client
        self.claims, self.volumes, self.classes = claims, volumes, classes
        self.claims_type = client.resource("", "v1", "persistentvolumeclaims")
        self.volumes_type = client.resource("", "v1", "persistentvolumes")
        self._waiters: dict[tuple[str, str], list[asyncio.Future[None]]] = {}
        claims.add_handler(self._claim_changed)

    def _claim_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None and is_bound(new):
            key = (new["metadata"]["namespace"], new["metadata"]["name"])
            for waiter in self._waiters.pop(key, ()):
                if not waiter.done():
                    waiter.set_result(None)

    def _delayed(self, claim: Obj) -> bool:
        storage_class = self.classes.get("", claim_class(claim)) if claim_class(claim) else None
        return storage_class is not None and storage_class.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER

    def _claims(self, pod: Obj) -> list[Obj]:
        namespace = pod["metadata"].get("namespace", "")
        return [c for c in (self.claims.get(namespace, name) for name in claim_names(pod)) if c is not None]

    def prefilter(self, pod: Obj) -> str | None:
        """Why no node can take the pod because of its claims, or None."""
        namespace = pod["metadata"].get("namespace", "")
        for name in claim_names(pod):
            claim = self.claims.get(namespace, name)
            if claim is None:
                return f'persistentvolumeclaim "{name}" not found'
            if claim["metadata"].get("deletionTimestamp"):
                return f'persistentvolumeclaim "{name}" is being deleted'
        if any(not is_bound(c) and not self._delayed(c) for c in self._claims(pod)):
            return UNBOUND_IMMEDIATE
        return None

    def filter(self, pod: Obj, node: Obj) -> str | None:
        for claim in self._claims(pod):
            if is_bound(claim):
                volume = self.volumes.get("", claim["spec"]["volumeName"])
                if volume is not None and not node_fits(volume, node):
                    return CONFLICT
            elif best_match(claim, self.volumes, False, node) is None:
                storage_class = self.classes.get("", claim_class(claim))
                if storage_class is None or storage_class.get("provisioner") == "kubernetes.io/no-provisioner":
                    return NO_VOLUME
        return None

    async def prebind(self, pod: Obj, node: Obj) -> bool:
        """Readies the pod's claims on the node; False when they were not all bound in time."""
        waiting = []
        node_name = node["metadata"]["name"]
        for claim in self._claims(pod):
            if is_bound(claim):
                continue
            meta = claim["metadata"]
            key = (meta["namespace"], meta["name"])
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.setdefault(key, []).append(waiter)
            waiting.append(waiter)
            volume = best_match(claim, self.volumes, False, node)
            if volume is not None:
                volume["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": meta["namespace"],
                                              "name": meta["name"], "uid": meta.get("uid"), "apiVersion": "v1",
                                              "resourceVersion": meta.get("resourceVersion")}
                await self.client.update(self.volumes_type, volume)
            elif (meta.get("annotations") or {}).get(SELECTED_NODE) != node_name:
                await self.client.patch(self.claims_type, meta["namespace"], meta["name"],
                                        {"metadata": {"annotations": {SELECTED_NODE: node_name}}})
        if not waiting:
            return True
        try:
            await asyncio.wait_for(asyncio.gather(*waiting), BIND_TIMEOUT_SECONDS)
        except asyncio.TimeoutError:
            return False
        return True
