"""The server's ASGI app: the API's requests go straight to their handler, everything else to the site.

Starlette's app, its error middleware (which wraps every `send` in a closure of its own) and its router
try one layer after another, and on a small get those layers cost about as much as finding the object
(a few µs of CPU with cold caches, `python -m benches.request_cost --cold`). The API's routes,
`/api` and `/apis` for any method and `/api/...` and `/apis/...` for the methods the API serves, are
matched here exactly as the router would match them, and such a request is handed to the API's handler
with nothing in between. Everything else goes on to the Starlette site, which keeps the same routes:
they answer another method's 405. The handler answers its own unexpected errors with the 500 Status
the site's error handler writes.
"""

from __future__ import annotations

from typing import Awaitable, Callable

from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

from apiserver.http import streams

AsgiHandler = Callable[[Scope, Receive, Send], Awaitable[None]]

# The API's methods; Starlette adds HEAD wherever GET is allowed.
API_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
_SUBPATH_METHODS = frozenset((*API_METHODS, "HEAD"))
_ROOTS = frozenset({"/api", "/apis"})


class ApiRoutes:
    def __init__(self, site: Starlette, api: AsgiHandler) -> None:
        self.site = site  # the other routes, the lifespan, and the answers of the router's 404 and 405
        self.api = api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Where the site's router would send the request to the API's handler.
        if scope["type"] == "http" and not scope.get("root_path"):
            path: str = scope["path"]
            if path in _ROOTS or (path.startswith(("/api/", "/apis/")) and scope["method"] in _SUBPATH_METHODS):
                await self.api(scope, receive, send)
                return
        elif streams.handles(scope):  # exec or attach over WebSocket
            await streams.translate(scope, receive, send, self.api)
            return
        await self.site(scope, receive, send)
