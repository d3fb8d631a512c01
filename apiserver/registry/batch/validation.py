"""batch/v1 validation: pkg/apis/batch/validation/validation.go, for the rules ported so far."""

from __future__ import annotations

import zoneinfo
from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.apps.validation import immutable_selector
from apiserver.registry.core.pod_validation import pod_spec

Obj = dict[str, Any]


def job(obj: Obj) -> list[FieldError]:
    """ValidateJob: the generated selector, then ValidateJobSpec."""
    spec = obj.get("spec") or {}
    found = _generated_selector(obj)
    for name in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"):
        found += field.nonnegative(f"spec.{name}", spec.get(name))
    mode = spec.get("completionMode")
    if mode is not None and mode not in ("NonIndexed", "Indexed"):
        found.append(field.not_supported("spec.completionMode", mode, ("NonIndexed", "Indexed")))
    found.extend(_indexes(spec))
    found.extend(pod_spec((spec.get("template") or {}).get("spec"), "spec.template.spec"))
    policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
    restart_path = "spec.template.spec.restartPolicy"
    # Pod defaulting has made a missing restartPolicy Always by now, hence upstream's "Required".
    if policy in ("Always", "", None):
        found.append(field.required(restart_path, 'valid values: "OnFailure", "Never"'))
    elif policy not in ("OnFailure", "Never"):
        found.append(field.not_supported(restart_path, policy, ("OnFailure", "Never")))
    elif spec.get("podFailurePolicy") is not None and policy != "Never":
        found.append(field.invalid(restart_path, policy, 'only "Never" is supported when podFailurePolicy is specified'))
    found.extend(_selector(spec))
    return found


# What a job's update may not change (ValidateJobSpecUpdate), after its completions and selector.
_FIXED_AFTER_CREATE = ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy")


def job_update(new: Obj, old: Obj) -> list[FieldError]:
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    found = job(new)
    if spec.get("completionMode") != "Indexed":
        found += field.immutable("spec.completions", spec.get("completions"), old_spec.get("completions"))
    elif spec.get("completions") not in (old_spec.get("completions"), None) and \
            spec.get("completions") != spec.get("parallelism"):
        found.append(field.invalid("spec.completions", spec["completions"],
                                   "can only be modified in tandem with spec.parallelism"))
    found += immutable_selector(new, old)
    for name in _FIXED_AFTER_CREATE:
        found += field.immutable(f"spec.{name}", spec.get(name), old_spec.get(name))
    return found


def _generated_selector(obj: Obj) -> list[FieldError]:
    """Unless manual, the selector may only pick by the labels the strategy generates: the job's uid and name."""
    spec = obj.get("spec") or {}
    selector = spec.get("selector")
    if spec.get("manualSelector") is True or not isinstance(selector, dict):
        return []
    meta = obj.get("metadata") or {}
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    expected = {"controller-uid": uid, "batch.kubernetes.io/controller-uid": uid,
                "job-name": name, "batch.kubernetes.io/job-name": name}
    if all(expected.get(k) == v for k, v in (selector.get("matchLabels") or {}).items()):
        return []
    return [field.invalid_shown("spec.selector", field.go_selector(selector), "`selector` not auto-generated")]


def _selector(spec: Obj) -> list[FieldError]:
    """A manual selector must be given and, as a generated one does, pick the template's pods. Go reads
    a missing selector as one matching nothing, so the template is then refused as well."""
    selector = spec.get("selector")
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    found: list[FieldError] = []
    if not isinstance(selector, dict):
        found.append(field.required("spec.selector"))
    match = (selector.get("matchLabels") or {}) if isinstance(selector, dict) else None
    if match is None or any((labels or {}).get(k) != v for k, v in match.items()):
        shown = field.go_map(labels) if labels else "null"
        found.append(field.invalid_shown("spec.template.metadata.labels", shown,
                                         "`selector` does not match template `labels`"))
    return found


def _indexes(spec: Obj) -> list[FieldError]:
    """Per-index backoff and its failed-index budget belong to Indexed jobs, which count completions."""
    found: list[FieldError] = []
    per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    completions = spec.get("completions")
    if max_failed is not None and per_index is None:
        found.append(field.required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    if spec.get("completionMode") == "Indexed":
        if completions is None:
            found.append(field.required("spec.completions", "when completion mode is Indexed"))
        elif isinstance(max_failed, int) and isinstance(completions, int) and max_failed > completions:
            found.append(field.invalid("spec.maxFailedIndexes", max_failed, "must be less than or equal to completions"))
    elif spec.get("completionMode") in ("NonIndexed", None):
        for field_name, value in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
            if value is not None:
                found.append(field.invalid(f"spec.{field_name}", value, "requires indexed completion mode"))
    return found


_CRON_DESCRIPTORS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_CONCURRENCY = ("Allow", "Forbid", "Replace")


def _schedule(schedule: str) -> list[FieldError]:
    """What robfig/cron's standard parser says of a schedule (the field count), and TZ in it."""
    found: list[FieldError] = []
    fields = schedule.split()
    if not schedule.startswith("@") or schedule.startswith("@every"):
        expression = [f for f in fields if not f.startswith(("TZ=", "CRON_TZ="))]
        if not schedule.startswith("@every") and len(expression) != 5:
            found.append(field.invalid("spec.schedule", schedule, f"expected exactly 5 fields, found "
                                       f"{len(expression)}: [{' '.join(expression)}]"))
    elif schedule not in _CRON_DESCRIPTORS:
        found.append(field.invalid("spec.schedule", schedule, f"unrecognized descriptor: {schedule}"))
    if "TZ" in schedule:
        found.append(field.invalid("spec.schedule", schedule,
                                   "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return found


def _time_zone(zone: Any) -> list[FieldError]:
    if zone is None:
        return []
    if not zone:
        return [field.invalid("spec.timeZone", zone, "timeZone must be nil or non-empty string")]
    try:
        zoneinfo.ZoneInfo(str(zone))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return [field.invalid("spec.timeZone", zone, f"unknown time zone {zone}")]
    if str(zone).lower() == "local":
        return [field.invalid("spec.timeZone", zone,
                              "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")]
    return []


def cron_job(obj: Obj, old: Obj | None = None) -> list[FieldError]:
    """validateCronJobSpec (and, on create, the name's room for the jobs' generated names)."""
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    schedule = str(spec.get("schedule") or "")
    found += _schedule(schedule) if schedule else [field.required("spec.schedule")]
    found += field.nonnegative("spec.startingDeadlineSeconds", spec.get("startingDeadlineSeconds"))
    if old is None or (old.get("spec") or {}).get("timeZone") != spec.get("timeZone"):
        found += _time_zone(spec.get("timeZone"))
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        found.append(field.required("spec.concurrencyPolicy"))
    elif policy not in _CONCURRENCY:
        found.append(field.not_supported("spec.concurrencyPolicy", policy, _CONCURRENCY))
    template = ((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}
    found.extend(pod_spec(template.get("spec"), "spec.jobTemplate.spec.template.spec"))
    for name in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        found += field.nonnegative(f"spec.{name}", spec.get(name))
    name = str(obj["metadata"].get("name") or "")
    if old is None and len(name) > 52:
        found.append(field.invalid("metadata.name", name, "must be no more than 52 characters"))
    return found


def cron_job_update(new: Obj, old: Obj) -> list[FieldError]:
    return cron_job(new, old)
