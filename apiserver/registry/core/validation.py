"""core/v1 validation of Services and ReplicationControllers: pkg/apis/core/validation/validation.go,
for the rules ported so far. Pods are `pod_validation.py`'s, ConfigMaps and Secrets
`config_validation.py`'s.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core.pod_validation import PROTOCOLS, pod_spec

Obj = dict[str, Any]


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
