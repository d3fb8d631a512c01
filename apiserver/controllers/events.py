"""Recording Events as upstream's components do: events.k8s.io/v1, named after the object and the time."""

from __future__ import annotations

import datetime
import logging
import socket
import time
from typing import Any

from apiserver import errors
from apiserver.controllers.client import Client

log = logging.getLogger("apiserver.controllers")

Obj = dict[str, Any]


def _micro_time() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def reference(obj: Obj) -> Obj:
    meta = obj["metadata"]
    ref = {"kind": obj.get("kind"), "namespace": meta.get("namespace"), "name": meta["name"],
           "uid": meta.get("uid"), "apiVersion": obj.get("apiVersion"), "resourceVersion": meta.get("resourceVersion")}
    return {k: v for k, v in ref.items() if v}


class Recorder:
    """One component's events: `default-scheduler`, `deployment-controller`, `kubelet`."""

    def __init__(self, client: Client, controller: str) -> None:
        self._client = client
        self._type = client.resource("events.k8s.io", "v1", "events")
        self.controller = controller
        self.instance = f"{controller}-{socket.gethostname()}"

    async def record(self, regarding: Obj, event_type: str, reason: str, action: str, note: str) -> None:
        """Best effort, as upstream's broadcaster: a refused event is logged, never retried by the caller."""
        meta = regarding["metadata"]
        namespace = meta.get("namespace") or "default"
        event = {
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": f"{meta['name']}.{time.time_ns():x}", "namespace": namespace},
            "eventTime": _micro_time(), "reportingController": self.controller,
            "reportingInstance": self.instance, "action": action, "reason": reason,
            "regarding": reference(regarding), "note": note, "type": event_type,
        }
        try:
            await self._client.create(self._type, namespace, event)
        except errors.ApiError as exc:
            log.info("%s: event %s on %s not recorded: %s", self.controller, reason, meta["name"], exc.message)
