"""cel-go's two-variable comprehensions and `sortBy` (apiserver/cel/macros.py) through kubectl, against
kube-apiserver 1.36.2's recorded answers (tests/fixtures/cel_macros.json, by tools/capture_cel_macros.py):
CRD rules that hold or fail, messageExpressions, rules refused with cel-go's words at the positions of the
text as written (and for cost), a ValidatingAdmissionPolicy's validations, variables and messages, and a
webhook's matchConditions. Then the rewrite's own corners, on compiled programs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import cel_macro_scenarios as scenarios
import pytest
from cel_expr_python import cel
from support import ServerProcess, kubectl_path, run_kubectl, wait_for

from apiserver.cel.environment import CompileError, compile_checked

# Once, on the embedded store: what is checked is decided before the store.
pytestmark = pytest.mark.store_once

ANSWERS: dict[str, tuple[int, list[str]]] = {}


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    kubectl_path()
    kubeconfig = shared_server.kubeconfig
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.create_crds(kubeconfig)})
    wait_for("macroprobes served", lambda: run_kubectl(shared_server, "get", "macroprobes", check=False).returncode == 0)
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.run_probe(kubeconfig)})
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.create_objects(kubeconfig)})
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.run_steps(kubeconfig)})
    yield shared_server


def recorded(part: str) -> list[Any]:
    assert scenarios.FIXTURE.exists(), "record the reference's answers: tools/capture_cel_macros.py"
    return list(json.loads(scenarios.FIXTURE.read_text())[part])


@pytest.mark.parametrize("part", ["crds", "probe", "created", "steps"])
def test_ours_equal_the_recorded_reference(server: ServerProcess, part: str) -> None:
    differing = [(name, (code, lines), ANSWERS.get(name)) for name, code, lines in recorded(part)
                 if ANSWERS.get(name) != (code, lines)]
    assert not differing, differing


def test_rules_hold_and_fail_as_upstreams(server: ServerProcess) -> None:
    code, lines = ANSWERS["probe"]
    assert code == 1
    assert 'spec: Invalid value: "object": insert failed: key x already exists evaluating rule: r17' in lines
    assert [line for line in lines if line.startswith("spec: Invalid value: r")] == [
        "spec: Invalid value: r01", "spec: Invalid value: r03", "spec: Invalid value: r05"]


def evaluate(source: str, data: Any) -> Any:
    outcome = compile_checked(source, {"self": cel.Type.DYN}).evaluate({"self": data})
    assert outcome.error is None, outcome.error
    return outcome.value


@pytest.mark.parametrize(("source", "expected"), [
    ("self.sortBy(x, x).sortBy(y, -y)", [3, 2, 1]),
    ("(self).sortBy(x, x)", [1, 2, 3]),
    ("self.map(x, [x, 0 - x].sortBy(y, y)[0])", [-3, -1, -2]),
    ("self.sortBy(x, [self].sortBy(l, l.size())[0].size() - x)", [3, 2, 1]),
    ("size(self.sortBy(x, x)) == 3 && self.sortBy(x, string(x)) == [1, 2, 3]", True),
    ("self.sortBy(x, ')' + string(x) + '(')", [1, 2, 3]),
    ("self.exists_one(i, v, v == 1) && self.transformMap(i, v, i == 0, v) == {0: 3}", True),
    ("self.transformMap(i, v, [v].transformMap(j, w, (w + i)))", {0: {0: 3}, 1: {0: 2}, 2: {0: 4}}),
    ("self.transformMapEntry(i, v, v > 1, {v: i}).transformMap(k, v, k > 2, v)", {3: 0}),
])
def test_sort_by_finds_its_target_past_nesting_and_strings(source: str, expected: Any) -> None:
    assert evaluate(source, [3, 1, 2]) == expected


@pytest.mark.parametrize(("source", "key"), [
    ("self.transformMapEntry(i, v, {v: i})", 1),
    ("self.transformMap(i, v, 0).transformMapEntry(k, v, {v: k})", 0),
])
def test_a_duplicate_key_is_refused_with_cel_gos_words(source: str, key: int) -> None:
    outcome = compile_checked(source, {"self": cel.Type.DYN}).evaluate({"self": [1, 1]})
    assert outcome.error == f"insert failed: key {key} already exists"


def test_errors_are_placed_in_the_text_as_written() -> None:
    variables = {"self": cel.Type.List(cel.Type.STRING)}
    with pytest.raises(CompileError) as refused:
        compile_checked("self.all(i, v,\n  v.size() > 0) &&\n self.sortBy(e, e + 1) == []", variables)
    assert str(refused.value) == ("ERROR: <input>:3:19: found no matching overload for '_+_' applied to "
                                  "'(string, int)'\n |  self.sortBy(e, e + 1) == []\n | ..................^")
    with pytest.raises(CompileError) as refused:
        compile_checked("self.map(x, {x: 1}).sortBy(e, e) == []", variables)
    assert str(refused.value).startswith("ERROR: <input>:1:27: found no matching overload for '@sortByAssociatedKeys' "
                                         "applied to 'list(map(string, int)).(list(map(string, int)))'")


def test_a_binding_upstream_lacks_stays_refused() -> None:
    with pytest.raises(CompileError, match="undeclared reference to 'cel'"):
        compile_checked("cel.bind(x, self, x.sortBy(e, e)) == []", {"self": cel.Type.List(cel.Type.INT)})
    with pytest.raises(CompileError, match="undeclared reference to 'cel'"):
        compile_checked("cel.bind(x, self, x) == []", {"self": cel.Type.List(cel.Type.INT)})


def test_outputs_are_typed_as_upstreams() -> None:
    labels = {"self": cel.Type.Map(cel.Type.STRING, cel.Type.STRING)}
    assert compile_checked("self.transformMap(k, v, v.size())", labels).output == "map<string, int>"
    assert compile_checked("self.transformMapEntry(k, v, {v: k})", labels).output == "map<string, string>"
    assert compile_checked("self.transformList(k, v, k).sortBy(s, s)", labels).output == "list<string>"
