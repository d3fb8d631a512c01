"""cel-go's two-variable comprehension macros and the lists library's `sortBy`, which kube-apiserver's CEL
environment has (ext.TwoVarComprehensions since 1.32, ext.Lists(ext.ListsVersion(3)) since 1.34), on
cel-expr-python.

Two-variable comprehensions are cel-cpp's own: its parser expands `all(i, v, p)`, `exists`, `existsOne`,
`transformList`, `transformMap` and `transformMapEntry` as cel-go's does when the environment's config
names the `two-var-comprehensions` extension, and its runtime runs the comprehensions. Only the
`cel.@mapInsert` the transformMap macros step with has no implementation in cel-expr-python's runtime,
and it cannot be given one in the environment that declares it (the overload exists), so a program is
parsed there and run where `cel.@mapInsert` is this module's; and since a Python step copies the map
both ways on every entry, the text run collects a transformMap's entries as a list first (see
`evaluation_text`). What cel-cpp lacks is cel-go's spelling
`exists_one(i, v, p)`, respelled `existsOne (` (same length, so every position holds), and cel-go's
words when a macro is misused ("argument must be a simple name"), which this module finds first.

`sortBy` is not offered (cel-cpp has it only with its whole lists extension, whose functions collide
with Kubernetes' own in apiserver/cel/library.py), so `T.sortBy(e, key)` is rewritten in the text to
`cel.bind(I, T, I.@indices(I.map(e, key)).map(J, I[J]))`: cel-go's own expansion (a binding of the
target, the keys mapped from it, `@sortByAssociatedKeys`), except that the sort answers the keys' order
and the elements are picked by it, so the checker infers upstream's `list(T)` (cel-expr-python cannot
declare a function generic in T). Errors in the rewritten text are reported where the text as written
has them: each position is mapped back through the edits, and one inside the inserted text is placed
where cel-go places its expansion's (the call's parenthesis).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cel_expr_python import cel

from apiserver.cel import checkedexpr, sourcetext
from apiserver.cel.checkedexpr import Expr
from apiserver.cel.macroruntime import ENTRIES_TO_MAP, PAIRS_TO_MAP, SORT_INDICES, UPSTREAM_SORT

CONFIG = "extensions:\n  - name: two-var-comprehensions\n"
# Words whose absence from an expression's text means it has no macro of this module's.
MARKERS = ("all", "exists", "transform", "sortBy")
SORT_INPUT, SORT_INDEX = "__sortBy_input__", "__sortBy_index__"
_QUANTIFIERS = {"all": (3,), "exists": (3,), "existsOne": (3,), "exists_one": (3,),
                "transformList": (3, 4), "transformMap": (3, 4), "transformMapEntry": (3, 4)}
_ACCUMULATORS = ("__result__", "@result")
_SORT_TARGETS = ("list", "select", "ident", "comprehension", "call")


def config() -> Any:
    return cel.NewEnvConfigFromYaml(CONFIG)


class MacroError(Exception):
    """A macro call cel-go refuses, in its words ("ERROR: <input>:1:19: argument must be a simple name")."""


@dataclass(frozen=True)
class Edit:
    start: int
    end: int  # the span of the text as written that `text` replaces
    text: str
    anchor: int  # where an error inside `text` is reported
    closer: bool = False  # ends an expansion: at the same offset, before what opens another


@dataclass(frozen=True)
class Prepared:
    source: str
    text: str  # what is checked and run
    edits: tuple[Edit, ...]
    rewritten: bool  # whether `text` needs cel.bind and this module's functions (a sortBy)

    def original_offset(self, offset: int) -> tuple[int, bool]:
        """The offset in the text as written of `offset` in `text`, and whether it is in inserted text."""
        delta = 0
        for edit in self.edits:
            start = edit.start + delta
            if offset < start:
                break
            if offset < start + len(edit.text):
                if len(edit.text) == edit.end - edit.start:  # a respelling
                    return offset - delta, False
                return edit.anchor, True
            delta += len(edit.text) - (edit.end - edit.start)
        return offset - delta, False


def _location(source: str, offset: int) -> tuple[int, int, str]:
    """cel-go's line and column (from 1) of an offset, and the line's text."""
    line = source.count("\n", 0, offset) + 1
    start = source.rfind("\n", 0, offset) + 1
    end = source.find("\n", offset)
    return line, offset - start + 1, source[start:end if end >= 0 else len(source)]


def error_text(source: str, offset: int, message: str) -> str:
    line, column, text = _location(source, offset)
    return f"ERROR: <input>:{line}:{column}: {message}\n | {text}\n | {'.' * (column - 1)}^"


def _iteration_errors(call: Expr, positions: dict[int, int]) -> list[tuple[int, str]]:
    """cel-go's extractIterVars."""
    first, second = call.args[0], call.args[1]
    for arg in (first, second):
        if arg.kind != "ident":
            return [(positions.get(arg.id, 0), "argument must be a simple name")]
    if first.name == second.name:
        return [(positions.get(second.id, 0), f"duplicate variable name: {first.name}")]
    for arg in (first, second):
        if arg.name in _ACCUMULATORS:
            return [(positions.get(arg.id, 0), "iteration variable overwrites accumulator variable")]
    return []


