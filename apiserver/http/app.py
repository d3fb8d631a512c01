"""The HTTP edge: routes a request to discovery or to a resource verb and writes the answer.

route -> authenticate -> parse the path -> pick the verb -> authorize -> Endpoint -> bytes. A read
identical to one that passed every check before skips from authenticate to authorize and on
(apiserver.http.readplans). Starlette lives here and nowhere below.
"""

from __future__ import annotations

import functools
import gzip
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Lifespan, Receive, Scope, Send

from apiserver import errors, metrics
from apiserver.auth import access, escalation, impersonation, reviews, serviceaccounts
from apiserver.auth.serviceaccounts import ServiceAccountTokens
from apiserver.auth.tokens import TokenAuthenticator, User
from apiserver.auth.x509 import ClientCertificates
from apiserver.crd.converting import converts
from apiserver.discovery.documents import AGGREGATED_TYPE, Discovery, wants_aggregated
from apiserver.discovery.openapi import OpenAPI
from apiserver.errors import ApiError
from apiserver.http import (
    admitting,
    audit,
    deprecated,
    eviction,
    kubelet,
    pretty,
    requestinfo,
    tls,
    warning_limits,
    write_options,
)
from apiserver.http.answers import NO_CACHE, AnswerResponse
from apiserver.http.api_routes import API_METHODS, ApiRoutes
from apiserver.http.audit import AuditLog
from apiserver.http.console import console_routes
from apiserver.http.deadlines import Deadlines
from apiserver.http.endpoint import Endpoint, Target, asker, decode_body
from apiserver.http.limits import Limits, WatchSlots
from apiserver.http.negotiation import error_body, negotiate
from apiserver.http.readplans import ReadPlan, ReadPlans
from apiserver.http.simkubelet import SimulatedKubelets
from apiserver.http.streaming import WatchResponse
from apiserver.http.synthetic import SyntheticResources
from apiserver.kinds import fieldvalidation, objects, ownership, shaping
from apiserver.kinds.resources import Registry
from apiserver.query import list_options
from apiserver.registry.hooks import Requester
from apiserver.reply import Reply, StreamReply
from apiserver.storage.interface import Store
from apiserver.wire import bodies

log = logging.getLogger("apiserver.http")

_PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz"})
_GZIP_THRESHOLD = 128 * 1024
# The scope key of a write's Target, whose admitted audit annotations the audit record ends with.
_WRITE = "apiserver.write_target"


@dataclass
class ServerState:
    registry: Registry
    store: Store
    discovery: Discovery
    endpoint: Endpoint
    synthetic: SyntheticResources
    authenticator: TokenAuthenticator
    authorizer: access.Authorizer
    service_accounts: ServiceAccountTokens
    client_certificates: ClientCertificates
    limits: Limits
    watch_slots: WatchSlots
    read_plans: ReadPlans
    # The loopback-only plain HTTP mode: client-go never sends a bearer token over plain HTTP, so
    # there, like kube-apiserver's old insecure port, a request without credentials is let in.
    # A wrong token is still refused.
    trust_unauthenticated: bool = False
    # --anonymous-auth: a request without credentials acts as system:anonymous (group
    # system:unauthenticated), and the bootstrap policy decides what that may see.
    anonymous: bool = False
    audit: AuditLog | None = None
    # The browser console at /console/ (`--console=false` turns it off).
    console: bool = True
    # The kubelet API of simulated nodes, while their fake kubelets run here.
    simulated_kubelets: SimulatedKubelets | None = None

    def token_lookup(self, token: str, audiences: list[str]) -> tuple[User, list[str]] | None:
        """TokenReview's question: whose token is this, for which of the audiences asked about."""
        user = self.authenticator.authenticate(f"Bearer {token}")
        if user is None:
            return self.service_accounts.authenticate(token, tuple(audiences))
        # Token-file tokens are good for any audience: the ones asked about, else the API server's own.
        return user, audiences or list(self.service_accounts.api_audiences)


def _error_response(exc: ApiError, request: Request) -> Response:
    write = request.scope.get(_WRITE)
    if write is not None and write.admitted is not None:
        # Upstream answers with every warning a request collected, whatever its outcome.
        exc = write.admitted.onto(exc)
    body, media_type, headers = error_parts(exc, request.headers.get("accept", ""))
    return AnswerResponse(body, exc.code, media_type, headers)


