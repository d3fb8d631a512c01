"""Go's `regexp.Compile` refusals, worded as Go words them: what a CRD schema's `pattern` and CEL's
`matches()` report for a regular expression that does not parse.

Go's regexp/syntax is a port of RE2's parser, so RE2 (google-re2) finds the same first error in the
same place; only its words differ (`missing )` where Go says `missing closing )`). Go refuses `\\C`
(any byte), which RE2 takes.
"""

from __future__ import annotations

import re
from functools import lru_cache

import re2

# RE2's name of a parse error, and Go's regexp/syntax ErrorCode.
RE2_TO_GO = {"missing )": "missing closing )", "missing ]": "missing closing ]", "unexpected )": "unexpected )",
             "trailing \\": "trailing backslash at end of expression",
             "no argument for repetition operator": "missing argument to repetition operator",
             "missing argument to repetition operator": "missing argument to repetition operator",
             "bad repetition operator": "invalid nested repetition operator",
             "invalid repetition size": "invalid repeat count", "bad repetition count": "invalid repeat count",
             "bad character class range": "invalid character class range",
             "bad character class": "invalid character class", "invalid escape sequence": "invalid escape sequence",
             "invalid perl operator": "invalid or unsupported Perl syntax",
             "invalid named capture group": "invalid named capture", "invalid UTF-8": "invalid UTF-8"}

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


def go_error(code: str, expr: str) -> str:
    """syntax.Error.Error()."""
    return f"error parsing regexp: {code}: `{expr}`"


def _any_byte_escapes(source: str) -> list[int]:
    """Where `\\C` stands outside a class and a `\\Q...\\E` quote (RE2 reads it, Go refuses it)."""
    found: list[int] = []
    i, quoted = 0, False
    while i < len(source) - 1:
        pair = source[i:i + 2]
        if quoted:
            quoted = pair != "\\E"
            i += 2 if not quoted else 1
            continue
        if pair == "\\Q":
            quoted, i = True, i + 2
        elif pair == "\\C":
            found.append(i)
            i += 2
        elif source[i] == "\\":
            i += 2
        elif source[i] == "[":
            i = _class_end(source, i)
        else:
            i += 1
    return found


def _class_end(source: str, start: int) -> int:
    """The index after the bracket class opened at `start` (its first `]` or `^]` is a literal)."""
    i = start + 1
    if source[i:i + 1] == "^":
        i += 1
    if source[i:i + 1] == "]":
        i += 1
    while i < len(source) and source[i] != "]":
        if source.startswith("[:", i):
            close = source.find(":]", i + 2)
            i = close + 2 if close >= 0 else i + 1
        else:
            i += 2 if source[i] == "\\" else 1
    return i + 1


def _re2_error(source: str) -> tuple[str, str] | None:
    """RE2's refusal as (Go's error code, the offending text)."""
    try:
        re2.compile(source, options=_OPTIONS)
    except re2.error as error:
        text = error.args[0].decode() if isinstance(error.args[0], bytes) else str(error.args[0])
        code, _, expr = text.partition(": ")
        return _in_go_words(code, expr, source)
    return None


_LAST_COUNT = re.compile(r"(\{[0-9]+(?:,[0-9]*)?\})\??$")


def _in_go_words(code: str, expr: str, source: str) -> tuple[str, str]:
    """Go's code and offending text for RE2's, where Go's parser notices another error first or shows
    another part of the text."""
    count = _LAST_COUNT.search(expr)
    if code in ("invalid repetition size", "bad repetition operator") and count and _bad_count(count.group(1)):
        # Go checks a count's range before the count's own non-greedy mark or a repetition before it.
        return "invalid repeat count", count.group(1)
    if code == "invalid UTF-8" and not expr and source.endswith("\\x{"):
        return "invalid escape sequence", "\\x{"
    return RE2_TO_GO.get(code, code), expr


def _bad_count(braces: str) -> bool:
    """Whether `{min}`, `{min,}` or `{min,max}` is out of Go's range on its own."""
    low, _, high = braces[1:-1].partition(",")
    least = int(low)
    most = int(high) if high else (least if "," not in braces else -1)
    return least > 1000 or most > 1000 or 0 <= most < least


@lru_cache(maxsize=256)
def compile_error(source: str) -> str | None:
    """regexp.Compile(source)'s error text, or None when Go compiles it."""
    any_byte = _any_byte_escapes(source)
    if not any_byte:
        found = _re2_error(source)
        return go_error(*found) if found else None
    # RE2 is given an escape it refuses as Go refuses `\\C`, one the text does not hold, to put back.
    stand_in = next(e for e in _STAND_INS if e not in source)
    parts = [source[:any_byte[0]]] + [source[at + 2:following] for at, following in
                                      zip(any_byte, [*any_byte[1:], len(source)], strict=True)]
    found = _re2_error(stand_in.join(parts))
    assert found is not None
    return go_error(found[0], found[1].replace(stand_in, "\\C"))


_STAND_INS = ("\\Z", "\\8", "\\9", "\\o", "\\y", "\\g", "\\j", "\\k")
