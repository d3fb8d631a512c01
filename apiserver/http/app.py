"""The HTTP edge: routes a request to discovery or to a resource verb and writes the answer.

route -> authenticate -> parse the path -> pick the verb -> authorize -> Endpoint -> bytes. Starlette
lives here and nowhere below.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from apiserver import errors, metrics
from apiserver.auth import access
from apiserver.auth.tokens import TokenAuthenticator, User
from apiserver.discovery.documents import AGGREGATED_TYPE, Discovery, wants_aggregated
from apiserver.discovery.openapi import OpenAPI
from apiserver.errors import ApiError
from apiserver.http import requestinfo
from apiserver.http.console import console_routes
from apiserver.http.endpoint import Endpoint, Target
from apiserver.http.limits import Limits, WatchSlots
from apiserver.http.negotiation import error_body, negotiate
from apiserver.http.streaming import WatchResponse
from apiserver.http.synthetic import SyntheticResources
from apiserver.kinds.resources import Registry
from apiserver.reply import Reply, StreamReply
from apiserver.storage.interface import Store

log = logging.getLogger("apiserver.http")

_PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz"})
_NO_CACHE = {"Cache-Control": "no-cache, private"}
_GZIP_THRESHOLD = 128 * 1024


@dataclass
class ServerState:
    registry: Registry
    store: Store
    discovery: Discovery
    endpoint: Endpoint
    synthetic: SyntheticResources
    authenticator: TokenAuthenticator
    limits: Limits
    watch_slots: WatchSlots
    # The loopback-only plain HTTP mode: client-go never sends a bearer token over plain HTTP, so
    # there, like kube-apiserver's old insecure port, a request without credentials is let in.
    # A wrong token is still refused.
    trust_unauthenticated: bool = False
    # The browser console at /console/ (`--console=false` turns it off).
    console: bool = True


def _error_response(exc: ApiError, request: Request) -> Response:
    body, media_type = error_body(exc, request.headers.get("accept", ""))
    return Response(body, status_code=exc.code, media_type=media_type, headers={**_NO_CACHE, **exc.headers})


def _reply_response(reply: Reply | StreamReply, accept_encoding: str = "") -> Response:
    if isinstance(reply, StreamReply):
        return WatchResponse(reply.chunks, reply.closed, reply.content_type, _NO_CACHE)
    body, headers = reply.body, {**_NO_CACHE, **reply.headers}
    # kube-apiserver gzips only large answers: below this the CPU costs more than the bytes save
    if len(body) > _GZIP_THRESHOLD and _accepts_gzip(accept_encoding):
        body = gzip.compress(body, compresslevel=1)
        headers.update({"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
    return Response(body, status_code=reply.status, media_type=reply.content_type, headers=headers)


def _accepts_gzip(accept_encoding: str) -> bool:
    for clause in accept_encoding.split(","):
        coding, _, params = clause.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*") and params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00"):
            return True
    return False


def _user(request: Request, state: ServerState) -> User | None:
    header = request.headers.get("authorization", "")
    if not header and state.trust_unauthenticated:
        return access.UNSECURED
    return state.authenticator.authenticate(header)


def build_app(state: ServerState) -> Starlette:
    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def version(request: Request, user: User) -> Response:
        return Response(state.discovery.version(), media_type="application/json", headers=_NO_CACHE)

    async def metrics_text(request: Request, user: User) -> Response:
        try:
            access.authorize_path(user, "get", request.url.path)
        except ApiError as exc:
            return _error_response(exc, request)
        body, content_type = metrics.exposition()
        return Response(body, media_type=content_type, headers=_NO_CACHE)

    async def api(request: Request, user: User) -> Response:
        try:
            # kube-apiserver's bound on everything but watches; a watch's _serve returns as soon as
            # its stream is open, so the bound never cuts one short.
            async with asyncio.timeout(state.limits.request_timeout_seconds):
                return await _serve(state, request, user)
        except ApiError as exc:
            return _error_response(exc, request)
        except TimeoutError:
            return _error_response(errors.timeout(), request)

    Handler = Callable[[Request, User], Awaitable[Response]]

    def guarded(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def check(request: Request) -> Response:
            user = _user(request, state)
            if user is None:
                return _error_response(errors.unauthorized(), request)
            return await handler(request, user)
        return check

    openapi = OpenAPI(state.registry)

    async def openapi_v3(request: Request, user: User) -> Response:
        key = request.path_params.get("path")
        if key is None:
            return Response(openapi.v3_index(), media_type="application/json", headers=_NO_CACHE)
        found = openapi.v3_document(key)
        if found is None:
            return _error_response(errors.resource_not_found(), request)
        body, digest = found
        # A document is named by its hash, so a client may keep it for as long as it likes.
        cache = "public, immutable" if request.query_params.get("hash") == digest else "no-cache, private"
        return Response(body, media_type="application/json", headers={"Cache-Control": cache, "Etag": f'"{digest}"'})

    async def openapi_v2(request: Request, user: User) -> Response:
        body, media_type = openapi.v2_body(request.headers.get("accept", ""))
        return Response(body, media_type=media_type, headers=_NO_CACHE)

    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    routes = [
        Route("/openapi/v3", guarded(openapi_v3)), Route("/openapi/v3/{path:path}", guarded(openapi_v3)),
        Route("/openapi/v2", guarded(openapi_v2)),
        Route("/healthz", health), Route("/livez", health), Route("/readyz", health),
        Route("/version", guarded(version)), Route("/metrics", guarded(metrics_text)),
        Route("/api", guarded(api)), Route("/apis", guarded(api)),
        Route("/api/{path:path}", guarded(api), methods=methods),
        Route("/apis/{path:path}", guarded(api), methods=methods),
    ]
    if state.console:
        routes += console_routes()

    async def not_found(request: Request, exc: Exception) -> Response:
        return _error_response(errors.resource_not_found(), request)

    async def internal(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error serving %s %s", request.method, request.url.path)
        return _error_response(errors.internal("an unexpected error occurred"), request)

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return _error_response(errors.method_not_allowed(
            "the server does not allow this method on the requested resource"), request)

    return Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed, 500: internal})


async def _serve(state: ServerState, request: Request, user: User) -> Response:
    parsed = requestinfo.parse(request.url.path)
    if isinstance(parsed, requestinfo.DiscoveryPath):
        return _discovery(state, request, parsed)
    if parsed is None:
        raise errors.resource_not_found()
    method = request.method
    verb = _verb(method, parsed.name is not None, request.query_params)
    # Before the resource is looked up, as kube-apiserver's filter chain does: who may not act
    # learns nothing about what exists.
    access.authorize(user, access.Attributes(verb, parsed.group, parsed.resource, parsed.subresource,
                                             parsed.namespace, parsed.name or ""))
    rt = state.registry.lookup(parsed.group, parsed.version, parsed.resource)
    if rt is None:
        raise errors.resource_not_found()
    subresource = None if parsed.subresource is None else rt.subresource(parsed.subresource)
    if parsed.subresource is not None and subresource is None:
        raise errors.resource_not_found()
    if not rt.namespaced and parsed.resource != "namespaces" and parsed.namespace:
        raise errors.resource_not_found()
    name = parsed.name
    namespace = parsed.namespace if rt.namespaced else ""
    target = Target(rt, namespace, name, parsed.subresource, request.query_params,
                    request.headers.get("user-agent", ""))
    if not rt.allows(verb) or (subresource is not None and verb not in subresource.verbs):
        raise errors.method_not_allowed(f"{verb} is not supported on resources of kind {rt.qualified_name!r}")
    if rt.namespaced and verb in ("create",) and not namespace:
        raise errors.resource_not_found()
    shape = negotiate(request.headers.get("accept", ""), verb, request.query_params)
    if verb == "watch":
        state.watch_slots.check(user.name)
    if rt.synthetic:
        return _reply_response(_held(state, user, state.synthetic.serve(target, verb, shape)))
    endpoint = state.endpoint
    if verb == "get":
        return _reply_response(endpoint.get(target, shape), request.headers.get("accept-encoding", ""))
    if verb == "list":
        return _reply_response(endpoint.list(target, shape), request.headers.get("accept-encoding", ""))
    if verb == "watch":
        return _reply_response(_held(state, user, endpoint.watch(target, shape)))
    body = await _read_body(request, state.limits.max_body_bytes)
    content_type = request.headers.get("content-type")
    if verb == "create":
        return _reply_response(await endpoint.create(target, body, content_type))
    if verb == "update":
        return _reply_response(await endpoint.update(target, body, content_type))
    if verb == "patch":
        return _reply_response(await endpoint.patch(target, body, content_type))
    if verb == "delete":
        return _reply_response(await endpoint.delete(target, body, content_type))
    return _reply_response(await endpoint.delete_collection(target, body, content_type))


def _held(state: ServerState, user: User, reply: Reply | StreamReply) -> Reply | StreamReply:
    """A watch stream counted against its user's open watches while it lasts."""
    if isinstance(reply, StreamReply):
        reply.chunks = state.watch_slots.hold(user.name, reply.chunks)
    return reply


