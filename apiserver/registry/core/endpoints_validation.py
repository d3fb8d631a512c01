"""Endpoints and Namespace validation: ValidateEndpoints(Create, Update) with ValidateEndpointIP, and
ValidateNamespace(Update, FinalizeUpdate) of pkg/apis/core/validation/validation.go.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain, port_number, qualified_name
from apiserver.registry import field
from apiserver.registry.core import ip_validation
from apiserver.registry.core.pod_containers import PROTOCOLS

Obj = dict[str, Any]

_LINK_LOCAL_MULTICAST_V4 = ipaddress.ip_network("224.0.0.0/24")


def endpoint_ip(value: str, path: str) -> list[FieldError]:
    """ValidateEndpointIP: a routable unicast address (an IPv4-mapped one judged as IPv4, as Go does)."""
    ip = ip_validation.parse_ip_sloppy(value)
    if ip is None:
        return [field.invalid(path, value, "must be a valid IP address")]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    found: list[FieldError] = []
    if ip.is_unspecified:
        found.append(field.invalid(path, value, f"may not be unspecified ({value})"))
    if ip.is_loopback:
        found.append(field.invalid(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if ip.is_link_local:
        found.append(field.invalid(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    multicast = ip in _LINK_LOCAL_MULTICAST_V4 if ip.version == 4 else (ip.packed[0] == 0xff and ip.packed[1] & 0x0f == 2)
    if multicast:
        found.append(field.invalid(path, value,
                                   "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return found


def _address(address: Obj, at: str) -> list[FieldError]:
    ip = address.get("ip") or ""
    found = ip_validation.legacy_ip(ip, f"{at}.ip")
    hostname = address.get("hostname") or ""
    if hostname:
        found += [field.invalid(f"{at}.hostname", hostname, msg) for msg in dns1123_label(hostname)]
    node_name = address.get("nodeName")
    if node_name is not None:
        found += [field.invalid(f"{at}.nodeName", node_name, msg) for msg in dns1123_subdomain(node_name)]
    return found + endpoint_ip(ip, f"{at}.ip")


def _port(port: Obj, require_name: bool, at: str) -> list[FieldError]:
    found: list[FieldError] = []
    name = port.get("name") or ""
    if require_name and not name:
        found.append(field.required(f"{at}.name"))
    elif name:
        found += [field.invalid(f"{at}.name", name, msg) for msg in dns1123_label(name)]
    number = port.get("port") or 0
    found += [field.invalid(f"{at}.port", number, msg) for msg in port_number(number)]
    protocol = port.get("protocol") or ""
    if not protocol:
        found.append(field.required(f"{at}.protocol"))
    elif protocol not in PROTOCOLS:
        found.append(field.not_supported(f"{at}.protocol", protocol, PROTOCOLS))
    app_protocol = port.get("appProtocol")
    if app_protocol is not None:
        found += [field.invalid(f"{at}.appProtocol", app_protocol, msg) for msg in qualified_name(app_protocol)]
    return found


def _subsets(subsets: list[Any]) -> list[FieldError]:
    found: list[FieldError] = []
    for i, subset in enumerate(subsets):
        subset = subset if isinstance(subset, dict) else {}
        at = f"subsets[{i}]"
        addresses, not_ready = subset.get("addresses") or [], subset.get("notReadyAddresses") or []
        if not addresses and not not_ready:
            found.append(field.required(at, "must specify `addresses` or `notReadyAddresses`"))
        for key, items in (("addresses", addresses), ("notReadyAddresses", not_ready)):
            for j, address in enumerate(items):
                found += _address(address if isinstance(address, dict) else {}, f"{at}.{key}[{j}]")
        ports = subset.get("ports") or []
        for j, port in enumerate(ports):
            found += _port(port if isinstance(port, dict) else {}, len(ports) > 1, f"{at}.ports[{j}]")
    return found


def endpoints(obj: Obj) -> list[FieldError]:
    """ValidateEndpointsCreate (its metadata aside)."""
    return _subsets(obj.get("subsets") or [])


def endpoints_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateEndpointsUpdate: subsets an older server stored are kept even where today's rules refuse them."""
    found = _subsets(new.get("subsets") or [])
    if found and (new.get("subsets") or []) == (old.get("subsets") or []):
        return []
    return found


# -- namespaces ----------------------------------------------------------------------------------

_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


def finalizer_name(value: str, path: str) -> list[FieldError]:
    """validateFinalizerName: a qualified name, and a standard one unless it names a domain."""
    found = [field.invalid(path, value, msg) for msg in qualified_name(value)]
    if "/" not in value and value not in _STANDARD_FINALIZERS:
        found.append(field.invalid(path, value, "name is neither a standard finalizer name nor is it fully qualified"))
    return found


def namespace(obj: Obj) -> list[FieldError]:
    """ValidateNamespace (its metadata aside): every spec finalizer at the list's path."""
    found: list[FieldError] = []
    for value in (obj.get("spec") or {}).get("finalizers") or []:
        found += finalizer_name(value or "", "spec.finalizers")
    return found


def namespace_finalize(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    """ValidateNamespaceFinalizeUpdate for namespaces/finalize (its metadata aside): each spec finalizer at
    its index, where a create names the list."""
    if subresource != "finalize":
        return []
    found: list[FieldError] = []
    for i, value in enumerate((new.get("spec") or {}).get("finalizers") or []):
        found += finalizer_name(value or "", f"spec.finalizers[{i}]")
    return found


def keep_finalizers_and_status(new: Obj, old: Obj) -> None:
    """The namespace strategy's PrepareForUpdate: finalizers and status are the finalize and status calls'."""
    spec = new.get("spec") if isinstance(new.get("spec"), dict) else new.setdefault("spec", {})
    old_finalizers = (old.get("spec") or {}).get("finalizers")
    if old_finalizers is None:
        spec.pop("finalizers", None)
    else:
        spec["finalizers"] = old_finalizers
    new["status"] = old.get("status") or {}
