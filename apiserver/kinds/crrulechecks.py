"""What a CRD's `x-kubernetes-validations` must meet when the CRD is written (upstream: the rule checks
of `apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`), level by level as the
schema walk of registry/apiextensions/openapi_schema.py calls them.

Each rule well-formed (rule, message, messageExpression, reason, fieldPath); then, where the level and
all below it have no schema errors, compiling against the level's declared type, `oldSelf` only where
old values correlate, `optionalOldSelf` only with `oldSelf`, and the cost within budget: cel-go's static
estimate (apiserver/cel/cost.py) times how often the rule can run in one object, at most 10M per
expression (StaticEstimatedCostLimit) and 100M for the schema (StaticEstimatedCRDCostLimit), in
upstream's words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from apiserver.cel import cost, declared
from apiserver.errors import FieldError
from apiserver.kinds.crvalidations import Schema, compile_rule, normalized_field_path, rule_sizer, shown

REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")
STATIC_COST_LIMIT = 10_000_000  # StaticEstimatedCostLimit, per expression
CRD_COST_LIMIT = 100_000_000  # StaticEstimatedCRDCostLimit, all the rules of a schema


def _rule_value(rule: dict[str, Any]) -> str:
    """A rule as field errors print it: upstream's internal ValidationRule, JSON-encoded without tags."""
    text = json.dumps({"Rule": rule.get("rule", ""), "Message": rule.get("message", ""),
                       "MessageExpression": rule.get("messageExpression", ""), "Reason": rule.get("reason"),
                       "FieldPath": rule.get("fieldPath", ""), "OptionalOldSelf": rule.get("optionalOldSelf")},
                      separators=(",", ":"), ensure_ascii=False)
    # Go's encoding/json escapes what HTML would read as markup.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _factor(cost: int, limit: int) -> str:
    factor = cost / limit
    if factor > 100.0:
        return "more than 100x"
    return f"{factor:f}x" if factor < 1.5 else f"{factor:.1f}x"


def cost_message(name: str, cost: int, limit: int) -> str:
    return (f"{name} exceeds budget by factor of {_factor(cost, limit)} (try simplifying the rule, or adding "
            "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)")


@dataclass
class RuleCosts:
    """The estimated costs of a schema's rules, added up as the walk compiles them level by level
    (upstream's TotalCost)."""

    # A version whose schema an update leaves as it was keeps its rules however far over the per-expression
    # limit they are (estimates change between releases); they still count towards the schema's total.
    suppress_per_expression_cost: bool = False
    total: int = 0
    most_expensive: list[tuple[int, str]] = field(default_factory=list)

    def observe(self, path: str, spent: int) -> None:
        self.total = min(self.total + spent, cost.MAX)
        if spent >= CRD_COST_LIMIT // 100:  # upstream names the top 4 of those above 1% of the limit
            self.most_expensive = sorted([*self.most_expensive, (spent, path)], key=lambda c: -c[0])[:4]

    def total_problems(self, path: str) -> list[FieldError]:
        """The schema's total over StaticEstimatedCRDCostLimit: its most expensive rules, then the total."""
        if self.total <= CRD_COST_LIMIT:
            return []
        problems = [FieldError("FieldValueForbidden", at, "Forbidden: contributed to estimated rule cost total "
                               "exceeding cost limit for entire OpenAPIv3 schema") for _, at in self.most_expensive]
        problems.append(FieldError("FieldValueForbidden", path, "Forbidden: " + cost_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", self.total,
            CRD_COST_LIMIT)))
        return problems


def times(cardinality: int | None, bound: Any) -> int | None:
    """A child's cardinality: its parent's times the list's or map's bound; unbounded if either is."""
    return None if cardinality is None or bound is None else cardinality * int(bound)


_NEWLINES = re.compile(r"[\n\r]+")  # the line breaks of CEL's grammar


def rule_form_problems(schema: Schema, rules: list[Any], path: str) -> list[FieldError]:
    """Whether each of a level's rules is well-formed (rule, message, messageExpression, reason,
    fieldPath): upstream's schema errors of x-kubernetes-validations."""
    level: list[FieldError] = []
    for index, rule in enumerate(rules):
        at = f"{path}.x-kubernetes-validations[{index}]"
        if not isinstance(rule, dict):
            continue
        text, message = str(rule.get("rule") or "").strip(), str(rule.get("message") or "")
        if not text:
            level.append(FieldError("FieldValueRequired", f"{at}.rule", "Required value: rule is not specified"))
        elif message and not message.strip():
            level.append(_invalid_at(f"{at}.message", message, "must be non-empty if specified"))
        elif _NEWLINES.search(message.strip()):
            level.append(_invalid_at(f"{at}.message", message, "must not contain line breaks"))
        elif _NEWLINES.search(text) and not message.strip():
            level.append(FieldError("FieldValueRequired", f"{at}.message",
                                    "Required value: message must be specified if rule contains line breaks"))
        expression = str(rule.get("messageExpression") or "")
        if expression and not expression.strip():
            level.append(FieldError("FieldValueRequired", f"{at}.messageExpression",
                                    "Required value: messageExpression must be non-empty if specified"))
        reason = rule.get("reason")
        if reason is not None and reason not in REASONS:
            supported = ", ".join(f'"{r}"' for r in REASONS)
            level.append(FieldError("FieldValueNotSupported", f"{at}.reason",
                                    f"Unsupported value: {shown(reason)}: supported values: {supported}"))
        field_path = str(rule.get("fieldPath") or "")
        if field_path and not field_path.strip():
            level.append(_invalid_at(f"{at}.fieldPath", field_path, "must be non-empty if specified"))
        if _NEWLINES.search(field_path):
            level.append(_invalid_at(f"{at}.fieldPath", field_path, "must not contain line breaks"))
        if field_path and normalized_field_path(field_path, schema) is None:
            level.append(_invalid_at(f"{at}.fieldPath", field_path, "must be a valid path"))
    return level


