"""JSON the way kube-apiserver writes it: compact, with `<`, `>`, `&`, U+2028 and U+2029 escaped.

Go's encoding/json escapes those characters inside strings (cells such as "<none>" come out as
"\\u003cnone\\u003e"); orjson does not. They can only occur inside JSON strings, so replacing them
in orjson's output is exact.
"""

from __future__ import annotations

from typing import Any

import orjson

_GO_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
               ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))


def go_escape(out: bytes) -> bytes:
    """orjson output with the characters Go escapes escaped."""
    for raw, escaped in _GO_ESCAPES:
        if raw in out:
            out = out.replace(raw, escaped)
    return out


def go_json(value: Any, option: int = 0) -> bytes:
    """JSON of `value` (compact unless `option` says otherwise), escaped as Go's encoding/json escapes it."""
    return go_escape(orjson.dumps(value, option=option))
