"""Table rows computed once per stored version; only the request-time cells are rendered per request.

A printer's Row is turned into its JSON once, split around its `Since` cells:
`{"cells":[` static cells, ages, static cells `],"conditions":[..],"object":`. A request joins the
pieces with the ages of its own moment and the object it was asked to embed.
"""

from __future__ import annotations

from dataclasses import dataclass

from columns.base import Printer, Row, Since
from tables.cache import VersionCache
from tables.wire import go_json


@dataclass(frozen=True, slots=True)
class CompiledRow:
    """A row's JSON up to its `object` value: `pieces` interleaved with the rendered `since` cells."""

    pieces: tuple[bytes, ...]  # one more than `since`
    since: tuple[Since, ...]

    def render(self, now: float) -> bytes:
        if not self.since:
            return self.pieces[0]
        out = [self.pieces[0]]
        for cell, piece in zip(self.since, self.pieces[1:]):
            out.append(go_json(cell.render(None if cell.epoch is None else now - cell.epoch)))
            out.append(piece)
        return b"".join(out)


def compile_row(row: Row) -> CompiledRow:
    tokens: list[bytes | Since] = [b'{"cells":[']
    for index, cell in enumerate(row.cells):
        if index:
            tokens.append(b",")
        tokens.append(cell if isinstance(cell, Since) else go_json(cell))
    tokens.append(b"]" + (b',"conditions":' + go_json(row.conditions) if row.conditions else b"") + b',"object":')
    pieces: list[bytes] = [b""]
    since: list[Since] = []
    for token in tokens:
        if isinstance(token, Since):
            since.append(token)
            pieces.append(b"")
        else:
            pieces[-1] += token
    return CompiledRow(tuple(pieces), tuple(since))


# Keyed by (id(printer), stored bytes); each value holds its printer, so that id is not reused
# by another printer while the entry lives.
_ROWS: VersionCache[tuple[Printer, CompiledRow]] = VersionCache()


def row_of(printer: Printer, data: bytes) -> CompiledRow:
    """The compiled row of a stored object version, computed by `printer` on first sight."""
    key = (id(printer), data)
    hit = _ROWS.get(key)
    if hit is None:
        hit = _ROWS.put(key, (printer, compile_row(printer.row(data))))
    return hit[1]


def row_json(compiled: CompiledRow, now: float, obj: bytes) -> bytes:
    """One whole row: its cells at `now`, then the embedded object (`null`, metadata or object)."""
    return compiled.render(now) + obj + b"}"


def clear_cache() -> None:
    """Forgets every compiled row (benchmarks measure the cold path with it)."""
    _ROWS.clear()
