"""The cronjob controller: a CronJob's Job is created at each time its schedule names, in the server's
clock (UTC, or spec.timeZone), as kube-controller-manager's cronjob controller v2 does.

The Job is `<cronjob>-<minutes since the epoch>` with the scheduled time annotated; a missed time
(the server was down) still runs if it is the most recent one and within startingDeadlineSeconds.
concurrencyPolicy Forbid skips a time while a Job runs, Replace deletes the running ones first. Finished
Jobs beyond the history limits are deleted, oldest first. The next time is waited for, not polled.
"""

from __future__ import annotations

import datetime
import zoneinfo
from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either
from apiserver.controllers.cron import CronError, parse
from apiserver.controllers.events import Recorder
from apiserver.controllers.replicaset import controller_of, owner_reference

SCHEDULED_AT = "batch.kubernetes.io/cronjob-scheduled-timestamp"


def _time(text: str | None) -> datetime.datetime | None:
    if not text:
        return None
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _rfc3339(when: datetime.datetime) -> str:
    return when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _finished(job: Obj) -> str | None:
    for condition in (job.get("status") or {}).get("conditions") or ():
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return str(condition["type"])
    return None


class CronJobController(Controller):
    name = "cronjob-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.cronjobs_type = ctx.resource("batch", "v1", "cronjobs")
        self.jobs_type = ctx.resource("batch", "v1", "jobs")
        self.cronjobs = ctx.informer("batch", "v1", "cronjobs")
        self.jobs = ctx.informer("batch", "v1", "jobs")
        self.events = Recorder(self.client, self.name)
        self.cronjobs.add_handler(self.enqueue_changed)
        self.jobs.add_handler(self._job_changed)

    def _job_changed(self, old: Obj | None, new: Obj | None) -> None:
        job = either(old, new)
        ref = controller_of(job)
        if ref is not None and ref.get("kind") == "CronJob":
            self.queue.add((job["metadata"].get("namespace", ""), ref["name"]))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        cronjob = self.cronjobs.get(*key)
        if cronjob is None or cronjob["metadata"].get("deletionTimestamp"):
            return
        spec = cronjob["spec"]
        try:
            schedule, prefix_zone = parse(spec["schedule"])
            zone = zoneinfo.ZoneInfo(spec.get("timeZone") or prefix_zone or "UTC")
        except (CronError, zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
            await self.events.record(cronjob, "Warning", "UnparseableSchedule", "Schedule",
                                     f"unparseable schedule: {spec.get('schedule')!r} : {exc}")
            return
        uid = cronjob["metadata"]["uid"]
        jobs = [j for j in self.jobs.items(cronjob["metadata"]["namespace"])
                if (ref := controller_of(j)) is not None and ref.get("uid") == uid]
        active = [j for j in jobs if _finished(j) is None and not j["metadata"].get("deletionTimestamp")]
        status = dict(cronjob.get("status") or {})
        now = datetime.datetime.now(datetime.timezone.utc)
        earliest = _time(status.get("lastScheduleTime")) or _time(cronjob["metadata"].get("creationTimestamp")) or now
        due = None
        cursor = schedule.next_after(earliest.astimezone(zone))
        if cursor is None and not spec.get("suspend"):
            # robfig/cron's Next answers the zero time for a schedule no date matches ("59 23 31 2 *"),
            # which mostRecentScheduleTime finds as two schedules less than a second apart.
            await self.events.record(cronjob, "Warning", "InvalidSchedule", "Schedule",
                                     f"invalid schedule: {spec.get('schedule')} : time difference between two "
                                     f"schedules is less than 1 second")
            return
        while cursor is not None and cursor <= now:
            due = cursor
            cursor = schedule.next_after(cursor)
        deadline = spec.get("startingDeadlineSeconds")
        if due is not None and deadline is not None and (now - due).total_seconds() > int(deadline):
            due = None  # missed, and too late to run now
        if due is not None and not spec.get("suspend"):
            policy = spec.get("concurrencyPolicy", "Allow")
            if policy == "Forbid" and active:
                due = None
            else:
                if policy == "Replace":
                    for job in active:
                        await self.client.delete(self.jobs_type, job["metadata"]["namespace"],
                                                 job["metadata"]["name"], {"propagationPolicy": "Background"})
                    active = []
                created = await self._create(cronjob, due)
                if created is not None:
                    active.append(created)
                status["lastScheduleTime"] = _rfc3339(due)
        successes = [_time(j["status"].get("completionTime")) or now for j in jobs if _finished(j) == "Complete"]
        if successes:
            status["lastSuccessfulTime"] = _rfc3339(max(successes))
        references = [{"kind": "Job", "namespace": j["metadata"]["namespace"], "name": j["metadata"]["name"],
                       "uid": j["metadata"]["uid"], "apiVersion": "batch/v1",
                       "resourceVersion": j["metadata"].get("resourceVersion", "")} for j in active]
        if references:
            status["active"] = sorted(references, key=lambda r: r["name"])
        else:
            status.pop("active", None)
        if status != (cronjob.get("status") or {}):
            await self.client.update(self.cronjobs_type, {**cronjob, "status": status}, subresource="status")
        await self._trim_history(cronjob, jobs)
        if cursor is not None:
            self.queue.add_after(key, max((cursor - now).total_seconds(), 0) + 0.1)

    async def _create(self, cronjob: Obj, due: datetime.datetime) -> Obj | None:
        meta = cronjob["metadata"]
        template = cronjob["spec"].get("jobTemplate") or {}
        name = f"{meta['name']}-{int(due.timestamp()) // 60}"
        job_meta: Obj = {"name": name, "namespace": meta["namespace"],
                         "labels": dict((template.get("metadata") or {}).get("labels") or {}),
                         "annotations": {**((template.get("metadata") or {}).get("annotations") or {}),
                                         SCHEDULED_AT: _rfc3339(due)},
                         "ownerReferences": [owner_reference(cronjob)]}
        if not job_meta["labels"]:
            del job_meta["labels"]
        try:
            job = await self.client.create(self.jobs_type, meta["namespace"], {
                "apiVersion": "batch/v1", "kind": "Job", "metadata": job_meta, "spec": template.get("spec") or {}})
        except errors.ApiError as exc:
            if exc.code == 409:
                return None  # made before a restart: this time has run
            raise
        await self.events.record(cronjob, "Normal", "SuccessfulCreate", "Create", f"Created job {name}")
        return job

    async def _trim_history(self, cronjob: Obj, jobs: list[Obj]) -> None:
        spec = cronjob["spec"]
        for outcome, limit in (("Complete", spec.get("successfulJobsHistoryLimit", 3)),
                               ("Failed", spec.get("failedJobsHistoryLimit", 1))):
            done = sorted((j for j in jobs if _finished(j) == outcome and not j["metadata"].get("deletionTimestamp")),
                          key=lambda j: j["metadata"].get("creationTimestamp", ""))
            for job in done[:max(len(done) - int(limit), 0)]:
                await self.client.delete(self.jobs_type, job["metadata"]["namespace"], job["metadata"]["name"],
                                         {"propagationPolicy": "Background"})
