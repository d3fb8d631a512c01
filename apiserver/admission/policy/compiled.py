"""A ValidatingAdmissionPolicy compiled once per generation, and evaluated for one request and param.

Upstream: `admission/plugin/policy/validating/validator.go` and `admission/plugin/cel`. Every
expression is compiled against `dyn` variables (object, oldObject, request, params, namespaceObject,
variables), as upstream compiles them when it cannot resolve a type, so a policy that compiles here
compiles there. `variables` are evaluated in order before the validations and bound as a map; a
variable whose evaluation fails is left out, and an expression that reads it fails with upstream's
`composited variable "v" fails to evaluate: <error>`, as its lazily evaluated variables answer.
Decisions carry upstream's messages: `failed expression: <expr>` when a rule has neither message nor
messageExpression, `expression '<expr>' resulted in error: <error>` for a failed evaluation,
`compilation failed: ...` for an expression that does not compile.

Runtime cost (apiserver/cel/budget.py): each expression is cancelled past the per-call limit; the
matchConditions share a budget of 2.5M, the validations another of 10M, drawn on in order, a variable's
cost charged to the first expression that reads it (upstream evaluates variables lazily, once per
filter); the messageExpressions, all of them, draw on what the validations left. Running out of budget
makes the binding's one decision an error, `validation failed due to running out of cost budget, no
further validation rules will be run`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from cel_expr_python import cel

from apiserver.admission.policy.applyconfiguration import rewrite
from apiserver.cel import cost
from apiserver.cel.budget import (
    LIMIT_EXCEEDED,
    MATCH_CONDITIONS_BUDGET,
    OUT_OF_BUDGET,
    PER_CALL_LIMIT,
    RUNTIME_BUDGET,
    Budget,
    actual_cost,
)
from apiserver.cel.environment import CompileError, Program, activation, compile_checked

VARIABLES = ("object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer")
_DYN = {name: cel.Type.DYN for name in VARIABLES}
# A messageExpression is compiled and run without the authorizer (upstream: HasAuthorizer false).
_DYN_WITHOUT_AUTHORIZER = {name: cel.Type.DYN for name in VARIABLES if name != "authorizer"}
_MAX_MESSAGE = 5 * 1024
_NO_SUCH_KEY = "no such key: "
_VARIABLE_READ = re.compile(r"\bvariables\.([A-Za-z_][A-Za-z0-9_]*)")

Action = Literal["admit", "deny", "error"]


@dataclass(frozen=True)
class Expression:
    source: str
    program: Program | None
    error: str | None
    most: int = 0  # the static estimate of its cost, which bounds what an evaluation can cost

    def spend(self, budget: Budget, data: dict[str, Any]) -> Any:
        """Its cost drawn from `budget` (apiserver/cel/budget.py's Charge)."""
        assert self.program is not None
        return budget.spend(self.program, data, self.most)

    @property
    def cancelled(self) -> str:
        return f"expression '{self.source}' resulted in error: {LIMIT_EXCEEDED}"

    def run(self, data: Any, failed: dict[str, str] | None = None) -> tuple[Any, str | None]:
        """The value, or upstream's error; `failed`: the errors of the variables that failed to evaluate."""
        if self.program is None:
            return None, f"compilation error: {self.error}"
        value, error = _evaluated(self, data, failed or {})
        if error is not None:
            return None, f"expression '{self.source}' resulted in error: {error}"
        return value, None


def _evaluated(expression: Expression, data: Any, failed: dict[str, str]) -> tuple[Any, str | None]:
    """The value or the evaluation's own error. A variable that failed is absent from `variables`, so
    reading it fails as a missing key: that error is the variable's, as upstream's lazy map answers it."""
    if expression.program is None:
        return None, f"compilation error: {expression.error}"
    outcome = expression.program.evaluate(data)
    error = outcome.error
    if error is None:
        return outcome.value, None
    if error.startswith(_NO_SUCH_KEY) and error[len(_NO_SUCH_KEY):] in failed:
        error = failed[error[len(_NO_SUCH_KEY):]]
    return None, error


def compile_expression(source: str, want: tuple[str, ...] | None = None, authorizer: bool = True) -> Expression:
    """`source` compiled against the policy variables, with upstream's error when it does not compile."""
    try:
        program = compile_checked(source, _DYN if authorizer else _DYN_WITHOUT_AUTHORIZER)
    except CompileError as error:
        return Expression(source, None, f"compilation failed: {error}")
    if want is not None and not program.returns(want):
        expected = want[0] if len(want) == 1 else "one of [" + " ".join(want) + "]"
        return Expression(source, None, f"must evaluate to {expected} but got {program.output}")
    return Expression(source, program, None, min(program.max_cost(_request_sizes), cost.MAX))


def conditions_cost(conditions: Sequence[Expression], data: dict[str, Any]) -> set[int] | None:
    """The matchConditions' costs drawn from their budget, as upstream evaluates them all before it
    reads any (running out in a later one answers even where an earlier one is false): the indexes of
    those cancelled past the per-call limit, or None when the budget ran out."""
    budget, cancelled = Budget(MATCH_CONDITIONS_BUDGET), set()
    for index, expression in enumerate(conditions):
        if expression.program is None:
            continue
        charge = expression.spend(budget, data)
        if charge.over_budget:
            return None
        if charge.over_limit:
            cancelled.add(index)
    return cancelled


def _request_sizes(path: Sequence[str]) -> cost.Size | None:
    """The most a value of the request can hold (its object, old object, params, namespace): no more
    characters, items or entries than a request's bytes. A variable's value is an expression's, unbounded."""
    if not path or path[0] == "variables":
        return None
    return cost.Size(0, cost.MAX_REQUEST_BYTES)


@dataclass(frozen=True)
class Validation:
    expression: Expression
    message: str
    message_expression: Expression | None
    reason: str


@dataclass(frozen=True)
class Decision:
    action: Action
    message: str
    reason: str = "Invalid"


@dataclass
class CompiledPolicy:
    name: str
    spec: dict[str, Any]
    failure_policy: str
    match_conditions: list[tuple[str, Expression]] = field(default_factory=list)
    variables: list[tuple[str, Expression]] = field(default_factory=list)
    validations: list[Validation] = field(default_factory=list)
    audit_annotations: list[tuple[str, Expression]] = field(default_factory=list)
    # MutatingAdmissionPolicy: (patchType, expression) of each mutation, in order.
    mutations: list[tuple[str, Expression]] = field(default_factory=list)

    @classmethod
    def of(cls, policy: dict[str, Any]) -> CompiledPolicy:
        spec = policy.get("spec") or {}
        compiled = cls(str(policy["metadata"]["name"]), spec, str(spec.get("failurePolicy") or "Fail"))
        for condition in spec.get("matchConditions") or ():
            compiled.match_conditions.append((str(condition.get("name", "")),
                                              compile_expression(str(condition.get("expression", "")), ("bool",))))
        for variable in spec.get("variables") or ():
            compiled.variables.append((str(variable.get("name", "")),
                                       compile_expression(str(variable.get("expression", "")))))
        for validation in spec.get("validations") or ():
            message_source = str(validation.get("messageExpression") or "")
            compiled.validations.append(Validation(
                compile_expression(str(validation.get("expression", "")), ("bool",)),
                str(validation.get("message") or ""),
                compile_expression(message_source, ("string",), authorizer=False) if message_source else None,
                str(validation.get("reason") or "Invalid")))
        for mutation in spec.get("mutations") or ():
            kind = str(mutation.get("patchType") or "")
            source = (mutation.get("jsonPatch") if kind == "JSONPatch" else mutation.get("applyConfiguration")) or {}
            text = str(source.get("expression", ""))
            if kind == "JSONPatch":
                compiled.mutations.append((kind, compile_expression(text)))
            else:  # its Object literals compiled as maps; errors quote the expression as written
                compiled.mutations.append((kind, replace(compile_expression(rewrite(text)), source=text)))
        for annotation in spec.get("auditAnnotations") or ():
            compiled.audit_annotations.append((str(annotation.get("key", "")), compile_expression(
                str(annotation.get("valueExpression", "")), ("string", "null_type"))))
        return compiled

    def _for_error(self, message: str) -> Decision:
        return Decision("deny" if self.failure_policy == "Fail" else "admit", message)

    def conditions_match(self, data: dict[str, Any]) -> Decision | bool:
        """False when a matchCondition is false; a decision when one failed under failurePolicy Fail.
        Upstream's matcher evaluates them without the namespace: namespaceObject is null there."""
        if not self.match_conditions:
            return True
        errors = []
        values = {**data, "namespaceObject": None}
        bound = activation(values)
        cancelled = conditions_cost([expression for _, expression in self.match_conditions], values)
        if cancelled is None:
            return self._for_error(OUT_OF_BUDGET) if self.failure_policy == "Fail" else False
        for index, (_, expression) in enumerate(self.match_conditions):
            if index in cancelled:
                errors.append(expression.cancelled)
                continue
            value, error = expression.run(bound)
            if error is not None:
                errors.append(error)
            elif value is False:
                return False
        if errors:
            if self.failure_policy != "Fail":
                return False
            return self._for_error(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
        return True

    def bind_variables(self, data: dict[str, Any]) -> dict[str, str]:
        """Binds `variables` in `data`; answers the errors of those that failed, by name."""
        values: dict[str, Any] = {}
        failed: dict[str, str] = {}
        data["variables"] = values
        bound = None
        for name, expression in self.variables:
            # One that costs more than the per-call limit is cancelled, as its own evaluation is upstream.
            if expression.program is not None and expression.most > PER_CALL_LIMIT:
                traced = actual_cost(expression.program, data, PER_CALL_LIMIT)
                if traced is not None and traced.exceeded:
                    failed[name] = f'composited variable "{name}" fails to evaluate: {LIMIT_EXCEEDED}'
                    continue
            # A variable that reads others sees those bound so far; the rest share one activation.
            if bound is None or "variables" in expression.source:
                bound = activation(data)
            value, error = _evaluated(expression, bound, failed)
            if error is None:
                values[name] = value
            else:
                failed[name] = f'composited variable "{name}" fails to evaluate: {error}'
        return failed

    def _read_variables(self, expression: Expression) -> list[Expression]:
        """The variables an expression reads, and those they read, each before its readers."""
        by_name = dict(self.variables)
        found: dict[str, Expression] = {}

        def visit(source: str) -> None:
            for name in _VARIABLE_READ.findall(source):
                if name in by_name and name not in found:
                    visit(by_name[name].source)
                    found[name] = by_name[name]
        visit(expression.source)
        return [variable for variable in found.values() if variable.program is not None]

    def _spend(self, expression: Expression, budget: Budget, data: dict[str, Any], read: set[int]) -> Any:
        """An expression's cost and, first, that of the variables it is the first to read (`read`: those
        read before, by id): upstream's composition cost, then its own."""
        for variable in self._read_variables(expression):
            if id(variable) not in read:
                read.add(id(variable))
                if variable.spend(budget, data).over_budget:
                    return None
        charge = expression.spend(budget, data)
        return None if charge.over_budget else charge

    def run_alone(self, expression: Expression, data: dict[str, Any], failed: dict[str, str]) -> tuple[Any, str | None]:
        """A mutation's value or error: it has a budget of its own (upstream's patcher evaluates each with a
        fresh RuntimeCELCostBudget), drawn on by the variables it reads and then by itself."""
        if expression.program is None:
            return expression.run(data, failed)
        charge = self._spend(expression, Budget(RUNTIME_BUDGET), data, set())
        if charge is None:
            return None, OUT_OF_BUDGET
        if charge.over_limit:
            return None, expression.cancelled
        return expression.run(data, failed)

    def decide(self, bound: Any, data: dict[str, Any], failed: dict[str, str]) -> list[Decision]:
        """The validations' decisions, on the activation of the request's values and variables (`data`);
        `failed`: the variables that failed to evaluate."""
        budget, read = Budget(RUNTIME_BUDGET), set[int]()
        outcomes: list[tuple[Any, str | None]] = []
        for validation in self.validations:
            if validation.expression.program is None:
                outcomes.append(validation.expression.run(bound, failed))
                continue
            charge = self._spend(validation.expression, budget, data, read)
            if charge is None:
                return [self._for_error(OUT_OF_BUDGET)]
            outcomes.append((None, validation.expression.cancelled) if charge.over_limit else
                            validation.expression.run(bound, failed))
        messages_data = self._without_authorizer(data) if any(
            v.message_expression is not None for v in self.validations) else data
        unmessaged, read = set(), set()
        for index, validation in enumerate(self.validations):
            message = validation.message_expression
            if message is None or message.program is None:
                continue
            charge = self._spend(message, budget, messages_data, read)
            if charge is None:
                return [self._for_error(f"failed messageExpression: {OUT_OF_BUDGET}") if error is None else
                        self._for_error(error) for _, error in outcomes]
            if charge.over_limit:
                unmessaged.add(index)
        decisions = []
        messages: Any = None
        for index, (validation, (value, error)) in enumerate(zip(self.validations, outcomes, strict=True)):
            if error is not None:
                decisions.append(self._for_error(error))
            elif value is not True:
                if messages is None and validation.message_expression is not None:
                    messages = activation(messages_data)
                decisions.append(Decision("deny", self._message(validation, messages, index not in unmessaged),
                                          validation.reason))
        return decisions

    def _without_authorizer(self, data: dict[str, Any]) -> dict[str, Any]:
        """What a messageExpression sees: no authorizer, and so none of the variables that read it (upstream
        evaluates a variable when it is read, in the message's own activation, where it fails)."""
        tainted: set[str] = set()
        for name, expression in self.variables:
            used = expression.program.variables if expression.program is not None else frozenset()
            if "authorizer" in used or any(f"variables.{other}" in expression.source for other in tainted):
                tainted.add(name)
        variables = {k: v for k, v in (data.get("variables") or {}).items() if k not in tainted}
        return {**{k: v for k, v in data.items() if k != "authorizer"}, "variables": variables}

    @staticmethod
    def _message(validation: Validation, data: Any, evaluated: bool = True) -> str:
        if validation.message_expression is not None and evaluated:
            value, error = validation.message_expression.run(data)
            if error is None and isinstance(value, str):
                text = value.strip()
                if text and "\n" not in text and len(text) <= _MAX_MESSAGE:
                    return text
        if validation.message.strip():
            return validation.message.strip()
        return f"failed expression: {validation.expression.source.strip()}"

    def annotate(self, bound: Any, failed: dict[str, str]) -> tuple[dict[str, str], list[Decision]]:
        published: dict[str, str] = {}
        failures: list[Decision] = []
        for key, expression in self.audit_annotations:
            value, error = expression.run(bound, failed)
            if error is not None:
                failures.append(self._for_error(error))
            elif isinstance(value, str) and value.strip():
                published[f"{self.name}/{key}"] = value.strip()[:10 * 1024]
            elif value is not None and not isinstance(value, str):
                failures.append(Decision("deny", f"valueExpression '{expression.source}' resulted in unsupported "
                                                 "return type. Return type must be either string or null."))
        return published, failures
