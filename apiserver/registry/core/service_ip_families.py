"""A Service's IP family fields as its storage settles them before allocating (pkg/registry/core/service/
storage/alloc.go: initIPFamilyFields, with normalizeClusterIPs of storage.go).

This runs before the strategy's validation (BeginCreate and BeginUpdate come first upstream): the cluster-IP
fields are judged here already (ValidateServiceClusterIPsRelatedFields), and a refusal here is the whole
answer. `configured` are the families the cluster's service CIDRs serve, the first its default.
"""

from __future__ import annotations

from typing import Any

from apiserver import errors
from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core import ip_validation
from apiserver.registry.core.service_validation import cluster_ips_related_fields

Obj = dict[str, Any]

_RELEASE = "must be 'SingleStack' to release the secondary "
_NOT_SINGLE = "must be 'RequireDualStack' or 'PreferDualStack' when multiple "


def _list(spec: Obj, key: str) -> list[Any]:
    value = spec.get(key)
    return value if isinstance(value, list) else []


def normalize_cluster_ips(spec: Obj, old_spec: Obj | None) -> None:
    """normalizeClusterIPs: what a client that sets only the singular clusterIP meant for the plural."""
    ip, ips = spec.get("clusterIP") or "", _list(spec, "clusterIPs")
    if old_spec is None:
        if ip and not ips:
            spec["clusterIPs"] = [ip]
        return
    old_ip, old_ips = old_spec.get("clusterIP") or "", _list(old_spec, "clusterIPs")
    if old_ips and not ips and old_ip == ip:
        spec["clusterIPs"] = ips = old_ips
    if old_ip != ip and ips == old_ips:
        if old_ip and not ip:
            spec.pop("clusterIPs", None)
        else:
            spec["clusterIPs"] = [ip]


def _family_of(ip: str) -> str:
    parsed = ip_validation.parse_ip_sloppy(ip)
    if parsed is None:
        return "unknown"
    mapped = getattr(parsed, "ipv4_mapped", None)
    return "IPv4" if parsed.version == 4 or mapped is not None else "IPv6"


def _matching_prefer_dual_stack(spec: Obj, old_spec: Obj | None) -> bool:
    """isMatchingPreferDualStackClusterIPFields: an unchanged PreferDualStack service is left as it is."""
    if old_spec is None or spec.get("ipFamilyPolicy") is None or old_spec.get("type") != spec.get("type"):
        return False
    if spec.get("type") not in ("ClusterIP", "NodePort", "LoadBalancer"):
        return False
    if spec.get("ipFamilyPolicy") != "PreferDualStack" or \
            old_spec.get("ipFamilyPolicy") not in (None, "PreferDualStack"):
        return False
    return _list(spec, "clusterIPs") == _list(old_spec, "clusterIPs") and \
        _list(spec, "ipFamilies") == _list(old_spec, "ipFamilies")


def _refuse(name: str, problems: list[FieldError]) -> None:
    if problems:
        raise errors.invalid("Service", "", name, problems)


def init_ip_family_fields(svc: Obj, old: Obj | None, configured: tuple[str, ...]) -> None:
    """initIPFamilyFields: defaults the policy and families, refusing what the cluster cannot serve."""
    spec = svc.setdefault("spec", {})
    old_spec: Obj | None = None
    if old is not None:
        old_spec = old["spec"] if isinstance(old.get("spec"), dict) else {}
    name = str(svc["metadata"].get("name") or "")
    if spec.get("type") == "ExternalName" or _matching_prefer_dual_stack(spec, old_spec):
        return
    headless_selectorless = spec.get("clusterIP") == "None" and not spec.get("selector")
    if spec.get("ipFamilyPolicy") is None:
        if old_spec is not None and old_spec.get("ipFamilyPolicy") is not None:
            spec["ipFamilyPolicy"] = old_spec["ipFamilyPolicy"]
        else:
            spec["ipFamilyPolicy"] = "RequireDualStack" if headless_selectorless else "SingleStack"
    _refuse(name, cluster_ips_related_fields(spec, old_spec))
    policy = spec["ipFamilyPolicy"]
    shown_policy = field.go_value(policy)
    problems: list[FieldError] = []
    if old_spec is not None:
        ips, old_ips = _list(spec, "clusterIPs"), _list(old_spec, "clusterIPs")
        families, old_families = _list(spec, "ipFamilies"), _list(old_spec, "ipFamilies")
        if policy == "SingleStack":
            if ips == old_ips and len(ips) > 1:
                spec["clusterIPs"] = ips[:1]
            if families == old_families and len(families) > 1:
                spec["ipFamilies"] = families[:1]
        else:
            if ips and len(ips) < len(old_ips):
                problems.append(field.invalid_shown("spec.ipFamilyPolicy", shown_policy,
                                                    _RELEASE + "cluster IP"))
            if families and len(families) < len(old_families):
                problems.append(field.invalid_shown("spec.ipFamilyPolicy", shown_policy,
                                                    _RELEASE + "IP family"))
    if policy == "SingleStack":
        if len(_list(spec, "clusterIPs")) == 2:
            problems.append(field.invalid_shown("spec.ipFamilyPolicy", shown_policy,
                                                _NOT_SINGLE + "cluster IPs are specified"))
        if len(_list(spec, "ipFamilies")) == 2:
            problems.append(field.invalid_shown("spec.ipFamilyPolicy", shown_policy,
                                                _NOT_SINGLE + "IP families are specified"))
    ips = _list(spec, "clusterIPs")
    for i, ip in enumerate(ips):
        if ip == "None":
            break
        family = _family_of(str(ip))
        if i >= len(_list(spec, "ipFamilies")):
            if family not in configured:
                problems.append(field.invalid(f"spec.clusterIPs[{i}]", ips,
                                              f"{family} is not configured on this cluster"))
            else:
                spec["ipFamilies"] = [*_list(spec, "ipFamilies"), family]
    _refuse(name, problems)
    if headless_selectorless:
        if not _list(spec, "ipFamilies"):
            spec["ipFamilies"] = [configured[0]]
        families = spec["ipFamilies"]
        if len(families) < 2 and policy != "SingleStack":
            spec["ipFamilies"] = [*families, "IPv6" if families[0] == "IPv4" else "IPv4"]
        return
    if policy == "RequireDualStack" and len(configured) < 2:
        problems.append(field.invalid_shown("spec.ipFamilyPolicy", shown_policy,
                                            "this cluster is not configured for dual-stack services"))
    for i, family in enumerate(_list(spec, "ipFamilies")):
        if family not in configured:
            problems.append(field.invalid(f"spec.ipFamilies[{i}]", family, "not configured on this cluster"))
    _refuse(name, problems)
    if not _list(spec, "ipFamilies"):
        spec["ipFamilies"] = [configured[0]]
    families = spec["ipFamilies"]
    if policy != "SingleStack" and len(families) == 1 and len(configured) == 2:
        spec["ipFamilies"] = [*families, "IPv6" if families[0] == "IPv4" else "IPv4"]