def error_parts(exc: ApiError, accept: str) -> tuple[bytes, str, dict[str, str]]:
    """An error's body, media type and headers, as every answer of this server writes them."""
    body, media_type = error_body(exc, accept)
    return body, media_type, {**NO_CACHE, **exc.headers}


def _for_people(request: Request, response: Response) -> Response:
    """The answer indented when a person asks (apiserver.http.pretty); a watch stream never is."""
    if not isinstance(response, WatchResponse) and pretty.wanted(
            request.scope["query_string"], _header(request, b"user-agent"), _header(request, b"accept")):
        return pretty.prettified(response)
    return response


def _reply_response(reply: Reply | StreamReply, accept_encoding: str = "") -> Response:
    if isinstance(reply, StreamReply):
        return WatchResponse(reply.chunks, reply.closed, reply.content_type, NO_CACHE)
    body, headers = reply.whole(), reply.headers
    # kube-apiserver gzips only large answers: below this the CPU costs more than the bytes save
    if len(body) > _GZIP_THRESHOLD and _accepts_gzip(accept_encoding):
        body = gzip.compress(body, compresslevel=1)
        headers = {**headers, "Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
    return AnswerResponse(body, reply.status, reply.content_type or None, headers)


def _accepts_gzip(accept_encoding: str) -> bool:
    for clause in accept_encoding.split(","):
        coding, _, params = clause.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*") and params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00"):
            return True
    return False


async def _audited(log: AuditLog, request: Request, identify: Callable[[Request], tuple[User, User | None]],
                   handler: Callable[[Request, User], Awaitable[Response]]) -> Response:
    """The request served as without an audit log, its stages written to the log."""
    described = audit.describe(request.method, request.url.path, request.query_params.get("watch") in ("1", "true"))
    user: User | None = None
    acting: User | None = None
    failure: ApiError | None = None
    try:
        user, acting = identify(request)
    except ApiError as exc:
        failure = exc
    uri = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    event = log.begin(described, uri, user, acting, request.client.host if request.client else "",
                      request.headers.get("user-agent", ""))
    request_body = None
    if event is not None and event.level != "Metadata" and request.method in ("POST", "PUT", "PATCH"):
        # Read once here; the handler reads the same bytes again from the request.
        request_body = await request.body()
    if failure is not None or user is None:
        response = _for_people(request, _error_response(failure or errors.unauthorized(), request))
    else:
        response = await handler(request, acting or user)
    if event is None:
        return response
    content_type = request.headers.get("content-type")
    if isinstance(response, WatchResponse):
        log.finish(event, described, "ResponseStarted", response.status_code, None, request_body, content_type, None)
        response.chunks = _then(response.chunks, lambda: log.finish(
            event, described, "ResponseComplete", 200, None, request_body, content_type, None))
        return response
    body = bytes(response.body)
    status = orjson.loads(body) if response.status_code >= 400 and body.startswith(b"{") else None
    admitted = request.scope.get(_WRITE)
    log.finish(event, described, "ResponseComplete", response.status_code, status, request_body, content_type,
               body or None, None if admitted is None or admitted.admitted is None
               else admitted.admitted.audit_annotations)
    return response


async def _then(chunks: AsyncIterator[bytes], done: Callable[[], None]) -> AsyncIterator[bytes]:
    """The same chunks, calling `done` once the stream has ended, however it ended (a watch's last stage)."""
    try:
        async for chunk in chunks:
            yield chunk
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]
        done()


def _refused_path(state: ServerState, request: Request, user: User) -> Response | None:
    """The 403 of a path that names no resource (/version, /metrics, /openapi), None when allowed."""
    try:
        state.authorizer.authorize_path(user, "get", request.url.path)
    except ApiError as exc:
        return _error_response(exc, request)
    return None


_FIRST_VALUES = "apiserver.first_header_values"


def _first_values(request: Request) -> dict[bytes, bytes]:
    """The request's headers by lower-case name, the first value of each (as Go's Header.Get reads
    them), made once per request from the scope: on the hot path Starlette's Headers would scan the
    list again, and raise and catch a KeyError, for each header read."""
    scope = request.scope
    found: dict[bytes, bytes] | None = scope.get(_FIRST_VALUES)
    if found is None:
        found = scope[_FIRST_VALUES] = dict(reversed(scope["headers"]))
    return found


