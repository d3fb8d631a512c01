"""The API's routes, /api and /apis, taken to their handler before Starlette's router sees the request.

Starlette's router tries its routes one after another and its exception middleware wraps every
request, which together cost more than answering a small get. The API's two routes are the ones this
middleware matches, exactly as the router would (`/api` and `/apis` for any method, `/api/...` and
`/apis/...` for the methods the API serves): such a request gets the same handler, with the same
Request, and its answer is sent as the router would send it. Everything else goes on to the router,
which keeps the same routes: they answer another method's 405.
It sits inside Starlette's outermost middleware, so an unhandled error is still answered with the
app's 500. A deprecated kind's Warning is added here, to the answer about to be sent.
"""

from __future__ import annotations

from typing import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.http import deprecated

Handler = Callable[[Request], Awaitable[Response]]

# The API's methods; Starlette adds HEAD wherever GET is allowed.
API_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
_SUBPATH_METHODS = frozenset((*API_METHODS, "HEAD"))
_ROOTS = frozenset({"/api", "/apis"})


def is_api_route(scope: Scope) -> bool:
    """Whether the router would send this request to the API's handler."""
    if scope["type"] != "http" or scope.get("root_path"):
        return False
    path: str = scope["path"]
    if path in _ROOTS:
        return True
    return path.startswith(("/api/", "/apis/")) and scope["method"] in _SUBPATH_METHODS


class ApiRoutes:
    def __init__(self, app: ASGIApp, handler: Handler) -> None:
        self.app = app
        self.handler = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not is_api_route(scope):
            await self.app(scope, receive, send)
            return
        response = await self.handler(Request(scope, receive, send))
        deprecated.add(scope, response)
        await response(scope, receive, send)
