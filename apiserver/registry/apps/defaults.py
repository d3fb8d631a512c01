"""apps/v1 defaulting: the SetDefaults_* functions of pkg/apis/apps/v1/defaults.go."""

from __future__ import annotations

from typing import Any

from apiserver.registry.core import defaults as core

Obj = dict[str, Any]


def pod_template(holder: Obj) -> Obj:
    """holder's template: a PodTemplateSpec and its PodSpec are Go structs, not pointers, so left out or
    null each decodes as its zero value, which the pod defaults then fill (a template without a spec is
    told its containers are missing, not its spec)."""
    template = holder.get("template")
    if not isinstance(template, dict):
        template = holder["template"] = {}
    if not isinstance(template.get("spec"), dict):
        template["spec"] = {}
    return template


def deployment(obj: Obj) -> None:
    spec = core.spec_of(obj)
    spec.setdefault("replicas", 1)
    strategy = spec.setdefault("strategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    pod_template(core.spec_of(obj))
    core.template_of(obj)


def replica_set(obj: Obj) -> None:
    core.spec_of(obj).setdefault("replicas", 1)
    pod_template(core.spec_of(obj))
    core.template_of(obj)


def stateful_set(obj: Obj) -> None:
    spec = core.spec_of(obj)
    spec.setdefault("replicas", 1)
    spec.setdefault("podManagementPolicy", "OrderedReady")
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        strategy.setdefault("rollingUpdate", {}).setdefault("partition", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    retention = spec.setdefault("persistentVolumeClaimRetentionPolicy", {})
    retention.setdefault("whenDeleted", "Retain")
    retention.setdefault("whenScaled", "Retain")
    for claim in spec.get("volumeClaimTemplates") or ():
        if isinstance(claim, dict):
            claim.setdefault("apiVersion", "v1")
            claim.setdefault("kind", "PersistentVolumeClaim")
            core.persistent_volume_claim(claim)
    pod_template(core.spec_of(obj))
    core.template_of(obj)


def daemon_set(obj: Obj) -> None:
    spec = core.spec_of(obj)
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", 1)
        rolling.setdefault("maxSurge", 0)
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict):
        # Both are plain IntOrStrings in the internal type: a rolling update read back has them, zero if unset.
        rolling.setdefault("maxUnavailable", 0)
        rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    pod_template(core.spec_of(obj))
    core.template_of(obj)
