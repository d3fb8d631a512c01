"""events.k8s.io/v1's strict Event rules: ValidateEventCreate and ValidateEventUpdate of
pkg/apis/core/validation/events.go for a write through events.k8s.io/v1, on the stored (core/v1) form.

The legacy rules every Event meets are core's (`core/event_validation.py`'s legacy_event); a write
through events.k8s.io/v1 adds these, and its updates may change little beyond the series. Paths are the
internal (core) type's field names, as upstream reports them; a struct that is a bad value shows as the
internal struct's JSON (Go field names).

Left out: the second ValidateObjectMeta(Update) upstream runs inside the strict rules. The write path
judges the metadata once for every kind, and the same errors would come twice.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core.event_validation import legacy_event

Obj = dict[str, Any]

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


def validate_create(event: Obj) -> list[FieldError]:
    """ValidateEventCreate for a write through events.k8s.io/v1."""
    found = legacy_event(event, core_v1=False)
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


def validate_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateEventUpdate for a write through events.k8s.io/v1."""
    found = legacy_event(new, core_v1=False)
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
