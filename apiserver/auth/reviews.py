"""The review APIs: questions about who someone is and what they may do, answered and never stored.

authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`), SelfSubjectRulesReview
(`can-i --list`), SubjectAccessReview and LocalSubjectAccessReview ask the same authorizer every
request passes; authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`) and TokenReview
ask the authenticator. Each takes the posted object and answers it with its `status` filled in,
fields in Go's order.
"""

from __future__ import annotations

from typing import Any, Callable

from apiserver import errors
from apiserver.auth.access import ADMIN_GROUP, Attributes, Authorizer, Decision
from apiserver.auth.tokens import User
from apiserver.kinds.validation import invalid_value

AUTHORIZATION = "authorization.k8s.io"
AUTHENTICATION = "authentication.k8s.io"
GROUPS = frozenset({AUTHORIZATION, AUTHENTICATION})

_RESOURCE_FIELDS = ("namespace", "verb", "group", "version", "resource", "subresource", "name",
                    "fieldSelector", "labelSelector")
_NON_RESOURCE_FIELDS = ("path", "verb")
_FULL_RESOURCE_RULE = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}
_FULL_NON_RESOURCE_RULE = {"verbs": ["*"], "nonResourceURLs": ["*"]}

TokenLookup = Callable[[str, list[str]], tuple[User, list[str]] | None]


def _ordered(value: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    return {key: value[key] for key in fields if value.get(key) not in (None, "", [], {})}


def _metadata(body: dict[str, Any]) -> dict[str, Any]:
    meta = body.get("metadata")
    return {k: v for k, v in meta.items() if v is not None} if isinstance(meta, dict) else {}


def _status(decision: Decision) -> dict[str, Any]:
    status: dict[str, Any] = {"allowed": decision.allowed}
    if decision.reason:
        status["reason"] = decision.reason
    return status


def _ask(authorizer: Authorizer, user: User, spec: dict[str, Any]) -> Decision:
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict):
        attrs = Attributes(str(resource.get("verb", "")), str(resource.get("group", "")),
                           str(resource.get("resource", "")), resource.get("subresource") or None,
                           str(resource.get("namespace", "")), str(resource.get("name", "")))
        return authorizer.decide(user, attrs)
    path = spec.get("nonResourceAttributes") or {}
    return authorizer.decide_path(user, str(path.get("verb", "")), str(path.get("path", "")))


def _access_spec(spec: Any, kind: str) -> dict[str, Any]:
    if not isinstance(spec, dict):
        spec = {}
    has_resource, has_path = isinstance(spec.get("resourceAttributes"), dict), isinstance(
        spec.get("nonResourceAttributes"), dict)
    if has_resource == has_path:
        raise errors.invalid(kind, AUTHORIZATION, "", [invalid_value(
            "spec.resourceAttributes" if has_resource else "spec.nonResourceAttributes", spec.get(
                "resourceAttributes") if has_resource else None,
            "exactly one of nonResourceAttributes or resourceAttributes must be specified")])
    out: dict[str, Any] = {}
    if has_resource:
        out["resourceAttributes"] = _ordered(spec["resourceAttributes"], _RESOURCE_FIELDS)
    else:
        out["nonResourceAttributes"] = _ordered(spec["nonResourceAttributes"], _NON_RESOURCE_FIELDS)
    return out


def self_subject_access_review(authorizer: Authorizer, user: User, body: dict[str, Any]) -> dict[str, Any]:
    spec = _access_spec(body.get("spec"), "SelfSubjectAccessReview")
    return {"kind": "SelfSubjectAccessReview", "apiVersion": f"{AUTHORIZATION}/v1", "metadata": _metadata(body),
            "spec": spec, "status": _status(_ask(authorizer, user, spec))}


