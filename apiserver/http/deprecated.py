"""The Warning header on every answer about a deprecated kind, added as kube-apiserver adds it.

Upstream records the warning when a request reaches the kind's handler, so whatever the handler answers
carries it (a 404, a 409, a watch stream), while what its filters refuse first does not (401, 403, and
the 429 of too many requests). Which kinds, and the text, are apiserver.kinds.deprecation's. Only
resource paths name a kind, and those all reach the API's handler (apiserver.http.api_routes), which
adds the header to the response it is about to send: no layer of its own around every request.
"""

from __future__ import annotations

from starlette.responses import Response

from apiserver.http import requestinfo
from apiserver.kinds import deprecation
from apiserver.kinds.resources import Registry

# Refused before a request reaches a handler upstream: authentication, authorization, the request
# limits, and a verb the kind's routes do not have.
_BEFORE_THE_HANDLER = frozenset({401, 403, 405, 429})


class DeprecationWarnings:
    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def add(self, path: str, response: Response) -> None:
        """Adds the Warning header to the answer to a request for `path` when it names a deprecated kind."""
        if response.status_code in _BEFORE_THE_HANDLER:
            return
        text = self._warning(path)
        if text is not None:
            response.raw_headers.append((b"warning", deprecation.warning_header(text).encode()))

    def _warning(self, path: str) -> str | None:
        parsed = requestinfo.parse(path)
        if not isinstance(parsed, requestinfo.ResourcePath) or parsed.subresource is not None:
            return None
        rt = self.registry.lookup(parsed.group, parsed.version, parsed.resource)
        return None if rt is None else deprecation.warning_text(rt)
