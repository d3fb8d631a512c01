"""resource.k8s.io/v1 ResourceSlice validation: pkg/apis/resource/validation/validation.go's
ValidateResourceSlice(Update), validateResourceSliceSpec, validateDevice and what they call, with
core's ValidateNodeSelector. A consumable capacity's requestPolicy (validateRequestPolicy, its valid
values and ranges) is not ported: only that it needs allowMultipleAllocations.
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_subdomain
from apiserver.registry import field
from apiserver.registry.resource.validation import (
    TAINT_EFFECTS,
    as_dict,
    as_list,
    dns_label,
    dns_subdomain,
    driver_name,
    each,
    each_unique,
    label_name,
    label_values,
    qualified_attribute,
)

Obj = dict[str, Any]

MAX_DEVICES = 128
MAX_DEVICES_ADVANCED = 64
MAX_COUNTER_SETS = 8
MAX_COUNTERS_PER_SET = 32
MAX_CONSUMPTIONS_PER_DEVICE = 2
MAX_COUNTERS_PER_CONSUMPTION = 32
MAX_ATTRIBUTES_AND_CAPACITIES = 32
MAX_ATTRIBUTE_VALUES = 48
MAX_ATTRIBUTE_VALUE_LENGTH = 64
MAX_TAINTS = 16
MAX_BINDING_CONDITIONS = 4
POOL_NAME_MAX = 253
_SELECTION = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
_DEVICE_SELECTION = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)
_NUMERIC = r"(0|[1-9]\d*)"
_PRE_RELEASE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
_SEMVER = re.compile(
    rf"{_NUMERIC}\.{_NUMERIC}\.{_NUMERIC}(-{_PRE_RELEASE}(\.{_PRE_RELEASE})*)?(\+{_BUILD}(\.{_BUILD})*)?"
)
_NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_LIST_ATTRIBUTES = ("bools", "ints", "strings", "versions")


def _go_slice(raw: Any, values: list[Any]) -> list[Any] | None:
    """`values`, read from the JSON value `raw`, as the Go slice decoded from it: nil (json.Marshal writes
    null) where the field was absent or null, and empty but not nil (written []) for a `[]`."""
    return None if raw is None else values


def _requirement(requirement: Any, path: str) -> list[FieldError]:
    """core's ValidateNodeSelectorRequirement, label values held strictly."""
    requirement = as_dict(requirement)
    operator, values = requirement.get("operator") or "", as_list(requirement.get("values"))
    found: list[FieldError] = []
    if operator in ("In", "NotIn"):
        if not values:
            found.append(
                field.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'")
            )
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            found.append(
                field.forbidden(
                    f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                )
            )
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            found.append(
                field.required(
                    f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"
                )
            )
    else:
        found.append(field.invalid(f"{path}.operator", operator, "not a valid selector operator"))
    found += label_name(requirement.get("key") or "", f"{path}.key")
    for i, value in enumerate(values):
        found += label_values(value if isinstance(value, str) else "", f"{path}.values[{i}]")
    return found


