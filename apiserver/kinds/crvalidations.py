"""CRD `x-kubernetes-validations`: rules checked when a CRD is written, evaluated when its objects are.

Upstream: `apiextensions-apiserver/pkg/apiserver/schema/cel/{compilation,validation}.go` and the rule
checks of `pkg/apis/apiextensions/validation/validation.go`. Every schema level may carry rules; each is
compiled once per CRD version against that level's declared type (apiserver/cel/declared.py) with
`self` and, for transition rules, `oldSelf`. On a write, a rule runs where the object has a value;
a rule using `oldSelf` runs only on an update whose old object has a correlating value at that path
(map keys, list items of `x-kubernetes-list-type: map` by their keys), unless `optionalOldSelf` makes
`oldSelf` an optional. An unchanged value's failures are warnings, not errors (upstream's ratcheting, on by default)
unless the rule uses `oldSelf`. Failures carry the rule's `reason`, `fieldPath`, `message` or the value
of `messageExpression`, worded as kube-apiserver words them. What a CRD's rules must meet when the
CRD is written is apiserver/kinds/crrulechecks.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from cel_expr_python import cel

from apiserver.cel import cost, declared
from apiserver.cel.budget import LIMIT_EXCEEDED, OUT_OF_BUDGET, RUNTIME_BUDGET, Budget
from apiserver.cel.environment import CompileError, Program, activation, compile_checked
from apiserver.errors import FieldError
from apiserver.registry.field import go_quote

Schema = dict[str, Any]
_MAX_MESSAGE = 5 * 1024
_OLD_SELF = re.compile(r"\boldSelf\b")
# An optional `oldSelf` cannot be bound from Python, so the rule runs inside a one-element macro
# whose variable, named oldSelf, is the optional built in CEL.
_OPTIONAL_WRAP = "(__hasOldSelf ? [optional.of(__oldSelf)] : [optional.none()]).{}(oldSelf, {})"


@dataclass
class CompiledRule:
    rule: dict[str, Any]
    program: Program | None = None
    checked: Program | None = None  # the rule as written, for its cost (program may be wrapped)
    error: str | None = None
    message: Program | None = None
    message_error: str | None = None
    uses_old_self: bool = False
    field_path: str = ""
    most: int = 0  # the static estimate of the rule's cost, and of its messageExpression's
    message_most: int = 0

    @property
    def optional_old_self(self) -> bool:
        return self.rule.get("optionalOldSelf") is True


def _rule_text(rule: dict[str, Any]) -> str:
    message = str(rule.get("message") or "").strip()
    return message or str(rule.get("rule") or "").strip()


def compile_rule(rule: dict[str, Any], schema: Schema, self_type: Any) -> CompiledRule:
    source = str(rule.get("rule") or "")
    compiled = CompiledRule(rule, uses_old_self=bool(_OLD_SELF.search(source)))
    old_type = cel.Type.DYN if compiled.optional_old_self else self_type
    variables = {"self": self_type, "oldSelf": old_type}
    try:
        program = compile_checked(source, variables)
    except CompileError as error:
        compiled.error = f"compilation failed: {_optional_error(source, self_type) or error}" \
            if compiled.optional_old_self else f"compilation failed: {error}"
        compiled.uses_old_self = False  # upstream's compileRule finds no oldSelf in what does not compile
        return compiled
    if program.output not in ("bool", "dyn"):
        compiled.error = "cel expression must evaluate to a bool"
        compiled.uses_old_self = False
        return compiled
    if compiled.optional_old_self and (wrong := _optional_error(source, self_type)) is not None:
        compiled.error = f"compilation failed: {wrong}"
        compiled.uses_old_self = False
        return compiled
    compiled.uses_old_self = "oldSelf" in program.variables
    compiled.checked = program
    compiled.program = compile_checked(_OPTIONAL_WRAP.format("all", source), _wrapped(self_type)) \
        if compiled.optional_old_self else program
    expression = str(rule.get("messageExpression") or "")
    if expression.strip():
        try:
            message = compile_checked(expression, variables)
        except CompileError as error:
            compiled.message_error = f"messageExpression compilation failed: {error}"
        else:
            if message.output != "string":
                compiled.message_error = "messageExpression must evaluate to a string"
            compiled.message = message
    if rule.get("fieldPath"):
        compiled.field_path = normalized_field_path(str(rule["fieldPath"]), schema) or ""
    return compiled


def sizing_schema(schema: Schema, root: bool) -> Schema:
    """The schema as its declared type has it: a resource's root also has apiVersion, kind and metadata."""
    if not root and not schema.get("x-kubernetes-embedded-resource"):
        return schema
    meta = {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}}
    return {**schema, "properties": {**(schema.get("properties") or {}), "metadata": meta}}


