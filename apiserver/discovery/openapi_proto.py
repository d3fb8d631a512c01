"""The OpenAPI v2 document in gnostic's protobuf encoding (openapi_v2.Document), which is the only
form kubectl's discovery client asks /openapi/v2 for.

A hand-rolled writer of the protobuf wire format for the few messages the document uses; the field
numbers are those of gnostic's OpenAPIv2.proto.
"""

from __future__ import annotations

import json
from typing import Any

PROTOBUF_TYPE = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _bytes_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _str(number: int, value: str) -> bytes:
    return _bytes_field(number, value.encode()) if value else b""


def _bool(number: int, value: bool) -> bytes:
    return _varint(number << 3) + b"\x01" if value else b""


def _any(value: Any) -> bytes:
    # gnostic keeps extension values as YAML text; JSON is YAML.
    return _str(2, json.dumps(value))


def _named(number: int, name: str, value: bytes) -> bytes:
    return _bytes_field(number, _str(1, name) + _bytes_field(2, value))


def _extensions(number: int, obj: dict[str, Any]) -> bytes:
    return b"".join(_named(number, k, _any(v)) for k, v in obj.items() if k.startswith("x-"))


def schema(s: dict[str, Any]) -> bytes:
    out = _str(1, s.get("$ref", "")) + _str(2, s.get("format", "")) + _str(4, s.get("description", ""))
    out += b"".join(_str(19, r) for r in s.get("required") or ())
    extra = s.get("additionalProperties")
    if isinstance(extra, dict):
        out += _bytes_field(21, _bytes_field(1, schema(extra)))
    kinds = s.get("type")
    if kinds:
        out += _bytes_field(22, b"".join(_str(1, k) for k in ([kinds] if isinstance(kinds, str) else kinds)))
    if isinstance(s.get("items"), dict):
        out += _bytes_field(23, _bytes_field(1, schema(s["items"])))
    if s.get("properties"):
        out += _bytes_field(25, b"".join(_named(1, k, schema(v)) for k, v in s["properties"].items()))
    return out + _extensions(31, s)


def _operation(op: dict[str, Any]) -> bytes:
    out = b"".join(_str(1, t) for t in op.get("tags") or ()) + _str(5, op.get("operationId", ""))
    for param in op.get("parameters") or ():
        query = (_str(2, param["in"]) + _str(3, param.get("description", "")) + _str(4, param["name"])
                 + _str(6, param.get("type", "")))
        out += _bytes_field(8, _bytes_field(1, _bytes_field(2, _bytes_field(3, query))))
    responses = b"".join(_named(1, code, _bytes_field(1, _str(1, r.get("description", ""))))
                         for code, r in (op.get("responses") or {}).items())
    out += _bytes_field(9, responses)
    return out + _extensions(13, op)


_METHOD_FIELDS = {"get": 2, "put": 3, "post": 4, "delete": 5, "patch": 8}


def document(doc: dict[str, Any]) -> bytes:
    info = doc.get("info") or {}
    out = _str(1, doc.get("swagger", "")) + _bytes_field(2, _str(1, info.get("title", "")) +
                                                            _str(2, info.get("version", "")))
    paths = b"".join(
        _named(2, path, b"".join(_bytes_field(_METHOD_FIELDS[m], _operation(op)) for m, op in item.items()
                                 if m in _METHOD_FIELDS))
        for path, item in (doc.get("paths") or {}).items())
    out += _bytes_field(8, paths)
    out += _bytes_field(9, b"".join(_named(1, k, schema(v)) for k, v in (doc.get("definitions") or {}).items()))
    return out
