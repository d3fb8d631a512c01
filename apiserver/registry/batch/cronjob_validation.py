"""CronJob validation: ValidateCronJobCreate, ValidateCronJobUpdate and ValidateJobTemplateSpec of
pkg/apis/batch/validation/validation.go, with the schedule judged as robfig/cron/v3's ParseStandard
judges it (vendor/github.com/robfig/cron/v3/parser.go), whose messages the reference shows.
"""

from __future__ import annotations

import re
import zoneinfo
from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.apps.validation import as_dict
from apiserver.registry.batch.validation import job_spec_fields

Obj = dict[str, Any]

_CONCURRENCY = ("Allow", "Forbid", "Replace")
_NAME_LIMIT = 52  # DNS-1035 labels' 63, less the 11 characters of the jobs' generated suffix
_DESCRIPTORS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_MONTHS = {name: i + 1 for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_DAYS = {name: i for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# minute, hour, day of month, month, day of week: (min, max, names)
_BOUNDS: tuple[tuple[int, int, dict[str, int]], ...] = (
    (0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, _MONTHS), (0, 6, _DAYS))
_TIME_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")
_DURATION = re.compile(r"([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+|0")


def _atoi(text: str) -> int | str:
    """strconv.Atoi, or its error's text."""
    if re.fullmatch(r"[+-]?[0-9]+", text):
        value = int(text)
        if -(2**63) <= value < 2**63:
            return value
        return f"strconv.Atoi: parsing {field.go_quote(text)}: value out of range"
    return f"strconv.Atoi: parsing {field.go_quote(text)}: invalid syntax"


def _number(text: str, names: dict[str, int]) -> int | str:
    """parseIntOrName and mustParseInt."""
    if text.lower() in names:
        return names[text.lower()]
    value = _atoi(text)
    if isinstance(value, str):
        return f"failed to parse int from {text}: {value}"
    if value < 0:
        return f"negative number ({value}) not allowed: {text}"
    return value


def _range_error(expr: str, low: int, high: int, names: dict[str, int]) -> str | None:
    """getRange: what is wrong with one comma-separated part of a field."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    if low_and_high[0] in ("*", "?"):
        start, end = low, high
    else:
        first = _number(low_and_high[0], names)
        if isinstance(first, str):
            return first
        start = end = first
        if len(low_and_high) == 2:
            last = _number(low_and_high[1], names)
            if isinstance(last, str):
                return last
            end = last
        elif len(low_and_high) > 2:
            return f"too many hyphens: {expr}"
    step = 1
    if len(range_and_step) == 2:
        parsed = _number(range_and_step[1], {})
        if isinstance(parsed, str):
            return parsed
        step = parsed
        if len(low_and_high) == 1:
            end = high  # "N/step" means from N to the end
    elif len(range_and_step) > 2:
        return f"too many slashes: {expr}"
    if start < low:
        return f"beginning of range ({start}) below minimum ({low}): {expr}"
    if end > high:
        return f"end of range ({end}) above maximum ({high}): {expr}"
    if start > end:
        return f"beginning of range ({start}) beyond end of range ({end}): {expr}"
    if step == 0:
        return f"step of range should be a positive number: {expr}"
    return None


def _load_location(name: str) -> str | None:
    """time.LoadLocation's complaint, None when the zone exists."""
    if name in ("", "UTC", "Local"):
        return None
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return f"unknown time zone {name}"
    return None


def schedule_error(spec: str) -> str | None:
    """cron.ParseStandard's error for a schedule (ParseCronScheduleWithPanicRecovery's for a panic)."""
    if not spec:
        return "empty spec string"
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space, equals = spec.find(" "), spec.find("=")
        if space < 0:
            return "invalid schedule format: runtime error: slice bounds out of range [:-1]"
        location = spec[equals + 1:space]
        error = _load_location(location)
        if error is not None:
            return f"provided bad location {location}: {error}"
        spec = spec[space:].strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return None
        if spec.startswith("@every "):
            duration = spec[len("@every "):]
            if _DURATION.fullmatch(duration.lstrip("+-")):
                return None
            return f"failed to parse duration {spec}: time: invalid duration {field.go_quote(duration)}"
        return f"unrecognized descriptor: {spec}"
    fields = spec.split()
    if len(fields) != 5:
        return f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"
    for text, (low, high, names) in zip(fields, _BOUNDS, strict=True):
        for expr in (part for part in text.split(",") if part):
            error = _range_error(expr, low, high, names)
            if error is not None:
                return error
    return None


def _schedule(schedule: str, tz_allowed: bool, time_zone: Any) -> list[FieldError]:
    """validateScheduleFormat."""
    found: list[FieldError] = []
    error = schedule_error(schedule)
    if error is not None:
        found.append(field.invalid("spec.schedule", schedule, error))
    if tz_allowed and "TZ" in schedule and time_zone is not None:
        found.append(field.invalid("spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
    elif not tz_allowed and "TZ" in schedule:
        found.append(field.invalid("spec.schedule", schedule,
                                   "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return found


def _time_zone(zone: Any) -> list[FieldError]:
    """validateTimeZone."""
    if zone is None:
        return []
    path = "spec.timeZone"
    if not zone:
        return [field.invalid(path, zone, "timeZone must be nil or non-empty string")]
    for part in str(zone).split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.fullmatch(part):
            return [field.invalid(path, zone, f"unknown time zone {zone}")]
    found: list[FieldError] = []
    if str(zone).lower() == "local":
        found.append(field.invalid(path, zone,
                                   "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
    error = _load_location(str(zone))
    if error is not None:
        found.append(field.invalid(path, zone, error))
    return found


def _job_template(template: Obj) -> list[FieldError]:
    """ValidateJobTemplateSpec: the job's fields; its selector is the jobs' own to generate."""
    spec = as_dict(template.get("spec"))
    found = job_spec_fields(spec, "spec.jobTemplate.spec")
    selector = spec.get("selector")
    if selector is not None:
        found.append(field.invalid_shown("spec.jobTemplate.spec.selector", field.go_selector(selector),
                                         "`selector` will be auto-generated"))
    if spec.get("manualSelector") is True:
        found.append(field.not_supported("spec.jobTemplate.spec.manualSelector", True, ("nil", "false")))
    return found


def _spec(spec: Obj, old_spec: Obj | None) -> list[FieldError]:
    """validateCronJobSpec."""
    found: list[FieldError] = []
    schedule = str(spec.get("schedule") or "")
    if not schedule:
        found.append(field.required("spec.schedule"))
    else:
        tz_allowed = old_spec is not None and "TZ" in str(old_spec.get("schedule") or "")
        found += _schedule(schedule, tz_allowed, spec.get("timeZone"))
    found += field.nonnegative("spec.startingDeadlineSeconds", spec.get("startingDeadlineSeconds"))
    if old_spec is None or old_spec.get("timeZone") != spec.get("timeZone"):
        found += _time_zone(spec.get("timeZone"))
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        found.append(field.required("spec.concurrencyPolicy"))
    elif policy not in _CONCURRENCY:
        found.append(field.not_supported_shown("spec.concurrencyPolicy", field.go_json(policy), _CONCURRENCY))
    found += _job_template(as_dict(spec.get("jobTemplate")))
    for key in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        found += field.nonnegative(f"spec.{key}", spec.get(key))
    return found


def cron_job(obj: Obj) -> list[FieldError]:
    """ValidateCronJobCreate: the spec, and a name short enough for its jobs' generated names."""
    found = _spec(as_dict(obj.get("spec")), None)
    name = str(as_dict(obj.get("metadata")).get("name") or "")
    if len(name) > _NAME_LIMIT:
        found.append(field.invalid("metadata.name", name, f"must be no more than {_NAME_LIMIT} characters"))
    return found


def cron_job_update(new: Obj, old: Obj) -> list[FieldError]:
    return _spec(as_dict(new.get("spec")), as_dict(old.get("spec")))
