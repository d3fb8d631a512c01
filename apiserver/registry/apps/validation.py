"""apps/v1 validation: pkg/apis/apps/validation/validation.go for Deployments, ReplicaSets, StatefulSets
and DaemonSets, create and update, in its order.

Selectors (ValidateLabelSelector, which must pick the template's pods), pod templates
(ValidatePodTemplateSpec: restart policy Always, no deadline), rollout strategies, and the update rules:
selectors fixed once set, and a StatefulSet spec of which only some fields may change.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, percent
from apiserver.registry import field
from apiserver.registry.core.pod_validation import pod_template_spec
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

def _empty(selector: Any) -> bool:
    return not isinstance(selector, dict) or not (selector.get("matchLabels") or selector.get("matchExpressions"))


def matches(selector: Any, pod_labels: dict[str, Any]) -> bool:
    """Whether a metav1.LabelSelector picks a pod with these labels."""
    if not isinstance(selector, dict):
        return False
    if any(pod_labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or ():
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        present = key in pod_labels
        if (operator == "In" and (not present or pod_labels[key] not in values)) or \
                (operator == "NotIn" and present and pod_labels[key] in values) or \
                (operator == "Exists" and not present) or (operator == "DoesNotExist" and present):
            return False
    return True


def _template_labels_match(selector: Any, template: Obj, path: str) -> list[FieldError]:
    template_labels = (template.get("metadata") or {}).get("labels") or {}
    if _empty(selector) or matches(selector, template_labels):
        return []
    return [field.invalid_shown(f"{path}.metadata.labels", field.go_map(template_labels) if template_labels else "null",
                                "`selector` does not match template `labels`")]


def _always_restarted(template: Obj, path: str, kind: str) -> list[FieldError]:
    spec = template.get("spec") or {}
    found: list[FieldError] = []
    if spec.get("restartPolicy") != "Always":
        found.append(field.not_supported(f"{path}.spec.restartPolicy", spec.get("restartPolicy") or "", ("Always",)))
    if spec.get("activeDeadlineSeconds") is not None:
        found.append(field.forbidden(f"{path}.spec.activeDeadlineSeconds",
                                     f"activeDeadlineSeconds in {kind} is not Supported"))
    return found


def _selector(spec: Obj, kind: str) -> list[FieldError]:
    selector = spec.get("selector")
    if selector is None:
        return [field.required("spec.selector")]
    found = label_selector(selector, "spec.selector")
    if _empty(selector):
        found.append(field.invalid_shown("spec.selector", field.go_selector(selector),
                                         f"empty selector is invalid for {kind}"))
    return found


def _replica_set_template(spec: Obj) -> list[FieldError]:
    template = spec.get("template") or {}
    found = _template_labels_match(spec.get("selector"), template, "spec.template")
    return found + pod_template_spec(template, "spec.template") + _always_restarted(template, "spec.template",
                                                                                     "ReplicaSet")


def _int_or_percent(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, str):
        return [field.invalid(path, value, msg) for msg in percent(value)]
    return field.nonnegative(path, value)


def _int_or_percent_value(value: Any) -> int:
    if isinstance(value, str):
        digits = value.removesuffix("%")
        return int(digits) if digits.isdigit() else 0
    return value if isinstance(value, int) else 0


def _deployment_strategy(strategy: Any) -> list[FieldError]:
    strategy = strategy if isinstance(strategy, dict) else {}
    kind, rolling = strategy.get("type"), strategy.get("rollingUpdate")
    path = "spec.strategy"
    if kind == "Recreate":
        return [field.forbidden(f"{path}.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")] \
            if rolling is not None else []
    if kind != "RollingUpdate":
        shown = field.go_json({"Type": kind or "", "RollingUpdate": None})
        return [field.not_supported_shown(path, shown, ("Recreate", "RollingUpdate"))]
    if not isinstance(rolling, dict):
        return [field.required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    found = _int_or_percent(unavailable, f"{path}.rollingUpdate.maxUnavailable")
    found += _int_or_percent(surge, f"{path}.rollingUpdate.maxSurge")
    if _int_or_percent_value(unavailable) == 0 and _int_or_percent_value(surge) == 0:
        found.append(field.invalid(f"{path}.rollingUpdate.maxUnavailable", unavailable, "may not be 0 when `maxSurge` is 0"))
    if isinstance(unavailable, str) and unavailable.endswith("%") and _int_or_percent_value(unavailable) > 100:
        found.append(field.invalid(f"{path}.rollingUpdate.maxUnavailable", unavailable, "must not be greater than 100%"))
    return found


def deployment(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found = field.nonnegative("spec.replicas", spec.get("replicas"))
    found += _selector(spec, "deployment")
    template = spec.get("template") or {}
    found += _template_labels_match(spec.get("selector"), template, "spec.template")
    found += pod_template_spec(template, "spec.template") + _always_restarted(template, "spec.template", "ReplicaSet")
    found += _deployment_strategy(spec.get("strategy"))
    found += field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    found += field.nonnegative("spec.revisionHistoryLimit", spec.get("revisionHistoryLimit"))
    deadline = spec.get("progressDeadlineSeconds")
    if isinstance(deadline, int):
        found += field.nonnegative("spec.progressDeadlineSeconds", deadline)
        if deadline <= (spec.get("minReadySeconds") or 0):
            found.append(field.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
    return found


def immutable_selector(new: Obj, old: Obj) -> list[FieldError]:
    """apps/v1 and batch/v1 selectors are fixed once set: the objects they pick already exist."""
    selector = (new.get("spec") or {}).get("selector")
    if selector == (old.get("spec") or {}).get("selector"):
        return []
    return [field.invalid_shown("spec.selector", field.go_selector(selector), "field is immutable")]


def deployment_update(new: Obj, old: Obj) -> list[FieldError]:
    return deployment(new) + immutable_selector(new, old)


def replica_set(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found = field.nonnegative("spec.replicas", spec.get("replicas"))
    found += field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    return found + _selector(spec, "deployment") + _replica_set_template(spec)


def replica_set_update(new: Obj, old: Obj) -> list[FieldError]:
    return replica_set(new) + immutable_selector(new, old)


def stateful_set(obj: Obj, service_name_checked: bool = True) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    policy = spec.get("podManagementPolicy") or ""
    if not policy:
        found.append(field.required("spec.podManagementPolicy"))
    elif policy not in ("OrderedReady", "Parallel"):
        found.append(field.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type") or ""
    if not kind:
        found.append(field.required("spec.updateStrategy"))
    elif kind == "OnDelete" and strategy.get("rollingUpdate") is not None:
        found.append(field.invalid("spec.updateStrategy.rollingUpdate", strategy["rollingUpdate"],
                                   "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind not in ("RollingUpdate", "OnDelete"):
        shown = field.go_json({"Type": kind, "RollingUpdate": None})
        found.append(field.invalid_shown("spec.updateStrategy", shown, "must be 'RollingUpdate' or 'OnDelete'"))
    found += field.nonnegative("spec.replicas", spec.get("replicas"))
    found += field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    if service_name_checked and spec.get("serviceName"):
        found += [field.invalid("spec.serviceName", spec["serviceName"], msg) for msg in dns1123_label(spec["serviceName"])]
    found += _selector(spec, "statefulset")
    template = spec.get("template") or {}
    found += _template_labels_match(spec.get("selector"), template, "spec.template")
    found += pod_template_spec(_with_claim_volumes(spec, template), "spec.template")
    return found + _always_restarted(template, "spec.template", "StatefulSet")


def _with_claim_volumes(spec: Obj, template: Obj) -> Obj:
    """The template as its pods will be: a volume for each claim template first, no hostname or subdomain
    (the controller sets them), as ValidateStatefulSetSpec judges it."""
    claims = [c for c in spec.get("volumeClaimTemplates") or () if isinstance(c, dict)]
    pod = dict(template.get("spec") or {})
    if not claims and not pod.get("hostname") and not pod.get("subdomain"):
        return template
    pod.pop("hostname", None)
    pod.pop("subdomain", None)
    if claims:
        names = [str((c.get("metadata") or {}).get("name") or "") for c in claims]
        volumes = [{"name": n, "persistentVolumeClaim": {"claimName": n}} for n in names]
        pod["volumes"] = volumes + [v for v in pod.get("volumes") or () if (v or {}).get("name") not in names]
    return {**template, "spec": pod}


# What a StatefulSet update may change in its spec; the rest was decided when its pods were made.
_STATEFUL_SET_MUTABLE = ("replicas", "template", "updateStrategy", "minReadySeconds", "ordinals",
                         "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy")


def stateful_set_update(new: Obj, old: Obj) -> list[FieldError]:
    found = stateful_set(new, service_name_checked=False)
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    if {k: v for k, v in spec.items() if k not in _STATEFUL_SET_MUTABLE} != \
            {k: v for k, v in old_spec.items() if k not in _STATEFUL_SET_MUTABLE}:
        found.append(field.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', "
                                     "'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', "
                                     "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
    return found


def daemon_set(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found = label_selector(spec.get("selector"), "spec.selector")
    template = spec.get("template") or {}
    template_labels = (template.get("metadata") or {}).get("labels") or {}
    if not matches(spec.get("selector") or {}, template_labels):
        found.append(field.invalid_shown("spec.template.metadata.labels",
                                         field.go_map(template_labels) if template_labels else "null",
                                         "`selector` does not match template `labels`"))
    if spec.get("selector") is not None and _empty(spec.get("selector")):
        found.append(field.invalid_shown("spec.selector", field.go_selector(spec["selector"]),
                                         "empty selector is invalid for daemonset"))
    found += pod_template_spec(template, "spec.template") + _always_restarted(template, "spec.template", "DaemonSet")
    found += field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type") or ""
    if kind == "RollingUpdate" and strategy.get("rollingUpdate") is None:
        found.append(field.required("spec.updateStrategy.rollingUpdate"))
    elif kind not in ("RollingUpdate", "OnDelete"):
        shown = field.go_json({"Type": kind, "RollingUpdate": None})
        found.append(field.not_supported_shown("spec.updateStrategy", shown, ("RollingUpdate", "OnDelete")))
    return found + field.nonnegative("spec.revisionHistoryLimit", spec.get("revisionHistoryLimit"))


def daemon_set_update(new: Obj, old: Obj) -> list[FieldError]:
    return immutable_selector(new, old) + daemon_set(new)