def _header(request: Request, name: bytes) -> str:
    """A request header's first value by its lower-case name, "" when absent."""
    value = _first_values(request).get(name)
    return "" if value is None else value.decode("latin-1")


def _user(headers: Mapping[bytes, bytes], scope: Scope, state: ServerState) -> User | None:
    raw = headers.get(b"authorization")
    if not raw:
        # A verified client certificate names its user (CN) and groups (O), as kube-apiserver's x509 does.
        pem = tls.client_certificate(scope)
        if pem is not None:
            return state.client_certificates.authenticate(pem)
        if state.trust_unauthenticated:
            return access.UNSECURED
        if state.anonymous:
            return access.ANONYMOUS
        return None
    header = raw.decode("latin-1")
    user = state.authenticator.authenticate(header)
    if user is None and header.count(".") == 2:
        # Shaped like a JWT: a ServiceAccount token, for this API server's audience.
        accepted = state.service_accounts.authenticate(header.split()[-1])
        return None if accepted is None else accepted[0]
    return user


def build_app(state: ServerState, lifespan: Lifespan[Starlette] | None = None) -> ApiRoutes:
    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def ready(request: Request) -> Response:
        if state.store.ready:
            return PlainTextResponse("ok")
        # kube-apiserver's answer when its etcd check fails.
        return PlainTextResponse("[-]etcd failed: reason withheld\nreadyz check failed", status_code=500)

    async def version(request: Request, user: User) -> Response:
        refused = _refused_path(state, request, user)
        if refused is not None:
            return refused
        return Response(state.discovery.version(), media_type="application/json", headers=NO_CACHE)

    async def metrics_text(request: Request, user: User) -> Response:
        refused = _refused_path(state, request, user)
        if refused is not None:
            return refused
        body, content_type = metrics.exposition()
        return Response(body, media_type=content_type, headers=NO_CACHE)

    # kube-apiserver's bound on everything but watches; a watch's _serve returns as soon as its
    # stream is open, so the bound never cuts one short.
    deadlines = Deadlines(state.limits.request_timeout_seconds)

    async def api(request: Request, user: User) -> Response:
        return _for_people(request, await _api_answer(request, user))

    async def _api_answer(request: Request, user: User) -> Response:
        try:
            plan = _planned(state, request)
            if plan is None:
                return await deadlines.within(_serve(state, request, user))
            state.authorizer.authorize(user, plan.attributes)
            deprecated.reached(request.scope, plan.target.rt, plan.target.subresource)
            if not _waits(state, plan) and not converts(plan.target.rt):
                # Nothing to wait for, so nothing the deadline could cut short: it is not kept.
                return _answer(state, request, plan)
            return await deadlines.within(_read(state, request, plan))
        except ApiError as exc:
            return _error_response(exc, request)
        except TimeoutError:
            return _error_response(errors.timeout(), request)

    Handler = Callable[[Request, User], Awaitable[Response]]

    def identify(request: Request) -> tuple[User, User | None]:
        """Who sent the request, and whom they act as when they impersonate someone."""
        headers = _first_values(request)
        authorization = headers.get(b"authorization")
        user = None if authorization is None else state.authenticator.known(authorization)
        if user is None:
            user = _user(headers, request.scope, state)
        if user is None:
            raise errors.unauthorized()
        if impersonation.wanted(headers):
            return user, impersonation.impersonate(state.authorizer, user, request.headers.items())
        return user, None

    def guarded(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def check(request: Request) -> Response:
            if state.audit is not None:
                return await _audited(state.audit, request, identify, handler)
            try:
                user, acting = identify(request)
            except ApiError as exc:  # refused before any handler: negotiated as an API answer
                return _for_people(request, _error_response(exc, request))
            return await handler(request, acting or user)
        return check

    openapi = OpenAPI(state.registry)

    async def openapi_v3(request: Request, user: User) -> Response:
        refused = _refused_path(state, request, user)
        if refused is not None:
            return refused
        key = request.path_params.get("path")
        if key is None:
            return Response(openapi.v3_index(), media_type="application/json", headers=NO_CACHE)
        found = openapi.v3_document(key)
        if found is None:
            return _error_response(errors.resource_not_found(), request)
        body, digest = found
        # A document is named by its hash, so a client may keep it for as long as it likes.
        cache = "public, immutable" if request.query_params.get("hash") == digest else "no-cache, private"
        return Response(body, media_type="application/json", headers={"Cache-Control": cache, "Etag": f'"{digest}"'})

    async def openapi_v2(request: Request, user: User) -> Response:
        refused = _refused_path(state, request, user)
        if refused is not None:
            return refused
        body, media_type = openapi.v2_body(request.headers.get("accept", ""))
        return Response(body, media_type=media_type, headers=NO_CACHE)

    methods = list(API_METHODS)
    api_route = guarded(api)
    routes: list[BaseRoute] = [
        Route("/openapi/v3", guarded(openapi_v3)), Route("/openapi/v3/{path:path}", guarded(openapi_v3)),
        Route("/openapi/v2", guarded(openapi_v2)),
        Route("/healthz", health), Route("/livez", health), Route("/readyz", ready),
        Route("/version", guarded(version)), Route("/metrics", guarded(metrics_text)),
        Route("/api", api_route), Route("/apis", api_route),
        Route("/api/{path:path}", api_route, methods=methods),
        Route("/apis/{path:path}", api_route, methods=methods),
    ]
    if state.console:
        routes += console_routes()

    async def not_found(request: Request, exc: Exception) -> Response:
        return page_not_found()

    async def internal(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error serving %s %s", request.method, request.url.path)
        return _error_response(errors.internal("an unexpected error occurred"), request)

    async def api_asgi(scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive, send)
        try:
            response = await api_route(request)
        except Exception as exc:  # what the site's error middleware would catch: answered alike
            response = await internal(request, exc)
        deprecated.add(scope, response)
        warning_limits.limit(response)
        await response(scope, receive, send)

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return _error_response(errors.method_not_allowed(), request)

    site = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed, 500: internal},
                     lifespan=lifespan)
    return ApiRoutes(site, api_asgi)


