"""The job controller: pods run until the Job's completions succeed or its backoff limit is spent.

Non-indexed Jobs keep `min(parallelism, completions - succeeded)` pods running; a Job without
completions is done once a pod succeeds and none is left running; Indexed Jobs give each pod a
completion index (annotation, label, hostname and JOB_COMPLETION_INDEX) and finish when every index
has succeeded. More failed pods than backoffLimit, or activeDeadlineSeconds passed, fails the Job.
Finishing writes upstream's pair of conditions (SuccessCriteriaMet then Complete, FailureTarget then
Failed). Counts are read from the pods that exist (no job-tracking finalizers here).
"""

from __future__ import annotations

import asyncio
import datetime
from typing import Any, Hashable

from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.events import Recorder
from apiserver.controllers.replicaset import Owned, controller_of, is_ready, owner_reference
from apiserver.kinds.objects import now_rfc3339

INDEX_KEY = "batch.kubernetes.io/job-completion-index"


def _index(pod: Obj) -> int | None:
    text = (pod["metadata"].get("annotations") or {}).get(INDEX_KEY)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def compress_indexes(indexes: list[int]) -> str:
    """`1,3-5,7`, as status.completedIndexes writes them."""
    runs: list[list[int]] = []
    for index in sorted(set(indexes)):
        if runs and runs[-1][1] == index - 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _finished(job: Obj) -> bool:
    return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or ())


