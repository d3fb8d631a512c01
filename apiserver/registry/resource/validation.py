"""resource.k8s.io/v1 validation of claims, claim templates and device classes:
pkg/apis/resource/validation/validation.go (ValidateResourceClaim(Update), ValidateResourceClaimTemplate
(Update), ValidateDeviceClass(Update) and what they call), in upstream's order, at the 1.36 feature
defaults (DRAConsumableCapacity on). Device selectors are compiled with the CEL package against a
`device` variable, as the DRA compiler declares it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from apiserver.cel.environment import CompileError, compile_checked
from apiserver.errors import FieldError
from apiserver.kinds.validation import (
    dns1123_label,
    dns1123_subdomain,
    label_value,
    qualified_name,
    regex_error,
)
from apiserver.registry import field
from apiserver.registry import meta as object_meta
from apiserver.registry.resource import gostructs

Obj = dict[str, Any]
Check = Callable[[Any, str], list[FieldError]]

REQUESTS_MAX = 32
CONSTRAINTS_MAX = 32
CONFIG_MAX = 32
SELECTORS_MAX = 32
FIRST_AVAILABLE_MAX = 8
MAX_ID_LENGTH = 32
CEL_MAX_LENGTH = 10 * 1024
OPAQUE_PARAMETERS_MAX = 10 * 1024
ALLOCATION_MODES = ("All", "ExactCount")
TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")
TOLERATION_OPERATORS = ("Equal", "Exists")
_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER_FMT)
_C_IDENTIFIER_MSG = regex_error(
    "a valid C identifier must start with alphabetic character or '_', followed by a "
    "string of alphanumeric characters or '_'",
    _C_IDENTIFIER_FMT,
    "my_name",
    "MY_NAME",
    "MyName",
)
_REQUEST_REF_MSG = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)
_DEVICE_VARIABLES: dict[str, Any] | None = None


def as_dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def each(items: list[Any], limit: int, check: Check, path: str) -> list[FieldError]:
    """validateSlice: too many stops there (against denial of service), else each item in turn."""
    if limit >= 0 and len(items) > limit:
        return [field.too_many(path, len(items), limit)]
    found: list[FieldError] = []
    for i, item in enumerate(items):
        found += check(item, f"{path}[{i}]")
    return found


def each_unique(
    items: list[Any], limit: int, check: Check, key: Callable[[Any], Any], path: str
) -> list[FieldError]:
    """validateSet: validateSlice, then a Duplicate for every repeated key."""
    if limit >= 0 and len(items) > limit:
        return [field.too_many(path, len(items), limit)]
    found = each(items, -1, check, path)
    seen: set[str] = set()
    for i, item in enumerate(items):
        item_key = key(item)
        marker = json.dumps(item_key, sort_keys=True)
        if marker in seen:
            found.append(field.duplicate(f"{path}[{i}]", item_key))
        seen.add(marker)
    return found


def dns_label(value: str, path: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in dns1123_label(value)]


def dns_subdomain(value: str, path: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in dns1123_subdomain(value)]


def driver_name(name: Any, path: str) -> list[FieldError]:
    """core's ValidateCSIDriverName."""
    name = name if isinstance(name, str) else ""
    if not name:
        return [field.required(path)]
    found = [field.too_long(path, 63)] if len(name) > 63 else []
    return found + [field.invalid(path, name, msg) for msg in dns1123_subdomain(name.lower())]


def c_identifier(value: str, path: str) -> list[FieldError]:
    found = [field.too_long(path, MAX_ID_LENGTH)] if len(value) > MAX_ID_LENGTH else []
    if not _C_IDENTIFIER_RE.fullmatch(value):
        found.append(field.invalid(path, value, _C_IDENTIFIER_MSG))
    return found


def qualified_attribute(name: str, path: str) -> list[FieldError]:
    """validateQualifiedName: a C identifier, optionally behind a driver-name domain."""
    parts = name.split("/")
    if len(parts) == 1:
        return c_identifier(parts[0], path)
    found: list[FieldError] = []
    if len(parts) == 2:
        found += (
            driver_name(parts[0], path)
            if parts[0]
            else [field.invalid(path, "", "the domain must not be empty")]
        )
        found += (
            c_identifier(parts[1], path)
            if parts[1]
            else [field.invalid(path, "", "the name must not be empty")]
        )
    return found


def fully_qualified_attribute(name: str, path: str) -> list[FieldError]:
    found = qualified_attribute(name, path)
    if "/" not in name:
        found.append(
            field.invalid(
                path, name, "a fully qualified name must be a domain and a name separated by a slash"
            )
        )
    return found


