"""apps/v1 validation: pkg/apis/apps/validation/validation.go for Deployments, ReplicaSets, DaemonSets and
ControllerRevisions, create and update, in its order (StatefulSets: statefulset_validation.py).

Upstream validates the internal types, converted from v1 and defaulted: a bad value that is a struct
shows as the internal struct's JSON, which has no json tags (`{"Type":...,"RollingUpdate":null}`).
The metadata is judged by the write path before these rules, as ValidateObjectMeta starts each of them.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import percent
from apiserver.registry import field
from apiserver.registry.apps.selectors import is_empty, matches, parses
from apiserver.registry.core.pod_validation import pod_template_spec
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]


def as_dict(value: Any) -> Obj:
    """A struct field's value, {} where the body had none (or not an object: decoding judged that)."""
    return value if isinstance(value, dict) else {}


def spec_of(obj: Obj) -> Obj:
    return as_dict(obj.get("spec"))


def template_of(spec: Obj) -> Obj:
    return as_dict(spec.get("template"))


def template_labels(template: Obj) -> Any:
    return (template.get("metadata") or {}).get("labels")


def shown_labels(labels: Any) -> str:
    """A template's labels as json.Marshal writes the map: null when the body had none."""
    return field.go_map(labels) if isinstance(labels, dict) else "null"


def labels_mismatch(path: str, labels: Any) -> FieldError:
    return field.invalid_shown(f"{path}.metadata.labels", shown_labels(labels),
                               "`selector` does not match template `labels`")


def strict_selector(spec: Obj, kind: str) -> list[FieldError]:
    """A required selector, judged strictly, that may not be empty (Deployments, ReplicaSets, StatefulSets)."""
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return [field.required("spec.selector")]
    found = label_selector(selector, "spec.selector")
    if is_empty(selector):
        found.append(field.invalid_shown("spec.selector", field.go_selector(selector),
                                         f"empty selector is invalid for {kind}"))
    return found


def restart_always(template: Obj, path: str, kind: str) -> list[FieldError]:
    """A workload's pods are always restarted, and never given a deadline."""
    pod = as_dict(template.get("spec"))
    found: list[FieldError] = []
    if pod.get("restartPolicy") != "Always":
        found.append(field.not_supported(f"{path}.spec.restartPolicy", pod.get("restartPolicy") or "", ("Always",)))
    if pod.get("activeDeadlineSeconds") is not None:
        found.append(field.forbidden(f"{path}.spec.activeDeadlineSeconds",
                                     f"activeDeadlineSeconds in {kind} is not Supported"))
    return found


def immutable_selector(new: Obj, old: Obj) -> list[FieldError]:
    """apps/v1 and batch/v1 selectors are fixed once set: the objects they pick already exist."""
    selector = spec_of(new).get("selector")
    if selector == spec_of(old).get("selector"):
        return []
    return [field.invalid_shown("spec.selector", field.go_selector(selector), "field is immutable")]


# -- int-or-percent fields (intstr.IntOrString) ------------------------------------------------------

def _go_int(text: str) -> int:
    """strconv.Atoi, 0 when it fails (IntOrString.IntValue)."""
    try:
        return int(text, 10) if text.strip() == text else 0
    except ValueError:
        return 0


def _percent_value(value: Any) -> int | None:
    if not isinstance(value, str) or percent(value):
        return None
    return int(value[:-1])


