"""Library calls that answer an optional, made to run on cel-expr-python, which cannot return one from
Python nor declare a function's result optional to its type checker (an optional result type is
taken as `dyn`).

Such a function is declared to answer a message that carries the value in one field, and every call
of it in the expression's text is followed by a presence-testing select of that field, which CEL itself
turns into an optional: `format.dns1123Label().validate(s)` runs (and is type-checked, for its output
type and cost) as `format.dns1123Label().validate(s).?errors`, where `validate` answers a
`kubernetes.FormatErrors` whose `errors` are set only when there are some. So `.hasValue()`, `.value()`,
`.orValue()`, `== optional.none()` and `.?` answer as upstream's, on the types upstream's checker
infers. Only suffixes are inserted, found from the parsed expression (each call's position is its
opening parenthesis), so errors in the text as written are reported where they are written, against
the functions as upstream declares them (apiserver/cel/environment.py checks that first).
"""

from __future__ import annotations

from apiserver.cel import checkedexpr, sourcetext
from apiserver.cel.checkedexpr import Expr

# Words whose absence from an expression's text means it has nothing to rewrite.
MARKERS = ("validate", "named")


def _suffix(e: Expr) -> str | None:
    """The select that makes this call's carrier an optional, for the library calls that answer one."""
    if e.kind != "call" or e.target is None or len(e.args) != 1:
        return None
    if e.name == "validate":
        return ".?errors"
    if e.name == "named" and e.target.kind == "ident" and e.target.name == "format":
        return ".?format"
    return None


def rewrite(source: str, parsed: bytes) -> str | None:
    """`source` with each optional-answering library call followed by its select, from `parsed` (a
    serialized google.protobuf.Any holding its cel.expr.ParsedExpr); None when it has none."""
    root, offsets = checkedexpr.parsed_with_positions(parsed)
    inserts: list[tuple[int, str]] = []
    for call in checkedexpr.walk(root):
        suffix = _suffix(call)
        opening = offsets.get(call.id)
        if suffix is None or opening is None or source[opening:opening + 1] != "(":
            continue
        closing = sourcetext.closing(source, opening)
        if closing is not None:
            inserts.append((closing + 1, suffix))
    if not inserts:
        return None
    for at, suffix in sorted(inserts, reverse=True):
        source = source[:at] + suffix + source[at:]
    return source
