"""`substring` run as cel-go's strings extension runs it, so that its errors are in cel-go's words:
cel-cpp refuses an index out of range without naming it ("<start> is less than 0"), where cel-go says
"index out of range: -1" and "invalid substring range. start: 3, end: 1".

Each `substring` member call in the text that is run is renamed to `__substring__`, declared here with
upstream's two signatures; the text as written is what is type-checked and costed, against the
extension's own `substring`. Indices count runes, as Go's []rune(s) does.
"""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from apiserver.cel import checkedexpr

MARKER = "substring"
RUN_AS = "__substring__"


def _substring(text: str, start: int, end: int | None = None) -> str:
    if end is None:
        if start < 0 or start > len(text):
            raise ValueError(f"index out of range: {start}")
        return text[start:]
    if start > end:
        raise ValueError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(text):
        raise ValueError(f"index out of range: {start}")
    if end < 0 or end > len(text):
        raise ValueError(f"index out of range: {end}")
    return text[start:end]


def declaration() -> Any:
    return cel.CelExtension("k8s_substring", [cel.FunctionDecl(RUN_AS, [
        cel.Overload("string_substring_int", cel.Type.STRING, [cel.Type.STRING, cel.Type.INT], is_member=True,
                     impl=_substring),
        cel.Overload("string_substring_int_int", cel.Type.STRING, [cel.Type.STRING, cel.Type.INT, cel.Type.INT],
                     is_member=True, impl=_substring)])])


def rewrite(source: str, parsed: bytes) -> str | None:
    """`source` with each `substring` member call renamed, from `parsed` (a serialized
    google.protobuf.Any holding its cel.expr.ParsedExpr); None when it has none."""
    root, positions = checkedexpr.parsed_with_positions(parsed)
    names: list[int] = []
    for call in checkedexpr.walk(root):
        opening = positions.get(call.id)
        if call.kind != "call" or call.name != MARKER or call.target is None or opening is None:
            continue
        name_end = len(source[:opening].rstrip())
        if source[name_end - len(MARKER):name_end] == MARKER:
            names.append(name_end - len(MARKER))
    for at in sorted(names, reverse=True):
        source = source[:at] + RUN_AS + source[at + len(MARKER):]
    return source if names else None
