"""AdmissionReview: the request a webhook is sent (admission.k8s.io/v1 or v1beta1, the first of the
webhook's admissionReviewVersions this server speaks) and the checks its answer must pass, as
upstream's `request/admissionreview.go` writes and verifies them.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass
from typing import Any

from apiserver import errors
from apiserver.admission.attributes import Attributes, Obj
from apiserver.admission.webhook.matching import Invocation

_KNOWN_VERSIONS = ("v1", "v1beta1")
_V1_REVIEW = "admission.k8s.io/v1, Kind=AdmissionReview"


def _gvk_string(api_version: str, kind: str) -> str:
    """schema.GroupVersionKind's String(): "group/version, Kind=kind", the group empty for core."""
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


class InvalidResponse(Exception):
    """The answer is not a usable AdmissionReview (upstream: "received invalid webhook response: ...")."""


@dataclass(frozen=True)
class Response:
    allowed: bool
    patch: bytes
    patch_type: str
    result: dict[str, Any] | None
    warnings: tuple[str, ...]
    audit_annotations: dict[str, str]


def review_version(versions: tuple[str, ...]) -> str | None:
    """The first AdmissionReview version the webhook accepts that this server can send."""
    return next((v for v in versions if v in _KNOWN_VERSIONS), None)


def _user_info(a: Attributes) -> dict[str, Any]:
    info: dict[str, Any] = {"username": a.user.name}
    if a.user.uid:
        info["uid"] = a.user.uid
    if a.user.groups:
        info["groups"] = list(a.user.groups)
    if a.user.extra:
        info["extra"] = a.user.extra_json()
    return info


def request(version: str, a: Attributes, invocation: Invocation, obj: Obj | None,
            old: Obj | None) -> tuple[str, dict[str, Any]]:
    """A new uid and the review carrying the request; `obj` and `old` are already in the webhook's version."""
    uid = str(uuid.uuid4())
    kind, resource = invocation.kind, invocation.resource
    body: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": kind.group, "version": kind.version, "kind": kind.kind},
        "resource": {"group": resource.group, "version": resource.version, "resource": resource.resource},
    }
    if a.subresource:
        body["subResource"] = a.subresource
    body["requestKind"] = {"group": a.kind.group, "version": a.kind.version, "kind": a.kind.kind}
    body["requestResource"] = {"group": a.resource.group, "version": a.resource.version,
                               "resource": a.resource.resource}
    if a.subresource:
        body["requestSubResource"] = a.subresource
    if a.name:
        body["name"] = a.name
    if a.namespace:
        body["namespace"] = a.namespace
    body["operation"] = a.operation
    body["userInfo"] = _user_info(a)
    body["object"] = obj
    body["oldObject"] = old
    body["dryRun"] = a.dry_run
    body["options"] = a.options
    return uid, {"kind": "AdmissionReview", "apiVersion": f"admission.k8s.io/{version}", "request": body}


def conversion_error(version: str, answer: Any) -> str | None:
    """client-go's error decoding an answer of the other AdmissionReview version into the one asked
    for, which it cannot convert; None for any other answer."""
    if not isinstance(answer, dict) or answer.get("kind") != "AdmissionReview":
        return None
    group, _, answered = str(answer.get("apiVersion") or "").rpartition("/")
    if group != "admission.k8s.io" or answered == version or answered not in _KNOWN_VERSIONS:
        return None
    return f"converting ({answered}.AdmissionReview) to ({version}.AdmissionReview): unknown conversion"


def verify(version: str, uid: str, mutating: bool, answer: Any) -> Response:
    """The answer's response, checked as VerifyAdmissionResponse checks it (v1 strictly, v1beta1 loosely)."""
    if not isinstance(answer, dict):
        raise InvalidResponse("webhook response was absent")
    response = answer.get("response")
    if not isinstance(response, dict):
        raise InvalidResponse("webhook response was absent")
    patch_text = response.get("patch")
    patch_type = response.get("patchType")
    if version == "v1":
        if response.get("uid") != uid:
            raise InvalidResponse(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
        got = _gvk_string(str(answer.get("apiVersion") or ""), str(answer.get("kind") or ""))
        if got != _V1_REVIEW:
            raise InvalidResponse(f"expected webhook response of {_V1_REVIEW}, got {got}")
        if mutating:
            if patch_text and patch_type is None:
                raise InvalidResponse("webhook returned response.patch but not response.patchType")
            if not patch_text and patch_type is not None:
                raise InvalidResponse("webhook returned response.patchType but not response.patch")
            if patch_type is not None and not patch_type:
                raise InvalidResponse('webhook returned invalid response.patchType of ""')
        else:
            if patch_text:
                raise InvalidResponse("validating webhook may not return response.patch")
            if patch_type is not None:
                raise InvalidResponse("validating webhook may not return response.patchType")
    elif mutating:
        patch_type = "JSONPatch" if patch_text else ""
    if not mutating:
        patch_text, patch_type = None, ""
    try:
        patch = base64.b64decode(patch_text, validate=True) if isinstance(patch_text, str) else b""
    except (binascii.Error, ValueError):
        raise InvalidResponse("illegal base64 data in response.patch") from None
    result = response.get("status")
    warnings = response.get("warnings") or ()
    annotations = response.get("auditAnnotations") or {}
    return Response(bool(response.get("allowed")), patch, str(patch_type or ""),
                    result if isinstance(result, dict) else None,
                    tuple(str(w) for w in warnings if isinstance(w, str)),
                    {str(k): str(v) for k, v in annotations.items()} if isinstance(annotations, dict) else {})


def denied(webhook: str, result: dict[str, Any] | None) -> errors.ApiError:
    """The refusal a client sees (upstream's ToStatusErr): the webhook's status, code at least 400,
    the message prefixed by who denied it."""
    result = result or {}
    denied_by = f'admission webhook "{webhook}" denied the request'
    code = result.get("code")
    code = code if isinstance(code, int) and code >= 400 else 400
    message, reason = str(result.get("message") or ""), str(result.get("reason") or "")
    if message:
        message = f"{denied_by}: {message}"
    elif reason:
        message = f"{denied_by}: {reason}"
    else:
        message = f"{denied_by} without explanation"
    details = result.get("details")
    error = errors.ApiError(code, reason, message, details if isinstance(details, dict) else None)
    metadata = result.get("metadata")
    if isinstance(metadata, dict) and metadata:
        error.list_metadata = metadata
    return error
