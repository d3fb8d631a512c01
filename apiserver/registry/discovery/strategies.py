"""discovery.k8s.io/v1: EndpointSlice's defaulting (pkg/apis/discovery/v1/defaults.go) and strategy
(pkg/registry/discovery/endpointslice/strategy.go).

PreferSameTrafficDistribution is locked on in 1.36, so hints.forNodes is never dropped; requests are
v1, so deprecatedTopology always is (dropTopologyOnV1).
"""

from __future__ import annotations

from typing import Any

from apiserver.kinds import ip_validation as ip
from apiserver.kinds.validation import dns1123_subdomain
from apiserver.registry.discovery import validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]

_HOSTNAME_LABEL = "kubernetes.io/hostname"
_MANAGING_CONTROLLERS = frozenset({"endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io"})


def _default(obj: Obj) -> None:
    """SetDefaults_EndpointPort; a null item of a list of structs decodes as Go's zero struct."""
    for name in ("endpoints", "ports"):
        if isinstance(obj.get(name), list):
            obj[name] = [{} if item is None else item for item in obj[name]]
    for endpoint in obj.get("endpoints") or ():
        hints = endpoint.get("hints") if isinstance(endpoint, dict) else None
        for name in ("forZones", "forNodes"):
            if isinstance(hints, dict) and isinstance(hints.get(name), list):
                hints[name] = [{} if item is None else item for item in hints[name]]
    for port in obj.get("ports") or ():
        if isinstance(port, dict):
            if port.get("name") is None:
                port["name"] = ""
            if port.get("protocol") is None:
                port["protocol"] = "TCP"


def _drop_topology(new: Obj, old: Obj | None) -> None:
    """dropTopologyOnV1: v1 writes never keep deprecatedTopology; a hostname the old slice recorded there
    stands in for an unset nodeName."""
    if old is not None and old.get("endpoints") == new.get("endpoints"):
        return
    previous = {str(name) for endpoint in (old or {}).get("endpoints") or () if isinstance(endpoint, dict)
                for name in [(endpoint.get("deprecatedTopology") or {}).get(_HOSTNAME_LABEL)] if name}
    for endpoint in new.get("endpoints") or ():
        if not isinstance(endpoint, dict):
            continue
        topology = endpoint.pop("deprecatedTopology", None)
        hostname = topology.get(_HOSTNAME_LABEL) if isinstance(topology, dict) else None
        if endpoint.get("nodeName") is None and hostname in previous and \
                not dns1123_subdomain(str(hostname)):
            endpoint["nodeName"] = hostname


def _prepare_for_update(new: Obj, old: Obj) -> None:
    """Any change but metadata's, or of the labels, is a new generation (compared before topology drops)."""
    meta, old_meta = new["metadata"], old["metadata"]
    if {k: v for k, v in new.items() if k != "metadata"} != {k: v for k, v in old.items() if k != "metadata"} \
            or (meta.get("labels") or {}) != (old_meta.get("labels") or {}):
        meta["generation"] = int(old_meta.get("generation") or 0) + 1
    _drop_topology(new, old)


def _bad_ip_warnings(obj: Obj) -> list[str]:
    """warnOnBadIPs; the endpoint controllers' own slices are not checked."""
    if ((obj.get("metadata") or {}).get("labels") or {}).get("endpointslice.kubernetes.io/managed-by") \
            in _MANAGING_CONTROLLERS:
        return []
    warnings: list[str] = []
    for i, endpoint in enumerate(obj.get("endpoints") or ()):
        for j, address in enumerate((endpoint or {}).get("addresses") or ()):
            warnings += ip.ip_warnings(f"endpoints[{i}].addresses[{j}]", str(address))
    return warnings


def _warnings_on_create(obj: Obj) -> list[str]:
    deprecated = ["spec.addressType: FQDN endpoints are deprecated"] if obj.get("addressType") == "FQDN" else []
    return deprecated + _bad_ip_warnings(obj)


STRATEGIES: dict[str, Strategy] = {
    "EndpointSlice": KindStrategy(
        default=_default, prepare_for_create=lambda obj: _drop_topology(obj, None),
        prepare_for_update=_prepare_for_update, validate=validation.endpoint_slice,
        validate_update=validation.endpoint_slice_update, warnings_on_create=_warnings_on_create,
        warnings_on_update=lambda new, old: _bad_ip_warnings(new)),
}
