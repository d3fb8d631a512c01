"""Which CEL engine runs Kubernetes' rules: cel-expr-python vs cel-python vs common-expression-language.

Run: python -m pytest benches/micro/test_cel_bench.py --benchmark-only --benchmark-columns=min,median,rounds
Three groups, one per question the server asks of an engine:

- compile: parse (and, where the engine can, type-check) one rule. Done once per CRD schema or
  policy generation, so it matters only for the first write after a change.
- eval: evaluate an already compiled rule against a decoded object. Done on every write the rule
  applies to, so this is the figure that decides the cost of a policy per write.
- eval-deep: a rule over a 50-item list with a macro, the shape of Gateway API's and cluster-api's
  rules (`self.all(x, ...)`), where a per-element interpreter step dominates.
- eval-macros: cel-go's two-variable comprehensions and `sortBy` (apiserver/cel/macros.py) over 50
  items or entries, each against an equivalent single-variable expression, in the server's environment.
- eval-traced: the deep rule's runtime cost traced (apiserver/cel/runtimecost.py), beside its evaluation:
  what a write pays for a rule whose static estimate could pass a cost limit (apiserver/cel/budget.py).

The engines:

- `cel-expr-python` (Google's, the C++ `cel-cpp` runtime behind pybind11): type checks against
  declared variables, parses `.?field` and `optional.*`, has the strings extension of cel-go
  (lowerAscii, split, join, ...), and accepts Python functions as member or global overloads.
- `cel-python` (`celpy`, pure Python on lark): no type checker, no optional syntax, no strings
  extension; Python functions can be added as globals.
- `common-expression-language` (`cel`, Rust's cel-interpreter behind PyO3): no type checker, no
  `.?` syntax, no strings extension; globals only.

`test_engine_supports` is not timed: it records which Kubernetes needs each engine meets, so the
choice reads beside the numbers. None of them exposes cel-go's cost estimator or runtime cost
tracker, so that need does not separate them; the server replays cel-go's tracker in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from apiserver.cel import budget, environment

cel_expr = pytest.importorskip("cel_expr_python.cel")
celpy = pytest.importorskip("celpy")
rustcel = pytest.importorskip("cel")

RULES = {
    "compare": "self.replicas <= self.maxReplicas",
    "all-startsWith": "self.items.all(x, x.name.startsWith('a'))",
    "has": "!has(self.selector) && self.replicas > 0",
    "string-size": "size(self.name) <= 63 && self.name.matches('^[a-z0-9-]+$')",
    "map-exists": "self.labels.exists(k, k == 'app')",
}

OBJECT: dict[str, Any] = {
    "replicas": 2,
    "maxReplicas": 5,
    "name": "web-frontend",
    "items": [{"name": f"a{i}", "port": 8000 + i} for i in range(3)],
    "labels": {"app": "web", "tier": "frontend"},
}
DEEP: dict[str, Any] = {**OBJECT, "items": [{"name": f"a{i}", "port": 8000 + i} for i in range(50)],
                        "annotations": {f"k{i:02d}": f"v{i}" for i in range(50)}}
# (two-variable or sortBy form, an equivalent single-variable one), each True on DEEP.
MACROS = {
    "all": ("self.items.all(i, x, x.name.startsWith('a'))", "self.items.all(x, x.name.startsWith('a'))"),
    "exists-map": ("self.annotations.exists(k, v, v == 'v49')", "self.annotations.exists(k, self.annotations[k] == 'v49')"),
    "transformList": ("self.items.transformList(i, x, x.port).size() == 50",
                      "self.items.map(x, x.port).size() == 50"),
    "transformMap": ("self.annotations.transformMap(k, v, v + '!')['k49'] == 'v49!'",
                     "'v49!' in self.annotations.map(k, self.annotations[k] + '!')"),
    "transformMapEntry": ("self.items.transformMapEntry(i, x, {x.name: x.port})['a49'] == 8049",
                          "self.items.map(x, [x.name, x.port])[49][1] == 8049"),
    "sortBy": ("self.items.sortBy(x, -x.port)[0].port == 8049", "self.items.map(x, -x.port).sort()[0] == -8049"),
}


class CelExprPython:
    def __init__(self) -> None:
        from cel_expr_python.ext import ext_optional, ext_strings

        self.env = cel_expr.NewEnv(
            variables={"self": cel_expr.Type.DYN},
            extensions=[ext_optional.ExtOptional(), ext_strings.ExtStrings()],
        )

    def compile(self, src: str) -> Any:
        return self.env.compile(src)

    def run(self, program: Any, obj: dict[str, Any]) -> Any:
        return program.eval(data={"self": obj}).value()


class CelPython:
    def __init__(self) -> None:
        self.env = celpy.Environment()

    def compile(self, src: str) -> Any:
        return self.env.program(self.env.compile(src))

    def run(self, program: Any, obj: dict[str, Any]) -> Any:
        # celpy evaluates its own wrapped types: converting the object is part of every evaluation.
        return bool(program.evaluate({"self": celpy.json_to_cel(obj)}))


class CommonExpressionLanguage:
    def compile(self, src: str) -> Any:
        return rustcel.compile(src)

    def run(self, program: Any, obj: dict[str, Any]) -> Any:
        return program.execute({"self": obj})


class ServerEnvironment:
    """The engine as the server wires it: cel-expr-python with Kubernetes' libraries, cost tracked."""

    def compile(self, src: str) -> Any:
        environment._compile.cache_clear()  # time a compile, not a cache hit
        return environment.compile_checked(src, {"self": cel_expr.Type.DYN})

    def run(self, program: Any, obj: dict[str, Any]) -> Any:
        return program.evaluate({"self": obj}).value