def _condition(kind: str, reason: str, message: str, now: str) -> Obj:
    return {"type": kind, "status": "True", "lastProbeTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message}


class JobController(Controller):
    name = "job-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.jobs_type = ctx.resource("batch", "v1", "jobs")
        self.pods_type = ctx.resource("", "v1", "pods")
        self.jobs = ctx.informer("batch", "v1", "jobs")
        self.pods = ctx.informer("", "v1", "pods")
        self.owned = Owned()
        self.events = Recorder(self.client, self.name)
        self.jobs.add_handler(self.enqueue_changed)
        self.pods.add_handler(self._pod_changed)

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        pod = either(old, new)
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != "Job":
            return
        self.owned.seen(str(ref.get("uid")), pod["metadata"]["name"], new is None)
        self.queue.add((pod["metadata"].get("namespace", ""), ref["name"]))

    def pods_of(self, job: Obj) -> list[Obj]:
        uid = job["metadata"]["uid"]
        return [p for p in self.pods.items(job["metadata"]["namespace"])
                if (ref := controller_of(p)) is not None and ref.get("uid") == uid]

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        job = self.jobs.get(*key)
        if job is None or job["metadata"].get("deletionTimestamp") or _finished(job):
            return
        spec = job["spec"]
        pods = self.pods_of(job)
        active = [p for p in pods if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
                  and not p["metadata"].get("deletionTimestamp")]
        succeeded = [p for p in pods if (p.get("status") or {}).get("phase") == "Succeeded"]
        failed = [p for p in pods if (p.get("status") or {}).get("phase") == "Failed"]
        now = now_rfc3339()
        status: Obj = dict(job.get("status") or {})
        status.setdefault("startTime", now)
        indexed = spec.get("completionMode") == "Indexed"
        completions = spec.get("completions")
        parallelism = int(spec.get("parallelism", 1))
        done_indexes = sorted({i for p in succeeded if (i := _index(p)) is not None})
        finish: tuple[str, str, str, str] | None = None
        if len(failed) > int(spec.get("backoffLimit", 6)):
            finish = ("FailureTarget", "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
        elif self._past_deadline(job, status["startTime"]):
            finish = ("FailureTarget", "Failed", "DeadlineExceeded", "Job was active longer than specified deadline")
        elif (indexed and completions is not None and len(done_indexes) >= int(completions)) or \
                (not indexed and completions is not None and len(succeeded) >= int(completions)) or \
                (completions is None and succeeded and not active):
            finish = ("SuccessCriteriaMet", "Complete", "CompletionsReached",
                      "Reached expected number of succeeded pods")
        if finish is not None:
            await asyncio.gather(*(self.client.delete(self.pods_type, p["metadata"]["namespace"],
                                                      p["metadata"]["name"]) for p in active))
            active = []
        elif not spec.get("suspend"):
            await self._manage(job, active, succeeded, done_indexes, parallelism, completions, indexed)
        status.update({"active": len(active), "succeeded": len(succeeded), "failed": len(failed),
                       "ready": sum(1 for p in active if is_ready(p)), "terminating": 0,
                       "uncountedTerminatedPods": {}})
        if indexed:
            status["completedIndexes"] = compress_indexes(done_indexes)
        if finish is not None:
            target, final, reason, message = finish
            status["conditions"] = [*(status.get("conditions") or []), _condition(target, reason, message, now),
                                    _condition(final, reason, message, now)]
            if final == "Complete":
                status["completionTime"] = now
        for name in ("active", "succeeded", "failed"):
            if not status[name]:
                del status[name]  # omitempty; ready and terminating are pointers, written as 0
        if indexed and not status["completedIndexes"]:
            del status["completedIndexes"]
        if status != (job.get("status") or {}):
            job = {**job, "status": status}
            await self.client.update(self.jobs_type, job, subresource="status")
            if finish is not None:
                await self.events.record(job, "Normal" if finish[1] == "Complete" else "Warning",
                                         "Completed" if finish[1] == "Complete" else finish[2], "Finish",
                                         "Job completed" if finish[1] == "Complete" else finish[3])

    def _past_deadline(self, job: Obj, start: str) -> bool:
        deadline = job["spec"].get("activeDeadlineSeconds")
        if deadline is None:
            return False
        started = datetime.datetime.fromisoformat(start.replace("Z", "+00:00"))
        left = (started + datetime.timedelta(seconds=int(deadline)) -
                datetime.datetime.now(datetime.timezone.utc)).total_seconds()
        if left > 0:
            self.queue.add_after(object_key(job), left + 0.5)
        return left <= 0

    async def _manage(self, job: Obj, active: list[Obj], succeeded: list[Obj], done_indexes: list[int],
                      parallelism: int, completions: Any, indexed: bool) -> None:
        uid = job["metadata"]["uid"]
        pending = len(self.owned.created.get(uid, ()))
        if indexed:
            running = {i for p in active if (i := _index(p)) is not None}
            todo = [i for i in range(int(completions or 0)) if i not in running and i not in done_indexes]
            room = max(parallelism - len(active) - pending, 0)
            wanted: list[int | None] = list(todo[:room])
        else:
            remaining = parallelism if completions is None else min(parallelism, int(completions) - len(succeeded))
            if completions is None and succeeded:
                remaining = 0
            wanted = [None] * max(remaining - len(active) - pending, 0)
        if not wanted:
            return
        created = self.owned.created.setdefault(uid, set())
        results = await asyncio.gather(*(self.client.create(self.pods_type, job["metadata"]["namespace"],
                                                            self._pod(job, index)) for index in wanted))
        for result in results:
            if self.pods.get(job["metadata"]["namespace"], result["metadata"]["name"]) is None:
                created.add(result["metadata"]["name"])
        for result in results:
            await self.events.record(job, "Normal", "SuccessfulCreate", "Create",
                                     f"Created pod: {result['metadata']['name']}")

    def _pod(self, job: Obj, index: int | None) -> Obj:
        name = job["metadata"]["name"]
        template = job["spec"]["template"]
        meta: Obj = {"generateName": f"{name}-" if index is None else f"{name}-{index}-",
                     "labels": dict((template.get("metadata") or {}).get("labels") or {}),
                     "ownerReferences": [owner_reference(job)]}
        annotations = dict((template.get("metadata") or {}).get("annotations") or {})
        spec = dict(template.get("spec") or {})
        if index is not None:
            annotations[INDEX_KEY] = str(index)
            meta["labels"][INDEX_KEY] = str(index)
            spec.setdefault("hostname", f"{name}-{index}")
            spec["containers"] = [{**c, "env": [*(c.get("env") or []), {
                "name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                    "fieldPath": f"metadata.annotations['{INDEX_KEY}']"}}}]} for c in spec.get("containers") or ()]
        if annotations:
            meta["annotations"] = annotations
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
