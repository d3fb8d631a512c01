"""The rules of ValidatePodSpec (pkg/apis/core/validation/validation.go) about the pod as a whole rather
than one container, volume or security context: resource claims, host network ports, DNS config, image
pull secrets, readiness and scheduling gates, Windows host process pods, user namespaces, the hostname
override, host aliases, preemption policy, OS-specific fields and the volumes of file key references.
Each function is the upstream one of the same name, with all its branches, at 1.36's feature gates.

validateSchedulingGroup is not here: with GenericWorkload off, every strategy drops the scheduling group
before validation (`pod_fields.py`), so no spec reaches it with one.
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import capabilities
from apiserver.kinds.validation import (
    dns1123_label,
    dns1123_subdomain,
    label_value,
    max_len_error,
    qualified_name,
    regex_error,
)
from apiserver.registry import field
from apiserver.registry.core.ip_validation import legacy_ip

Obj = dict[str, Any]

_MIRROR_POD = "kubernetes.io/config.mirror"
_MAX_NAMESERVERS, _MAX_SEARCHES, _MAX_SEARCH_CHARS = 3, 32, 2048
_UNDERSCORE_LABEL = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_UNDERSCORE_SUBDOMAIN_FMT = _UNDERSCORE_LABEL + "(\\." + _UNDERSCORE_LABEL + ")*"
_UNDERSCORE_SUBDOMAIN = re.compile(_UNDERSCORE_SUBDOMAIN_FMT)
_UNDERSCORE_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                             "'_', '-' or '.', and must start and end with an alphanumeric character")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_WINDOWS_CONTAINER_FIELDS = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                             "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount",
                             "runAsUser", "runAsGroup")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def visit_containers(spec: Obj, path: str) -> list[tuple[Obj, str]]:
    """podshelper.VisitContainersWithPath: init, regular, then ephemeral containers, with their paths."""
    return [(_dict(c), f"{path}.{key}[{i}]") for key in ("initContainers", "containers", "ephemeralContainers")
            for i, c in enumerate(spec.get(key) or ())]


def _subdomain_errors(value: str, path: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in dns1123_subdomain(value)]


# -- resource claims -----------------------------------------------------------------------------


def claim_names(claims: Any) -> set[str]:
    """gatherPodResourceClaimNames."""
    return {str(_dict(c).get("name")) for c in claims or () if _dict(c).get("name")}


def _claim_shown(claim: Obj) -> str:
    # The internal PodResourceClaim has no json tags.
    return field.go_json({"Name": str(claim.get("name") or ""), "ResourceClaimName": claim.get("resourceClaimName"),
                          "ResourceClaimTemplateName": claim.get("resourceClaimTemplateName")})


def pod_resource_claims(meta: Obj | None, claims: Any, path: str) -> list[FieldError]:
    """validatePodResourceClaims: static pods have none; each claim named once and referring to one claim
    or one template."""
    found: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims or ()):
        at = f"{path}[{i}]"
        if meta is not None and _MIRROR_POD in _dict(meta.get("annotations")):
            # field.NewPath("") prints as "[]".
            found.append(field.forbidden("[]", "static pods do not support resource claims"))
            continue
        claim = _dict(claim)
        name = str(claim.get("name") or "")
        if not name:
            found.append(field.required(f"{at}.name"))
        elif name in names:
            found.append(field.duplicate(f"{at}.name", name))
        else:
            found += [field.invalid(f"{at}.name", name, msg) for msg in dns1123_label(name)]
            names.add(name)
        by_name, by_template = claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName")
        if by_name is not None and by_template is not None:
            found.append(field.invalid_shown(at, _claim_shown(claim), "at most one of `resourceClaimName` or "
                                                                      "`resourceClaimTemplateName` may be specified"))
        if by_name is None and by_template is None:
            found.append(field.invalid_shown(at, _claim_shown(claim), "must specify one of: `resourceClaimName`, "
                                                                      "`resourceClaimTemplateName`"))
        if by_name is not None:
            found += _subdomain_errors(str(by_name), f"{at}.resourceClaimName")
        if by_template is not None:
            found += _subdomain_errors(str(by_template), f"{at}.resourceClaimTemplateName")
    return found


# -- networking and DNS --------------------------------------------------------------------------


def host_network_deps(spec: Obj, path: str, is_pod: bool) -> list[FieldError]:
    """validatePodHostNetworkDeps: with the host's network a host port is the container port (in a template
    it may also be left out, to be defaulted on the pod)."""
    if not spec.get("hostNetwork"):
        return []
    found: list[FieldError] = []
    for i, c in enumerate(spec.get("containers") or ()):
        for j, port in enumerate(_dict(c).get("ports") or ()):
            port = _dict(port)
            host, container = port.get("hostPort") or 0, port.get("containerPort") or 0
            if (is_pod or host) and host != container:
                found.append(field.invalid(f"{path}.containers[{i}].ports[{j}].hostPort", host,
                                           "must match `containerPort` when `hostNetwork` is true"))
    return found


def _search_errors(search: str, path: str) -> list[FieldError]:
    # RelaxedDNSSearchValidation is GA: "." and underscores are taken.
    if search == ".":
        return []
    search = search.removesuffix(".")
    found = [max_len_error(253)] if len(search) > 253 else []
    if not _UNDERSCORE_SUBDOMAIN.fullmatch(search):
        found.append(regex_error(_UNDERSCORE_SUBDOMAIN_MSG, _UNDERSCORE_SUBDOMAIN_FMT, "example.com"))
    return [field.invalid(path, search, msg) for msg in found]


def dns_config(config: Any, policy: Any, path: str) -> list[FieldError]:
    """validatePodDNSConfig."""
    if policy == "None":
        if not isinstance(config, dict):
            return [field.required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not config.get("nameservers"):
            return [field.required(f"{path}.nameservers",
                                   "must provide at least one DNS nameserver when `dnsPolicy` is None")]
    if not isinstance(config, dict):
        return []
    found: list[FieldError] = []
    nameservers = [str(n) for n in config.get("nameservers") or ()]
    if len(nameservers) > _MAX_NAMESERVERS:
        found.append(field.invalid(f"{path}.nameservers", nameservers,
                                   f"must not have more than {_MAX_NAMESERVERS} nameservers"))
    for i, server in enumerate(nameservers):
        found += legacy_ip(server, f"{path}.nameservers[{i}]")
    searches = [str(s) for s in config.get("searches") or ()]
    if len(searches) > _MAX_SEARCHES:
        found.append(field.invalid(f"{path}.searches", searches, f"must not have more than {_MAX_SEARCHES} search paths"))
    if len(" ".join(searches)) > _MAX_SEARCH_CHARS:
        found.append(field.invalid(f"{path}.searches", searches, f"must not have more than {_MAX_SEARCH_CHARS} "
                                                                 "characters (including spaces) in the search list"))
    for i, search in enumerate(searches):
        found += _search_errors(search, f"{path}.searches[{i}]")
    return found + [field.required(f"{path}.options[{i}]", "must not be empty")
                    for i, option in enumerate(config.get("options") or ()) if not _dict(option).get("name")]


def host_aliases(aliases: Any, path: str) -> list[FieldError]:
    """ValidateHostAliases."""
    found: list[FieldError] = []
    for i, alias in enumerate(aliases or ()):
        alias = _dict(alias)
        found += legacy_ip(str(alias.get("ip") or ""), f"{path}[{i}].ip")
        for j, hostname in enumerate(alias.get("hostnames") or ()):
            found += _subdomain_errors(str(hostname), f"{path}[{i}].hostnames[{j}]")
    return found


def pod_host_name(spec: Obj, path: str) -> list[FieldError]:
    """validatePodHostName: the hostname override, neither with an FQDN hostname nor the host's network."""
    override = spec.get("hostnameOverride")
    if override is None:
        return []
    at = f"{path}.hostnameOverride"
    found: list[FieldError] = []
    if spec.get("setHostnameAsFQDN"):
        found.append(field.forbidden(at, "may not be specified when setHostnameAsFQDN is true"))
    if spec.get("hostNetwork"):
        found.append(field.forbidden(at, "may not be specified when hostNetwork is true"))
    if len(str(override)) > 64:
        found.append(field.too_long(at, 64))
    return found + _subdomain_errors(str(override), at)


