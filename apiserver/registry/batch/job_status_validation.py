"""A Job's status subresource: ValidateJobUpdateStatus of pkg/apis/batch/validation/validation.go with the
options the status strategy gives it (getStatusValidationOptions, JobManagedBy being on in 1.36).

Most rules apply only when the write changes what they judge: a job's status may hold what an older
controller wrote, and a new write is held to the rules only for what it touches.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.batch.validation import indexes_format

Obj = dict[str, Any]


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _true(status: Obj, kind: str) -> bool:
    return any(_dict(c).get("type") == kind and _dict(c).get("status") == "True"
               for c in status.get("conditions") or ())


def _false(status: Obj, kind: str) -> bool:
    return any(_dict(c).get("type") == kind and _dict(c).get("status") == "False"
               for c in status.get("conditions") or ())


def _finished(status: Obj) -> bool:
    return _true(status, "Complete") or _true(status, "Failed")


def _omitted(path: str, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {detail}")


def _time(value: Any) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


@dataclass(frozen=True)
class _Options:
    """JobStatusValidationOptions, from what the write changes (getStatusValidationOptions)."""

    decreasing_succeeded: bool
    invalid_completed: bool
    invalid_failed: bool
    failed_without_target: bool
    complete_without_criteria: bool
    finished_with_active: bool
    finished_without_start: bool
    finished_with_uncounted: bool
    start_time_update: bool
    completion_before_start: bool
    not_complete_with_completion_time: bool
    complete_without_completion_time: bool
    complete_with_failed: bool
    complete_with_failure_target: bool
    more_ready_than_active: bool
    finished_with_terminating: bool
    failed_overlapping: bool


def _options(new: Obj, old: Obj) -> _Options:
    spec, status, old_status = _dict(new.get("spec")), _dict(new.get("status")), _dict(old.get("status"))

    def changed(key: str) -> bool:
        return status.get(key) != old_status.get(key)

    def condition_changed(kind: str) -> bool:
        return _true(status, kind) != _true(old_status, kind)

    finished = _finished(status) != _finished(old_status)
    complete, failed = condition_changed("Complete"), condition_changed("Failed")
    completed_indexes = (status.get("completedIndexes") or "") != (old_status.get("completedIndexes") or "")
    failed_indexes, start, completion = changed("failedIndexes"), changed("startTime"), changed("completionTime")
    indexed = spec.get("completionMode") == "Indexed"
    suspended_at_zero = spec.get("suspend") is True and spec.get("completions") == 0
    resuming = _true(old_status, "Suspended") and _false(status, "Suspended")
    return _Options(
        decreasing_succeeded=not indexed or spec.get("completions") != spec.get("parallelism"),
        invalid_completed=completed_indexes, invalid_failed=failed_indexes,
        failed_without_target=failed or failed_indexes,
        complete_without_criteria=complete or condition_changed("SuccessCriteriaMet"),
        finished_with_active=finished or changed("active"),
        finished_without_start=(finished or start) and not suspended_at_zero,
        finished_with_uncounted=finished or changed("uncountedTerminatedPods"),
        start_time_update=start and not resuming,
        completion_before_start=start or completion,
        not_complete_with_completion_time=complete or completion,
        complete_without_completion_time=complete or completion,
        complete_with_failed=complete or failed,
        complete_with_failure_target=complete or condition_changed("FailureTarget"),
        more_ready_than_active=changed("ready") or changed("active"),
        finished_with_terminating=finished or changed("terminating"),
        failed_overlapping=failed_indexes or completed_indexes)


def _uncounted(status: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    uncounted = status.get("uncountedTerminatedPods")
    if not isinstance(uncounted, dict):
        return found
    seen: set[str] = set()
    for key in ("succeeded", "failed"):
        for i, uid in enumerate(uncounted.get(key) or ()):
            path = f"status.uncountedTerminatedPods.{key}[{i}]"
            if not uid:
                found.append(field.invalid_shown(path, field.go_json(uid or ""), "must not be empty"))
            elif uid in seen:
                found.append(field.duplicate_shown(path, field.go_json(uid)))
            else:
                seen.add(uid)
    return found


def _overlap(completed: str, failed: str, completions: int) -> str | None:
    """validateFailedIndexesNotOverlapCompleted: the first index both lists hold."""
    def intervals(text: str) -> list[tuple[int, int]]:
        out = []
        for part in text.split(",") if text else ():
            bounds = part.split("-")
            try:
                first, last = int(bounds[0]), int(bounds[-1])
            except ValueError:
                continue
            if len(bounds) <= 2 and last < completions and first <= last:
                out.append((first, last))
        return out
    for c_first, c_last in intervals(completed):
        for f_first, f_last in intervals(failed):
            if c_first <= f_last and f_first <= c_last:
                return f"failedIndexes and completedIndexes overlap at index: {max(c_first, f_first)}"
    return None


def _status(new: Obj, options: _Options) -> list[FieldError]:
    """validateJobStatus."""
    spec, status = _dict(new.get("spec")), _dict(new.get("status"))
    found: list[FieldError] = []
    for key in ("active", "succeeded", "failed", "ready", "terminating"):
        found += field.nonnegative(f"status.{key}", status.get(key))
    found += _uncounted(status)
    complete, failed, finished = _true(status, "Complete"), _true(status, "Failed"), _finished(status)
    if options.complete_with_failed and complete and failed:
        found.append(_omitted("status.conditions", "cannot set Complete=True and Failed=true conditions"))
    if options.complete_with_failure_target and complete and _true(status, "FailureTarget"):
        found.append(_omitted("status.conditions", "cannot set Complete=True and FailureTarget=true conditions"))
    completion, start = status.get("completionTime"), status.get("startTime")
    if options.not_complete_with_completion_time and completion is not None and not complete:
        found.append(field.invalid_shown("status.completionTime", field.go_json(completion),
                                         "cannot set completionTime when there is no Complete=True condition"))
    if options.complete_without_completion_time and completion is None and complete:
        found.append(field.required("status.completionTime", "completionTime is required for Complete jobs"))
    started, completed_at = _time(start), _time(completion)
    if options.completion_before_start and started and completed_at and completed_at < started:
        found.append(field.invalid_shown("status.completionTime", field.go_json(completion),
                                         "must be equal to or after `startTime`"))
    if options.failed_without_target and failed and not _true(status, "FailureTarget"):
        found.append(_omitted("status.conditions",
                              "cannot set Failed=True condition without the FailureTarget=true condition"))
    if options.complete_without_criteria and complete and not _true(status, "SuccessCriteriaMet"):
        found.append(_omitted("status.conditions",
                              "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
    active = status.get("active") or 0
    if options.finished_with_active and active > 0 and finished:
        found.append(field.invalid("status.active", active, "active>0 is invalid for finished job"))
    if options.finished_without_start and start is None and finished:
        found.append(field.required("status.startTime", "startTime is required for finished job"))
    uncounted = status.get("uncountedTerminatedPods")
    if options.finished_with_uncounted and finished and isinstance(uncounted, dict) and \
            (uncounted.get("failed") or uncounted.get("succeeded")):
        shown = {"Succeeded": uncounted.get("succeeded"), "Failed": uncounted.get("failed")}
        found.append(field.invalid_shown("status.uncountedTerminatedPods", field.go_json(shown),
                                         "must be empty for finished job"))
    completions = spec.get("completions")
    completed_indexes, failed_indexes = status.get("completedIndexes") or "", status.get("failedIndexes")
    if options.invalid_completed and completions is not None:
        parsed = indexes_format(completed_indexes, completions)
        if isinstance(parsed, str):
            found.append(field.invalid("status.completedIndexes", completed_indexes,
                                       f"error parsing completedIndexes: {parsed}"))
    if options.invalid_failed and completions is not None and spec.get("backoffLimitPerIndex") is not None and \
            failed_indexes is not None:
        parsed = indexes_format(failed_indexes, completions)
        if isinstance(parsed, str):
            found.append(field.invalid_shown("status.failedIndexes", field.go_json(failed_indexes),
                                             f"error parsing failedIndexes: {parsed}"))
    indexed = spec.get("completionMode") == "Indexed"
    if options.invalid_completed and completed_indexes and not indexed:
        found.append(field.invalid("status.completedIndexes", completed_indexes,
                                   "cannot set non-empty completedIndexes when non-indexed completion mode"))
    if options.invalid_failed and spec.get("backoffLimitPerIndex") is None and failed_indexes is not None:
        found.append(field.invalid("status.failedIndexes", failed_indexes,
                                   "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
    if options.failed_overlapping and completions is not None and failed_indexes is not None:
        overlap = _overlap(completed_indexes, failed_indexes, completions)
        if overlap is not None:
            found.append(field.invalid("status.failedIndexes", failed_indexes, overlap))
    terminating, ready = status.get("terminating"), status.get("ready")
    if options.finished_with_terminating and isinstance(terminating, int) and terminating > 0 and finished:
        found.append(field.invalid("status.terminating", terminating, "terminating>0 is invalid for finished job"))
    if options.more_ready_than_active and isinstance(ready, int) and ready > active:
        found.append(field.invalid("status.ready", ready, "cannot set more ready pods than active"))
    criteria = _true(status, "SuccessCriteriaMet")
    if criteria and failed:
        found.append(_omitted("status.conditions", "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
    if criteria and _true(status, "FailureTarget"):
        found.append(_omitted("status.conditions",
                              "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
    if spec.get("successPolicy") is not None and not criteria and complete:
        found.append(_omitted("status.conditions",
                              "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
    return found


def job_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    """ValidateJobStatusUpdate (the metadata aside)."""
    options = _options(new, old)
    status, old_status = _dict(new.get("status")), _dict(old.get("status"))
    found = _status(new, options)
    for kind in ("Failed", "Complete", "FailureTarget"):
        if _true(old_status, kind) and not _true(status, kind):
            found.append(_omitted("status.conditions", f"cannot disable the terminal {kind}=True condition"))
    failed, old_failed = status.get("failed") or 0, old_status.get("failed") or 0
    if failed < old_failed:
        found.append(field.invalid("status.failed", failed, "cannot decrease the failed counter"))
    succeeded, old_succeeded = status.get("succeeded") or 0, old_status.get("succeeded") or 0
    if options.decreasing_succeeded and succeeded < old_succeeded:
        found.append(field.invalid("status.succeeded", succeeded, "cannot decrease the succeeded counter"))
    completion, old_completion = status.get("completionTime"), old_status.get("completionTime")
    if completion is not None and old_completion is not None and completion != old_completion:
        found.append(field.invalid_shown("status.completionTime", field.go_json(completion), "field is immutable"))
    start, old_start = status.get("startTime"), old_status.get("startTime")
    if options.start_time_update and old_start is not None and start != old_start and \
            _dict(new.get("spec")).get("suspend") is not True:
        found.append(field.invalid_shown("status.startTime", field.go_json(start),
                                         "field is immutable for unsuspended job once set"))
    if _true(old_status, "SuccessCriteriaMet") and not _true(status, "SuccessCriteriaMet"):
        found.append(_omitted("status.conditions", "cannot disable the SuccessCriteriaMet=True condition"))
    if _true(old_status, "Complete") and not _true(old_status, "SuccessCriteriaMet") and \
            _true(status, "SuccessCriteriaMet"):
        found.append(_omitted("status.conditions",
                              "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
    return found
