"""Pod spec validation: ValidatePodSpec of pkg/apis/core/validation/validation.go and the functions it
calls, in its order, for the fields ported so far (see the registry README for what is not).

Volumes, containers (name, image, ports, env, volume mounts, resources, probes), host network ports,
restart and DNS policies, node selector, security context user and group ids, DNS config, active
deadline and tolerations. Pod templates (workloads) are judged the same, without the pod-only checks.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import capabilities
from apiserver.kinds.validation import (
    dns1123_label,
    dns1123_subdomain,
    inclusive_range_error,
    label_value,
    port_name,
    qualified_name,
    relaxed_env_var_name,
)
from apiserver.registry import field
from apiserver.registry.meta import annotations, labels

Obj = dict[str, Any]

PROTOCOLS = ("SCTP", "TCP", "UDP")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_MAX_INT32 = 2**31 - 1
# validateVolumeSource's order: a second source is the one refused.
_VOLUME_SOURCES = ("emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs",
                   "iscsi", "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte",
                   "downwardAPI", "fc", "flexVolume", "configMap", "azureFile", "vsphereVolume",
                   "photonPersistentDisk", "portworxVolume", "azureDisk", "storageos", "projected", "scaleIO", "csi",
                   "ephemeral", "image")
_HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket")
_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc", "sleep")
_FIELD_PATHS = frozenset({"metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels",
                          "metadata.annotations", "spec.nodeName", "spec.serviceAccountName", "status.hostIP",
                          "status.hostIPs", "status.podIP", "status.podIPs"})
_SUBSCRIPTED = re.compile(r"metadata\.(labels|annotations)\['[^']*'\]")
_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")
_STANDARD_RESOURCES = frozenset({
    *_CONTAINER_RESOURCES, "pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
    "configmaps", "persistentvolumeclaims", "storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage"})
_QUANTITY = re.compile(r"([+-]?[0-9.]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?")
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1, "k": 10**3,
            "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}


def quantity(value: Any) -> Fraction | None:
    """A resource.Quantity's value, exactly; None when it is not one (decoding refuses those)."""
    return _quantity(str(value))


@functools.lru_cache(maxsize=1024)
def _quantity(text: str) -> Fraction | None:
    # Writes repeat a few amounts ("100m", "1Gi"): each is parsed once.
    match = _QUANTITY.fullmatch(text.strip())
    if match is None:
        return None
    number, suffix = Fraction(match.group(1)), match.group(2) or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix[:1] in ("e", "E"):
        return number * Fraction(10) ** int(suffix[1:])
    return number * _DECIMAL[suffix]


def _label(path: str, value: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in dns1123_label(value)]


# -- volumes -------------------------------------------------------------------------------------

def volumes(items: Any, path: str) -> tuple[set[str], list[FieldError]]:
    """ValidateVolumes: the names the containers may mount, and what is wrong."""
    found: list[FieldError] = []
    names: set[str] = set()
    for i, volume in enumerate(items or ()):
        at = f"{path}[{i}]"
        volume = volume if isinstance(volume, dict) else {}
        name = volume.get("name") or ""
        if not name:
            found.append(field.required(f"{at}.name"))
        else:
            found += _label(f"{at}.name", name)
        if name in names:
            found.append(field.duplicate(f"{at}.name", name))
        else:
            names.add(name)
        found += _volume_source(volume, at)
    return names, found


def _volume_source(volume: Obj, at: str) -> list[FieldError]:
    found: list[FieldError] = []
    given = 0
    for source in _VOLUME_SOURCES:
        if volume.get(source) is None:
            continue
        if given:
            found.append(field.forbidden(f"{at}.{source}", "may not specify more than 1 volume type"))
            continue
        given += 1
        found += _SOURCE_CHECKS.get(source, _no_check)(volume[source], f"{at}.{source}")
    if not given:
        found.append(field.required(at, "must specify a volume type"))
    return found


def _no_check(source: Any, path: str) -> list[FieldError]:
    return []


def _host_path(source: Any, path: str) -> list[FieldError]:
    source = source if isinstance(source, dict) else {}
    found = [] if source.get("path") else [field.required(f"{path}.path")]
    found += _no_backsteps(str(source.get("path") or ""), f"{path}.path")
    kind = source.get("type")
    if kind is not None and kind not in _HOST_PATH_TYPES:
        found.append(field.not_supported(f"{path}.type", kind, _HOST_PATH_TYPES))
    return found