async def _read_body(request: Request, limit: int) -> bytes:
    """The body, refused with 413 as soon as it is known to exceed the limit, never buffered past it."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise errors.too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise errors.too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _verb(method: str, has_name: bool, query: Any) -> str:
    if method == "GET":
        if query.get("watch") in ("1", "true"):
            return "watch"
        return "get" if has_name else "list"
    if method == "POST":
        if has_name:
            raise errors.method_not_allowed("POST is not supported on a named resource")
        return "create"
    if not has_name:
        if method == "DELETE":
            return "deletecollection"
        raise errors.method_not_allowed(f"{method} is not supported on a collection")
    return {"PUT": "update", "PATCH": "patch", "DELETE": "delete"}[method]


def _discovery(state: ServerState, request: Request, parsed: requestinfo.DiscoveryPath) -> Response:
    if request.method != "GET":
        raise errors.method_not_allowed("discovery documents are read-only")
    discovery = state.discovery
    if parsed.group is None:
        aggregated = wants_aggregated(request.headers.get("accept", ""))
        if aggregated is None:
            raise errors.not_acceptable("only the following media types are accepted: application/json, "
                                        "application/yaml, application/vnd.kubernetes.protobuf")
        if aggregated:
            body, etag = discovery.aggregated(parsed.legacy)
            return Response(body, media_type=AGGREGATED_TYPE,
                            headers={"Cache-Control": "public", "Vary": "Accept", "ETag": etag})
        body = discovery.api_versions() if parsed.legacy else discovery.group_list()
        return Response(body, media_type="application/json", headers=_NO_CACHE)
    document = (discovery.group(parsed.group) if parsed.version is None
                else discovery.resource_list(parsed.group, parsed.version))
    if document is None:
        raise errors.resource_not_found()
    return Response(document, media_type="application/json", headers=_NO_CACHE)