def compiled_rule_problems(schema: Schema, rules: list[Any], path: str, root: bool, uncorrelatable: str | None,
                           cardinality: int | None, costs: RuleCosts) -> list[FieldError]:
    """A level's rules compiled against its declared type (a resource's `root`), their costs observed:
    upstream's CEL errors. `uncorrelatable` names the nearest ancestor without old values to correlate
    (oldSelf forbidden); `cardinality` bounds how often a rule can run in one object (None: unbounded)."""
    problems: list[FieldError] = []
    if not _declarable(schema):
        return [FieldError("InternalError", f"{path}.x-kubernetes-validations", (
            "Internal error: internal error: failed to construct type information for x-kubernetes-validations "
            "rules: unable to convert structural schema to CEL declarations"))]
    self_type = declared.declare(schema, root).cel_type
    sizer = rule_sizer(schema, root)
    # How often the rule may run in one object: its lists' and maps' bounds, or as many values of
    # this schema as a request could hold.
    runs = cardinality if cardinality is not None else \
        cost.MAX_REQUEST_BYTES // (cost.min_serialized_size(schema) + 1)
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        at = f"{path}.x-kubernetes-validations[{index}]"
        compiled = compile_rule(rule, schema, self_type)
        rule_cost = min(compiled.checked.max_cost(sizer) * runs, cost.MAX) if compiled.checked else 0
        if not costs.suppress_per_expression_cost and rule_cost > STATIC_COST_LIMIT:
            problems.append(FieldError("FieldValueForbidden", f"{at}.rule",
                                       "Forbidden: " + cost_message("estimated rule cost", rule_cost,
                                                                    STATIC_COST_LIMIT)))
        costs.observe(f"{at}.rule", rule_cost)
        if compiled.error is not None:
            problems.append(FieldError("FieldValueInvalid", f"{at}.rule",
                                       f"Invalid value: {_rule_value(rule)}: {compiled.error}"))
        if compiled.message_error is not None:
            problems.append(FieldError("FieldValueInvalid", f"{at}.messageExpression",
                                       f"Invalid value: {_rule_value(rule)}: {compiled.message_error}"))
        elif compiled.message is not None:
            # Upstream holds a messageExpression to its own cost, not times how often it may run.
            message_cost = min(compiled.message.max_cost(sizer), cost.MAX)
            if not costs.suppress_per_expression_cost and message_cost > STATIC_COST_LIMIT:
                problems.append(FieldError("FieldValueForbidden", f"{at}.messageExpression", "Forbidden: " + cost_message(
                    "estimated messageExpression cost", message_cost, STATIC_COST_LIMIT)))
            costs.observe(f"{at}.messageExpression", message_cost)
        # A rule that does not compile uses no oldSelf, upstream's compileRule finds: its optionalOldSelf
        # is refused as well.
        if compiled.error is None and compiled.uses_old_self:
            if uncorrelatable is not None:
                problems.append(_invalid_at(f"{at}.rule", rule.get("rule"),
                                            f"oldSelf cannot be used on the uncorrelatable portion of the schema "
                                            f"within {uncorrelatable}"))
        elif rule.get("optionalOldSelf") is not None:
            problems.append(FieldError("FieldValueInvalid", f"{at}.optionalOldSelf",
                                       f"Invalid value: {shown(rule['optionalOldSelf'])}: may not be set if "
                                       "oldSelf is not used in rule"))
    return problems


def _declarable(schema: Schema) -> bool:
    """Whether SchemaDeclType gives the level a type: not without one (an untyped preserved field), nor
    a list or map of what has none."""
    if schema.get("x-kubernetes-int-or-string"):
        return True
    kind = schema.get("type")
    if kind == "array":
        return isinstance(schema.get("items"), dict) and _declarable(schema["items"])
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return _declarable(schema["additionalProperties"])
    return kind in ("object", "string", "integer", "number", "boolean")


def _invalid_at(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {shown(value)}: {detail}")
