"""What authorization costs a request: a remembered decision beside the full walk over the bindings.

Run: python -m pytest benches/micro/test_authz_bench.py --benchmark-only -q
Group `authorize`: `remembered` is every request after the first for the same user and attributes;
`recompiled` is the first request after any Role or binding changed: the policy compiled again
(aggregation resolved) and the user's bindings gathered and matched, over the bootstrap policy plus
1,000 RoleBindings in other namespaces.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from apiserver.auth import bootstrap_policy
from apiserver.auth.access import Attributes, Authorizer, Policy
from apiserver.auth.tokens import User
from apiserver.storage.interface import Listener

VIEWER = User("alice", "alice", ("fastkube:view", "system:authenticated"))
LIST = Attributes("list", "", "configmaps", None, "default", "")


class _NoStore:
    """The authorizer only subscribes; the policy is handed to it directly."""

    def subscribe(self, storage_key: str, listener: Listener) -> Callable[[], None]:
        return lambda: None


def _objects() -> dict[str, list[dict[str, Any]]]:
    objects: dict[str, list[dict[str, Any]]] = {"roles": [], "rolebindings": [], "clusterroles": [],
                                                "clusterrolebindings": []}
    for item in bootstrap_policy.objects():
        objects[item.resource].append(item.body)
    for i in range(1000):
        objects["rolebindings"].append({
            "metadata": {"name": f"team-{i}", "namespace": f"ns-{i}"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": f"user-{i}"}]})
    return objects


@pytest.fixture(scope="module")
def authorizer() -> Authorizer:
    found = Authorizer(_NoStore())  # type: ignore[arg-type]
    found._policy = Policy(_objects())
    return found


@pytest.mark.benchmark(group="authorize")
def test_remembered(benchmark: BenchmarkFixture, authorizer: Authorizer) -> None:
    authorizer.decide(VIEWER, LIST)
    assert benchmark(authorizer.decide, VIEWER, LIST).allowed


@pytest.mark.benchmark(group="authorize")
def test_recompiled(benchmark: BenchmarkFixture, authorizer: Authorizer) -> None:
    objects = _objects()

    def fresh() -> bool:
        authorizer._policy = Policy(objects)
        authorizer._decisions = {}
        return authorizer.decide(VIEWER, LIST).allowed

    assert benchmark(fresh)
