"""Table rows computed once per stored version; only the request-time cells are rendered per request.

A printer's Row is turned into its JSON once, split around its `Since` cells, with the embedded
object already in place: `{"cells":[` static cells, ages, static cells `],"conditions":[..],
"object":` object `}`. A request joins the pieces with the ages of its own moment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain

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
                embed: Callable[[bytes], bytes], now: float) -> None:
    """Appends the comma-separated rows of stored `objects` to `out`, ages as of `now`."""
    ages: Ages = {}
    lookup = _ROWS.get
    for index, data in enumerate(objects):
        if index:
            out.append(b",")
        hit = lookup((row_variant, data))
        if hit is None:
            hit = _ROWS.put((row_variant, data), (printer, compile_row(printer.row(data), embed(data))))
        hit[1].render(out, now, ages)


@dataclass(frozen=True, slots=True)
class RowsTemplate:
    """The rows of many objects joined once: runs of static bytes with the age cells between them.

    `statics` has one run more than `ages`; a request renders the ages and joins. Every age is
    rendered from whole elapsed seconds (HumanDuration truncates), so the rendering holds for the
    whole second of the request when each timestamp is a whole second not after it (`steady`).
    """

    statics: tuple[bytes, ...]
    ages: tuple[AgeKey, ...]
    whole_seconds: bool  # every timestamp a whole second
    latest: float | None  # the latest timestamp

    @property
    def size(self) -> int:
        return sum(len(run) for run in self.statics) + 64 * len(self.ages)

    def render(self, now: float) -> bytes:
        # Many rows share an age (objects created in the same second): render each distinct one once.
        rendered = {key: go_json(key[0](None if key[1] is None else now - key[1])) for key in set(self.ages)}
        texts = [rendered[key] for key in self.ages]
        return b"".join(chain.from_iterable(zip(self.statics, texts))) + self.statics[-1]

    def steady(self, now: float) -> bool:
        """Whether what `render(now)` gives holds for the whole second `now` falls in."""
        return self.whole_seconds and (self.latest is None or self.latest <= now)


def compile_rows(printer: Printer, row_variant: str, objects: Iterable[bytes],
                 embed: Callable[[bytes], bytes]) -> RowsTemplate:
    """The comma-separated rows of stored `objects` as one template (each row compiled once per version)."""
    statics: list[bytes] = []
    ages: list[AgeKey] = []
    run: list[bytes] = []
    lookup = _ROWS.get
    for index, data in enumerate(objects):
        if index:
            run.append(b",")
        hit = lookup((row_variant, data))
        if hit is None:
            hit = _ROWS.put((row_variant, data), (printer, compile_row(printer.row(data), embed(data))))
        row = hit[1]
        run.append(row.head)
        for key, piece in row.tail:
            statics.append(b"".join(run))
            ages.append(key)
            run = [piece]
    statics.append(b"".join(run))
    epochs = [epoch for _, epoch in ages if epoch is not None]
    return RowsTemplate(tuple(statics), tuple(ages), all(epoch % 1 == 0 for epoch in epochs),
                        max(epochs) if epochs else None)


def clear_cache() -> None:
    """Forgets every compiled row (benchmarks measure the cold path with it)."""
    _ROWS.clear()
