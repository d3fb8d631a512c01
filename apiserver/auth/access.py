"""Who may do what: kube-apiserver's authorizer chain, system:masters first, then RBAC over the stored objects.

What crosses this seam: a user and a request's attributes in, allow or a 403 `ApiError` out. The
policy (every Role, ClusterRole and binding, aggregation resolved) is compiled once per change of any
of them, and decisions are remembered per (user, groups, request attributes) until the next change,
so a request pays for a dict lookup, not for walking the bindings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

import orjson

from apiserver import errors
from apiserver.auth import bootstrap_policy, rbac
from apiserver.auth.tokens import AUTHENTICATED_GROUP, User
from apiserver.storage.interface import Change, Store

ADMIN_GROUP = "system:masters"
VIEW_GROUP = "fastkube:view"
ROLE_GROUPS = {"admin": (ADMIN_GROUP,), "view": (VIEW_GROUP,)}

# The user of the loopback-only plain HTTP mode, named as kube-apiserver's old insecure port did.
UNSECURED = User("system:unsecured", "", (ADMIN_GROUP, AUTHENTICATED_GROUP))
# Who a request without credentials is under --anonymous-auth, as upstream names it.
ANONYMOUS = User("system:anonymous", "", ("system:unauthenticated",))

_RBAC = "rbac.authorization.k8s.io"
_STORAGE_KEYS = tuple(f"{_RBAC}/{plural}" for plural in ("roles", "rolebindings", "clusterroles",
                                                          "clusterrolebindings"))
# Decisions remembered between policy changes; past this many the memory starts over.
_MAX_DECISIONS = 50_000


# A named tuple, not a frozen dataclass: one is made and hashed (the key of the remembered decisions)
# on every request, and a tuple is made, hashed and compared in C.
class Attributes(NamedTuple):
    """One resource request as the authorizer sees it."""

    verb: str
    group: str
    resource: str
    subresource: str | None
    namespace: str
    name: str


@dataclass(frozen=True)
class Decision:
    allowed: bool
    # Which binding allowed it; or why nothing did, when a binding of the user's names a role that does
    # not exist (upstream's RBAC reason, which its 403 message carries after a colon).
    reason: str = ""


# Made once: an administrator's every request is decided, and a frozen dataclass runs Python to be made.
_ADMIN = Decision(True)

_Binding = tuple[str, Any, str, str]  # name, subjects, roleRef kind, roleRef name


@dataclass
class Grants:
    sources: list[tuple[str, list[rbac.Rule]]]  # (which binding of which role to which subject, its rules)
    problems: list[str]  # bindings whose role does not exist


class Policy:
    """Every RBAC object as of one revision, compiled for lookups by user and namespace."""

    def __init__(self, objects: dict[str, list[dict[str, Any]]]) -> None:
        cluster_roles = {o["metadata"]["name"]: o for o in objects["clusterroles"]}
        self._cluster_rules = rbac.aggregated_rules(cluster_roles)
        self._role_rules = {(o["metadata"].get("namespace", ""), o["metadata"]["name"]): rbac.rules_of(o)
                            for o in objects["roles"]}
        self._cluster_bindings = [_binding(o) for o in [*objects["clusterrolebindings"],
                                                         bootstrap_policy.VIEW_BINDING]]
        self._bindings: dict[str, list[_Binding]] = {}
        for o in objects["rolebindings"]:
            self._bindings.setdefault(o["metadata"].get("namespace", ""), []).append(_binding(o))
        self._grants: dict[tuple[str, tuple[str, ...], str], Grants] = {}

    def grants_for(self, user: User, namespace: str) -> Grants:
        """What every binding that applies to the user grants in `namespace` ("" for the cluster scope),
        each with upstream's description of the binding, and the errors of bindings whose role is missing."""
        key = (user.name, user.groups, namespace)
        found = self._grants.get(key)
        if found is not None:
            return found
        grants = Grants([], [])
        for binding_name, subjects, kind, name in self._cluster_bindings:
            subject = rbac.applying_subject(subjects, user.name, user.groups, "")
            if subject is not None:
                self._collect(grants, f"ClusterRoleBinding {rbac.go_quote(binding_name)}", subject, kind, name, "")
        if namespace:
            for binding_name, subjects, kind, name in self._bindings.get(namespace, ()):
                subject = rbac.applying_subject(subjects, user.name, user.groups, namespace)
                if subject is not None:
                    self._collect(grants, f"RoleBinding {rbac.go_quote(binding_name + '/' + namespace)}", subject,
                                  kind, name, namespace)
        self._grants[key] = grants
        return grants

    def rules_for(self, user: User, namespace: str) -> list[rbac.Rule]:
        return [rule for _, rules in self.grants_for(user, namespace).sources for rule in rules]

    def _collect(self, grants: Grants, binding: str, subject: dict[str, Any], kind: str, name: str,
                 namespace: str) -> None:
        if kind == "ClusterRole":
            found = self._cluster_rules.get(name)
            missing = f'clusterrole.rbac.authorization.k8s.io "{name}" not found'
        else:
            found = self._role_rules.get((namespace, name))
            missing = f'role.rbac.authorization.k8s.io "{name}" not found'
        if found is None:
            grants.problems.append(missing)
        else:
            source = f"{binding} of {kind} {rbac.go_quote(name)} to {rbac.describe_subject(subject, namespace)}"
            grants.sources.append((source, found))

    def role_rules(self, kind: str, name: str, namespace: str) -> list[rbac.Rule] | None:
        """What a roleRef grants, None when its role does not exist."""
        if kind == "ClusterRole":
            return self._cluster_rules.get(name)
        return self._role_rules.get((namespace, name))


