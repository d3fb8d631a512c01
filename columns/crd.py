"""The Table columns of a custom resource: a CRD version's additionalPrinterColumns, through JSONPath.

NAME comes first, then each declared column in order (priority and format kept). A version that
declares none gets the default Age column. Every path is compiled once per CRD version. Cells follow
the CRD table convertor: the first match only; a missing value or one of the wrong type is null;
string columns print what they find (maps and arrays as compact JSON with sorted keys, an explicit
null as `<no value>`); date columns are ages rendered at request time, `<invalid>` when the text is
not an RFC 3339 timestamp.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from columns.base import Cell, ColumnDefinition, Row, parse_time
from columns.declare import CREATED_DESCRIPTION, column, name_column
from columns.decode import key_tree, pruned_reader
from columns.format import INVALID, since_epoch
from columns.gofmt import json_text, value_text
from columns.jsonpath import MISSING, Field, Path, compile_path, parse_steps

DEFAULT_COLUMNS: tuple[dict[str, Any], ...] = (
    {"name": "Age", "type": "date", "description": CREATED_DESCRIPTION, "jsonPath": ".metadata.creationTimestamp"},
)
COLUMN_TYPES = ("string", "integer", "number", "boolean", "date")
NO_VALUE = "<no value>"

# What Go's time.Parse accepts for RFC 3339 (fractional seconds allowed, a zone required).
_ZERO_TIME = "0001-01-01T00:00:00"
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def _string_cell(value: Any) -> Cell:
    if value is None:
        # An explicit null reaches client-go's printer as an invalid value, which Go's template
        # printing spells "<no value>"; only a missing field gives an empty cell.
        return NO_VALUE
    if isinstance(value, (dict, list)):
        return json_text(value)
    return value_text(value)


def _integer_cell(value: Any) -> Cell:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)  # Go's int64(f) truncates toward zero, as int() does
    return None


def _number_cell(value: Any) -> Cell:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    # Go writes a float64 holding a whole number without a fraction ("3", not "3.0").
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _boolean_cell(value: Any) -> Cell:
    return value if isinstance(value, bool) else None


def _date_cell(value: Any) -> Cell:
    if not isinstance(value, str):
        return None
    if value in ("", "null"):
        return since_epoch(None)  # upstream reads these as the zero time: <unknown>
    if not _RFC3339.fullmatch(value):
        return INVALID
    if value.startswith(_ZERO_TIME):
        return since_epoch(None)  # Go's zero time reads as no timestamp: <unknown>
    at = parse_time(value)
    return INVALID if at is None else since_epoch(at)


_CELLS: dict[str, Callable[[Any], Cell]] = {
    "string": _string_cell,
    "integer": _integer_cell,
    "number": _number_cell,
    "boolean": _boolean_cell,
    "date": _date_cell,
}


@dataclass(frozen=True, slots=True)
class _Column:
    path: Path
    cell: Callable[[Any], Cell]


def _no_cell(value: Any) -> Cell:
    return None


def _leading_keys(expression: str) -> tuple[str, ...]:
    """The keys a path starts with, up to its first index, filter or wildcard (the part read as a whole)."""
    keys: list[str] = []
    for step in parse_steps(expression):
        if not isinstance(step, Field):
            break
        keys.append(step.name)
    return tuple(keys)


class CrdPrinter:
    """The Printer of one CRD version: objects are decoded only under the keys its paths start with."""

    def __init__(self, columns: list[dict[str, Any]], full_parse: bool = False) -> None:
        self.definitions: list[ColumnDefinition] = [name_column()]
        self._columns: list[_Column] = []
        read: list[tuple[str, ...]] = [("metadata", "name")]
        for declared in columns:
            path = str(declared.get("jsonPath") or "")
            kind = str(declared.get("type") or "")
            description = (declared.get("description")
                           or f"Custom resource definition column (in JSONPath format): {path}")
            self.definitions.append(column(str(declared.get("name") or ""), str(description), type=kind,
                                           priority=int(declared.get("priority") or 0),
                                           format=str(declared.get("format") or "")))
            self._columns.append(_Column(compile_path(path), _CELLS.get(kind, _no_cell)))
            read.append(_leading_keys(path))
        self.key_tree = key_tree(read)  # what of an object the columns read (None: all of it)
        self._read = orjson.loads if full_parse else pruned_reader(self.key_tree)

    def row(self, data: bytes) -> Row:
        obj = self._read(data)
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        cells: list[Cell] = [meta.get("name", "") if isinstance(meta, dict) else ""]
        for compiled in self._columns:
            value = compiled.path.first(obj)
            cells.append(None if value is MISSING else compiled.cell(value))
        return Row(cells)


def crd_printer(version: dict[str, Any]) -> CrdPrinter:
    """The printer of a CRD's spec.versions[i]; raises jsonpath.InvalidPath for a path outside the dialect."""
    columns = version.get("additionalPrinterColumns") or list(DEFAULT_COLUMNS)
    return CrdPrinter(columns)
