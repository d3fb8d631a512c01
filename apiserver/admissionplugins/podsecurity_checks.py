"""The Pod Security Standards' checks as pod-security-admission 1.36 runs them (its policy/ package):
each check takes a pod's metadata and spec and says why it is forbidden (a reason and a detail), or
nothing; a check has versions, the newest one not newer than the policy's version applying.

`evaluate(level, version, meta, spec)` runs the baseline checks (sorted by id) and, for restricted,
the restricted ones after them, where a restricted check stands in for the baseline check it
overrides. Versions past the newest check version (1.35) and "latest" evaluate as 1.35.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

Obj = dict[str, Any]
Result = tuple[str, str] | None  # (forbidden reason, forbidden detail), None when allowed
CheckFn = Callable[[Obj, Obj], Result]
Version = tuple[int, int]
MAX_VERSION: Version = (1, 35)


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    versions: tuple[tuple[Version, CheckFn, tuple[str, ...]], ...]  # (minimum version, check, overridden ids)


def _quote(items: list[str]) -> str:
    return '"' + '", "'.join(items) + '"' if items else ""


def _plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _containers(spec: Obj) -> list[Obj]:
    """visitContainers: init containers, containers, then ephemeral containers."""
    return [c for key in ("initContainers", "containers", "ephemeralContainers") for c in spec.get(key) or ()
            if isinstance(c, dict)]


def _context(container: Obj) -> Obj:
    return container.get("securityContext") or {}


def _pod_context(spec: Obj) -> Obj:
    return spec.get("securityContext") or {}


def _names(containers: list[Obj]) -> list[str]:
    return [str(c.get("name") or "") for c in containers]


def _setters(pod_bad: bool, containers: list[str]) -> list[str]:
    setters = ["pod"] if pod_bad else []
    if containers:
        setters.append(f"{_plural('container', 'containers', len(containers))} {_quote(containers)}")
    return setters


def _user_namespaced(spec: Obj) -> bool:
    """relaxPolicyForUserNamespacePod: hostUsers=false."""
    return spec.get("hostUsers") is False


def _windows(spec: Obj) -> bool:
    return (spec.get("os") or {}).get("name") == "windows"


# -- baseline ----------------------------------------------------------------------------------------

def _app_armor(meta: Obj, spec: Obj) -> Result:
    allowed = ("RuntimeDefault", "Localhost")
    bad_values: set[str] = set()
    pod_profile = _pod_context(spec).get("appArmorProfile")
    pod_bad = pod_profile is not None and pod_profile.get("type") not in allowed
    if pod_bad:
        bad_values.add(str((pod_profile or {}).get("type") or ""))
    containers = []
    for c in _containers(spec):
        profile = _context(c).get("appArmorProfile")
        if profile is not None and profile.get("type") not in allowed:
            containers.append(str(c.get("name") or ""))
            bad_values.add(str(profile.get("type") or ""))
    setters = _setters(pod_bad, containers)
    annotations = sorted(f"{k}={_go_quote(v)}" for k, v in (meta.get("annotations") or {}).items()
                         if k.startswith("container.apparmor.security.beta.kubernetes.io/")
                         and not (not v or v == "runtime/default" or v.startswith("localhost/")))
    values = sorted(bad_values)
    if annotations:
        values += annotations
        setters.append(_plural("annotation", "annotations", len(annotations)))
    if not setters:
        return None
    return (_plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(values)),
            f"{' and '.join(setters)} must not set AppArmor profile type to {_quote(values)}")


_BASELINE_CAPABILITIES = frozenset({"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                                    "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"})


def _capabilities_baseline(meta: Obj, spec: Obj) -> Result:
    bad: list[str] = []
    added: set[str] = set()
    for c in _containers(spec):
        capabilities = _context(c).get("capabilities")
        if capabilities is None:
            continue
        forbidden = [str(a) for a in capabilities.get("add") or () if a not in _BASELINE_CAPABILITIES]
        if forbidden:
            bad.append(str(c.get("name") or ""))
            added.update(forbidden)
    if not bad:
        return None
    return ("non-default capabilities", (f"{_plural('container', 'containers', len(bad))} {_quote(bad)} must not "
            f"include {_quote(sorted(added))} in securityContext.capabilities.add"))


def _host_namespaces(meta: Obj, spec: Obj) -> Result:
    found = [f"{field}=true" for field in ("hostNetwork", "hostPID", "hostIPC") if spec.get(field) is True]
    return ("host namespaces", ", ".join(found)) if found else None


def _host_path_volumes(meta: Obj, spec: Obj) -> Result:
    volumes = [str(v.get("name") or "") for v in spec.get("volumes") or () if v.get("hostPath") is not None]
    if not volumes:
        return None
    return ("hostPath volumes", f"{_plural('volume', 'volumes', len(volumes))} {_quote(volumes)}")


def _host_ports(meta: Obj, spec: Obj) -> Result:
    bad: list[str] = []
    ports: set[str] = set()
    for c in _containers(spec):
        used = [str(p.get("hostPort")) for p in c.get("ports") or () if p.get("hostPort")]
        if used:
            bad.append(str(c.get("name") or ""))
            ports.update(used)
    if not bad:
        return None
    return ("hostPort", (f"{_plural('container', 'containers', len(bad))} {_quote(bad)} "
            f"{_plural('uses', 'use', len(bad))} {_plural('hostPort', 'hostPorts', len(ports))} "
            f"{', '.join(sorted(ports))}"))


def _hosts_of(handler: Any) -> list[str]:
    if not isinstance(handler, dict):
        return []
    return [str(h) for h in ((handler.get("httpGet") or {}).get("host"), (handler.get("tcpSocket") or {}).get("host"))
            if h]


def _host_probes(meta: Obj, spec: Obj) -> Result:
    bad: set[str] = set()
    hosts: set[str] = set()
    for c in _containers(spec):
        lifecycle = c.get("lifecycle") or {}
        handlers = [c.get("livenessProbe"), c.get("readinessProbe"), c.get("startupProbe"),
                    lifecycle.get("postStart"), lifecycle.get("preStop")]
        for handler in handlers:
            found = _hosts_of(handler)
            if found:
                bad.add(str(c.get("name") or ""))
                hosts.update(found)
    if not bad:
        return None
    return ("probe or lifecycle host",
            (f"{_plural('container', 'containers', len(bad))} {_quote(sorted(bad))} {_plural('uses', 'use', len(bad))} "
            f"{_plural('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} {_quote(sorted(hosts))}"))


def _privileged(meta: Obj, spec: Obj) -> Result:
    bad = _names([c for c in _containers(spec) if _context(c).get("privileged") is True])
    if not bad:
        return None
    return ("privileged",
            f"{_plural('container', 'containers', len(bad))} {_quote(bad)} must not set securityContext.privileged=true")


def _proc_mount(meta: Obj, spec: Obj) -> Result:
    bad: list[str] = []
    types: set[str] = set()
    for c in _containers(spec):
        mount = _context(c).get("procMount")
        if mount is not None and mount != "Default":
            bad.append(str(c.get("name") or ""))
            types.add(str(mount))
    if not bad:
        return None
    return ("procMount", (f"{_plural('container', 'containers', len(bad))} {_quote(bad)} must not set "
            f"securityContext.procMount to {_quote(sorted(types))}"))


def _proc_mount_1_35(meta: Obj, spec: Obj) -> Result:
    return None if _user_namespaced(spec) else _proc_mount(meta, spec)


def _se_linux(allowed_types: frozenset[str]) -> CheckFn:
    def check(meta: Obj, spec: Obj) -> Result:
        bad_types: set[str] = set()
        flags = {"user": False, "role": False}

        def valid(options: Obj) -> bool:
            ok = True
            if str(options.get("type") or "") not in allowed_types:
                ok = False
                bad_types.add(str(options.get("type") or ""))
            for field in ("user", "role"):
                if options.get(field):
                    ok, flags[field] = False, True
            return ok
        pod_options = _pod_context(spec).get("seLinuxOptions")
        pod_bad = pod_options is not None and not valid(pod_options)
        containers = [str(c.get("name") or "") for c in _containers(spec)
                      if _context(c).get("seLinuxOptions") is not None and not valid(_context(c)["seLinuxOptions"])]
        setters = _setters(pod_bad, containers)
        if not setters:
            return None
        data = []
        if bad_types:
            data.append(f"{_plural('type', 'types', len(bad_types))} {_quote(sorted(bad_types))}")
        data += [f"{field} may not be set" for field in ("user", "role") if flags[field]]
        return ("seLinuxOptions",
                f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}")
    return check


_SE_LINUX_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/"


def _seccomp_annotations(meta: Obj, spec: Obj) -> Result:
    annotations = meta.get("annotations") or {}
    forbidden: set[str] = set()
    keys = [_SECCOMP_POD_ANNOTATION] + [_SECCOMP_CONTAINER_ANNOTATION + str(c.get("name") or "")
                                        for c in _containers(spec)]
    for key in keys:
        value = annotations.get(key)
        if value is not None and not (value in ("runtime/default", "docker/default") or value.startswith("localhost/")):
            forbidden.add(f"{key}={_go_quote(value)}")
    if not forbidden:
        return None
    return ("seccompProfile",
            f"forbidden {_plural('annotation', 'annotations', len(forbidden))} {', '.join(sorted(forbidden))}")


_SECCOMP_TYPES = ("Localhost", "RuntimeDefault")


def _seccomp_baseline(meta: Obj, spec: Obj) -> Result:
    bad_values: set[str] = set()
    profile = _pod_context(spec).get("seccompProfile")
    pod_bad = profile is not None and profile.get("type") not in _SECCOMP_TYPES
    if pod_bad:
        bad_values.add(str((profile or {}).get("type") or ""))
    containers = []
    for c in _containers(spec):
        own = _context(c).get("seccompProfile")
        if own is not None and own.get("type") not in _SECCOMP_TYPES:
            containers.append(str(c.get("name") or ""))
            bad_values.add(str(own.get("type") or ""))
    setters = _setters(pod_bad, containers)
    if not setters:
        return None
    return ("seccompProfile", (f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to "
            f"{_quote(sorted(bad_values))}"))


_SYSCTLS_1_0 = frozenset({"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
                          "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"})
_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                                 "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}
_SYSCTLS_1_32 = _SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def _sysctls(allowed: frozenset[str]) -> CheckFn:
    def check(meta: Obj, spec: Obj) -> Result:
        forbidden = [str(s.get("name") or "") for s in _pod_context(spec).get("sysctls") or ()
                     if s.get("name") not in allowed]
        return ("forbidden sysctls", ", ".join(forbidden)) if forbidden else None
    return check


def _windows_host_process(meta: Obj, spec: Obj) -> Result:
    containers = _names([c for c in _containers(spec)
                         if (_context(c).get("windowsOptions") or {}).get("hostProcess") is True])
    pod_bad = (_pod_context(spec).get("windowsOptions") or {}).get("hostProcess") is True
    setters = _setters(pod_bad, containers)
    if not setters:
        return None
    return ("hostProcess", f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true")


# -- restricted --------------------------------------------------------------------------------------

def _allow_privilege_escalation(meta: Obj, spec: Obj) -> Result:
    bad = _names([c for c in _containers(spec) if _context(c).get("allowPrivilegeEscalation") is not False])
    if not bad:
        return None
    return ("allowPrivilegeEscalation != false", (f"{_plural('container', 'containers', len(bad))} {_quote(bad)} "
            "must set securityContext.allowPrivilegeEscalation=false"))


def _unless_windows(check: CheckFn) -> CheckFn:
    return lambda meta, spec: None if _windows(spec) else check(meta, spec)


def _capabilities_restricted(meta: Obj, spec: Obj) -> Result:
    missing_drop: list[str] = []
    adding: list[str] = []
    forbidden: set[str] = set()
    for c in _containers(spec):
        name = str(c.get("name") or "")
        capabilities = _context(c).get("capabilities")
        if capabilities is None:
            missing_drop.append(name)
            continue
        if "ALL" not in (capabilities.get("drop") or ()):
            missing_drop.append(name)
        added = [str(a) for a in capabilities.get("add") or () if a != "NET_BIND_SERVICE"]
        if added:
            adding.append(name)
            forbidden.update(added)
    details = []
    if missing_drop:
        details.append(f"{_plural('container', 'containers', len(missing_drop))} {_quote(missing_drop)} must set "
                       'securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(f"{_plural('container', 'containers', len(adding))} {_quote(adding)} must not include "
                       f"{_quote(sorted(forbidden))} in securityContext.capabilities.add")
    return ("unrestricted capabilities", "; ".join(details)) if details else None


_RESTRICTED_VOLUME_SOURCES = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
                              "persistentVolumeClaim", "projected", "secret")
# the order of restrictedVolumes_1_0's switch: the first source found names the type
_NAMED_VOLUME_SOURCES = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi",
                         "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
                         "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO",
                         "storageos")


def _restricted_volumes(meta: Obj, spec: Obj) -> Result:
    bad: list[str] = []
    types: set[str] = set()
    for volume in spec.get("volumes") or ():
        if any(volume.get(source) is not None for source in _RESTRICTED_VOLUME_SOURCES):
            continue
        bad.append(str(volume.get("name") or ""))
        types.add(next((s for s in _NAMED_VOLUME_SOURCES if volume.get(s) is not None), "unknown"))
    if not bad:
        return None
    return ("restricted volume types",
            (f"{_plural('volume', 'volumes', len(bad))} {_quote(bad)} {_plural('uses', 'use', len(bad))} "
            f"{_plural('restricted volume type', 'restricted volume types', len(types))} {_quote(sorted(types))}"))


def _run_as_non_root(meta: Obj, spec: Obj) -> Result:
    pod_value = _pod_context(spec).get("runAsNonRoot")
    pod_bad, pod_ok = pod_value is False, pod_value is True
    explicit: list[str] = []
    implicit: list[str] = []
    for c in _containers(spec):
        value = _context(c).get("runAsNonRoot")
        if value is not None:
            if value is False:
                explicit.append(str(c.get("name") or ""))
        elif not pod_ok:
            implicit.append(str(c.get("name") or ""))
    setters = _setters(pod_bad, explicit)
    if setters:
        return ("runAsNonRoot != true", f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false")
    if implicit:
        return ("runAsNonRoot != true", (f"pod or {_plural('container', 'containers', len(implicit))} "
                f"{_quote(implicit)} must set securityContext.runAsNonRoot=true"))
    return None


def _relaxed_for_user_namespaces(check: CheckFn) -> CheckFn:
    return lambda meta, spec: None if _user_namespaced(spec) else check(meta, spec)


def _run_as_user(meta: Obj, spec: Obj) -> Result:
    pod_bad = _pod_context(spec).get("runAsUser") == 0
    containers = _names([c for c in _containers(spec) if _context(c).get("runAsUser") == 0])
    setters = _setters(pod_bad, containers)
    return ("runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0") if setters else None


def _seccomp_restricted(meta: Obj, spec: Obj) -> Result:
    bad_values: set[str] = set()
    profile = _pod_context(spec).get("seccompProfile")
    pod_bad = profile is not None and profile.get("type") not in _SECCOMP_TYPES
    pod_set = profile is not None and not pod_bad
    if pod_bad:
        bad_values.add(str((profile or {}).get("type") or ""))
    explicit: list[str] = []
    implicit: list[str] = []
    for c in _containers(spec):
        own = _context(c).get("seccompProfile")
        if own is not None:
            if own.get("type") not in _SECCOMP_TYPES:
                explicit.append(str(c.get("name") or ""))
                bad_values.add(str(own.get("type") or ""))
        elif not pod_set:
            implicit.append(str(c.get("name") or ""))
    setters = _setters(pod_bad, explicit)
    if setters:
        return ("seccompProfile", (f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to "
                f"{_quote(sorted(bad_values))}"))
    if implicit:
        return ("seccompProfile", (f"pod or {_plural('container', 'containers', len(implicit))} {_quote(implicit)} "
                'must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'))
    return None


def _go_quote(value: str) -> str:
    """Go's %q for the printable ASCII that labels and annotations hold."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


