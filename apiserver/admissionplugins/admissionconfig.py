"""kube-apiserver's `--admission-control-config-file`: an AdmissionConfiguration
(apiserver.config.k8s.io/v1, or v1alpha1) naming each plugin's configuration inline or by `path`.

Only PodSecurity's is read: a PodSecurityConfiguration (pod-security.admission.config.k8s.io/v1)
with the default policy of unlabelled namespaces and the exempt usernames, runtime classes and
namespaces. A file that cannot be read or parsed stops the server, as upstream's does.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

from apiserver.admissionplugins.podsecurity import (
    Exemptions,
    LevelVersion,
    Policy,
    parse_level,
    parse_version,
)


class ConfigError(ValueError):
    pass


def load(path: str | None) -> Exemptions:
    """The PodSecurity configuration of the file at `path`; upstream's defaults without one."""
    if not path:
        return Exemptions()
    document = _read(path)
    if not isinstance(document, dict) or document.get("kind") != "AdmissionConfiguration":
        raise ConfigError(f"{path}: not an AdmissionConfiguration")
    for plugin in document.get("plugins") or ():
        if not isinstance(plugin, dict) or plugin.get("name") != "PodSecurity":
            continue
        configuration = plugin.get("configuration")
        if configuration is None and plugin.get("path"):
            # a relative path is taken from the admission configuration's directory
            configuration = _read(os.path.join(os.path.dirname(os.path.abspath(path)), plugin["path"]))
        return pod_security(configuration or {})
    return Exemptions()


def _read(path: str) -> Any:
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: {exc}") from None


def pod_security(configuration: dict[str, Any]) -> Exemptions:
    if configuration.get("kind") not in (None, "PodSecurityConfiguration"):
        raise ConfigError(f"PodSecurity: expected a PodSecurityConfiguration, not {configuration.get('kind')}")
    defaults = configuration.get("defaults") or {}
    modes = []
    for mode in ("enforce", "audit", "warn"):
        level, problem = parse_level(str(defaults.get(mode, "privileged")))
        version, version_problem = parse_version(str(defaults.get(f"{mode}-version", "latest")))
        if problem or version_problem:
            raise ConfigError(f"PodSecurity: defaults.{mode}: {problem or version_problem}")
        modes.append(LevelVersion(level, version))
    exemptions = configuration.get("exemptions") or {}
    return Exemptions(Policy(*modes), tuple(exemptions.get("usernames") or ()),
                      tuple(exemptions.get("runtimeClasses") or ()), tuple(exemptions.get("namespaces") or ()))
