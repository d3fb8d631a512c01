"""What a valid pod or pod template is warned of: pkg/api/pod/warnings.go's warningsForPodSpecAndMeta,
and the pod and replication controller strategies' WarningsOnCreate/Update around it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from apiserver.kinds.validation import dns1123_label, label_value
from apiserver.registry.core import ip_validation, object_warnings, resource_names, volume_paths
from apiserver.registry.core.pod_annotations import app_armor_field
from apiserver.registry.field import go_quote
from apiserver.registry.node.warnings import deprecated_label_message  # pkg/api/node, as upstream imports it

Obj = dict[str, Any]

_DEPRECATED_ANNOTATIONS = (
    ("scheduler.alpha.kubernetes.io/critical-pod", 'non-functional in v1.16+; use the "priorityClassName" field instead'),
    ("security.alpha.kubernetes.io/sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
    ("security.alpha.kubernetes.io/unsafe-sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
)
# (volume source, where the warning names it, what it says), in upstream's order; gitRepo's driver is off.
_DEPRECATED_VOLUMES = (
    ("photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("gitRepo", "gitRepo", "deprecated in v1.11, and disabled by default in v1.33+"),
    ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)
_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
_APP_ARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"


def _containers(spec: Obj, at: str) -> Iterator[tuple[Obj, str]]:
    """VisitContainersWithPath: init, regular, then ephemeral containers."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(spec.get(key) or ()):
            if isinstance(c, dict):
                yield c, f"{at}.{key}[{i}]"


def _fractional(amount: Any) -> str | None:
    value = resource_names.parsed(amount)
    return str(value) if value is not None and value.milli_value() % 1000 != 0 else None


def _container_warnings(c: Obj, path: str, annotations: Obj, meta_at: str, pod_app_armor: Any | None) -> list[str]:
    """The per-container warnings; `pod_app_armor` is the pod's AppArmor profile, for a template only (a pod
    is warned of its AppArmor annotations by the strategy that copies them into fields)."""
    found: list[str] = []
    name = c.get("name") or ""
    if not (c.get("securityContext") or {}).get("seccompProfile") and _SECCOMP_CONTAINER + name in annotations:
        found.append(f'{meta_at}.annotations[{_SECCOMP_CONTAINER}{name}]: non-functional in v1.27+; '
                     'use the "seccompProfile" field instead')
    key = _APP_ARMOR_CONTAINER + name
    if pod_app_armor is not None and not (c.get("securityContext") or {}).get("appArmorProfile") \
            and key in annotations and (not pod_app_armor or pod_app_armor != app_armor_field(str(annotations[key]))):
        found.append(f'{meta_at}.annotations[{key}]: deprecated since v1.30; use the "appArmorProfile" field instead')
    resources = c.get("resources") or {}
    for kind, name_ in (("limits", "memory"), ("requests", "memory"), ("limits", "ephemeral-storage"),
                        ("requests", "ephemeral-storage")):
        amount = (resources.get(kind) or {}).get(name_)
        if amount is not None and (shown := _fractional(amount)) is not None:
            found.append(f'{path}.resources.{kind}[{name_}]: fractional byte value "{shown}" is invalid, '
                         "must be an integer")
    seen: set[str] = set()
    for i, env in enumerate(c.get("env") or []):
        env = env if isinstance(env, dict) else {}
        env_name, value = env.get("name") or "", env.get("value") or ""
        if env_name in seen:
            ref = f"$({env_name})"
            if env.get("valueFrom") is not None or value == ref or ref not in value:
                found.append(f'{path}.env[{i}]: hides previous definition of "{env_name}", which may be dropped when '
                             "using apply")
        else:
            seen.add(env_name)
    return found


def _plus_v(port: Obj) -> str:
    """fmt's %+v of an internal ContainerPort."""
    return (f"{{Name:{port.get('name') or ''} HostPort:{port.get('hostPort') or 0} "
            f"ContainerPort:{port.get('containerPort') or 0} Protocol:{port.get('protocol') or ''} "
            f"HostIP:{port.get('hostIP') or ''}}}")


