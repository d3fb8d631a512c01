"""Where admission plugins are registered, and the order they run in: kube-apiserver 1.36's
AllOrderedPlugins (`pkg/kubeapiserver/options/plugins.go`).

A plugin module calls `register` with its upstream name and a factory; `build_chain` makes each
registered plugin for one server and places it by its name's position in `ORDERED_PLUGINS`, whatever
the order modules were imported in. Plugins this server enforces elsewhere (the defaults in
`apiserver.registry.admission_plugins` and `apiserver.kinds.admission`, RBAC's escalation check) are not
registered here yet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from apiserver.admission.chain import AdmissionChain, MutatingPlugin, ValidatingPlugin

ORDERED_PLUGINS = (
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    "NamespaceLifecycle",
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    "TaintNodesByCondition",
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    "Priority",
    "DefaultTolerationSeconds",
    "PodTolerationRestriction",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "PodGroupProtection",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "PodTopologyLabels",
    "PodGroupWorkloadExists",
    "NodeDeclaredFeatureValidator",
    "JobValidation",
    "PodResizeValidator",
    # upstream: "webhook, resourcequota, and deny plugins must go at the end"
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
    "AlwaysDeny",
)
_POSITION = {name: index for index, name in enumerate(ORDERED_PLUGINS)}


@dataclass(frozen=True)
class PluginContext:
    """What a plugin may need from the server it runs in: the store, the endpoint (to read and watch
    other objects), the registry of served types. Typed loosely here so that this package stays
    below `apiserver.http`."""

    store: Any
    endpoint: Any
    registry: Any
    # kube-apiserver's --admission-control-config-file: an AdmissionConfiguration, each plugin's part of it
    # read by that plugin
    admission_config_file: str | None = None
    # The server's authorizer (apiserver.auth.access.Authorizer), which CEL's `authorizer` asks.
    authorizer: Any = None


# A factory answers the plugin (mutating, validating, or both at once), or None when it has nothing to
# enforce on this server.
Factory = Callable[[PluginContext], object | None]
_FACTORIES: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    """Adds a plugin under its upstream name, which places it in the chain."""
    if name not in _POSITION:
        raise ValueError(f"{name!r} is not one of kube-apiserver's admission plugins")
    _FACTORIES[name] = factory


def on_chain() -> frozenset[str]:
    """The upstream names of the plugins this server's admission chain runs (and can turn off)."""
    return frozenset(_FACTORIES)


def unknown_to_disable(names: frozenset[str]) -> str | None:
    """Why `--disable-admission-plugins` cannot take these names, or None: upstream's refusal of a name it
    does not know, and this server's of a plugin it applies outside the chain (which would stay on)."""
    for name in sorted(names):
        if name not in _POSITION:
            return f'disable-admission-plugins plugin "{name}" is unknown'
        if name not in _FACTORIES:
            return f'disable-admission-plugins plugin "{name}" is applied outside the admission chain here'
    return None


def build_chain(context: PluginContext, disabled: frozenset[str] = frozenset()) -> AdmissionChain:
    mutating: list[MutatingPlugin] = []
    validating: list[ValidatingPlugin] = []
    for name in sorted(_FACTORIES, key=_POSITION.__getitem__):
        if name in disabled:
            continue
        plugin = _FACTORIES[name](context)
        if plugin is None:
            continue
        # Upstream's plugins are mutating, validating or both, known by the methods they have.
        if callable(getattr(plugin, "admit", None)):
            mutating.append(plugin)  # type: ignore[arg-type]
        if callable(getattr(plugin, "validate", None)):
            validating.append(plugin)  # type: ignore[arg-type]
    return AdmissionChain(mutating, validating)
