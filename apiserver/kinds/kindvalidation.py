"""Validation of the built-in kinds' fields users get wrong most, with upstream's paths and messages.

Required fields, unique container and port names, ports in range, selectors that match their
template, and fields that may not change once set (a Job's selector, a StorageClass's provisioner).
Each check returns FieldErrors; objects.validate turns them into one 422 Invalid.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from apiserver.errors import FieldError
from apiserver.kinds import capabilities, policyvalidation
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain, path_segment_name

Obj = dict[str, Any]

_PROTOCOLS = ("SCTP", "TCP", "UDP")
_RESTART_POLICIES = ("Always", "Never", "OnFailure")


def _required(path: str) -> FieldError:
    return FieldError("FieldValueRequired", path, "Required value")


def _invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {json.dumps(value)}: {detail}")


def _duplicate(path: str, value: Any) -> FieldError:
    return FieldError("FieldValueDuplicate", path, f"Duplicate value: {json.dumps(value)}")


def _unsupported(path: str, value: Any, supported: tuple[str, ...]) -> FieldError:
    return FieldError("FieldValueNotSupported", path, f"Unsupported value: {json.dumps(value)}: supported values: "
                      + ", ".join(json.dumps(s) for s in supported))


def _forbidden(path: str, detail: str) -> FieldError:
    return FieldError("FieldValueForbidden", path, f"Forbidden: {detail}")


def _port(path: str, value: Any) -> list[FieldError]:
    if not isinstance(value, int) or not 1 <= value <= 65535:
        return [_invalid(path, value, "must be between 1 and 65535, inclusive")]
    return []


def _go_map(labels: dict[str, Any]) -> str:
    """A label map as Go's %#v prints it, which upstream's message shows."""
    return "map[string]string{" + ", ".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in sorted(labels.items())) + "}"


# -- pods and pod templates ----------------------------------------------------------------------

def _containers(spec: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    if not spec.get("containers"):
        found.append(_required(f"{path}.containers"))
    names: set[str] = set()
    for key in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(key) or ()):
            where = f"{path}.{key}[{i}]"
            if not isinstance(c, dict):
                continue
            name = c.get("name")
            if not name:
                found.append(_required(f"{where}.name"))
            elif name in names:
                found.append(_duplicate(f"{where}.name", name))
            else:
                found.extend(_invalid(f"{where}.name", name, msg) for msg in dns1123_label(str(name)))
                names.add(name)
            if not c.get("image"):
                found.append(_required(f"{where}.image"))
            found.extend(_container_ports(c, where))
    return found


def _container_ports(c: Obj, where: str) -> list[FieldError]:
    found: list[FieldError] = []
    port_names: set[str] = set()
    for j, port in enumerate(c.get("ports") or ()):
        at = f"{where}.ports[{j}]"
        found.extend(_port(f"{at}.containerPort", port.get("containerPort")))
        if port.get("hostPort"):
            found.extend(_port(f"{at}.hostPort", port["hostPort"]))
        if port.get("protocol", "TCP") not in _PROTOCOLS:
            found.append(_unsupported(f"{at}.protocol", port["protocol"], _PROTOCOLS))
        name = port.get("name")
        if name:
            if name in port_names:
                found.append(_duplicate(f"{at}.name", name))
            port_names.add(name)
    return found


def pod_spec(spec: Any, path: str) -> list[FieldError]:
    if not isinstance(spec, dict):
        return [_required(path)]
    found = _containers(spec, path)
    policy = spec.get("restartPolicy")
    if policy is not None and policy not in _RESTART_POLICIES:
        found.append(_unsupported(f"{path}.restartPolicy", policy, _RESTART_POLICIES))
    if not capabilities.allow_privileged():
        found.extend(_privileged(spec, path))
    return found


def _privileged(spec: Obj, path: str) -> list[FieldError]:
    """ValidateSecurityContext's and validateWindowsHostProcessPod's refusals under --allow-privileged=false."""
    found: list[FieldError] = []
    host_process = 0
    pod_host_process = ((spec.get("securityContext") or {}).get("windowsOptions") or {}).get("hostProcess")
    # validateContainers, validateInitContainers and validateEphemeralContainers run in this order.
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for i, c in enumerate(spec.get(key) or ()):
            context = (c.get("securityContext") or {}) if isinstance(c, dict) else {}
            if context.get("privileged") is True:
                found.append(_forbidden(f"{path}.{key}[{i}].securityContext.privileged", "disallowed by cluster policy"))
            own = (context.get("windowsOptions") or {}).get("hostProcess")
            host_process += own is True or (own is None and pod_host_process is True)
    if host_process:
        found.append(_forbidden(path, "hostProcess containers are disallowed by cluster policy"))
    return found


def _pod(obj: Obj, old: Obj | None) -> list[FieldError]:
    return pod_spec(obj.get("spec"), "spec")


def _pod_template(obj: Obj, old: Obj | None) -> list[FieldError]:
    return pod_spec((obj.get("template") or {}).get("spec"), "template.spec")


def _workload(obj: Obj, old: Obj | None) -> list[FieldError]:
    """Deployments, ReplicaSets, StatefulSets, DaemonSets: a selector that picks the template's pods."""
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    replicas = spec.get("replicas")
    if isinstance(replicas, int) and replicas < 0:
        found.append(_invalid("spec.replicas", replicas, "must be greater than or equal to 0"))
    selector = spec.get("selector")
    template = spec.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    if not selector:
        found.append(_required("spec.selector"))
    else:
        match = selector.get("matchLabels") or {}
        if any(labels.get(k) != v for k, v in match.items()):
            found.append(FieldError("FieldValueInvalid", "spec.template.metadata.labels",
                                    f"Invalid value: {_go_map(labels)}: `selector` does not match template `labels`"))
    found.extend(pod_spec(template.get("spec"), "spec.template.spec"))
    if old is not None and obj.get("kind") != "StatefulSet":
        found.extend(_immutable_selector(spec, old))
    return found