def rule_sizer(schema: Schema, root: bool) -> Any:
    """The sizes the static cost estimate of a level's rules reads from its schema."""
    sizing = sizing_schema(schema, root)
    return cost.schema_sizer({"self": sizing, "oldSelf": sizing})


def _estimated(compiled: CompiledRule, sizer: Any) -> CompiledRule:
    """The rule with its static cost estimates, which bound what it can cost when it runs."""
    if compiled.checked is not None:
        compiled.most = min(compiled.checked.max_cost(sizer), cost.MAX)
    if compiled.message is not None and compiled.message_error is None:
        compiled.message_most = min(compiled.message.max_cost(sizer), cost.MAX)
    return compiled


def _wrapped(self_type: Any) -> dict[str, Any]:
    return {"self": self_type, "__oldSelf": self_type, "__hasOldSelf": cel.Type.BOOL}


_WRAP_PREFIX = len(_OPTIONAL_WRAP.split("{}")[0]) + len("all") + len(_OPTIONAL_WRAP.split("{}")[1])
_ERROR_AT = re.compile(r"^(ERROR: <input>:)(\d+):(\d+)(: .*)$")
_CARET = re.compile(r"^ \| \.*\^$")


def _optional_error(source: str, self_type: Any) -> str | None:
    """The type error of a rule whose oldSelf is an optional (optionalOldSelf), which only the rule
    wrapped to bind an optional shows, in the rule's own lines and columns; None if it checks."""
    try:
        compile_checked(_OPTIONAL_WRAP.format("all", source), _wrapped(self_type))
    except CompileError as error:
        lines, out, row = source.split("\n"), [], 0
        for line in str(error).split("\n"):
            if (found := _ERROR_AT.match(line)) is not None:
                row, column = int(found.group(2)), int(found.group(3))
                column -= _WRAP_PREFIX if row == 1 else 0
                out.append(f"{found.group(1)}{row}:{column}{found.group(4)}")
            elif _CARET.match(line):
                out.append(" | " + line[3 + _WRAP_PREFIX:] if row == 1 else line)
            elif line.startswith(" | ") and 0 < row <= len(lines):
                out.append(" | " + lines[row - 1])
            else:
                out.append(line)
        return "\n".join(out)
    return None


_PATH_TOKEN = re.compile(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]")


def normalized_field_path(text: str, schema: Schema) -> str | None:
    """`fieldPath` as a field path ("spec.ports[http]"), or None if it names no field of the schema."""
    parts: list[str] = []
    position = 0
    while position < len(text):
        match = _PATH_TOKEN.match(text, position)
        if match is None:
            return None
        name = match.group(1) if match.group(1) is not None else re.sub(r"\\(.)", r"\1", match.group(2))
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        if properties is not None:
            if name not in properties:
                return None
            parts.append(f".{name}" if parts else name)
            schema = properties[name]
        elif isinstance(additional, dict):
            parts.append(f"[{name}]")
            schema = additional
        else:
            return None
        position = match.end()
    return "".join(parts)


