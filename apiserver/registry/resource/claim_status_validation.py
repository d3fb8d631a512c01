"""A ResourceClaim's status update, judged as pkg/apis/resource/validation/validation.go judges it:
ValidateResourceClaimStatusUpdate and what it calls (validateResourceClaimStatusUpdate,
validateResourceClaimUserReference, validateAllocationResult and the device results and configurations
under it, validateDeviceStatus with its data and network data), in upstream's order, at 1.36's feature
defaults (DRAResourceClaimDeviceStatus, DRADeviceBindingConditions and DRAConsumableCapacity on).
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import ip_validation
from apiserver.registry import field
from apiserver.registry import meta as object_meta
from apiserver.registry.policy.validation import conditions
from apiserver.registry.resource import gostructs, slice_validation
from apiserver.registry.resource.validation import (
    CONFIG_MAX,
    REQUESTS_MAX,
    Check,
    as_dict,
    as_list,
    device_configuration,
    dns_label,
    dns_subdomain,
    driver_name,
    each,
    raw_extension,
    request_names,
    request_ref,
)

Obj = dict[str, Any]

RESERVED_FOR_MAX = 256
ALLOCATION_RESULTS_MAX = 32
POOL_NAME_MAX = 253
CONDITIONS_MAX = 8
DATA_MAX = 10 * 1024
INTERFACE_NAME_MAX = 256
HARDWARE_ADDRESS_MAX = 128
IPS_MAX = 16
CONFIG_SOURCES = ("FromClaim", "FromClass")
_HEX_PAIR = re.compile(rb"[0-9A-Fa-f]{2}")
_NOT_ALLOCATED = "must be an allocated device in the claim"


def semantic(value: Any) -> Any:
    """A Go struct view (`gostructs.view`) as equality.Semantic.DeepEqual compares it: an empty slice or
    map and a nil one are the same."""
    if isinstance(value, dict):
        return {k: semantic(v) for k, v in value.items()} if value else None
    if isinstance(value, list):
        return [semantic(v) for v in value] if value else None
    return value


def shared_device_id(device: Obj) -> tuple[str, str, str, str]:
    """structured.MakeSharedDeviceID: (driver, pool, device, share ID or "")."""
    return (str(device.get("driver") or ""), str(device.get("pool") or ""), str(device.get("device") or ""),
            str(device.get("shareID") or ""))


def _shown_id(key: tuple[str, str, str, str]) -> str:
    """SharedDeviceID as a field error prints it (encoding/json of the struct)."""
    return field.go_json({"Driver": key[0], "Pool": key[1], "Device": key[2], "ShareID": key[3]})


def _uuid_problem(uid: str) -> str | None:
    """google/uuid's Validate: why the text is no UUID, or None."""
    raw = uid.encode("utf-8", "surrogateescape")
    if len(raw) == 45:
        if raw[:9].lower() != b"urn:uuid:":
            return f"invalid urn prefix: {field.go_quote(raw[:9].decode('utf-8', 'replace'))}"
        raw = raw[9:]
    elif len(raw) == 38:
        if raw[:1] != b"{" or raw[-1:] != b"}":
            return "invalid bracketed UUID format"
        raw = raw[1:-1]
    elif len(raw) == 32:
        if not all(_HEX_PAIR.fullmatch(raw[i:i + 2]) for i in range(0, 32, 2)):
            return "invalid UUID format"
    elif len(raw) != 36:
        return f"invalid UUID length: {len(raw)}"
    if len(raw) == 36:
        if any(raw[i:i + 1] != b"-" for i in (8, 13, 18, 23)):
            return "invalid UUID format"
        pairs = (0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34)
        if not all(_HEX_PAIR.fullmatch(raw[i:i + 2]) for i in pairs):
            return "invalid UUID format"
    return None


def _uid(uid: str, path: str) -> list[FieldError]:
    """validateUID: a UUID, in RFC 4122's normalized form."""
    problem = _uuid_problem(uid)
    if problem is not None:
        return [field.invalid(path, uid, f"error validating uid: {problem}")]
    if len(uid) != 36 or uid != uid.lower():
        return [field.invalid(path, uid, "uid must be in RFC 4122 normalized form, "
                                         "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters")]
    return []


