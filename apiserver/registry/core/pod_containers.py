"""Container validation: validateContainers, validateInitContainers, validateEphemeralContainers and
validateContainerCommon of pkg/apis/core/validation/validation.go, with what they call (ports, env,
volume mounts, resources, security context, probes and handlers), for the fields ported so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import (
    dns1123_label,
    dns1123_subdomain,
    inclusive_range_error,
    port_name,
    relaxed_env_var_name,
)
from apiserver.registry import field
from apiserver.registry.core import container_handlers as handlers
from apiserver.registry.core import downward_api
from apiserver.registry.core.resource_requirements import container_resource_requirements
from apiserver.registry.core.security_contexts import container_security_context
from apiserver.registry.core.volume_files import local_descending_path

Obj = dict[str, Any]

PROTOCOLS = ("SCTP", "TCP", "UDP")
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
MAX_INT32 = 2**31 - 1
_RESIZE_RESOURCES = ("cpu", "memory")
_RESIZE_POLICIES = ("NotRequired", "RestartContainer")


@dataclass(frozen=True)
class PodContext:
    """What ValidatePodSpec hands each container's validation: the pod's volumes and claim names, grace
    period, OS, user namespace and restart policy."""

    volumes: dict[str, Obj]
    claim_names: set[str]
    grace: int | None
    os_name: str | None
    host_users: bool
    restart_policy: str


def dns_label(path: str, value: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in dns1123_label(value)]


# -- volumes -------------------------------------------------------------------------------------


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
        found += field.required_choice(port.get("protocol"), f"{at}.protocol", PROTOCOLS)
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


def _env_from(items: Any, path: str) -> list[FieldError]:
    """ValidateEnvFrom (relaxed prefixes, RelaxedEnvironmentVariableValidation being GA)."""
    found: list[FieldError] = []
    for i, source in enumerate(items or ()):
        at = f"{path}[{i}]"
        source = source if isinstance(source, dict) else {}
        prefix = str(source.get("prefix") or "")
        if prefix:
            found += [field.invalid(f"{at}.prefix", prefix, msg) for msg in relaxed_env_var_name(prefix)]
        given = 0
        for key in ("configMapRef", "secretRef"):
            if source.get(key) is not None:
                given += 1
                found += _env_source_name(source[key], f"{at}.{key}")
        if not given:
            found.append(field.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif given > 1:
            found.append(field.invalid(path, "", "may not have more than one field specified at a time"))
    return found


def _env_source_name(ref: Any, path: str) -> list[FieldError]:
    """validateConfigMapEnvSource and validateSecretEnvSource: names as a prefix (a trailing dash is taken)."""
    name = str((ref if isinstance(ref, dict) else {}).get("name") or "")
    if not name:
        return [field.required(f"{path}.name")]
    masked = name[:-1] + "a" if name.endswith("-") else name
    return [field.invalid(f"{path}.name", name, msg) for msg in dns1123_subdomain(masked)]


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _env_value_from(env: Obj, path: str) -> list[FieldError]:
    source = env.get("valueFrom")
    if not isinstance(source, dict):
        return []
    found: list[FieldError] = []
    given = 0
    field_ref, resource_ref = source.get("fieldRef"), source.get("resourceFieldRef")
    if field_ref is not None:
        given += 1
        found += downward_api.object_field_selector(_dict(field_ref), downward_api.ENV_FIELD_PATHS,
                                                    f"{path}.fieldRef")
    if resource_ref is not None:
        given += 1
        found += downward_api.resource_field_selector(_dict(resource_ref), f"{path}.resourceFieldRef", volume=False)
    for key in ("configMapKeyRef", "secretKeyRef", "fileKeyRef"):
        if source.get(key) is not None:
            given += 1
    if not given:
        # (AllowEnvFilesValidation: the EnvFiles gate is on by default at 1.36, so every pod spec's options allow it)
        found.append(field.invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                             "`configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
    elif given > 1:
        found.append(field.invalid(path, "", "may not have more than one field specified at a time"))
    if env.get("value") and given:
        found.append(field.invalid(path, "", "may not be specified when `value` is not empty"))
    return found


_MOUNT_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
_RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")


def _volume_mounts(c: Obj, volumes: dict[str, Obj], path: str) -> list[FieldError]:
    """ValidateVolumeMounts: each mount of a pod volume, at its own path, apart from the block devices.
    The subpath, propagation and recursive read-only errors are upstream's, at the list's path."""
    devices = {(d or {}).get("name") or "": (d or {}).get("devicePath") or "" for d in c.get("volumeDevices") or ()
               if isinstance(d, dict)}
    found: list[FieldError] = []
    points: set[str] = set()
    for i, mount in enumerate(c.get("volumeMounts") or ()):
        at = f"{path}[{i}]"
        mount = mount if isinstance(mount, dict) else {}
        name, mount_path = mount.get("name") or "", mount.get("mountPath") or ""
        if not name:
            found.append(field.required(f"{at}.name"))
        if name not in volumes:
            found.append(field.not_found(f"{at}.name", name))
        if not mount_path:
            found.append(field.required(f"{at}.mountPath"))
        if mount_path in points:
            found.append(field.invalid(f"{at}.mountPath", mount_path, "must be unique"))
        points.add(mount_path)
        if name in devices:
            found.append(field.invalid(f"{at}.name", name, "must not already exist in volumeDevices"))
        if mount_path in devices.values():
            found.append(field.invalid(f"{at}.mountPath", mount_path, "must not already exist as a path in volumeDevices"))
        sub_path, sub_path_expr = mount.get("subPath") or "", mount.get("subPathExpr") or ""
        if sub_path:
            found += local_descending_path(sub_path, f"{path}.subPath")
        if sub_path_expr:
            if sub_path:
                found.append(field.invalid(f"{at}.subPathExpr", sub_path_expr,
                                           "subPathExpr and subPath are mutually exclusive"))
            found += local_descending_path(sub_path_expr, f"{path}.subPathExpr")
        if mount.get("mountPropagation") is not None:
            found += _mount_propagation(mount["mountPropagation"], c, f"{path}.mountPropagation")
        found += _recursive_read_only(mount, f"{path}.recursiveReadOnly")
    return found


def _mount_propagation(mode: str, c: Obj, path: str) -> list[FieldError]:
    """validateMountPropagation: a known mode, Bidirectional only in a privileged container."""
    found = [] if mode in _MOUNT_PROPAGATIONS else [field.not_supported(path, mode, _MOUNT_PROPAGATIONS)]
    privileged = ((c.get("securityContext") or {}).get("privileged")) is True
    if mode == "Bidirectional" and not privileged:
        found.append(field.forbidden(path, "Bidirectional mount propagation is available only to privileged containers"))
    return found


def _recursive_read_only(mount: Obj, path: str) -> list[FieldError]:
    """validateMountRecursiveReadOnly: Enabled and IfPossible only on a read-only mount that propagates nothing."""
    mode = mount.get("recursiveReadOnly")
    if mode is None or mode == "Disabled":
        return []
    if mode not in _RECURSIVE_READ_ONLY:
        return [field.not_supported(path, mode, _RECURSIVE_READ_ONLY)]
    found = [] if mount.get("readOnly") is True else [field.forbidden(path, "may only be specified when readOnly is true")]
    if mount.get("mountPropagation") not in (None, "None"):
        found.append(field.forbidden(path, "may only be specified when mountPropagation is None or not specified"))
    return found


def _volume_devices(c: Obj, volumes: dict[str, Obj], path: str) -> list[FieldError]:
    """ValidateVolumeDevices: block devices of claims, each named and placed once, apart from the mounts."""
    mounts = {(m or {}).get("name") or "": (m or {}).get("mountPath") or "" for m in c.get("volumeMounts") or []
              if isinstance(m, dict)}
    found: list[FieldError] = []
    names: set[str] = set()
    paths: set[str] = set()
    for i, device in enumerate(c.get("volumeDevices") or []):
        device = device if isinstance(device, dict) else {}
        at = f"{path}[{i}]"
        name, device_path = device.get("name") or "", device.get("devicePath") or ""
        volume = volumes.get(name)
        if not name:
            found.append(field.required(f"{at}.name"))
        if name in names:
            found.append(field.invalid(f"{at}.name", name, "must be unique"))
        if volume is not None and volume.get("persistentVolumeClaim") is None and volume.get("ephemeral") is None:
            found.append(field.invalid(f"{at}.name", name, "can only use volume source type of PersistentVolumeClaim "
                                                           "or Ephemeral for block mode"))
        if volume is None:
            found.append(field.not_found(f"{at}.name", name))
        if not device_path:
            found.append(field.required(f"{at}.devicePath"))
        if device_path in paths:
            found.append(field.invalid(f"{at}.devicePath", device_path, "must be unique"))
        if device_path and ".." in device_path.split("/"):
            found.append(field.invalid(f"{at}.devicePath", device_path, "can not contain backsteps ('..')"))
        else:
            paths.add(device_path)
        if name in mounts:
            found.append(field.invalid(f"{at}.name", name, "must not already exist in volumeMounts"))
        if device_path in mounts.values():
            found.append(field.invalid(f"{at}.devicePath", device_path, "must not already exist as a path in volumeMounts"))
        if name:
            names.add(name)
    return found


def _resize_policy(policies: Any, restart_policy: str, path: str) -> list[FieldError]:
    """validateResizePolicy: cpu and memory, once each, with a known policy (NotRequired only in a pod that
    never restarts)."""
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, policy in enumerate(policies or ()):
        policy = policy if isinstance(policy, dict) else {}
        resource, restart = str(policy.get("resourceName") or ""), str(policy.get("restartPolicy") or "")
        if resource in seen:
            found.append(field.duplicate(f"{path}[{i}]", resource))
        seen.add(resource)
        found += field.required_choice(resource, path, _RESIZE_RESOURCES)
        found += field.required_choice(restart, path, _RESIZE_POLICIES)
        if restart_policy == "Never" and restart != "NotRequired":
            found.append(field.invalid(path, restart, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
    return found


def _container_common(c: Obj, pod: PodContext, path: str) -> list[FieldError]:
    """validateContainerCommon."""
    found: list[FieldError] = []
    name = c.get("name") or ""
    found += [field.required(f"{path}.name")] if not name else dns_label(f"{path}.name", name)
    if not c.get("image"):
        found.append(field.required(f"{path}.image"))
    found += field.required_choice(c.get("terminationMessagePolicy"), f"{path}.terminationMessagePolicy",
                                   ("File", "FallbackToLogsOnError"))
    found += _container_ports(c.get("ports"), f"{path}.ports")
    found += _env(c.get("env"), f"{path}.env")
    found += _env_from(c.get("envFrom"), f"{path}.envFrom")
    found += _volume_mounts(c, pod.volumes, f"{path}.volumeMounts")
    found += _volume_devices(c, pod.volumes, f"{path}.volumeDevices")
    found += field.required_choice(c.get("imagePullPolicy"), f"{path}.imagePullPolicy", _PULL_POLICIES)
    found += container_resource_requirements(c.get("resources"), pod.claim_names, f"{path}.resources")
    found += _resize_policy(c.get("resizePolicy"), pod.restart_policy, f"{path}.resizePolicy")
    return found + container_security_context(c.get("securityContext"), f"{path}.securityContext", pod.host_users)


def host_port_conflicts(items: Any, path: str) -> list[FieldError]:
    """checkHostPortConflicts: a host port is taken once per protocol and host IP."""
    found: list[FieldError] = []
    taken: set[str] = set()
    for i, c in enumerate(items or ()):
        for j, port in enumerate((c if isinstance(c, dict) else {}).get("ports") or ()):
            port = port if isinstance(port, dict) else {}
            if not port.get("hostPort"):
                continue
            key = f"{port.get('protocol') or ''}/{port.get('hostIP') or ''}/{port['hostPort']}"
            if key in taken:
                found.append(field.duplicate(f"{path}[{i}].ports[{j}].hostPort", key))
            taken.add(key)
    return found


_RESTART_POLICIES = ("Always", "Never", "OnFailure")
_RULE_ACTIONS = ("Restart", "RestartAllContainers")
_RULE_OPERATORS = ("In", "NotIn")
# EphemeralContainerCommon's fields an ephemeral container may not set (allowedEphemeralContainerFields).
_NOT_FOR_EPHEMERAL = ("ports", "resources", "resizePolicy", "restartPolicy", "restartPolicyRules", "livenessProbe",
                      "readinessProbe", "startupProbe", "lifecycle")
_NOT_INIT = "may not be set for init containers without restartPolicy=Always"


def _restart_rules(c: Obj, path: str) -> list[FieldError]:
    """validateContainerRestartPolicy (ContainerRestartRules and RestartAllContainersOnContainerExits on)."""
    policy, rules = c.get("restartPolicy"), c.get("restartPolicyRules") or []
    found: list[FieldError] = []
    if policy is None:
        if not rules:
            return []
        found.append(field.required(f"{path}.restartPolicy", "must specify restartPolicy when restart rules are used"))
    elif policy not in _RESTART_POLICIES:
        found.append(field.not_supported(f"{path}.restartPolicy", policy, _RESTART_POLICIES))
    if len(rules) > 20:
        found.append(field.too_many(f"{path}.restartPolicyRules", len(rules), 20))
    for i, rule in enumerate(rules):
        rule = rule if isinstance(rule, dict) else {}
        at = f"{path}.restartPolicyRules[{i}]"
        if (rule.get("action") or "") not in _RULE_ACTIONS:
            found.append(field.not_supported(f"{at}.action", rule.get("action") or "", _RULE_ACTIONS))
        codes = rule.get("exitCodes")
        if codes is None:
            found.append(field.required(f"{at}.exitCodes", "must be specified"))
            continue
        if (codes.get("operator") or "") not in _RULE_OPERATORS:
            found.append(field.not_supported(f"{at}.exitCodes.operator", codes.get("operator") or "", _RULE_OPERATORS))
        if len(codes.get("values") or []) > 255:
            found.append(field.too_many(f"{at}.exitCodes.values", len(codes["values"]), 255))
    return found


def _sidecar_rules(c: Obj, grace: int | None, os_name: str | None, path: str) -> list[FieldError]:
    """What regular and restartable init containers may set: hooks and probes, judged."""
    found: list[FieldError] = []
    if c.get("lifecycle") is not None:
        found += handlers.lifecycle(c["lifecycle"] or {}, grace, os_name, f"{path}.lifecycle")
    found += handlers.liveness_probe(c.get("livenessProbe"), grace, f"{path}.livenessProbe")
    found += handlers.readiness_probe(c.get("readinessProbe"), grace, f"{path}.readinessProbe")
    return found + handlers.liveness_probe(c.get("startupProbe"), grace, f"{path}.startupProbe")


def containers(items: Any, pod: PodContext, path: str) -> list[FieldError]:
    """validateContainers."""
    if not items:
        return [field.required(path)]
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, c in enumerate(items):
        at = f"{path}[{i}]"
        c = c if isinstance(c, dict) else {}
        found += _container_common(c, pod, at)
        name = c.get("name") or ""
        if name in seen:
            found.append(field.duplicate(f"{at}.name", name))
        seen.add(name)
        found += _sidecar_rules(c, pod.grace, pod.os_name, at) + _restart_rules(c, at)
    return found + host_port_conflicts(items, path)


def init_containers(items: Any, regular: Any, pod: PodContext, path: str) -> list[FieldError]:
    """validateInitContainers: probes and hooks only for restartable (sidecar) init containers, host ports
    judged one container at a time (they run one by one)."""
    found: list[FieldError] = []
    seen = {c.get("name") for c in regular or () if isinstance(c, dict)}
    for i, c in enumerate(items or ()):
        at = f"{path}[{i}]"
        c = c if isinstance(c, dict) else {}
        found += _container_common(c, pod, at)
        policy = c.get("restartPolicy")
        if policy is None:
            if c.get("restartPolicyRules"):
                found.append(field.required(f"{at}.restartPolicy", "must specify restartPolicy when restart rules are used"))
        else:
            found += _restart_rules(c, at)
        name = c.get("name") or ""
        if name in seen:
            found.append(field.duplicate(f"{at}.name", name))
        elif name:
            seen.add(name)
        found += host_port_conflicts([c], path)
        if policy == "Always":
            found += _sidecar_rules(c, pod.grace, pod.os_name, at)
        else:
            found += [field.forbidden(f"{at}.{key}", _NOT_INIT)
                      for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe") if c.get(key) is not None]
            found += [field.invalid(f"{at}.resizePolicy[{j}].restartPolicy", "RestartContainer",
                                    "must not be set to 'RestartContainer' for non-sidecar initContainers")
                      for j, p in enumerate(c.get("resizePolicy") or []) if (p or {}).get("restartPolicy") == "RestartContainer"]
    return found


def set_for_ephemeral(container: Obj, key: str) -> bool:
    """validateFieldAllowList: a field is set when it is not reflect.DeepEqual to its zero value. Of the
    fields an ephemeral container may not set, the pointers and slices are set when not nil
    (`lifecycle: {}`, `ports: []`), and resources (a struct) when any of its maps or slices is."""
    value = container.get(key)
    if key == "resources" and isinstance(value, dict):
        return any(v is not None for v in value.values())
    return value is not None


def ephemeral_containers(spec: Obj, pod: PodContext, path: str) -> list[FieldError]:
    """validateEphemeralContainers: each also judged as a pod's container, named uniquely among all, targeting
    a regular or init container, and setting only what an ephemeral container may."""
    found: list[FieldError] = []
    others = {c.get("name") for key in ("containers", "initContainers") for c in spec.get(key) or ()
              if isinstance(c, dict)}
    seen = set(others)
    for i, c in enumerate(spec.get("ephemeralContainers") or ()):
        at = f"{path}[{i}]"
        c = c if isinstance(c, dict) else {}
        found += _container_common(c, pod, at) + image_whitespace(c, at)
        name = c.get("name") or ""
        if name in seen:
            found.append(field.duplicate(f"{at}.name", name))
        else:
            seen.add(name)
        target = c.get("targetContainerName") or ""
        if target and target not in others:
            found.append(field.not_found(f"{at}.targetContainerName", target))
        found += [field.forbidden(f"{at}.{key}", "cannot be set for an Ephemeral Container")
                  for key in _NOT_FOR_EPHEMERAL if set_for_ephemeral(c, key)]
        for j, mount in enumerate(c.get("volumeMounts") or ()):
            for key in ("subPath", "subPathExpr"):
                if (mount or {}).get(key):
                    found.append(field.forbidden(f"{at}.volumeMounts[{j}].{key}",
                                                 "cannot be set for an Ephemeral Container"))
    return found


def image_whitespace(c: Obj, path: str) -> list[FieldError]:
    """validateContainerOnlyForPod."""
    image = str(c.get("image") or "")
    if image != image.strip():
        return [field.invalid(f"{path}.image", image, "must not have leading or trailing whitespace")]
    return []
