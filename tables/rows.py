"""Table rows computed once per stored version; only the request-time cells are rendered per request.

A printer's Row is turned into its JSON once, split around its `Since` cells, with the embedded
object already in place: `{"cells":[` static cells, ages, static cells `],"conditions":[..],
"object":` object `}`. A request joins the pieces with the ages of its own moment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from columns.base import Printer, Row, Since
from tables.cache import VersionCache
from tables.wire import go_json

# An age cell as a memo key: its render function and epoch.
AgeKey = tuple[Callable[[float | None], str], float | None]
# Ages rendered for one request: many objects share a creation second (bulk creates).
Ages = dict[AgeKey, bytes]


@dataclass(frozen=True, slots=True)
class CompiledRow:
    """A whole row's JSON: `head`, then each age cell followed by the bytes after it."""

    head: bytes
    tail: tuple[tuple[AgeKey, bytes], ...]

    def render(self, out: list[bytes], now: float, ages: Ages) -> None:
        """Appends the row's bytes to `out`, ages as of `now` (one join for a whole list is cheaper)."""
        out.append(self.head)
        for key, piece in self.tail:
            text = ages.get(key)
            if text is None:
                render, epoch = key
                text = ages[key] = go_json(render(None if epoch is None else now - epoch))
            out.append(text)
            out.append(piece)


def compile_row(row: Row, obj: bytes) -> CompiledRow:
    """The row's JSON around its ages, with `obj` (`null`, metadata or the object) embedded."""
    pieces: list[bytes] = []
    ages: list[AgeKey] = []
    text = b'{"cells":['
    run: list[object] = []  # static cells since the last age, encoded together
    for cell in row.cells:
        if isinstance(cell, Since):
            if run:
                text += go_json(run)[1:-1] + b","
                run = []
            pieces.append(text)
            ages.append((cell.render, cell.epoch))
            text = b","
        else:
            run.append(cell)
    if run:
        text += go_json(run)[1:-1]
    elif ages:
        text = b""
    conditions = b',"conditions":' + go_json(row.conditions) if row.conditions else b""
    pieces.append(text + b"]" + conditions + b',"object":' + obj + b"}")
    return CompiledRow(pieces[0], tuple(zip(ages, pieces[1:])))


# Keyed by (variant, stored bytes): the variant names the printer and what is embedded. Each value
# holds its printer, so the printer's id (part of the variant) is not reused while the entry lives.
_ROWS: VersionCache[tuple[Printer, CompiledRow]] = VersionCache()


def variant(printer: Printer, embedding: str) -> str:
    """What, beside the stored bytes, decides a row: the printer and how the object is embedded."""
    return f"{id(printer)}|{embedding}"


def render_rows(out: list[bytes], printer: Printer, row_variant: str, objects: Iterable[bytes],
                embed: Callable[[bytes], bytes], now: float) -> bool:
    """Appends the comma-separated rows of stored `objects` to `out`, ages as of `now`.

    Returns whether the same rows hold for the whole second `now` falls in: every age is rendered
    from whole elapsed seconds (HumanDuration truncates), so it does when each timestamp is a whole
    second not after `now`.
    """
    ages: Ages = {}
    lookup = _ROWS.get
    for index, data in enumerate(objects):
        if index:
            out.append(b",")
        hit = lookup((row_variant, data))
        if hit is None:
            hit = _ROWS.put((row_variant, data), (printer, compile_row(printer.row(data), embed(data))))
        hit[1].render(out, now, ages)
    return all(epoch is None or (epoch % 1 == 0 and epoch <= now) for _, epoch in ages)


def clear_cache() -> None:
    """Forgets every compiled row (benchmarks measure the cold path with it)."""
    _ROWS.clear()
