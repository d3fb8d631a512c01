"""The printer contract: what a kind's columns are and how a row is computed from stored bytes.

A Printer declares its column definitions once and computes a Row from an object's stored JSON
bytes, always wide (clients hide priority-1 columns). Cells that depend on the time of the request
(ages, "7 (17h ago)", a running job's duration) are `Since` values, so a Row can be computed once
per object version and reused; `render_cells` turns them into text for one request.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, TypedDict, Union


class ColumnDefinition(TypedDict):
    name: str
    type: str
    format: str
    description: str
    priority: int


@dataclass(frozen=True, slots=True)
class Since:
    """A cell rendered at request time from the seconds elapsed since `epoch` (None: no timestamp)."""

    epoch: float | None
    render: Callable[[float | None], str]


Cell = Union[str, int, float, bool, None, Since, dict[str, Any], list[Any]]
RenderedCell = Union[str, int, float, bool, None, dict[str, Any], list[Any]]


@dataclass(frozen=True, slots=True)
class Row:
    cells: list[Cell]
    conditions: list[dict[str, Any]] | None = field(default=None)


class Printer(Protocol):
    definitions: list[ColumnDefinition]

    def row(self, data: bytes) -> Row:
        """Every cell of the object's row, computed from its stored bytes."""


def render_cells(row: Row, now: float) -> list[RenderedCell]:
    """The row's cells as they are written for a request made at `now` (epoch seconds)."""
    out: list[RenderedCell] = []
    for cell in row.cells:
        if isinstance(cell, Since):
            out.append(cell.render(None if cell.epoch is None else now - cell.epoch))
        else:
            out.append(cell)
    return out


def parse_time(value: Any) -> float | None:
    """Epoch seconds of an RFC 3339 timestamp, or None when absent or unparsable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
