"""core/v1 validation: pkg/apis/core/validation/validation.go, for the rules ported so far.

Pods (and every pod template), Services and ReplicationControllers. Each function returns every
FieldError it finds, in upstream's order; objects.validate puts them into one 422 Invalid.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label
from apiserver.registry import field

Obj = dict[str, Any]

PROTOCOLS = ("SCTP", "TCP", "UDP")
_RESTART_POLICIES = ("Always", "Never", "OnFailure")


# -- pods and pod templates ----------------------------------------------------------------------

def _containers(spec: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    if not spec.get("containers"):
        found.append(field.required(f"{path}.containers"))
    names: set[str] = set()
    for key in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(key) or ()):
            where = f"{path}.{key}[{i}]"
            if not isinstance(c, dict):
                continue
            name = c.get("name")
            if not name:
                found.append(field.required(f"{where}.name"))
            elif name in names:
                found.append(field.duplicate(f"{where}.name", name))
            else:
                found.extend(field.invalid(f"{where}.name", name, msg) for msg in dns1123_label(str(name)))
                names.add(name)
            if not c.get("image"):
                found.append(field.required(f"{where}.image"))
            found.extend(_container_ports(c, where))
    return found


def _container_ports(c: Obj, where: str) -> list[FieldError]:
    found: list[FieldError] = []
    port_names: set[str] = set()
    for j, port in enumerate(c.get("ports") or ()):
        at = f"{where}.ports[{j}]"
        found.extend(field.port_number(f"{at}.containerPort", port.get("containerPort")))
        if port.get("hostPort"):
            found.extend(field.port_number(f"{at}.hostPort", port["hostPort"]))
        if port.get("protocol", "TCP") not in PROTOCOLS:
            found.append(field.not_supported(f"{at}.protocol", port["protocol"], PROTOCOLS))
        name = port.get("name")
        if name:
            if name in port_names:
                found.append(field.duplicate(f"{at}.name", name))
            port_names.add(name)
    return found


def pod_spec(spec: Any, path: str) -> list[FieldError]:
    if not isinstance(spec, dict):
        return [field.required(path)]
    found = _containers(spec, path)
    policy = spec.get("restartPolicy")
    if policy is not None and policy not in _RESTART_POLICIES:
        found.append(field.not_supported(f"{path}.restartPolicy", policy, _RESTART_POLICIES))
    return found


def pod(obj: Obj) -> list[FieldError]:
    return pod_spec(obj.get("spec"), "spec")


# -- services ------------------------------------------------------------------------------------

def service(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    if spec.get("type") == "ExternalName":
        return [] if spec.get("externalName") else [field.required("spec.externalName")]
    found: list[FieldError] = []
    ports = spec.get("ports") or []
    if not ports and spec.get("clusterIP") != "None":
        found.append(field.required("spec.ports"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        at = f"spec.ports[{i}]"
        name = port.get("name")
        if len(ports) > 1 and not name:
            found.append(field.required(f"{at}.name"))
        elif name in names:
            found.append(field.duplicate(f"{at}.name", name))
        if name:
            names.add(name)
        found.extend(field.port_number(f"{at}.port", port.get("port")))
        if port.get("protocol", "TCP") not in PROTOCOLS:
            found.append(field.not_supported(f"{at}.protocol", port["protocol"], PROTOCOLS))
    return found


# -- replication controllers ---------------------------------------------------------------------

def replication_controller(obj: Obj) -> list[FieldError]:
    """A core/v1 selector is a plain map; it must pick the template's pods all the same."""
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    replicas = spec.get("replicas")
    if isinstance(replicas, int) and replicas < 0:
        found.append(field.invalid("spec.replicas", replicas, "must be greater than or equal to 0"))
    template = spec.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    selector = spec.get("selector") or {}
    if not selector:
        found.append(field.required("spec.selector"))
    elif template and any(labels.get(k) != v for k, v in selector.items()):
        found.append(field.invalid_shown("spec.template.metadata.labels", field.go_map(labels),
                                         "`selector` does not match template `labels`"))
    if template:
        found.extend(pod_spec(template.get("spec"), "spec.template.spec"))
    return found