CHECKS = (
    Check("appArmorProfile", "baseline", (((1, 0), _app_armor, ()),)),
    Check("capabilities_baseline", "baseline", (((1, 0), _capabilities_baseline, ()),)),
    Check("hostNamespaces", "baseline", (((1, 0), _host_namespaces, ()),)),
    Check("hostPathVolumes", "baseline", (((1, 0), _host_path_volumes, ()),)),
    Check("hostPorts", "baseline", (((1, 0), _host_ports, ()),)),
    Check("hostProbesAndHostLifecycle", "baseline", (((1, 34), _host_probes, ()),)),
    Check("privileged", "baseline", (((1, 0), _privileged, ()),)),
    Check("procMount", "baseline", (((1, 0), _proc_mount, ()), ((1, 35), _proc_mount_1_35, ()))),
    Check("seLinuxOptions", "baseline", (((1, 0), _se_linux(_SE_LINUX_1_0), ()),
                                         ((1, 31), _se_linux(_SE_LINUX_1_0 | {"container_engine_t"}), ()))),
    Check("seccompProfile_baseline", "baseline", (((1, 0), _seccomp_annotations, ()),
                                                  ((1, 19), _seccomp_baseline, ()))),
    Check("sysctls", "baseline", (((1, 0), _sysctls(_SYSCTLS_1_0), ()), ((1, 27), _sysctls(_SYSCTLS_1_27), ()),
                                  ((1, 29), _sysctls(_SYSCTLS_1_29), ()), ((1, 32), _sysctls(_SYSCTLS_1_32), ()))),
    Check("windowsHostProcess", "baseline", (((1, 0), _windows_host_process, ()),)),
    Check("allowPrivilegeEscalation", "restricted", (((1, 8), _allow_privilege_escalation, ()),
                                                     ((1, 25), _unless_windows(_allow_privilege_escalation), ()))),
    Check("capabilities_restricted", "restricted",
          (((1, 22), _capabilities_restricted, ("capabilities_baseline",)),
           ((1, 25), _unless_windows(_capabilities_restricted), ("capabilities_baseline",)))),
    Check("procMount_restricted", "restricted", (((1, 35), _proc_mount, ("procMount",)),)),
    Check("restrictedVolumes", "restricted", (((1, 0), _restricted_volumes, ("hostPathVolumes",)),)),
    Check("runAsNonRoot", "restricted", (((1, 0), _run_as_non_root, ()),
                                         ((1, 35), _relaxed_for_user_namespaces(_run_as_non_root), ()))),
    Check("runAsUser", "restricted", (((1, 23), _run_as_user, ()),
                                      ((1, 35), _relaxed_for_user_namespaces(_run_as_user), ()))),
    Check("seccompProfile_restricted", "restricted",
          (((1, 19), _seccomp_restricted, ("seccompProfile_baseline",)),
           ((1, 25), _unless_windows(_seccomp_restricted), ("seccompProfile_baseline",)))),
)


