"""Pod spec validation: ValidatePodSpec of pkg/apis/core/validation/validation.go and the functions it
calls, in its order, for the fields ported so far (see the registry README for what is not).

Volumes, containers (`pod_containers.py`), host network ports, restart and DNS policies, node selector,
security context user and group ids, DNS config, active deadline, tolerations and OS. Pod templates
(workloads) are judged the same, without the pod-only checks.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import (
    dns1123_subdomain,
    inclusive_range_error,
    label_value,
    qualified_name,
)
from apiserver.registry import field
from apiserver.registry.core import scheduling_constraints
from apiserver.registry.core.pod_containers import (
    MAX_INT32,
    containers,
    dns_label,
    ephemeral_containers,
    host_process,
    image_whitespace,
    init_containers,
)
from apiserver.registry.core.pod_volumes import volumes
from apiserver.registry.core.security_contexts import pod_security_context
from apiserver.registry.meta import annotations, labels

Obj = dict[str, Any]

_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")


# -- containers ----------------------------------------------------------------------------------


def _host_network_ports(spec: Obj, path: str, is_pod: bool) -> list[FieldError]:
    if not spec.get("hostNetwork"):
        return []
    found: list[FieldError] = []
    for i, c in enumerate(spec.get("containers") or ()):
        for j, port in enumerate((c or {}).get("ports") or ()):
            host, container = port.get("hostPort") or 0, port.get("containerPort") or 0
            if (is_pod or host) and host != container:
                found.append(field.invalid(f"{path}.containers[{i}].ports[{j}].hostPort", host,
                                           "must match `containerPort` when `hostNetwork` is true"))
    return found


_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def tolerations(items: Any, path: str) -> list[FieldError]:
    """ValidateTolerations (the comparison operators' option off, as their feature gate is at 1.36)."""
    found: list[FieldError] = []
    for i, toleration in enumerate(items or ()):
        at = f"{path}[{i}]"
        toleration = toleration if isinstance(toleration, dict) else {}
        key, operator = str(toleration.get("key") or ""), str(toleration.get("operator") or "")
        value, effect = str(toleration.get("value") or ""), str(toleration.get("effect") or "")
        if key:
            found += [field.invalid(f"{at}.key", key, msg) for msg in qualified_name(key)]
        if not key and operator != "Exists":
            found.append(field.invalid(f"{at}.operator", operator, 'operator must be Exists when `key` is empty, '
                                                                    'which means "match all values and all keys"'))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            found.append(field.invalid(f"{at}.effect", effect,
                                       "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            messages = label_value(value)
            if messages:
                found.append(field.invalid(f"{at}.operator", value, ";".join(messages)))
        elif operator == "Exists":
            if value:
                found.append(field.invalid(f"{at}.operator", value, "value must be empty when `operator` is 'Exists'"))
        elif operator in ("Lt", "Gt"):
            found.append(field.not_supported(f"{at}.operator", operator, ("Equal", "Exists", "Lt", "Gt")))
        else:
            found.append(field.not_supported(f"{at}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in _TAINT_EFFECTS:
            found.append(field.not_supported(f"{at}.effect", effect, _TAINT_EFFECTS))
    return found


def pod_spec(spec: Any, path: str, is_pod: bool = False) -> list[FieldError]:
    """ValidatePodSpec (and, for a Pod, its pod-only container checks)."""
    if not isinstance(spec, dict):
        return [field.required(path)]
    found: list[FieldError] = []
    if spec.get("terminationGracePeriodSeconds") is None:
        found.append(field.required(f"{path}.terminationGracePeriodSeconds"))
    names, problems = volumes(spec.get("volumes"), f"{path}.volumes", is_pod)
    found += problems
    grace = spec.get("terminationGracePeriodSeconds")
    grace = grace if isinstance(grace, int) else None
    os_name = (spec.get("os") or {}).get("name") if isinstance(spec.get("os"), dict) else None
    # The default for hostUsers is true.
    host_users = spec.get("hostUsers") is not False
    found += containers(spec.get("containers"), names, grace, os_name, host_users, f"{path}.containers")
    found += init_containers(spec.get("initContainers"), spec.get("containers"), names, grace, os_name, host_users,
                             f"{path}.initContainers")
    found += ephemeral_containers(spec, names, host_users, f"{path}.ephemeralContainers")
    found += _host_network_ports(spec, path, is_pod)
    found += field.required_choice(spec.get("restartPolicy"), f"{path}.restartPolicy", _RESTART_POLICIES)
    found += field.required_choice(spec.get("dnsPolicy"), f"{path}.dnsPolicy", _DNS_POLICIES)
    found += labels(spec.get("nodeSelector"), f"{path}.nodeSelector")
    found += pod_security_context(spec.get("securityContext"), spec, f"{path}.securityContext")
    found += scheduling_constraints.affinity(spec.get("affinity"), f"{path}.affinity")
    if spec.get("dnsPolicy") == "None" and not isinstance(spec.get("dnsConfig"), dict):
        found.append(field.required(f"{path}.dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None"))
    for i, gate in enumerate(spec.get("readinessGates") or []):
        condition = (gate or {}).get("conditionType") or ""
        found += [field.invalid(f"{path}.readinessGates[{i}].conditionType", condition, m)
                  for m in qualified_name(condition)]
    found += scheduling_constraints.topology_spread_constraints(spec.get("topologySpreadConstraints") or [],
                                                                f"{path}.topologySpreadConstraints")
    found += host_process(spec, path)
    if spec.get("serviceAccountName"):
        found += [field.invalid(f"{path}.serviceAccountName", spec["serviceAccountName"], msg)
                  for msg in dns1123_subdomain(spec["serviceAccountName"])]
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= MAX_INT32:
        found.append(field.invalid(f"{path}.activeDeadlineSeconds", deadline, inclusive_range_error(1, MAX_INT32)))
    for key in ("hostname", "subdomain"):
        if spec.get(key):
            found += dns_label(f"{path}.{key}", spec[key])
    found += tolerations(spec.get("tolerations"), f"{path}.tolerations")
    found += _os(spec.get("os"), f"{path}.os")
    if is_pod:
        for key in ("containers", "initContainers"):
            for i, c in enumerate(spec.get(key) or ()):
                found += image_whitespace(c if isinstance(c, dict) else {}, f"{path}.{key}[{i}]")
    return found


def _os(os: Any, path: str) -> list[FieldError]:
    """validateOS (the Linux and Windows rules that follow a valid OS are not ported)."""
    if not isinstance(os, dict):
        return []
    name = os.get("name") or ""
    if not name:
        return [field.required(f"{path}.name")]
    return [] if name in ("linux", "windows") else [field.not_supported(path, name, ("linux", "windows"))]


def pod(obj: Obj) -> list[FieldError]:
    return pod_spec(obj.get("spec"), "spec", is_pod=True)


def pod_create(obj: Obj) -> list[FieldError]:
    """ValidatePodCreate: ephemeral containers come only through their subresource, and a pod is bound to a
    node only once its scheduling gates are gone."""
    found = pod(obj)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if spec.get("ephemeralContainers"):
        found.append(field.forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if spec.get("nodeName") and spec.get("schedulingGates"):
        found.append(field.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    return found


def pod_template_spec(template: Obj, path: str) -> list[FieldError]:
    """ValidatePodTemplateSpec (its labels' path is upstream's: `template.labels`)."""
    meta = template.get("metadata") or {}
    found = labels(meta.get("labels"), f"{path}.labels")
    found += annotations(meta.get("annotations"), f"{path}.annotations")
    found += pod_spec(template.get("spec"), f"{path}.spec")
    if isinstance(template.get("spec"), dict) and template["spec"].get("ephemeralContainers"):
        found.append(field.forbidden(f"{path}.spec.ephemeralContainers", "ephemeral containers not allowed in pod template"))
    return found


def pod_template(obj: Obj) -> list[FieldError]:
    """ValidatePodTemplate: a PodTemplate's template."""
    template = obj.get("template")
    return pod_template_spec(template if isinstance(template, dict) else {}, "template")