# -- the pod's lists -----------------------------------------------------------------------------


def image_pull_secrets(secrets: Any, path: str) -> list[FieldError]:
    """validateImagePullSecrets: a reference names a secret and says nothing else."""
    found: list[FieldError] = []
    for i, secret in enumerate(secrets or ()):
        secret = _dict(secret)
        if any(key != "name" for key in secret):
            found.append(field.invalid_shown(f"{path}[{i}]", field.go_json({"Name": str(secret.get("name") or "")}),
                                             "only name may be set"))
    return found


def readiness_gates(gates: Any, path: str) -> list[FieldError]:
    """validateReadinessGates."""
    found: list[FieldError] = []
    for i, gate in enumerate(gates or ()):
        condition = str(_dict(gate).get("conditionType") or "")
        found += [field.invalid(f"{path}[{i}].conditionType", condition, m) for m in qualified_name(condition)]
    return found


def scheduling_gates(gates: Any, path: str) -> list[FieldError]:
    """validateSchedulingGates: qualified names, each once."""
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, gate in enumerate(gates or ()):
        name = str(_dict(gate).get("name") or "")
        found += [field.invalid(f"{path}[{i}]", name, msg) for msg in qualified_name(name)]
        if name in seen:
            found.append(field.duplicate(f"{path}[{i}]", name))
        seen.add(name)
    return found


