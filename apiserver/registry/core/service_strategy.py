"""A Service update's type-dependent fields, as pkg/registry/core/service/strategy.go drops them.

`dropTypeDependentFields` (called by PrepareForUpdate): when an update changes a Service's type to one
that no longer uses a field the server may have filled in (cluster IPs, node ports, the health-check
node port, allocateLoadBalancerNodePorts, loadBalancerClass, externalTrafficPolicy), and the client
left that field as it was, the field is wiped, to be released later; a field the client changed is
left for validation to judge. Only updates: a create keeps whatever it was given. And the storage's
Decorator, which hides what an ExternalName Service does not use.
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def _needs_cluster_ip(spec: Obj) -> bool:
    return spec.get("type") != "ExternalName"


def _needs_node_port(spec: Obj) -> bool:
    return spec.get("type") in ("NodePort", "LoadBalancer")


def _needs_health_check_node_port(spec: Obj) -> bool:
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _externally_accessible(spec: Obj) -> bool:
    kind = spec.get("type") or "ClusterIP"
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(spec.get("externalIPs")))


def _node_ports(spec: Obj) -> set[Any]:
    return {p.get("nodePort") for p in spec.get("ports") or () if isinstance(p, dict) and p.get("nodePort")}


def drop_type_dependent_fields(new: Obj, old: Obj) -> None:
    spec, old_spec = new.get("spec"), old.get("spec")
    if not isinstance(spec, dict) or not isinstance(old_spec, dict):
        return
    if _needs_cluster_ip(old_spec) and not _needs_cluster_ip(spec):
        if (spec.get("clusterIP") or "") == (old_spec.get("clusterIP") or "") and \
                (spec.get("clusterIPs") or []) == (old_spec.get("clusterIPs") or []):
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        if spec.get("ipFamilies") == old_spec.get("ipFamilies"):
            spec.pop("ipFamilies", None)
        if (spec.get("ipFamilyPolicy") or "") == (old_spec.get("ipFamilyPolicy") or ""):
            spec.pop("ipFamilyPolicy", None)
    # Upstream's sameNodePorts: the old ports are a superset of the new ones.
    if _needs_node_port(old_spec) and not _needs_node_port(spec) and _node_ports(spec) <= _node_ports(old_spec):
        for port in spec.get("ports") or ():
            if isinstance(port, dict):
                port.pop("nodePort", None)
    if _needs_health_check_node_port(old_spec) and not _needs_health_check_node_port(spec) and \
            spec.get("healthCheckNodePort") == old_spec.get("healthCheckNodePort"):
        spec.pop("healthCheckNodePort", None)
    if old_spec.get("type") == "LoadBalancer" and spec.get("type") != "LoadBalancer":
        kept, was = spec.get("allocateLoadBalancerNodePorts"), old_spec.get("allocateLoadBalancerNodePorts")
        if kept is not None and was is not None and kept == was:
            spec.pop("allocateLoadBalancerNodePorts", None)
        if spec.get("loadBalancerClass") == old_spec.get("loadBalancerClass"):
            spec.pop("loadBalancerClass", None)
    if _externally_accessible(old_spec) and not _externally_accessible(spec) and \
            spec.get("externalTrafficPolicy") == old_spec.get("externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)
    if spec.get("type") != "LoadBalancer" and isinstance(new.get("status"), dict):
        new["status"]["loadBalancer"] = {}


def default_on_read(svc: Obj, old: Obj | None, cluster: Any, now: str) -> None:
    """The service storage's Decorator (defaultOnReadInternalTrafficPolicy): an ExternalName Service shows
    no internalTrafficPolicy, which an older defaulting gave it. Upstream drops it from every read and
    answer; here it is dropped once, after validation judged it, before the object is stored."""
    spec = svc.get("spec")
    if isinstance(spec, dict) and spec.get("type") == "ExternalName":
        spec.pop("internalTrafficPolicy", None)
