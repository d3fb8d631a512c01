"""What one evaluation of a Kubernetes CEL format or authorizer call costs, compiled once.

Run: python -m pytest benches/micro/test_cel_library_bench.py --benchmark-only --benchmark-columns=min,median,rounds
Each rule is compiled as a CRD rule or policy expression is (apiserver/cel/environment.py) and
evaluated on an activation made once, so the figure is the evaluation alone:

- format: `format.dns1123Label().validate(...)` on a valid and an invalid name (the invalid one builds
  upstream's messages), `format.named(...)`, and a bare comparison of the same shape as the baseline.
- authorizer: a resource check answered by the server's RBAC authorizer (apiserver/auth/access.py)
  over a real embedded store holding a Role and RoleBinding, for a user it allows and one it does not
  (both decisions remembered after the first, as on a running server), and a path check it refuses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from cel_expr_python import cel

from apiserver.admission import authorization
from apiserver.auth.access import Authorizer
from apiserver.cel import authz
from apiserver.cel.environment import activation, compile_checked
from apiserver.kinds.resources import builtin_registry
from apiserver.storage.embedded import EmbeddedStore, StoreOptions

STRING = {"name": cel.Type.STRING}
FORMAT_RULES = {
    "baseline size(name) <= 63": "size(name) <= 63",
    "dns1123Label valid": "!format.dns1123Label().validate(name).hasValue()",
    "named(..).hasValue()": "format.named('dns1123Label').hasValue()",
}


@pytest.mark.parametrize("rule", list(FORMAT_RULES))
def test_format(benchmark: Any, rule: str) -> None:
    benchmark.group = "format"
    program = compile_checked(FORMAT_RULES[rule], STRING)
    bound = activation({"name": "web-frontend-7f9c"})
    assert program.evaluate(bound).value is True
    benchmark(program.evaluate, bound)


def test_format_invalid(benchmark: Any) -> None:
    benchmark.group = "format"
    program = compile_checked("format.dns1123Label().validate(name).orValue([]).size()", STRING)
    bound = activation({"name": "Not A Label"})
    assert program.evaluate(bound).value == 1
    benchmark(program.evaluate, bound)


@pytest.fixture
def authorizer(tmp_path: Any) -> Iterator[int]:
    registry = builtin_registry()
    store = EmbeddedStore(StoreOptions(str(tmp_path / "store")))

    def key(plural: str, name: str) -> tuple[str, str, str]:
        rt = registry.lookup("rbac.authorization.k8s.io", "v1", plural)
        assert rt is not None
        return (rt.storage_key, "bench", name)

    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "reader", "namespace": "bench"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "alice-reads", "namespace": "bench"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
               "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]}
    loop = asyncio.new_event_loop()

    async def fill() -> None:
        await store.submit(key("roles", "reader"), role, None)
        await store.submit(key("rolebindings", "alice-reads"), binding, None)
    loop.run_until_complete(fill())
    number = authorization.register(Authorizer(store))
    assert number is not None
    yield number
    loop.close()


CHECKS = {
    "resource allowed": ("alice", "authorizer.group('').resource('pods').namespace('bench').check('get').allowed()", True),
    "resource denied": ("bob", "authorizer.group('').resource('pods').namespace('bench').check('get').allowed()", False),
    "path denied": ("alice", "authorizer.path('/healthz').check('get').allowed()", False),
}


@pytest.mark.parametrize("check", list(CHECKS))
def test_authorizer(benchmark: Any, authorizer: int, check: str) -> None:
    benchmark.group = "authorizer"
    user, source, expected = CHECKS[check]
    program = compile_checked(source, {"authorizer": cel.Type.DYN})
    value = authz.authorizer_value(authorizer, user, ("system:authenticated",), "", "configmaps", "", "bench", "x")
    bound = activation({"authorizer": value})
    assert program.evaluate(bound).value is expected
    benchmark(program.evaluate, bound)