def subject_access_review(authorizer: Authorizer, body: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    """SubjectAccessReview, or with a namespace LocalSubjectAccessReview, about the user the spec names."""
    kind = "SubjectAccessReview" if namespace is None else "LocalSubjectAccessReview"
    raw = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    assert isinstance(raw, dict)
    spec = _access_spec(raw, kind)
    if namespace is not None:
        if "nonResourceAttributes" in spec:
            raise errors.invalid(kind, AUTHORIZATION, "", [invalid_value(
                "spec.nonResourceAttributes", spec["nonResourceAttributes"], "disallowed on this kind of request")])
        if spec["resourceAttributes"].get("namespace", "") != namespace:
            raise errors.bad_request(f"spec.resourceAttributes.namespace must match namespace: {namespace}")
    groups = [g for g in raw.get("groups") or () if isinstance(g, str)]
    name = str(raw.get("user") or "")
    if not name and not groups:
        raise errors.invalid(kind, AUTHORIZATION, "", [invalid_value(
            "spec.user", "", "at least one of user or group must be specified")])
    for key in ("user", "groups", "extra", "uid"):
        if raw.get(key):
            spec[key] = raw[key]
    subject = User(name, str(raw.get("uid", "")), tuple(groups))
    return {"kind": kind, "apiVersion": f"{AUTHORIZATION}/v1", "metadata": _metadata(body),
            "spec": spec, "status": _status(_ask(authorizer, subject, spec))}


def _resource_rule(rule: dict[str, Any]) -> dict[str, Any]:
    return {k: rule[k] for k in ("verbs", "apiGroups", "resources", "resourceNames") if k in rule}


def self_subject_rules_review(authorizer: Authorizer, user: User, body: dict[str, Any]) -> dict[str, Any]:
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    namespace = spec.get("namespace")
    if not namespace:
        raise errors.bad_request("no namespace on request")
    resource_rules: list[dict[str, Any]] = []
    path_rules: list[dict[str, Any]] = []
    # The superuser authorizer answers first with everything, then RBAC with what is bound.
    if ADMIN_GROUP in user.groups:
        resource_rules.append(dict(_FULL_RESOURCE_RULE))
        path_rules.append(dict(_FULL_NON_RESOURCE_RULE))
    grants = authorizer.policy.grants_for(user, str(namespace))
    for _, rules in grants.sources:
        for rule in rules:
            as_json = rule.to_json()
            if rule.resources:
                resource_rules.append(_resource_rule(as_json))
            if rule.urls:
                path_rules.append({"verbs": as_json["verbs"], "nonResourceURLs": as_json["nonResourceURLs"]})
    status: dict[str, Any] = {"resourceRules": resource_rules, "nonResourceRules": path_rules,
                              "incomplete": False}
    if grants.problems:
        status["evaluationError"] = grants.problems[0] if len(grants.problems) == 1 else (
            "[" + ", ".join(grants.problems) + "]")
    return {"kind": "SelfSubjectRulesReview", "apiVersion": f"{AUTHORIZATION}/v1", "metadata": _metadata(body),
            "spec": {"namespace": namespace}, "status": status}


def user_info(user: User) -> dict[str, Any]:
    info: dict[str, Any] = {}
    if user.name:
        info["username"] = user.name
    if user.uid:
        info["uid"] = user.uid
    if user.groups:
        info["groups"] = list(user.groups)
    if user.extra:
        info["extra"] = user.extra_json()
    return info


def self_subject_review(user: User, now: str) -> dict[str, Any]:
    return {"kind": "SelfSubjectReview", "apiVersion": f"{AUTHENTICATION}/v1",
            "metadata": {"creationTimestamp": now}, "status": {"userInfo": user_info(user)}}


def token_review(lookup: TokenLookup, body: dict[str, Any]) -> dict[str, Any]:
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    token = spec.get("token")
    if not isinstance(token, str) or not token:
        raise errors.bad_request("token is required for TokenReview in authentication")
    audiences = [a for a in spec.get("audiences") or () if isinstance(a, str)]
    found = lookup(token, audiences)
    status: dict[str, Any] = {"user": {}}
    if found is not None:
        user, granted = found
        status = {"authenticated": True, "user": user_info(user), "audiences": granted}
    out_spec: dict[str, Any] = {"token": token}
    if audiences:
        out_spec["audiences"] = audiences
    return {"kind": "TokenReview", "apiVersion": f"{AUTHENTICATION}/v1", "metadata": _metadata(body),
            "spec": out_spec, "status": status}