class Applied(NamedTuple):
    id: str
    check: CheckFn
    overrides: tuple[str, ...]


def _at(check: Check, version: Version) -> Applied | None:
    chosen = None
    for minimum, fn, overrides in check.versions:
        if minimum <= version:
            chosen = Applied(check.id, fn, overrides)
    return chosen


@functools.lru_cache(maxsize=256)
def checks_for(level: str, version: Version | None) -> list[CheckFn]:
    """The checks a level runs at a version (None: latest), in upstream's order; made once per pair."""
    at = MAX_VERSION if version is None or version > MAX_VERSION else version
    baseline = [a for c in CHECKS if c.level == "baseline" and (a := _at(c, at)) is not None]
    if level == "baseline":
        return [a.check for a in baseline]
    restricted = [a for c in CHECKS if c.level == "restricted" and (a := _at(c, at)) is not None]
    overridden = {o for a in restricted for o in a.overrides}
    return [a.check for a in baseline if a.id not in overridden] + [a.check for a in restricted]


def evaluate(level: str, version: Version | None, meta: Obj, spec: Obj) -> list[tuple[str, str]]:
    """The forbidden (reason, detail) pairs, in check order; [] when the pod meets the level."""
    if level == "privileged":
        return []
    return [result for check in checks_for(level, version) if (result := check(meta, spec)) is not None]
