"""StatefulSet validation: ValidateStatefulSet, ValidateStatefulSetUpdate and ValidateStatefulSetSpec of
pkg/apis/apps/validation/validation.go, in its order.

A StatefulSet's pods take their hostname and subdomain from the controller and a volume per claim
template, so the template is judged as its pods will be. An update may change only some of the spec
(the rest was decided when the pods were made), and it tolerates what was stored before stricter rules:
an invalid service name, claim templates, and a pod template that was already invalid.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label
from apiserver.registry import field, meta
from apiserver.registry.apps.selectors import is_empty, matches, parses
from apiserver.registry.apps.validation import (
    as_dict,
    int_or_percent_value,
    labels_mismatch,
    not_more_than_100_percent,
    positive_int_or_percent,
    restart_always,
    spec_of,
    strict_selector,
    template_labels,
    template_of,
)
from apiserver.registry.core.pod_validation import pod_template_spec
from apiserver.registry.core.pvc_validation import claim_spec

Obj = dict[str, Any]

_RETENTION_POLICIES = ("Retain", "Delete")
_FORBIDDEN_UPDATE = ("updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
                     "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
                     "'minReadySeconds' are forbidden")
# What an update may change in the spec; the rest was decided when the pods were made.
_MUTABLE = frozenset({"replicas", "template", "updateStrategy", "minReadySeconds", "ordinals",
                      "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy"})


def _rolling_update_json(rolling: Obj) -> dict[str, Any]:
    """The internal RollingUpdateStatefulSetStrategy as a bad value shows it."""
    return {"Partition": rolling.get("partition") or 0, "MaxUnavailable": rolling.get("maxUnavailable")}


def _rolling_update(rolling: Obj, path: str) -> list[FieldError]:
    """validateRollingUpdateStatefulSet."""
    found = field.nonnegative(f"{path}.partition", rolling.get("partition"))
    unavailable = rolling.get("maxUnavailable")
    if unavailable is not None:
        at = f"{path}.maxUnavailable"
        found += positive_int_or_percent(unavailable, at)
        if int_or_percent_value(unavailable) == 0:
            found.append(field.invalid_shown(at, field.go_json(unavailable), "cannot be 0"))
        found += not_more_than_100_percent(unavailable, at)
    return found


def _update_strategy(strategy: Any) -> list[FieldError]:
    strategy = strategy if isinstance(strategy, dict) else {}
    kind, rolling = strategy.get("type") or "", strategy.get("rollingUpdate")
    path = "spec.updateStrategy"
    if not kind:
        return [field.required(path)]
    if kind == "OnDelete":
        if isinstance(rolling, dict):
            return [field.invalid_shown(f"{path}.rollingUpdate", field.go_json(_rolling_update_json(rolling)),
                                        "only allowed for updateStrategy 'RollingUpdate'")]
        return []
    if kind == "RollingUpdate":
        return _rolling_update(rolling, f"{path}.rollingUpdate") if isinstance(rolling, dict) else []
    shown = {"Type": kind, "RollingUpdate": _rolling_update_json(rolling) if isinstance(rolling, dict) else None}
    return [field.invalid_shown(path, field.go_json(shown), "must be 'RollingUpdate' or 'OnDelete'")]


def _retention_policy(policy: Any) -> list[FieldError]:
    """ValidatePersistentVolumeClaimRetentionPolicy."""
    if not isinstance(policy, dict):
        return []
    found: list[FieldError] = []
    for key in ("whenDeleted", "whenScaled"):
        value = policy.get(key) or ""
        if value not in _RETENTION_POLICIES:
            found.append(field.not_supported(f"spec.persistentVolumeClaimRetentionPolicy.{key}", value,
                                             _RETENTION_POLICIES))
    return found


def _claims(spec: Obj) -> list[Obj]:
    return [c for c in spec.get("volumeClaimTemplates") or () if isinstance(c, dict)]


def _claim_templates(spec: Obj) -> list[FieldError]:
    """validateVolumeClaimTemplates: each claim's spec as a claim being created."""
    found: list[FieldError] = []
    for i, claim in enumerate(spec.get("volumeClaimTemplates") or ()):
        found += claim_spec(as_dict(as_dict(claim).get("spec")),
                                              f"spec.volumeClaimTemplates[{i}].spec")
    return found


