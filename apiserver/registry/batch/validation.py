"""batch/v1 validation: pkg/apis/batch/validation/validation.go, for the rules ported so far."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.apps.validation import immutable_selector
from apiserver.registry.core.pod_validation import pod_spec

Obj = dict[str, Any]


def job(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found = _generated_selector(obj)
    found.extend(_indexes(spec))
    found.extend(pod_spec((spec.get("template") or {}).get("spec"), "spec.template.spec"))
    policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
    restart_path = "spec.template.spec.restartPolicy"
    # Pod defaulting has made a missing restartPolicy Always by now, hence upstream's "Required".
    if policy in ("Always", "", None):
        found.append(field.required(restart_path, 'valid values: "OnFailure", "Never"'))
    elif policy not in ("OnFailure", "Never"):
        found.append(field.not_supported(restart_path, policy, ("OnFailure", "Never")))
    elif spec.get("podFailurePolicy") is not None and policy != "Never":
        found.append(field.invalid(restart_path, policy, 'only "Never" is supported when podFailurePolicy is specified'))
    found.extend(_selector(spec))
    return found


def job_update(new: Obj, old: Obj) -> list[FieldError]:
    return job(new) + immutable_selector(new, old)


def _generated_selector(obj: Obj) -> list[FieldError]:
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
    return [field.invalid_shown("spec.selector", field.go_selector(selector), "`selector` not auto-generated")]


def _selector(spec: Obj) -> list[FieldError]:
    """A manual selector must be given and, as a generated one does, pick the template's pods. Go reads
    a missing selector as one matching nothing, so the template is then refused as well."""
    selector = spec.get("selector")
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    found: list[FieldError] = []
    if not isinstance(selector, dict):
        found.append(field.required("spec.selector"))
    match = (selector.get("matchLabels") or {}) if isinstance(selector, dict) else None
    if match is None or any((labels or {}).get(k) != v for k, v in match.items()):
        shown = field.go_map(labels) if labels else "null"
        found.append(field.invalid_shown("spec.template.metadata.labels", shown,
                                         "`selector` does not match template `labels`"))
    return found


def _indexes(spec: Obj) -> list[FieldError]:
    """Per-index backoff and its failed-index budget belong to Indexed jobs, which count completions."""
    found: list[FieldError] = []
    per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    completions = spec.get("completions")
    if max_failed is not None and per_index is None:
        found.append(field.required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    if spec.get("completionMode") == "Indexed":
        if completions is None:
            found.append(field.required("spec.completions", "when completion mode is Indexed"))
        elif isinstance(max_failed, int) and isinstance(completions, int) and max_failed > completions:
            found.append(field.invalid("spec.maxFailedIndexes", max_failed, "must be less than or equal to completions"))
    elif spec.get("completionMode") in ("NonIndexed", None):
        for field_name, value in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
            if value is not None:
                found.append(field.invalid(f"spec.{field_name}", value, "requires indexed completion mode"))
    return found


def cron_job(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found = [] if spec.get("schedule") else [field.required("spec.schedule")]
    template = ((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}
    found.extend(pod_spec(template.get("spec"), "spec.jobTemplate.spec.template.spec"))
    return found