def _immutable_selector(spec: Obj, old: Obj) -> list[FieldError]:
    """apps/v1 and batch/v1 selectors are fixed once set: the objects they pick already exist."""
    if spec.get("selector") == (old.get("spec") or {}).get("selector"):
        return []
    return [FieldError("FieldValueInvalid", "spec.selector",
                       f"Invalid value: {_go_selector(spec.get('selector'))}: field is immutable")]


def _job(obj: Obj, old: Obj | None) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found = _job_generated_selector(obj)
    found.extend(_job_indexes(spec))
    found.extend(pod_spec((spec.get("template") or {}).get("spec"), "spec.template.spec"))
    policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
    restart_path = "spec.template.spec.restartPolicy"
    # Pod defaulting has made a missing restartPolicy Always by now, hence upstream's "Required".
    if policy in ("Always", "", None):
        found.append(FieldError("FieldValueRequired", restart_path, 'Required value: valid values: "OnFailure", "Never"'))
    elif policy not in ("OnFailure", "Never"):
        found.append(_unsupported(restart_path, policy, ("OnFailure", "Never")))
    elif spec.get("podFailurePolicy") is not None and policy != "Never":
        found.append(_invalid(restart_path, policy, 'only "Never" is supported when podFailurePolicy is specified'))
    found.extend(_job_selector(spec))
    if old is not None:
        found.extend(_immutable_selector(spec, old))
    return found


def _job_generated_selector(obj: Obj) -> list[FieldError]:
    """Unless manual, the selector may only pick by the labels the strategy generates: the job's uid and name."""
    spec = obj.get("spec") or {}
    selector = spec.get("selector")
    if spec.get("manualSelector") is True or not isinstance(selector, dict):
        return []
    meta = obj.get("metadata") or {}
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    expected = {"controller-uid": uid, "batch.kubernetes.io/controller-uid": uid,
                "job-name": name, "batch.kubernetes.io/job-name": name}
    if all(expected.get(k) == v for k, v in (selector.get("matchLabels") or {}).items()):
        return []
    return [FieldError("FieldValueInvalid", "spec.selector",
                       f"Invalid value: {_go_selector(selector)}: `selector` not auto-generated")]


def _job_selector(spec: Obj) -> list[FieldError]:
    """A manual selector must be given and, as a generated one does, pick the template's pods. Go reads
    a missing selector as one matching nothing, so the template is then refused as well."""
    selector = spec.get("selector")
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    found: list[FieldError] = []
    if not isinstance(selector, dict):
        found.append(_required("spec.selector"))
    match = (selector.get("matchLabels") or {}) if isinstance(selector, dict) else None
    if match is None or any((labels or {}).get(k) != v for k, v in match.items()):
        shown = _go_map(labels) if labels else "map[string]string(nil)"
        found.append(FieldError("FieldValueInvalid", "spec.template.metadata.labels",
                                f"Invalid value: {shown}: `selector` does not match template `labels`"))
    return found


