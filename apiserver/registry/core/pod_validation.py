"""Pod spec validation: ValidatePodSpec of pkg/apis/core/validation/validation.go and the functions it
calls, in its order, at 1.36's feature gates.

Volumes (`pod_volumes.py`), containers (`pod_containers.py`), resources (`resource_requirements.py`),
security contexts (`security_contexts.py`), affinity and topology spread (`scheduling_constraints.py`)
and the pod-wide rules (`pod_spec_rules.py`). Pod templates (workloads) are judged the same, without the
pod-only checks.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import (
    dns1123_subdomain,
    inclusive_range_error,
)
from apiserver.registry import field
from apiserver.registry.core import pod_annotations, scheduling_constraints
from apiserver.registry.core import pod_spec_rules as rules
from apiserver.registry.core.pod_containers import (
    MAX_INT32,
    PodContext,
    containers,
    dns_label,
    ephemeral_containers,
    image_whitespace,
    init_containers,
)
from apiserver.registry.core.pod_spec_rules import tolerations
from apiserver.registry.core.pod_volumes import volumes
from apiserver.registry.core.projected_volumes import has_non_local_token_path
from apiserver.registry.core.resource_requirements import overhead, pod_resources
from apiserver.registry.core.security_contexts import pod_security_context
from apiserver.registry.meta import annotations, labels

Obj = dict[str, Any]

_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")


def pod_spec(spec: Any, path: str, is_pod: bool = False, meta: Obj | None = None,
             old_spec: Obj | None = None) -> list[FieldError]:
    """ValidatePodSpec (and, for a Pod, its pod-only container checks); the old spec of an update gives the
    options upstream reads from it."""
    if not isinstance(spec, dict):
        spec = {}
    found: list[FieldError] = []
    if spec.get("terminationGracePeriodSeconds") is None:
        found.append(field.required(f"{path}.terminationGracePeriodSeconds"))
    grace = spec.get("terminationGracePeriodSeconds")
    volume_names, problems = volumes(spec.get("volumes"), f"{path}.volumes", is_pod, str(_dict(meta).get("name") or ""),
                                     old_spec is not None and has_non_local_token_path(old_spec))
    found += problems
    claims = rules.claim_names(spec.get("resourceClaims"))
    found += rules.pod_resource_claims(meta, spec.get("resourceClaims"), f"{path}.resourceClaims")
    context = PodContext(volumes=volume_names, claim_names=claims, grace=grace if isinstance(grace, int) else None,
                         os_name=_dict(spec.get("os")).get("name"), host_users=spec.get("hostUsers") is not False,
                         restart_policy=str(spec.get("restartPolicy") or ""))
    found += containers(spec.get("containers"), context, f"{path}.containers")
    found += init_containers(spec.get("initContainers"), spec.get("containers"), context, f"{path}.initContainers")
    found += ephemeral_containers(spec, context, f"{path}.ephemeralContainers")
    found += pod_resources(spec, claims, path)
    found += rules.host_network_deps(spec, path, is_pod)
    found += field.required_choice(spec.get("restartPolicy"), f"{path}.restartPolicy", _RESTART_POLICIES)
    found += field.required_choice(spec.get("dnsPolicy"), f"{path}.dnsPolicy", _DNS_POLICIES)
    found += labels(spec.get("nodeSelector"), f"{path}.nodeSelector")
    found += pod_security_context(spec.get("securityContext"), spec, f"{path}.securityContext", old_spec)
    found += rules.image_pull_secrets(spec.get("imagePullSecrets"), f"{path}.imagePullSecrets")
    found += scheduling_constraints.affinity(spec.get("affinity"), f"{path}.affinity")
    found += rules.dns_config(spec.get("dnsConfig"), spec.get("dnsPolicy"), f"{path}.dnsConfig")
    found += rules.readiness_gates(spec.get("readinessGates"), f"{path}.readinessGates")
    found += rules.scheduling_gates(spec.get("schedulingGates"), f"{path}.schedulingGates")
    found += scheduling_constraints.topology_spread_constraints(spec.get("topologySpreadConstraints") or [],
                                                                f"{path}.topologySpreadConstraints")
    found += rules.windows_host_process_pod(spec, path)
    found += rules.host_users(spec, path, old_spec)
    found += rules.pod_host_name(spec, path)
    for key in ("serviceAccountName", "nodeName"):
        if spec.get(key):
            found += _subdomain(spec[key], f"{path}.{key}")
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= MAX_INT32:
        found.append(field.invalid(f"{path}.activeDeadlineSeconds", deadline, inclusive_range_error(1, MAX_INT32)))
    for key in ("hostname", "subdomain"):
        if spec.get(key):
            found += dns_label(f"{path}.{key}", spec[key])
    found += tolerations(spec.get("tolerations"), f"{path}.tolerations")
    found += rules.host_aliases(spec.get("hostAliases"), f"{path}.hostAliases")
    if spec.get("priorityClassName"):
        found += _subdomain(spec["priorityClassName"], f"{path}.priorityClassName")
    if spec.get("runtimeClassName") is not None:
        found += _subdomain(spec["runtimeClassName"], f"{path}.runtimeClassName")
    found += rules.preemption_policy(spec, path)
    if spec.get("overhead") is not None:
        found += overhead(spec["overhead"], f"{path}.overhead")
    found += rules.os_rules(spec, path)
    found += rules.file_key_ref_volumes(spec, path)
    return found


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _subdomain(value: Any, path: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in dns1123_subdomain(str(value))]


def pod(obj: Obj, old: Obj | None = None) -> list[FieldError]:
    """validatePodMetadataAndSpec (its ObjectMeta aside, judged before): the pod's annotations, its spec,
    and what only a pod's spec is refused for."""
    meta, spec = _dict(obj.get("metadata")), _dict(obj.get("spec"))
    old_spec = _dict(old.get("spec")) if old is not None else None
    tolerated = old is not None and pod_annotations.deletion_cost_tolerated(_dict(old.get("metadata")).get("annotations"))
    found = pod_annotations.pod_specific_annotations(meta.get("annotations"), spec, "metadata.annotations", tolerated)
    found += pod_spec(obj.get("spec"), "spec", is_pod=True, meta=meta, old_spec=old_spec)
    if not spec.get("serviceAccountName"):
        for i, volume in enumerate(spec.get("volumes") or ()):
            sources = _dict(_dict(volume).get("projected")).get("sources") or ()
            found += [field.forbidden(f"spec.volumes[{i}].projected.sources[{j}].serviceAccountToken",
                                      "must not be specified when serviceAccountName is not set")
                      for j, source in enumerate(sources) if _dict(source).get("serviceAccountToken") is not None]
    for key in ("containers", "initContainers"):
        for i, c in enumerate(spec.get(key) or ()):
            found += image_whitespace(_dict(c), f"spec.{key}[{i}]")
    return found


