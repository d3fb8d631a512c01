"""The Event printer, shared by core/v1 and events.k8s.io/v1: both are stored as core/v1 Events.

Last Seen falls back from lastTimestamp to the first sighting (firstTimestamp, else eventTime);
an event series counts and dates itself.
"""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import Meta, column, name_column, printer
from columns.format import epoch, since_epoch


class ObjectReference(msgspec.Struct):
    kind: str = ""
    name: str = ""
    fieldPath: str = ""


class EventSource(msgspec.Struct):
    component: str = ""
    host: str = ""


class EventSeries(msgspec.Struct):
    count: int = 0
    lastObservedTime: str | None = None


class Event(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    involvedObject: ObjectReference = msgspec.field(default_factory=ObjectReference)
    reason: str = ""
    message: str = ""
    type: str = ""
    source: EventSource = msgspec.field(default_factory=EventSource)
    reportingComponent: str = ""
    reportingInstance: str = ""
    firstTimestamp: str | None = None
    lastTimestamp: str | None = None
    eventTime: str | None = None
    count: int = 0
    series: EventSeries | None = None


def event_row(event: Event) -> Row:
    first = epoch(event.firstTimestamp)
    if first is None:
        first = epoch(event.eventTime)
    last = epoch(event.lastTimestamp)
    if last is None:
        last = first
    count = event.count or 1  # singleton events of the new API leave count unset
    if event.series is not None:
        last, count = epoch(event.series.lastObservedTime), event.series.count
    target = event.involvedObject.kind.lower()
    if event.involvedObject.name:
        target += "/" + event.involvedObject.name
    component = event.source.component or event.reportingComponent
    instance = event.source.host or event.reportingInstance
    return Row([since_epoch(last), event.type, event.reason, target, event.involvedObject.fieldPath,
                f"{component}, {instance}" if instance else component, event.message.strip(),
                since_epoch(first), count, event.metadata.name])



_EVENT_TYPE = "Type of this event (Normal, Warning), new types could be added in the future"

EVENTS = printer(
    [column("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
     column("Type", _EVENT_TYPE),
     column("Reason", "This should be a short, machine understandable string that gives the reason for the "
                      "transition into the object's current status."),
     column("Object", "The object that this event is about."),
     column("Subobject", "If referring to a piece of an object instead of an entire object, this string "
                         "should contain a valid JSON/Go field access statement, such as "
                         "desiredState.manifest.containers[2]. For example, if the object reference is to a "
                         "container within a pod, this would take on a value like: \"spec.containers{name}\" "
                         "(where \"name\" refers to the name of the container that triggered the event) or if "
                         "no container name is specified \"spec.containers[2]\" (container with index 2 in this "
                         "pod). This syntax is chosen only to have some well-defined way of referencing a part "
                         "of an object.", priority=1),
     column("Source", "The component reporting this event. Should be a short machine understandable string.",
            priority=1),
     column("Message", "A human-readable description of the status of this operation."),
     column("First Seen", "The time at which the event was first recorded. (Time of server receipt is in "
                          "TypeMeta.)", priority=1),
     column("Count", "The number of times this event has occurred.", priority=1),
     name_column(priority=1)],
    Event,
    event_row,
)


