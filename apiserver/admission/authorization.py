"""The server's authorizer as admission's CEL `authorizer` asks it (apiserver/cel/authz.py's Decider), and
the `authorizer` value of one request.

Upstream hands policies and webhook match conditions the server's whole authorizer chain
(`NewResourceAuthorizerVal` over the admission initializer's authorizer): here that is
apiserver/auth/access.py's, so system:masters is allowed with no reason, RBAC answers with its
reasons, and its remembered decisions serve CEL's checks too.
"""

from __future__ import annotations

from typing import Any

from apiserver.admission.attributes import Attributes
from apiserver.auth import access
from apiserver.auth.tokens import User
from apiserver.cel import authz


class AuthorizerDecider:
    def __init__(self, authorizer: access.Authorizer) -> None:
        self._authorizer = authorizer

    def resource(self, user: str, groups: tuple[str, ...], verb: str, group: str, resource: str,
                 subresource: str, namespace: str, name: str) -> tuple[bool, str]:
        decision = self._authorizer.decide(User(user, "", groups),
                                           access.Attributes(verb, group, resource, subresource or None, namespace,
                                                             name))
        return decision.allowed, decision.reason

    def path(self, user: str, groups: tuple[str, ...], verb: str, path: str) -> tuple[bool, str]:
        decision = self._authorizer.decide_path(User(user, "", groups), verb, path)
        return decision.allowed, decision.reason


def register(authorizer: access.Authorizer | None) -> int | None:
    """The number requests' `authorizer` values name the server's authorizer by; None without one."""
    return None if authorizer is None else authz.register(AuthorizerDecider(authorizer))


def request_authorizer(decider: int, attributes: Attributes) -> Any:
    """`authorizer` for this request: its user, with `requestResource` the resource it writes."""
    return authz.authorizer_value(decider, attributes.user.name, attributes.user.groups, attributes.resource.group,
                                  attributes.resource.resource, attributes.subresource, attributes.namespace,
                                  attributes.name)