@functools.lru_cache(maxsize=1024)
def _query(raw: bytes) -> Mapping[str, str]:
    """A query string's parameters (the first of a repeated one, as Go's url.Values.Get reads them),
    parsed once per distinct string: clients send the same few again and again. Read-only, since
    requests share it; a plain mapping, since Starlette's answers a missing key by raising and catching
    KeyError."""
    first: dict[str, str] = {}
    for name, value in QueryParams(raw).multi_items():
        first.setdefault(name, value)
    return MappingProxyType(first)


async def _serve(state: ServerState, request: Request, user: User) -> Response:
    # The decoded path as the router matched it; Starlette's URL would be built only to give it back.
    path: str = request.scope["path"]
    method: str = request.scope["method"]  # Starlette's property calls typing.cast on every read
    parsed = requestinfo.parse(path)
    if parsed is None or isinstance(parsed, requestinfo.DiscoveryPath):
        # Paths that name no resource are authorized by path and the method's lower-cased name.
        state.authorizer.authorize_path(user, method.lower(), path)
        if parsed is None:
            return _unrouted(state, path)
        return _discovery(state, request, parsed)
    query = _query(request.scope["query_string"])
    verb = _verb(method, parsed.name is not None, query)
    # Before the resource is looked up, as kube-apiserver's filter chain does: who may not act
    # learns nothing about what exists.
    name_asked = parsed.name or ""
    if verb in ("list", "watch"):
        name_asked = requestinfo.selected_name(query.get("fieldSelector", ""))
    attributes = access.Attributes(verb, parsed.group, parsed.resource, parsed.subresource, parsed.namespace,
                                   name_asked)
    state.authorizer.authorize(user, attributes)
    rt = state.registry.lookup(parsed.group, parsed.version, parsed.resource)
    if rt is None and state.discovery.is_external(parsed.group, parsed.version):
        return _unavailable()
    if rt is None:
        return _unrouted(state, path)
    deprecated.reached(request.scope, rt, parsed.subresource)
    if rt.namespaced and not parsed.namespace and (parsed.name is not None or verb not in ("list", "watch")):
        # Across namespaces only a list or watch is routed: a built-in resource's path answers another
        # method as go-restful does (405; one naming an object has no route, 404), a custom resource's
        # as the CRD handler passes it on (http.NotFound).
        if rt.custom is not None:
            return page_not_found()
        if parsed.name is not None:
            raise errors.resource_not_found()
        raise errors.method_not_allowed()
    # An object's path takes no POST but to a subresource, a collection's no PUT or PATCH; the CRD handler
    # creates from an object's path too (CreateResource names nothing: the body's name stands), and asks an
    # update or patch of the collection for a name.
    creates_unnamed = method == "POST" and parsed.name is not None and parsed.subresource is None
    if creates_unnamed and rt.custom is None:
        raise errors.method_not_allowed()
    if parsed.name is None and method in ("PUT", "PATCH"):
        if rt.custom is not None:
            raise errors.bad_request("name must be provided")
        raise errors.method_not_allowed()
    # Discovery lists subresources this server does not carry out (a kubelet's log, exec, proxy): 404.
    subresource = None if parsed.subresource is None else rt.subresource(parsed.subresource)
    if parsed.subresource is not None and subresource is None:
        if rt.custom is not None:
            # The custom resource handler's answer to any other subresource: the object is not found.
            raise errors.not_found(rt.plural, rt.group, parsed.name or "")
        raise errors.resource_not_found()
    if not rt.namespaced and parsed.resource != "namespaces" and parsed.namespace:
        raise errors.resource_not_found()
    name = None if creates_unnamed else parsed.name
    namespace = parsed.namespace if rt.namespaced else ""
    # Only a write is admitted (RBAC's escalation check) or records who asked (a CSR): a read makes neither.
    writes = method != "GET"
    target = Target(rt, namespace, name, parsed.subresource, query, _header(request, b"user-agent"),
                    raw_query=request.scope["query_string"],
                    admit=escalation.guard(state.authorizer, user, rt.group, rt.plural, namespace, name or "")
                    if writes else None,
                    requester=Requester(user.name, user.uid, user.groups, user.extra_json()) if writes else None,
                    user=user if writes else None, verb=verb,
                    ask=asker(state.authorizer, user) if writes else None)
    if writes:
        request.scope[_WRITE] = target  # what admission adds to the audit record is read from it after
    if verb == "watch" and name is not None:
        # Authorized as a watch, but the route of an object's path is the get handler's: it answers
        # the object, as kube-apiserver does (only the /watch/ paths it keeps for old clients watch one).
        verb = "get"
    if name is not None and subresource is None and not any(rt.allows(v) for v in _NAMED_VERBS):
        raise errors.resource_not_found()  # a create-only resource (a review) has no route by name at all
    if not rt.allows(verb) or (subresource is not None and verb not in subresource.verbs):
        raise errors.method_not_allowed()
    if parsed.subresource is not None and not rt.group and kubelet.handles(rt.plural, parsed.subresource):
        options = admitting.connect_options(parsed.subresource, QueryParams(request.scope["query_string"])
                                            .multi_items()) if rt.plural == "pods" else None
        if options is not None:
            target.user = user  # a connect is admitted whatever its method
            await admitting.connect(state.endpoint.admission, target, options)
        if rt.plural == "pods" and parsed.subresource in _STREAMS and verb != "create":
            # A websocket's GET must be allowed as the POST of SPDY is (ensureAuthorizedForVerb, under
            # AuthorizePodWebsocketUpgradeCreatePermission, on at 1.36): `get pods/exec` alone runs nothing.
            decision = state.authorizer.decide(user, access.Attributes("create", "", "pods", parsed.subresource,
                                                                       namespace, name or ""))
            if not decision.allowed:
                raise errors.forbidden_object("pods", "", name or "", decision.reason)
        upgrade = "upgrade" in request.headers.get("connection", "").lower()
        return _reply_response(kubelet.answer(state.store, rt.plural, namespace, name or "", parsed.subresource,
                                              query, upgrade, state.simulated_kubelets,
                                              kubelet.proxied_path(path, name or "")))
    write_options.check(method, query, request.scope["query_string"], request.headers.get("content-type"))
    if rt.plural == "serviceaccounts" and parsed.subresource == "token" and name is not None:
        body = await _read_body(request, state.limits.max_body_bytes)
        return _reply_response(await _token_request(state, target, name, body, request.headers.get("content-type")))
    if rt.group in reviews.GROUPS:
        body = await _read_body(request, state.limits.max_body_bytes)
        return _reply_response(_review(state, user, target, body, request.headers.get("content-type")))
    accept = _header(request, b"accept")
    shape = negotiate(accept, verb, query)
    if verb in ("list", "watch", "deletecollection"):
        list_options.read(query)
    if verb == "watch":
        state.watch_slots.check(user.name)
    if state.synthetic.answers(target, verb):
        return _reply_response(await state.synthetic.serve(target, verb, shape))
    endpoint = state.endpoint
    if verb in ("get", "list"):
        # Every check above passed, and none depended on the user or the store: an identical read
        # may skip them (apiserver.http.readplans).
        plan = ReadPlan(verb, attributes, target, shape, endpoint.view(target) if verb == "list" else None,
                        endpoint.wait_for(target, verb))
        state.read_plans.remember(path, request.scope["query_string"], accept, plan)
        return await _read(state, request, plan)
    if verb == "watch":
        await endpoint.catch_up(target, verb)
        return _reply_response(_held(state, user, endpoint.watch(target, shape)))
    body = await _read_body(request, state.limits.max_body_bytes)
    content_type = request.headers.get("content-type")
    if parsed.subresource == "eviction":
        budgets = state.registry.lookup("policy", "v1", "poddisruptionbudgets")
        if budgets is None:
            raise errors.resource_not_found()
        return _reply_response(await eviction.evict(endpoint, budgets, target, body, content_type))
    if verb == "create":
        if target.subresource is not None:
            return _reply_response(await endpoint.create_subresource(target, body, content_type))
        return _reply_response(await endpoint.create(target, body, content_type))
    if verb == "update":
        return _reply_response(await endpoint.update(target, body, content_type))
    if verb == "patch":
        return _reply_response(await endpoint.patch(target, body, content_type))
    if verb == "delete":
        return _reply_response(await endpoint.delete(target, body, content_type))
    return _reply_response(await endpoint.delete_collection(target, body, content_type))


