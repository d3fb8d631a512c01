"""The RBAC objects kube-apiserver creates at start, so that a fresh server grants what a fresh cluster does.

Read from apiserver/data/rbac_bootstrap.json (written by tools/rbac_bootstrap.py off the goldens).
Beyond upstream, one ClusterRoleBinding keeps the `view` role of this server's token file: tokens
written by `token add --role view` carry the group `fastkube:view`, and are viewers. The authorizer
holds that binding itself (VIEW_BINDING), as it holds `system:masters`, instead of storing it: the
stored RBAC objects stay exactly those of a fresh kube-apiserver.
"""

from __future__ import annotations

import importlib.resources
from functools import cache
from typing import Any, NamedTuple

import orjson

RBAC_GROUP = "rbac.authorization.k8s.io"
VIEW_GROUP = "fastkube:view"


class BootstrapObject(NamedTuple):
    resource: str  # plural in rbac.authorization.k8s.io/v1
    namespace: str
    body: dict[str, Any]


VIEW_BINDING: dict[str, Any] = {
    "kind": "ClusterRoleBinding", "apiVersion": f"{RBAC_GROUP}/v1",
    "metadata": {"name": VIEW_GROUP},
    "subjects": [{"kind": "Group", "apiGroup": RBAC_GROUP, "name": VIEW_GROUP}],
    "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": "view"}}


@cache
def _records() -> tuple[bytes, ...]:
    with (importlib.resources.files("apiserver") / "data" / "rbac_bootstrap.json").open("rb") as f:
        return tuple(orjson.dumps(record) for record in orjson.loads(f.read()))


def objects() -> list[BootstrapObject]:
    """Fresh copies, in the order to create them: roles before the bindings that name them."""
    out = []
    for raw in _records():
        record = orjson.loads(raw)
        out.append(BootstrapObject(record["resource"], record["namespace"], record["object"]))
    return out