def _pool_name(name: Any, path: str) -> list[FieldError]:
    """validatePoolName: each slash-separated part a DNS subdomain."""
    name = name if isinstance(name, str) else ""
    if not name:
        return [field.required(path)]
    found = [field.too_long(path, POOL_NAME_MAX)] if len(name) > POOL_NAME_MAX else []
    for part in name.split("/"):
        found += dns_subdomain(part, path)
    return found


def _strings(values: Any) -> list[str]:
    return [v if isinstance(v, str) else "" for v in as_list(values)]


def _request_result(names: dict[str, set[str] | None]) -> Check:
    def check(result: Any, path: str) -> list[FieldError]:
        """validateDeviceRequestAllocationResult."""
        result = as_dict(result)
        found = request_ref(names)(result.get("request"), f"{path}.request")
        found += driver_name(result.get("driver"), f"{path}.driver")
        found += _pool_name(result.get("pool"), f"{path}.pool")
        found += dns_label(str(result.get("device") or ""), f"{path}.device")
        found += slice_validation.binding_parameters(result, path)
        if result.get("shareID") is not None:
            found += _uid(str(result["shareID"]), f"{path}.shareID")
        return found
    return check


def _config_source(source: Any, path: str) -> list[FieldError]:
    """validateAllocationConfigSource."""
    source = source if isinstance(source, str) else ""
    if not source:
        return [field.required(path)]
    return [] if source in CONFIG_SOURCES else [field.not_supported(path, source, CONFIG_SOURCES)]


def _allocation_config(names: dict[str, set[str] | None]) -> Check:
    def check(config: Any, path: str) -> list[FieldError]:
        """validateDeviceAllocationConfiguration."""
        config = as_dict(config)
        found = _config_source(config.get("source"), f"{path}.source")
        found += _unique_strings(_strings(config.get("requests")), REQUESTS_MAX, request_ref(names), f"{path}.requests")
        return found + device_configuration(config, path)
    return check


def _unique_strings(items: list[str], limit: int, check: Check, path: str) -> list[FieldError]:
    """validateSet keyed by the string itself."""
    if limit >= 0 and len(items) > limit:
        return [field.too_many(path, len(items), limit)]
    found = each(items, -1, check, path)
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item in seen:
            found.append(field.duplicate(f"{path}[{i}]", item))
        seen.add(item)
    return found


def allocation_result(allocation: Obj, path: str, names: dict[str, set[str] | None]) -> list[FieldError]:
    """validateAllocationResult (of a new allocation: stored ones are never judged again)."""
    devices, at = as_dict(allocation.get("devices")), f"{path}.devices"
    found = each(as_list(devices.get("results")), ALLOCATION_RESULTS_MAX, _request_result(names), f"{at}.results")
    found += each(as_list(devices.get("config")), 2 * CONFIG_MAX, _allocation_config(names), f"{at}.config")
    if allocation.get("nodeSelector") is not None:
        found += slice_validation.node_selector(allocation["nodeSelector"], f"{path}.nodeSelector")
    return found


def _interface_address(address: Any, path: str) -> list[FieldError]:
    """IsValidInterfaceAddress: an address and its prefix length, as netutils.ParseCIDRSloppy reads and
    net.IP.String writes it."""
    address = address if isinstance(address, str) else ""
    parsed = ip_validation.parse_cidr_sloppy(address)
    if parsed is None:
        return [field.invalid(path, address, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or "
                                             "2001:db8::1/64)")]
    ip, network, ones = parsed
    if ip_validation.is_v4(ip) and len(network) == 16 and ones > 32:
        ones -= 96
    canonical = f"{ip_validation.ip_text(ip)}/{ones}"
    return [] if address == canonical else [field.invalid(path, address, f'must be in canonical form ("{canonical}")')]


def _network_data(data: Any, path: str) -> list[FieldError]:
    """validateNetworkDeviceData."""
    if data is None:
        return []
    data = as_dict(data)
    found: list[FieldError] = []
    if len(str(data.get("interfaceName") or "").encode()) > INTERFACE_NAME_MAX:
        found.append(field.too_long(f"{path}.interfaceName", INTERFACE_NAME_MAX))
    if len(str(data.get("hardwareAddress") or "").encode()) > HARDWARE_ADDRESS_MAX:
        found.append(field.too_long(f"{path}.hardwareAddress", HARDWARE_ADDRESS_MAX))
    return found + _unique_strings(_strings(data.get("ips")), IPS_MAX, _interface_address, f"{path}.ips")


