"""Indented JSON for people: kube-apiserver's pretty serializer, chosen by its negotiation
(staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go, isPrettyPrint).

An answer is indented when the query's `pretty` says true (as Go's strconv.ParseBool reads it), or,
without one, when the Accept type asks `pretty=1` or the User-Agent is a terminal or a browser (it begins
with curl, Wget or Mozilla/5.0). Only whole JSON answers: watch streams and YAML have no pretty form.
The indenting works on the bytes already encoded, as Go's json.Indent after Marshal, so every token
(escapes, numbers) stays as it was.
"""

from __future__ import annotations

import gzip
import re
from urllib.parse import parse_qs

from starlette.responses import Response

_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_HUMAN_AGENTS = ("curl", "Wget", "Mozilla/5.0")
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^"{}\[\],:\s]+|\s+', re.DOTALL)
_ACCEPT_PRETTY = re.compile(r"application/json\s*;[^,]*\bpretty\s*=\s*1", re.IGNORECASE)


def wanted(query_string: bytes, user_agent: str, accept: str = "") -> bool:
    if b"pretty" in query_string:
        given = parse_qs(query_string.decode("latin-1"), keep_blank_values=True).get("pretty", [""])[0]
        if given:
            return given in _TRUE
    if _ACCEPT_PRETTY.search(accept):
        return True
    return user_agent.startswith(_HUMAN_AGENTS)


def indent(compact: bytes) -> bytes:
    """json.MarshalIndent(obj, "", "  ") of the object these bytes encode."""
    out: list[bytes] = []
    depth = 0
    opened = False  # the last token opened an object or array: its close, if next, stays beside it
    for token in _TOKENS.findall(compact):
        first = token[:1]
        if first in b" \t\r\n":
            continue
        if first in b"}]":
            depth -= 1
            if not opened:
                out.append(b"\n" + b"  " * depth)
            out.append(token)
            opened = False
            continue
        if opened:
            out.append(b"\n" + b"  " * depth)
            opened = False
        if first in b"{[":
            out.append(token)
            depth += 1
            opened = True
        elif first == b",":
            out.append(b",\n" + b"  " * depth)
        elif first == b":":
            out.append(b": ")
        else:
            out.append(token)
    return b"".join(out)


def prettified(response: Response) -> Response:
    """The same answer with its JSON body indented (a gzipped one unpacked and packed again)."""
    if not response.headers.get("content-type", "").startswith("application/json"):
        return response
    body = bytes(response.body)
    packed = response.headers.get("content-encoding") == "gzip"
    if packed:
        body = gzip.decompress(body)
    if not body.lstrip().startswith((b"{", b"[")):
        return response
    body = indent(body)
    if packed:
        body = gzip.compress(body, compresslevel=1)
    response.body = body
    response.headers["content-length"] = str(len(body))
    return response