def _sort_errors(call: Expr, positions: dict[int, int]) -> list[tuple[int, str]]:
    """cel-go's sortByMacro and parser.MakeMap."""
    assert call.target is not None
    if call.target.kind not in _SORT_TARGETS:
        return [(positions.get(call.target.id, 0),
                 "sortBy can only be applied to a list, identifier, comprehension, call or select expression")]
    variable = call.args[0]
    if variable.kind != "ident":
        return [(positions.get(variable.id, 0), "argument is not an identifier")]
    if variable.name in _ACCUMULATORS:
        return [(positions.get(variable.id, 0), "iteration variable overwrites accumulator variable")]
    return []


def _is_sort(e: Expr) -> bool:
    return e.kind == "call" and e.name == "sortBy" and e.target is not None and len(e.args) == 2


def _is_quantifier(e: Expr) -> bool:
    return e.kind == "call" and e.target is not None and len(e.args) in _QUANTIFIERS.get(e.name, ())


def prepare(source: str, parsed: bytes) -> Prepared | None:
    """The text to check and run for `source`, given its parse without these macros (`parsed`, a serialized
    google.protobuf.Any holding a cel.expr.ParsedExpr); None when it has none of them. Raises MacroError
    for a macro call cel-go refuses."""
    root, positions = checkedexpr.parsed_with_positions(parsed)
    # A text naming cel.bind (which upstream's environment lacks) is not rewritten with it: checked as
    # written, it is refused.
    binds = any(e.kind == "call" and e.name == "bind" and e.target is not None and e.target.kind == "ident"
                and e.target.name == "cel" for e in checkedexpr.walk(root))
    errors: list[tuple[int, str]] = []
    edits: list[Edit] = []
    for e in checkedexpr.walk(root):
        if _is_quantifier(e):
            errors += _iteration_errors(e, positions)
            if e.name == "exists_one" and not errors:
                opening = positions.get(e.id, -1)
                if source[opening - len("exists_one"):opening] == "exists_one":
                    edits.append(Edit(opening - len("exists_one"), opening, "existsOne ", opening))
        elif _is_sort(e):
            found = _sort_errors(e, positions)
            errors += found
            if not found and not binds:
                edits += _sort_edits(source, e, positions)
    if errors:
        raise MacroError("\n".join(error_text(source, at, message) for at, message in sorted(errors)))
    if not edits and not any(_is_quantifier(e) for e in checkedexpr.walk(root)):
        return None
    # Stable: an outer call's opening before an inner one's at the same offset.
    edits.sort(key=lambda edit: (edit.start, not edit.closer))
    text, at = [], 0
    for edit in edits:
        text += [source[at:edit.start], edit.text]
        at = edit.end
    text.append(source[at:])
    return Prepared(source, "".join(text), tuple(edits), any(edit.closer for edit in edits))


def _sort_edits(source: str, call: Expr, positions: dict[int, int]) -> list[Edit]:
    assert call.target is not None
    opening = positions.get(call.id, -1)
    closing = sourcetext.closing(source, opening)
    dot = source.rfind(".", 0, opening)
    start = _start(source, call.target, positions, dot)
    if closing is None or dot < 0 or start is None or source[dot + 1:opening].strip() != "sortBy":
        return []
    return [Edit(start, start, f"cel.bind({SORT_INPUT}, ", opening),
            Edit(dot, opening + 1, f", {SORT_INPUT}.{SORT_INDICES}({SORT_INPUT}.map(", opening),
            Edit(closing + 1, closing + 1, f").map({SORT_INDEX}, {SORT_INPUT}[{SORT_INDEX}]))", opening, True)]


