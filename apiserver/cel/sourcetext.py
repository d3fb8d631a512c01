"""An expression's text read as CEL's lexer reads it, for the rewrites that insert text by position
(apiserver/cel/optionals.py, apiserver/cel/macros.py): where a string literal ends, and which bracket
closes another, with strings and comments passed over."""

from __future__ import annotations

from collections.abc import Iterator


def string_end(source: str, start: int) -> int:
    """The index just past the string literal whose opening quote is at `start`."""
    quote = source[start]
    raw = source[start - 1:start] in ("r", "R") or (source[start - 1:start] in ("b", "B")
                                                     and source[start - 2:start - 1] in ("r", "R"))
    closer = quote * 3 if source.startswith(quote * 3, start) else quote
    at = start + len(closer)
    while at < len(source):
        if not raw and source[at] == "\\":
            at += 2
            continue
        if source.startswith(closer, at):
            return at + len(closer)
        at += 1
    return len(source)


def code(source: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    """The characters of source[start:end] outside string literals and comments, with their index."""
    at = start
    while at < end:
        char = source[at]
        if char in "'\"":
            at = string_end(source, at)
            continue
        if source.startswith("//", at):
            newline = source.find("\n", at)
            at = end if newline < 0 else newline
            continue
        yield at, char
        at += 1


def closing(source: str, opening: int) -> int | None:
    """The index of the bracket that closes the one at `opening`."""
    depth = 0
    for at, char in code(source, opening, len(source)):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return at
    return None
