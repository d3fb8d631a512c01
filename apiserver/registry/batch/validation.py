"""batch/v1 Job validation: ValidateJob, ValidateJobSpec and ValidateJobUpdate of
pkg/apis/batch/validation/validation.go, in its order (CronJobs: cronjob_validation.py).

A Job's selector is generated from its uid unless chosen by hand; its pod failure and success
policies, completion mode and selector are fixed once it exists, and its pod template too unless the
job is suspended and has not started (then its scheduling directives and pods' resources may change).
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain, qualified_name, regex_error
from apiserver.registry import field
from apiserver.registry.apps.selectors import matches, parses
from apiserver.registry.apps.validation import as_dict, labels_mismatch
from apiserver.registry.batch import internal
from apiserver.registry.core.pod_validation import pod_template_spec
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

_MAX_PARALLELISM_INDEXED = 100_000
_MAX_FAILED_INDEXES = 100_000
_COMPLETIONS_SOFT_LIMIT = 100_000
_PARALLELISM_HIGH_COMPLETIONS = 10_000
_MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10_000
_MAX_FAILURE_RULES = 20
_MAX_EXIT_CODES = 255
_MAX_CONDITION_PATTERNS = 20
_MAX_MANAGED_BY = 63
_MAX_SUCCEEDED_INDEXES = 64 * 1024
_MAX_SUCCESS_RULES = 20
_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
_EXIT_CODE_OPERATORS = ("In", "NotIn")
_CONDITION_STATUSES = ("False", "True", "Unknown")
_REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH = re.compile(_HTTP_PATH_FMT)
LEGACY_UID_LABEL, LEGACY_NAME_LABEL = "controller-uid", "job-name"
UID_LABEL, NAME_LABEL = "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name"


def _go_list(values: list[str]) -> str:
    """A []string as %q prints it: `["a" "b"]`."""
    return "[" + " ".join(field.go_quote(v) for v in values) + "]"


def _omitted(path: str, detail: str) -> FieldError:
    """field.Invalid with field.OmitValueType{}: no value shown."""
    return FieldError("FieldValueInvalid", path, f"Invalid value: {detail}")


def _has_label(labels: Any, key: str, expected: str) -> list[FieldError]:
    """ValidateHasLabel of the template's metadata."""
    labels = as_dict(labels)
    path = f"spec.template.metadata.labels[{key}]"
    if key not in labels:
        return [field.required(path, f"must be '{expected}'")]
    if labels[key] != expected:
        return [field.invalid_shown(path, field.go_map(labels), f"must be '{expected}'")]
    return []


def generated_selector(obj: Obj, prefixed_labels: bool) -> list[FieldError]:
    """validateGeneratedSelector: unless chosen by hand, the selector picks by the uid and name labels."""
    spec = as_dict(obj.get("spec"))
    selector = spec.get("selector")
    if spec.get("manualSelector") is True or not isinstance(selector, dict):
        return []
    meta = as_dict(obj.get("metadata"))
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    found = [] if uid else [field.required("metadata.uid")]
    labels = as_dict(spec.get("template")).get("metadata", {}) or {}
    template_labels = as_dict(labels).get("labels")
    found += _has_label(template_labels, LEGACY_UID_LABEL, uid) + _has_label(template_labels, LEGACY_NAME_LABEL, name)
    expected = {LEGACY_UID_LABEL: uid, LEGACY_NAME_LABEL: name}
    if prefixed_labels:
        found += _has_label(template_labels, UID_LABEL, uid) + _has_label(template_labels, NAME_LABEL, name)
        expected.update({UID_LABEL: uid, NAME_LABEL: name})
    if parses(selector) and not matches(selector, expected):
        found.append(field.invalid_shown("spec.selector", field.go_selector(selector), "`selector` not auto-generated"))
    return found