def has_rules(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    children = list((schema.get("properties") or {}).values()) + [schema.get("items"),
                                                                  schema.get("additionalProperties")]
    return any(has_rules(child) for child in children)


@dataclass
class RuleValidator:
    """One schema level's compiled rules and the validators of the levels under it that have rules."""

    schema: Schema
    rules: list[CompiledRule]
    bind: declared.Binder | None
    properties: dict[str, RuleValidator] = field(default_factory=dict)
    items: RuleValidator | None = None
    additional: RuleValidator | None = None

    def validate(self, value: Any, old: Any, path: str, ratcheted: list[FieldError] | None = None,
                 ratchet: bool = True, parent_unchanged: bool = False, budget: Budget | None = None) -> list[FieldError]:
        """The rules' failures; unless `ratchet` is off (a CRD's defaults are judged whole), those of
        unchanged values are ratcheted, added to `ratcheted` (upstream sends them as warnings) instead.

        A value is unchanged when it equals the old value it correlates with, or, having none (an item
        of a set or an atomic list, a new field), when its nearest correlated ancestor (passed down as
        `parent_unchanged`) equals its own (upstream's ratchetingOptions.shouldRatchetError).
        The rules of the whole object draw on one cost `budget` (upstream's RuntimeCELCostBudget); once
        a rule runs out of it or passes the per-call limit, no further rules are run."""
        if value is None:
            return []
        budget = budget if budget is not None else Budget(RUNTIME_BUDGET)
        unchanged = ratchet and (old == value if old is not None else parent_unchanged)
        problems = self._run_rules(value, old, path, ratcheted, unchanged, budget) if self.rules else []
        if isinstance(value, dict):
            # Every map type correlates by key (upstream's MapIsCorrelatable: granular and atomic alike).
            old_map = old if isinstance(old, dict) else {}
            for key, item in value.items():
                if budget.stopped:
                    break
                sub = self.properties.get(key) if self.properties else None
                if sub is not None:
                    problems += sub.validate(item, old_map.get(key), _child(path, key), ratcheted, ratchet,
                                             unchanged, budget)
                elif self.additional is not None:
                    problems += self.additional.validate(item, old_map.get(key), f"{path}[{key}]", ratcheted,
                                                         ratchet, unchanged, budget)
        elif isinstance(value, list) and self.items is not None:
            correlate = correlator(self.schema, old)
            for index, item in enumerate(value):
                if budget.stopped:
                    break
                problems += self.items.validate(item, correlate(item), f"{path}[{index}]", ratcheted, ratchet,
                                                unchanged, budget)
        return problems

    def _run_rules(self, value: Any, old: Any, path: str, ratcheted: list[FieldError] | None,
                   unchanged: bool, budget: Budget) -> list[FieldError]:
        problems: list[FieldError] = []
        bound = self.bind(value) if self.bind else value
        bound_old = (self.bind(old) if self.bind else old) if old is not None else None
        data = {"self": bound}
        if bound_old is not None:
            data["oldSelf"] = bound_old
        kind = str(self.schema.get("type") or "")
        if budget.exhausted():
            budget.stopped = True
            return [_invalid(path, kind, OUT_OF_BUDGET)]
        shared = activation(data)
        for compiled in self.rules:
            rule = compiled.rule
            if compiled.error is not None:
                problems.append(_invalid(path, kind, f"rule compile error: {compiled.error}"))
                continue
            if compiled.program is None or (compiled.uses_old_self and old is None
                                            and not compiled.optional_old_self):
                continue
            # Its cost first: an evaluation cel-go cancels has no answer to look at.
            assert compiled.checked is not None
            charge = budget.spend(compiled.checked, data, compiled.most)
            if charge.over_budget or charge.over_limit:
                budget.stopped = True
                problems.append(_invalid(path, kind, OUT_OF_BUDGET if charge.over_budget else (
                    f"'{LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds "
                    f"limit for rule: {_rule_text(rule)}")))
                return problems
            if compiled.optional_old_self:
                run = {"self": bound, "__oldSelf": bound_old, "__hasOldSelf": old is not None}
                outcome = compiled.program.evaluate(run)
            else:
                outcome = compiled.program.evaluate(shared)
            if outcome.error is not None:
                if outcome.error == "no such overload":
                    detail = (f"'{outcome.error}': call arguments did not match a supported operator, function "
                              f"or macro signature for rule: {_rule_text(rule)}")
                else:
                    detail = f"{outcome.error} evaluating rule: {_rule_text(rule)}"
                problems.append(_invalid(path, kind, detail))
                continue
            if outcome.value is True:
                continue
            ratchets = unchanged and not compiled.uses_old_self
            if ratchets and ratcheted is None:
                continue  # ratcheting: an unchanged value keeps passing
            at = path
            if compiled.field_path:
                at = compiled.field_path if not path else (
                    path + compiled.field_path if compiled.field_path.startswith("[") else
                    f"{path}.{compiled.field_path}")
            failed = ratcheted if ratchets and ratcheted is not None else problems
            detail = self._message(compiled, shared, data, budget)
            if budget.stopped:  # the messageExpression ran out of budget: its error stands for the rule's
                failed.append(_invalid(at, kind, detail))
                return problems
            failed.append(_for_reason(at, value, kind, detail, rule.get("reason")))
        return problems

    @staticmethod
    def _message(compiled: CompiledRule, shared: Any, data: dict[str, Any], budget: Budget) -> str:
        """The failure's message; or, when the messageExpression ends the run (`budget.stopped`), why."""
        if compiled.message is not None and compiled.message_error is None:
            charge = budget.spend(compiled.message, data, compiled.message_most)
            if charge.over_budget or charge.over_limit:
                budget.stopped = True
                if charge.over_budget:
                    return "messageExpression evaluation failed due to running out of cost budget, no further " \
                           "validation rules will be run"
                return ("no further validation rules will be run due to call cost exceeds limit for "
                        f"messageExpression: {go_quote(str(compiled.rule.get('messageExpression') or ''))}")
            outcome = compiled.message.evaluate(shared)
            text = outcome.value.strip() if isinstance(outcome.value, str) else ""
            if outcome.error is None and text and "\n" not in text and len(text) <= _MAX_MESSAGE:
                return text
        message = str(compiled.rule.get("message") or "").strip()
        return message or f"failed rule: {_rule_text(compiled.rule)}"


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def correlator(schema: Schema, old: Any) -> Any:
    """How list items find their old selves, for the rules' oldSelf and for ratcheting (crd/ratcheting.py):
    only a map-list correlates, by its keys (upstream's makeMapList and CorrelatedObject.Index: a set's
    items and an atomic list's have none)."""
    if not isinstance(old, list):
        return lambda item: None
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "map":
        keys = schema.get("x-kubernetes-list-map-keys") or []
        index = {tuple(json.dumps(o.get(k)) for k in keys): o for o in old if isinstance(o, dict)}
        return lambda item: index.get(tuple(json.dumps(item.get(k)) for k in keys)) \
            if isinstance(item, dict) else None
    return lambda item: None


def shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def _invalid(path: str, kind: str, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path or "<nil>", f"Invalid value: {shown(kind)}: {detail}")


def _for_reason(path: str, value: Any, kind: str, detail: str, reason: Any) -> FieldError:
    at = path or "<nil>"
    omitted = kind in ("object", "array") or isinstance(value, (dict, list))
    if reason == "FieldValueForbidden":
        return FieldError(reason, at, f"Forbidden: {detail}")
    if reason == "FieldValueRequired":
        return FieldError(reason, at, f"Required value: {detail}")
    if reason == "FieldValueDuplicate":
        return FieldError(reason, at, "Duplicate value" if omitted else f"Duplicate value: {shown(value)}")
    body = "Invalid value" if omitted else f"Invalid value: {shown(value)}"
    return FieldError("FieldValueInvalid", at, f"{body}: {detail}")


def build(schema: Schema | None, resource_root: bool = True) -> RuleValidator | None:
    """The validator of a CRD version's schema (or of a level of it, `resource_root` if that level is
    an embedded resource), or None when no level has rules (nothing to run)."""
    if not isinstance(schema, dict) or not has_rules(schema):
        return None
    return _build(schema, resource_root)


def _build(schema: Schema, root: bool) -> RuleValidator:
    rules: list[CompiledRule] = []
    bind = None
    if schema.get("x-kubernetes-validations"):
        view = declared.declare(schema, root)
        bind = view.bind
        sizer = rule_sizer(schema, root)
        rules = [_estimated(compile_rule(rule, schema, view.cel_type), sizer)
                 for rule in schema["x-kubernetes-validations"] if isinstance(rule, dict)]
    validator = RuleValidator(schema, rules, bind)
    for key, sub in (schema.get("properties") or {}).items():
        if has_rules(sub):
            validator.properties[key] = _build(sub, bool(sub.get("x-kubernetes-embedded-resource")))
    if has_rules(schema.get("items")):
        validator.items = _build(schema["items"], bool(schema["items"].get("x-kubernetes-embedded-resource")))
    if has_rules(schema.get("additionalProperties")):
        additional = schema["additionalProperties"]
        validator.additional = _build(additional, bool(additional.get("x-kubernetes-embedded-resource")))
    return validator
