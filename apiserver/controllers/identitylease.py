"""The API server's identity Lease, as kube-apiserver keeps it (its APIServerIdentity lease controller).

Each server names itself `apiserver-<hash>`: the first 16 bytes of the SHA-256 of its host name and
"kube-apiserver" (each prefixed with its 16-bit length), in lower-case unpadded base32. It holds a
Lease of that name in kube-system, labelled with its identity and host name, for 3600 s, and renews
it every 10 s. It runs whatever --controllers says: it is the API server's own, not the controller
manager's. Leases a server leaves behind are not collected here (upstream's lease GC deletes them
an hour after they expire).
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import hashlib
import logging
import socket
import struct
import uuid
from typing import Any

from apiserver import errors
from apiserver.controllers.client import Client

log = logging.getLogger("apiserver.controllers")

NAMESPACE = "kube-system"
IDENTITY_LABEL = "apiserver.kubernetes.io/identity"
HOSTNAME_LABEL = "kubernetes.io/hostname"
IDENTITY = "kube-apiserver"
DURATION_SECONDS = 3600
RENEW_SECONDS = 10.0

Obj = dict[str, Any]


def server_id(hostname: str) -> str:
    """The name kube-apiserver gives itself on this host (genericapiserver's APIServerID)."""
    data = b"".join(struct.pack(">H", len(part)) + part for part in (hostname.encode(), IDENTITY.encode()))
    digest = hashlib.sha256(data).digest()[:16]
    return "apiserver-" + base64.b32encode(digest).decode().rstrip("=").lower()


def _micro_time() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class IdentityLease:
    def __init__(self, client: Client, hostname: str | None = None, renew_seconds: float = RENEW_SECONDS) -> None:
        self.client = client
        self.hostname = hostname or socket.gethostname()
        self.name = server_id(self.hostname)
        # A new holder each start; a Lease found from an earlier start keeps the holder it has.
        self.holder = f"{self.name}_{uuid.uuid4()}"
        self.renew_seconds = renew_seconds
        self._leases = client.resource("coordination.k8s.io", "v1", "leases")
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="identity-lease")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            try:
                await self.renew()
            except errors.ApiError as exc:
                # A conflict with another process of this host renewing it too, or a store out of reach:
                # the next round reads it anew, as upstream's controller retries forever.
                log.warning("could not renew the identity lease %s: %s", self.name, exc.message)
            except Exception:
                log.exception("could not renew the identity lease %s", self.name)
            await asyncio.sleep(self.renew_seconds)

    async def renew(self) -> Obj:
        """Creates the Lease, or writes the time of this renewal into the one there is."""
        current = self.client.get(self._leases, NAMESPACE, self.name)
        if current is None:
            return await self.client.create(self._leases, NAMESPACE, self._asserted({
                "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": self.name, "namespace": NAMESPACE},
                "spec": {"holderIdentity": self.holder}}))
        return await self.client.update(self._leases, self._asserted(current))

    def _asserted(self, lease: Obj) -> Obj:
        """What every renewal states: the duration, the renewal time, the identity labels."""
        spec = lease.setdefault("spec", {})
        spec["leaseDurationSeconds"] = DURATION_SECONDS
        spec["renewTime"] = _micro_time()
        labels = lease["metadata"].setdefault("labels", {})
        labels[IDENTITY_LABEL] = IDENTITY
        labels[HOSTNAME_LABEL] = self.hostname
        return lease
