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
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from cel_expr_python import cel

from apiserver.admission.policy.applyconfiguration import rewrite
from apiserver.cel.environment import CompileError, Program, activation, compile_checked

VARIABLES = ("object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer")
_DYN = {name: cel.Type.DYN for name in VARIABLES}
# A messageExpression is compiled and run without the authorizer (upstream: HasAuthorizer false).
_DYN_WITHOUT_AUTHORIZER = {name: cel.Type.DYN for name in VARIABLES if name != "authorizer"}
_MAX_MESSAGE = 5 * 1024
_NO_SUCH_KEY = "no such key: "

Action = Literal["admit", "deny", "error"]


@dataclass(frozen=True)
class Expression:
    source: str
    program: Program | None
    error: str | None

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
    return Expression(source, program, None)


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
        bound = activation({**data, "namespaceObject": None})
        for _, expression in self.match_conditions:
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
            # A variable that reads others sees those bound so far; the rest share one activation.
            if bound is None or "variables" in expression.source:
                bound = activation(data)
            value, error = _evaluated(expression, bound, failed)
            if error is None:
                values[name] = value
            else:
                failed[name] = f'composited variable "{name}" fails to evaluate: {error}'
        return failed

    def decide(self, bound: Any, data: dict[str, Any], failed: dict[str, str]) -> list[Decision]:
        """The validations' decisions, on the activation of the request's values and variables (`data`);
        `failed`: the variables that failed to evaluate."""
        decisions = []
        messages: Any = None
        for validation in self.validations:
            value, error = validation.expression.run(bound, failed)
            if error is not None:
                decisions.append(self._for_error(error))
            elif value is not True:
                if messages is None and validation.message_expression is not None:
                    messages = activation(self._without_authorizer(data))
                decisions.append(Decision("deny", self._message(validation, messages), validation.reason))
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
    def _message(validation: Validation, data: Any) -> str:
        if validation.message_expression is not None:
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
