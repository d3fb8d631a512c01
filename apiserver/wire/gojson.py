"""encoding/json's words for bytes that are not JSON, as kube-apiserver's decoders pass them on.

json.Unmarshal scans the whole input before decoding any of it, so its error names the first byte its
scanner (encoding/json/scanner.go) cannot take, wherever it is, or the input's end when it stops short.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

_SPACE = b" \t\r\n"
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"
_ESCAPES = b'bfnrt\\/"'
_END = "unexpected end of JSON input"
_MAX_DEPTH = 10000


def syntax_error(data: bytes) -> str:
    """encoding/json's message for the first thing it trips over (its end-of-input one for a document
    the scanner takes whole, which the callers, having failed to parse it, do not send)."""
    return _Scanner(data).error() or _END


class _Problem(Exception):
    pass


class _Scanner:
    """scanner.go's state machine: each step reads one byte and names the step for the next."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.stack: list[str] = []  # "key", "value" (of an object), "array"
        self.step: Callable[[int], None] = self._begin_value
        self.at_end = False  # a whole top-level value was read

    def error(self) -> str | None:
        try:
            for byte in self.data:
                self.step(byte)
            if not self.at_end:
                self.step(ord(" "))  # ends a number left open, as the scanner's eof does
        except _Problem as problem:
            return str(problem)
        return None if self.at_end else _END

    def _fail(self, byte: int, context: str) -> None:
        raise _Problem(f"invalid character {_quote_char(byte)} {context}")

    def _begin_value_or_empty(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == ord("]"):
            self._end_value(c)
            return
        self._begin_value(c)

    def _begin_value(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == ord("{"):
            self._push(c, "key")
            self.step = self._begin_string_or_empty
        elif c == ord("["):
            self._push(c, "array")
            self.step = self._begin_value_or_empty
        elif c == ord('"'):
            self.step = self._in_string
        elif c == ord("-"):
            self.step = self._negative
        elif c == ord("0"):
            self.step = self._zero
        elif c in _DIGITS:
            self.step = self._digits
        elif c in b"tfn":
            word = {ord("t"): "true", ord("f"): "false", ord("n"): "null"}[c]
            self.step = self._literal(word, 1)
        else:
            self._fail(c, "looking for beginning of value")

    def _push(self, c: int, kind: str) -> None:
        self.stack.append(kind)
        if len(self.stack) > _MAX_DEPTH:
            self._fail(c, "exceeded max depth")

    def _begin_string_or_empty(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == ord("}"):
            self.stack[-1] = "value"
            self._end_value(c)
            return
        self._begin_string(c)

    def _begin_string(self, c: int) -> None:
        if c in _SPACE:
            return
        if c != ord('"'):
            self._fail(c, "looking for beginning of object key string")
        self.step = self._in_string

    def _end_value(self, c: int) -> None:
        if not self.stack:
            self.at_end = True
            self.step = self._end_top
            self._end_top(c)
            return
        if c in _SPACE:
            self.step = self._end_value
            return
        top = self.stack[-1]
        if top == "key":
            if c != ord(":"):
                self._fail(c, "after object key")
            self.stack[-1] = "value"
            self.step = self._begin_value
        elif top == "value":
            if c == ord(","):
                self.stack[-1] = "key"
                self.step = self._begin_string
            elif c == ord("}"):
                self._pop()
            else:
                self._fail(c, "after object key:value pair")
        elif c == ord(","):
            self.step = self._begin_value
        elif c == ord("]"):
            self._pop()
        else:
            self._fail(c, "after array element")

    def _pop(self) -> None:
        self.stack.pop()
        self.step = self._end_value
        if not self.stack:
            self.at_end = True
            self.step = self._end_top

    def _end_top(self, c: int) -> None:
        if c not in _SPACE:
            self._fail(c, "after top-level value")

    def _in_string(self, c: int) -> None:
        if c == ord('"'):
            self.step = self._end_value
        elif c == ord("\\"):
            self.step = self._in_escape
        elif c < 0x20:
            self._fail(c, "in string literal")

    def _in_escape(self, c: int) -> None:
        if c in _ESCAPES:
            self.step = self._in_string
        elif c == ord("u"):
            self.step = self._hex(4)
        else:
            self._fail(c, "in string escape code")

    def _hex(self, left: int) -> Callable[[int], None]:
        def step(c: int) -> None:
            if c not in _HEX:
                self._fail(c, "in \\u hexadecimal character escape")
            self.step = self._in_string if left == 1 else self._hex(left - 1)
        return step

    def _negative(self, c: int) -> None:
        if c == ord("0"):
            self.step = self._zero
        elif c in _DIGITS:
            self.step = self._digits
        else:
            self._fail(c, "in numeric literal")

    def _digits(self, c: int) -> None:
        if c not in _DIGITS:
            self._zero(c)

    def _zero(self, c: int) -> None:
        if c == ord("."):
            self.step = self._dot
        elif c in b"eE":
            self.step = self._exponent
        else:
            self._end_value(c)

    def _dot(self, c: int) -> None:
        if c not in _DIGITS:
            self._fail(c, "after decimal point in numeric literal")
        self.step = self._fraction

    def _fraction(self, c: int) -> None:
        if c in b"eE":
            self.step = self._exponent
        elif c not in _DIGITS:
            self._end_value(c)

    def _exponent(self, c: int) -> None:
        if c in b"+-":
            self.step = self._exponent_sign
            return
        self._exponent_sign(c)

    def _exponent_sign(self, c: int) -> None:
        if c not in _DIGITS:
            self._fail(c, "in exponent of numeric literal")
        self.step = self._exponent_digits

    def _exponent_digits(self, c: int) -> None:
        if c not in _DIGITS:
            self._end_value(c)

    def _literal(self, word: str, at: int) -> Callable[[int], None]:
        def step(c: int) -> None:
            if c != ord(word[at]):
                self._fail(c, f"in literal {word} (expecting {_quote_char(ord(word[at]))})")
            self.step = self._end_value if at + 1 == len(word) else self._literal(word, at + 1)
        return step


def _quote_char(byte: int) -> str:
    ch = chr(byte)
    if ch == "'":
        return "'\\''"
    if ch == '"':
        return "'\"'"
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
    if ch in escapes:
        return f"'{escapes[ch]}'"
    if byte < 0x20 or byte == 0x7F:
        return f"'\\x{byte:02x}'"
    if byte >= 0x80 and not unicodedata.category(ch).startswith(("L", "M", "N", "P", "S", "Zs")):
        return f"'\\u{byte:04x}'"
    return f"'{ch}'"


def summary(data: bytes, limit: int = 30) -> str:
    """apiserver's summarizeData: an object's first bytes as text, anything else's in hex."""
    if not data:
        return "<empty>"
    shown = data[:limit]
    text = shown.decode("utf-8", "replace") if data[:1] == b"{" else shown.hex()
    return text + " ..." if len(data) > limit else text