def _domain_prefixed_path(value: str, path: str) -> list[FieldError]:
    """IsDomainPrefixedPath."""
    if not value:
        return [field.required(path)]
    host, _, rest = value.partition("/")
    if "/" not in value or not host or not rest:
        return [field.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    found = [field.invalid(path, host, msg) for msg in dns1123_subdomain(host)]
    if not _HTTP_PATH.fullmatch(rest):
        found.append(field.invalid(path, rest, regex_error("must be a valid path", _HTTP_PATH_FMT)))
    return found


def _exit_codes(requirement: Obj, path: str, containers: set[str]) -> list[FieldError]:
    """validatePodFailurePolicyRuleOnExitCodes."""
    found: list[FieldError] = []
    operator = requirement.get("operator") or ""
    if not operator:
        found.append(field.required(f"{path}.operator", "valid values: " + _go_list(list(_EXIT_CODE_OPERATORS))))
    elif operator not in _EXIT_CODE_OPERATORS:
        found.append(field.not_supported_shown(f"{path}.operator", field.go_json(operator), _EXIT_CODE_OPERATORS))
    container = requirement.get("containerName")
    if container is not None and container not in containers:
        found.append(field.invalid(f"{path}.containerName", container,
                                   "must be one of the container or initContainer names in the pod template"))
    values = requirement.get("values")
    codes: list[Any] = values if isinstance(values, list) else []
    values_path = f"{path}.values"
    if not values:
        found.append(field.invalid_shown(values_path, field.go_json(values), "at least one value is required"))
    elif len(values) > _MAX_EXIT_CODES:
        found.append(field.too_many(values_path, len(values), _MAX_EXIT_CODES))
    seen: set[int] = set()
    ordered = True
    for j, value in enumerate(codes):
        if operator == "In" and value == 0:
            found.append(field.invalid(f"{values_path}[{j}]", value, "must not be 0 for the In operator"))
        if value in seen:
            found.append(field.duplicate(f"{values_path}[{j}]", value))
        else:
            seen.add(value)
        if j > 0 and codes[j - 1] > value:
            ordered = False
    if not ordered:
        found.append(field.invalid_shown(values_path, field.go_json(values), "must be ordered"))
    return found


def _pod_conditions(patterns: list[Any], path: str) -> list[FieldError]:
    """validatePodFailurePolicyRuleOnPodConditions."""
    found: list[FieldError] = []
    if len(patterns) > _MAX_CONDITION_PATTERNS:
        found.append(field.too_many(path, len(patterns), _MAX_CONDITION_PATTERNS))
    for j, pattern in enumerate(patterns):
        pattern = as_dict(pattern)
        kind, status = str(pattern.get("type") or ""), pattern.get("status") or ""
        found += [field.invalid_shown(f"{path}[{j}].type", field.go_json(kind), msg) for msg in qualified_name(kind)]
        if not status:
            found.append(field.required(f"{path}[{j}].status", "valid values: " + _go_list(list(_CONDITION_STATUSES))))
        elif status not in _CONDITION_STATUSES:
            found.append(field.not_supported_shown(f"{path}[{j}].status", field.go_json(status), _CONDITION_STATUSES))
    return found


def _failure_rule(spec: Obj, rule: Obj, path: str, containers: set[str]) -> list[FieldError]:
    """validatePodFailurePolicyRule."""
    found: list[FieldError] = []
    action = rule.get("action") or ""
    if not action:
        found.append(field.required(f"{path}.action", "valid values: " + _go_list(list(_ACTIONS))))
    elif action == "FailIndex":
        if spec.get("backoffLimitPerIndex") is None:
            found.append(field.invalid_shown(f"{path}.action", field.go_json(action),
                                             "requires the backoffLimitPerIndex to be set"))
    elif action not in _ACTIONS:
        found.append(field.not_supported_shown(f"{path}.action", field.go_json(action), _ACTIONS))
    exit_codes, conditions = rule.get("onExitCodes"), rule.get("onPodConditions") or []
    if exit_codes is not None:
        found += _exit_codes(as_dict(exit_codes), f"{path}.onExitCodes", containers)
    if conditions:
        found += _pod_conditions(conditions, f"{path}.onPodConditions")
    if exit_codes is not None and conditions:
        found.append(_omitted(path, "specifying both OnExitCodes and OnPodConditions is not supported"))
    if exit_codes is None and not conditions:
        found.append(_omitted(path, "specifying one of OnExitCodes and OnPodConditions is required"))
    return found


def _pod_failure_policy(spec: Obj) -> list[FieldError]:
    rules = as_dict(spec.get("podFailurePolicy")).get("rules") or []
    path = "spec.podFailurePolicy.rules"
    found = [field.too_many(path, len(rules), _MAX_FAILURE_RULES)] if len(rules) > _MAX_FAILURE_RULES else []
    pod = as_dict(as_dict(spec.get("template")).get("spec"))
    containers = {str(as_dict(c).get("name") or "") for key in ("containers", "initContainers")
                  for c in pod.get(key) or ()}
    for i, rule in enumerate(rules):
        found += _failure_rule(spec, as_dict(rule), f"{path}[{i}]", containers)
    return found


def _index_interval(text: str, completions: int) -> tuple[int, int] | str:
    """parseIndexInterval: (first, last), or why the fragment is not an interval."""
    limits = text.split("-")
    if len(limits) > 2:
        return (f"the fragment {field.go_quote(text)} violates the requirement that an index interval can have at "
                "most two parts separated by '-'")
    bounds: list[int] = []
    for limit in limits:
        try:
            bounds.append(int(limit) if limit.lstrip("+-").isdigit() else int("x"))
        except ValueError:
            return f"cannot convert string to integer for index: {field.go_quote(limit)}"
        if bounds[-1] >= completions:
            return f"too large index: {field.go_quote(limit)}"
    if len(bounds) == 2 and bounds[0] >= bounds[1]:
        return f"non-increasing order, previous: {bounds[0]}, current: {bounds[1]}"
    return bounds[0], bounds[-1]


def indexes_format(text: str, completions: int) -> int | str:
    """validateIndexesFormat: how many indexes the intervals hold, or why they do not parse."""
    if not text:
        return 0
    total, last = 0, None
    for interval in text.split(","):
        parsed = _index_interval(interval, completions)
        if isinstance(parsed, str):
            return parsed
        first, final = parsed
        if last is not None and last >= first:
            return f"non-increasing order, previous: {last}, current: {first}"
        total += final - first + 1
        last = final
    return total


def _success_rule(rule: Obj, path: str, completions: int) -> list[FieldError]:
    found: list[FieldError] = []
    indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
    if indexes is None and count is None:
        found.append(field.required(path, "at least one of succeededCount or succeededIndexes must be specified"))
    total = 0
    if indexes is not None:
        if len(indexes) > _MAX_SUCCEEDED_INDEXES:
            found.append(field.too_long(f"{path}.succeededIndexes", _MAX_SUCCEEDED_INDEXES))
        parsed = indexes_format(indexes, completions)
        if isinstance(parsed, str):
            found.append(field.invalid(f"{path}.succeededIndexes", indexes,
                                       f"error parsing succeededIndexes: {parsed}"))
        else:
            total = parsed
    if count is not None:
        at = f"{path}.succeededCount"
        found += field.nonnegative(at, count)
        if count > completions:
            found.append(field.invalid(at, count, f"must be less than or equal to {completions} "
                                                  "(the number of specified completions)"))
        if indexes is not None and count > total:
            found.append(field.invalid(at, count, f"must be less than or equal to {total} "
                                                  "(the number of indexes in the specified succeededIndexes field)"))
    return found


def _success_policy(spec: Obj) -> list[FieldError]:
    policy = as_dict(spec.get("successPolicy"))
    if spec.get("completionMode") != "Indexed":
        return [field.invalid_shown("spec.successPolicy", internal.success_policy_json(policy),
                                    "requires indexed completion mode")]
    rules = policy.get("rules") or []
    path = "spec.successPolicy.rules"
    found: list[FieldError] = []
    if not rules:
        found.append(field.required(path, "at least one rules must be specified when the successPolicy is specified"))
    if len(rules) > _MAX_SUCCESS_RULES:
        found.append(field.too_many(path, len(rules), _MAX_SUCCESS_RULES))
    completions = spec.get("completions") or 0
    for i, rule in enumerate(rules):
        found += _success_rule(as_dict(rule), f"{path}[{i}]", completions)
    return found


def _replacement_policy(spec: Obj) -> list[FieldError]:
    policy = spec.get("podReplacementPolicy")
    path = "spec.podReplacementPolicy"
    if policy is None:
        return []
    if spec.get("podFailurePolicy") is not None:
        return [] if policy == "Failed" else [field.not_supported_shown(path, field.go_json(policy), ("Failed",))]
    if policy not in _REPLACEMENT_POLICIES:
        return [field.not_supported_shown(path, field.go_json(policy), _REPLACEMENT_POLICIES)]
    return []


def _indexed(spec: Obj) -> list[FieldError]:
    """The completion mode and what it allows of the per-index limits."""
    found: list[FieldError] = []
    mode = spec.get("completionMode")
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    if mode is not None:
        if mode not in ("NonIndexed", "Indexed"):
            found.append(field.not_supported_shown("spec.completionMode", field.go_json(mode), ("NonIndexed", "Indexed")))
        if mode == "Indexed":
            if completions is None:
                found.append(field.required("spec.completions", "when completion mode is Indexed"))
            if parallelism is not None and parallelism > _MAX_PARALLELISM_INDEXED:
                found.append(field.invalid("spec.parallelism", parallelism, "must be less than or equal to "
                                           f"{_MAX_PARALLELISM_INDEXED} when completion mode is Indexed"))
            if completions is not None and max_failed is not None and max_failed > completions:
                found.append(field.invalid("spec.maxFailedIndexes", max_failed, "must be less than or equal to completions"))
            if max_failed is not None and max_failed > _MAX_FAILED_INDEXES:
                found.append(field.invalid("spec.maxFailedIndexes", max_failed,
                                           f"must be less than or equal to {_MAX_FAILED_INDEXES}"))
            if completions is not None and completions > _COMPLETIONS_SOFT_LIMIT and per_index is not None:
                high = f"when completions are above {_COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
                if max_failed is None:
                    found.append(field.required("spec.maxFailedIndexes",
                                                f"must be specified when completions is above {_COMPLETIONS_SOFT_LIMIT}"))
                if parallelism is not None and parallelism > _PARALLELISM_HIGH_COMPLETIONS:
                    found.append(field.invalid("spec.parallelism", parallelism, "must be less than or equal to "
                                               f"{_PARALLELISM_HIGH_COMPLETIONS} {high}"))
                if max_failed is not None and max_failed > _MAX_FAILED_INDEXES_HIGH_COMPLETIONS:
                    found.append(field.invalid("spec.maxFailedIndexes", max_failed, "must be less than or equal to "
                                               f"{_MAX_FAILED_INDEXES_HIGH_COMPLETIONS} {high}"))
    if mode in (None, "NonIndexed"):
        for key, value in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
            if value is not None:
                found.append(field.invalid(f"spec.{key}", value, "requires indexed completion mode"))
    return found


def job_spec_fields(spec: Obj, path: str = "spec") -> list[FieldError]:
    """validateJobSpec (a CronJob's job template is judged by it too, at its own path)."""
    found: list[FieldError] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex", "maxFailedIndexes"):
        found += field.nonnegative(f"spec.{key}", spec.get(key))
        if key == "maxFailedIndexes" and spec.get(key) is not None and spec.get("backoffLimitPerIndex") is None:
            found.append(field.required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    managed_by = spec.get("managedBy")
    if managed_by is not None:
        found += _domain_prefixed_path(managed_by, "spec.managedBy")
        if len(managed_by) > _MAX_MANAGED_BY:
            found.append(field.too_long("spec.managedBy", _MAX_MANAGED_BY))
    found += _indexed(spec)
    if spec.get("podFailurePolicy") is not None:
        found += _pod_failure_policy(spec)
    if spec.get("successPolicy") is not None:
        found += _success_policy(spec)
    found += _replacement_policy(spec)
    template = as_dict(spec.get("template"))
    found += pod_template_spec(template, "spec.template")
    restart = as_dict(template.get("spec")).get("restartPolicy") or ""
    restart_path = "spec.template.spec.restartPolicy"
    if restart in ("Always", ""):
        found.append(field.required(restart_path, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        found.append(field.not_supported_shown(restart_path, field.go_json(restart), ("OnFailure", "Never")))
    elif spec.get("podFailurePolicy") is not None and restart != "Never":
        found.append(field.invalid_shown(restart_path, field.go_json(restart),
                                         'only "Never" is supported when podFailurePolicy is specified'))
    if path != "spec":
        # A CronJob's job template: the same rules, at the template's path.
        return [FieldError(e.kind, path + e.path[len("spec"):], e.message) for e in found]
    return found


def job_spec(spec: Obj) -> list[FieldError]:
    """ValidateJobSpec: the fields, a required selector, and a template it picks."""
    found = job_spec_fields(spec)
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        found.append(field.required("spec.selector"))
    else:
        found += label_selector(selector, "spec.selector")
    labels = as_dict(as_dict(spec.get("template")).get("metadata")).get("labels")
    # A nil selector picks nothing, so no template matches it; an empty one picks everything.
    if parses(selector) and not matches(selector, labels):
        found.append(labels_mismatch("spec.template", labels))
    return found


def _pod_hostname(obj: Obj) -> list[FieldError]:
    """An indexed job's last pod is named after the job and the highest index: it must be a DNS label."""
    spec = as_dict(obj.get("spec"))
    completions = spec.get("completions")
    if spec.get("completionMode") != "Indexed" or not isinstance(completions, int) or completions <= 0:
        return []
    name = str(as_dict(obj.get("metadata")).get("name") or "")
    hostname = f"{name}-{completions - 1}"
    if not dns1123_label(hostname):
        return []
    return [field.invalid("metadata.name", name, f"will not able to create pod with invalid DNS label: {hostname}")]


def job(obj: Obj, prefixed_labels: bool = True) -> list[FieldError]:
    """ValidateJob."""
    found = generated_selector(obj, prefixed_labels)
    return found + job_spec(as_dict(obj.get("spec"))) + _pod_hostname(obj)


def _immutable(path: str, new: Any, old: Any, shown: str) -> list[FieldError]:
    return [] if new == old else [field.invalid_shown(path, shown, "field is immutable")]


def _completions_update(spec: Obj, old_spec: Obj) -> list[FieldError]:
    """validateCompletions: an indexed job's completions change only with its parallelism."""
    completions = spec.get("completions")
    if spec.get("completionMode") != "Indexed":
        return _immutable("spec.completions", completions, old_spec.get("completions"), field.go_json(completions))
    if completions == old_spec.get("completions") or completions is None:
        return []
    if completions != spec.get("parallelism"):
        return [field.invalid("spec.completions", completions, "can only be modified in tandem with spec.parallelism")]
    return []


def job_spec_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateJobSpecUpdate (which judges the new spec once more)."""
    spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    found = job_spec(spec) + _completions_update(spec, old_spec)
    selector = spec.get("selector")
    found += _immutable("spec.selector", selector, old_spec.get("selector"),
                        field.go_selector(selector) if isinstance(selector, dict) else "null")
    found += internal.pod_template_update(new, old)
    for key, shown in (("completionMode", field.go_json(spec.get("completionMode"))),
                       ("podFailurePolicy", internal.pod_failure_policy_json(spec.get("podFailurePolicy"))),
                       ("backoffLimitPerIndex", field.go_json(spec.get("backoffLimitPerIndex"))),
                       ("managedBy", field.go_json(spec.get("managedBy"))),
                       ("successPolicy", internal.success_policy_json(spec.get("successPolicy")))):
        found += _immutable(f"spec.{key}", spec.get(key), old_spec.get(key), shown)
    return found


def job_update(new: Obj, old: Obj) -> list[FieldError]:
    """The strategy's ValidateUpdate: ValidateJob, then ValidateJobUpdate. Labels with the batch.kubernetes.io
    prefix are required only of jobs made since they were generated."""
    old_labels = as_dict(as_dict(as_dict(old.get("spec")).get("template")).get("metadata")).get("labels")
    prefixed = NAME_LABEL in as_dict(old_labels) and UID_LABEL in as_dict(old_labels)
    return job(new, prefixed) + job_spec_update(new, old)
