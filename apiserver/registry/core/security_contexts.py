"""Security contexts: validatePodSpecSecurityContext and ValidateSecurityContext of
pkg/apis/core/validation/validation.go, with the seccomp, AppArmor, Windows, sysctl and policy rules they call.
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import capabilities
from apiserver.kinds.validation import dns1123_subdomain, inclusive_range_error
from apiserver.registry import field
from apiserver.registry.core import go_structs, volume_sources

Obj = dict[str, Any]

_MAX_ID = 2**31 - 1
_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
_SUPPLEMENTAL_POLICIES = ("Merge", "Strict")
_SELINUX_CHANGE_POLICIES = ("MountOption", "Recursive")
_FS_GROUP_CHANGE_POLICIES = ("Always", "OnRootMismatch")
_PROC_MOUNTS = ("Default", "Unmasked")
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL = re.compile(f"^({_SYSCTL_SEGMENT}[\\./])*{_SYSCTL_SEGMENT}$")
_NETBIOS = re.compile(r'^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$')
_DNS_LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_DOMAIN_DNS = re.compile(f"^{_DNS_LABEL}(?:\\.{_DNS_LABEL})*$")
_BAD_USER_CHARS = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_DOTS_SPACES = re.compile(r"^[. ]+$")
_IPC_PREFIXES = ("kernel.shm", "kernel.msg", "kernel.sem", "fs.mqueue.")


def _ids(context: Obj, path: str, keys: tuple[str, ...]) -> list[FieldError]:
    found: list[FieldError] = []
    for key in keys:
        value = context.get(key)
        if isinstance(value, int) and not 0 <= value <= _MAX_ID:
            found.append(field.invalid(f"{path}.{key}", value, inclusive_range_error(0, _MAX_ID)))
    return found


def seccomp_profile(profile: Any, path: str) -> list[FieldError]:
    """validateSeccompProfileField."""
    if not isinstance(profile, dict):
        return []
    kind = profile.get("type") or ""
    found: list[FieldError] = []
    if not kind:
        found.append(field.required(f"{path}.type", "type is required when seccompProfile is set"))
    elif kind not in _PROFILE_TYPES:
        found.append(field.not_supported(f"{path}.type", kind, _PROFILE_TYPES))
    local = profile.get("localhostProfile")
    if kind == "Localhost":
        if local is None:
            found.append(field.required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost"))
        else:
            if local.startswith("/"):
                found.append(field.invalid(f"{path}.localhostProfile", local, "must be a relative path"))
            found += volume_sources.no_backsteps(local, f"{path}.localhostProfile")
    elif local is not None:
        found.append(field.invalid_shown(f"{path}.localhostProfile",
                                         field.go_json({"Type": kind, "LocalhostProfile": local}),
                                         "can only be set when seccomp type is Localhost"))
    return found


def app_armor_profile(profile: Any, path: str) -> list[FieldError]:
    """ValidateAppArmorProfileField."""
    if not isinstance(profile, dict):
        return []
    kind, local = profile.get("type") or "", profile.get("localhostProfile")
    found: list[FieldError] = []
    if kind == "Localhost":
        if local is None:
            found.append(field.required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost"))
        else:
            if local.strip() != local:
                found.append(field.invalid(f"{path}.localhostProfile", local, "must not be padded with whitespace"))
            elif not local:
                found.append(field.required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost"))
            if len(local) > 4095:
                found.append(field.too_long(f"{path}.localhostProfile", 4095))
    elif kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            found.append(field.invalid(f"{path}.localhostProfile", local,
                                       "can only be set when AppArmor type is Localhost"))
    elif not kind:
        found.append(field.required(f"{path}.type", "type is required when appArmorProfile is set"))
    else:
        found.append(field.not_supported(f"{path}.type", kind, _PROFILE_TYPES))
    return found


def _run_as_user_name(name: str, path: str) -> list[FieldError]:
    def bad(detail: str) -> FieldError:
        return field.invalid(path, name, detail)
    if not name:
        return [bad("runAsUserName cannot be an empty string")]
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        return [bad("runAsUserName cannot contain control characters")]
    parts = name.split("\\")
    if len(parts) > 2:
        return [bad("runAsUserName cannot contain more than one backslash")]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    found: list[FieldError] = []
    if len(domain) >= 256:
        found.append(bad("runAsUserName's Domain length must be under 256 characters"))
    if len(parts) == 2 and not (_NETBIOS.match(domain) or _DOMAIN_DNS.match(domain)):
        found.append(bad("runAsUserName's Domain doesn't match the NetBios nor the DNS format"))
    if not user:
        found.append(bad("runAsUserName's User cannot be empty"))
    elif len(user) > 104:
        found.append(bad("runAsUserName's User length must not be longer than 104 characters"))
    if _DOTS_SPACES.match(user):
        found.append(bad("runAsUserName's User cannot contain only periods or spaces"))
    if _BAD_USER_CHARS.search(user):
        found.append(bad('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]'))
    return found


def windows_options(options: Any, path: str) -> list[FieldError]:
    """validateWindowsSecurityContextOptions."""
    if not isinstance(options, dict):
        return []
    found: list[FieldError] = []
    spec_name = options.get("gmsaCredentialSpecName")
    if spec_name is not None:
        found += [field.invalid(f"{path}.gmsaCredentialSpecName", spec_name, m) for m in dns1123_subdomain(spec_name)]
    spec = options.get("gmsaCredentialSpec")
    if spec is not None:
        if not spec:
            found.append(field.invalid(f"{path}.gmsaCredentialSpec", spec, "gmsaCredentialSpec cannot be an empty string"))
        elif len(spec.encode()) > 64 * 1024:
            found.append(field.invalid(f"{path}.gmsaCredentialSpec", spec, "gmsaCredentialSpec size must be under 64 KiB"))
    if options.get("runAsUserName") is not None:
        found += _run_as_user_name(options["runAsUserName"], f"{path}.runAsUserName")
    return found


def _sysctls(context: Obj, spec: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    names: set[str] = set()
    for i, sysctl in enumerate(context.get("sysctls") or []):
        name = (sysctl or {}).get("name") or ""
        at = f"{path}[{i}].name"
        if not name:
            found.append(field.required(at))
        elif len(name) > 253 or not _SYSCTL.match(name):
            found.append(field.invalid(at, name, f"must have at most 253 characters and match regex {_SYSCTL.pattern}"))
        elif name in names:
            found.append(field.duplicate(at, name))
        dotted = name.replace("/", ".")
        if spec.get("hostNetwork") and dotted.startswith("net."):
            found.append(field.invalid(at, name, "may not be specified when 'hostNetwork' is true"))
        elif spec.get("hostIPC") and dotted.startswith(_IPC_PREFIXES):
            found.append(field.invalid(at, name, "may not be specified when 'hostIPC' is true"))
        names.add(name)
    return found


def _choice(value: Any, path: str, choices: tuple[str, ...]) -> list[FieldError]:
    return [] if value is None or value in choices else [field.not_supported(path, value, choices)]


def pod_security_context(context: Any, spec: Obj, path: str, old_spec: Obj | None = None) -> list[FieldError]:
    """validatePodSpecSecurityContext (the host namespace fields read from the v1 spec). With SELinuxMount
    off (1.36), a SELinux change policy may only be Recursive, unless the old spec already set one."""
    if not isinstance(context, dict):
        return []
    found = _ids(context, path, ("fsGroup", "runAsUser", "runAsGroup"))
    for i, gid in enumerate(context.get("supplementalGroups") or []):
        if isinstance(gid, int) and not 0 <= gid <= _MAX_ID:
            found.append(field.invalid(f"{path}.supplementalGroups[{i}]", gid, inclusive_range_error(0, _MAX_ID)))
    if spec.get("shareProcessNamespace") and spec.get("hostPID"):
        found.append(field.invalid(f"{path}.shareProcessNamespace", True,
                                   "ShareProcessNamespace and HostPID cannot both be enabled"))
    found += _sysctls(context, spec, f"{path}.sysctls")
    found += _choice(context.get("fsGroupChangePolicy"), f"{path}.fsGroupChangePolicy", _FS_GROUP_CHANGE_POLICIES)
    found += seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile")
    found += windows_options(context.get("windowsOptions"), f"{path}.windowsOptions")
    found += app_armor_profile(context.get("appArmorProfile"), f"{path}.appArmorProfile")
    found += _choice(context.get("supplementalGroupsPolicy"), f"{path}.supplementalGroupsPolicy",
                     _SUPPLEMENTAL_POLICIES)
    old_context = (old_spec or {}).get("securityContext")
    in_use = isinstance(old_context, dict) and old_context.get("seLinuxChangePolicy") is not None
    policies = _SELINUX_CHANGE_POLICIES if in_use else ("Recursive",)
    return found + _choice(context.get("seLinuxChangePolicy"), f"{path}.seLinuxChangePolicy", policies)


def container_security_context(context: Any, path: str, host_users: bool) -> list[FieldError]:
    """ValidateSecurityContext."""
    if not isinstance(context, dict):
        return []
    found: list[FieldError] = []
    if context.get("privileged") is True and not capabilities.allow_privileged():
        found.append(field.forbidden(f"{path}.privileged", "disallowed by cluster policy"))
    found += _ids(context, path, ("runAsUser", "runAsGroup"))
    proc_mount = context.get("procMount")
    if proc_mount is not None:
        found += _choice(proc_mount, f"{path}.procMount", _PROC_MOUNTS)
        if host_users and proc_mount == "Unmasked":
            found.append(field.invalid(f"{path}.procMount", proc_mount, "`hostUsers` must be false to use `Unmasked`"))
    found += seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile")
    if context.get("allowPrivilegeEscalation") is False:
        shown = _go_security_context(context)
        if context.get("privileged") is True:
            found.append(field.invalid_shown(path, shown,
                                             "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
        for cap in ((context.get("capabilities") or {}).get("add") or []):
            if cap == "CAP_SYS_ADMIN":
                found.append(field.invalid_shown(
                    path, shown, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
    found += windows_options(context.get("windowsOptions"), f"{path}.windowsOptions")
    return found + app_armor_profile(context.get("appArmorProfile"), f"{path}.appArmorProfile")


def _go_security_context(context: Obj) -> str:
    """The internal core.SecurityContext as json.Marshal writes it."""
    return field.go_json(go_structs.struct("SecurityContext", context))