def _planned(state: ServerState, request: Request) -> ReadPlan | None:
    """The plan of a read identical to one that passed every check before (apiserver.http.readplans)."""
    scope = request.scope
    if scope["method"] != "GET":
        return None
    return state.read_plans.find(scope["path"], scope["query_string"], _header(request, b"accept"))


def _waits(state: ServerState, plan: ReadPlan) -> bool:
    return plan.wait.needed and state.store.shared  # the embedded store never has to wait


async def _read(state: ServerState, request: Request, plan: ReadPlan) -> Response:
    """A get or a list, once it is known what it asks for and that its user may ask it."""
    if _waits(state, plan):
        await state.endpoint.caught_up(plan.wait.revision)
    if converts(plan.target.rt):
        reply = await state.endpoint.converted_read(plan.target, plan.shape, plan.view)
        return _reply_response(reply, _header(request, b"accept-encoding"))
    return _answer(state, request, plan)


def _answer(state: ServerState, request: Request, plan: ReadPlan) -> Response:
    """What a read answers once the store shows what it must."""
    target, endpoint = plan.target, state.endpoint
    reply = endpoint.get(target, plan.shape) if plan.view is None else endpoint.list(target, plan.shape, plan.view)
    return _reply_response(reply, _header(request, b"accept-encoding"))


