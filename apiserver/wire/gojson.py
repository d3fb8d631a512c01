"""encoding/json's words for bytes that are not JSON, as kube-apiserver's decoders pass them on.

Only the first token is judged (what the callers meet: a body or a token that is not JSON at all); a
document that starts well and breaks later is reported as cut short.
"""

from __future__ import annotations

import unicodedata


def syntax_error(data: bytes) -> str:
    """encoding/json's message for the first thing it trips over, for tokens that are not JSON at all."""
    stripped = data.lstrip(b" \t\r\n")
    if not stripped:
        return "unexpected end of JSON input"
    first = stripped[0]
    if chr(first) in '{["-0123456789tfn':
        return "unexpected end of JSON input"
    return f"invalid character {_quote_char(first)} looking for beginning of value"


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
