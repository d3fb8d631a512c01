"""A Service's validation: pkg/apis/core/validation/validation.go's validateService, ValidateServiceCreate's
and ValidateServiceUpdate's own rules (the metadata is `meta.py`'s), whole.

Upstream judges the internal object after its storage has normalized and allocated the cluster IPs and IP
families (`service_allocation.py`, which also calls `cluster_ips_related_fields` first, as initIPFamilyFields
does). Optional Go pointers (ipFamilyPolicy, loadBalancerClass, internalTrafficPolicy, ...) are None here when
absent, and show as `null`.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain, port_name, qualified_name
from apiserver.registry import field
from apiserver.registry.core import ip_validation
from apiserver.registry.core.endpoints_validation import endpoint_ip
from apiserver.registry.core.pod_containers import PROTOCOLS
from apiserver.registry.meta import labels

Obj = dict[str, Any]

_SESSION_AFFINITIES = ("ClientIP", "None")
_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_TRAFFIC_POLICIES = ("Cluster", "Local")
_IP_FAMILIES = ("IPv4", "IPv6")
_IP_FAMILY_POLICIES = ("PreferDualStack", "RequireDualStack", "SingleStack")
# PreferSameTrafficDistribution is GA (locked on) at 1.36.
_TRAFFIC_DISTRIBUTIONS = ("PreferClose", "PreferSameZone", "PreferSameNode")
_MAX_CLIENT_IP_AFFINITY_SECONDS = 86400
_TOPOLOGY_HINTS = "service.kubernetes.io/topology-aware-hints"
_TOPOLOGY_MODE = "service.kubernetes.io/topology-mode"
_SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges"


def _spec(obj: Obj | None) -> Obj:
    spec = (obj or {}).get("spec")
    return spec if isinstance(spec, dict) else {}


def _list(spec: Obj, key: str) -> list[Any]:
    value = spec.get(key)
    return value if isinstance(value, list) else []


def is_headless(spec: Obj) -> bool:
    """isHeadlessService: exactly one cluster IP, "None"."""
    return _list(spec, "clusterIPs") == ["None"]


def _externally_accessible(spec: Obj) -> bool:
    kind = spec.get("type")
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(_list(spec, "externalIPs")))


def _needs_health_check(spec: Obj) -> bool:
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _port_key(protocol: str, port: Any) -> str:
    # The internal core.ServicePort upstream compares, as json.Marshal writes a struct without json tags.
    return field.go_json({"Name": "", "Protocol": protocol, "AppProtocol": None, "Port": port,
                          "TargetPort": 0, "NodePort": 0})


def _service_port(port: Obj, require_name: bool, names: set[str], at: str) -> list[FieldError]:
    """validateServicePort (targetPorts of headless services are tolerated in v1, as upstream keeps them)."""
    found: list[FieldError] = []
    name = port.get("name") or ""
    if require_name and not name:
        found.append(field.required(f"{at}.name"))
    elif name:
        found += [field.invalid(f"{at}.name", name, msg) for msg in dns1123_label(name)]
        if name in names:
            found.append(field.duplicate(f"{at}.name", name))
        else:
            names.add(name)
    found += field.port_number(f"{at}.port", port.get("port") or 0)
    protocol = port.get("protocol") or ""
    if not protocol:
        found.append(field.required(f"{at}.protocol"))
    elif protocol not in PROTOCOLS:
        found.append(field.not_supported(f"{at}.protocol", protocol, PROTOCOLS))
    target = port.get("targetPort")
    if isinstance(target, str):
        found += [field.invalid(f"{at}.targetPort", target, msg) for msg in port_name(target)]
    else:
        found += field.port_number(f"{at}.targetPort", target or 0)
    app_protocol = port.get("appProtocol")
    if app_protocol is not None:
        found += [field.invalid(f"{at}.appProtocol", app_protocol, msg)
                  for msg in qualified_name(app_protocol)]
    return found


def _client_ip_affinity(config: Any, at: str) -> list[FieldError]:
    """validateClientIPAffinityConfig."""
    why = "when session affinity type is ClientIP"
    if not isinstance(config, dict):
        return [field.required(at, why)]
    client_ip = config.get("clientIP")
    if not isinstance(client_ip, dict):
        return [field.required(f"{at}.clientIP", why)]
    timeout = client_ip.get("timeoutSeconds")
    if timeout is None:
        return [field.required(f"{at}.clientIP.timeoutSeconds", why)]
    if not 0 < timeout <= _MAX_CLIENT_IP_AFFINITY_SECONDS:
        return [field.invalid(f"{at}.clientIP.timeoutSeconds", timeout,
                              f"must be greater than 0 and less than {_MAX_CLIENT_IP_AFFINITY_SECONDS}")]
    return []


def _is_ipv6(value: str) -> bool:
    ip = ip_validation.parse_ip_sloppy(value)
    return isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None


def cluster_ips_related_fields(spec: Obj, old_spec: Obj | None) -> list[FieldError]:
    """ValidateServiceClusterIPsRelatedFields: clusterIP and clusterIPs in sync, the families and policy
    known, the IPs valid (at most one per family) and of the families they are listed with."""
    if spec.get("type") == "ExternalName":
        return []
    found: list[FieldError] = []
    cluster_ip, ips = spec.get("clusterIP") or "", _list(spec, "clusterIPs")
    shown = field.go_json(ips) if ips else "null"
    if cluster_ip:
        if not ips:
            found.append(field.required("spec.clusterIPs"))
        elif ips[0] != cluster_ip:
            found.append(field.invalid_shown("spec.clusterIPs", shown, "first value must match `clusterIP`"))
    elif ips:
        found.append(field.invalid_shown("spec.clusterIPs", shown,
                                         "must be empty when `clusterIP` is not specified"))
    families = _list(spec, "ipFamilies")
    seen: set[Any] = set()
    for i, family in enumerate(families):
        if family not in _IP_FAMILIES:
            found.append(field.not_supported(f"spec.ipFamilies[{i}]", family, _IP_FAMILIES))
        if family in seen:
            found.append(field.duplicate(f"spec.ipFamilies[{i}]", family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in _IP_FAMILY_POLICIES:
        found.append(field.not_supported("spec.ipFamilyPolicy", policy, _IP_FAMILY_POLICIES))
    existing = tuple(_list(old_spec, "clusterIPs")) if old_spec is not None else ()
    invalid_ips = False
    for i, ip in enumerate(ips):
        if i == 0 and ip == "None":
            if len(ips) > 1:
                invalid_ips = True
                found.append(field.invalid_shown("spec.clusterIPs", shown,
                                                 "'None' must be the first and only value"))
            continue
        problems = ip_validation.legacy_ip(str(ip), f"spec.clusterIPs[{i}]", existing)
        invalid_ips = invalid_ips or bool(problems)
        found += problems
    if len(ips) > 2:
        found.append(field.invalid_shown("spec.clusterIPs", shown, "may only hold up to 2 values"))
    if invalid_ips:
        return found
    # netutils.IsDualStackIPStrings: some IP of each family.
    if len(ips) > 1 and len({_is_ipv6(str(ip)) for ip in ips}) < 2:
        found.append(field.invalid_shown("spec.clusterIPs", shown,
                                         "may specify no more than one IP for each IP family"))
    if not is_headless(spec) and ips and families:
        for i, ip in enumerate(ips[:len(families)]):
            if families[i] == "IPv4" and _is_ipv6(ip):
                found.append(field.invalid(f"spec.clusterIPs[{i}]", ip,
                                           f"expected an IPv4 value as indicated by `ipFamilies[{i}]`"))
            if families[i] == "IPv6" and not _is_ipv6(ip):
                found.append(field.invalid(f"spec.clusterIPs[{i}]", ip,
                                           f"expected an IPv6 value as indicated by `ipFamilies[{i}]`"))
    return found


def _load_balancer_class(spec: Obj, old_spec: Obj | None) -> list[FieldError]:
    """validateLoadBalancerClassField."""
    found: list[FieldError] = []
    lb_class = spec.get("loadBalancerClass")
    balanced = spec.get("type") == "LoadBalancer"
    if old_spec is not None and old_spec.get("type") == "LoadBalancer" and balanced \
            and old_spec.get("loadBalancerClass") != lb_class:
        found.append(field.invalid("spec.loadBalancerClass", lb_class, "may not change once set"))
    if balanced:
        if lb_class is not None:
            found += [field.invalid("spec.loadBalancerClass", lb_class, msg)
                      for msg in qualified_name(lb_class)]
    elif lb_class is not None:
        found.append(field.forbidden("spec.loadBalancerClass",
                                     "may only be used when `type` is 'LoadBalancer'"))
    return found


def _external_traffic_policy(spec: Obj) -> list[FieldError]:
    """validateServiceExternalTrafficPolicy."""
    found: list[FieldError] = []
    policy = spec.get("externalTrafficPolicy") or ""
    if not _externally_accessible(spec):
        if policy:
            found.append(field.invalid("spec.externalTrafficPolicy", policy,
                                       "may only be set for externally-accessible services"))
    elif not policy:
        found.append(field.required("spec.externalTrafficPolicy"))
    elif policy not in _TRAFFIC_POLICIES:
        found.append(field.not_supported("spec.externalTrafficPolicy", policy, _TRAFFIC_POLICIES))
    port = spec.get("healthCheckNodePort") or 0
    if not _needs_health_check(spec):
        if port:
            found.append(field.invalid("spec.healthCheckNodePort", port,
                                       "may only be set when `type` is 'LoadBalancer' and "
                                       "`externalTrafficPolicy` is 'Local'"))
    elif not port:
        found.append(field.required("spec.healthCheckNodePort"))
    else:
        found += field.port_number("spec.healthCheckNodePort", port)
    return found


def _source_ranges(obj: Obj, spec: Obj, old: Obj | None) -> list[FieldError]:
    """The source ranges: the field's (at upstream's capitalized path), else the annotation's."""
    found: list[FieldError] = []
    ranges = _list(spec, "loadBalancerSourceRanges")
    balanced = spec.get("type") == "LoadBalancer"
    only_balanced = "may only be used when `type` is 'LoadBalancer'"
    if ranges:
        at = "spec.LoadBalancerSourceRanges"
        if not balanced:
            found.append(field.forbidden(at, only_balanced))
        existing = tuple(str(v).strip() for v in _list(_spec(old), "loadBalancerSourceRanges")) if old else ()
        for i, value in enumerate(ranges):
            found += ip_validation.legacy_cidr(str(value).strip(), f"{at}[{i}]", existing)
        return found
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if _SOURCE_RANGES not in annotations:
        return found
    at = f"metadata.annotations[{_SOURCE_RANGES}]"
    value = annotations[_SOURCE_RANGES]
    if not balanced:
        found.append(field.forbidden(at, only_balanced))
    old_annotations = ((old or {}).get("metadata") or {}).get("annotations") or {}
    if old is None or old_annotations.get(_SOURCE_RANGES) != value:
        value = str(value).strip()
        if value:
            for cidr in value.split(","):
                found += ip_validation.legacy_cidr(cidr.strip(), at)
    return found


