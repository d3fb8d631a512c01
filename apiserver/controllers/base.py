"""What every controller shares: its informers, its work queue, and workers that sync one key at a time.

A controller names the resources it follows and turns their changes into keys; `sync(key)` makes
the world match what the key's objects ask for, reading from informers and writing through the
client. A sync that fails (a conflict with a concurrent writer, a refused write) is retried with
backoff; nothing is ever re-read on a timer.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Coroutine, Hashable

from apiserver import errors, metrics
from apiserver.controllers.client import Client
from apiserver.controllers.informer import Informer, Informers
from apiserver.controllers.workqueue import WorkQueue
from apiserver.kinds.resources import ResourceType

log = logging.getLogger("apiserver.controllers")

Obj = dict[str, Any]


@dataclass
class ControllerSettings:
    """The kube-controller-manager flags the controllers here read, with its defaults where it has one."""

    data_dir: str = ""  # where the cluster CA's certificate and key are (pki/), for the CSR signer
    load_balancer_ip_range: str = "127.0.240.0/24"  # --load-balancer-ip-range: LoadBalancer addresses
    cluster_cidr: str = "10.244.0.0/16"  # --cluster-cidr: node podCIDRs are cut from it
    node_cidr_mask_size: int = 24  # --node-cidr-mask-size
    hpa_sync_seconds: float = 15.0  # --horizontal-pod-autoscaler-sync-period
    terminated_pod_gc_threshold: int = 12500  # --terminated-pod-gc-threshold
    node_startup_grace_seconds: float = 60.0  # --node-startup-grace-period, for nodes never heard from


@dataclass
class Context:
    """What the controller manager hands every controller."""

    client: Client
    informers: Informers
    ca_pem: str = ""  # the cluster CA that the root CA publisher puts in every namespace
    simulated_nodes: int = 0
    node_monitor_grace_seconds: float = 50.0  # kube-controller-manager's --node-monitor-grace-period
    settings: ControllerSettings = field(default_factory=ControllerSettings)
    enabled: tuple[str, ...] = ()  # the controllers that run together (set by the manager)

    def informer(self, group: str, version: str, plural: str) -> Informer:
        return self.informers.for_type(self.client.resource(group, version, plural))

    def resource(self, group: str, version: str, plural: str) -> ResourceType:
        return self.client.resource(group, version, plural)


class Controller:
    name = ""
    workers = 1

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.client = ctx.client
        self.queue: WorkQueue[Hashable] = WorkQueue()
        self._spawned: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Work that goes on beside the queue (a binding being made durable), ended with the controller."""
        task = asyncio.create_task(work)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    async def close(self) -> None:
        self.queue.close()
        for task in list(self._spawned):
            task.cancel()
        await asyncio.gather(*self._spawned, return_exceptions=True)

    def enqueue_changed(self, old: Obj | None, new: Obj | None) -> None:
        """An informer handler for the controller's own kind: an added or changed object is queued by key,
        a deleted one is not."""
        if new is not None:
            self.queue.add(object_key(new))

    async def sync(self, key: Hashable) -> None:
        raise NotImplementedError

    async def run(self) -> None:
        await asyncio.gather(*(self._worker() for _ in range(self.workers)))

    async def _worker(self) -> None:
        while True:
            key = await self.queue.get()
            try:
                await self.sync(key)
            except errors.ApiError as exc:
                # 409: someone wrote first; the informer brings the new state and the retry sees it.
                level = logging.DEBUG if exc.code == 409 else logging.WARNING
                log.log(level, "%s: syncing %s: %s", self.name, key, exc.message)
                metrics.CONTROLLER_SYNCS.labels(self.name, "retried").inc()
                self.queue.retry(key)
            except Exception:
                log.exception("%s: syncing %s failed", self.name, key)
                metrics.CONTROLLER_SYNCS.labels(self.name, "retried").inc()
                self.queue.retry(key)
            else:
                metrics.CONTROLLER_SYNCS.labels(self.name, "done").inc()
                self.queue.forget(key)
            finally:
                self.queue.done(key)


def namespace_key(obj: Obj) -> str:
    return str(obj["metadata"].get("namespace", ""))


def object_key(obj: Obj) -> tuple[str, str]:
    meta = obj["metadata"]
    return str(meta.get("namespace", "")), str(meta["name"])


def either(old: Obj | None, new: Obj | None) -> Obj:
    found = new if new is not None else old
    assert found is not None
    return found


def is_active_namespace(ns: Obj | None) -> bool:
    return ns is not None and not ns["metadata"].get("deletionTimestamp") and \
        (ns.get("status") or {}).get("phase", "Active") == "Active"