def _device_status(allocated: set[tuple[str, str, str, str]]) -> Check:
    def check(device: Any, path: str) -> list[FieldError]:
        """validateDeviceStatus."""
        device = as_dict(device)
        found = driver_name(device.get("driver"), f"{path}.driver")
        found += _pool_name(device.get("pool"), f"{path}.pool")
        found += dns_label(str(device.get("device") or ""), f"{path}.device")
        if device.get("shareID") is not None:
            found += _uid(str(device["shareID"]), f"{path}.shareID")
        key = shared_device_id(device)
        if key not in allocated:
            found.append(field.invalid_shown(path, _shown_id(key), _NOT_ALLOCATED))
        items = as_list(device.get("conditions"))
        if len(items) > CONDITIONS_MAX:
            found.append(field.too_many(f"{path}.conditions", len(items), CONDITIONS_MAX))
        found += conditions(items, f"{path}.conditions")
        if device.get("data") is not None:
            found += raw_extension(device["data"], f"{path}.data", DATA_MAX)
        return found + _network_data(device.get("networkData"), f"{path}.networkData")
    return check


def _results(status: Obj) -> list[Obj]:
    allocation = status.get("allocation")
    return [as_dict(r) for r in as_list(as_dict(as_dict(allocation).get("devices")).get("results"))]


def _reserved_for(items: list[Any], path: str) -> list[FieldError]:
    """validateSet of validateResourceClaimUserReference, keyed by uid."""
    if len(items) > RESERVED_FOR_MAX:
        return [field.too_many(path, len(items), RESERVED_FOR_MAX)]
    found: list[FieldError] = []
    for i, ref in enumerate(items):
        ref = as_dict(ref)
        for key in ("resource", "name", "uid"):
            if not ref.get(key):
                found.append(field.required(f"{path}[{i}].{key}"))
    seen: set[str] = set()
    for i, ref in enumerate(items):
        uid = str(as_dict(ref).get("uid") or "")
        if uid in seen:
            found.append(field.duplicate(f"{path}[{i}]", uid))
        seen.add(uid)
    return found


def _devices(items: list[Any], allocated: set[tuple[str, str, str, str]], path: str) -> list[FieldError]:
    """validateSet of validateDeviceStatus, keyed by the shared device ID."""
    found = each(items, -1, _device_status(allocated), path)
    seen: set[tuple[str, str, str, str]] = set()
    for i, device in enumerate(items):
        key = shared_device_id(as_dict(device))
        if key in seen:
            found.append(field.duplicate_shown(f"{path}[{i}]", _shown_id(key)))
        seen.add(key)
    return found


def _reference(ref: Any) -> tuple[str, str, str, str]:
    ref = as_dict(ref)
    return tuple(str(ref.get(k) or "") for k in ("apiGroup", "resource", "name", "uid"))  # type: ignore[return-value]


def status_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateResourceClaimStatusUpdate."""
    found = object_meta.validate_update(new["metadata"], old["metadata"])
    status, old_status = as_dict(new.get("status")), as_dict(old.get("status"))
    reserved = as_list(status.get("reservedFor"))
    found += _reserved_for(reserved, "status.reservedFor")
    allocated = {shared_device_id(r) for r in _results(status)}
    found += _devices(as_list(status.get("devices")), allocated, "status.devices")
    allocation = status.get("allocation")
    if reserved:
        if allocation is None:
            found.append(field.forbidden("status.reservedFor", "may not be specified when `allocated` is not set"))
        elif new["metadata"].get("deletionTimestamp"):
            # Entries may be removed while the claim is being deleted, not added.
            before = {_reference(r) for r in as_list(old_status.get("reservedFor"))}
            if any(_reference(r) not in before for r in reserved):
                found.append(field.forbidden("status.reservedFor", "new entries may not be added while "
                                                                   "`deallocationRequested` or `deletionTimestamp` are set"))
    old_allocation = old_status.get("allocation")
    if old_allocation is not None and allocation is not None:
        # A populated allocation is immutable, and not judged again: new results are held to more.
        shown = gostructs.allocation_result(allocation)
        if semantic(shown) != semantic(gostructs.allocation_result(old_allocation)):
            found.append(field.invalid_shown("status.allocation", field.go_json(shown), "field is immutable"))
    elif allocation is not None:
        names = request_names(as_dict(as_dict(new.get("spec")).get("devices")))
        found += allocation_result(as_dict(allocation), "status.allocation", names)
    return found
