"""The workload strategies' warnings (WarningsOnCreate, WarningsOnUpdate) of pkg/registry/apps and
pkg/registry/batch, and pkg/api/job's WarningsForJobSpec.

The pod template's own warnings (pkg/api/pod's GetWarningsForPodTemplate) are core's, not ported here.
"""

from __future__ import annotations

from typing import Any

from apiserver.kinds.validation import dns1123_label

Obj = dict[str, Any]

_COMPLETIONS_SOFT_LIMIT = 100_000
_PARALLELISM_SOFT_LIMIT = 10_000


def pod_name_prefix(obj: Obj) -> list[str]:
    """A workload's name starts its pods' names, which are their hostnames: a DNS label is recommended."""
    name = str((obj.get("metadata") or {}).get("name") or "")
    problems = dns1123_label(name)
    if not problems:
        return []
    return [("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; "
            f"a DNS label is recommended: [{' '.join(problems)}]")]


def job_spec(spec: Any, path: str) -> list[str]:
    """WarningsForJobSpec: an indexed job too large to track its failed indexes."""
    spec = spec if isinstance(spec, dict) else {}
    if spec.get("completionMode") != "Indexed":
        return []
    if (spec.get("completions") or 0) > _COMPLETIONS_SOFT_LIMIT and \
            (spec.get("parallelism") or 0) > _PARALLELISM_SOFT_LIMIT:
        return [(f"{path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher "
                "than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail")]
    return []


def job_on_create(obj: Obj) -> list[str]:
    return pod_name_prefix(obj) + job_spec(obj.get("spec"), "spec")


def job_on_update(new: Obj, old: Obj) -> list[str]:
    """Only a write that changes the spec (a new generation) is warned of it."""
    if (new.get("metadata") or {}).get("generation") == (old.get("metadata") or {}).get("generation"):
        return []
    return job_spec(new.get("spec"), "spec")


def cron_job_on_create(obj: Obj) -> list[str]:
    template = ((obj.get("spec") or {}).get("jobTemplate") or {}).get("spec")
    return pod_name_prefix(obj) + job_spec(template, "spec.jobTemplate.spec")


def cron_job_on_update(new: Obj, old: Obj) -> list[str]:
    found: list[str] = []
    if (new.get("metadata") or {}).get("generation") != (old.get("metadata") or {}).get("generation"):
        found += job_spec(((new.get("spec") or {}).get("jobTemplate") or {}).get("spec"), "spec.jobTemplate.spec")
    if "TZ" in str((new.get("spec") or {}).get("schedule") or ""):
        # Upstream names the field spec.spec.schedule.
        found.append("cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
                     "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")
    return found


def _negative_history(obj: Obj) -> list[str]:
    limit = (obj.get("spec") or {}).get("revisionHistoryLimit")
    if isinstance(limit, int) and limit < 0:
        return [("spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is "
                "recommended")]
    return []


def stateful_set_on_create(obj: Obj) -> list[str]:
    return _negative_history(obj)


def stateful_set_on_update(new: Obj, old: Obj) -> list[str]:
    return _negative_history(new)
