"""core/v1 validation of ReplicationControllers: pkg/apis/core/validation/validation.go, for the rules
ported so far. Pods are `pod_validation.py`'s, Services `service_validation.py`'s, ConfigMaps and Secrets
`config_validation.py`'s.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core.pod_validation import pod_template_spec

Obj = dict[str, Any]


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
