"""Kubernetes' CEL authorizer library (`k8s.io/apiserver/pkg/cel/library/authz.go`), for admission
policies' and webhooks' `authorizer` and `authorizer.requestResource`.

`authorizer.group('').resource('pods').namespace('x').check('get')` asks the server's authorizer
whether the requesting user may get pods in x, and answers a decision with `allowed()`, `reason()`,
`errored()` and `error()`; `authorizer.path('/healthz').check('get')` asks about a path;
`authorizer.serviceAccount(ns, name)` asks as that service account instead; `subresource`, `name`,
`fieldSelector`, `labelSelector` narrow a resource check. The builders are one-field-per-part
messages under upstream's type names (`kubernetes.authorization.ResourceCheck`...), built and read by
Python functions. What crosses this seam is a `Decider`: the admission layer registers the server's
authorizer once and an `Authorizer` value names it by number, so this package never imports the
authorizer, and a value carries what a check needs: the user and which decider answers.
"""

from __future__ import annotations

from typing import Any, Protocol

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, message_factory

from apiserver.cel import opaque
from apiserver.kinds import validation as names

PACKAGE = "kubernetes.authorization"
_F = descriptor_pb2.FieldDescriptorProto


class Decider(Protocol):
    """The server's authorizer as the library asks it: (allowed, reason) for a user and a request."""

    def resource(self, user: str, groups: tuple[str, ...], verb: str, group: str, resource: str,
                 subresource: str, namespace: str, name: str) -> tuple[bool, str]: ...

    def path(self, user: str, groups: tuple[str, ...], verb: str, path: str) -> tuple[bool, str]: ...


_DECIDERS: dict[int, Decider] = {}


def register(decider: Decider) -> int:
    """The number an `Authorizer` value names `decider` by (one per server)."""
    number = len(_DECIDERS) + 1
    _DECIDERS[number] = decider
    return number


def _file() -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto(name="k8s_authorization.proto", package=PACKAGE, syntax="proto3")

    def message(name: str, fields: list[tuple[str, int, str]]) -> None:
        added = proto.message_type.add(name=name)
        for number, (field, kind, type_name) in enumerate(fields, start=1):
            repeated = field == "groups"
            added.field.add(name=field, number=number, type=kind,
                            label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL)
            if type_name:
                added.field[-1].type_name = type_name

    text, flag, number = _F.TYPE_STRING, _F.TYPE_BOOL, _F.TYPE_INT64
    authorizer = (f".{PACKAGE}.Authorizer", _F.TYPE_MESSAGE)
    message("Authorizer", [("decider", number, ""), ("user", text, ""), ("groups", text, ""),
                           ("requestResource", _F.TYPE_MESSAGE, f".{PACKAGE}.ResourceCheck")])
    message("PathCheck", [("authorizer", authorizer[1], authorizer[0]), ("path", text, "")])
    message("GroupCheck", [("authorizer", authorizer[1], authorizer[0]), ("group", text, "")])
    message("ResourceCheck", [("authorizer", authorizer[1], authorizer[0]), ("group", text, ""),
                              ("resource", text, ""), ("subresource", text, ""), ("namespace", text, ""),
                              ("name", text, ""), ("fieldSelector", text, ""), ("labelSelector", text, "")])
    message("Decision", [("allowed", flag, ""), ("reason", text, ""), ("errored", flag, ""), ("error", text, "")])
    return proto


opaque.add_file(_file())


def _message_class(name: str) -> Any:
    return message_factory.GetMessageClass(opaque.POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))


Authorizer, PathCheck, GroupCheck, ResourceCheck, Decision = (
    _message_class(name) for name in ("Authorizer", "PathCheck", "GroupCheck", "ResourceCheck", "Decision"))


class AuthzError(ValueError):
    pass


def authorizer_value(decider: int, user: str, groups: tuple[str, ...], group: str, resource: str,
                     subresource: str, namespace: str, name: str) -> Any:
    """The `authorizer` of one request: its user, and as `requestResource` the request's own resource."""
    value = Authorizer(decider=decider, user=user, groups=groups)
    value.requestResource.CopyFrom(ResourceCheck(
        authorizer=Authorizer(decider=decider, user=user, groups=groups), group=group, resource=resource,
        subresource=subresource, namespace=namespace, name=name))
    return value


def _path(authorizer: Any, path: str) -> Any:
    if not path.strip():
        raise AuthzError("path must not be empty")
    return PathCheck(authorizer=authorizer, path=path)


