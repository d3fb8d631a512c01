"""The TTL-after-finished controller: a finished Job with ttlSecondsAfterFinished is deleted (its pods
with it, in the background) that many seconds after it completed or failed."""

from __future__ import annotations

import datetime
from typing import Hashable

from apiserver.controllers.base import Context, Controller, Obj, object_key


def finished_at(job: Obj) -> datetime.datetime | None:
    for condition in (job.get("status") or {}).get("conditions") or ():
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            text = condition.get("lastTransitionTime") or ""
            try:
                return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                return None
    return None


class TTLAfterFinished(Controller):
    name = "ttl-after-finished-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.jobs_type = ctx.resource("batch", "v1", "jobs")
        self.jobs = ctx.informer("batch", "v1", "jobs")
        self.jobs.add_handler(self._job_changed)

    def _job_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None and new["spec"].get("ttlSecondsAfterFinished") is not None and finished_at(new):
            self.queue.add(object_key(new))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        job = self.jobs.get(*key)
        if job is None or job["metadata"].get("deletionTimestamp"):
            return
        ttl = job["spec"].get("ttlSecondsAfterFinished")
        finished = finished_at(job)
        if ttl is None or finished is None:
            return
        left = (finished + datetime.timedelta(seconds=int(ttl)) - datetime.datetime.now(datetime.timezone.utc))
        if left.total_seconds() > 0:
            self.queue.add_after(key, left.total_seconds())
            return
        meta = job["metadata"]
        await self.client.delete(self.jobs_type, meta["namespace"], meta["name"],
                                 {"propagationPolicy": "Background", "preconditions": {"uid": meta["uid"]}})
