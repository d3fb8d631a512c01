"""Probes and lifecycle hooks: validateProbe, validateLivenessProbe, validateReadinessProbe,
validateStartupProbe, validateLifecycle, validateHandler and the actions it checks, and validateStopSignal
of pkg/apis/core/validation/validation.go (PodLifecycleSleepActionAllowZero on, as at 1.36).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import inclusive_range_error, port_name, regex_error
from apiserver.registry import field

Obj = dict[str, Any]

_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
_HTTP_SCHEMES = ("HTTP", "HTTPS")
_HEADER_NAME_FMT = "[-A-Za-z0-9]+"
_SIGNALS_WINDOWS = ("SIGKILL", "SIGTERM")
_SIGNALS_LINUX = tuple(sorted(
    ["SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", "SIGHUP", "SIGILL", "SIGINT", "SIGIO",
     "SIGIOT", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR", "SIGQUIT", "SIGSEGV", "SIGSTKFLT", "SIGSTOP",
     "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM",
     "SIGWINCH", "SIGXCPU", "SIGXFSZ", "SIGRTMIN", "SIGRTMAX"]
    + [f"SIGRTMIN+{n}" for n in range(1, 16)] + [f"SIGRTMAX-{n}" for n in range(1, 15)]))


def port_num_or_name(port: Any, path: str) -> list[FieldError]:
    """ValidatePortNumOrName."""
    # An absent port decodes as the integer 0.
    port = 0 if port is None else port
    if isinstance(port, int):
        return [] if 1 <= port <= 65535 else [field.invalid(path, port, inclusive_range_error(1, 65535))]
    return [field.invalid(path, port or "", msg) for msg in port_name(port or "")]


def _action(kind: str, action: Obj, grace: int | None, path: str) -> list[FieldError]:
    if kind == "exec":
        return [] if action.get("command") else [field.required(f"{path}.command")]
    if kind == "httpGet":
        found = [] if action.get("path") else [field.required(f"{path}.path")]
        found += port_num_or_name(action.get("port"), f"{path}.port")
        scheme = action.get("scheme") or ""
        if scheme not in _HTTP_SCHEMES:
            found.append(field.not_supported(f"{path}.scheme", scheme, _HTTP_SCHEMES))
        for header in action.get("httpHeaders") or []:
            name = (header or {}).get("name") or ""
            if not name or not all(ch.isascii() and (ch.isalnum() or ch == "-") for ch in name):
                found.append(field.invalid(f"{path}.httpHeaders", name, regex_error(
                    "a valid HTTP header must consist of alphanumeric characters or '-'", _HEADER_NAME_FMT,
                    "X-Header-Name")))
        return found
    if kind == "tcpSocket":
        return port_num_or_name(action.get("port"), f"{path}.port")
    if kind == "grpc":
        return port_num_or_name(action.get("port") or 0, f"{path}.port")
    seconds = action.get("seconds") or 0
    if grace is not None and not 0 <= seconds <= grace:
        return [field.invalid(path, seconds,
                              f"must be non-negative and less than terminationGracePeriodSeconds ({grace})")]
    return []


def handler(given: Obj, kinds: tuple[str, ...], grace: int | None, path: str) -> list[FieldError]:
    """validateHandler: exactly one action, judged."""
    found: list[FieldError] = []
    count = 0
    for kind in kinds:
        action = given.get(kind)
        if action is None:
            continue
        if count:
            found.append(field.forbidden(f"{path}.{kind}", "may not specify more than 1 handler type"))
            continue
        count += 1
        found += _action(kind, action if isinstance(action, dict) else {}, grace, f"{path}.{kind}")
    if not count:
        found.append(field.required(path, "must specify a handler type"))
    return found


def _probe(probe: Obj, grace: int | None, path: str) -> list[FieldError]:
    found = handler(probe, _PROBE_HANDLERS, grace, path)
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        found += field.nonnegative(f"{path}.{key}", probe.get(key))
    own_grace = probe.get("terminationGracePeriodSeconds")
    if isinstance(own_grace, int) and own_grace <= 0:
        found.append(field.invalid(f"{path}.terminationGracePeriodSeconds", own_grace, "must be greater than 0"))
    return found


def liveness_probe(probe: Any, grace: int | None, path: str) -> list[FieldError]:
    """validateLivenessProbe (and validateStartupProbe, the same rules): success means once."""
    if not isinstance(probe, dict):
        return []
    found = _probe(probe, grace, path)
    if (probe.get("successThreshold") or 0) != 1:
        found.append(field.invalid(f"{path}.successThreshold", probe.get("successThreshold") or 0, "must be 1"))
    return found


def readiness_probe(probe: Any, grace: int | None, path: str) -> list[FieldError]:
    if not isinstance(probe, dict):
        return []
    found = _probe(probe, grace, path)
    if probe.get("terminationGracePeriodSeconds") is not None:
        found.append(field.invalid(f"{path}.terminationGracePeriodSeconds", probe["terminationGracePeriodSeconds"],
                                   "must not be set for readinessProbes"))
    return found


def lifecycle(hooks: Obj, grace: int | None, os_name: str | None, path: str) -> list[FieldError]:
    """validateLifecycle: each hook's handler, and a stop signal the pod's OS knows."""
    found: list[FieldError] = []
    for key in ("postStart", "preStop"):
        if hooks.get(key) is not None:
            found += handler(hooks[key] if isinstance(hooks[key], dict) else {}, _LIFECYCLE_HANDLERS, grace,
                             f"{path}.{key}")
    signal = hooks.get("stopSignal")
    if signal is not None:
        if os_name is None:
            found.append(field.forbidden(f"{path}.stopSignal", "may not be set for containers with empty `spec.os.name`"))
        elif os_name == "windows" and signal not in _SIGNALS_WINDOWS:
            found.append(field.not_supported(f"{path}.stopSignal", signal, _SIGNALS_WINDOWS))
        elif os_name == "linux" and signal not in _SIGNALS_LINUX:
            found.append(field.not_supported(f"{path}.stopSignal", signal, _SIGNALS_LINUX))
    return found
