"""The console: a page in the browser that shows any resource as `kubectl get` does.

The page holds no data and no rules of its own: it reads discovery and lists Tables through the
ordinary API with the user's bearer token, and draws the cells the server printed. Its live feed is a
WebSocket that relays the ordinary watch of Tables: a browser's WebSocket can send neither an
Authorization nor an Accept header, so the token travels as kube-apiserver's bearer subprotocol and
the feed asks the API for the Table watch on the browser's behalf, through the same app (routing,
authentication, authorization, limits), so consoles share each encoded event with every other watcher
of that representation. A WebSocket, unlike a streamed fetch or EventSource, does not hold one of the
six connections a browser allows each origin, so many consoles can stay open at once.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from importlib.resources import files
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import Message
from starlette.websockets import WebSocket

_STATIC = files("apiserver.http") / "static"
_FILES = {"console.js": "text/javascript; charset=utf-8", "console.css": "text/css; charset=utf-8"}
# The page draws every cell as text and talks only to this server; nothing else may run or be loaded.
_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                               "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
TABLE_ACCEPT = b"application/json;as=Table;g=meta.k8s.io;v=v1"
BEARER_PROTOCOL = "base64url.bearer.authorization.k8s.io."
# Close codes: 1008 "policy violation" for a handshake we refuse, 1000 when the watch ends.
_REFUSED, _DONE = 1008, 1000


class BadProtocol(ValueError):
    """The Sec-WebSocket-Protocol header does not carry a usable bearer token."""


def bearer_token(protocol_headers: list[str]) -> tuple[str, list[str]]:
    """The token in kube-apiserver's bearer subprotocol ("" if none) and the other protocols offered.

    As upstream's protocol authenticator: the token is base64url without padding and must be UTF-8,
    at most one may be given, and another protocol must be offered beside it to be echoed back.
    """
    token, others = "", []
    for header in protocol_headers:
        for protocol in (p.strip() for p in header.split(",")):
            if not protocol.startswith(BEARER_PROTOCOL):
                if protocol:
                    others.append(protocol)
                continue
            if token:
                raise BadProtocol("multiple base64.bearer.authorization tokens specified")
            encoded = protocol.removeprefix(BEARER_PROTOCOL)
            try:
                raw = base64.b64decode(encoded.translate(str.maketrans("-_", "+/")) + "=" * (-len(encoded) % 4),
                                       validate=True)
                token = raw.decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                raise BadProtocol("invalid base64.bearer.authorization token encoding") from None
            if not token:
                raise BadProtocol("invalid base64.bearer.authorization token")
    if token and not others:
        raise BadProtocol("missing additional subprotocol")
    return token, others


def watch_scope(websocket: WebSocket, api_path: str, token: str) -> dict[str, Any]:
    """The HTTP request a console feed stands for: a watch of Tables of api_path, as its user."""
    query = websocket.scope.get("query_string", b"")
    headers = [(b"accept", TABLE_ACCEPT), (b"user-agent", b"fastkube-console")]
    if token:
        headers.append((b"authorization", b"Bearer " + token.encode()))
    elif "authorization" in websocket.headers:  # a proxy in front may hold the credentials
        headers.append((b"authorization", websocket.headers["authorization"].encode()))
    return {
        **websocket.scope, "type": "http", "method": "GET", "http_version": "1.1",
        "scheme": "https" if websocket.scope.get("scheme") == "wss" else "http",
        "path": api_path, "raw_path": api_path.encode(), "root_path": "",
        "query_string": query + (b"&" if query else b"") + b"watch=1", "headers": headers,
    }


async def relay_watch(websocket: WebSocket, api_path: str) -> None:
    """Accepts the WebSocket, then sends it every chunk the API's Table watch of api_path writes.

    An answer other than 200 (401, 403, 404, 410 ...) goes out as one watch ERROR event holding its
    Status, as a watch that fails after it started would, and the socket closes.
    """
    try:
        # ASGI servers hand the offered protocols over parsed, apart from the headers.
        token, protocols = bearer_token(list(websocket.scope.get("subprotocols", ())))
    except BadProtocol:
        await websocket.close(_REFUSED)
        return
    if not (api_path.startswith("/api/") or api_path.startswith("/apis/")):
        await websocket.close(_REFUSED)
        return
    await websocket.accept(subprotocol=protocols[0] if protocols else None)
    gone = asyncio.Event()
    status = 0
    refused: list[bytes] = []

    async def receive() -> Message:
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message.get("body"):
            if status == 200:
                await websocket.send_bytes(message["body"])  # the shared bytes, as written for HTTP
            else:
                refused.append(message["body"])

    async def client_gone() -> None:
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass  # a console sends nothing; anything it does send is ignored, as upstream's watch does
        gone.set()

    listener = asyncio.ensure_future(client_gone())
    try:
        await websocket.scope["app"](watch_scope(websocket, api_path, token), receive, send)
        if status != 200:
            # The Status may be indented (YAML-minded clients, curl); a watch event is one line.
            await websocket.send_bytes(orjson.dumps({"type": "ERROR", "object": orjson.loads(b"".join(refused))})
                                       + b"\n")
        await websocket.close(_DONE)
    except (OSError, RuntimeError):
        pass  # the browser went away mid-send: nothing is left to tell it
    finally:
        gone.set()
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)


def console_routes() -> list[BaseRoute]:
    """`/console/` and every view under it (one page; its script reads the view from the address),
    and the live feed `/console/feed/<API collection path>?<watch query>`."""
    page = (_STATIC / "console.html").read_bytes()
    assets = {name: (_STATIC / name).read_bytes() for name in _FILES}

    async def redirect(request: Request) -> Response:
        return RedirectResponse("/console/", status_code=301)

    async def view(request: Request) -> Response:
        path = request.path_params.get("path", "")
        if path.startswith("static/"):
            name = path.removeprefix("static/")
            if name not in assets:
                return Response(b"not found", status_code=404, media_type="text/plain", headers=_HEADERS)
            return Response(assets[name], media_type=_FILES[name], headers=_HEADERS)
        return Response(page, media_type="text/html; charset=utf-8", headers=_HEADERS)

    async def feed(websocket: WebSocket) -> None:
        await relay_watch(websocket, "/" + websocket.path_params["path"])

    return [Route("/console", redirect), Route("/console/", view), Route("/console/{path:path}", view),
            WebSocketRoute("/console/feed/{path:path}", feed)]
