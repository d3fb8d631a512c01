"""Event validation: pkg/apis/core/validation/events.go, whole, on the core/v1 shape of an Event.

Writes through core/v1 (and events.k8s.io/v1beta1) are held only to the legacy rules; events.k8s.io/v1
adds the strict ones (`strict=True`), on the object converted to core's field names.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_subdomain, qualified_name
from apiserver.registry import field, meta

Obj = dict[str, Any]

REPORTING_INSTANCE_LIMIT = 128
ACTION_LIMIT = 128
REASON_LIMIT = 128
NOTE_LIMIT = 1024

# Fields an events.k8s.io/v1 update may not change, in upstream's order (reason is checked twice there).
_IMMUTABLE = ("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count",
              "reason", "type")
_IMMUTABLE_AFTER_TIME = ("action", "related", "reportingComponent", "reportingInstance")


def _unset(value: Any) -> bool:
    return value in (None, "", 0, {}, [])


def legacy_event(event: Obj, core_v1: bool) -> list[FieldError]:
    """legacyValidateEvent: an old-style event (no eventTime) names its namespace consistently; a new-style
    one says who reported what."""
    found: list[FieldError] = []
    namespace = (event.get("metadata") or {}).get("namespace") or ""
    involved = event.get("involvedObject") or {}
    involved_ns = involved.get("namespace") or ""
    controller_path = "reportingComponent" if core_v1 else "reportingController"
    if not event.get("eventTime"):
        if not involved_ns:
            if namespace not in ("", "default"):
                found.append(field.invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
        elif namespace != involved_ns:
            found.append(field.invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
    else:
        if not involved_ns and namespace not in ("default", "kube-system"):
            found.append(field.invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
        controller = event.get("reportingComponent") or ""
        if not controller:
            found.append(field.required(controller_path))
        found += [field.invalid(controller_path, controller, msg) for msg in qualified_name(controller)]
        instance = event.get("reportingInstance") or ""
        if not instance:
            found.append(field.required("reportingInstance"))
        if len(instance) > REPORTING_INSTANCE_LIMIT:
            found.append(field.invalid("reportingInstance", "",
                                       f"can have at most {REPORTING_INSTANCE_LIMIT} characters"))
        action = event.get("action") or ""
        if not action:
            found.append(field.required("action"))
        if len(action) > ACTION_LIMIT:
            found.append(field.invalid("action", "", f"can have at most {ACTION_LIMIT} characters"))
        reason = event.get("reason") or ""
        if not reason:
            found.append(field.required("reason"))
        if len(reason) > REASON_LIMIT:
            found.append(field.invalid("reason", "", f"can have at most {REASON_LIMIT} characters"))
        if len(event.get("message") or "") > NOTE_LIMIT:
            found.append(field.invalid("message", "", f"can have at most {NOTE_LIMIT} characters"))
    found += [field.invalid("namespace", namespace, msg) for msg in dns1123_subdomain(namespace)]
    return found


def _series(event: Obj) -> list[FieldError]:
    series = event.get("series")
    if series is None:
        return []
    found: list[FieldError] = []
    if (series.get("count") or 0) < 2:
        found.append(field.invalid("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        found.append(field.required("series.lastObservedTime"))
    return found


def event_create(event: Obj, strict: bool = False) -> list[FieldError]:
    """ValidateEventCreate; `strict` for events.k8s.io/v1 and newer."""
    found = legacy_event(event, core_v1=not strict)
    if not strict:
        return found
    found += meta.validate(event.get("metadata") or {}, True, meta.subdomain_name)
    found += _series(event)
    if not event.get("eventTime"):
        found.append(field.required("eventTime"))
    kind = event.get("type") or ""
    if kind not in ("Normal", "Warning"):
        found.append(field.invalid("type", "", f"has invalid value: {kind}"))
    for path in ("firstTimestamp", "lastTimestamp", "count"):
        if not _unset(event.get(path)):
            found.append(field.invalid(path, "", "needs to be unset"))
    source = event.get("source") or {}
    if source.get("component") or source.get("host"):
        found.append(field.invalid("source", "", "needs to be unset"))
    return found


def event_update(new: Obj, old: Obj, strict: bool = False) -> list[FieldError]:
    """ValidateEventUpdate; `strict` for events.k8s.io/v1 and newer."""
    found = legacy_event(new, core_v1=not strict)
    if not strict:
        return found
    found += meta.validate_update(new.get("metadata") or {}, old.get("metadata") or {})
    if new.get("series") != old.get("series"):
        found += _series(new)
    for path in _IMMUTABLE:
        found += field.immutable(path, new.get(path), old.get(path))
    # Sub-microsecond changes of eventTime are tolerated: clients truncate it to microseconds.
    if str(new.get("eventTime") or "")[:26] != str(old.get("eventTime") or "")[:26]:
        found += field.immutable("eventTime", new.get("eventTime"), old.get("eventTime"))
    for path in _IMMUTABLE_AFTER_TIME:
        found += field.immutable(path, new.get(path), old.get(path))
    return found


def core_event(event: Obj) -> list[FieldError]:
    return event_create(event)


def core_event_update(new: Obj, old: Obj) -> list[FieldError]:
    return event_update(new, old)