ENGINES: dict[str, Callable[[], Any]] = {
    "cel-expr-python": CelExprPython,
    "cel-python": CelPython,
    "common-expression-language": CommonExpressionLanguage,
    "server(cel-expr-python+k8s)": ServerEnvironment,
}


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("rule", list(RULES))
def test_compile(benchmark: Any, engine: str, rule: str) -> None:
    benchmark.group = f"compile {rule}"
    runner = ENGINES[engine]()
    benchmark(runner.compile, RULES[rule])


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("rule", list(RULES))
def test_eval(benchmark: Any, engine: str, rule: str) -> None:
    benchmark.group = f"eval {rule}"
    runner = ENGINES[engine]()
    program = runner.compile(RULES[rule])
    assert runner.run(program, OBJECT) is True
    benchmark(runner.run, program, OBJECT)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_eval_deep(benchmark: Any, engine: str) -> None:
    benchmark.group = "eval-deep all-startsWith (50 items)"
    runner = ENGINES[engine]()
    program = runner.compile(RULES["all-startsWith"])
    assert runner.run(program, DEEP) is True
    benchmark(runner.run, program, DEEP)


@pytest.mark.parametrize("form", ["macro", "single-variable"])
@pytest.mark.parametrize("macro", list(MACROS))
def test_eval_macros(benchmark: Any, macro: str, form: str) -> None:
    benchmark.group = f"eval-macros {macro} (50)"
    runner = ServerEnvironment()
    program = runner.compile(MACROS[macro][0 if form == "macro" else 1])
    assert runner.run(program, DEEP) is True
    benchmark(runner.run, program, DEEP)


@pytest.mark.parametrize("step", ["evaluate", "trace"])
def test_eval_traced(benchmark: Any, step: str) -> None:
    benchmark.group = "eval-traced all-startsWith (50 items)"
    program = environment.compile_checked(RULES["all-startsWith"], {"self": cel_expr.Type.DYN})
    data = {"self": DEEP}
    if step == "evaluate":
        assert program.evaluate(data).value is True
        benchmark(program.evaluate, data)
    else:
        traced = budget.actual_cost(program, data, budget.PER_CALL_LIMIT)
        assert traced is not None and not traced.exceeded
        # a new request's values each round: the tracker keeps its last walks by the values they ran on
        benchmark(lambda: budget.actual_cost(program, {"self": DEEP}, budget.PER_CALL_LIMIT))


NEEDS = {
    # Kubernetes' rules use these daily; each must compile and evaluate to True on OBJECT.
    "macros": "self.items.exists_one(x, x.name == 'a1') && self.items.map(x, x.port).all(p, p > 0)",
    "has": "!has(self.selector)",
    "optional-syntax": "self.?selector.orValue('') == ''",
    "strings-ext": "self.name.lowerAscii().split('-').size() == 2",
    "regex": "self.name.matches('^web-')",
}


def _supports(engine: str, src: str) -> bool:
    runner = ENGINES[engine]()
    try:
        return bool(runner.run(runner.compile(src), OBJECT) is True)
    except Exception:  # noqa: BLE001 - an engine refusing a rule, however it says so, is the answer
        return False


def test_engine_supports() -> None:
    table = {engine: {need: _supports(engine, src) for need, src in NEEDS.items()} for engine in ENGINES}
    typed = cel_expr.NewEnv(variables={"self": cel_expr.Type.Map(cel_expr.Type.STRING, cel_expr.Type.INT)})
    try:
        typed.compile("self.x.startsWith('a')")
        type_checks = False
    except RuntimeError:
        type_checks = True
    print("\nengine support:", table, "cel-expr-python type-checks:", type_checks)
    assert all(table["cel-expr-python"].values()) and type_checks
    assert all(table["server(cel-expr-python+k8s)"].values())
    assert not table["cel-python"]["optional-syntax"] and not table["common-expression-language"]["optional-syntax"]
