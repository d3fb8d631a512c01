"""core/v1 validation of Services and ReplicationControllers: pkg/apis/core/validation/validation.go,
for the rules ported so far. Pods are `pod_validation.py`'s, ConfigMaps and Secrets
`config_validation.py`'s.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain, port_name
from apiserver.registry import field
from apiserver.registry.core.pod_containers import PROTOCOLS
from apiserver.registry.core.pod_validation import pod_template_spec
from apiserver.registry.meta import labels

Obj = dict[str, Any]


# -- services ------------------------------------------------------------------------------------

_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_AFFINITIES = ("ClientIP", "None")


def _headless(spec: Obj) -> bool:
    return spec.get("clusterIP") == "None" or (spec.get("clusterIPs") or [None])[0] == "None"


def _service_port_key(port: Obj) -> str:
    # The internal core.ServicePort upstream compares, as json.Marshal writes a struct without json tags.
    return field.go_json({"Name": "", "Protocol": port.get("protocol") or "", "AppProtocol": None,
                          "Port": port.get("port") or 0, "TargetPort": 0, "NodePort": 0})


def _service_port(port: Obj, require_name: bool, names: set[str], at: str) -> list[FieldError]:
    found: list[FieldError] = []
    name = port.get("name") or ""
    if require_name and not name:
        found.append(field.required(f"{at}.name"))
    elif name:
        found += [field.invalid(f"{at}.name", name, msg) for msg in dns1123_label(name)]
        if name in names:
            found.append(field.duplicate(f"{at}.name", name))
        names.add(name)
    number = port.get("port") or 0
    if not isinstance(number, int) or not 1 <= number <= 65535:
        found.append(field.invalid(f"{at}.port", number, "must be between 1 and 65535, inclusive"))
    protocol = port.get("protocol") or ""
    if not protocol:
        found.append(field.required(f"{at}.protocol"))
    elif protocol not in PROTOCOLS:
        found.append(field.not_supported(f"{at}.protocol", protocol, PROTOCOLS))
    target = port.get("targetPort")
    if isinstance(target, int):
        if not 1 <= target <= 65535:
            found.append(field.invalid(f"{at}.targetPort", target, "must be between 1 and 65535, inclusive"))
    elif isinstance(target, str) and target:
        found += [field.invalid(f"{at}.targetPort", target, msg) for msg in port_name(target)]
    return found


def service(obj: Obj, old: Obj | None = None) -> list[FieldError]:
    """validateService, but for the cluster IP fields, which allocation judges on create."""
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    kind = spec.get("type") or ""
    ports = spec.get("ports") or []
    if not ports and not _headless(spec) and kind != "ExternalName":
        found.append(field.required("spec.ports"))
    if kind == "ExternalName":
        cname = str(spec.get("externalName") or "").removesuffix(".")
        if cname:
            found += [field.invalid("spec.externalName", cname, msg) for msg in dns1123_subdomain(cname)]
        else:
            found.append(field.required("spec.externalName"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        found += _service_port(port if isinstance(port, dict) else {}, len(ports) > 1, names, f"spec.ports[{i}]")
    if spec.get("selector") is not None:
        found += labels(spec.get("selector"), "spec.selector")
    affinity = spec.get("sessionAffinity") or ""
    if not affinity:
        found.append(field.required("spec.sessionAffinity"))
    elif affinity not in _AFFINITIES:
        found.append(field.not_supported("spec.sessionAffinity", affinity, _AFFINITIES))
    elif affinity == "None" and spec.get("sessionAffinityConfig") is not None:
        found.append(field.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
    if old is not None:
        found += _cluster_ips_update(spec, old.get("spec") or {})
    if not kind:
        found.append(field.required("spec.type"))
    elif kind not in _SERVICE_TYPES:
        found.append(field.not_supported("spec.type", kind, _SERVICE_TYPES))
    if kind == "ClusterIP":
        found += [field.forbidden(f"spec.ports[{i}].nodePort", "may not be used when `type` is 'ClusterIP'")
                  for i, port in enumerate(ports) if isinstance(port, dict) and port.get("nodePort")]
    node_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        if isinstance(port, dict) and port.get("nodePort"):
            key = (port.get("protocol") or "", port["nodePort"])
            if key in node_ports:
                found.append(field.duplicate(f"spec.ports[{i}].nodePort", port["nodePort"]))
            node_ports.add(key)
    seen: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        port = port if isinstance(port, dict) else {}
        key = (port.get("protocol") or "", port.get("port") or 0)
        if key in seen:
            found.append(field.duplicate_shown(f"spec.ports[{i}]", _service_port_key(port)))
        seen.add(key)
    if spec.get("allocateLoadBalancerNodePorts") is not None and kind != "LoadBalancer":
        found.append(field.forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"))
    policy = spec.get("externalTrafficPolicy") or ""
    if kind not in ("NodePort", "LoadBalancer") and not spec.get("externalIPs"):
        if policy:
            found.append(field.invalid("spec.externalTrafficPolicy", policy,
                                       "may only be set for externally-accessible services"))
    elif policy and policy not in ("Cluster", "Local"):
        found.append(field.not_supported("spec.externalTrafficPolicy", policy, ("Cluster", "Local")))
    internal = spec.get("internalTrafficPolicy")
    if internal and internal not in ("Cluster", "Local"):
        found.append(field.not_supported("spec.internalTrafficPolicy", internal, ("Cluster", "Local")))
    return found


def _cluster_ips_update(spec: Obj, old_spec: Obj) -> list[FieldError]:
    """A cluster IP, once allocated, stays (ValidateServiceClusterIPsRelatedFields on update)."""
    old_ips, new_ips = old_spec.get("clusterIPs") or [], spec.get("clusterIPs") or []
    if old_ips and new_ips and new_ips[0] != old_ips[0] and spec.get("type") != "ExternalName":
        return [field.invalid("spec.clusterIPs[0]", list(new_ips), "may not change once set")]
    return []


def service_update(new: Obj, old: Obj) -> list[FieldError]:
    return service(new, old)


# -- replication controllers ---------------------------------------------------------------------

def replication_controller(obj: Obj) -> list[FieldError]:
    """ValidateReplicationControllerSpec (its metadata aside): a selector that picks the template's pods, and
    a template (ValidatePodTemplateSpecForRC) that always restarts and sets no deadline."""
    spec = obj.get("spec") or {}
    found = field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    selector = spec.get("selector") or {}
    if not selector:
        found.append(field.required("spec.selector"))
    replicas = spec.get("replicas")
    if replicas is None:
        found.append(field.required("spec.replicas"))
    else:
        found += field.nonnegative("spec.replicas", replicas)
    template = spec.get("template")
    if not isinstance(template, dict):
        return found + [field.required("spec.template")]
    labels = (template.get("metadata") or {}).get("labels") or {}
    if selector and any(labels.get(k) != v for k, v in selector.items()):
        found.append(field.invalid_shown("spec.template.metadata.labels", field.go_map(labels) if labels else "null",
                                         "`selector` does not match template `labels`"))
    found += pod_template_spec(template, "spec.template")
    pod = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    restart = pod.get("restartPolicy") or ""
    if restart != "Always":
        found.append(field.not_supported("spec.template.spec.restartPolicy", restart, ("Always",)))
    if pod.get("activeDeadlineSeconds") is not None:
        found.append(field.forbidden("spec.template.spec.activeDeadlineSeconds",
                                     "activeDeadlineSeconds in ReplicationController is not Supported"))
    return found