def _no_backsteps(value: str, path: str) -> list[FieldError]:
    if ".." in value.split("/"):
        return [field.invalid(path, value, "must not contain '..'")]
    return []


def _named(key: str) -> Any:
    def check(source: Any, path: str) -> list[FieldError]:
        return [] if isinstance(source, dict) and source.get(key) else [field.required(f"{path}.{key}")]
    return check


_SOURCE_CHECKS = {"hostPath": _host_path, "secret": _named("secretName"), "configMap": _named("name"),
                  "persistentVolumeClaim": _named("claimName")}


# -- containers ----------------------------------------------------------------------------------

def _container_ports(ports: Any, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports or ()):
        at = f"{path}[{i}]"
        port = port if isinstance(port, dict) else {}
        name = port.get("name") or ""
        if name:
            messages = port_name(name)
            if messages:
                found += [field.invalid(f"{at}.name", name, msg) for msg in messages]
            elif name in names:
                found.append(field.duplicate(f"{at}.name", name))
            else:
                names.add(name)
        container_port = port.get("containerPort") or 0
        if not container_port:
            found.append(field.required(f"{at}.containerPort"))
        elif not 1 <= container_port <= 65535:
            found.append(field.invalid(f"{at}.containerPort", container_port, inclusive_range_error(1, 65535)))
        host_port = port.get("hostPort") or 0
        if host_port and not 1 <= host_port <= 65535:
            found.append(field.invalid(f"{at}.hostPort", host_port, inclusive_range_error(1, 65535)))
        protocol = port.get("protocol") or ""
        if not protocol:
            found.append(field.required(f"{at}.protocol"))
        elif protocol not in PROTOCOLS:
            found.append(field.not_supported(f"{at}.protocol", protocol, PROTOCOLS))
    return found


def _env(items: Any, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    for i, env in enumerate(items or ()):
        at = f"{path}[{i}]"
        env = env if isinstance(env, dict) else {}
        name = env.get("name") or ""
        if not name:
            found.append(field.required(f"{at}.name"))
        else:
            found += [field.invalid(f"{at}.name", name, msg) for msg in relaxed_env_var_name(name)]
        found += _env_value_from(env, f"{at}.valueFrom")
    return found


def _env_value_from(env: Obj, path: str) -> list[FieldError]:
    source = env.get("valueFrom")
    if not isinstance(source, dict):
        return []
    found: list[FieldError] = []
    given = 0
    field_ref = source.get("fieldRef")
    if isinstance(field_ref, dict):
        given += 1
        found += _field_selector(field_ref, f"{path}.fieldRef")
    for key in ("resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"):
        if source.get(key) is not None:
            given += 1
    if not given:
        found.append(field.invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                             "`configMapKeyRef` or `secretKeyRef`"))
    elif given > 1:
        found.append(field.invalid(path, "", "may not have more than one field specified at a time"))
    if env.get("value") and given:
        found.append(field.invalid(path, "", "may not be specified when `value` is not empty"))
    return found


def _field_selector(ref: Obj, path: str) -> list[FieldError]:
    if not ref.get("apiVersion"):
        return [field.required(f"{path}.apiVersion")]
    field_path = str(ref.get("fieldPath") or "")
    if not field_path:
        return [field.required(f"{path}.fieldPath")]
    if field_path not in _FIELD_PATHS and not _SUBSCRIPTED.fullmatch(field_path):
        return [field.invalid(f"{path}.fieldPath", field_path,
                              f"error converting fieldPath: field label not supported: {field_path}")]
    return []


def _volume_mounts(mounts: Any, names: set[str], path: str) -> list[FieldError]:
    found: list[FieldError] = []
    points: set[str] = set()
    for i, mount in enumerate(mounts or ()):
        at = f"{path}[{i}]"
        mount = mount if isinstance(mount, dict) else {}
        name, mount_path = mount.get("name") or "", mount.get("mountPath") or ""
        if not name:
            found.append(field.required(f"{at}.name"))
        if name not in names:
            found.append(field.not_found(f"{at}.name", name))
        if not mount_path:
            found.append(field.required(f"{at}.mountPath"))
        if mount_path in points:
            found.append(field.invalid(f"{at}.mountPath", mount_path, "must be unique"))
        points.add(mount_path)
    return found