def _port_warnings(spec: Obj, at: str) -> list[str]:
    """The ports of all containers together: a host IP without a host port, a port number and protocol
    defined twice (the same host binding, or one with none, or the same host port with and without an IP),
    then a port name used twice."""
    found: list[str] = []
    taken: dict[str, list[tuple[str, Obj]]] = {}
    for c, path in _containers(spec, at):
        for i, port in enumerate(c.get("ports") or ()):
            port = port if isinstance(port, dict) else {}
            where = f"{path}.ports[{i}]"
            host_ip, host_port = port.get("hostIP") or "", port.get("hostPort") or 0
            if host_ip and not host_port:
                found.append(f"{where}: hostIP set without hostPort: {_plus_v(port)}")
            others = taken.setdefault(f"{port.get('containerPort') or 0}/{port.get('protocol') or ''}", [])
            for other_at, other in others:
                other_ip, other_port = other.get("hostIP") or "", other.get("hostPort") or 0
                if host_ip == other_ip and host_port == other_port:
                    found.append(f"{where}: duplicate port definition with {other_at}")
                elif not host_port or not other_port:
                    found.append(f"{where}: overlapping port definition with {other_at}")
                elif host_port == other_port and (not host_ip) != (not other_ip):
                    found.append(f"{where}: dangerously ambiguous port definition with {other_at}")
            others.append((where, port))
    named: dict[str, str] = {}
    for c, path in _containers(spec, at):
        for i, port in enumerate(c.get("ports") or ()):
            name = (port if isinstance(port, dict) else {}).get("name") or ""
            if not name:
                continue
            if name in named:
                found.append(f"{path}.ports[{i}]: duplicate port name {go_quote(name)} with {named[name]}, services and "
                             f"probes that select ports by name will use {named[name]}")
            else:
                named[name] = f"{path}.ports[{i}]"
    return found


def _null_selectors(terms: Any, path: str, weighted: bool) -> list[str]:
    found = []
    for i, term in enumerate(terms or []):
        term = term if isinstance(term, dict) else {}
        inner = (term.get("podAffinityTerm") or {}) if weighted else term
        if inner.get("labelSelector") is None:
            where = f"{path}[{i}].podAffinityTerm.labelSelector" if weighted else f"{path}[{i}].labelSelector"
            found.append(f"{where}: a null labelSelector results in matching no pod")
    return found


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _node_selector_term(term: Any, check_values: bool, at: str) -> list[str]:
    """pkg/api/node's GetWarningsForNodeSelectorTerm: deprecated node labels, and (for a preferred term)
    values that are no label values."""
    found = []
    for i, expression in enumerate(_list(_dict(term).get("matchExpressions"))):
        expression = _dict(expression)
        key = expression.get("key") or ""
        if (message := deprecated_label_message(key)) is not None:
            found.append(f"{at}.matchExpressions[{i}].key: {key} is {message}")
        if check_values:
            for j, value in enumerate(_list(expression.get("values"))):
                found += [f"{at}.matchExpressions[{i}].values[{j}]: {value} is invalid, {problem}"
                          for problem in label_value(str(value))]
    return found


