"""The Table object: column definitions once, then rows, around the list's metadata.

Field order and nulls follow upstream's `metav1.Table`: `columnDefinitions` is null in watch
events after the first, `rows` is `[]` when empty.
"""

from __future__ import annotations

from typing import Literal

from columns.base import Printer
from tables.cache import VersionCache
from tables.wire import go_json

Include = Literal["None", "Metadata", "Object"]
INCLUDE_VALUES: tuple[Include, ...] = ("None", "Metadata", "Object")

_DEFINITIONS: VersionCache[tuple[Printer, bytes]] = VersionCache(1024)


def definitions_json(printer: Printer) -> bytes:
    """The printer's column definitions as JSON, encoded once per printer."""
    hit = _DEFINITIONS.get(id(printer))
    if hit is None:
        hit = _DEFINITIONS.put(id(printer), (printer, go_json(printer.definitions)))
    return hit[1]


def table_json(api_version: str, metadata: dict[str, object], definitions: bytes | None,
               rows: list[bytes]) -> bytes:
    """A whole Table from the bytes of its comma-separated rows; `definitions` None writes
    `"columnDefinitions":null` (watch events after the first)."""
    return b"".join(table_parts(api_version, metadata, definitions, rows))


def table_parts(api_version: str, metadata: dict[str, object], definitions: bytes | None,
                rows: list[bytes]) -> list[bytes]:
    """`table_json` in pieces: the head, the rows as given, the tail."""
    head = b"".join([b'{"kind":"Table","apiVersion":"', api_version.encode(), b'","metadata":', go_json(metadata),
                     b',"columnDefinitions":', b"null" if definitions is None else definitions, b',"rows":['])
    return [head, *rows, b"]}"]
