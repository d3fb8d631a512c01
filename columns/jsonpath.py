"""kube-apiserver's JSONPath dialect for printer columns, compiled once and evaluated per object.

A column path is written the way CRDs write them: `.spec.size`, `.spec.items[0].name`,
`.metadata.labels['app.kubernetes.io/name']`, `.metadata.annotations.example\\.com/x`,
`.status.conditions[?(@.type=="Ready")].status`, `[*]`, `[1:3]`, `..name`. No leading `$` is needed
(one is allowed). Only the first match counts, as in the CRD table convertor.

Paths made only of keys and indexes (nearly all of them) compile to a plain walk over the decoded
object; the rest are translated to jsonpath-ng's extended syntax and evaluated by it. Either way a
missing key, an index out of range or a step into the wrong type yields MISSING, never an error:
upstream answers those with an empty cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from jsonpath_ng import DatumInContext  # type: ignore[import-untyped]
from jsonpath_ng.exceptions import JsonPathLexerError, JsonPathParserError  # type: ignore[import-untyped]
from jsonpath_ng.ext import parse as ng_parse  # type: ignore[import-untyped]
from jsonpath_ng.jsonpath import Index, Slice  # type: ignore[import-untyped]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class InvalidPath(ValueError):
    """The expression is not in the dialect; the message says where."""


@dataclass(frozen=True, slots=True)
class Field:
    name: str


@dataclass(frozen=True, slots=True)
class Position:
    index: int


@dataclass(frozen=True, slots=True)
class Complex:
    """A step only jsonpath-ng evaluates, kept as jsonpath-ng source text."""

    source: str


Step = Field | Position | Complex

_INDEX = re.compile(r"-?\d+")
_SLICE = re.compile(r"(-?\d*):(-?\d*)(?::(-?\d*))?")
_IDENT_END = frozenset(".[]() ,'\"=!<>@$")


def parse_steps(expression: str) -> list[Step]:
    """The steps of a column path, checked against the dialect."""
    text = expression.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    text = text.removeprefix("$")
    steps: list[Step] = []
    i = 0
    while i < len(text):
        char = text[i]
        if text.startswith("..", i):
            name, i = _identifier(text, i + 2, expression)
            steps.append(Complex(".." + _ng_name(name)))
        elif char == ".":
            if text.startswith(".*", i):
                steps.append(Complex(".*"))
                i += 2
                continue
            name, i = _identifier(text, i + 1, expression)
            steps.append(Field(name))
        elif char == "[":
            end = _closing_bracket(text, i, expression)
            steps.append(_bracket(text[i + 1:end].strip(), expression))
            i = end + 1
        else:
            raise InvalidPath(f"unrecognized character {char!r} at {i} in {expression!r}")
    return steps


def _identifier(text: str, start: int, expression: str) -> tuple[str, int]:
    out = []
    i = start
    while i < len(text) and text[i] not in _IDENT_END:
        if text[i] == "\\" and i + 1 < len(text):
            i += 1  # `\.` keeps a dot inside a key (example\.com/x)
        out.append(text[i])
        i += 1
    if not out:
        raise InvalidPath(f"missing key name at {start} in {expression!r}")
    return "".join(out), i


def _closing_bracket(text: str, start: int, expression: str) -> int:
    depth = 0
    quote = ""
    for i in range(start, len(text)):
        char = text[i]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return i
    raise InvalidPath(f"unclosed '[' at {start} in {expression!r}")


def _bracket(inner: str, expression: str) -> Step:
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        return Field(inner[1:-1])
    if _INDEX.fullmatch(inner):
        return Position(int(inner))
    if inner == "*":
        return Complex("[*]")
    if _SLICE.fullmatch(inner):
        return Complex(f"[{inner}]")
    if inner.startswith("?(") and inner.endswith(")"):
        return Complex(f"[{inner}]")
    raise InvalidPath(f"unsupported selector [{inner}] in {expression!r}")


def _ng_name(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ng_source(steps: list[Step]) -> str:
    """The jsonpath-ng (extended) expression equivalent to the steps."""
    parts = ["$"]
    for step in steps:
        if isinstance(step, Field):
            parts.append(f"[{_ng_name(step.name)}]")
        elif isinstance(step, Position):
            parts.append(f"[{step.index}]")
        else:
            parts.append(step.source)
    return "".join(parts)


class KeyWalk:
    """Keys and indexes only: a loop over the decoded object (about 15 times faster than jsonpath-ng)."""

    __slots__ = ("steps",)

    def __init__(self, steps: list[Field | Position]) -> None:
        self.steps = tuple(s.name if isinstance(s, Field) else s.index for s in steps)

    def first(self, obj: Any) -> Any:
        value = obj
        for step in self.steps:
            if isinstance(step, str):
                if type(value) is not dict:
                    return MISSING
                value = value.get(step, MISSING)
                if value is MISSING:
                    return MISSING
            else:
                if type(value) is not list:
                    return MISSING
                index = step + len(value) if step < 0 else step
                if not 0 <= index < len(value):
                    return MISSING
                value = value[index]
        return value


class NgPath:
    """Filters, wildcards, slices and recursive descent, evaluated by jsonpath-ng."""

    __slots__ = ("_compiled",)

    def __init__(self, steps: list[Step]) -> None:
        source = ng_source(steps)
        try:
            self._compiled = ng_parse(source)
        except (JsonPathLexerError, JsonPathParserError) as exc:
            raise InvalidPath(f"{source}: {exc}") from None

    def first(self, obj: Any) -> Any:
        try:
            matches = self._compiled.find(obj)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            return MISSING  # jsonpath-ng raises where upstream reports a missing value
        for match in matches:
            if _indexes_an_array(match):
                return match.value
        return MISSING


def _indexes_an_array(match: DatumInContext) -> bool:
    # jsonpath-ng indexes strings and treats a map as a one-element list; upstream indexes arrays only.
    if isinstance(match.path, (Index, Slice)):
        return match.context is not None and isinstance(match.context.value, list)
    return True


Path = KeyWalk | NgPath


def compile_path(expression: str) -> Path:
    """The evaluator for one column path; raises InvalidPath outside the dialect."""
    steps = parse_steps(expression)
    simple = [s for s in steps if not isinstance(s, Complex)]
    if len(simple) == len(steps):
        return KeyWalk(simple)
    return NgPath(steps)