def _job_indexes(spec: Obj) -> list[FieldError]:
    """Per-index backoff and its failed-index budget belong to Indexed jobs, which count completions."""
    found: list[FieldError] = []
    per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    completions = spec.get("completions")
    if max_failed is not None and per_index is None:
        found.append(FieldError("FieldValueRequired", "spec.backoffLimitPerIndex",
                                "Required value: when maxFailedIndexes is specified"))
    if spec.get("completionMode") == "Indexed":
        if completions is None:
            found.append(FieldError("FieldValueRequired", "spec.completions",
                                    "Required value: when completion mode is Indexed"))
        elif isinstance(max_failed, int) and isinstance(completions, int) and max_failed > completions:
            found.append(_invalid("spec.maxFailedIndexes", max_failed, "must be less than or equal to completions"))
    elif spec.get("completionMode") in ("NonIndexed", None):
        for field_name, value in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
            if value is not None:
                found.append(_invalid(f"spec.{field_name}", value, "requires indexed completion mode"))
    return found


def _go_selector(selector: Any) -> str:
    if not isinstance(selector, dict):
        return "null"
    labels = selector.get("matchLabels")
    shown = _go_map(labels) if labels else "map[string]string(nil)"
    return f"v1.LabelSelector{{MatchLabels:{shown}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}"