def _review(state: ServerState, user: User, target: Target, raw: bytes, content_type: str | None) -> Reply:
    # Decoded as any create's body is, and given managedFields by the create handler's field manager
    # before the review's REST storage sees it.
    rt, namespace = target.rt, target.namespace
    body = objects.check_identity(rt, decode_body(target, raw, content_type), namespace, None)
    warnings = fieldvalidation.validate(body, raw, target.query, json_body=bodies.is_json(content_type))
    objects.wipe_system_fields(body["metadata"])
    body["metadata"].pop("managedFields", None)
    ownership.track(rt, body, None, target.manager, None, objects.now_rfc3339())
    body = objects.ordered(body)
    kind = rt.kind
    if kind == "SelfSubjectAccessReview":
        answer = reviews.self_subject_access_review(state.authorizer, user, body)
    elif kind in ("SubjectAccessReview", "LocalSubjectAccessReview"):
        answer = reviews.subject_access_review(state.authorizer, body, namespace if namespace else None)
    elif kind == "SelfSubjectRulesReview":
        answer = reviews.self_subject_rules_review(state.authorizer, user, body)
    elif kind == "SelfSubjectReview":
        answer = reviews.self_subject_review(user, objects.now_rfc3339())
    else:
        answer = reviews.token_review(state.token_lookup, body)
    return Reply(201, orjson.dumps(shaping.shaped_object(answer)), headers=warnings)


