"""Table rows computed once per stored version; only the request-time cells are rendered per request.

A printer's Row is turned into its JSON once, split around its `Since` cells, with the embedded
object already in place: `{"cells":[` static cells, ages, static cells `],"conditions":[..],
"object":` object `}`. A request joins the pieces with the ages of its own moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from columns.base import Printer, Row, Since
from tables.cache import VersionCache
from tables.wire import go_json

# Ages rendered for one request: many objects share a creation second (bulk creates).
Ages = dict[tuple[Callable[[float | None], str], float | None], bytes]


@dataclass(frozen=True, slots=True)
class CompiledRow:
    """A whole row's JSON: `pieces` interleaved with the rendered `since` cells."""

    pieces: tuple[bytes, ...]  # one more than `since`
    since: tuple[Since, ...]

    def render(self, now: float, ages: Ages) -> bytes:
        if not self.since:
            return self.pieces[0]
        out = [self.pieces[0]]
        for cell, piece in zip(self.since, self.pieces[1:]):
            key = (cell.render, cell.epoch)
            text = ages.get(key)
            if text is None:
                text = ages[key] = go_json(cell.render(None if cell.epoch is None else now - cell.epoch))
            out.append(text)
            out.append(piece)
        return b"".join(out)


def compile_row(row: Row, obj: bytes) -> CompiledRow:
    """The row's JSON around its ages, with `obj` (`null`, metadata or the object) embedded."""
    pieces: list[bytes] = []
    since: list[Since] = []
    text = b'{"cells":['
    run: list[object] = []  # static cells since the last age, encoded together
    for cell in row.cells:
        if isinstance(cell, Since):
            if run:
                text += go_json(run)[1:-1] + b","
                run = []
            pieces.append(text)
            since.append(cell)
            text = b","
        else:
            run.append(cell)
    if run:
        text += go_json(run)[1:-1]
    elif since:
        text = b""
    conditions = b',"conditions":' + go_json(row.conditions) if row.conditions else b""
    pieces.append(text + b"]" + conditions + b',"object":' + obj + b"}")
    return CompiledRow(tuple(pieces), tuple(since))


# Keyed by (variant, stored bytes): the variant names the printer and what is embedded. Each value
# holds its printer, so the printer's id (part of the variant) is not reused while the entry lives.
_ROWS: VersionCache[tuple[Printer, CompiledRow]] = VersionCache()


def variant(printer: Printer, embedding: str) -> str:
    """What, beside the stored bytes, decides a row: the printer and how the object is embedded."""
    return f"{id(printer)}|{embedding}"


def row_of(printer: Printer, row_variant: str, data: bytes, embed: Callable[[bytes], bytes]) -> CompiledRow:
    """The compiled row of a stored object version, computed on first sight of (variant, data)."""
    key = (row_variant, data)
    hit = _ROWS.get(key)
    if hit is None:
        hit = _ROWS.put(key, (printer, compile_row(printer.row(data), embed(data))))
    return hit[1]


def clear_cache() -> None:
    """Forgets every compiled row (benchmarks measure the cold path with it)."""
    _ROWS.clear()
