"""The Warning header on every answer about a deprecated kind, added as kube-apiserver adds it.

Upstream records the warning when a request reaches the kind's handler, so whatever the handler answers
carries it (a 404, a 409, a watch stream), while what its filters refuse first does not (401, 403, and
the 429 of too many requests). Which kinds, and the text, are apiserver.kinds.deprecation's. The API's
handler notes in the request's scope the kind a request reached (`reached`), and the API's route
(apiserver.http.api_routes) adds the header to the response it is about to send (`add`): no layer of
its own around every request, and no second parse of the path.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.types import Scope

from apiserver.kinds import deprecation
from apiserver.kinds.resources import ResourceType

# Refused before a request reaches a handler upstream: authentication, authorization, the request
# limits, and a verb the kind's routes do not have.
_BEFORE_THE_HANDLER = frozenset({401, 403, 405, 429})
_REACHED = "apiserver.deprecated_kind_reached"


def reached(scope: Scope, rt: ResourceType, subresource: str | None) -> None:
    """Notes that the request reached `rt`'s handler (a built-in subresource's answer carries no warning;
    a custom resource's version warns on all its paths, as the CRD handler adds it before routing)."""
    if subresource is None or rt.custom is not None:
        scope[_REACHED] = rt


def add(scope: Scope, response: Response) -> None:
    """Adds the Warning header to the answer to a request that reached a deprecated kind."""
    rt: ResourceType | None = scope.get(_REACHED)
    if rt is None or response.status_code in _BEFORE_THE_HANDLER:
        return
    text = deprecation.warning_text(rt) if rt.custom is None else rt.custom.deprecation_warning
    if text is not None:
        # Recorded as the handler starts, before decoding and the strategy add theirs: the first warning.
        first = next((i for i, (name, _) in enumerate(response.raw_headers) if name == b"warning"),
                     len(response.raw_headers))
        response.raw_headers.insert(first, (b"warning", deprecation.warning_header(text).encode()))
