"""apps/v1's strategies: pkg/registry/apps/<kind>/strategy.go, one KindStrategy per kind served."""

from __future__ import annotations

from typing import Any

from apiserver.registry.apps import (
    defaults,
    statefulset_validation,
    status_validation,
    template_fields,
    validation,
    warnings,
)
from apiserver.registry.meta import label_name
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]

_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
_TEMPLATE = ("spec", "template")
# The MaxUnavailableStatefulSet feature gate, off by default in 1.36 (beta).
_MAX_UNAVAILABLE_STATEFUL_SET = False


def _daemon_set_create(obj: Obj) -> None:
    # Set before managed fields are taken: kube-apiserver records it as the creator's. A created
    # DaemonSet's template generation is 1, whatever generation the body names.
    obj["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = "1"


def _daemon_set_keep(new: Obj, old: Obj) -> None:
    """The template generation is the internal spec's, kept from the stored object (an update cannot set
    it), so it is there when managed fields are taken, as upstream converts the new object back."""
    previous = (old["metadata"].get("annotations") or {}).get(_TEMPLATE_GENERATION)
    if previous is not None:
        new["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = previous


def _template_create(obj: Obj) -> None:
    template_fields.drop_on_create(obj, _TEMPLATE)


def _template_update(new: Obj, old: Obj) -> None:
    template_fields.drop_on_update(new, old, _TEMPLATE)


def _daemon_set_update(new: Obj, old: Obj) -> None:
    """A changed template is a new generation of it (PrepareForUpdate), judged after the template's
    disabled fields are dropped."""
    _template_update(new, old)
    if (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
        previous = (old["metadata"].get("annotations") or {}).get(_TEMPLATE_GENERATION)
        new["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = str(int(previous or 0) + 1)


def _deployment_update(new: Obj, old: Obj) -> None:
    """A deployment's annotations are part of what it asks for (rollout pauses and change causes live
    there): a change of them is a new generation too, as upstream's PrepareForUpdate counts it."""
    _template_update(new, old)
    if (new["metadata"].get("annotations") or {}) != (old["metadata"].get("annotations") or {}):
        new["metadata"]["generation"] = int(old["metadata"].get("generation") or 0) + 1


def _rolling_update(obj: Obj | None) -> Obj | None:
    strategy = ((obj or {}).get("spec") or {}).get("updateStrategy")
    rolling = strategy.get("rollingUpdate") if isinstance(strategy, dict) else None
    return rolling if isinstance(rolling, dict) else None


def _drop_stateful_set_disabled_fields(new: Obj, old: Obj | None) -> None:
    """dropStatefulSetDisabledFields: maxUnavailable stays only behind its gate, or where it was in use."""
    old_rolling = _rolling_update(old)
    if _MAX_UNAVAILABLE_STATEFUL_SET or (old_rolling is not None and old_rolling.get("maxUnavailable") is not None):
        return
    rolling = _rolling_update(new)
    if rolling is not None:
        rolling.pop("maxUnavailable", None)


def _stateful_set_create(obj: Obj) -> None:
    """PrepareForCreate: after the managed fields are taken, so the creator still owns a dropped field."""
    _drop_stateful_set_disabled_fields(obj, None)
    _template_create(obj)


def _stateful_set_update(new: Obj, old: Obj) -> None:
    _drop_stateful_set_disabled_fields(new, old)
    _template_update(new, old)


STRATEGIES: dict[str, Strategy] = {
    # The deployment status strategy's reset fields leave the labels alone as well.
    "Deployment": KindStrategy(default=defaults.deployment, prepare_for_create=_template_create,
                               prepare_for_update=_deployment_update,
                               validate=validation.deployment,
                               validate_update=validation.deployment_update, status_keeps_labels=True,
                               validate_subresource_update=status_validation.deployment_status_update,
                               warnings_on_create=warnings.replica_set_on_create,
                               warnings_on_update=warnings.template_on_update),
    "ReplicaSet": KindStrategy(default=defaults.replica_set, prepare_for_create=_template_create,
                               prepare_for_update=_template_update, validate=validation.replica_set,
                               validate_update=validation.replica_set_update,
                               validate_subresource_update=status_validation.replica_set_status_update,
                               warnings_on_create=warnings.replica_set_on_create,
                               warnings_on_update=warnings.template_on_update),
    # Its pods are named after it with an ordinal, and their names are hostnames: a DNS label.
    "StatefulSet": KindStrategy(default=defaults.stateful_set, prepare_for_create=_stateful_set_create,
                                prepare_for_update=_stateful_set_update,
                                validate=statefulset_validation.stateful_set,
                                validate_update=statefulset_validation.stateful_set_update, name_rule=label_name,
                                warnings_on_create=warnings.stateful_set_on_create,
                                warnings_on_update=warnings.stateful_set_on_update,
                                validate_subresource_update=status_validation.stateful_set_status_update),
    "DaemonSet": KindStrategy(default=defaults.daemon_set, own_on_create=_daemon_set_create,
                              keep_on_update=_daemon_set_keep, prepare_for_create=_template_create,
                              prepare_for_update=_daemon_set_update, validate=validation.daemon_set,
                              validate_update=validation.daemon_set_update,
                              warnings_on_create=warnings.template_on_create,
                              warnings_on_update=warnings.daemon_set_on_update,
                              validate_subresource_update=status_validation.daemon_set_status_update),
    "ControllerRevision": KindStrategy(validate=validation.controller_revision,
                                       validate_update=validation.controller_revision_update),
}