def spec_warnings(spec: Any, meta: Any, prefix: str = "") -> list[str]:
    """warningsForPodSpecAndMeta; `prefix` is the template's path ("spec.template." for a controller)."""
    if not isinstance(spec, dict):
        return []
    meta = meta if isinstance(meta, dict) else {}
    annotations = meta.get("annotations") or {}
    at, meta_at = f"{prefix}spec", f"{prefix}metadata"
    found: list[str] = []
    for key in spec.get("nodeSelector") or {}:
        if (message := deprecated_label_message(key)) is not None:
            found.append(f"{at}.nodeSelector[{key}]: {message}")
    node_affinity = _dict(_dict(spec.get("affinity")).get("nodeAffinity"))
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        terms_at = f"{at}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        for i, term in enumerate(_list(required.get("nodeSelectorTerms"))):
            found += _node_selector_term(term, False, f"{terms_at}[{i}]")
    preferred_at = f"{at}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(_list(node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        found += _node_selector_term(_dict(term).get("preference"), True, f"{preferred_at}[{i}].preference")
    for i, constraint in enumerate(spec.get("topologySpreadConstraints") or []):
        constraint = constraint if isinstance(constraint, dict) else {}
        key = constraint.get("topologyKey") or ""
        if (message := deprecated_label_message(key)) is not None:
            found.append(f"{at}.topologySpreadConstraints[{i}].topologyKey: {key} is {message}")
        if constraint.get("labelSelector") is None:
            found.append(f"{at}.topologySpreadConstraints[{i}].labelSelector: a null labelSelector results in "
                         "matching no pod")
    for key, message in _DEPRECATED_ANNOTATIONS:
        if key in annotations:
            found.append(f"{meta_at}.annotations[{key}]: {message}")
    for i, volume in enumerate(spec.get("volumes") or []):
        volume = volume if isinstance(volume, dict) else {}
        for key, shown, message in _DEPRECATED_VOLUMES:
            if volume.get(key) is not None:
                found.append(f"{at}.volumes[{i}].{shown}: {message}")
            if key == "glusterfs":  # the ephemeral claim's warnings come between glusterfs and cephfs
                template = _dict(volume.get("ephemeral")).get("volumeClaimTemplate")
                if isinstance(template, dict):
                    found += object_warnings.claim_spec(
                        _dict(template.get("spec")), f"{at}.volumes[{i}].ephemeral.volumeClaimTemplate.spec")
    found += volume_paths.overlapping_paths(_list(spec.get("volumes")))
    ips: set[str] = set()
    for i, alias in enumerate(spec.get("hostAliases") or []):
        ip = (alias or {}).get("ip") or ""
        if ip in ips and len(spec["hostAliases"]) > 1:
            found.append(f'{at}.hostAliases[{i}].ip: duplicate ip "{ip}"')
        ips.add(ip)
    secrets = spec.get("imagePullSecrets") or []
    names: set[str] = set()
    for i, secret in enumerate(secrets):
        name = (secret or {}).get("name") or ""
        if name in names and len(secrets) > 1:
            found.append(f'{at}.imagePullSecrets[{i}].name: duplicate name "{name}"')
        names.add(name)
    found += [f'{at}.imagePullSecrets[{i}].name: invalid empty name ""'
              for i, secret in enumerate(secrets) if not (secret or {}).get("name")]
    overhead = spec.get("overhead") or {}
    for name in ("memory", "ephemeral-storage"):
        if name in overhead and (shown := _fractional(overhead[name])) is not None:
            found.append(f'{at}.overhead[{name}]: fractional byte value "{shown}" is invalid, must be an integer')
    if not (spec.get("securityContext") or {}).get("seccompProfile") and _SECCOMP_POD in annotations:
        found.append(f'{meta_at}.annotations[{_SECCOMP_POD}]: non-functional in v1.27+; use the "seccompProfile" '
                     "field instead")
    # A template's pod-level AppArmor profile, {} for none; None for a pod.
    pod_app_armor = ((spec.get("securityContext") or {}).get("appArmorProfile") or {}) if prefix else None
    for c, path in _containers(spec, at):
        found += _container_warnings(c, path, annotations, meta_at, pod_app_armor)
    found += _port_warnings(spec, at)
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace < 0:
        found.append(f"{at}.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be "
                     "treated as 1")
    affinity = spec.get("affinity") or {}
    for key in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(key) if isinstance(affinity, dict) else None
        if isinstance(terms, dict):
            base = f"{at}.affinity.{key}"
            found += _null_selectors(terms.get("requiredDuringSchedulingIgnoredDuringExecution"),
                                     f"{base}.requiredDuringSchedulingIgnoredDuringExecution", False)
            found += _null_selectors(terms.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                     f"{base}.preferredDuringSchedulingIgnoredDuringExecution", True)
    dns = spec.get("dnsConfig")
    for i, server in enumerate((dns.get("nameservers") if isinstance(dns, dict) else None) or ()):
        found += ip_validation.ip_warnings(str(server), f"{at}.dnsConfig.nameservers[{i}]")
    for i, alias in enumerate(spec.get("hostAliases") or []):
        found += ip_validation.ip_warnings(str((alias or {}).get("ip") or ""), f"{at}.hostAliases[{i}].ip")
    return found


def _name_warning(obj: Obj, used_in: str) -> list[str]:
    name = str((obj.get("metadata") or {}).get("name") or "")
    problems = dns1123_label(name)
    if not problems:
        return []
    return [(f"metadata.name: this is used in {used_in}, which can result in surprising behavior; a DNS label is "
             f"recommended: [{' '.join(problems)}]")]


def pod_create(obj: Obj) -> list[str]:
    """The pod strategy's WarningsOnCreate (it warns nothing on update)."""
    return _name_warning(obj, "the Pod's hostname") + spec_warnings(obj.get("spec"), obj.get("metadata"))


def _template(obj: Obj, *path: str) -> Obj:
    node: Any = obj
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def controller_create(obj: Obj) -> list[str]:
    template = _template(obj, "spec", "template")
    return (_name_warning(obj, "Pod names and hostnames")
            + spec_warnings(template.get("spec"), template.get("metadata"), "spec.template."))


def controller_update(new: Obj, old: Obj) -> list[str]:
    """Warned only when the spec (so the generation) changed; upstream then reads the OLD template."""
    if (new.get("metadata") or {}).get("generation") == (old.get("metadata") or {}).get("generation"):
        return []
    template = _template(old, "spec", "template")
    return spec_warnings(template.get("spec"), template.get("metadata"), "spec.template.")


def pod_template_create(obj: Obj) -> list[str]:
    template = _template(obj, "template")
    return spec_warnings(template.get("spec"), template.get("metadata"), "template.")


def pod_template_update(new: Obj, old: Obj) -> list[str]:
    if (new.get("metadata") or {}).get("generation") == (old.get("metadata") or {}).get("generation"):
        return []
    return pod_template_create(new)
