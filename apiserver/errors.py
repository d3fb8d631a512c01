"""The one error type of the server: a Kubernetes `Status` waiting to be written.

Every layer reports failures by returning or raising an `ApiError`; the HTTP edge renders it.
Constructors below carry kube-apiserver's reasons and message wording.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson


@dataclass
class ApiError(Exception):
    code: int
    reason: str
    message: str
    details: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    list_metadata: dict[str, Any] | None = None  # a Status's ListMeta, e.g. a continue token offered with a 410

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": self.list_metadata or {},
            "status": "Failure",
            "message": self.message,
        }
        if self.reason:
            body["reason"] = self.reason
        if self.details is not None:
            body["details"] = self.details
        body["code"] = self.code
        return body

    def to_bytes(self) -> bytes:
        return orjson.dumps(self.status())


def _details(name: str, group: str, kind: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name} if name else {}  # each omitempty
    if group:
        details["group"] = group
    if kind:
        details["kind"] = kind
    return details


def qualified(resource: str, group: str) -> str:
    return f"{resource}.{group}" if group else resource


def not_found(resource: str, group: str, name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{qualified(resource, group)} "{name}" not found',
                    _details(name, group, resource))


def resource_not_found() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource", {})


def already_exists(resource: str, group: str, name: str) -> ApiError:
    return ApiError(409, "AlreadyExists", f'{qualified(resource, group)} "{name}" already exists',
                    _details(name, group, resource))


def conflict(resource: str, group: str, name: str, why: str) -> ApiError:
    return ApiError(409, "Conflict",
                    f'Operation cannot be fulfilled on {qualified(resource, group)} "{name}": {why}',
                    _details(name, group, resource))


def stale_update(resource: str, group: str, name: str) -> ApiError:
    return conflict(resource, group, name,
                    "the object has been modified; please apply your changes to the latest version and try again")


@dataclass(frozen=True)
class FieldError:
    kind: str  # FieldValueRequired, FieldValueInvalid, ...
    path: str
    message: str

    def cause(self) -> dict[str, str]:
        return {"reason": self.kind, "message": self.message, "field": self.path}


def aggregate(messages: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(), as ErrorList.ToAggregate gives it: one message as it is,
    several said once each inside brackets."""
    unique = list(dict.fromkeys(messages))
    return ", ".join(unique) if len(unique) < 2 else "[" + ", ".join(unique) + "]"


def invalid(kind: str, group: str, name: str, errors: list[FieldError]) -> ApiError:
    # The message is ErrorList.ToAggregate's: a cause repeated word for word is said once; the causes keep all.
    summary = aggregate([f"{e.path}: {e.message}" for e in errors])
    details = _details(name, group, kind)
    details["causes"] = [e.cause() for e in errors]
    return ApiError(422, "Invalid", f'{kind}{"." + group if group else ""} "{name}" is invalid: {summary}', details)


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


_NOT_ALLOWED = "the server does not allow this method on the requested resource"


def method_not_allowed(message: str = _NOT_ALLOWED) -> ApiError:
    """go-restful's answer where no route takes the method (kube-apiserver registers one per verb a
    resource has); `message` only for this server's own refusals."""
    return ApiError(405, "MethodNotAllowed", message, {})


def unsupported_media_type(accepted: list[str]) -> ApiError:
    return ApiError(415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types include: "
                    + ", ".join(accepted))


def too_large(limit: int) -> ApiError:
    return ApiError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")


def object_too_large(size: int, limit: int) -> ApiError:
    # etcd's own refusal, which kube-apiserver passes on as 413.
    return ApiError(413, "RequestEntityTooLarge",
                    f"Request entity too large: the object is {size} bytes once encoded, limit is {limit}: "
                    "request is too large")


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized", "Unauthorized")


def _with_reason(message: str, reason: str) -> str:
    # kube-apiserver appends the authorizer's reason (RBAC's missing roles) after a colon.
    return f"{message}: {reason}" if reason else message


def forbidden(user: str, verb: str, group: str, resource: str, subresource: str | None, namespace: str,
              name: str, reason: str = "") -> ApiError:
    what = f"{resource}/{subresource}" if subresource else resource
    where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    why = f'User "{user}" cannot {verb} resource "{what}" in API group "{group}" {where}'
    subject = f'{qualified(resource, group)} "{name}"' if name else qualified(resource, group)
    details: dict[str, Any] = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = resource
    return ApiError(403, "Forbidden", _with_reason(f"{subject} is forbidden: {why}", reason), details)


def forbidden_path(user: str, verb: str, path: str, reason: str = "") -> ApiError:
    return ApiError(403, "Forbidden", _with_reason(f'forbidden: User "{user}" cannot {verb} path "{path}"', reason),
                    {})


def forbidden_object(resource: str, group: str, name: str, why: str) -> ApiError:
    """A write refused for what it holds (upstream's NewForbidden), not for who asked."""
    return ApiError(403, "Forbidden", f'{qualified(resource, group)} "{name}" is forbidden: {why}',
                    _details(name, group, resource))


def too_many_requests(message: str, retry_after: int) -> ApiError:
    return ApiError(429, "TooManyRequests", message, {"retryAfterSeconds": retry_after},
                    {"Retry-After": str(retry_after)})


def timeout() -> ApiError:
    return ApiError(504, "Timeout", "Timeout: request did not complete within requested timeout - "
                                    "context deadline exceeded", {})


def unavailable(message: str) -> ApiError:
    return ApiError(503, "ServiceUnavailable", message, {}, {"Retry-After": "1"})


def not_acceptable(message: str) -> ApiError:
    return ApiError(406, "NotAcceptable", message)


def gone(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


def namespace_missing(namespace: str) -> ApiError:
    return ApiError(404, "NotFound", f'namespaces "{namespace}" not found',
                    {"name": namespace, "kind": "namespaces"})


def namespace_terminating(namespace: str, resource: str, group: str, name: str) -> ApiError:
    return ApiError(403, "Forbidden",
                    f'{qualified(resource, group)} "{name}" is forbidden: unable to create new content in namespace '
                    f'{namespace} because it is being terminated',
                    _details(name, group, resource))


def unknown(message: str) -> ApiError:
    """A plain Go error reaching the handler: upstream's ErrorToAPIStatus answers it 500, with no reason."""
    return ApiError(500, "", message)


def internal(message: str) -> ApiError:
    """NewInternalError: the error's text is also the one cause."""
    return ApiError(500, "InternalError", f"Internal error occurred: {message}", {"causes": [{"message": message}]})
