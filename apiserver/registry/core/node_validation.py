"""Node validation and strategy: ValidateNode(Update) of pkg/apis/core/validation/validation.go and
pkg/registry/core/node/strategy.go's PrepareForCreate/Update.

Not ported: the taints and preferAvoidPods annotations' JSON (ValidateNodeSpecificAnnotations).
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import (
    config_map_key,
    dns1123_label,
    dns1123_subdomain,
    label_value,
    qualified_name,
)
from apiserver.registry import field
from apiserver.registry.core import ip_validation, resource_names

Obj = dict[str, Any]

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_PODCIDR_CHANGE = 'node updates may not change podCIDR except from "" to valid'
_FEATURE_NAME = re.compile(r"[A-Z][a-zA-Z0-9]*(/[a-zA-Z0-9]+)*")


def taint_effect(effect: str, allow_empty: bool, path: str) -> list[FieldError]:
    """validateTaintEffect."""
    if not allow_empty and not effect:
        return [field.required(path)]
    if effect not in TAINT_EFFECTS:
        return [field.not_supported(path, effect, TAINT_EFFECTS)]
    return []


def _go_taint(taint: Obj) -> str:
    """The internal core.Taint as json.Marshal writes a struct without json tags."""
    return field.go_json({"Key": taint.get("key") or "", "Value": taint.get("value") or "",
                          "Effect": taint.get("effect") or "", "TimeAdded": taint.get("timeAdded")})


def _taints(taints: list[Any]) -> list[FieldError]:
    """validateNodeTaints, at upstream's path (metadata.taints)."""
    found: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints):
        taint = taint if isinstance(taint, dict) else {}
        at = f"metadata.taints[{i}]"
        key, value, effect = taint.get("key") or "", taint.get("value") or "", taint.get("effect") or ""
        found += [field.invalid(f"{at}.key", key, msg) for msg in qualified_name(key)]
        if problems := label_value(value):
            found.append(field.invalid(f"{at}.value", value, ";".join(problems)))
        found += taint_effect(effect, False, f"{at}.effect")
        if (effect, key) in seen:
            found.append(field.FieldError("FieldValueDuplicate", at, f"Duplicate value: {_go_taint(taint)}: "
                                          "taints must be unique by key and effect pair"))
            continue
        seen.add((effect, key))
    return found


def _resources(status: Obj) -> list[FieldError]:
    """ValidateNodeResources."""
    found: list[FieldError] = []
    for key in ("capacity", "allocatable"):
        for name, amount in (status.get(key) or {}).items():
            found += resource_names.quantity_value(name, amount, f"status.{key}.{name}")
    return found


def _declared_features(features: list[Any]) -> list[FieldError]:
    """validateNodeDeclaredFeatures: valid names, sorted, no duplicates."""
    found: list[FieldError] = []
    at = "status.declaredFeatures"
    for i, feature in enumerate(features):
        if len(feature) > 253:
            found.append(field.invalid(f"{at}[{i}]", feature,
                                       f'invalid feature name "{feature}": must be no more than 253 characters'))
        elif not _FEATURE_NAME.fullmatch(feature):
            found.append(field.invalid(
                f"{at}[{i}]", feature,
                f'invalid feature name "{feature}": must start with an UpperCamelCase segment, with subsequent '
                "segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only "
                "alphanumeric characters and slashes"))
        if i + 1 < len(features):
            following = features[i + 1]
            if feature == following:
                found.append(field.duplicate(f"{at}[{i + 1}]", following))
            elif feature > following:
                found.append(field.invalid(f"{at}[{i + 1}]", following, "list must be sorted alphabetically"))
    return found


def _swap(status: Obj) -> list[FieldError]:
    capacity = (((status.get("nodeInfo") or {}).get("swap")) or {}).get("capacity")
    if capacity is not None and capacity <= 0:
        return [field.invalid("metadata.nodeSwapStatus.capacity", capacity, "must be greater than zero")]
    return []


