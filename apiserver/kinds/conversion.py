"""Serving one stored kind through another group's or version's field names: events.k8s.io/v1 Events,
and autoscaling/v1 HorizontalPodAutoscalers (their conversion is apiserver.kinds.autoscaling's).

Events are stored once, as core/v1 Events (upstream's storage version); events.k8s.io/v1 reads and
writes them through the field renames below, in the order upstream's serializer writes them.
"""

from __future__ import annotations

from typing import Any, Callable

import orjson

from apiserver.kinds import autoscaling
from apiserver.kinds.resources import ResourceType

# events.k8s.io/v1 field -> core/v1 field, in events.k8s.io/v1's field order.
_EVENTS_V1_FIELDS = (
    ("eventTime", "eventTime"),
    ("series", "series"),
    ("reportingController", "reportingComponent"),
    ("reportingInstance", "reportingInstance"),
    ("action", "action"),
    ("reason", "reason"),
    ("regarding", "involvedObject"),
    ("related", "related"),
    ("note", "message"),
    ("type", "type"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
)
# Written even when unset, as Go writes a field without omitempty, or a struct (omitempty never omits one).
_ALWAYS_WRITTEN = frozenset({"eventTime", "deprecatedFirstTimestamp", "deprecatedLastTimestamp"})
_STRUCTS = frozenset({"regarding", "deprecatedSource"})


def core_event_to_events_v1(core: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "Event", "apiVersion": "events.k8s.io/v1", "metadata": core.get("metadata", {})}
    for new_name, core_name in _EVENTS_V1_FIELDS:
        value = core.get(core_name)
        if new_name in _STRUCTS:
            out[new_name] = value if isinstance(value, dict) else {}
        elif value is not None and value != "" and value != 0 or new_name in _ALWAYS_WRITTEN:
            out[new_name] = value
    return out


def events_v1_to_core_event(event: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "Event", "apiVersion": "v1", "metadata": event.get("metadata", {})}
    for new_name, core_name in _EVENTS_V1_FIELDS:
        if new_name in event:
            out[core_name] = event[new_name]
    return out


class Codec:
    """How a resource's stored bytes are read and written; identity for all but converted kinds."""

    def __init__(self, to_served: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                 to_stored: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self._to_served = to_served
        self._to_stored = to_stored

    @property
    def identity(self) -> bool:
        return self._to_served is None

    def served_bytes(self, stored: bytes) -> bytes:
        if self._to_served is None:
            return stored
        return orjson.dumps(self._to_served(orjson.loads(stored)))

    def served(self, stored: dict[str, Any]) -> dict[str, Any]:
        return stored if self._to_served is None else self._to_served(stored)

    def stored(self, served: dict[str, Any]) -> dict[str, Any]:
        return served if self._to_stored is None else self._to_stored(served)


IDENTITY = Codec()
_EVENTS_V1 = Codec(core_event_to_events_v1, events_v1_to_core_event)
_AUTOSCALING_V1 = Codec(autoscaling.v2_to_v1, autoscaling.v1_to_v2)


# Each version a converted built-in kind is served through, from its stored object.
_VIEWS: dict[tuple[str, str], Callable[[dict[str, Any]], dict[str, Any]]] = {
    ("v1", "Event"): lambda core: core,
    ("events.k8s.io/v1", "Event"): core_event_to_events_v1,
    ("autoscaling/v2", "HorizontalPodAutoscaler"): lambda hpa: hpa,
    ("autoscaling/v1", "HorizontalPodAutoscaler"): autoscaling.v2_to_v1,
}


def converted_views(stored: dict[str, Any]) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """The API versions a stored built-in object is also served through, each with how it reads there;
    empty for a kind served as stored."""
    kind = stored.get("kind")
    if (stored.get("apiVersion"), kind) not in _VIEWS:
        return {}
    return {version: view for (version, view_kind), view in _VIEWS.items() if view_kind == kind}


def codec_for(rt: ResourceType) -> Codec:
    if rt.group == "events.k8s.io" and rt.kind == "Event":
        return _EVENTS_V1
    if rt.group == "autoscaling" and rt.version == "v1":
        return _AUTOSCALING_V1
    if rt.custom is not None and rt.custom.storage_version != rt.version:
        return rt.custom.codec
    return IDENTITY