def _start(source: str, target: Expr, positions: dict[int, int], end: int) -> int | None:
    """Where the target's text begins: its leftmost node (a global call's name before its parenthesis),
    then back over the parentheses its text leaves open."""
    starts = []
    for e in checkedexpr.walk(target):
        if e.id in positions:
            at = positions[e.id]
            if e.kind == "call" and e.target is None and source[at:at + 1] == "(":
                at -= len(e.name)
            starts.append(at)
    if not starts:
        return None
    start = min(starts)
    depth = 0
    for _, char in sourcetext.code(source, start, end):
        depth += {"(": -1, ")": 1}.get(char, 0)
    while depth > 0:
        start = source.rfind("(", 0, start)
        if start < 0:
            return None
        depth -= 1
    return start


_ERROR = re.compile(r"^ERROR: <input>:(\d+):(\d+): (.*)$")
_CONDITIONAL = re.compile(r"^(found no matching overload for '_\?_:_' applied to )'\((.*)\)'$")
_ACCUMULATOR_TYPE = re.compile(r"^\w+\(T%\d+(?:, T%\d+)?\)$")
_ERROR_RANGE = "expression of type '*error*' cannot be the range of a comprehension"


def _words(message: str, inserted: bool) -> str | None:
    """cel-go's words for an error found in the rewritten text; None for one that only follows from an
    error already reported (the elements picked from an unsortable list)."""
    if inserted and message.startswith(_ERROR_RANGE):
        return None
    # A filtered transform's untaken branch is the accumulator, which cel-go types as the taken one.
    if (found := _CONDITIONAL.match(message)) is not None:
        types = _split(found.group(2))
        if len(types) == 3 and _ACCUMULATOR_TYPE.match(types[2]):
            message = f"{found.group(1)}'({types[0]}, {types[1]}, {types[1]})'"
    return message.replace(f"'{SORT_INDICES}'", f"'{UPSTREAM_SORT}'")


def _split(types: str) -> list[str]:
    """A message's comma-separated types, split where no parenthesis is open."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(types):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(types[start:i].strip())
            start = i + 1
    return [*parts, types[start:].strip()]


def restore_positions(message: str, prepared: Prepared) -> str:
    """A checker's message on `prepared.text` as cel-go gives it on the text as written."""
    lines = message.split("\n")
    out: list[str] = []
    text_lines = prepared.text.split("\n")
    i = 0
    while i < len(lines):
        found = _ERROR.match(lines[i])
        if found is None:
            out.append(lines[i])
            i += 1
            continue
        row, column = int(found.group(1)), int(found.group(2))
        offset = sum(len(line) + 1 for line in text_lines[:row - 1]) + column - 1
        original, inserted = prepared.original_offset(offset)
        words = _words(found.group(3), inserted)
        if words is not None:
            out += error_text(prepared.source, original, words).split("\n")
        i += 1
        while i < len(lines) and lines[i].startswith(" | "):
            i += 1  # the rewritten text's line and caret, replaced above
    return "\n".join(out)


def evaluation_text(text: str, parsed: bytes) -> str | None:
    """`text` (checked already) as it is best run: each transformMap collected as a list of key-value
    pairs and each transformMapEntry as a list of maps, made a map once by this module's functions,
    instead of stepping `cel.@mapInsert`, which copies the map into Python and back on every entry (8x
    slower over 50 entries, benches/micro/test_cel_bench.py). A duplicate key is still refused with
    cel-go's message, once the list is complete. None when there is nothing to change."""
    root, positions = checkedexpr.parsed_with_positions(parsed)
    # (offset, rank, end, text), ranked at one offset: what closes an inner call, then an outer one, then
    # what opens an outer one, then an inner one (calls are met outer first).
    edits: list[tuple[int, tuple[int, int], int, str]] = []
    for order, e in enumerate(checkedexpr.walk(root)):
        if not (_is_quantifier(e) and e.name in ("transformMap", "transformMapEntry")):
            continue
        assert e.target is not None
        opening = positions.get(e.id, -1)
        closing = sourcetext.closing(text, opening)
        named = opening - len(e.name)
        start = _start(text, e.target, positions, named)
        last = _start(text, e.args[-1], positions, closing) if closing is not None else None
        if closing is None or start is None or last is None or text[named:opening] != e.name:
            return None
        opens, closes = (1, order), (0, -order)
        collect = PAIRS_TO_MAP if e.name == "transformMap" else ENTRIES_TO_MAP
        edits += [(start, opens, start, f"{collect}("), (named, opens, opening, "transformList"),
                  (closing + 1, closes, closing + 1, ")")]
        if e.name == "transformMap":
            edits += [(last, opens, last, f"[{e.args[0].name}, "), (closing, closes, closing, "]")]
    if not edits:
        return None
    out, at = [], 0
    for offset, _, end, insert in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        out += [text[at:offset], insert]
        at = end
    out.append(text[at:])
    return "".join(out)