def label_name(key: Any, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabelName."""
    key = key if isinstance(key, str) else ""
    return [field.invalid(path, key, msg) for msg in qualified_name(key)]


def label_values(value: str, path: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in label_value(value)]


def _device_variables() -> dict[str, Any]:
    global _DEVICE_VARIABLES
    if _DEVICE_VARIABLES is None:
        from cel_expr_python import cel

        _DEVICE_VARIABLES = {"device": cel.Type.DYN}
    return _DEVICE_VARIABLES


def _cel_selector(selector: Obj, path: str) -> list[FieldError]:
    """validateCELSelector: the expression's length, then what the DRA compiler says of it."""
    given = selector.get("expression")
    expression = given if isinstance(given, str) else ""
    at = f"{path}.expression"
    if len(expression) > CEL_MAX_LENGTH:
        return [field.too_long(at, CEL_MAX_LENGTH)]
    try:
        program = compile_checked(expression, _device_variables())
    except CompileError as error:
        return [field.invalid(at, expression, f"compilation failed: {error}")]
    if program.output not in ("bool", "dyn"):
        return [
            field.invalid(at, expression, f"must evaluate to bool or the unknown type, not {program.output}")
        ]
    return []


def _selector(selector: Any, path: str) -> list[FieldError]:
    cel = as_dict(selector).get("cel")
    if cel is None:
        return [field.required(f"{path}.cel")]
    return _cel_selector(as_dict(cel), f"{path}.cel")


def _toleration(toleration: Any, path: str) -> list[FieldError]:
    """validateDeviceToleration."""
    toleration = as_dict(toleration)
    found: list[FieldError] = []
    key = toleration.get("key") or ""
    if key:
        found += label_name(key, f"{path}.key")
    operator, value = toleration.get("operator") or "", toleration.get("value") or ""
    if operator == "Exists":
        if value:
            found.append(field.invalid(f"{path}.value", value, "must be empty for operator `Exists`"))
    elif operator == "Equal":
        found += label_values(value, f"{path}.value")
    elif not operator:
        found.append(field.required(f"{path}.operator"))
    else:
        found.append(field.not_supported(f"{path}.operator", operator, TOLERATION_OPERATORS))
    effect = toleration.get("effect") or ""
    if effect and effect not in TAINT_EFFECTS:
        found.append(field.not_supported(f"{path}.effect", effect, TAINT_EFFECTS))
    return found


def _allocation_mode(request: Obj, path: str) -> list[FieldError]:
    mode, count = request.get("allocationMode") or "", request.get("count") or 0
    if mode == "All":
        if count != 0:
            return [
                field.invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'")
            ]
    elif mode == "ExactCount":
        if isinstance(count, int) and count <= 0:
            return [field.invalid(f"{path}.count", count, "must be greater than zero")]
    else:
        return [field.not_supported(f"{path}.allocationMode", mode, ALLOCATION_MODES)]
    return []


def _device_class_name(name: Any, path: str) -> list[FieldError]:
    name = name if isinstance(name, str) else ""
    return [field.required(path)] if not name else dns_subdomain(name, path)


def _exact_or_sub(request: Obj, path: str, named: bool) -> list[FieldError]:
    """validateExactDeviceRequest, and validateDeviceSubRequest (`named`: it has a name of its own)."""
    found = dns_label(str(request.get("name") or ""), f"{path}.name") if named else []
    found += _device_class_name(request.get("deviceClassName"), f"{path}.deviceClassName")
    found += each(as_list(request.get("selectors")), SELECTORS_MAX, _selector, f"{path}.selectors")
    found += _allocation_mode(request, path)
    for i, toleration in enumerate(as_list(request.get("tolerations"))):
        found += _toleration(toleration, f"{path}.tolerations[{i}]")
    return found


def _request(request: Any, path: str) -> list[FieldError]:
    request = as_dict(request)
    found = dns_label(str(request.get("name") or ""), f"{path}.name")
    first_available = as_list(request.get("firstAvailable"))
    exactly = request.get("exactly")
    if not first_available and exactly is None:
        found.append(field.required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif first_available and exactly is not None:
        found.append(
            field.invalid(
                path,
                None,
                "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
            )
        )
    elif first_available:
        found += each_unique(
            first_available,
            FIRST_AVAILABLE_MAX,
            lambda sub, at: _exact_or_sub(as_dict(sub), at, named=True),
            lambda sub: as_dict(sub).get("name") or "",
            f"{path}.firstAvailable",
        )
    else:
        found += _exact_or_sub(as_dict(exactly), f"{path}.exactly", named=False)
    return found


def request_names(claim: Obj) -> dict[str, set[str] | None]:
    """gatherRequestNames: each request's subrequests (None for a request without)."""
    names: dict[str, set[str] | None] = {}
    for request in as_list(claim.get("requests")):
        request = as_dict(request)
        subs = as_list(request.get("firstAvailable"))
        names[str(request.get("name") or "")] = (
            {str(as_dict(s).get("name") or "") for s in subs} if subs else None
        )
    return names


def _names_request(names: dict[str, set[str] | None], ref: str) -> bool:
    segments = ref.split("/")
    if len(segments) > 2 or segments[0] not in names:
        return False
    subs = names[segments[0]]
    return len(segments) == 1 or (subs is not None and segments[1] in subs)


def request_ref(names: dict[str, set[str] | None]) -> Check:
    def check(ref: Any, path: str) -> list[FieldError]:
        ref = ref if isinstance(ref, str) else ""
        if len(ref.split("/")) > 2:
            return [field.invalid(path, ref, _REQUEST_REF_MSG)]
        found: list[FieldError] = []
        for segment in ref.split("/"):
            found += dns_label(segment, path)
        if not _names_request(names, ref):
            found.append(field.invalid(path, ref, _REQUEST_REF_MSG))
        return found

    return check


def _constraint(names: dict[str, set[str] | None]) -> Check:
    def check(constraint: Any, path: str) -> list[FieldError]:
        constraint = as_dict(constraint)
        found = each_unique(
            as_list(constraint.get("requests")),
            REQUESTS_MAX,
            request_ref(names),
            lambda r: r,
            f"{path}.requests",
        )
        if constraint.get("matchAttribute") is not None:
            found += fully_qualified_attribute(str(constraint["matchAttribute"]), f"{path}.matchAttribute")
        elif constraint.get("distinctAttribute") is not None:
            found += fully_qualified_attribute(
                str(constraint["distinctAttribute"]), f"{path}.distinctAttribute"
            )
        else:
            # DRAConsumableCapacity (on at 1.36) words it so, whatever was set.
            found.append(
                field.required(
                    path,
                    'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                    "but multiple fields are set",
                )
            )
        return found

    return check


def raw_extension(value: Any, path: str, limit: int) -> list[FieldError]:
    """validateRawExtension of a value decoded from JSON: present, small enough, an object."""
    if value is None:
        return [field.required(path)]
    if len(json.dumps(value, separators=(",", ":"))) > limit:
        return [field.too_long(path, limit)]
    if not isinstance(value, dict):
        return [field.invalid(path, "<value omitted>", "must be a valid JSON object")]
    return []


def device_configuration(config: Obj, path: str) -> list[FieldError]:
    """validateDeviceConfiguration: an opaque driver configuration is all there is."""
    opaque = config.get("opaque")
    if opaque is None:
        return [field.required(f"{path}.opaque")]
    opaque = as_dict(opaque)
    return driver_name(opaque.get("driver"), f"{path}.opaque.driver") + raw_extension(
        opaque.get("parameters"), f"{path}.opaque.parameters", OPAQUE_PARAMETERS_MAX
    )


def _claim_config(names: dict[str, set[str] | None]) -> Check:
    def check(config: Any, path: str) -> list[FieldError]:
        config = as_dict(config)
        found = each_unique(
            as_list(config.get("requests")), REQUESTS_MAX, request_ref(names), lambda r: r, f"{path}.requests"
        )
        return found + device_configuration(config, path)

    return check


def claim_spec(spec: Any, path: str) -> list[FieldError]:
    """validateResourceClaimSpec (validateDeviceClaim)."""
    devices, at = as_dict(as_dict(spec).get("devices")), f"{path}.devices"
    names = request_names(devices)
    found = each_unique(
        as_list(devices.get("requests")),
        REQUESTS_MAX,
        _request,
        lambda r: as_dict(r).get("name") or "",
        f"{at}.requests",
    )
    found += each(as_list(devices.get("constraints")), CONSTRAINTS_MAX, _constraint(names), f"{at}.constraints")
    return found + each(as_list(devices.get("config")), CONFIG_MAX, _claim_config(names), f"{at}.config")


def _immutable(new: Any, old: Any, shown: Callable[[Any], Obj]) -> list[FieldError]:
    if shown(new) == shown(old):
        return []
    return [field.invalid_shown("spec", field.go_json(shown(new)), "field is immutable")]


def resource_claim(obj: Obj) -> list[FieldError]:
    return claim_spec(obj.get("spec"), "spec")


def resource_claim_update(new: Obj, old: Obj) -> list[FieldError]:
    """The spec is immutable; nothing else of it is judged again."""
    return _immutable(new.get("spec"), old.get("spec"), gostructs.claim_spec)


def resource_claim_template(obj: Obj) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    return object_meta.template_object_meta(spec.get("metadata"), "spec.metadata") + claim_spec(
        spec.get("spec"), "spec.spec"
    )


def resource_claim_template_update(new: Obj, old: Obj) -> list[FieldError]:
    """Upstream's strategy judges the new template whole, then that its spec did not change."""
    return resource_claim_template(new) + _immutable(
        new.get("spec"), old.get("spec"), gostructs.claim_template_spec
    )


def _extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    native = "/" not in name or "kubernetes.io/" in name
    if native or name.startswith("requests."):
        return False
    return not qualified_name("requests." + name)


def device_class(obj: Obj) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    found = each(as_list(spec.get("selectors")), SELECTORS_MAX, _selector, "spec.selectors")
    found += each(
        as_list(spec.get("config")), CONFIG_MAX, lambda c, at: device_configuration(as_dict(c), at), "spec.config"
    )
    name = spec.get("extendedResourceName")
    if isinstance(name, str) and not _extended_resource_name(name):
        found.append(
            field.invalid("spec.extendedResourceName", name, "must be a valid extended resource name")
        )
    return found
