"""batch/v1 defaulting: the SetDefaults_* functions of pkg/apis/batch/v1/defaults.go."""

from __future__ import annotations

from typing import Any

from apiserver.registry.apps.defaults import pod_template
from apiserver.registry.core import defaults as core

Obj = dict[str, Any]


def _unset(obj: Obj, key: str) -> bool:
    """Go reads a field sent as null as never sent: both are defaulted."""
    return obj.get(key) is None


def job(obj: Obj) -> None:
    """SetDefaults_Job, which runs on every decode: of a request body and of every read from storage."""
    spec = core.spec_of(obj)
    if _unset(spec, "completions") and _unset(spec, "parallelism"):
        spec["completions"] = 1
    if _unset(spec, "parallelism"):
        spec["parallelism"] = 1
    if _unset(spec, "backoffLimit"):
        spec["backoffLimit"] = 6 if spec.get("backoffLimitPerIndex") is None else 2147483647
    template = pod_template(spec)
    template_meta = template.get("metadata")
    template_labels = template_meta.get("labels") if isinstance(template_meta, dict) else None
    if isinstance(template_labels, dict) and not obj["metadata"].get("labels"):
        # Go assigns the template's map itself: labels the create strategy adds to the template later
        # (the generated selector's) show on the job too. The same dict keeps that true here.
        obj["metadata"]["labels"] = template_labels
    if _unset(spec, "completionMode"):
        spec["completionMode"] = "NonIndexed"
    if _unset(spec, "suspend"):
        spec["suspend"] = False
    if _unset(spec, "podReplacementPolicy"):
        failure_policy = spec.get("podFailurePolicy")
        spec["podReplacementPolicy"] = "TerminatingOrFailed" if failure_policy is None else "Failed"
    _pod_failure_policy(spec.get("podFailurePolicy"))
    if _unset(spec, "manualSelector"):
        spec["manualSelector"] = False
    core.pod_spec(template["spec"])


def _pod_failure_policy(policy: Any) -> None:
    """A rule's pod condition pattern matches the condition being True unless it says otherwise."""
    if not isinstance(policy, dict):
        return
    for rule in policy.get("rules") or ():
        for pattern in (rule.get("onPodConditions") or ()) if isinstance(rule, dict) else ():
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"


def cron_job(obj: Obj) -> None:
    spec = core.spec_of(obj)
    spec.setdefault("concurrencyPolicy", "Allow")
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    # The job template, its spec, its pod template and that one's spec are all Go structs: zero values
    # where left out or null.
    job_template = spec.get("jobTemplate")
    if not isinstance(job_template, dict):
        job_template = spec["jobTemplate"] = {}
    job_spec = job_template.get("spec")
    if not isinstance(job_spec, dict):
        job_spec = job_template["spec"] = {}
    _pod_failure_policy(job_spec.get("podFailurePolicy"))
    core.pod_spec(pod_template(job_spec)["spec"])