def _field_requirement(requirement: Any, path: str) -> list[FieldError]:
    """core's ValidateNodeFieldSelectorRequirement: only metadata.name, with one value."""
    requirement = as_dict(requirement)
    operator, values = requirement.get("operator") or "", as_list(requirement.get("values"))
    found: list[FieldError] = []
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            found.append(
                field.required(
                    f"{path}.values",
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
            )
    else:
        found.append(field.invalid(f"{path}.operator", operator, "not a valid selector operator"))
    key = requirement.get("key") or ""
    if key != "metadata.name":
        found.append(field.invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            found += dns_subdomain(value if isinstance(value, str) else "", f"{path}.values[{i}]")
    return found


def node_selector(selector: Any, path: str) -> list[FieldError]:
    """core's ValidateNodeSelector."""
    terms = as_list(as_dict(selector).get("nodeSelectorTerms"))
    if not terms:
        return [field.required(f"{path}.nodeSelectorTerms", "must have at least one node selector term")]
    found: list[FieldError] = []
    for i, term in enumerate(terms):
        term, at = as_dict(term), f"{path}.nodeSelectorTerms[{i}]"
        for j, requirement in enumerate(as_list(term.get("matchExpressions"))):
            found += _requirement(requirement, f"{at}.matchExpressions[{j}]")
        for j, requirement in enumerate(as_list(term.get("matchFields"))):
            found += _field_requirement(requirement, f"{at}.matchFields[{j}]")
    return found


def _internal_terms(selector: Any) -> list[Obj] | None:
    """NodeSelectorTerms as the internal Go structs marshal (no json tags)."""
    terms = [as_dict(t) for t in as_list(as_dict(selector).get("nodeSelectorTerms"))]

    def requirements(items: Any) -> list[Obj] | None:
        return _go_slice(
            items,
            [
                {
                    "Key": as_dict(r).get("key") or "",
                    "Operator": as_dict(r).get("operator") or "",
                    "Values": _go_slice(as_dict(r).get("values"), as_list(as_dict(r).get("values"))),
                }
                for r in as_list(items)
            ]
        )

    return _go_slice(
        as_dict(selector).get("nodeSelectorTerms"),
        [
            {
                "MatchExpressions": requirements(t.get("matchExpressions")),
                "MatchFields": requirements(t.get("matchFields")),
            }
            for t in terms
        ]
    )


def _pool(pool: Any, path: str) -> list[FieldError]:
    """validateResourcePool (validatePoolName: each slash-separated part a DNS subdomain)."""
    pool = as_dict(pool)
    name = pool.get("name") if isinstance(pool.get("name"), str) else ""
    found: list[FieldError] = []
    if not name:
        found.append(field.required(f"{path}.name"))
    else:
        if len(name) > POOL_NAME_MAX:
            found.append(field.too_long(f"{path}.name", POOL_NAME_MAX))
        for part in name.split("/"):
            found += dns_subdomain(part, f"{path}.name")
    count = pool.get("resourceSliceCount") or 0
    if isinstance(count, int) and count <= 0:
        found.append(field.invalid(f"{path}.resourceSliceCount", count, "must be greater than zero"))
    generation = pool.get("generation") or 0
    if isinstance(generation, int) and generation < 0:
        found.append(field.invalid(f"{path}.generation", generation, "must be greater than or equal to zero"))
    return found


def _counters(counters: Any, limit: int, path: str) -> list[FieldError]:
    """validateMap of counters: the count, then each key a DNS label (any parsed quantity is valid)."""
    counters = as_dict(counters)
    if len(counters) > limit:
        return [field.too_many(path, len(counters), limit)]
    found: list[FieldError] = []
    for key in counters:
        found += dns_label(key, path)
    return found


def _counter_set(counter_set: Any, path: str) -> list[FieldError]:
    counter_set = as_dict(counter_set)
    name = counter_set.get("name") or ""
    found = [field.required(f"{path}.name")] if not name else dns_label(name, f"{path}.name")
    if not counter_set.get("counters"):
        return found + [field.required(f"{path}.counters")]
    return found + _counters(counter_set["counters"], MAX_COUNTERS_PER_SET, f"{path}.counters")


def _consumption(consumption: Any, path: str) -> list[FieldError]:
    consumption = as_dict(consumption)
    name = consumption.get("counterSet") or ""
    found = [field.required(f"{path}.counterSet")] if not name else dns_label(name, f"{path}.counterSet")
    if not consumption.get("counters"):
        return found + [field.required(f"{path}.counters")]
    return found + _counters(consumption["counters"], MAX_COUNTERS_PER_CONSUMPTION, f"{path}.counters")


def _attribute_string(value: Any, path: str) -> list[FieldError]:
    return (
        [field.too_long(path, MAX_ATTRIBUTE_VALUE_LENGTH)]
        if len(str(value)) > MAX_ATTRIBUTE_VALUE_LENGTH
        else []
    )


def _attribute_version(value: Any, path: str) -> list[FieldError]:
    value = str(value)
    found = (
        []
        if _SEMVER.fullmatch(value)
        else [field.invalid(path, value, "must be a string compatible with semver.org spec 2.0.0")]
    )
    return found + _attribute_string(value, path)


def _attribute(attribute: Any, path: str) -> list[FieldError]:
    """validateDeviceAttribute: exactly one value, each held to its kind's rule."""
    attribute = as_dict(attribute)
    found: list[FieldError] = []
    kinds = [
        k for k in ("bool", "int", "string", "version", *_LIST_ATTRIBUTES) if attribute.get(k) is not None
    ]
    if "string" in kinds:
        found += _attribute_string(attribute["string"], f"{path}.string")
    if "version" in kinds:
        found += _attribute_version(attribute["version"], f"{path}.version")
    for kind in _LIST_ATTRIBUTES:
        if kind not in kinds:
            continue
        values = as_list(attribute[kind])
        if not values:
            found.append(field.invalid(f"{path}.{kind}", values, "must not be empty if specified"))
        check = {"strings": _attribute_string, "versions": _attribute_version}.get(kind)
        for i, value in enumerate(values if check else ()):
            found += check(value, f"{path}.{kind}[{i}]") if check else []
    if not kinds:
        found.append(field.invalid(path, "", "exactly one value must be specified"))
    elif len(kinds) > 1:
        found.append(field.invalid(path, attribute, "exactly one value must be specified"))
    return found


def _truncated(key: str, limit: int) -> str:
    """truncateIfTooLong: a long key is shown with its middle left out."""
    limit = max(limit, 16)
    if len(key) <= limit:
        return key
    remaining = limit - 3
    return key[: (remaining + 1) // 2] + "..." + key[len(key) - remaining // 2 :]


def _taint(taint: Any, path: str) -> list[FieldError]:
    """validateDeviceTaint of a new taint."""
    taint = as_dict(taint)
    found = label_name(taint.get("key") or "", f"{path}.key")
    if taint.get("value"):
        found += label_values(str(taint["value"]), f"{path}.value")
    effect = taint.get("effect") or ""
    if not effect:
        found.append(field.required(f"{path}.effect"))
    elif effect not in TAINT_EFFECTS:
        found.append(field.not_supported(f"{path}.effect", effect, TAINT_EFFECTS))
    return found


def binding_parameters(device: Obj, path: str) -> list[FieldError]:
    """validateDeviceBindingParameters, of a slice's device or a claim's allocation result."""
    conditions = [c if isinstance(c, str) else "" for c in as_list(device.get("bindingConditions"))]
    failures = [c if isinstance(c, str) else "" for c in as_list(device.get("bindingFailureConditions"))]
    found = each(conditions, MAX_BINDING_CONDITIONS, label_name, f"{path}.bindingConditions")
    found += each(failures, MAX_BINDING_CONDITIONS, label_name, f"{path}.bindingFailureConditions")
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        if condition in seen:
            found.append(field.duplicate(f"{path}.bindingConditions[{i}]", condition))
        seen.add(condition)
    seen_failures: set[str] = set()
    for i, condition in enumerate(failures):
        if condition in seen_failures:
            found.append(field.duplicate(f"{path}.bindingFailureConditions[{i}]", condition))
        seen_failures.add(condition)
        if condition in seen:
            found.append(
                field.invalid(
                    f"{path}.bindingFailureConditions[{i}]",
                    condition,
                    "bindingFailureConditions must not overlap with bindingConditions",
                )
            )
    if not conditions and failures:
        found.append(
            field.invalid(
                f"{path}.bindingConditions",
                _go_slice(device.get("bindingConditions"), conditions),
                "bindingConditions are required to use bindingFailureConditions",
            )
        )
    if not failures and conditions:
        found.append(
            field.invalid(
                f"{path}.bindingFailureConditions",
                _go_slice(device.get("bindingFailureConditions"), failures),
                "bindingFailureConditions are required to use bindingConditions",
            )
        )
    return found


def _device(device: Any, path: str, old_devices: dict[str, Obj], per_device: bool) -> list[FieldError]:
    device = as_dict(device)
    found = dns_label(str(device.get("name") or ""), f"{path}.name")
    attributes, capacity = as_dict(device.get("attributes")), as_dict(device.get("capacity"))
    if len(attributes) + len(capacity) > MAX_ATTRIBUTES_AND_CAPACITIES:
        found.append(
            field.invalid(
                path,
                len(attributes) + len(capacity),
                "the total number of attributes and "
                f"capacities must not exceed {MAX_ATTRIBUTES_AND_CAPACITIES}",
            )
        )
    values = sum(sum(len(as_list(as_dict(a).get(k))) for k in _LIST_ATTRIBUTES) or 1 for a in attributes.values())
    if values > MAX_ATTRIBUTE_VALUES:
        found.append(
            field.invalid(
                path, values, f"the total number of attribute values must not exceed {MAX_ATTRIBUTE_VALUES}"
            )
        )
    for key, attribute in attributes.items():
        found += qualified_attribute(key, f"{path}.attributes")
        found += _attribute(attribute, f"{path}.attributes[{_truncated(key, 63 + 1 + 32)}]")
    multiple = device.get("allowMultipleAllocations") is True
    for key, value in capacity.items():
        found += qualified_attribute(key, f"{path}.capacity")
        if not multiple and as_dict(value).get("requestPolicy") is not None:
            found.append(
                field.forbidden(
                    f"{path}.capacity[{_truncated(key, 63 + 1 + 32)}].requestPolicy",
                    "allowMultipleAllocations must be true",
                )
            )
    old = old_devices.get(str(device.get("name") or ""))
    if old is None or (old.get("taints") or None) != (device.get("taints") or None):
        found += each(as_list(device.get("taints")), MAX_TAINTS, _taint, f"{path}.taints")
    found += each_unique(
        as_list(device.get("consumesCounters")),
        MAX_CONSUMPTIONS_PER_DEVICE,
        _consumption,
        lambda c: as_dict(c).get("counterSet") or "",
        f"{path}.consumesCounters",
    )
    found += _device_node_selection(device, path, per_device)
    return found + binding_parameters(device, path)


def _device_node_selection(device: Obj, path: str, per_device: bool) -> list[FieldError]:
    found: list[FieldError] = []
    if not per_device:
        if any(device.get(k) is not None for k in ("nodeName", "nodeSelector", "allNodes")):
            found.append(
                field.invalid(
                    path,
                    None,
                    "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
                )
            )
        return found
    selected: list[str] = []
    if device.get("nodeName") is not None:
        if device["nodeName"]:
            selected.append("`nodeName`")
            found += [
                field.invalid(f"{path}.nodeName", device["nodeName"], msg)
                for msg in dns1123_subdomain(str(device["nodeName"]))
            ]
        else:
            found.append(field.invalid(f"{path}.nodeName", "", "must not be empty"))
    if device.get("nodeSelector") is not None:
        selected.append("`nodeSelector`")
        found += node_selector(device["nodeSelector"], f"{path}.nodeSelector")
    if device.get("allNodes") is not None:
        if device["allNodes"]:
            selected.append("`allNodes`")
        else:
            found.append(
                field.invalid(f"{path}.allNodes", device["allNodes"], "must be either unset or set to true")
            )
    if not selected:
        found.append(field.required(path, _DEVICE_SELECTION))
    elif len(selected) > 1:
        found.append(field.invalid(path, "{" + ", ".join(selected) + "}", _DEVICE_SELECTION))
    return found


def _node_selection(spec: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    selected: list[str] = []
    if spec.get("nodeName") is not None:
        if spec["nodeName"]:
            selected.append("`nodeName`")
            found += [
                field.invalid("spec.nodeName", spec["nodeName"], msg)
                for msg in dns1123_subdomain(str(spec["nodeName"]))
            ]
        else:
            found.append(
                field.invalid("spec.nodeName", "", "must be either unset or set to a non-empty string")
            )
    if spec.get("nodeSelector") is not None:
        selected.append("`nodeSelector`")
        found += node_selector(spec["nodeSelector"], "spec.nodeSelector")
        terms = as_list(as_dict(spec["nodeSelector"]).get("nodeSelectorTerms"))
        if len(terms) != 1:
            # One term keeps merging the selectors of devices from different slices simple.
            found.append(
                field.invalid_shown(
                    "spec.nodeSelector.nodeSelectorTerms",
                    field.go_json(_internal_terms(spec["nodeSelector"])),
                    "must have exactly one node selector term",
                )
            )
    for flag in ("allNodes", "perDeviceNodeSelection"):
        if spec.get(flag) is not None:
            if spec[flag]:
                selected.append(f"`{flag}`")
            else:
                found.append(field.invalid(f"spec.{flag}", spec[flag], "must be either unset or set to true"))
    if not selected:
        found.append(field.required("spec", _SELECTION))
    elif len(selected) > 1:
        found.append(
            field.invalid(
                "spec", "{" + ", ".join(selected) + "}", _SELECTION + ", but multiple fields are set"
            )
        )
    return found


def _spec(spec: Obj, old: Obj | None) -> list[FieldError]:
    found = driver_name(spec.get("driver"), "spec.driver") + _pool(spec.get("pool"), "spec.pool")
    if old is not None:
        for path, new_value, old_value in (
            (
                "spec.pool.name",
                as_dict(spec.get("pool")).get("name") or "",
                as_dict(old.get("pool")).get("name") or "",
            ),
            ("spec.driver", spec.get("driver") or "", old.get("driver") or ""),
            ("spec.nodeName", spec.get("nodeName"), old.get("nodeName")),
        ):
            found += field.immutable(path, new_value, old_value)
    found += _node_selection(spec)
    devices = as_list(spec.get("devices"))
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        found.append(field.invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed"))
    advanced = any(
        as_dict(d).get("taints")
        or as_dict(d).get("consumesCounters")
        or any(
            as_dict(a).get(k) is not None
            for a in as_dict(as_dict(d).get("attributes")).values()
            for k in _LIST_ATTRIBUTES
        )
        for d in devices
    )
    old_devices = {str(as_dict(d).get("name") or ""): as_dict(d) for d in as_list((old or {}).get("devices"))}
    per_device = spec.get("perDeviceNodeSelection") is True
    found += each_unique(
        devices,
        MAX_DEVICES_ADVANCED if advanced else MAX_DEVICES,
        lambda d, at: _device(d, at, old_devices, per_device),
        lambda d: as_dict(d).get("name") or "",
        "spec.devices",
    )
    return found + each_unique(
        as_list(spec.get("sharedCounters")),
        MAX_COUNTER_SETS,
        _counter_set,
        lambda c: as_dict(c).get("name") or "",
        "spec.sharedCounters",
    )


def resource_slice(obj: Obj) -> list[FieldError]:
    return _spec(as_dict(obj.get("spec")), None)


def resource_slice_update(new: Obj, old: Obj) -> list[FieldError]:
    return _spec(as_dict(new.get("spec")), as_dict(old.get("spec")))