_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def tolerations(items: Any, path: str) -> list[FieldError]:
    """ValidateTolerations (the comparison operators' option off, as their feature gate is at 1.36)."""
    found: list[FieldError] = []
    for i, toleration in enumerate(items or ()):
        at = f"{path}[{i}]"
        toleration = toleration if isinstance(toleration, dict) else {}
        key, operator = str(toleration.get("key") or ""), str(toleration.get("operator") or "")
        value, effect = str(toleration.get("value") or ""), str(toleration.get("effect") or "")
        if key:
            found += [field.invalid(f"{at}.key", key, msg) for msg in qualified_name(key)]
        if not key and operator != "Exists":
            found.append(field.invalid(f"{at}.operator", operator, 'operator must be Exists when `key` is empty, '
                                                                    'which means "match all values and all keys"'))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            found.append(field.invalid(f"{at}.effect", effect,
                                       "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            messages = label_value(value)
            if messages:
                found.append(field.invalid(f"{at}.operator", value, ";".join(messages)))
        elif operator == "Exists":
            if value:
                found.append(field.invalid(f"{at}.operator", value, "value must be empty when `operator` is 'Exists'"))
        elif operator in ("Lt", "Gt"):
            found.append(field.not_supported(f"{at}.operator", operator, ("Equal", "Exists", "Lt", "Gt")))
        else:
            found.append(field.not_supported(f"{at}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in _TAINT_EFFECTS:
            found.append(field.not_supported(f"{at}.effect", effect, _TAINT_EFFECTS))
    return found


# -- host process, user namespaces, OS -----------------------------------------------------------


def windows_host_process_pod(spec: Obj, path: str) -> list[FieldError]:
    """validateWindowsHostProcessPod: all containers or none are host processes, on the host's network, and
    only where the cluster allows privileged containers."""
    found: list[FieldError] = []
    pod_level = _dict(_dict(spec.get("securityContext")).get("windowsOptions")).get("hostProcess")
    count = host_processes = 0
    for c, at in visit_containers(spec, path):
        count += 1
        own = _dict(_dict(c.get("securityContext")).get("windowsOptions")).get("hostProcess")
        if pod_level is not None and own is not None and pod_level != own:
            found.append(field.invalid(f"{at}.securityContext.windowsOptions.hostProcess", own,
                                       "pod hostProcess value must be identical if both are specified, was "
                                       + ("true" if pod_level else "false")))
        if own is True or (own is None and pod_level is True):
            host_processes += 1
    if host_processes:
        if host_processes != count:
            found.append(field.invalid(path, "", "If pod contains any hostProcess containers then all containers "
                                                 "must be HostProcess containers"))
        if not spec.get("hostNetwork"):
            found.append(field.invalid(f"{path}.hostNetwork", False,
                                       "hostNetwork must be true if pod contains any hostProcess containers"))
        if not capabilities.allow_privileged():
            found.append(field.forbidden(path, "hostProcess containers are disallowed by cluster policy"))
    return found


def host_users(spec: Obj, path: str, old_spec: Obj | None) -> list[FieldError]:
    """validateHostUsers: a pod in its own user namespace shares none of the host's (the network only under
    UserNamespacesHostNetworkSupport, off at 1.36 unless the old pod did), nor uses block devices."""
    if spec.get("hostUsers") is not False:
        return []
    old = old_spec or {}
    old_user_ns = old.get("hostUsers") is False
    found: list[FieldError] = []
    if spec.get("hostNetwork") and not (old_user_ns and old.get("hostNetwork")):
        found.append(field.forbidden(f"{path}.hostNetwork", "when `hostUsers` is false"))
    # Upstream's paths name the internal fields here.
    if spec.get("hostPID"):
        found.append(field.forbidden(f"{path}.HostPID", "when `hostUsers` is false"))
    if spec.get("hostIPC"):
        found.append(field.forbidden(f"{path}.HostIPC", "when `hostUsers` is false"))
    if not (old_user_ns and any(c.get("volumeDevices") for c, _ in visit_containers(old, ""))):
        found += [field.forbidden(f"{at}.volumeDevices", "when `hostUsers` is false")
                  for c, at in visit_containers(spec, path) if c.get("volumeDevices")]
    return found


def os_rules(spec: Obj, path: str) -> list[FieldError]:
    """validateOS, then validateLinux or validateWindows for a valid OS."""
    os = spec.get("os")
    if not isinstance(os, dict):
        return []
    name = str(os.get("name") or "")
    if not name:
        return [field.required(f"{path}.os.name")]
    if name not in ("linux", "windows"):
        return [field.not_supported(f"{path}.os", name, ("linux", "windows"))]
    return _linux(spec, path) if name == "linux" else _windows(spec, path)


def _linux(spec: Obj, path: str) -> list[FieldError]:
    message = "windows options cannot be set for a linux pod"
    found: list[FieldError] = []
    if _dict(spec.get("securityContext")).get("windowsOptions") is not None:
        found.append(field.forbidden(f"{path}.securityContext.windowsOptions", message))
    return found + [field.forbidden(f"{at}.securityContext.windowsOptions", message)
                    for c, at in visit_containers(spec, path)
                    if _dict(c.get("securityContext")).get("windowsOptions") is not None]


def _windows(spec: Obj, path: str) -> list[FieldError]:
    message = "cannot be set for a windows pod"
    found: list[FieldError] = []
    # The internal pod's security context, which conversion always makes, holds the host namespace fields.
    context = _dict(spec.get("securityContext"))
    pod_checks: list[tuple[bool, str]] = [
        (context.get("appArmorProfile") is not None, "securityContext.appArmorProfile"),
        (context.get("seLinuxOptions") is not None, "securityContext.seLinuxOptions"),
        (spec.get("hostUsers") is not None, "hostUsers"),
        (bool(spec.get("hostPID")), "hostPID"),
        (bool(spec.get("hostIPC")), "hostIPC"),
        (context.get("seccompProfile") is not None, "securityContext.seccompProfile"),
        (context.get("fsGroup") is not None, "securityContext.fsGroup"),
        (context.get("fsGroupChangePolicy") is not None, "securityContext.fsGroupChangePolicy"),
        (bool(context.get("sysctls")), "securityContext.sysctls"),
        (spec.get("shareProcessNamespace") is not None, "shareProcessNamespace"),
        (context.get("runAsUser") is not None, "securityContext.runAsUser"),
        (context.get("runAsGroup") is not None, "securityContext.runAsGroup"),
        (context.get("supplementalGroups") is not None, "securityContext.supplementalGroups"),
        (context.get("supplementalGroupsPolicy") is not None, "securityContext.supplementalGroupsPolicy"),
        (context.get("seLinuxChangePolicy") is not None, "securityContext.seLinuxChangePolicy"),
    ]
    found += [field.forbidden(f"{path}.{where}", message) for is_set, where in pod_checks if is_set]
    for c, at in visit_containers(spec, path):
        own = c.get("securityContext")
        if isinstance(own, dict):
            found += [field.forbidden(f"{at}.securityContext.{key}", message)
                      for key in _WINDOWS_CONTAINER_FIELDS if own.get(key) is not None]
    return found


# -- the rest ------------------------------------------------------------------------------------


def preemption_policy(spec: Obj, path: str) -> list[FieldError]:
    """ValidatePreemptionPolicy, for a policy that is set."""
    if spec.get("preemptionPolicy") is None:
        return []
    return field.required_choice(spec["preemptionPolicy"], f"{path}.preemptionPolicy", _PREEMPTION_POLICIES)


def file_key_ref_volumes(spec: Obj, path: str) -> list[FieldError]:
    """validateFileKeyRefVolumes: an env var read from a file reads it from an emptyDir volume of the pod."""
    sources = {_dict(v).get("name"): _dict(v) for v in spec.get("volumes") or ()}
    found: list[FieldError] = []
    for c, at in visit_containers(spec, path):
        for j, env in enumerate(c.get("env") or ()):
            ref = _dict(_dict(env).get("valueFrom")).get("fileKeyRef")
            if ref is None:
                continue
            volume = str(_dict(ref).get("volumeName") or "")
            where = f"{at}.env[{j}].valueFrom.fileKeyRef.volumeName"
            if volume not in sources:
                found.append(field.not_found(where, volume))
            elif sources[volume].get("emptyDir") is None:
                found.append(field.invalid(where, volume, "referenced volume must be of type emptyDir"))
    return found