def int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: a valid percent's number, else the integer (a string's parsed, or 0)."""
    as_percent = _percent_value(value)
    if as_percent is not None:
        return as_percent
    if isinstance(value, str):
        return _go_int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """ValidatePositiveIntOrPercent."""
    if isinstance(value, str):
        return [field.invalid_shown(path, field.go_json(value), msg) for msg in percent(value)]
    return field.nonnegative(path, value if value is not None else 0)


def not_more_than_100_percent(value: Any, path: str) -> list[FieldError]:
    as_percent = _percent_value(value)
    if as_percent is None or as_percent <= 100:
        return []
    return [field.invalid_shown(path, field.go_json(value), "must not be greater than 100%")]


def intstr_json(value: Any) -> Any:
    """An IntOrString as the internal struct holds it: the zero value (0) when the v1 pointer was nil."""
    return 0 if value is None else value


# -- ReplicaSets and Deployments -------------------------------------------------------------------

def _replica_set_template(spec: Obj, path: str, kind: str) -> list[FieldError]:
    """ValidatePodTemplateSpecForReplicaSet."""
    template = template_of(spec)
    selector = spec.get("selector")
    found: list[FieldError] = []
    # A nil selector picks nothing, so no template matches it; an empty one picks everything.
    if not is_empty(selector) and not matches(selector, template_labels(template)):
        found.append(labels_mismatch(path, template_labels(template)))
    found += pod_template_spec(template, path)
    return found + restart_always(template, path, kind)


def _selected_template(spec: Obj, kind: str) -> list[FieldError]:
    """The template is judged against the selector only when the selector converts; else that is the error."""
    selector = spec.get("selector")
    if not parses(selector):
        return [field.invalid_shown("spec.selector", field.go_selector(selector), "invalid label selector")]
    return _replica_set_template(spec, "spec.template", kind)


def replica_set(obj: Obj) -> list[FieldError]:
    """ValidateReplicaSetSpec."""
    spec = spec_of(obj)
    found = field.nonnegative("spec.replicas", spec.get("replicas"))
    found += field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    found += strict_selector(spec, "deployment")
    return found + _selected_template(spec, "ReplicaSet")


def replica_set_update(new: Obj, old: Obj) -> list[FieldError]:
    return replica_set(new) + immutable_selector(new, old)


def _rolling_update_deployment(rolling: Obj, path: str) -> list[FieldError]:
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    found = positive_int_or_percent(unavailable, f"{path}.maxUnavailable")
    found += positive_int_or_percent(surge, f"{path}.maxSurge")
    if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
        found.append(field.invalid_shown(f"{path}.maxUnavailable", field.go_json(intstr_json(unavailable)),
                                         "may not be 0 when `maxSurge` is 0"))
    return found + not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")


def _deployment_strategy(strategy: Any) -> list[FieldError]:
    """ValidateDeploymentStrategy."""
    strategy = strategy if isinstance(strategy, dict) else {}
    kind, rolling = strategy.get("type") or "", strategy.get("rollingUpdate")
    path = "spec.strategy"
    if kind == "Recreate":
        if rolling is not None:
            return [field.forbidden(f"{path}.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind == "RollingUpdate":
        if not isinstance(rolling, dict):
            return [field.required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
        return _rolling_update_deployment(rolling, f"{path}.rollingUpdate")
    shown_rolling = None if not isinstance(rolling, dict) else {
        "MaxUnavailable": intstr_json(rolling.get("maxUnavailable")), "MaxSurge": intstr_json(rolling.get("maxSurge"))}
    shown = field.go_json({"Type": kind, "RollingUpdate": shown_rolling})
    return [field.not_supported_shown(path, shown, ("Recreate", "RollingUpdate"))]


def deployment(obj: Obj) -> list[FieldError]:
    """ValidateDeploymentSpec."""
    spec = spec_of(obj)
    found = field.nonnegative("spec.replicas", spec.get("replicas"))
    found += strict_selector(spec, "deployment")
    found += _selected_template(spec, "ReplicaSet")
    found += _deployment_strategy(spec.get("strategy"))
    found += field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    found += field.nonnegative("spec.revisionHistoryLimit", spec.get("revisionHistoryLimit"))
    rollback = spec.get("rollbackTo")
    if isinstance(rollback, dict):
        found += field.nonnegative("spec.rollback.version", rollback.get("revision"))
    deadline = spec.get("progressDeadlineSeconds")
    if isinstance(deadline, int):
        found += field.nonnegative("spec.progressDeadlineSeconds", deadline)
        if deadline <= (spec.get("minReadySeconds") or 0):
            found.append(field.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
    return found


def deployment_update(new: Obj, old: Obj) -> list[FieldError]:
    return deployment(new) + immutable_selector(new, old)


# -- DaemonSets ------------------------------------------------------------------------------------

def _rolling_update_daemon_set(rolling: Obj, path: str) -> list[FieldError]:
    """ValidateRollingUpdateDaemonSet: exactly one of maxUnavailable and maxSurge is non-zero."""
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    found = positive_int_or_percent(unavailable, f"{path}.maxUnavailable")
    found += positive_int_or_percent(surge, f"{path}.maxSurge")
    found += not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")
    found += not_more_than_100_percent(surge, f"{path}.maxSurge")
    has_unavailable, has_surge = int_or_percent_value(unavailable) != 0, int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        found.append(field.invalid_shown(f"{path}.maxSurge", field.go_json(intstr_json(surge)),
                                         "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        found.append(field.required(f"{path}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    return found


def _daemon_set_strategy(strategy: Any) -> list[FieldError]:
    """ValidateDaemonSetUpdateStrategy."""
    strategy = strategy if isinstance(strategy, dict) else {}
    kind, rolling = strategy.get("type") or "", strategy.get("rollingUpdate")
    path = "spec.updateStrategy"
    if kind == "OnDelete":
        return []
    if kind == "RollingUpdate":
        if not isinstance(rolling, dict):
            return [field.required(f"{path}.rollingUpdate")]
        return _rolling_update_daemon_set(rolling, f"{path}.rollingUpdate")
    shown_rolling = None if not isinstance(rolling, dict) else {
        "MaxUnavailable": intstr_json(rolling.get("maxUnavailable")), "MaxSurge": intstr_json(rolling.get("maxSurge"))}
    shown = field.go_json({"Type": kind, "RollingUpdate": shown_rolling})
    return [field.not_supported_shown(path, shown, ("RollingUpdate", "OnDelete"))]


def daemon_set(obj: Obj) -> list[FieldError]:
    """ValidateDaemonSetSpec: its selector is judged leniently (nil allowed) but must pick the template."""
    spec = spec_of(obj)
    selector = spec.get("selector")
    template = template_of(spec)
    found = label_selector(selector, "spec.selector")
    if parses(selector) and not matches(selector, template_labels(template)):
        found.append(labels_mismatch("spec.template", template_labels(template)))
    if is_empty(selector):
        found.append(field.invalid_shown("spec.selector", field.go_selector(selector),
                                         "empty selector is invalid for daemonset"))
    found += pod_template_spec(template, "spec.template")
    found += restart_always(template, "spec.template", "DaemonSet")
    found += field.nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"))
    found += _daemon_set_strategy(spec.get("updateStrategy"))
    return found + field.nonnegative("spec.revisionHistoryLimit", spec.get("revisionHistoryLimit"))


def daemon_set_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateDaemonSetSpecUpdate (the template generation is the strategy's to keep right), then the spec."""
    return immutable_selector(new, old) + daemon_set(new)


# -- ControllerRevisions ---------------------------------------------------------------------------

def _revision(obj: Obj) -> list[FieldError]:
    return field.nonnegative("revision", obj.get("revision"))


def controller_revision(obj: Obj) -> list[FieldError]:
    """ValidateControllerRevisionCreate: the revision, and data that is a JSON object."""
    found = _revision(obj)
    data = obj.get("data")
    if data is None:
        found.append(field.required("data", "data is mandatory"))
    elif not isinstance(data, dict):
        found.append(field.required("data", "data must be a valid JSON object"))
    return found


def controller_revision_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateControllerRevisionUpdate: data, once written, stays (a RawExtension shows as its JSON)."""
    found = _revision(new)
    if new.get("data") != old.get("data"):
        found.append(field.invalid_shown("data", field.go_json(new.get("data")), "field is immutable"))
    return found