def _resource_name(name: str, path: str) -> list[FieldError]:
    found = [field.invalid(path, name, msg) for msg in qualified_name(name)]
    if found:
        return found
    if "/" not in name:
        if name not in _STANDARD_RESOURCES and not name.startswith("hugepages-"):
            found.append(field.invalid(path, name, "must be a standard resource type or fully qualified"))
        if name not in _CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            found.append(field.invalid(path, name, "must be a standard resource for containers"))
    return found


def _overcommit_allowed(name: str) -> bool:
    # Native resources (no domain, or kubernetes.io's) and huge pages may be requested below their limit.
    return ("/" not in name or name.split("/")[0].endswith("kubernetes.io")) and not name.startswith("hugepages-")


def _resources(resources: Any, path: str) -> list[FieldError]:
    resources = resources if isinstance(resources, dict) else {}
    limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
    found: list[FieldError] = []
    for name, amount in limits.items():
        at = f"{path}.limits[{name}]"
        found += _resource_name(name, at)
        value = quantity(amount)
        if value is not None and value < 0:
            found.append(field.invalid(at, str(amount), "must be greater than or equal to 0"))
    for name, amount in requests.items():
        at = f"{path}.requests[{name}]"
        found += _resource_name(name, at)
        value = quantity(amount)
        if value is not None and value < 0:
            found.append(field.invalid(at, str(amount), "must be greater than or equal to 0"))
        if name in limits:
            limit = quantity(limits[name])
            if value is None or limit is None:
                continue
            if value != limit and not _overcommit_allowed(name):
                found.append(field.invalid(f"{path}.requests", str(amount),
                                           f"must be equal to {name} limit of {limits[name]}"))
            elif value > limit:
                found.append(field.invalid(f"{path}.requests", str(amount),
                                           f"must be less than or equal to {name} limit of {limits[name]}"))
        elif not _overcommit_allowed(name):
            found.append(field.required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
    return found


def _security_context_ids(context: Any, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    for key in ("runAsUser", "runAsGroup", "fsGroup"):
        value = context.get(key) if isinstance(context, dict) else None
        if isinstance(value, int) and not 0 <= value <= _MAX_INT32:
            found.append(field.invalid(f"{path}.{key}", value, inclusive_range_error(0, _MAX_INT32)))
    return found


def _container_common(c: Obj, names: set[str], path: str) -> list[FieldError]:
    found: list[FieldError] = []
    name = c.get("name") or ""
    found += [field.required(f"{path}.name")] if not name else _label(f"{path}.name", name)
    if not c.get("image"):
        found.append(field.required(f"{path}.image"))
    policy = c.get("terminationMessagePolicy") or ""
    if not policy:
        found.append(field.required(f"{path}.terminationMessagePolicy"))
    elif policy not in ("File", "FallbackToLogsOnError"):
        found.append(field.not_supported(f"{path}.terminationMessagePolicy", policy, ("File", "FallbackToLogsOnError")))
    found += _container_ports(c.get("ports"), f"{path}.ports")
    found += _env(c.get("env"), f"{path}.env")
    found += _volume_mounts(c.get("volumeMounts"), names, f"{path}.volumeMounts")
    pull = c.get("imagePullPolicy") or ""
    if not pull:
        found.append(field.required(f"{path}.imagePullPolicy"))
    elif pull not in _PULL_POLICIES:
        found.append(field.not_supported(f"{path}.imagePullPolicy", pull, _PULL_POLICIES))
    found += _resources(c.get("resources"), f"{path}.resources")
    return found + _security_context(c.get("securityContext"), f"{path}.securityContext")


def _security_context(context: Any, path: str) -> list[FieldError]:
    """ValidateSecurityContext: a privileged container only where --allow-privileged lets one run."""
    found: list[FieldError] = []
    if isinstance(context, dict) and context.get("privileged") is True and not capabilities.allow_privileged():
        found.append(field.forbidden(f"{path}.privileged", "disallowed by cluster policy"))
    return found + _security_context_ids(context, path)


def _host_process(spec: Obj, path: str) -> list[FieldError]:
    """validateWindowsHostProcessPod, as far as --allow-privileged=false refuses any hostProcess container."""
    if capabilities.allow_privileged():
        return []
    pod_level = ((spec.get("securityContext") or {}).get("windowsOptions") or {}).get("hostProcess")
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            own = (((c or {}).get("securityContext") or {}).get("windowsOptions") or {}).get("hostProcess")
            if own is True or (own is None and pod_level is True):
                return [field.forbidden(path, "hostProcess containers are disallowed by cluster policy")]
    return []


def _probe(probe: Any, path: str, liveness_like: bool) -> list[FieldError]:
    if not isinstance(probe, dict):
        return []
    found: list[FieldError] = []
    given = 0
    for handler in _HANDLERS:
        if probe.get(handler) is None:
            continue
        if given:
            found.append(field.forbidden(f"{path}.{handler}", "may not specify more than 1 handler type"))
            continue
        given += 1
        found += _handler(handler, probe[handler], f"{path}.{handler}")
    if not given:
        found.append(field.required(path, "must specify a handler type"))
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        found += field.nonnegative(f"{path}.{key}", probe.get(key))
    grace = probe.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace <= 0:
        found.append(field.invalid(f"{path}.terminationGracePeriodSeconds", grace, "must be greater than 0"))
    if liveness_like and probe.get("successThreshold", 1) != 1:
        found.append(field.invalid(f"{path}.successThreshold", probe.get("successThreshold"), "must be 1"))
    return found


def _handler(kind: str, action: Any, path: str) -> list[FieldError]:
    action = action if isinstance(action, dict) else {}
    if kind == "exec":
        return [] if action.get("command") else [field.required(f"{path}.command")]
    if kind in ("httpGet", "tcpSocket"):
        return _port_num_or_name(action.get("port"), f"{path}.port")
    return []


def _port_num_or_name(port: Any, path: str) -> list[FieldError]:
    if isinstance(port, int):
        return [] if 1 <= port <= 65535 else [field.invalid(path, port, inclusive_range_error(1, 65535))]
    if isinstance(port, str) and port:
        return [field.invalid(path, port, msg) for msg in port_name(port)]
    return [field.required(path)]


def _containers(items: Any, names: set[str], path: str) -> list[FieldError]:
    if not items:
        return [field.required(path)]
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, c in enumerate(items):
        at = f"{path}[{i}]"
        c = c if isinstance(c, dict) else {}
        found += _container_common(c, names, at)
        name = c.get("name") or ""
        if name in seen:
            found.append(field.duplicate(f"{at}.name", name))
        seen.add(name)
        found += _probe(c.get("livenessProbe"), f"{at}.livenessProbe", True)
        found += _probe(c.get("readinessProbe"), f"{at}.readinessProbe", False)
        found += _probe(c.get("startupProbe"), f"{at}.startupProbe", True)
    return found


def _init_containers(items: Any, containers: Any, names: set[str], path: str) -> list[FieldError]:
    found: list[FieldError] = []
    others = {c.get("name") for c in containers or () if isinstance(c, dict)}
    seen: set[str] = set()
    for i, c in enumerate(items or ()):
        at = f"{path}[{i}]"
        c = c if isinstance(c, dict) else {}
        found += _container_common(c, names, at)
        name = c.get("name") or ""
        if name in seen or name in others:
            found.append(field.duplicate(f"{at}.name", name))
        seen.add(name)
    return found


def _host_network_ports(spec: Obj, path: str, is_pod: bool) -> list[FieldError]:
    if not spec.get("hostNetwork"):
        return []
    found: list[FieldError] = []
    for i, c in enumerate(spec.get("containers") or ()):
        for j, port in enumerate((c or {}).get("ports") or ()):
            host, container = port.get("hostPort") or 0, port.get("containerPort") or 0
            if (is_pod or host) and host != container:
                found.append(field.invalid(f"{path}.containers[{i}].ports[{j}].hostPort", host,
                                           "must match `containerPort` when `hostNetwork` is true"))
    return found


def _choice(value: Any, path: str, choices: tuple[str, ...]) -> list[FieldError]:
    if not value:
        return [field.required(path)]
    return [] if value in choices else [field.not_supported(path, value, choices)]


def tolerations(items: Any, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    for i, toleration in enumerate(items or ()):
        at = f"{path}[{i}]"
        toleration = toleration if isinstance(toleration, dict) else {}
        key, operator = toleration.get("key") or "", toleration.get("operator") or ""
        value = toleration.get("value") or ""
        if key:
            found += [field.invalid(f"{at}.key", key, msg) for msg in qualified_name(key)]
        if not key and operator != "Exists":
            found.append(field.invalid(f"{at}.operator", operator, 'operator must be Exists when `key` is empty, '
                                       'which means "match all values and all keys"'))
        if toleration.get("tolerationSeconds") is not None and toleration.get("effect") != "NoExecute":
            found.append(field.invalid(f"{at}.effect", toleration.get("effect") or "",
                                       "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            messages = label_value(value)
            if messages:
                found.append(field.invalid(f"{at}.operator", value, ";".join(messages)))
        elif operator == "Exists":
            if value:
                found.append(field.invalid(f"{at}.operator", value, "value must be empty when `operator` is 'Exists'"))
        else:
            found.append(field.not_supported(f"{at}.operator", operator, ("Equal", "Exists", "Lt", "Gt")))
        effect = toleration.get("effect") or ""
        if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            found.append(field.not_supported(f"{at}.effect", effect, ("NoSchedule", "PreferNoSchedule", "NoExecute")))
    return found


def pod_spec(spec: Any, path: str, is_pod: bool = False) -> list[FieldError]:
    """ValidatePodSpec (and, for a Pod, its pod-only container checks)."""
    if not isinstance(spec, dict):
        return [field.required(path)]
    found: list[FieldError] = []
    if spec.get("terminationGracePeriodSeconds") is None:
        found.append(field.required(f"{path}.terminationGracePeriodSeconds"))
    names, problems = volumes(spec.get("volumes"), f"{path}.volumes")
    found += problems
    found += _containers(spec.get("containers"), names, f"{path}.containers")
    found += _init_containers(spec.get("initContainers"), spec.get("containers"), names, f"{path}.initContainers")
    found += _host_network_ports(spec, path, is_pod)
    found += _choice(spec.get("restartPolicy"), f"{path}.restartPolicy", _RESTART_POLICIES)
    found += _choice(spec.get("dnsPolicy"), f"{path}.dnsPolicy", _DNS_POLICIES)
    found += labels(spec.get("nodeSelector"), f"{path}.nodeSelector")
    found += _security_context_ids(spec.get("securityContext"), f"{path}.securityContext")
    if spec.get("dnsPolicy") == "None" and not isinstance(spec.get("dnsConfig"), dict):
        found.append(field.required(f"{path}.dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None"))
    found += _host_process(spec, path)
    if spec.get("serviceAccountName"):
        found += [field.invalid(f"{path}.serviceAccountName", spec["serviceAccountName"], msg)
                  for msg in dns1123_subdomain(spec["serviceAccountName"])]
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= _MAX_INT32:
        found.append(field.invalid(f"{path}.activeDeadlineSeconds", deadline, inclusive_range_error(1, _MAX_INT32)))
    for key in ("hostname", "subdomain"):
        if spec.get(key):
            found += _label(f"{path}.{key}", spec[key])
    found += tolerations(spec.get("tolerations"), f"{path}.tolerations")
    if is_pod:
        for key in ("containers", "initContainers"):
            for i, c in enumerate(spec.get(key) or ()):
                image = str((c or {}).get("image") or "")
                if image != image.strip():
                    found.append(field.invalid(f"{path}.{key}[{i}].image", image,
                                               "must not have leading or trailing whitespace"))
    return found


def pod(obj: Obj) -> list[FieldError]:
    return pod_spec(obj.get("spec"), "spec", is_pod=True)


def pod_template_spec(template: Obj, path: str) -> list[FieldError]:
    """ValidatePodTemplateSpec (its labels' path is upstream's: `template.labels`)."""
    meta = template.get("metadata") or {}
    found = labels(meta.get("labels"), f"{path}.labels")
    found += annotations(meta.get("annotations"), f"{path}.annotations")
    return found + pod_spec(template.get("spec"), f"{path}.spec")


def pod_template(obj: Obj) -> list[FieldError]:
    """ValidatePodTemplate: a PodTemplate's template."""
    template = obj.get("template")
    return pod_template_spec(template if isinstance(template, dict) else {}, "template")