def node(obj: Obj) -> list[FieldError]:
    """ValidateNode (its metadata aside)."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    found: list[FieldError] = []
    if spec.get("taints"):
        found += _taints(spec["taints"])
    found += _resources(status) + _swap(status) + _declared_features(status.get("declaredFeatures") or [])
    cidrs = spec.get("podCIDRs") or []
    for i, cidr in enumerate(cidrs):
        found += ip_validation.legacy_cidr(cidr, f"spec.podCIDRs[{i}]")
    if len(cidrs) > 1:
        # netutils.IsDualStackCIDRStrings fails on the first CIDR net.ParseCIDR refuses, and the error
        # is reported as the internal error upstream makes of it.
        bad = next((i for i, cidr in enumerate(cidrs) if ip_validation.parse_cidr_sloppy(cidr) is None), None)
        if bad is not None:
            found.append(FieldError("InternalError", "spec.podCIDRs", (
                "Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid "
                f"CIDR[{bad}]: <nil> (invalid CIDR address: {cidrs[bad]})")))
        if not ip_validation.is_dual_stack_cidrs(cidrs) or len(cidrs) > 2:
            found.append(field.invalid("spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family"))
    return found


def _config_map_source(source: Obj, at: str, in_status: bool) -> list[FieldError]:
    found: list[FieldError] = []
    if in_status:
        if not source.get("uid"):
            found.append(field.required(f"{at}.uid"))
        if not source.get("resourceVersion"):
            found.append(field.required(f"{at}.resourceVersion"))
    else:
        if source.get("uid"):
            found.append(field.forbidden(f"{at}.uid", "uid must not be set in spec"))
        if source.get("resourceVersion"):
            found.append(field.forbidden(f"{at}.resourceVersion", "resourceVersion must not be set in spec"))
    for key, rule in (("namespace", dns1123_label), ("name", dns1123_subdomain),
                      ("kubeletConfigKey", config_map_key)):
        value = source.get(key) or ""
        if not value:
            found.append(field.required(f"{at}.{key}"))
        else:
            found += [field.invalid(f"{at}.{key}", value, msg) for msg in rule(value)]
    return found


def _config_source(source: Obj, at: str, in_status: bool) -> list[FieldError]:
    found: list[FieldError] = []
    if source.get("configMap") is not None:
        found += _config_map_source(source["configMap"], f"{at}.configMap", in_status)
    else:
        found.append(field.invalid_shown(at, "{}", "exactly one reference subfield must be non-nil"))
    return found


def node_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateNodeUpdate (its metadata aside); the strategy judges the new node by ValidateNode first."""
    spec, status, old_spec = new.get("spec") or {}, new.get("status") or {}, old.get("spec") or {}
    found = node(new)
    found += _resources(status) + _declared_features(status.get("declaredFeatures") or [])
    seen: set[tuple[str, str]] = set()
    for i, address in enumerate(status.get("addresses") or []):
        pair = (address.get("type") or "", address.get("address") or "")
        if pair in seen:
            found.append(field.duplicate_shown(f"status.addresses[{i}]",
                                               field.go_json({"Type": pair[0], "Address": pair[1]})))
        seen.add(pair)
    old_cidrs, cidrs = old_spec.get("podCIDRs") or [], spec.get("podCIDRs") or []
    if old_cidrs:
        if len(old_cidrs) != len(cidrs):
            found.append(field.forbidden("spec.podCIDRs", _PODCIDR_CHANGE))
        else:
            found += [field.forbidden("spec.podCIDRs", _PODCIDR_CHANGE)
                      for was, now in zip(old_cidrs, cidrs) if was != now]
    old_provider = old_spec.get("providerID") or ""
    if old_provider and old_provider != (spec.get("providerID") or ""):
        found.append(field.forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'))
    if spec.get("configSource") is not None:
        found += _config_source(spec["configSource"], "spec.configSource", False)
    config = status.get("config")
    if config is not None:
        for key in ("assigned", "active", "lastKnownGood"):
            if config.get(key) is not None:
                found += _config_source(config[key], f"status.config.{key}", True)
    if spec.get("taints"):
        found += _taints(spec["taints"])
    if (spec.get("externalID") or "") != (old_spec.get("externalID") or ""):
        found.append(field.forbidden("spec.externalID", "may not be updated"))
    return found


def convert_pod_cidrs(obj: Obj) -> None:
    """v1's podCIDR and podCIDRs are one internal list: podCIDR alone fills it, and reads back its first."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if not spec.get("podCIDRs") and spec.get("podCIDR"):
        spec["podCIDRs"] = [spec["podCIDR"]]
    if spec.get("podCIDRs"):
        spec["podCIDR"] = spec["podCIDRs"][0]


def prepare_for_create(obj: Obj) -> None:
    """Nodes may set status on create, but not the removed dynamic kubelet config."""
    obj.get("spec", {}).pop("configSource", None)
    obj.get("status", {}).pop("config", None)


def prepare_for_update(new: Obj, old: Obj) -> None:
    """The main resource keeps the old status; a config source may stay only where one was."""
    new["status"] = old.get("status") or {}
    if (old.get("spec") or {}).get("configSource") is None:
        new.get("spec", {}).pop("configSource", None)
