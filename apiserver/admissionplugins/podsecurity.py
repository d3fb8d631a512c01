"""PodSecurity (pod-security-admission as kube-apiserver 1.36 runs it): a namespace's
`pod-security.kubernetes.io/{enforce,audit,warn}` labels (with `-version`) choose the Pod Security
Standard its pods must meet.

A pod that breaks the enforced level is refused (`violates PodSecurity "restricted:latest": ...`);
one that breaks the warn level is let in with a warning. Workload resources (Deployments, Jobs, ...)
are never refused, only warned about for their pod template. A namespace's labels must parse
(422 otherwise), and a change that tightens its enforce level warns about the pods already there
that would now be refused. Exempt usernames, runtime classes and namespaces come from the
PodSecurityConfiguration of an admission configuration file, with the default policy; the audit
level's findings go to audit annotations (`pod-security.kubernetes.io/audit-violations`), as do the
enforced policy and exemptions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from apiserver import errors
from apiserver.admissionplugins import podsecurity_checks
from apiserver.admissionplugins.request import Obj, Request
from apiserver.errors import FieldError

PREFIX = "pod-security.kubernetes.io/"
LEVELS = ("privileged", "baseline", "restricted")
_VERSION = re.compile(r"^v1\.([0-9]|[1-9][0-9]*)$")
_IGNORED_POD_SUBRESOURCES = frozenset({"exec", "attach", "binding", "eviction", "log", "portforward", "proxy",
                                       "status"})
# DefaultPodSpecExtractor's resources, with where each keeps its pod template
TEMPLATES: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "replicationcontrollers"): ("spec", "template"), ("", "podtemplates"): ("template",),
    ("apps", "replicasets"): ("spec", "template"), ("apps", "deployments"): ("spec", "template"),
    ("apps", "statefulsets"): ("spec", "template"), ("apps", "daemonsets"): ("spec", "template"),
    ("batch", "jobs"): ("spec", "template"), ("batch", "cronjobs"): ("spec", "jobTemplate", "spec", "template"),
}
# the most existing pods a change of a namespace's enforce level is checked against
_MAX_PODS_TO_CHECK = 3000


class LevelVersion(NamedTuple):
    level: str
    version: tuple[int, int] | None  # None: latest

    def __str__(self) -> str:
        return f"{self.level}:{'latest' if self.version is None else f'v{self.version[0]}.{self.version[1]}'}"

    def equivalent(self, other: LevelVersion) -> bool:
        return (self.level == "privileged" and other.level == "privileged") or self == other


_PRIVILEGED = LevelVersion("privileged", None)


class Policy(NamedTuple):
    enforce: LevelVersion = _PRIVILEGED
    audit: LevelVersion = _PRIVILEGED
    warn: LevelVersion = _PRIVILEGED

    def fully_privileged(self) -> bool:
        return all(lv.level == "privileged" for lv in self)

    def equivalent(self, other: Policy) -> bool:
        return all(a.equivalent(b) for a, b in zip(self, other))


@dataclass(frozen=True)
class Exemptions:
    """A PodSecurityConfiguration: the policy of unlabelled namespaces, and who and what is exempt."""

    defaults: Policy = field(default_factory=Policy)
    usernames: tuple[str, ...] = ()
    runtime_classes: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()


class Stored(Protocol):
    def objects(self, storage_key: str, namespace: str) -> list[Obj]:
        ...

    def namespace(self, name: str) -> Obj | None:
        ...


def parse_level(value: str) -> tuple[str, str | None]:
    return (value, None) if value in LEVELS else ("restricted", "must be one of privileged, baseline, restricted")


def parse_version(value: str) -> tuple[tuple[int, int] | None, str | None]:
    if value == "latest":
        return None, None
    match = _VERSION.match(value)
    if match is None:
        return None, 'must be "latest" or "v1.x"'
    return (1, int(match.group(1))), None


def policy_for(labels: dict[str, str], defaults: Policy) -> tuple[Policy, list[FieldError]]:
    """api.PolicyToEvaluate: the labels over the defaults; a bad enforce level fails closed (restricted),
    a bad audit or warn level open (privileged)."""
    if not labels:
        return defaults, []
    found: list[FieldError] = []
    modes = {"enforce": defaults.enforce, "audit": defaults.audit, "warn": defaults.warn}
    has_enforce_level = False
    for mode in ("enforce", "audit", "warn"):
        level, version = modes[mode]
        if PREFIX + mode in labels:
            value = labels[PREFIX + mode]
            level, problem = parse_level(value)
            if problem is not None:
                found.append(_label_error(PREFIX + mode, value, problem))
                if mode != "enforce":
                    level = "privileged"
            elif mode == "enforce":
                has_enforce_level = True
        if PREFIX + mode + "-version" in labels:
            value = labels[PREFIX + mode + "-version"]
            version, problem = parse_version(value)
            if problem is not None:
                found.append(_label_error(PREFIX + mode + "-version", value, problem))
        modes[mode] = LevelVersion(level, version)
    enforce, warn = modes["enforce"], modes["warn"]
    if PREFIX + "warn" not in labels and has_enforce_level and _rank(enforce.level) > _rank(warn.level):
        version = warn.version if PREFIX + "warn-version" in labels else enforce.version
        modes["warn"] = LevelVersion(enforce.level, version)
    return Policy(modes["enforce"], modes["audit"], modes["warn"]), found


def _rank(level: str) -> int:
    return LEVELS.index(level)


def _label_error(label: str, value: str, problem: str) -> FieldError:
    return FieldError("FieldValueInvalid", f"metadata.labels[{label}]",
                      f'Invalid value: "{value}": {problem}')


def _forbidden_detail(results: list[tuple[str, str]]) -> str:
    """AggregateCheckResult.ForbiddenDetail: each reason with its detail in parentheses."""
    return ", ".join(f"{reason} ({detail})" if detail else reason for reason, detail in results)


def _evaluate(lv: LevelVersion, meta: Obj, spec: Obj) -> list[tuple[str, str]]:
    return podsecurity_checks.evaluate(lv.level, lv.version, meta, spec)


class Decision(NamedTuple):
    """What an admitted write is answered with (Warning headers) and audited with: annotations under
    pod-security.kubernetes.io/ (enforce-policy, audit-violations, exempt)."""

    warnings: tuple[str, ...] = ()
    annotations: tuple[tuple[str, str], ...] = ()


NOTHING = Decision()


def _exempt(reason: str) -> Decision:
    return Decision((), ((PREFIX + "exempt", reason),))


def validate(request: Request, stored: Stored, config: Exemptions) -> Decision:
    """Raises the refusal; otherwise the warnings and audit annotations to answer with."""
    if request.operation not in ("CREATE", "UPDATE") or request.obj is None:
        return NOTHING
    if not request.group and request.resource == "namespaces":
        return Decision(tuple(_namespace(request, stored, config)))
    if not request.group and request.resource == "pods":
        return _pod(request, stored, config)
    if (request.group, request.resource) in TEMPLATES:
        return _workload(request, stored, config)
    return NOTHING


def _labels(obj: Obj | None) -> dict[str, str]:
    return dict(((obj or {}).get("metadata") or {}).get("labels") or {})


def _exemption(request: Request, config: Exemptions) -> Decision | None:
    if request.namespace and request.namespace in config.namespaces:
        return _exempt("namespace")
    if request.user and request.user in config.usernames:
        return _exempt("user")
    return None


def _pod(request: Request, stored: Stored, config: Exemptions) -> Decision:
    if request.subresource in _IGNORED_POD_SUBRESOURCES:
        return NOTHING
    exempt = _exemption(request, config)
    if exempt is not None:
        return exempt
    policy, problems = policy_for(_labels(stored.namespace(request.namespace)), config.defaults)
    if not problems and policy.fully_privileged():
        return Decision((), ((PREFIX + "enforce-policy", str(_PRIVILEGED)),))
    assert request.obj is not None
    if request.operation == "UPDATE" and request.old is not None and not _significant(request.obj, request.old):
        return NOTHING
    return _evaluate_pod(request, policy, request.obj.get("metadata") or {}, request.obj.get("spec") or {},
                         config, enforce=True)


def _workload(request: Request, stored: Stored, config: Exemptions) -> Decision:
    if request.subresource:
        return NOTHING
    exempt = _exemption(request, config)
    if exempt is not None:
        return exempt
    policy, problems = policy_for(_labels(stored.namespace(request.namespace)), config.defaults)
    if not problems and policy.warn.level == "privileged" and policy.audit.level == "privileged":
        return NOTHING
    template: Any = request.obj
    for step in TEMPLATES[(request.group, request.resource)]:
        template = template.get(step) if isinstance(template, dict) else None
    if not isinstance(template, dict):
        return NOTHING
    return _evaluate_pod(request, policy, template.get("metadata") or {}, template.get("spec") or {}, config,
                         enforce=False)


def _evaluate_pod(request: Request, policy: Policy, meta: Obj, spec: Obj, config: Exemptions,
                  enforce: bool) -> Decision:
    if spec.get("runtimeClassName") and spec["runtimeClassName"] in config.runtime_classes:
        return _exempt("runtimeClass")
    annotations: list[tuple[str, str]] = []
    if enforce:
        annotations.append((PREFIX + "enforce-policy", str(policy.enforce)))
        refused = _evaluate(policy.enforce, meta, spec)
        if refused:
            name = request.name or str(((request.obj or {}).get("metadata") or {}).get("name") or "")
            why = f'violates PodSecurity "{policy.enforce}": {_forbidden_detail(refused)}'
            if name:
                raise errors.forbidden_object(request.resource, request.group, name, why)
            raise errors.ApiError(403, "Forbidden", f"{errors.qualified(request.resource, request.group)} is "
                                  f"forbidden: {why}", {"kind": request.resource})
    audited = _evaluate(policy.audit, meta, spec)
    if audited:
        annotations.append((PREFIX + "audit-violations",
                            f'would violate PodSecurity "{policy.audit}": {_forbidden_detail(audited)}'))
    warned = _evaluate(policy.warn, meta, spec)
    warnings = (f'would violate PodSecurity "{policy.warn}": {_forbidden_detail(warned)}',) if warned else ()
    return Decision(warnings, tuple(annotations))


def _significant(pod: Obj, old: Obj) -> bool:
    """isSignificantPodUpdate: containers added or removed, or an image changed."""
    spec, old_spec = pod.get("spec") or {}, old.get("spec") or {}
    for key in ("containers", "initContainers"):
        new, before = spec.get(key) or [], old_spec.get(key) or []
        if len(new) != len(before) or any(a.get("image") != b.get("image") for a, b in zip(new, before)):
            return True
    previous = {c.get("name"): c for c in old_spec.get("ephemeralContainers") or ()}
    return any(c.get("name") not in previous or previous[c.get("name")].get("image") != c.get("image")
               for c in spec.get("ephemeralContainers") or ())


def _namespace(request: Request, stored: Stored, config: Exemptions) -> list[str]:
    if request.subresource:
        return []
    assert request.obj is not None
    name = str(request.obj["metadata"].get("name") or "")
    labels = _labels(request.obj)
    policy, problems = policy_for(labels, config.defaults)
    if request.operation == "CREATE":
        if problems:
            raise errors.invalid("Namespace", "", name, problems)
        warning = _exempt_warning(name, policy, labels, config)
        return [warning] if warning else []
    old_policy, old_problems = policy_for(_labels(request.old), config.defaults)
    if problems and (not old_problems or problems != old_problems):
        raise errors.invalid("Namespace", "", name, problems)
    if policy.enforce == old_policy.enforce or policy.enforce.level == "privileged":
        return []
    if policy.enforce.version == old_policy.enforce.version and \
            _rank(policy.enforce.level) <= _rank(old_policy.enforce.level):
        return []
    if name in config.namespaces:
        warning = _exempt_warning(name, policy, labels, config)
        return [warning] if warning else []
    return _existing_pods(name, policy.enforce, stored, config)


def _exempt_warning(name: str, policy: Policy, labels: dict[str, str], config: Exemptions) -> str:
    """The warning for labelling an exempt namespace (the request's namespace is the namespace's own
    name, on its create too, as the reference answers)."""
    if name not in config.namespaces or policy.fully_privileged() or policy.equivalent(config.defaults):
        return ""
    parts = [f"{mode}={lv}" for mode, lv in zip(("enforce", "audit", "warn"), policy)
             if lv.level != "privileged" and (PREFIX + mode in labels or PREFIX + mode + "-version" in labels)]
    return f'namespace "{name}" is exempt from Pod Security, and the policy ({", ".join(parts)}) will be ignored'


def _existing_pods(namespace: str, enforce: LevelVersion, stored: Stored, config: Exemptions) -> list[str]:
    """EvaluatePodsInNamespace: one warning per distinct reason, naming the first pod by name."""
    pods = [p for p in stored.objects("pods", namespace)
            if not ((p.get("spec") or {}).get("runtimeClassName") in config.runtime_classes
                    and (p.get("spec") or {}).get("runtimeClassName"))]
    # one pod per controller first, so a large ReplicaSet does not hide everything else
    seen: set[str] = set()
    first, repeated = [], []
    for pod in pods:
        owner = next((r for r in pod["metadata"].get("ownerReferences") or () if r.get("controller")), None)
        if owner is not None and owner.get("uid") in seen:
            repeated.append(pod)
            continue
        if owner is not None:
            seen.add(str(owner.get("uid")))
        first.append(pod)
    ordered = first + repeated
    total, checked = len(ordered), ordered[:_MAX_PODS_TO_CHECK]
    counts: dict[str, list[Any]] = {}  # reason -> [first pod name, count]
    for pod in checked:
        results = _evaluate(enforce, pod["metadata"], pod.get("spec") or {})
        if not results:
            continue
        reason = ", ".join(reason for reason, _ in results)
        entry = counts.setdefault(reason, [pod["metadata"]["name"], 0])
        entry[0] = min(entry[0], pod["metadata"]["name"])
        entry[1] += 1
    warnings = []
    if len(checked) < total:
        warnings.append(f"new PodSecurity enforce level only checked against the first {len(checked)} of {total} "
                        "existing pods")
    if counts:
        warnings.append(f'existing pods in namespace "{namespace}" violate the new PodSecurity enforce level '
                        f'"{enforce}"')
    decorated = []
    for reason, (pod_name, count) in counts.items():
        if count == 1:
            decorated.append(f"{pod_name}: {reason}")
        elif count == 2:
            decorated.append(f"{pod_name} (and 1 other pod): {reason}")
        else:
            decorated.append(f"{pod_name} (and {count - 1} other pods): {reason}")
    return warnings + sorted(decorated)
