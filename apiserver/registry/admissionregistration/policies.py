"""Admission policies' and bindings' validation: pkg/apis/admissionregistration/validation/validation.go's
validate{Validating,Mutating}AdmissionPolicySpec, validate{Validating,Mutating}AdmissionPolicyBindingSpec
and what they call, in upstream's order.

Expressions are compiled with the CEL package against the policy's variables (`admission/policy`);
an expression that does not compile is Invalid with cel-go's message, one of the wrong type says what
it must evaluate to.
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import qualified_name
from apiserver.registry import field
from apiserver.registry.admissionregistration import rules, variabletypes
from apiserver.registry.admissionregistration.rules import as_dict, as_list
from apiserver.registry.meta import subdomain_name

Obj = dict[str, Any]

_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")
_PATCH_TYPES = ("ApplyConfiguration", "JSONPatch")
_REINVOCATION_POLICIES = ("IfNeeded", "Never")
_MAX_AUDIT_ANNOTATIONS = 20
_MAX_VALUE_EXPRESSION = 5 * 1024
_CEL_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_CEL_RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
_NEWLINES = re.compile(r"[\n\r]+")
_OBJECT_TYPE = re.compile(r"\bObject\b")


def _failure_policy(spec: Obj, path: str) -> list[FieldError]:
    policy = spec.get("failurePolicy")
    if policy is None:
        return [field.required(f"{path}.failurePolicy")]
    if policy not in rules.FAILURE_POLICIES:
        return [field.not_supported(f"{path}.failurePolicy", policy, rules.FAILURE_POLICIES)]
    return []


def _match_constraints(spec: Obj, path: str, mutating: bool) -> list[FieldError]:
    match = spec.get("matchConstraints")
    if match is None:
        return [field.required(f"{path}.matchConstraints")]
    found = rules.match_resources(match, f"{path}.matchConstraints")
    match = as_dict(match)
    if not as_list(match.get("resourceRules")):
        # at least one rule gives the expressions their types
        found.append(field.required(f"{path}.matchConstraints.resourceRules"))
    if mutating:
        found += rules.mutating_operations(match, f"{path}.matchConstraints")
    return found


def _variables(variables: list[Any], path: str, params: bool) -> tuple[list[FieldError], Any]:
    """The variables' errors, and the type of `variables` they make: each is compiled seeing those before
    it, then declared with its expression's type (upstream's CompileAndStoreVariable)."""
    found: list[FieldError] = []
    outputs: list[tuple[str, str]] = []
    declared = rules.declarations(params, variables=True)
    for i, variable in enumerate(variables):
        variable = as_dict(variable)
        typed = variabletypes.variables_type(outputs)
        found += _variable(variable, f"{path}[{i}]", params, typed)
        name, expression = str(variable.get("name") or ""), str(variable.get("expression") or "")
        if name.strip():
            output = rules.checked_output(expression, declared, typed) if expression.strip() else "dyn"
            outputs = [*(entry for entry in outputs if entry[0] != name), (name, output)]
    return found, variabletypes.variables_type(outputs)


def _variable(variable: Obj, path: str, params: bool, typed: Any) -> list[FieldError]:
    found: list[FieldError] = []
    name = variable.get("name") or ""
    if not str(name).strip():
        found.append(field.required(f"{path}.name", "name is not specified"))
    elif not _CEL_IDENT.fullmatch(name) or name in _CEL_RESERVED:
        found.append(field.invalid(f"{path}.name", name, "must be a valid CEL identifier"))
    expression = variable.get("expression") or ""
    if not str(expression).strip():
        found.append(field.required(f"{path}.expression", "expression is not specified"))
    else:
        found += rules.cel_error(
            f"{path}.expression", expression, None, rules.declarations(params, variables=True), variables=typed
        )
    return found


def _validation(validation: Obj, path: str, params: bool, composed: bool, typed: Any) -> list[FieldError]:
    found: list[FieldError] = []
    expression = str(validation.get("expression") or "")
    message_expression = str(validation.get("messageExpression") or "")
    message = str(validation.get("message") or "")
    if not expression.strip():
        found.append(field.required(f"{path}.expression", "expression is not specified"))
    else:
        found += rules.cel_error(
            f"{path}.expression", expression, ("bool",), rules.declarations(params, variables=composed),
            variables=typed
        )
    if message_expression and not message_expression.strip():
        found.append(
            field.invalid(f"{path}.messageExpression", message_expression, "must be non-empty if specified")
        )
    elif message_expression.strip():
        # A message expression is compiled without the authorizer.
        declared = rules.declarations(params, authorizer=False, variables=composed)
        found += rules.cel_error(f"{path}.messageExpression", message_expression, ("string",), declared,
                                 variables=typed)
    if message and not message.strip():
        found.append(field.invalid(f"{path}.message", message, "must be non-empty if specified"))
    elif _NEWLINES.search(message.strip()):
        found.append(field.invalid(f"{path}.message", message, "must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in _REASONS:
        found.append(field.not_supported(f"{path}.reason", reason, _REASONS))
    return found


def _audit_annotation(
    annotation: Obj, policy_name: str, path: str, params: bool, composed: bool, typed: Any
) -> list[FieldError]:
    found: list[FieldError] = []
    key = str(annotation.get("key") or "")
    if policy_name:
        found += [
            field.invalid(f"{path}.key", f"{policy_name}/{key}", msg)
            for msg in qualified_name(f"{policy_name}/{key}")
        ]
    else:
        found.append(field.invalid(f"{path}.key", key, "requires metadata.name be non-empty"))
    value = str(annotation.get("valueExpression") or "")
    trimmed = value.strip()
    if not trimmed:
        found.append(field.required(f"{path}.valueExpression", "valueExpression is not specified"))
    elif len(trimmed.encode()) > _MAX_VALUE_EXPRESSION:
        found.append(
            field.required(
                f"{path}.valueExpression", f"must not exceed {_MAX_VALUE_EXPRESSION} bytes in length"
            )
        )
    else:
        declared = rules.declarations(params, variables=composed)
        found += rules.cel_error(
            f"{path}.valueExpression", trimmed, ("string", "null_type"), declared, shown=value, variables=typed
        )
    return found


def _match_conditions_unchanged(new: Obj, old: Obj | None) -> bool:
    """ignore*AdmissionPolicyMatchConditions: an update that changes neither params nor conditions."""
    if old is None:
        return False
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    return all(
        (new_spec.get(k) or None) == (old_spec.get(k) or None) for k in ("paramKind", "matchConditions")
    )


def validating_admission_policy(obj: Obj, old: Obj | None = None) -> list[FieldError]:
    spec, path = as_dict(obj.get("spec")), "spec"
    found = _failure_policy(spec, path)
    if spec.get("paramKind") is not None:
        found += rules.param_kind(as_dict(spec["paramKind"]), f"{path}.paramKind")
    found += _match_constraints(spec, path, mutating=False)
    params = spec.get("paramKind") is not None
    if not _match_conditions_unchanged(obj, old):
        conditions = as_list(spec.get("matchConditions"))
        found += rules.match_conditions(conditions, f"{path}.matchConditions", params)
    # Only a policy with variables is compiled by the composition compiler, which declares them.
    composed = bool(as_list(spec.get("variables")))
    variable_errors, typed = _variables(as_list(spec.get("variables")), f"{path}.variables", params)
    found += variable_errors
    typed = typed if composed else None
    validations, annotations = as_list(spec.get("validations")), as_list(spec.get("auditAnnotations"))
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        return found + [
            field.required(f"{path}.validations", detail),
            field.required(f"{path}.auditAnnotations", detail),
        ]
    for i, validation in enumerate(validations):
        found += _validation(as_dict(validation), f"{path}.validations[{i}]", params, composed, typed)
    if len(annotations) > _MAX_AUDIT_ANNOTATIONS:
        found.append(
            field.invalid(
                f"{path}.auditAnnotations",
                annotations,
                f"must not have more than {_MAX_AUDIT_ANNOTATIONS} auditAnnotations",
            )
        )
    keys: set[str] = set()
    policy_name = str(as_dict(obj.get("metadata")).get("name") or "")
    for i, annotation in enumerate(annotations):
        annotation = as_dict(annotation)
        found += _audit_annotation(annotation, policy_name, f"{path}.auditAnnotations[{i}]", params, composed,
                                   typed)
        key = str(annotation.get("key") or "")
        if key in keys:
            found.append(field.duplicate(f"{path}.auditAnnotations[{i}].key", key))
        keys.add(key)
    return found


def _mutation(mutation: Obj, path: str, params: bool) -> list[FieldError]:
    patch_type = mutation.get("patchType") or ""
    if not patch_type:
        return [field.required(f"{path}.patchType")]
    if patch_type not in _PATCH_TYPES:
        return [field.not_supported(f"{path}.patchType", patch_type, _PATCH_TYPES)]
    own, other = (
        ("jsonPatch", "applyConfiguration")
        if patch_type == "JSONPatch"
        else ("applyConfiguration", "jsonPatch")
    )
    found: list[FieldError] = []
    if mutation.get(own) is None:
        found.append(field.required(f"{path}.{own}", f"must be specified when patchType is {patch_type}"))
    else:
        expression = str(as_dict(mutation[own]).get("expression") or "").strip()
        if not expression:
            found.append(field.required(f"{path}.{own}.expression"))
        elif own == "jsonPatch":
            declared = rules.declarations(params, variables=True)
            found += rules.cel_error(f"{path}.{own}.expression", expression, ("list(JSONPatch)",), declared)
        elif not _OBJECT_TYPE.search(expression):
            # `Object{...}` types come from the matched kind's schema, which our CEL environment does not
            # declare: only an expression that builds none is compiled here.
            declared = rules.declarations(params, variables=True)
            found += rules.cel_error(f"{path}.{own}.expression", expression, ("Object",), declared)
    if mutation.get(other) is not None:
        found.append(
            field.invalid(
                f"{path}.{other}", "{" + other + "}", f"must not be specified when patchType is {patch_type}"
            )
        )
    return found


def mutating_admission_policy(obj: Obj, old: Obj | None = None) -> list[FieldError]:
    spec, path = as_dict(obj.get("spec")), "spec"
    found = _failure_policy(spec, path)
    if spec.get("paramKind") is not None:
        found += rules.param_kind(as_dict(spec["paramKind"]), f"{path}.paramKind")
    found += _match_constraints(spec, path, mutating=True)
    params = spec.get("paramKind") is not None
    if not _match_conditions_unchanged(obj, old):
        conditions = as_list(spec.get("matchConditions"))
        found += rules.match_conditions(conditions, f"{path}.matchConditions", params)
    variable_errors, _ = _variables(as_list(spec.get("variables")), f"{path}.variables", params)
    found += variable_errors
    mutations = as_list(spec.get("mutations"))
    if not mutations:
        found.append(field.required(f"{path}.mutations", "mutations must contain at least one item"))
    for i, mutation in enumerate(mutations):
        found += _mutation(as_dict(mutation), f"{path}.mutations[{i}]", params)
    policy = spec.get("reinvocationPolicy") or ""
    if not policy:
        found.append(field.required(f"{path}.reinvocationPolicy"))
    elif policy not in _REINVOCATION_POLICIES:
        found.append(field.not_supported(f"{path}.reinvocationPolicy", policy, _REINVOCATION_POLICIES))
    return found


def _binding(spec: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    policy_name = spec.get("policyName") or ""
    if not policy_name:
        found.append(field.required(f"{path}.policyName"))
    else:
        found += [
            field.invalid(f"{path}.policyName", policy_name, msg)
            for msg in subdomain_name(policy_name, False)
        ]
    found += rules.param_ref(spec.get("paramRef"), f"{path}.paramRef")
    return found + rules.match_resources(spec.get("matchResources"), f"{path}.matchResources")


def validating_admission_policy_binding(obj: Obj) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    return _binding(spec, "spec") + rules.validation_actions(
        as_list(spec.get("validationActions")), "spec.validationActions"
    )


def mutating_admission_policy_binding(obj: Obj) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    found = _binding(spec, "spec")
    if spec.get("matchResources") is not None:
        found += rules.mutating_operations(as_dict(spec["matchResources"]), "spec.matchResources")
    return found