async def _token_request(state: ServerState, target: Target, name: str, raw: bytes, content_type: str | None) -> Reply:
    """serviceaccounts/NAME/token through upstream's create handler: decoded and defaulted as a TokenRequest,
    its metadata kept (PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate), given managedFields,
    mutated by admission; then TokenREST.Create, whose validating admission follows its own validation."""
    token_request = objects.check_identity(serviceaccounts.TOKEN_REQUEST, decode_body(target, raw, content_type),
                                           target.namespace, None)
    warnings = fieldvalidation.validate(token_request, raw, target.query, json_body=bodies.is_json(content_type))
    spec = token_request.get("spec")
    if not isinstance(spec, dict):
        spec = token_request["spec"] = {}
    if spec.get("expirationSeconds") is None:  # SetDefaults_TokenRequestSpec
        spec["expirationSeconds"] = serviceaccounts.DEFAULT_EXPIRATION_SECONDS
    token_request["metadata"].pop("managedFields", None)
    ownership.track(serviceaccounts.TOKEN_REQUEST, token_request, None, target.manager, "token",
                    objects.now_rfc3339())
    token_request = await state.endpoint.mutate_create(target, objects.ordered(token_request))
    prepared = state.service_accounts.prepare_request(target.namespace, name, token_request)
    await state.endpoint.validate_create(target, prepared)
    answer = state.service_accounts.issue(prepared)
    return Reply(201, orjson.dumps(shaping.shaped_object(objects.ordered(answer))), headers=warnings)


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


_OBJECT_VERBS = {"PUT": "update", "PATCH": "patch", "DELETE": "delete"}
_NAMED_VERBS = ("get", "update", "patch", "delete")
# The pod subresources that stream into a container, which need `create` whatever the method.
_STREAMS = frozenset({"exec", "attach", "portforward"})


def _verb(method: str, has_name: bool, query: Any) -> str:
    """The verb RequestInfo names (what authorization judges, before any route is looked for): a GET's
    `watch` read as the query's conversion reads a bool."""
    if method == "GET":
        if "watch" in query and list_options.go_bool(query["watch"]):
            return "watch"
        return "get" if has_name else "list"
    if method == "POST":
        return "create"
    if not has_name and method == "DELETE":
        return "deletecollection"
    verb = _OBJECT_VERBS.get(method)
    if verb is None:  # HEAD, which the router lets through wherever GET goes; kube-apiserver routes no HEAD
        raise errors.method_not_allowed()
    return verb


def _unavailable() -> Response:
    """What kube-aggregator's proxy answers for a group-version whose APIService nothing answers behind."""
    return PlainTextResponse("service unavailable\n", status_code=503,
                             headers={**NO_CACHE, "X-Content-Type-Options": "nosniff"})


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
        return Response(body, media_type="application/json", headers=NO_CACHE)
    if parsed.version is not None and discovery.is_external(parsed.group, parsed.version):
        return _unavailable()
    document = (discovery.group(parsed.group) if parsed.version is None
                else discovery.resource_list(parsed.group, parsed.version))
    if document is None:
        return _unrouted(state, request.scope["path"])
    return Response(document, media_type="application/json", headers=NO_CACHE)


def _unrouted(state: ServerState, path: str) -> Response:
    """The answer to a path no route takes. Under /api and under a built-in group's /apis/<group>, each a
    go-restful web service, it is that container's Status 404; any other path (another group, a custom
    resource's group past its discovery document) falls through every handler to the NotFound one,
    whose answer is Go's plain text."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"] or (parts[:1] == ["apis"] and len(parts) > 1
                                and state.registry.serves_built_in(parts[1])):
        raise errors.resource_not_found()
    _refuse_custom_subresource(state, parts)
    return page_not_found()


def _refuse_custom_subresource(state: ServerState, parts: list[str]) -> None:
    """A path past a custom resource's subresource: RequestInfo takes the part after the name as the
    subresource and drops the rest, and the custom resource handler answers one it lacks as the named
    object not found."""
    rest = parts[3:]
    if rest[:1] == ["namespaces"] and len(rest) > 2:
        rest = rest[2:]
    if parts[:1] != ["apis"] or len(rest) < 3:
        return
    rt = state.registry.lookup(parts[1], parts[2], rest[0])
    if rt is not None and rt.custom is not None and rt.subresource(rest[2]) is None:
        raise errors.not_found(rt.plural, rt.group, rest[1])


def page_not_found() -> Response:
    """http.NotFound's answer."""
    return PlainTextResponse("404 page not found\n", status_code=404,
                             headers={**NO_CACHE, "X-Content-Type-Options": "nosniff"})