def _group(authorizer: Any, group: str) -> Any:
    return GroupCheck(authorizer=authorizer, group=group)


def _service_account(authorizer: Any, namespace: str, name: str) -> Any:
    if names.dns1123_subdomain(name):
        raise AuthzError("Invalid service account name")
    if names.dns1123_label(namespace):
        raise AuthzError("Invalid service account namespace")
    # ServiceAccountInfo.UserInfo(): the account's name and its two groups, nothing else.
    return Authorizer(decider=authorizer.decider, user=f"system:serviceaccount:{namespace}:{name}",
                      groups=("system:serviceaccounts", f"system:serviceaccounts:{namespace}"))


def _resource(check: Any, resource: str) -> Any:
    if not resource.strip():
        raise AuthzError("resource must not be empty")
    return ResourceCheck(authorizer=check.authorizer, group=check.group, resource=resource)


def _narrowed(part: str) -> Any:
    def narrow(check: Any, value: str) -> Any:
        narrowed = ResourceCheck()
        narrowed.CopyFrom(check)
        setattr(narrowed, part, value)
        return narrowed
    return narrow


def _decision(allowed: bool, reason: str) -> Any:
    return Decision(allowed=allowed, reason=reason)


def _check_resource(check: Any, verb: str) -> Any:
    # Field and label selectors reach the authorizer upstream, but RBAC, the only one here, ignores them.
    who = check.authorizer
    return _decision(*_DECIDERS[who.decider].resource(who.user, tuple(who.groups), verb, check.group, check.resource,
                                                       check.subresource, check.namespace, check.name))


def _check_path(check: Any, verb: str) -> Any:
    who = check.authorizer
    return _decision(*_DECIDERS[who.decider].path(who.user, tuple(who.groups), verb, check.path))


def _check(check: Any, verb: str) -> Any:
    return (_check_path if check.DESCRIPTOR.name == "PathCheck" else _check_resource)(check, verb)


T = cel.Type
AUTHORIZER, PATH_CHECK, GROUP_CHECK, RESOURCE_CHECK, DECISION = (
    T(f"{PACKAGE}.{name}") for name in ("Authorizer", "PathCheck", "GroupCheck", "ResourceCheck", "Decision"))


def _member(name: str, overload: str, ret: Any, params: list[Any], impl: Any) -> Any:
    return cel.FunctionDecl(name, [cel.Overload(overload, ret, params, is_member=True, impl=impl)])


def declarations(checking: bool) -> list[Any]:
    """The library's functions. cel-expr-python's runtime tells overloads apart by their operands' kinds,
    and every message is one kind, so programs run one `check` that looks at which check it was given;
    the type checker sees upstream's two."""
    S, B = T.STRING, T.BOOL
    check = cel.FunctionDecl("check", [
        cel.Overload("pathcheck_check", DECISION, [PATH_CHECK, S], is_member=True, impl=_check_path),
        cel.Overload("resourcecheck_check", DECISION, [RESOURCE_CHECK, S], is_member=True, impl=_check_resource),
    ]) if checking else _member("check", "check", DECISION, [T.DYN, S], _check)
    narrowing = [_member(part, overload, RESOURCE_CHECK, [RESOURCE_CHECK, S], _narrowed(part)) for part, overload in (
        ("subresource", "resourcecheck_subresource"), ("namespace", "resourcecheck_namespace"),
        ("name", "resourcecheck_name"), ("fieldSelector", "authorizer_fieldselector"),
        ("labelSelector", "authorizer_labelselector"))]
    return [
        _member("path", "authorizer_path", PATH_CHECK, [AUTHORIZER, S], _path),
        _member("group", "authorizer_group", GROUP_CHECK, [AUTHORIZER, S], _group),
        _member("serviceAccount", "authorizer_serviceaccount", AUTHORIZER, [AUTHORIZER, S, S], _service_account),
        _member("resource", "groupcheck_resource", RESOURCE_CHECK, [GROUP_CHECK, S], _resource),
        *narrowing,
        check,
        _member("errored", "decision_errored", B, [DECISION], lambda d: d.errored),
        _member("error", "decision_error", S, [DECISION], lambda d: d.error),
        _member("allowed", "decision_allowed", B, [DECISION], lambda d: d.allowed),
        _member("reason", "decision_reason", S, [DECISION], lambda d: d.reason),
    ]