def _binding(obj: dict[str, Any]) -> _Binding:
    ref = obj.get("roleRef") or {}
    return str(obj["metadata"]["name"]), obj.get("subjects"), str(ref.get("kind", "")), str(ref.get("name", ""))


def _reason(problems: list[str]) -> str:
    if not problems:
        return ""
    # Go's aggregate error: one error as itself, several in brackets.
    return "RBAC: " + (problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]")


# kube-apiserver's --authorization-mode values this server carries out, tried in the order given: RBAC
# allows or has no opinion, AlwaysAllow allows and AlwaysDeny refuses whatever reaches it.
AUTHORIZATION_MODES = ("RBAC", "AlwaysAllow", "AlwaysDeny")
_ALWAYS_ALLOW = Decision(True)


class Authorizer:
    def __init__(self, store: Store, modes: tuple[str, ...] = ("RBAC",)) -> None:
        self._modes = modes
        self._store = store
        self._policy: Policy | None = None
        self._decisions: dict[tuple[Any, ...], Decision] = {}
        self._unsubscribe: list[Callable[[], None]] = [store.subscribe(key, self._changed) for key in _STORAGE_KEYS]

    def _changed(self, change: Change) -> None:
        self._policy = None
        self._decisions = {}

    @property
    def policy(self) -> Policy:
        policy = self._policy
        if policy is None:
            objects = {}
            for key in _STORAGE_KEYS:
                _, items = self._store.list(key, None)
                objects[key.rsplit("/", 1)[1]] = [orjson.loads(stored.data) for _, stored in items]
            policy = self._policy = Policy(objects)
        return policy

    def _remember(self, key: tuple[Any, ...], decision: Decision) -> Decision:
        if len(self._decisions) >= _MAX_DECISIONS:
            self._decisions = {}
        self._decisions[key] = decision
        return decision

    def decide(self, user: User, attrs: Attributes) -> Decision:
        if ADMIN_GROUP in user.groups:
            return _ADMIN
        key = (user.name, user.groups, attrs)
        found = self._decisions.get(key)
        if found is not None:
            return found
        return self._remember(key, self._chain(lambda: self._rbac(user, attrs)))

    def _chain(self, by_rbac: Callable[[], Decision]) -> Decision:
        """The first mode with an opinion decides; RBAC's refusal is only its lack of one."""
        refused = Decision(False)
        for mode in self._modes:
            if mode == "AlwaysAllow":
                return _ALWAYS_ALLOW
            if mode == "AlwaysDeny":
                return refused
            refused = by_rbac()
            if refused.allowed:
                return refused
        return refused

    def _rbac(self, user: User, attrs: Attributes) -> Decision:
        grants = self.policy.grants_for(user, attrs.namespace)
        for source, rules in grants.sources:
            if any(r.allows(attrs.verb, attrs.group, attrs.resource, attrs.subresource, attrs.name) for r in rules):
                return Decision(True, f"RBAC: allowed by {source}")
        return Decision(False, _reason(grants.problems))

    def decide_path(self, user: User, verb: str, path: str) -> Decision:
        if ADMIN_GROUP in user.groups:
            return _ADMIN
        key = (user.name, user.groups, verb, path)
        found = self._decisions.get(key)
        if found is not None:
            return found
        return self._remember(key, self._chain(lambda: self._rbac_path(user, verb, path)))

    def _rbac_path(self, user: User, verb: str, path: str) -> Decision:
        grants = self.policy.grants_for(user, "")
        for source, rules in grants.sources:
            if any(r.allows_path(verb, path) for r in rules):
                return Decision(True, f"RBAC: allowed by {source}")
        return Decision(False, _reason(grants.problems))

    def allowed(self, user: User, attrs: Attributes) -> bool:
        return self.decide(user, attrs).allowed

    def authorize(self, user: User, attrs: Attributes) -> None:
        """Raises 403 Forbidden, worded as kube-apiserver's, when the user may not do this."""
        decision = self.decide(user, attrs)
        if not decision.allowed:
            raise errors.forbidden(user.name, attrs.verb, attrs.group, attrs.resource, attrs.subresource,
                                   attrs.namespace, attrs.name, decision.reason)

    def authorize_path(self, user: User, verb: str, path: str) -> None:
        """Raises 403 Forbidden when the user may not reach a path that names no resource (/metrics)."""
        decision = self.decide_path(user, verb, path)
        if not decision.allowed:
            raise errors.forbidden_path(user.name, verb, path, decision.reason)
