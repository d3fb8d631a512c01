"""A ValidatingAdmissionPolicy's expressions checked against the kinds it matches: the warnings upstream's
`validatingadmissionpolicy-status-controller` writes to `status.typeChecking`.

Upstream: `admission/plugin/policy/validating/typechecking.go`. For every kind the policy's resource
rules name (a rule with a wildcard group or version names none, a wildcard resource or subresource is
skipped; at most ten kinds, in the order of group, version, kind), `object` and `oldObject` are declared
with the kind's OpenAPI schema, `params` with the param kind's, and `variables` with each variable's
type as its expression compiles against them; each validation's expression and messageExpression is
compiled; the errors become one warning per expression, one paragraph per kind
("apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicsa'...").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from apiserver.admission.policy.compiled import VARIABLES
from apiserver.cel import declared
from apiserver.cel.environment import CompileError, compile_checked
from apiserver.kinds import schemas
from apiserver.registry.admissionregistration import variabletypes

Schema = dict[str, Any]
_MAX_DEPTH = 12  # recursive definitions (JSONSchemaProps) are left dyn below this


def structural(schema: Schema, depth: int = 0) -> Schema:
    """A published definition as a structural schema: references resolved, nullable types reduced."""
    if depth > _MAX_DEPTH:
        return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    while True:
        resolved = schemas.resolve(schema)
        if resolved is None or resolved is schema:
            break
        schema = resolved
    if "oneOf" in schema or "anyOf" in schema:
        return {"x-kubernetes-int-or-string": True}
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    out: Schema = {"type": kind} if kind else {}
    if "format" in schema:
        out["format"] = schema["format"]
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: structural(v, depth + 1) for k, v in schema["properties"].items()}
    if isinstance(schema.get("additionalProperties"), dict):
        out["additionalProperties"] = structural(schema["additionalProperties"], depth + 1)
    if isinstance(schema.get("items"), dict):
        out["items"] = structural(schema["items"], depth + 1)
    if kind == "object" and "properties" not in out and "additionalProperties" not in out:
        out["x-kubernetes-preserve-unknown-fields"] = True
    return out


@lru_cache(maxsize=64)
def _kind_type(group: str, version: str, kind: str) -> Any:
    schema = schemas.kind_schema(group, version, kind)
    return cel.Type.DYN if schema is None else declared.declare(structural(schema), False).cel_type


def _gvk_text(group: str, version: str, kind: str) -> str:
    return f"{group}/{version}, Kind={kind}"


_MAX_TYPES = 10


def matched_kinds(spec: dict[str, Any], registry: Any) -> list[tuple[str, str, str]]:
    """upstream's typesToCheck."""
    kinds: set[tuple[str, str, str]] = set()
    for rule in (spec.get("matchConstraints") or {}).get("resourceRules") or ():
        groups, versions = list(rule.get("apiGroups") or ()), list(rule.get("apiVersions") or ())
        if any("*" in group for group in groups) or any("*" in version for version in versions):
            continue
        resources = sorted(r for r in rule.get("resources") or () if "*" not in r and "/" not in r)
        found = 0
        for group in sorted(groups):
            for version in sorted(versions):
                for resource in resources:
                    rt = registry.lookup(group, version, resource)
                    if rt is None:
                        continue
                    kinds.add((group, version, rt.kind))
                    found += 1
                    if found == _MAX_TYPES:
                        return sorted(kinds)
    return sorted(kinds)


def _param_type(spec: dict[str, Any], registry: Any) -> Any:
    param = spec.get("paramKind") or {}
    group, _, version = str(param.get("apiVersion") or "").rpartition("/")
    if not param.get("kind"):
        return cel.Type.DYN
    return _kind_type(group, version, str(param["kind"]))


def _declarations(spec: dict[str, Any], group_version_kind: tuple[str, str, str], params: Any) -> dict[str, Any]:
    """The variables an expression is checked with for one kind: `variables` typed field by field, each
    by its expression compiled against the kind and the variables before it (dyn if it does not)."""
    typed = _kind_type(*group_version_kind)
    variables = {name: cel.Type.DYN for name in VARIABLES}
    variables.update({"object": typed, "oldObject": typed, "params": params})
    outputs: list[tuple[str, str]] = []
    for variable in spec.get("variables") or ():
        variables["variables"] = variabletypes.variables_type(outputs)
        try:
            output = compile_checked(str(variable.get("expression") or ""), variables).output
        except CompileError:
            output = "dyn"
        outputs.append((str(variable.get("name") or ""), output))
    variables["variables"] = variabletypes.variables_type(outputs)
    return variables


def warnings(policy: dict[str, Any], registry: Any) -> list[dict[str, str]]:
    """status.typeChecking.expressionWarnings for the policy."""
    spec = policy.get("spec") or {}
    kinds = matched_kinds(spec, registry)
    if not kinds:
        return []
    params = _param_type(spec, registry)
    declared = {group_version_kind: _declarations(spec, group_version_kind, params) for group_version_kind in kinds}
    found: list[dict[str, str]] = []
    for index, validation in enumerate(spec.get("validations") or ()):
        for field_name in ("expression", "messageExpression"):
            source = validation.get(field_name)
            if not isinstance(source, str) or not source.strip():
                continue
            paragraphs = []
            for group, version, kind in kinds:
                try:
                    compile_checked(source, declared[(group, version, kind)])
                except CompileError as error:
                    paragraphs.append(f"{_gvk_text(group, version, kind)}: {error}\n")
            if paragraphs:
                found.append({"fieldRef": f"spec.validations[{index}].{field_name}", "warning": "\n".join(paragraphs)})
    return found
