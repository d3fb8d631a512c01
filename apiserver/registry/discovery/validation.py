"""discovery.k8s.io/v1 validation: pkg/apis/discovery/validation/validation.go, every function, in its order.

Metadata is judged by the write path (`registry/meta.py`). Addresses are judged by the slice's address
type (IPv4 as a legacy field, IPv6 strictly, FQDN as a domain name); an update that leaves the
endpoints as they were is not judged on them again.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import ip_validation as ip
from apiserver.kinds.validation import (
    dns1123_label,
    dns1123_subdomain,
    fully_qualified_domain_name,
    label_value,
    qualified_name,
)
from apiserver.registry import field
from apiserver.registry.meta import labels

Obj = dict[str, Any]

ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")  # sets.List(): sorted
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_MAX_TOPOLOGY_LABELS = 16
_MAX_ADDRESSES = 100
_MAX_PORTS = 20000
_MAX_ENDPOINTS = 1000
_MAX_HINTS = 8
_ZONE_LABEL = "topology.kubernetes.io/zone"


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _address(address: str, address_type: str, at: str, addresses_path: str) -> list[FieldError]:
    if address_type == "IPv4":
        found = ip.valid_ip_for_legacy_field(at, address)
        if found:
            return found
        if not ip.is_ipv4_string(address):
            found.append(field.invalid(addresses_path, address, "must be an IPv4 address"))
        return found + ip.endpoint_ip(at, address)
    if address_type == "IPv6":
        found = ip.valid_ip(at, address)
        if found:
            return found
        if not ip.is_ipv6_string(address):
            found.append(field.invalid(addresses_path, address, "must be an IPv6 address"))
        return found + ip.endpoint_ip(at, address)
    if address_type == "FQDN":
        return fully_qualified_domain_name(at, address)
    return []  # an unknown type is refused once, at addressType


def _hints(hints: Obj, path: str) -> list[FieldError]:
    """validateHints: at most 8 zones and 8 nodes, each named once and validly."""
    zones = _list(hints.get("forZones"))
    if len(zones) > _MAX_HINTS:
        return [field.too_many(f"{path}.forZones", len(zones), _MAX_HINTS)]
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, zone in enumerate(zones):
        at, name = f"{path}.forZones[{i}].name", _str(_dict(zone).get("name"))
        if name in seen:
            found.append(field.duplicate(at, name))
        seen.add(name)
        found += [field.invalid(at, name, msg) for msg in label_value(name)]
    nodes = _list(hints.get("forNodes"))
    if len(nodes) > _MAX_HINTS:
        return found + [field.too_many(f"{path}.forNodes", len(nodes), _MAX_HINTS)]
    seen = set()
    for i, node in enumerate(nodes):
        at, name = f"{path}.forNodes[{i}].name", _str(_dict(node).get("name"))
        if name in seen:
            found.append(field.duplicate(at, name))
        seen.add(name)
        found += [field.invalid(at, name, msg) for msg in dns1123_subdomain(name)]
    return found


def _endpoints(endpoints: list[Any], address_type: str) -> list[FieldError]:
    """validateEndpoints."""
    if len(endpoints) > _MAX_ENDPOINTS:
        return [field.too_many("endpoints", len(endpoints), _MAX_ENDPOINTS)]
    found: list[FieldError] = []
    for i, endpoint in enumerate(endpoints):
        endpoint = _dict(endpoint)
        at = f"endpoints[{i}]"
        addresses = _list(endpoint.get("addresses"))
        if not addresses:
            found.append(field.required(f"{at}.addresses", "must contain at least 1 address"))
        elif len(addresses) > _MAX_ADDRESSES:
            found.append(field.too_many(f"{at}.addresses", len(addresses), _MAX_ADDRESSES))
        for j, address in enumerate(addresses):
            found += _address(_str(address), address_type, f"{at}.addresses[{j}]", f"{at}.addresses")
        if endpoint.get("nodeName") is not None:
            node_name = _str(endpoint["nodeName"])
            found += [field.invalid(f"{at}.nodeName", node_name, msg) for msg in dns1123_subdomain(node_name)]
        topology = _dict(endpoint.get("deprecatedTopology"))
        if len(topology) > _MAX_TOPOLOGY_LABELS:
            found.append(field.too_many(f"{at}.deprecatedTopology", len(topology), _MAX_TOPOLOGY_LABELS))
        found += labels(topology, f"{at}.deprecatedTopology")
        if _ZONE_LABEL in topology:
            found.append(FieldError("InternalError", f"{at}.deprecatedTopology[{_ZONE_LABEL}]",
                                    "Internal error: reserved key was not removed in conversion"))
        if endpoint.get("hostname") is not None:
            hostname = _str(endpoint["hostname"])
            found += [field.invalid(f"{at}.hostname", hostname, msg) for msg in dns1123_label(hostname)]
        if isinstance(endpoint.get("hints"), dict):
            found += _hints(endpoint["hints"], f"{at}.hints")
    return found


def _ports(ports: list[Any]) -> list[FieldError]:
    """validatePorts: names unique and DNS labels, a supported protocol, a qualified appProtocol."""
    if len(ports) > _MAX_PORTS:
        return [field.too_many("ports", len(ports), _MAX_PORTS)]
    found: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        port = _dict(port)
        at = f"ports[{i}]"
        name = _str(port.get("name"))
        if name:
            found += [field.invalid(f"{at}.name", name, msg) for msg in dns1123_label(name)]
        if name in names:
            found.append(field.duplicate(f"{at}.name", name))
        names.add(name)
        protocol = port.get("protocol")
        if protocol is None:
            found.append(field.required(f"{at}.protocol"))
        elif protocol not in _PROTOCOLS:
            found.append(field.not_supported(f"{at}.protocol", protocol, _PROTOCOLS))
        if port.get("appProtocol") is not None:
            app_protocol = _str(port["appProtocol"])
            found += [field.invalid(f"{at}.appProtocol", app_protocol, msg) for msg in qualified_name(app_protocol)]
    return found


def _address_type(address_type: Any) -> list[FieldError]:
    if not address_type:
        return [field.required("addressType")]
    if address_type not in ADDRESS_TYPES:
        return [field.not_supported("addressType", address_type, ADDRESS_TYPES)]
    return []


def _endpoint_slice(obj: Obj, old: Obj | None) -> list[FieldError]:
    """ValidateEndpointSlice."""
    address_type = _str(obj.get("addressType"))
    found = _address_type(obj.get("addressType")) + _ports(_list(obj.get("ports")))
    endpoint_errors = _endpoints(_list(obj.get("endpoints")), address_type)
    if endpoint_errors and old is not None and old.get("endpoints") == obj.get("endpoints"):
        # Older releases took these endpoints: an update that keeps them is not judged on them again.
        endpoint_errors = []
    return found + endpoint_errors


def endpoint_slice(obj: Obj) -> list[FieldError]:
    return _endpoint_slice(obj, None)


def endpoint_slice_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateEndpointSliceUpdate: judged as on create, and the address type fixed."""
    return _endpoint_slice(new, old) + field.immutable("addressType", _str(new.get("addressType")),
                                                      _str(old.get("addressType")))
