"""What a ValidatingAdmissionPolicy costs a write, at the plugin: the figures benches/policy_cost.py
measures through the whole app, without the rest of the write around them.

Run: python -m pytest benches/micro/test_policy_bench.py --benchmark-only --benchmark-columns=min,median,rounds
The plugin is built over a real embedded store holding the policies, their bindings and the
namespace, and started as the server starts it. Timed, for a ConfigMap update in that namespace:

- handles, 10 unmatched: ten bound policies that select Deployments only; the chain asks `handles`
  on every write, and this is all an unmatched policy costs.
- validate, 1 matched / 10 matched: bound policies that select the write, each with a variable, two
  validations (one a macro over the data) and a messageExpression, all passing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from apiserver.admission.attributes import Attributes, GroupVersionKind, GroupVersionResource
from apiserver.admission.plugins import PluginContext
from apiserver.admission.policy.validating import ValidatingAdmissionPolicyPlugin
from apiserver.auth.tokens import User
from apiserver.kinds.resources import builtin_registry
from apiserver.storage.embedded import EmbeddedStore, StoreOptions
from benches.policy_cost import _binding, _policy

NAMESPACE = "bench-policies"


def _attributes() -> Attributes:
    new = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target", "namespace": NAMESPACE,
                                                                  "labels": {"app": "web"}},
           "data": {"a": "1", "b": "x" * 40}}
    old = {**new, "data": {"a": "0", "b": "x" * 40}}
    return Attributes("UPDATE", GroupVersionKind("", "v1", "ConfigMap"), GroupVersionResource("", "v1", "configmaps"),
                      "", NAMESPACE, "target", new, old, User("admin", "", ("system:masters",)), False, None)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def _plugin(tmp_path: Any, loop: asyncio.AbstractEventLoop, matched: int, unmatched: int) -> Any:
    registry = builtin_registry()
    store = EmbeddedStore(StoreOptions(str(tmp_path / "store")))

    def key(plural: str, name: str, group: str = "admissionregistration.k8s.io") -> tuple[str, str, str]:
        rt = registry.lookup(group, "v1", plural)
        assert rt is not None
        return (rt.storage_key, "", name)

    async def fill() -> ValidatingAdmissionPolicyPlugin:
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
        await store.submit(key("namespaces", NAMESPACE, ""), namespace, None)
        policies = [_policy(f"unmatched-{i}", "deployments", "apps") for i in range(unmatched)]
        policies += [_policy(f"matched-{i}", "configmaps", "") for i in range(matched)]
        for policy in policies:
            name = policy["metadata"]["name"]
            await store.submit(key("validatingadmissionpolicies", name), policy, None)
            await store.submit(key("validatingadmissionpolicybindings", name), _binding(name), None)
        plugin = ValidatingAdmissionPolicyPlugin(PluginContext(store, None, registry))
        await plugin.start()
        return plugin
    return loop.run_until_complete(fill())


def test_handles_ten_unmatched(benchmark: Any, tmp_path: Any, loop: asyncio.AbstractEventLoop) -> None:
    benchmark.group = "policy plugin"
    plugin = _plugin(tmp_path, loop, matched=0, unmatched=10)
    attributes = _attributes()
    assert plugin.handles(attributes) is False
    benchmark(plugin.handles, attributes)


@pytest.mark.parametrize("matched", [1, 10])
def test_validate_matched(benchmark: Any, tmp_path: Any, loop: asyncio.AbstractEventLoop, matched: int) -> None:
    benchmark.group = "policy plugin"
    plugin = _plugin(tmp_path, loop, matched=matched, unmatched=10)
    attributes = _attributes()
    assert plugin.handles(attributes) is True

    def validate() -> Any:
        return loop.run_until_complete(plugin.validate(attributes))
    assert validate() == ((), ())
    benchmark(validate)
