"""Event validation: pkg/apis/core/validation/events.go, on the stored (core/v1) form of an Event.

Upstream judges an Event by the API version of the request that writes it: core/v1 (and
events.k8s.io/v1beta1) writes get the legacy rules only, for compatibility with old clients;
events.k8s.io/v1 writes get the strict rules too, and their updates may change little beyond the
series. Paths are the internal (core) type's field names, as upstream reports them, but for the
reporting controller, which each version names its own way.

Left out of the strict rules: the second ValidateObjectMeta(Update) upstream runs inside them. The
write path judges the metadata once for every kind, and the same errors would come twice.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_subdomain, qualified_name
from apiserver.registry import field

Obj = dict[str, Any]

CORE_V1 = "v1"
EVENTS_V1 = "events.k8s.io/v1"

_REPORTING_INSTANCE_LIMIT = 128
_ACTION_LIMIT = 128
_REASON_LIMIT = 128
_NOTE_LIMIT = 1024
_ZERO_TIME = re.compile(r"0001-01-01T00:00:00(\.0*)?(Z|[+-]00:00)")
# The internal ObjectReference and EventSource have no json tags: a bad value shows Go's field names.
_REFERENCE_FIELDS = (("Kind", "kind"), ("Namespace", "namespace"), ("Name", "name"), ("UID", "uid"),
                     ("APIVersion", "apiVersion"), ("ResourceVersion", "resourceVersion"),
                     ("FieldPath", "fieldPath"))


def _text(obj: Any, key: str) -> str:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else ""


def _zero_time(value: Any) -> bool:
    return not value or (isinstance(value, str) and _ZERO_TIME.fullmatch(value) is not None)


def _reference_json(ref: Any) -> dict[str, str]:
    ref = ref if isinstance(ref, dict) else {}
    return {go: str(ref.get(key) or "") for go, key in _REFERENCE_FIELDS}


def _source_json(source: Any) -> dict[str, str]:
    source = source if isinstance(source, dict) else {}
    return {"Component": str(source.get("component") or ""), "Host": str(source.get("host") or "")}


def _parsed(value: Any) -> datetime.datetime | None:
    if _zero_time(value) or not isinstance(value, str):
        return None
    try:
        return datetime.datetime.fromisoformat(value).astimezone(datetime.UTC)
    except ValueError:
        return None


def _micro_time_json(value: Any) -> str:
    """metav1.MicroTime as json.Marshal writes it: null when zero, else RFC 3339 with microseconds, UTC."""
    moment = _parsed(value)
    return "null" if moment is None else f'"{moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}"'


def _time_json(value: Any) -> str:
    """metav1.Time as json.Marshal writes it: null when zero, else RFC 3339 in seconds, UTC."""
    moment = _parsed(value)
    return "null" if moment is None else f'"{moment.strftime("%Y-%m-%dT%H:%M:%SZ")}"'


def _legacy(event: Obj, version: str) -> list[FieldError]:
    """legacyValidateEvent: what every Event must be, whichever version writes it."""
    found: list[FieldError] = []
    controller_path = "reportingComponent" if version == CORE_V1 else "reportingController"
    namespace = _text(event.get("metadata"), "namespace")
    involved_namespace = _text(event.get("involvedObject"), "namespace")
    mismatch = field.invalid("involvedObject.namespace", involved_namespace, "does not match event.namespace")
    if _zero_time(event.get("eventTime")):
        # An Event without eventTime is an old client's: its namespace and its object's must agree.
        if not involved_namespace:
            if namespace not in ("", "default"):
                found.append(mismatch)
        elif namespace != involved_namespace:
            found.append(mismatch)
    else:
        if not involved_namespace and namespace not in ("default", "kube-system"):
            found.append(mismatch)
        controller = _text(event, "reportingComponent")
        if not controller:
            found.append(field.required(controller_path))
        found += [field.invalid(controller_path, controller, msg) for msg in qualified_name(controller)]
        for key, limit in (("reportingInstance", _REPORTING_INSTANCE_LIMIT), ("action", _ACTION_LIMIT),
                           ("reason", _REASON_LIMIT)):
            if not _text(event, key):
                found.append(field.required(key))
            if len(_text(event, key)) > limit:
                found.append(field.invalid(key, "", f"can have at most {limit} characters"))
        if len(_text(event, "message")) > _NOTE_LIMIT:
            found.append(field.invalid("message", "", f"can have at most {_NOTE_LIMIT} characters"))
    found += [field.invalid("namespace", namespace, msg) for msg in dns1123_subdomain(namespace)]
    return found


def _series(event: Obj) -> list[FieldError]:
    """validateV1EventSeries."""
    series = event.get("series")
    if not isinstance(series, dict):
        return []
    found: list[FieldError] = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        found.append(field.invalid("series.count", "", "should be at least 2"))
    if _zero_time(series.get("lastObservedTime")):
        found.append(field.required("series.lastObservedTime"))
    return found


def validate_create(event: Obj, version: str) -> list[FieldError]:
    """ValidateEventCreate for a write through `version` (CORE_V1 or EVENTS_V1)."""
    found = _legacy(event, version)
    if version == CORE_V1:
        return found
    found += _series(event)
    if _zero_time(event.get("eventTime")):
        found.append(field.required("eventTime"))
    kind = _text(event, "type")
    if kind not in ("Normal", "Warning"):
        found.append(field.invalid("type", "", f"has invalid value: {kind}"))
    for key in ("firstTimestamp", "lastTimestamp"):
        if not _zero_time(event.get(key)):
            found.append(field.invalid(key, "", "needs to be unset"))
    if event.get("count"):
        found.append(field.invalid("count", "", "needs to be unset"))
    source = event.get("source")
    if _text(source, "component") or _text(source, "host"):
        found.append(field.invalid("source", "", "needs to be unset"))
    return found


def _immutable(path: str, new: Any, old: Any, shown: str) -> list[FieldError]:
    return [] if new == old else [field.invalid_shown(path, shown, "field is immutable")]


def validate_update(new: Obj, old: Obj, version: str) -> list[FieldError]:
    """ValidateEventUpdate for a write through `version` (CORE_V1 or EVENTS_V1)."""
    found = _legacy(new, version)
    if version == CORE_V1:
        return found
    if new.get("series") != old.get("series"):
        found += _series(new)
    new_ref, old_ref = _reference_json(new.get("involvedObject")), _reference_json(old.get("involvedObject"))
    found += _immutable("involvedObject", new_ref, old_ref, field.go_json(new_ref))
    for key in ("reason", "message"):
        found += field.immutable(key, _text(new, key), _text(old, key))
    new_source, old_source = _source_json(new.get("source")), _source_json(old.get("source"))
    found += _immutable("source", new_source, old_source, field.go_json(new_source))
    for key in ("firstTimestamp", "lastTimestamp"):
        shown = _time_json(new.get(key))
        found += _immutable(key, shown, _time_json(old.get(key)), shown)
    found += field.immutable("count", new.get("count") or 0, old.get("count") or 0)
    # Upstream checks the reason twice; the aggregated message shows it once.
    found += field.immutable("reason", _text(new, "reason"), _text(old, "reason"))
    found += field.immutable("type", _text(new, "type"), _text(old, "type"))
    # Changes below a microsecond are tolerated: clients truncate to microseconds when they serialize.
    new_time, old_time = _micro_time_json(new.get("eventTime")), _micro_time_json(old.get("eventTime"))
    found += _immutable("eventTime", new_time, old_time, new_time)
    found += field.immutable("action", _text(new, "action"), _text(old, "action"))
    new_related, old_related = new.get("related"), old.get("related")
    related_shown = "null" if not isinstance(new_related, dict) else field.go_json(_reference_json(new_related))
    old_related_shown = "null" if not isinstance(old_related, dict) else field.go_json(_reference_json(old_related))
    found += _immutable("related", related_shown, old_related_shown, related_shown)
    found += field.immutable("reportingController", _text(new, "reportingComponent"),
                             _text(old, "reportingComponent"))
    return found + field.immutable("reportingInstance", _text(new, "reportingInstance"),
                                   _text(old, "reportingInstance"))
