"""node.k8s.io/v1's strategy: pkg/registry/node/runtimeclass/strategy.go."""

from __future__ import annotations

from apiserver.registry.node import validation, warnings
from apiserver.registry.strategy import KindStrategy, Strategy

# The reference takes a bare finalizer name on a RuntimeClass: its metadata is judged by apimachinery alone.
STRATEGIES: dict[str, Strategy] = {
    "RuntimeClass": KindStrategy(
        kube_finalizers=False, creates_on_update=True, validate=validation.runtime_class,
        validate_update=validation.runtime_class_update,
        warnings_on_create=warnings.runtime_class, warnings_on_update=lambda new, old: warnings.runtime_class(new)),
}
