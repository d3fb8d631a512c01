"""NamespaceLifecycle's rule on deletes: the namespaces the cluster's own components live in are
immortal (upstream's plugin/namespace/lifecycle registers default, kube-system and kube-public).

Admission runs before the registry looks at dry-run, so a dry-run delete of one is refused too.
"""

from __future__ import annotations

from apiserver import errors

IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


def admit_namespace_delete(name: str) -> None:
    if name in IMMORTAL_NAMESPACES:
        raise errors.forbidden_object("namespaces", "", name, "this namespace may not be deleted")
