"""apiregistration.k8s.io validation: staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/validation/
validation.go (ValidateAPIService, ValidateAPIServiceUpdate, ValidateAPIServiceStatusUpdate), every branch."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1035_label, dns1123_subdomain, path_segment_name, port_number
from apiserver.registry import field
from apiserver.registry import meta as object_meta
from apiserver.registry.meta import NameRule

Obj = dict[str, Any]


def _spec(obj: Obj) -> Obj:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def name_rule(obj: Obj) -> NameRule:
    """The name must be a path segment and exactly `spec.version + "." + spec.group` (generateName too)."""
    spec = _spec(obj)
    required = _text(spec.get("version")) + "." + _text(spec.get("group"))

    def rule(name: str, prefix: bool) -> list[str]:
        minimal = path_segment_name(name)
        if minimal:
            return minimal
        return [] if name == required else [f'must be `spec.version+"."+spec.group`: {field.go_quote(required)}']

    return rule


def _ca_bundle_bytes(value: Any) -> int:
    """len(spec.caBundle) once decoded ([]byte travels as base64; the decoder refused what is not)."""
    if not isinstance(value, str) or not value:
        return 0
    try:
        return len(base64.b64decode(value, validate=True))
    except (binascii.Error, ValueError):
        return len(value)


def _spec_errors(obj: Obj) -> list[FieldError]:
    spec = _spec(obj)
    found: list[FieldError] = []
    group, version = _text(spec.get("group")), _text(spec.get("version"))
    # An empty group is allowed for the legacy core group's v1 only.
    if not group and version != "v1":
        found.append(field.required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
    if group:
        found += [field.invalid("spec.group", group, msg) for msg in dns1123_subdomain(group)]
    found += [field.invalid("spec.version", version, msg) for msg in dns1035_label(version)]
    group_priority = _number(spec.get("groupPriorityMinimum"))
    if group_priority <= 0 or group_priority > 20000:
        found.append(field.invalid("spec.groupPriorityMinimum", group_priority, "must be positive and less than 20000"))
    version_priority = _number(spec.get("versionPriority"))
    if version_priority <= 0 or version_priority > 1000:
        found.append(field.invalid("spec.versionPriority", version_priority, "must be positive and less than 1000"))
    ca_bundle = _ca_bundle_bytes(spec.get("caBundle"))
    skip_verify = spec.get("insecureSkipTLSVerify") is True
    service = spec.get("service")
    if not isinstance(service, dict):
        if ca_bundle:
            found.append(field.invalid("spec.caBundle", f"{ca_bundle} bytes", "local APIServices may not have a caBundle"))
        if skip_verify:
            found.append(field.invalid("spec.insecureSkipTLSVerify", True,
                                       "local APIServices may not have insecureSkipTLSVerify"))
        return found
    if not _text(service.get("namespace")):
        found.append(field.required("spec.service.namespace"))
    if not _text(service.get("name")):
        found.append(field.required("spec.service.name"))
    port = _number(service.get("port"))
    port_errors = port_number(port)
    if port_errors:
        found.append(field.invalid("spec.service.port", port, "port is not valid: " + ", ".join(port_errors)))
    if skip_verify and ca_bundle:
        found.append(field.invalid("spec.insecureSkipTLSVerify", True, "may not be true if caBundle is present"))
    return found


def api_service(obj: Obj) -> list[FieldError]:
    """ValidateAPIService past its ValidateObjectMeta, which the write path runs with `name_rule`."""
    return _spec_errors(obj)


def api_service_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateAPIServiceUpdate past its ValidateObjectMetaUpdate: ValidateAPIService judges the new
    object's metadata again, with the name rule that reads the spec."""
    metadata = new.get("metadata") or {}
    return object_meta.validate(metadata, False, name_rule(new), kube=False) + _spec_errors(new)


_CONDITION_STATUSES = ("True", "False", "Unknown")


def api_service_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    """ValidateAPIServiceStatusUpdate past its ValidateObjectMetaUpdate: each condition's status is one
    of True, False and Unknown."""
    status = new.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    found: list[FieldError] = []
    for index, condition in enumerate(conditions if isinstance(conditions, list) else ()):
        value = condition.get("status") if isinstance(condition, dict) else None
        if value not in _CONDITION_STATUSES:
            found.append(field.not_supported(f"status.conditions[{index}].status", _text(value), _CONDITION_STATUSES))
    return found
