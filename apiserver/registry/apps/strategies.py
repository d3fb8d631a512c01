"""apps/v1's strategies: pkg/registry/apps/<kind>/strategy.go, one KindStrategy per kind served."""

from __future__ import annotations

from typing import Any

from apiserver.registry.apps import defaults, validation
from apiserver.registry.strategy import NO_RULES, KindStrategy, Strategy

Obj = dict[str, Any]

_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


def _daemon_set_create(obj: Obj) -> None:
    # Set before managed fields are taken: kube-apiserver records it as the creator's. A created
    # DaemonSet's template generation is 1, whatever generation the body names.
    obj["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = "1"


def _daemon_set_update(new: Obj, old: Obj) -> None:
    annotations = new["metadata"].setdefault("annotations", {})
    previous = (old["metadata"].get("annotations") or {}).get(_TEMPLATE_GENERATION)
    if previous is not None:
        annotations.setdefault(_TEMPLATE_GENERATION, previous)
    if (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
        annotations[_TEMPLATE_GENERATION] = str(int(previous or 0) + 1)


STRATEGIES: dict[str, Strategy] = {
    # The deployment status strategy's reset fields leave the labels alone as well.
    "Deployment": KindStrategy(default=defaults.deployment, validate=validation.deployment,
                               validate_update=validation.deployment_update, status_keeps_labels=True),
    "ReplicaSet": KindStrategy(default=defaults.replica_set, validate=validation.replica_set,
                               validate_update=validation.replica_set_update),
    "StatefulSet": KindStrategy(default=defaults.stateful_set, validate=validation.stateful_set,
                                validate_update=validation.stateful_set_update),
    "DaemonSet": KindStrategy(default=defaults.daemon_set, own_on_create=_daemon_set_create,
                              prepare_for_update=_daemon_set_update, validate=validation.daemon_set,
                              validate_update=validation.daemon_set_update),
    "ControllerRevision": NO_RULES,
}
