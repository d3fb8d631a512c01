"""The workload strategies' warnings (WarningsOnCreate, WarningsOnUpdate) of pkg/registry/apps and
pkg/registry/batch, and pkg/api/job's WarningsForJobSpec.

The pod template's own warnings (GetWarningsForPodTemplate) and a claim template's are core's
(`core/pod_warnings.py`, `core/object_warnings.py`); a workload warns of its template only on create
and on an update that is a new generation of it.
"""

from __future__ import annotations

from typing import Any

from apiserver.kinds.validation import dns1123_label
from apiserver.registry.core import object_warnings, pod_warnings

Obj = dict[str, Any]

_COMPLETIONS_SOFT_LIMIT = 100_000
_PARALLELISM_SOFT_LIMIT = 10_000


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _template(obj: Obj, *path: str) -> Obj:
    node: Any = obj
    for key in path:
        node = _dict(node).get(key)
    return _dict(node)


def _template_warnings(obj: Obj, *path: str) -> list[str]:
    template = _template(obj, *path)
    return pod_warnings.spec_warnings(template.get("spec"), template.get("metadata"), ".".join(path) + ".")


def _new_generation(new: Obj, old: Obj) -> bool:
    return _dict(new.get("metadata")).get("generation") != _dict(old.get("metadata")).get("generation")


def pod_name_prefix(obj: Obj) -> list[str]:
    """A workload's name starts its pods' names, which are their hostnames: a DNS label is recommended."""
    name = str(_dict(obj.get("metadata")).get("name") or "")
    problems = dns1123_label(name)
    if not problems:
        return []
    return [("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; "
             f"a DNS label is recommended: [{' '.join(problems)}]")]


def replica_set_on_create(obj: Obj) -> list[str]:
    """Deployments and ReplicaSets: the name, then the template."""
    return pod_name_prefix(obj) + _template_warnings(obj, "spec", "template")


def template_on_create(obj: Obj) -> list[str]:
    return _template_warnings(obj, "spec", "template")


def template_on_update(new: Obj, old: Obj) -> list[str]:
    return _template_warnings(new, "spec", "template") if _new_generation(new, old) else []


def daemon_set_on_update(new: Obj, old: Obj) -> list[str]:
    """Warned when the template changed: its generation annotation moved."""
    key = "deprecated.daemonset.template.generation"
    if _dict(_dict(new.get("metadata")).get("annotations")).get(key) == \
            _dict(_dict(old.get("metadata")).get("annotations")).get(key):
        return []
    return _template_warnings(new, "spec", "template")


def job_spec(obj: Obj, *path: str) -> list[str]:
    """WarningsForJobSpec: an indexed job too large to track its failed indexes, then its template."""
    spec = _template(obj, *path)
    found: list[str] = []
    if spec.get("completionMode") == "Indexed" and (spec.get("completions") or 0) > _COMPLETIONS_SOFT_LIMIT and \
            (spec.get("parallelism") or 0) > _PARALLELISM_SOFT_LIMIT:
        found.append(f"{'.'.join(path)}: In Indexed Jobs with a number of completions higher than 10^5 and a "
                     "parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a "
                     "big number of indexes fail")
    return found + _template_warnings(obj, *path, "template")


def job_on_create(obj: Obj) -> list[str]:
    return pod_name_prefix(obj) + job_spec(obj, "spec")


def job_on_update(new: Obj, old: Obj) -> list[str]:
    return job_spec(new, "spec") if _new_generation(new, old) else []


def cron_job_on_create(obj: Obj) -> list[str]:
    return pod_name_prefix(obj) + job_spec(obj, "spec", "jobTemplate", "spec")


def cron_job_on_update(new: Obj, old: Obj) -> list[str]:
    found = job_spec(new, "spec", "jobTemplate", "spec") if _new_generation(new, old) else []
    if "TZ" in str(_dict(new.get("spec")).get("schedule") or ""):
        # Upstream names the field spec.spec.schedule.
        found.append("cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
                     "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")
    return found


def _claims_and_history(obj: Obj, claim_path: str) -> list[str]:
    spec = _dict(obj.get("spec"))
    found: list[str] = []
    for i, claim in enumerate(spec.get("volumeClaimTemplates") or ()):
        found += object_warnings.claim_spec(_dict(_dict(claim).get("spec")),
                                            f"spec.volumeClaimTemplates[{i}]{claim_path}")
    limit = spec.get("revisionHistoryLimit")
    if isinstance(limit, int) and limit < 0:
        found.append("spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 "
                     "is recommended")
    return found


def stateful_set_on_create(obj: Obj) -> list[str]:
    # Upstream's create path names a claim template's fields from the template itself.
    return template_on_create(obj) + _claims_and_history(obj, "")


def stateful_set_on_update(new: Obj, old: Obj) -> list[str]:
    # ... and its update path from `.Spec`, capitalized as upstream writes it.
    return template_on_update(new, old) + _claims_and_history(new, ".Spec")
