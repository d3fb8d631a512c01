"""Upstream's default table convertor: Name and "Created At", for kinds without a printer of their own.

kube-apiserver gives it to any resource whose storage declares no columns: the name, and the
creation time as an RFC 3339 timestamp (a fixed string, not an age).
"""

from __future__ import annotations

import datetime
import re

import msgspec

from columns.base import ColumnDefinition, Row, parse_time

NAME_DESCRIPTION = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")
CREATION_TIMESTAMP_DESCRIPTION = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata")

_GO_ZERO_TIME = "0001-01-01T00:00:00Z"  # what Go prints for an unset metav1.Time
# Already as Go's time.RFC3339 prints a UTC time (what the store holds): no need to reformat.
_CANONICAL = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


class _Meta(msgspec.Struct):
    name: str = ""
    creationTimestamp: str | None = None


class _Object(msgspec.Struct):
    metadata: _Meta = msgspec.field(default_factory=_Meta)


_decode = msgspec.json.Decoder(_Object).decode


class DefaultPrinter:
    def __init__(self) -> None:
        self.definitions: list[ColumnDefinition] = [
            {"name": "Name", "type": "string", "format": "name", "description": NAME_DESCRIPTION, "priority": 0},
            {"name": "Created At", "type": "date", "format": "", "description": CREATION_TIMESTAMP_DESCRIPTION,
             "priority": 0},
        ]

    def row(self, data: bytes) -> Row:
        meta = _decode(data).metadata
        created = meta.creationTimestamp
        if created is None or not _CANONICAL.fullmatch(created):
            epoch = parse_time(created)
            created = _GO_ZERO_TIME if epoch is None else datetime.datetime.fromtimestamp(
                epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return Row([meta.name, created])


DEFAULT_PRINTER = DefaultPrinter()
