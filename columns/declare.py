"""How a built-in kind declares its printer: columns once, next to a pure row function.

`printer(columns, view, row)` checks the declaration when the module loads: the row computed
from an empty object must have exactly one cell per column (plus any cells upstream writes past
its declared columns, which the declaration must name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic

import msgspec

from columns.base import ColumnDefinition, Row
from columns.decode import Reader, View, struct_reader

NAME_DESCRIPTION = (
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name automatically. "
    "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
    "updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
CREATED_DESCRIPTION = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It "
    "is not guaranteed to be set in happens-before order across separate operations. Clients may not "
    "set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. "
    "Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
CONTAINERS_DESCRIPTION = "Names of each container in the template."
IMAGES_DESCRIPTION = "Images referenced by each container in the template."


def column(name: str, description: str, type: str = "string", priority: int = 0,
           format: str = "") -> ColumnDefinition:
    return ColumnDefinition(name=name, type=type, format=format, description=description,
                            priority=priority)


def name_column(priority: int = 0) -> ColumnDefinition:
    return column("Name", NAME_DESCRIPTION, format="name", priority=priority)


def age_column() -> ColumnDefinition:
    return column("Age", CREATED_DESCRIPTION)


def template_columns(selector_description: str | None) -> list[ColumnDefinition]:
    """The wide Containers, Images (and Selector) columns of the workload kinds."""
    wide = [column("Containers", CONTAINERS_DESCRIPTION, priority=1),
            column("Images", IMAGES_DESCRIPTION, priority=1)]
    if selector_description is not None:
        wide.append(column("Selector", selector_description, priority=1))
    return wide


class Entry(msgspec.Struct):
    """A list entry that is only counted: its fields are skipped unread."""


class Meta(msgspec.Struct):
    name: str = ""
    creationTimestamp: str | None = None
    deletionTimestamp: str | None = None


class Named(msgspec.Struct):
    """The view of kinds whose columns read nothing but metadata."""

    metadata: Meta = msgspec.field(default_factory=Meta)


class LabeledMeta(Meta):
    labels: dict[str, str] = {}


class AnnotatedMeta(Meta):
    annotations: dict[str, str] = {}


_read_named = struct_reader(Named)


@dataclass
class BuiltinPrinter(Generic[View]):
    """A Printer for a built-in kind: decode the view, then compute the row from it."""

    definitions: list[ColumnDefinition]
    view: type[View]
    cells: Callable[[View], Row]
    reader: Reader[View] = struct_reader
    _decode: Callable[[bytes], View] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._decode = self.reader(self.view)

    def row(self, data: bytes) -> Row:
        try:
            return self.cells(self._decode(data))
        except msgspec.ValidationError:
            # A field stored with another type than the kind declares (the write path does not check
            # every field of every kind) must not fail the whole list: name the object, leave the
            # rest at the empty object's placeholders.
            row = self.cells(self.view())
            try:
                row.cells[0] = _read_named(data).metadata.name
            except msgspec.ValidationError:
                pass
            return row


def printer(definitions: list[ColumnDefinition], view: type[View],
            cells: Callable[[View], Row], undeclared: int = 0) -> BuiltinPrinter[View]:
    """A kind's printer; `undeclared` counts the cells upstream's rows carry beyond their columns."""
    declared = BuiltinPrinter(definitions, view, cells)
    produced = len(cells(view()).cells)
    if produced != len(definitions) + undeclared:
        raise TypeError(f"{cells.__qualname__} gives {produced} cells for {len(definitions)} columns"
                        f" and {undeclared} undeclared")
    return declared