def _as_pods_will_be(spec: Obj, template: Obj) -> Obj:
    """The template without hostname and subdomain (the controller sets them) and with a volume for each
    claim template in place of a volume of the same name."""
    pod = as_dict(template.get("spec"))
    claims = _claims(spec)
    if not claims and not pod.get("hostname") and not pod.get("subdomain"):
        return template
    pod = {k: v for k, v in pod.items() if k not in ("hostname", "subdomain")}
    if claims:
        names = [str((c.get("metadata") or {}).get("name") or "") for c in claims]
        volumes = [{"name": n, "persistentVolumeClaim": {"claimName": n}} for n in dict.fromkeys(names)]
        pod["volumes"] = volumes + [v for v in pod.get("volumes") or ()
                                    if not isinstance(v, dict) or v.get("name") not in names]
    return {**template, "spec": pod}


def _template(spec: Obj, pod_template_checked: bool) -> list[FieldError]:
    """ValidatePodTemplateSpecForStatefulSet, which judges the template's labels and annotations twice."""
    template = template_of(spec)
    selector = spec.get("selector")
    found: list[FieldError] = []
    if not is_empty(selector) and not matches(selector, template_labels(template)):
        found.append(labels_mismatch("spec.template", template_labels(template)))
    if pod_template_checked:
        found += pod_template_spec(_as_pods_will_be(spec, template), "spec.template")
    template_meta = as_dict(template.get("metadata"))
    found += meta.labels(template_meta.get("labels"), "spec.template.labels")
    return found + meta.annotations(template_meta.get("annotations"), "spec.template.annotations")


def stateful_set_spec(spec: Obj, service_name_checked: bool = True, claims_checked: bool = True,
                      pod_template_checked: bool = True) -> list[FieldError]:
    """ValidateStatefulSetSpec, with the options an update passes."""
    found: list[FieldError] = []
    policy = spec.get("podManagementPolicy") or ""
    if not policy:
        found.append(field.required("spec.podManagementPolicy"))
    elif policy not in ("OrderedReady", "Parallel"):
        found.append(field.invalid_shown("spec.podManagementPolicy", field.go_json(policy),
                                         "must be 'OrderedReady' or 'Parallel'"))
    found += _update_strategy(spec.get("updateStrategy"))
    found += _retention_policy(spec.get("persistentVolumeClaimRetentionPolicy"))
    if claims_checked:
        found += _claim_templates(spec)
    found += field.nonnegative("spec.replicas", spec.get("replicas"))
    found += field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    ordinals = spec.get("ordinals")
    if isinstance(ordinals, dict):
        found += field.nonnegative("spec.ordinals.start", ordinals.get("start"))
    service_name = spec.get("serviceName")
    if service_name_checked and isinstance(service_name, str) and service_name:
        found += [field.invalid("spec.serviceName", service_name, msg) for msg in dns1123_label(service_name)]
    found += strict_selector(spec, "statefulset")
    selector = spec.get("selector")
    if not parses(selector):
        found.append(field.invalid_shown("spec.selector", field.go_selector(selector), ""))
    else:
        found += _template(spec, pod_template_checked)
    return found + restart_always(template_of(spec), "spec.template", "StatefulSet")


def stateful_set(obj: Obj) -> list[FieldError]:
    """ValidateStatefulSet: new StatefulSets need a valid service name."""
    return stateful_set_spec(spec_of(obj))


def stateful_set_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateStatefulSetUpdate."""
    spec, old_spec = spec_of(new), spec_of(old)
    # A stored spec that no longer passes keeps its pod template unjudged, so that it can still be updated.
    old_valid = not stateful_set_spec(old_spec, service_name_checked=False, claims_checked=False)
    found = stateful_set_spec(spec, service_name_checked=False, claims_checked=False,
                              pod_template_checked=old_valid)
    if {k: v for k, v in spec.items() if k not in _MUTABLE} != \
            {k: v for k, v in old_spec.items() if k not in _MUTABLE}:
        found.append(field.forbidden("spec", _FORBIDDEN_UPDATE))
    return found
