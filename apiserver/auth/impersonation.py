"""Impersonation: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-*` headers (kubectl --as, --as-group),
each checked against the `impersonate` verb as kube-apiserver's filter does.

Impersonating `system:serviceaccount:NS:NAME` asks for the serviceaccounts resource in NS; any other
user for `users`, groups for `groups`, a uid for `uids` and extras for `userextras/<key>` (the last
two in authentication.k8s.io). The request then runs as the impersonated user, who is in
system:authenticated (and for a ServiceAccount its groups) unless groups were given.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence
from urllib.parse import unquote

from apiserver import errors
from apiserver.auth.access import Attributes, Authorizer
from apiserver.auth.rbac import SERVICE_ACCOUNT_PREFIX, go_quote
from apiserver.auth.tokens import AUTHENTICATED_GROUP, User

USER_HEADER = "impersonate-user"
GROUP_HEADER = "impersonate-group"
UID_HEADER = "impersonate-uid"
EXTRA_PREFIX = "impersonate-extra-"
ANONYMOUS = "system:anonymous"


def wanted(header_names: Iterable[bytes]) -> bool:
    """Whether a request asks to impersonate anyone, from its raw, lower-cased header names (checked
    on every request, so without decoding them, and as one search in C rather than a Python loop)."""
    return b"\nimpersonate-" in b"\n" + b"\n".join(header_names)


def _check(authorizer: Authorizer, requester: User, attrs: Attributes) -> None:
    decision = authorizer.decide(requester, attrs)
    if not decision.allowed:
        raise errors.forbidden(requester.name, "impersonate", attrs.group, attrs.resource, attrs.subresource,
                               attrs.namespace, attrs.name, decision.reason)


_BROKEN_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _extra_key(encoded: str) -> str:
    """Header names cannot hold every key (e.g. "/"), so clients percent-encode them; a key that is not
    well encoded is taken as it is, as Go's PathUnescape failing leaves it upstream."""
    return encoded if _BROKEN_ESCAPE.search(encoded) else unquote(encoded)


def _go_syntax(uid: str, groups: list[str], extras: dict[str, list[str]]) -> str:
    """The user the headers asked for, as Go's %#v prints the *user.DefaultInfo they make
    (processImpersonationHeaders): a slice or map never set is nil; a map's keys sorted."""
    def strings(values: list[str]) -> str:
        return "[]string{" + ", ".join(go_quote(v) for v in values) + "}"
    shown_groups = strings(groups) if groups else "[]string(nil)"
    shown_extra = ("map[string][]string{" + ", ".join(f"{go_quote(k)}:{strings(extras[k])}" for k in sorted(extras))
                   + "}") if extras else "map[string][]string(nil)"
    return f'&user.DefaultInfo{{Name:"", UID:{go_quote(uid)}, Groups:{shown_groups}, Extra:{shown_extra}}}'


def impersonate(authorizer: Authorizer, requester: User, headers: Sequence[tuple[str, str]]) -> User:
    """The user the request runs as; 400 when groups or extras come without a user, 403 when not allowed."""
    users = [value for name, value in headers if name == USER_HEADER]
    groups = [value for name, value in headers if name == GROUP_HEADER]
    uids = [value for name, value in headers if name == UID_HEADER]
    extras: dict[str, list[str]] = {}
    for name, value in headers:
        if name.startswith(EXTRA_PREFIX):
            extras.setdefault(_extra_key(name[len(EXTRA_PREFIX):]), []).append(value)
    if not (users or groups or uids or extras):
        return requester  # some other Impersonate-* header, which upstream ignores too
    if not users or not users[0]:
        raise errors.bad_request(f"requested {_go_syntax(uids[0] if uids else '', groups, extras)} without "
                                 "impersonating a user name")
    # As Go's Header.Get, the first value counts.
    username = users[0]
    if username.startswith(SERVICE_ACCOUNT_PREFIX) and username.count(":") == 3:
        namespace, account = username[len(SERVICE_ACCOUNT_PREFIX):].split(":", 1)
        _check(authorizer, requester, Attributes("impersonate", "", "serviceaccounts", None, namespace, account))
        implied: tuple[str, ...] = ("system:serviceaccounts", f"system:serviceaccounts:{namespace}")
    else:
        _check(authorizer, requester, Attributes("impersonate", "", "users", None, "", username))
        implied = ()
    for group in groups:
        _check(authorizer, requester, Attributes("impersonate", "", "groups", None, "", group))
    for uid in uids:
        _check(authorizer, requester, Attributes("impersonate", "authentication.k8s.io", "uids", None, "", uid))
    for key, values in extras.items():
        for value in values:
            _check(authorizer, requester,
                   Attributes("impersonate", "authentication.k8s.io", "userextras", key, "", value))
    resulting = tuple(groups) if groups else implied
    if username != ANONYMOUS and AUTHENTICATED_GROUP not in resulting:
        resulting += (AUTHENTICATED_GROUP,)
    extra = tuple((key, tuple(values)) for key, values in extras.items())
    return User(username, uids[0] if uids else "", resulting, extra)