def _ports_and_selector(spec: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    ports = _list(spec, "ports")
    names: set[str] = set()
    for i, port in enumerate(ports):
        port = port if isinstance(port, dict) else {}
        found += _service_port(port, len(ports) > 1, names, f"spec.ports[{i}]")
    if spec.get("selector") is not None:
        found += labels(spec.get("selector"), "spec.selector")
    return found


def _by_type(spec: Obj) -> list[FieldError]:
    """validateService's switch on the type."""
    kind = spec.get("type")
    if kind in ("LoadBalancer", "NodePort"):
        if is_headless(spec):
            return [field.invalid("spec.clusterIPs[0]", "None",
                                  f"may not be set to 'None' for {kind} services")]
        return []
    if kind != "ExternalName":
        return []
    found: list[FieldError] = []
    if _list(spec, "clusterIPs"):
        found.append(field.forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
    if _list(spec, "ipFamilies"):
        found.append(field.forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
    if spec.get("ipFamilyPolicy") is not None:
        found.append(field.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
    cname = str(spec.get("externalName") or "").removesuffix(".")
    if cname:
        found += [field.invalid("spec.externalName", cname, msg) for msg in dns1123_subdomain(cname)]
    else:
        found.append(field.required("spec.externalName"))
    return found


def _node_ports_and_ports(spec: Obj) -> list[FieldError]:
    """The ClusterIP type's node ports, then duplicate node ports and ports, by (protocol, number)."""
    found: list[FieldError] = []
    ports = [p if isinstance(p, dict) else {} for p in _list(spec, "ports")]
    if spec.get("type") == "ClusterIP":
        found += [field.forbidden(f"spec.ports[{i}].nodePort", "may not be used when `type` is 'ClusterIP'")
                  for i, port in enumerate(ports) if port.get("nodePort")]
    node_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        if port.get("nodePort"):
            key = (port.get("protocol") or "", port["nodePort"])
            if key in node_ports:
                found.append(field.duplicate(f"spec.ports[{i}].nodePort", port["nodePort"]))
            node_ports.add(key)
    seen: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        key = (port.get("protocol") or "", port.get("port") or 0)
        if key in seen:
            found.append(field.duplicate_shown(f"spec.ports[{i}]", _port_key(*key)))
        seen.add(key)
    return found


def _service(obj: Obj, old: Obj | None) -> list[FieldError]:
    """validateService (service, oldService)."""
    spec = _spec(obj)
    found: list[FieldError] = []
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if _TOPOLOGY_MODE in annotations and _TOPOLOGY_HINTS in annotations \
            and annotations[_TOPOLOGY_MODE] != annotations[_TOPOLOGY_HINTS]:
        found.append(field.invalid(f"metadata.annotations[{_TOPOLOGY_MODE}]", annotations[_TOPOLOGY_MODE],
                                   f"must match annotations[{_TOPOLOGY_HINTS}] when both are specified"))
    kind = spec.get("type") or ""
    if not _list(spec, "ports") and not is_headless(spec) and kind != "ExternalName":
        found.append(field.required("spec.ports"))
    found += _by_type(spec)
    found += _ports_and_selector(spec)
    affinity = spec.get("sessionAffinity") or ""
    if not affinity:
        found.append(field.required("spec.sessionAffinity"))
    elif affinity not in _SESSION_AFFINITIES:
        found.append(field.not_supported("spec.sessionAffinity", affinity, _SESSION_AFFINITIES))
    if affinity == "ClientIP":
        found += _client_ip_affinity(spec.get("sessionAffinityConfig"), "spec.sessionAffinityConfig")
    elif affinity == "None" and spec.get("sessionAffinityConfig") is not None:
        found.append(field.forbidden("spec.sessionAffinityConfig",
                                     "must not be set when session affinity is None"))
    found += cluster_ips_related_fields(spec, _spec(old) if old is not None else None)
    existing = tuple(_list(_spec(old), "externalIPs")) if old is not None else ()
    for i, ip in enumerate(_list(spec, "externalIPs")):
        problems = ip_validation.legacy_ip(str(ip), f"spec.externalIPs[{i}]", existing)
        found += problems or endpoint_ip(str(ip), f"spec.externalIPs[{i}]")
    if not kind:
        found.append(field.required("spec.type"))
    elif kind not in _SERVICE_TYPES:
        found.append(field.not_supported("spec.type", kind, _SERVICE_TYPES))
    found += _node_ports_and_ports(spec)
    found += _source_ranges(obj, spec, old)
    allocate = spec.get("allocateLoadBalancerNodePorts")
    if allocate is not None and kind != "LoadBalancer":
        found.append(field.forbidden("spec.allocateLoadBalancerNodePorts",
                                     "may only be used when `type` is 'LoadBalancer'"))
    if kind == "LoadBalancer" and allocate is None:
        found.append(field.required("allocateLoadBalancerNodePorts"))  # sic: upstream's path has no spec
    found += _load_balancer_class(spec, None)
    found += _external_traffic_policy(spec)
    internal = spec.get("internalTrafficPolicy")
    if internal is None and kind in ("NodePort", "LoadBalancer", "ClusterIP"):
        found.append(field.required("spec.internalTrafficPolicy"))
    if internal is not None and internal not in _TRAFFIC_POLICIES:
        found.append(field.not_supported("spec.internalTrafficPolicy", internal, _TRAFFIC_POLICIES))
    distribution = spec.get("trafficDistribution")
    if distribution is not None and distribution not in _TRAFFIC_DISTRIBUTIONS:
        found.append(field.not_supported("spec.trafficDistribution", distribution, _TRAFFIC_DISTRIBUTIONS))
    return found


def _upgrade_downgrade_cluster_ips(spec: Obj, old_spec: Obj) -> list[FieldError]:
    """validateUpgradeDowngradeClusterIPs."""
    if "ExternalName" in (spec.get("type"), old_spec.get("type")) or \
            (is_headless(spec) and is_headless(old_spec)):
        return []
    ips, old_ips = _list(spec, "clusterIPs"), _list(old_spec, "clusterIPs")
    shown = field.go_json(ips) if ips else "null"
    found: list[FieldError] = []
    if len(old_ips) == len(ips):
        found += [field.invalid_shown(f"spec.clusterIPs[{i}]", shown, "may not change once set")
                  for i, ip in enumerate(old_ips) if ip != ips[i]]
    elif len(old_ips) > len(ips):
        if not ips:
            found.append(field.invalid_shown("spec.clusterIPs[0]", shown,
                                             "primary clusterIP can not be unset"))
        if old_ips and ips and ips[0] != old_ips[0]:
            found.append(field.invalid_shown("spec.clusterIPs[0]", shown, "may not change once set"))
        if len(ips) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            found.append(field.invalid("spec.ipFamilyPolicy", spec.get("ipFamilyPolicy"),
                                       "must be set to 'SingleStack' when releasing the secondary clusterIP"))
    elif old_ips and ips[0] != old_ips[0]:
        found.append(field.invalid_shown("spec.clusterIPs[0]", shown, "may not change once set"))
    return found


def _upgrade_downgrade_ip_families(spec: Obj, old_spec: Obj) -> list[FieldError]:
    """validateUpgradeDowngradeIPFamilies (upstream shows the cluster IPs where a primary family changes)."""
    # Changed to or from headless, or headless on both sides: the families may change.
    if "ExternalName" in (spec.get("type"), old_spec.get("type")) or is_headless(spec) or \
            is_headless(old_spec):
        return []
    families, old_families = _list(spec, "ipFamilies"), _list(old_spec, "ipFamilies")
    shown_families = field.go_json(families) if families else "null"
    ips = _list(spec, "clusterIPs")
    shown_ips = field.go_json(ips) if ips else "null"
    found: list[FieldError] = []
    if len(old_families) == len(families):
        found += [field.invalid_shown("spec.ipFamilies[0]", shown_families, "may not change once set")
                  for i, family in enumerate(old_families) if family != families[i]]
    elif len(old_families) > len(families):
        if not ips:
            found.append(field.invalid_shown("spec.ipFamilies[0]", shown_families,
                                             "primary ipFamily can not be unset"))
        if families and families[0] != old_families[0]:
            found.append(field.invalid_shown("spec.ipFamilies[0]", shown_ips, "may not change once set"))
        if len(families) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            found.append(field.invalid("spec.ipFamilyPolicy", spec.get("ipFamilyPolicy"),
                                       "must be set to 'SingleStack' when releasing the secondary ipFamily"))
    elif old_families and families and families[0] != old_families[0]:
        found.append(field.invalid_shown("spec.ipFamilies[0]", shown_ips, "may not change once set"))
    return found


def service_create(obj: Obj) -> list[FieldError]:
    """ValidateServiceCreate, after its ObjectMeta."""
    return _service(obj, None)


def service_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateServiceUpdate, after its ObjectMetaUpdate."""
    spec, old_spec = _spec(new), _spec(old)
    found = _upgrade_downgrade_cluster_ips(spec, old_spec)
    found += _upgrade_downgrade_ip_families(spec, old_spec)
    found += _load_balancer_class(spec, old_spec)
    if _needs_health_check(old_spec) and _needs_health_check(spec) \
            and spec.get("healthCheckNodePort") != old_spec.get("healthCheckNodePort"):
        found.append(field.forbidden("spec.healthCheckNodePort", "field is immutable"))
    return found + _service(new, old)


_IP_MODES = ("Proxy", "VIP")


def _load_balancer_status(status: Obj, old_status: Obj, spec: Obj) -> list[FieldError]:
    """ValidateLoadBalancerStatus."""
    at = "status.loadBalancer.ingress"
    ingress = [p if isinstance(p, dict) else {} for p in _list(status, "ingress")]
    if spec.get("type") != "LoadBalancer" and ingress:
        return [field.forbidden(at, "may only be used when `spec.type` is 'LoadBalancer'")]
    existing = tuple(p["ip"] for p in _list(old_status, "ingress") if isinstance(p, dict) and p.get("ip"))
    found: list[FieldError] = []
    for i, point in enumerate(ingress):
        ip, mode, hostname = point.get("ip") or "", point.get("ipMode"), point.get("hostname") or ""
        if ip:
            found += ip_validation.legacy_ip(ip, f"{at}[{i}].ip", existing)
        if mode is None:
            if ip:
                found.append(field.required(f"{at}[{i}].ipMode", "must be specified when `ip` is set"))
        elif not ip:
            found.append(field.forbidden(f"{at}[{i}].ipMode", "may not be specified when `ip` is not set"))
        elif mode not in _IP_MODES:
            found.append(field.not_supported(f"{at}[{i}].ipMode", mode, _IP_MODES))
        if hostname:
            found += [field.invalid(f"{at}[{i}].hostname", hostname, msg)
                      for msg in dns1123_subdomain(hostname)]
            if ip_validation.parse_ip_sloppy(hostname) is not None:
                found.append(field.invalid(f"{at}[{i}].hostname", hostname,
                                           "must be a DNS name, not an IP address"))
    return found


def service_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    """ValidateServiceStatusUpdate, after its ObjectMetaUpdate: the load balancer's status."""
    status, old_status = new.get("status") or {}, old.get("status") or {}
    return _load_balancer_status(status.get("loadBalancer") or {}, old_status.get("loadBalancer") or {},
                                 _spec(new))