def pod_create(obj: Obj) -> list[FieldError]:
    """ValidatePodCreate: ephemeral containers come only through their subresource, a pod is bound to a
    node only once its scheduling gates are gone, and deprecated profile annotations agree with fields."""
    found = pod(obj)
    meta, spec = _dict(obj.get("metadata")), _dict(obj.get("spec"))
    if spec.get("ephemeralContainers"):
        found.append(field.forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if spec.get("nodeName") and spec.get("schedulingGates"):
        found.append(field.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    found += pod_annotations.seccomp_annotations_and_fields(meta, spec, "spec")
    return found + pod_annotations.app_armor_annotations_and_fields(meta, spec, "spec")


def pod_template_spec(template: Obj, path: str) -> list[FieldError]:
    """ValidatePodTemplateSpec (its labels' path is upstream's: `template.labels`)."""
    meta, spec = _dict(template.get("metadata")), _dict(template.get("spec"))
    found = labels(meta.get("labels"), f"{path}.labels")
    found += annotations(meta.get("annotations"), f"{path}.annotations")
    found += pod_annotations.pod_specific_annotations(meta.get("annotations"), spec, f"{path}.annotations")
    found += pod_spec(template.get("spec"), f"{path}.spec")
    found += pod_annotations.seccomp_annotations_and_fields(meta, spec, f"{path}.spec")
    found += pod_annotations.app_armor_annotations_and_fields(meta, spec, f"{path}.spec")
    if spec.get("ephemeralContainers"):
        found.append(field.forbidden(f"{path}.spec.ephemeralContainers", "ephemeral containers not allowed in pod template"))
    return found


def pod_template(obj: Obj) -> list[FieldError]:
    """ValidatePodTemplate: a PodTemplate's template."""
    template = obj.get("template")
    return pod_template_spec(template if isinstance(template, dict) else {}, "template")
