"""The hot reads, get and list of a resource, served as plain ASGI in front of the Starlette app.

Starlette's routing, its two exception middlewares and its Request and URL objects cost more than
answering a small get. A GET of a resource path that is not a watch is answered here, through the
same steps as `app._serve` (authenticate, `resolve`, the Endpoint, `encoded`); everything else, and
any path this module would have to read differently than Starlette does, goes on to the app.
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable, MutableMapping

from starlette.datastructures import QueryParams

from apiserver import errors
from apiserver.errors import ApiError
from apiserver.http import requestinfo
from apiserver.http.app import ServerState, encoded_parts, error_parts, resolve, user_of
from apiserver.reply import Reply

log = logging.getLogger("apiserver.http")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_RESOURCE_PREFIXES = ("/api/", "/apis/")
_QUERIES_KEPT = 1024
# Each body message is its own TLS record and write: below this, one copy costs less than more of them.
_JOIN_BELOW = 256 * 1024


class _Queries(dict[bytes, QueryParams]):
    """Parsed query strings by their bytes: the same lists are asked for again and again."""

    def parsed(self, raw: bytes) -> QueryParams:
        query = self.get(raw)
        if query is None:
            if len(self) >= _QUERIES_KEPT:
                self.clear()
            query = self[raw] = QueryParams(raw)
        return query


def _headers(scope: Scope) -> dict[str, str]:
    """Request headers by lower-case name, the first of repeated ones (as Starlette's `get` answers)."""
    out: dict[str, str] = {}
    for name, value in scope["headers"]:
        key = name.decode("latin-1")
        if key not in out:
            out[key] = value.decode("latin-1")
    return out


def _reads_here(scope: Scope) -> bool:
    # Starlette reads the path back out of a URL it builds, so a decoded "?", "#", space or control
    # character could read differently there: such paths are left to it.
    if scope["type"] != "http" or scope["method"] != "GET" or scope.get("root_path"):
        return False
    path: str = scope["path"]
    return (path.startswith(_RESOURCE_PREFIXES) and path.isprintable() and " " not in path and "?" not in path
            and "#" not in path)


async def _send(send: Send, status: int, body: bytes | list[bytes], content_type: str,
                headers: dict[str, str]) -> None:
    """The response; a large body in parts goes out part after part, never copied into one."""
    parts = [body] if isinstance(body, bytes) else body
    length = sum(len(part) for part in parts)
    if len(parts) > 1 and length < _JOIN_BELOW:
        parts = [b"".join(parts)]
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    raw.append((b"content-length", str(length).encode("latin-1")))
    raw.append((b"content-type", content_type.encode("latin-1")))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    last = len(parts) - 1
    for index, part in enumerate(parts):
        await send({"type": "http.response.body", "body": part, "more_body": index < last})


class FastReads:
    """`app` with resource gets and lists answered before it is reached."""

    def __init__(self, state: ServerState, app: ASGIApp) -> None:
        self.state = state
        self.app = app
        self._queries = _Queries()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _reads_here(scope):
            return await self.app(scope, receive, send)
        parsed = requestinfo.parse(scope["path"])
        if not isinstance(parsed, requestinfo.ResourcePath):
            return await self.app(scope, receive, send)
        query = self._queries.parsed(scope["query_string"])
        if query.get("watch") in ("1", "true"):
            return await self.app(scope, receive, send)
        headers = _headers(scope)
        try:
            reply, accept_encoding = _read(self.state, parsed, query, headers)
        except ApiError as exc:
            return await _send(send, exc.code, *error_parts(exc, headers.get("accept", "")))
        except Exception:
            log.exception("unhandled error serving GET %s", scope["path"])
            failure = errors.internal("an unexpected error occurred")
            return await _send(send, failure.code, *error_parts(failure, headers.get("accept", "")))
        parts, extra = encoded_parts(reply, accept_encoding)
        await _send(send, reply.status, parts, reply.content_type, extra)


def _read(state: ServerState, parsed: requestinfo.ResourcePath, query: QueryParams,
          headers: dict[str, str]) -> tuple[Reply, str]:
    """The answer to a get or list and the Accept-Encoding it may be compressed for."""
    user = user_of(state, headers.get("authorization", ""))
    if user is None:
        raise errors.unauthorized()
    verb = "get" if parsed.name is not None else "list"
    target, shape = resolve(state, parsed, verb, user, query, headers)
    if target.rt.synthetic:
        reply = state.synthetic.serve(target, verb, shape)
        assert isinstance(reply, Reply)  # only watches stream
        return reply, ""
    accept_encoding = headers.get("accept-encoding", "")
    if verb == "get":
        return state.endpoint.get(target, shape), accept_encoding
    return state.endpoint.list(target, shape), accept_encoding
