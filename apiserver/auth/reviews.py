"""The review APIs: questions about who someone is and what they may do, answered and never stored.

authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`), SelfSubjectRulesReview
(`can-i --list`), SubjectAccessReview and LocalSubjectAccessReview ask the same authorizer every
request passes; authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`) and TokenReview
ask the authenticator. Each takes the posted object and answers it with its `status` filled in,
fields in Go's order.
"""

from __future__ import annotations

from typing import Any, Callable

import orjson

from apiserver import errors
from apiserver.auth.access import Attributes, Authorizer, Decision
from apiserver.auth.tokens import User
from apiserver.errors import FieldError
from apiserver.kinds.validation import invalid_value, label_value, qualified_name
from apiserver.query import fields, labels
from apiserver.registry import meta

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


def _status(decision: Decision, spec: dict[str, Any]) -> dict[str, Any]:
    status: dict[str, Any] = {"allowed": decision.allowed}
    if decision.reason:
        status["reason"] = decision.reason
    errors_seen = _selector_errors(spec.get("resourceAttributes"))
    if errors_seen:
        status["evaluationError"] = "; ".join(errors_seen)
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


def _spec_problems(spec: dict[str, Any], subject: bool) -> list[FieldError]:
    """ValidateSubjectAccessReviewSpec (`subject`) or ValidateSelfSubjectAccessReviewSpec."""
    resource, path = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    problems = []
    if resource is not None and path is not None:
        problems.append(invalid_value("spec.nonResourceAttributes", _internal_path(path),
                                      "cannot be specified in combination with resourceAttributes"))
    if resource is None and path is None:
        problems.append(invalid_value("spec.resourceAttributes", None,
                                      "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
    if subject and not spec.get("user") and not spec.get("groups"):
        problems.append(invalid_value("spec.user", spec.get("user", ""),
                                      "at least one of user or group must be specified"))
    for selector in ("fieldSelector", "labelSelector"):
        given = resource.get(selector) if isinstance(resource, dict) else None
        if not isinstance(given, dict):
            continue
        where = f"spec.resourceAttributes.{selector}"
        if given.get("rawSelector") and given.get("requirements"):
            problems.append(invalid_value(f"{where}.rawSelector", given["rawSelector"],
                                          "may not specified at the same time as requirements"))
        if not given.get("rawSelector") and not given.get("requirements"):
            problems.append(FieldError("FieldValueRequired", f"{where}.requirements",
                                       f"Required value: when {where} is specified, requirements or rawSelector "
                                       "is required"))
        # Unknown operators pass: a newer client's question is still answered, more broadly.
        judge = meta.field_selector_requirement if selector == "fieldSelector" else meta.label_selector_requirement
        for i, requirement in enumerate(given.get("requirements") or ()):
            problems += judge(requirement, f"{where}.requirements[{i}]", allow_unknown_operator=True)
    return problems


def _selector_errors(resource: Any) -> list[str]:
    """BuildEvaluationError's words for selectors the authorizer was asked without (helpers.go
    ResourceAttributesFrom, AuthorizeWithSelectors on at 1.36): a rawSelector labels.Parse or
    fields.ParseSelector refuses, or requirements labelSelectorAsSelector or fieldSelectorAsSelector
    could not turn into a selector; requirements, when given, are what is asked."""
    if not isinstance(resource, dict):
        return []
    found = []
    for selector, judge, parses in (("fieldSelector", _field_requirement_error, _field_selector_parses),
                                    ("labelSelector", _label_requirement_error, _label_selector_parses)):
        given = resource.get(selector)
        if not isinstance(given, dict):
            continue
        requirements, raw = given.get("requirements"), given.get("rawSelector")
        if requirements:
            kept = [r for r in requirements if not judge(r if isinstance(r, dict) else {})]
            if len(kept) < len(requirements):
                partly = "partially " if kept else ""
                found.append(f"spec.resourceAttributes.{selector} {partly}ignored due to parse error")
        elif isinstance(raw, str) and raw and not parses(raw):
            found.append(f"spec.resourceAttributes.{selector} ignored due to parse error")
    return found


def _field_selector_parses(raw: str) -> bool:
    try:
        fields.parse_field_terms(raw)
    except fields.FieldSelectorError:
        return False
    return True


def _label_selector_parses(raw: str) -> bool:
    try:
        labels.parse_label_selector(raw)
    except labels.SelectorError:
        return False
    return True


def _field_requirement_error(requirement: dict[str, Any]) -> bool:
    values = requirement.get("values") or []
    return len(values) != 1 or requirement.get("operator") not in ("In", "NotIn")


def _label_requirement_error(requirement: dict[str, Any]) -> bool:
    """labels.NewRequirement's refusals: an unknown operator, a bad key or value, values the operator
    does not take."""
    operator, values = requirement.get("operator"), requirement.get("values") or []
    if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
        return True
    if qualified_name(str(requirement.get("key") or "")) or any(label_value(str(v)) for v in values):
        return True
    return not values if operator in ("In", "NotIn") else bool(values)


def _internal_path(path: Any) -> dict[str, Any]:
    """NonResourceAttributes as validation shows it: the internal Go struct, which has no json tags."""
    path = path if isinstance(path, dict) else {}
    return {"Path": str(path.get("path") or ""), "Verb": str(path.get("verb") or "")}


def _metadata_problem(meta: dict[str, Any], namespaced: bool) -> list[FieldError]:
    """The review's metadata must be empty but for its managedFields (and a local review's namespace);
    the value shown is the whole ObjectMeta, as Go marshals it."""
    # Semantic equality: an empty list or map is none.
    if not any(k not in ("managedFields", "namespace" if namespaced else "managedFields") and v not in ([], {})
               for k, v in meta.items()):
        return []
    detail = "must be empty except for namespace" if namespaced else "must be empty"
    return [FieldError("FieldValueInvalid", "metadata",
                       f"Invalid value: {orjson.dumps(meta).decode()}: {detail}")]


def _access_spec(spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(spec.get("resourceAttributes"), dict):
        out["resourceAttributes"] = _ordered(spec["resourceAttributes"], _RESOURCE_FIELDS)
    else:
        out["nonResourceAttributes"] = _ordered(spec.get("nonResourceAttributes"), _NON_RESOURCE_FIELDS)
    return out


def _refused(problems: list[FieldError]) -> errors.ApiError:
    # The REST storage names the internal object's kind, which decoding left empty.
    return errors.invalid("", AUTHORIZATION, "", problems)


def self_subject_access_review(authorizer: Authorizer, user: User, body: dict[str, Any]) -> dict[str, Any]:
    raw = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    assert isinstance(raw, dict)
    problems = _spec_problems(raw, False) + _metadata_problem(_metadata(body), False)
    if problems:
        raise _refused(problems)
    spec = _access_spec(raw)
    return {"kind": "SelfSubjectAccessReview", "apiVersion": f"{AUTHORIZATION}/v1", "metadata": _metadata(body),
            "spec": spec, "status": _status(_ask(authorizer, user, spec), raw)}


def subject_access_review(authorizer: Authorizer, body: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    """SubjectAccessReview, or with a namespace LocalSubjectAccessReview, about the user the spec names."""
    kind = "SubjectAccessReview" if namespace is None else "LocalSubjectAccessReview"
    raw = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    assert isinstance(raw, dict)
    problems = _spec_problems(raw, True) + _metadata_problem(_metadata(body), namespace is not None)
    if namespace is not None:
        resource = raw.get("resourceAttributes")
        if isinstance(resource, dict) and resource.get("namespace", "") != namespace:
            problems.append(invalid_value("spec.resourceAttributes.namespace", resource.get("namespace", ""),
                                          "must match metadata.namespace"))
        if raw.get("nonResourceAttributes") is not None:
            problems.append(invalid_value("spec.nonResourceAttributes", _internal_path(raw["nonResourceAttributes"]),
                                          "disallowed on this kind of request"))
    if problems:
        raise _refused(problems)
    spec = _access_spec(raw)
    groups = [g for g in raw.get("groups") or () if isinstance(g, str)]
    name = str(raw.get("user") or "")
    for key in ("user", "groups", "extra", "uid"):
        if raw.get(key):
            spec[key] = raw[key]
    subject = User(name, str(raw.get("uid", "")), tuple(groups))
    return {"kind": kind, "apiVersion": f"{AUTHORIZATION}/v1", "metadata": _metadata(body),
            "spec": spec, "status": _status(_ask(authorizer, subject, spec), raw)}


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
    # Only RBAC resolves rules: the privileged-group authorizer allows, but lists nothing.
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
    # The REST storage answers a new object holding only the status.
    return {"kind": "SelfSubjectRulesReview", "apiVersion": f"{AUTHORIZATION}/v1", "metadata": {},
            "spec": {}, "status": status}


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
    # The bearer-token authenticator's answer when no token authenticator knows the token.
    status: dict[str, Any] = {"user": {}, "error": "invalid bearer token"}
    if found is not None:
        user, granted = found
        status = {"authenticated": True, "user": user_info(user), "audiences": granted}
    out_spec: dict[str, Any] = {"token": token}
    if audiences:
        out_spec["audiences"] = audiences
    return {"kind": "TokenReview", "apiVersion": f"{AUTHENTICATION}/v1", "metadata": _metadata(body),
            "spec": out_spec, "status": status}
