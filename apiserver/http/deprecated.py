"""The Warning header on every answer about a deprecated kind, added around the app as kube-apiserver adds it.

Upstream records the warning when a request reaches the kind's handler, so whatever the handler answers
carries it (a 404, a 409, a watch stream), while what its filters refuse first does not (401, 403, and
the 429 of too many requests). Which kinds, and the text, are apiserver.kinds.deprecation's.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from apiserver.http import requestinfo
from apiserver.kinds import deprecation
from apiserver.kinds.resources import Registry

# Refused before a request reaches a handler upstream: authentication, authorization, the request
# limits, and a verb the kind's routes do not have.
_BEFORE_THE_HANDLER = frozenset({401, 403, 405, 429})


class DeprecationWarnings:
    def __init__(self, app: ASGIApp, registry: Registry) -> None:
        self.app = app
        self.registry = registry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        text = self._warning(scope["path"]) if scope["type"] == "http" else None
        if text is None:
            await self.app(scope, receive, send)
            return
        header = (b"warning", deprecation.warning_header(text).encode())

        async def send_with_warning(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] not in _BEFORE_THE_HANDLER:
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        await self.app(scope, receive, send_with_warning)

    def _warning(self, path: str) -> str | None:
        parsed = requestinfo.parse(path)
        if not isinstance(parsed, requestinfo.ResourcePath) or parsed.subresource is not None:
            return None
        rt = self.registry.lookup(parsed.group, parsed.version, parsed.resource)
        return None if rt is None else deprecation.warning_text(rt)