def _cron_job(obj: Obj, old: Obj | None) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found = [] if spec.get("schedule") else [_required("spec.schedule")]
    template = ((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}
    found.extend(pod_spec(template.get("spec"), "spec.jobTemplate.spec.template.spec"))
    return found


# -- services and storage ------------------------------------------------------------------------

def _service(obj: Obj, old: Obj | None) -> list[FieldError]:
    spec = obj.get("spec") or {}
    if spec.get("type") == "ExternalName":
        return [] if spec.get("externalName") else [_required("spec.externalName")]
    found: list[FieldError] = []
    ports = spec.get("ports") or []
    if not ports and spec.get("clusterIP") != "None":
        found.append(_required("spec.ports"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        at = f"spec.ports[{i}]"
        name = port.get("name")
        if len(ports) > 1 and not name:
            found.append(_required(f"{at}.name"))
        elif name in names:
            found.append(_duplicate(f"{at}.name", name))
        if name:
            names.add(name)
        found.extend(_port(f"{at}.port", port.get("port")))
        if port.get("protocol", "TCP") not in _PROTOCOLS:
            found.append(_unsupported(f"{at}.protocol", port["protocol"], _PROTOCOLS))
    return found


def _storage_class(obj: Obj, old: Obj | None) -> list[FieldError]:
    if not obj.get("provisioner"):
        return [_required("provisioner")]
    if old is None:
        return []
    found: list[FieldError] = []
    if obj.get("parameters") != old.get("parameters"):
        found.append(_forbidden("parameters", "updates to parameters are forbidden."))
    if obj["provisioner"] != old.get("provisioner"):
        found.append(_forbidden("provisioner", "updates to provisioner are forbidden."))
    if obj.get("reclaimPolicy") != old.get("reclaimPolicy"):
        found.append(_forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    if obj.get("volumeBindingMode") != old.get("volumeBindingMode"):
        found.append(_invalid("volumeBindingMode", obj.get("volumeBindingMode"), "field is immutable"))
    return found


# -- rbac.authorization.k8s.io ---------------------------------------------------------------------

_RBAC = "rbac.authorization.k8s.io"


def _go_strings(values: Any) -> str:
    """A string slice as Go's %#v prints it in a field error."""
    return "[]string{" + ", ".join(json.dumps(v) for v in values) + "}"


def _policy_rules(obj: Obj, namespaced: bool) -> list[FieldError]:
    found: list[FieldError] = []
    for index, rule in enumerate(obj.get("rules") or ()):
        path = f"rules[{index}]"
        if not isinstance(rule, dict):
            continue
        if not rule.get("verbs"):
            found.append(FieldError("FieldValueRequired", f"{path}.verbs",
                                    "Required value: verbs must contain at least one value"))
        urls = rule.get("nonResourceURLs")
        if urls:
            invalid = f"Invalid value: {_go_strings(urls)}: "
            if namespaced:
                found.append(FieldError("FieldValueInvalid", f"{path}.nonResourceURLs",
                                        invalid + "namespaced rules cannot apply to non-resource URLs"))
            if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
                found.append(FieldError("FieldValueInvalid", f"{path}.nonResourceURLs",
                                        invalid + "rules cannot apply to both regular resources and non-resource URLs"))
            continue
        if not rule.get("apiGroups"):
            found.append(FieldError("FieldValueRequired", f"{path}.apiGroups",
                                    "Required value: resource rules must supply at least one api group"))
        if not rule.get("resources"):
            found.append(FieldError("FieldValueRequired", f"{path}.resources",
                                    "Required value: resource rules must supply at least one resource"))
        if rule.get("resourceNames") and len(rule.get("resources") or ()) > 1:
            found.append(FieldError("FieldValueRequired", f"{path}.resourceNames",
                                    "Required value: resource names cannot apply to multiple resources"))
    return found


def _role(obj: Obj, old: Obj | None) -> list[FieldError]:
    return _policy_rules(obj, namespaced=True)


def _cluster_role(obj: Obj, old: Obj | None) -> list[FieldError]:
    return _policy_rules(obj, namespaced=False)


def _subjects(obj: Obj, namespaced: bool) -> list[FieldError]:
    found: list[FieldError] = []
    for index, subject in enumerate(obj.get("subjects") or ()):
        path = f"subjects[{index}]"
        if not isinstance(subject, dict):
            continue
        name, kind, group = subject.get("name") or "", subject.get("kind"), subject.get("apiGroup") or ""
        if not name:
            found.append(_required(f"{path}.name"))
        if kind == "ServiceAccount":
            if name:
                found += [_invalid(f"{path}.name", name, detail) for detail in dns1123_subdomain(name)]
            if group:
                found.append(_unsupported(f"{path}.apiGroup", group, ("",)))
            if not namespaced and not subject.get("namespace"):
                found.append(_required(f"{path}.namespace"))
        elif kind in ("User", "Group"):
            if not name:
                found.append(_invalid(f"{path}.name", name, f"{kind.lower()} name cannot be empty"))
            if group != _RBAC:
                found.append(_unsupported(f"{path}.apiGroup", group, (_RBAC,)))
        else:
            found.append(_unsupported(f"{path}.kind", kind or "", ("ServiceAccount", "User", "Group")))
    return found


def _binding(obj: Obj, old: Obj | None, kinds: tuple[str, ...], namespaced: bool) -> list[FieldError]:
    found: list[FieldError] = []
    ref = obj.get("roleRef") if isinstance(obj.get("roleRef"), dict) else {}
    assert isinstance(ref, dict)
    if ref.get("apiGroup") != _RBAC:
        found.append(_unsupported("roleRef.apiGroup", ref.get("apiGroup") or "", (_RBAC,)))
    if ref.get("kind") not in kinds:
        found.append(_unsupported("roleRef.kind", ref.get("kind") or "", kinds))
    name = ref.get("name") or ""
    if not name:
        found.append(_required("roleRef.name"))
    else:
        found += [_invalid("roleRef.name", name, detail) for detail in path_segment_name(name)]
    found += _subjects(obj, namespaced)
    if old is not None and (old.get("roleRef") or {}) != ref:
        shown = ", ".join(f"{field}:{json.dumps(ref.get(key) or '')}" for field, key in (
            ("APIGroup", "apiGroup"), ("Kind", "kind"), ("Name", "name")))
        found.append(FieldError("FieldValueInvalid", "roleRef",
                                f"Invalid value: rbac.RoleRef{{{shown}}}: cannot change roleRef"))
    return found


def _replication_controller(obj: Obj, old: Obj | None) -> list[FieldError]:
    """A core/v1 selector is a plain map; it must pick the template's pods all the same."""
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    replicas = spec.get("replicas")
    if isinstance(replicas, int) and replicas < 0:
        found.append(_invalid("spec.replicas", replicas, "must be greater than or equal to 0"))
    template = spec.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    selector = spec.get("selector") or {}
    if not selector:
        found.append(_required("spec.selector"))
    elif template and any(labels.get(k) != v for k, v in selector.items()):
        found.append(FieldError("FieldValueInvalid", "spec.template.metadata.labels",
                                f"Invalid value: {_go_map(labels)}: `selector` does not match template `labels`"))
    if template:
        found.extend(pod_spec(template.get("spec"), "spec.template.spec"))
    return found


def _horizontal_pod_autoscaler(obj: Obj, old: Obj | None) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    target = spec.get("scaleTargetRef") or {}
    for field in ("kind", "name"):
        if not target.get(field):
            found.append(_required(f"spec.scaleTargetRef.{field}"))
    low, high = spec.get("minReplicas", 1), spec.get("maxReplicas")
    if isinstance(low, int) and low < 1:
        found.append(_invalid("spec.minReplicas", low, "must be greater than or equal to 1"))
    if isinstance(high, int) and high < 1:
        found.append(_invalid("spec.maxReplicas", high, "must be greater than 0"))
    if isinstance(high, int) and isinstance(low, int) and high < low:
        found.append(_invalid("spec.maxReplicas", high, "must be greater than or equal to `minReplicas`"))
    return found


def _priority_class(obj: Obj, old: Obj | None) -> list[FieldError]:
    if old is not None and obj.get("value") != old.get("value"):
        return [_forbidden("value", "may not be changed in an update.")]
    return []


def _pod_disruption_budget(obj: Obj, old: Obj | None) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    for field in ("minAvailable", "maxUnavailable"):
        value = spec.get(field)
        if isinstance(value, int) and value < 0:
            found.append(_invalid(f"spec.{field}", value, "must be greater than or equal to 0"))
        elif isinstance(value, str) and value.endswith("%") and value[:-1].isdigit() and int(value[:-1]) > 100:
            found.append(_invalid(f"spec.{field}", value, "must not be greater than 100%"))
    return found


def _csi_driver(obj: Obj, old: Obj | None) -> list[FieldError]:
    """What a driver's node plugins were deployed with cannot change under them."""
    if old is None:
        return []
    spec, old_spec = obj.get("spec") or {}, old.get("spec") or {}
    return [_invalid(f"spec.{field}", spec.get(field), "field is immutable")
            for field in ("attachRequired", "fsGroupPolicy")
            if spec.get(field) != old_spec.get(field)]


_SIDE_EFFECTS = ("None", "NoneOnDryRun")


def _webhooks(obj: Obj, old: Obj | None) -> list[FieldError]:
    """The mistakes charts make most with webhooks: names, side effects, where to call, review versions."""
    found: list[FieldError] = []
    names: set[str] = set()
    for i, hook in enumerate(obj.get("webhooks") or ()):
        at = f"webhooks[{i}]"
        hook = hook if isinstance(hook, dict) else {}
        name = hook.get("name") or ""
        if name in names:
            found.append(_duplicate(f"{at}.name", name))
        names.add(name)
        if not name:
            found.append(_required(f"{at}.name"))
        elif len(name.split(".")) < 3:
            found.append(_invalid(f"{at}.name", name, "should be a domain with at least three segments separated by dots"))
        side_effects = hook.get("sideEffects")
        if side_effects is None:
            found.append(FieldError("FieldValueRequired", f"{at}.sideEffects",
                                    "Required value: must specify one of " + ", ".join(_SIDE_EFFECTS)))
        elif side_effects not in _SIDE_EFFECTS and old is None:
            found.append(_unsupported(f"{at}.sideEffects", side_effects, _SIDE_EFFECTS))
        timeout = hook.get("timeoutSeconds")
        if isinstance(timeout, int) and not 1 <= timeout <= 30:
            found.append(_invalid(f"{at}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"))
        client = hook.get("clientConfig") or {}
        if (client.get("url") is None) == (client.get("service") is None):
            found.append(FieldError("FieldValueRequired", f"{at}.clientConfig",
                                    "Required value: exactly one of url or service is required"))
        if not hook.get("admissionReviewVersions"):
            found.append(FieldError("FieldValueRequired", f"{at}.admissionReviewVersions",
                                    "Required value: must specify one of v1, v1beta1"))
    return found


_CHECKS: dict[str, Callable[[Obj, Obj | None], list[FieldError]]] = {
    "Pod": _pod, "PodTemplate": _pod_template, "Deployment": _workload, "ReplicaSet": _workload, "StatefulSet": _workload,
    "DaemonSet": _workload, "Job": _job, "CronJob": _cron_job, "Service": _service,
    "StorageClass": _storage_class, "Role": _role, "ClusterRole": _cluster_role,
    "RoleBinding": lambda obj, old: _binding(obj, old, ("Role", "ClusterRole"), True),
    "ClusterRoleBinding": lambda obj, old: _binding(obj, old, ("ClusterRole",), False),
    "ReplicationController": _replication_controller,
    "HorizontalPodAutoscaler": _horizontal_pod_autoscaler, "PriorityClass": _priority_class,
    "PodDisruptionBudget": _pod_disruption_budget, "CSIDriver": _csi_driver,
    "ValidatingWebhookConfiguration": _webhooks, "MutatingWebhookConfiguration": _webhooks,
    "ValidatingAdmissionPolicy": policyvalidation.validating_admission_policy,
    "MutatingAdmissionPolicy": policyvalidation.mutating_admission_policy,
}


def validate(obj: Obj, old: Obj | None) -> list[FieldError]:
    """What is wrong with a built-in object being created (old is None) or updated from old."""
    check = _CHECKS.get(str(obj.get("kind") or ""))
    return [] if check is None else check(obj, old)
