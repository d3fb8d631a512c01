"""Leader election among servers sharing a store, with a Lease as kube-controller-manager holds one.

Work that must happen once however many servers run (the CRD controller's status writes and clean-up)
runs only where `leading` is true: this server holds the Lease (kube-system, by name) and renewed it
within its duration. A holder that stops renewing (crashed, or cut off from etcd) is replaced once the
duration has passed since its last renewal; the Lease's transitions count the changes of holder.
`on_elected` callbacks run when this server starts leading, `on_lost` ones when it stops: at the moment
`leading` turns false, from a timer, so a renewal stuck on an unreachable store cannot delay them past
the point where another server may take over.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from datetime import UTC, datetime
from typing import Any, Callable

import orjson

from apiserver.storage.interface import (
    Key,
    PreconditionFailed,
    StorageUnavailable,
    Store,
    StoreUnreachable,
)

log = logging.getLogger("apiserver.election")


def _micro_time(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse_micro_time(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()


class LeaderElection:
    def __init__(self, store: Store, key: Key, duration: float = 15.0, retry: float = 2.0) -> None:
        self.identity = f"{socket.gethostname()}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        self._store = store
        self._key = key
        self._duration = duration
        self._retry = retry
        self._renewed = 0.0  # monotonic time of this server's last successful renewal
        self._task: asyncio.Task[None] | None = None
        self._expiry: asyncio.TimerHandle | None = None
        self._announced = False  # whether on_elected ran last, rather than on_lost
        self.on_elected: list[Callable[[], None]] = []
        self.on_lost: list[Callable[[], None]] = []

    @property
    def leading(self) -> bool:
        # Another server may take over once `duration` has passed since our last renewal: stop before that.
        return self._renewed > 0 and time.monotonic() - self._renewed < self._duration - self._retry

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._expiry is not None:
            self._expiry.cancel()

    async def _run(self) -> None:
        while True:
            try:
                await self._try_acquire_or_renew()
            except (PreconditionFailed, StoreUnreachable, StorageUnavailable) as exc:
                log.debug("lease %s not renewed: %s", self._key[2], exc)
            if self.leading:
                self._arm_expiry()
                if not self._announced:
                    self._announced = True
                    log.info("now leading %s as %s", self._key[2], self.identity)
                    for callback in self.on_elected:
                        callback()
            await asyncio.sleep(self._retry)

    def _arm_expiry(self) -> None:
        """A timer for the moment `leading` turns false unless a renewal comes first."""
        if self._expiry is not None:
            self._expiry.cancel()
        left = self._renewed + self._duration - self._retry - time.monotonic()
        self._expiry = asyncio.get_running_loop().call_later(max(left, 0.0), self._expired)

    def _expired(self) -> None:
        self._expiry = None
        if self.leading:  # renewed meanwhile without re-arming: look again when that renewal runs out
            self._arm_expiry()
            return
        if self._announced:
            self._announced = False
            log.warning("lost the lease %s; the work only its holder does stops here", self._key[2])
            for callback in self.on_lost:
                callback()

    async def _try_acquire_or_renew(self) -> None:
        await self._store.catch_up(None)
        current = self._store.latest(self._key)
        now = time.time()
        lease = self._fresh(now) if current is None else orjson.loads(current.data)
        spec: dict[str, Any] = lease.setdefault("spec", {})
        holder = spec.get("holderIdentity")
        if holder not in (None, self.identity) and current is not None:
            renewed = _parse_micro_time(spec.get("renewTime") or spec.get("acquireTime") or _micro_time(0))
            if renewed + float(spec.get("leaseDurationSeconds") or self._duration) > now:
                return  # held by a live server
            spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + 1
        if holder != self.identity:
            spec["acquireTime"] = _micro_time(now)
        spec["holderIdentity"] = self.identity
        spec["leaseDurationSeconds"] = int(self._duration)
        spec["renewTime"] = _micro_time(now)
        started = time.monotonic()
        await self._store.submit(self._key, lease, current)
        self._renewed = started

    def _fresh(self, now: float) -> dict[str, Any]:
        return {"kind": "Lease", "apiVersion": "coordination.k8s.io/v1",
                "metadata": {"name": self._key[2], "namespace": self._key[1], "uid": str(uuid.uuid4()),
                             "resourceVersion": "",
                             "creationTimestamp": datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")},
                "spec": {}}
