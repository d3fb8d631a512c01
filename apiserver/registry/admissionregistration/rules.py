"""What webhooks, admission policies and their bindings share: which requests they match.

Ports of pkg/apis/admissionregistration/validation/validation.go: validateResources(NoSubResources),
validateRule, validateRuleWithOperations, validateNamedRuleWithOperations, validateMatchResources,
validateParamKind, validateParamRef, validateValidationActions and validateMatchConditions, every
branch, in upstream's order. A set's `List()` is sorted, so every "supported values" list is too.
"""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from apiserver.cel.environment import CompileError, compile_checked
from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1035_label, dns1123_subdomain, path_segment_name, qualified_name
from apiserver.registry import field
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

SCOPES = ("*", "Cluster", "Namespaced")
OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
MUTATING_OPERATIONS = ("*", "CONNECT", "CREATE", "UPDATE")
FAILURE_POLICIES = ("Fail", "Ignore")
MATCH_POLICIES = ("Equivalent", "Exact")
VALIDATION_ACTIONS = ("Audit", "Deny", "Warn")
_MAX_MATCH_CONDITIONS = 64
_ALWAYS_DECLARED = ("object", "oldObject", "request", "namespaceObject")


def as_dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _resources(resources: list[Any], path: str) -> list[FieldError]:
    """validateResources: subresources allowed, wildcards not mixed with what they cover."""
    found: list[FieldError] = []
    if not resources:
        found.append(field.required(path))
    with_wildcard_sub: set[str] = set()
    sub_with_wildcard_resource: set[str] = set()
    double_wildcard = single_wildcard = without_sub = False
    for i, res_sub in enumerate(resources):
        res_sub = res_sub if isinstance(res_sub, str) else ""
        if not res_sub:
            found.append(field.required(f"{path}[{i}]"))
            continue
        double_wildcard = double_wildcard or res_sub == "*/*"
        single_wildcard = single_wildcard or res_sub == "*"
        if "/" not in res_sub:
            without_sub = res_sub != "*"
            continue
        res, sub = res_sub.split("/", 1)
        if res in with_wildcard_sub:
            found.append(
                field.invalid(f"{path}[{i}]", res_sub, f"if '{res}/*' is present, must not specify {res_sub}")
            )
        if sub in sub_with_wildcard_resource:
            found.append(
                field.invalid(f"{path}[{i}]", res_sub, f"if '*/{sub}' is present, must not specify {res_sub}")
            )
        if sub == "*":
            with_wildcard_sub.add(res)
        if res == "*":
            sub_with_wildcard_resource.add(sub)
    if len(resources) > 1 and double_wildcard:
        found.append(field.invalid(path, resources, "if '*/*' is present, must not specify other resources"))
    if single_wildcard and without_sub:
        found.append(
            field.invalid(
                path, resources, "if '*' is present, must not specify other resources without subresources"
            )
        )
    return found


def _rule(rule: Obj, path: str) -> list[FieldError]:
    """validateRule, with subresources allowed (the only way the v1 kinds call it)."""
    found: list[FieldError] = []
    groups, versions = as_list(rule.get("apiGroups")), as_list(rule.get("apiVersions"))
    if not groups:
        found.append(field.required(f"{path}.apiGroups"))
    if len(groups) > 1 and "*" in groups:
        found.append(
            field.invalid(f"{path}.apiGroups", groups, "if '*' is present, must not specify other API groups")
        )
    if not versions:
        found.append(field.required(f"{path}.apiVersions"))
    if len(versions) > 1 and "*" in versions:
        found.append(
            field.invalid(
                f"{path}.apiVersions", versions, "if '*' is present, must not specify other API versions"
            )
        )
    found += [field.required(f"{path}.apiVersions[{i}]") for i, version in enumerate(versions) if not version]
    found += _resources(as_list(rule.get("resources")), f"{path}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in SCOPES:
        found.append(field.not_supported(f"{path}.scope", scope, SCOPES))
    return found


def rule_with_operations(rule: Obj, path: str) -> list[FieldError]:
    """validateRuleWithOperations."""
    found: list[FieldError] = []
    operations = as_list(rule.get("operations"))
    if not operations:
        found.append(field.required(f"{path}.operations"))
    if len(operations) > 1 and "*" in operations:
        found.append(
            field.invalid(
                f"{path}.operations", operations, "if '*' is present, must not specify other operations"
            )
        )
    found += [
        field.not_supported(f"{path}.operations[{i}]", op, OPERATIONS)
        for i, op in enumerate(operations)
        if op not in OPERATIONS
    ]
    return found + _rule(rule, path)


def _named_rule(rule: Obj, path: str) -> list[FieldError]:
    """validateNamedRuleWithOperations."""
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, name in enumerate(as_list(rule.get("resourceNames"))):
        name = name if isinstance(name, str) else ""
        found += [field.invalid(f"{path}.resourceNames[{i}]", name, msg) for msg in path_segment_name(name)]
        if name in seen:
            found.append(field.duplicate(f"{path}.resourceNames[{i}]", name))
        seen.add(name)
    return found + rule_with_operations(rule, path)


def match_resources(match: Any, path: str) -> list[FieldError]:
    """validateMatchResources: selectors judged strictly (the type came after issue #99139)."""
    if not isinstance(match, dict):
        return []
    found: list[FieldError] = []
    policy = match.get("matchPolicy")
    if policy is None:
        found.append(field.required(f"{path}.matchPolicy"))
    elif policy not in MATCH_POLICIES:
        found.append(field.not_supported(f"{path}.matchPolicy", policy, MATCH_POLICIES))
    for selector in ("namespaceSelector", "objectSelector"):
        if match.get(selector) is None:
            found.append(field.required(f"{path}.{selector}"))
        else:
            found += label_selector(match[selector], f"{path}.{selector}")
    for rules in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(as_list(match.get(rules))):
            found += _named_rule(as_dict(rule), f"{path}.{rules}[{i}]")
    return found


def mutating_operations(match: Obj, path: str) -> list[FieldError]:
    """Only creates and updates can be mutated; upstream reports at the rules' path, without an index."""
    return [
        field.not_supported(f"{path}.resourceRules.operations", op, MUTATING_OPERATIONS)
        for rule in as_list(match.get("resourceRules"))
        for op in as_list(as_dict(rule).get("operations"))
        if op not in MUTATING_OPERATIONS
    ]


def _group_version(api_version: str) -> tuple[str, str] | None:
    """parseGroupVersion: None for more than one slash."""
    if api_version in ("", "/"):
        return "", ""
    if api_version.count("/") == 0:
        return "", api_version
    if api_version.count("/") == 1:
        group, version = api_version.split("/")
        return group, version
    return None


def param_kind(kind: Obj, path: str) -> list[FieldError]:
    """validateParamKind: the group and version as an APIService's, the kind a DNS-1035 label in any case."""
    found: list[FieldError] = []
    api_version = kind.get("apiVersion") or ""
    gv = _group_version(api_version)
    if not api_version:
        found.append(field.required(f"{path}.apiVersion"))
    elif gv is None:
        found.append(
            field.invalid(f"{path}.apiVersion", api_version, f"unexpected GroupVersion string: {api_version}")
        )
    else:
        group, version = gv
        if group and (errs := dns1123_subdomain(group)):
            found.append(field.invalid(f"{path}.apiVersion", group, ",".join(errs)))
        if not version:
            found.append(field.invalid(f"{path}.apiVersion", api_version, "version must be specified"))
        elif errs := dns1035_label(version):
            found.append(field.invalid(f"{path}.apiVersion", version, ",".join(errs)))
    name = kind.get("kind") or ""
    if not name:
        found.append(field.required(f"{path}.kind"))
    elif errs := dns1035_label(name.lower()):
        found.append(
            field.invalid(
                f"{path}.kind", name, "may have mixed case, but should otherwise match: " + ",".join(errs)
            )
        )
    return found


def param_ref(ref: Any, path: str) -> list[FieldError]:
    """validateParamRef: a name or a selector, and what to do when no parameter is found."""
    if not isinstance(ref, dict):
        return []
    found: list[FieldError] = []
    name, selector = ref.get("name") or "", ref.get("selector")
    exclusive = "name and selector are mutually exclusive"
    if name:
        found += [field.invalid(f"{path}.name", name, msg) for msg in path_segment_name(name)]
        if selector is not None:
            found.append(field.forbidden(f"{path}.name", exclusive))
    if selector is not None:
        found += label_selector(selector, f"{path}.selector")
        if name:
            found.append(field.forbidden(f"{path}.selector", exclusive))
    if not name and selector is None:
        found.append(field.required(path, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    if not action:
        found.append(field.required(f"{path}.parameterNotFoundAction"))
    elif action not in ("Deny", "Allow"):
        found.append(field.not_supported(f"{path}.parameterNotFoundAction", action, ("Deny", "Allow")))
    return found


def validation_actions(actions: list[Any], path: str) -> list[FieldError]:
    """validateValidationActions."""
    found: list[FieldError] = []
    seen: set[Any] = set()
    for i, action in enumerate(actions):
        if action not in VALIDATION_ACTIONS:
            found.append(field.not_supported(f"{path}[{i}]", action, VALIDATION_ACTIONS))
        if action in seen:
            found.append(field.duplicate(f"{path}[{i}]", action))
        seen.add(action if isinstance(action, str) else repr(action))
    if "Deny" in seen and "Warn" in seen:
        found.append(
            field.invalid(
                path,
                actions,
                "must not contain both Deny and Warn (repeating the same validation "
                "failure information in the API response and headers serves no "
                "purpose)",
            )
        )
    if not seen:
        found.append(field.required(path, "at least one validation action is required"))
    return found


def declarations(params: bool, authorizer: bool = True, variables: bool = False) -> tuple[str, ...]:
    """The variables an expression is compiled with (plugin/cel's OptionalVariableDeclarations; the
    composition compiler adds `variables`), each dyn as no kind's schema types them here."""
    return (
        *_ALWAYS_DECLARED,
        *(("params",) * params),
        *(("authorizer",) * authorizer),
        *(("variables",) * variables),
    )


def _variables(declared: tuple[str, ...], variables: Any) -> dict[str, Any]:
    found = {name: cel.Type.DYN for name in declared}
    if variables is not None and "variables" in declared:
        found["variables"] = variables
    return found


def checked_output(source: str, declared: tuple[str, ...], variables: Any = None) -> str:
    """The output type of `source` as checked (dyn when it does not compile): a variable's field type."""
    try:
        return compile_checked(source, _variables(declared, variables)).output
    except CompileError:
        return "dyn"


def cel_error(
    path: str, source: str, want: tuple[str, ...] | None, declared: tuple[str, ...], shown: str | None = None,
    variables: Any = None,
) -> list[FieldError]:
    """convertCELErrorToValidationError of a compilation: Invalid, showing the expression (or `shown`);
    `variables`: the type of `variables` (admissionregistration/variabletypes.py) when it is declared."""
    try:
        program = compile_checked(source, _variables(declared, variables))
    except CompileError as error:
        detail = f"compilation failed: {error}"
    else:
        # cel-cpp names the patch type as it declares it; cel-go as cel.ListType(JSONPatch) prints.
        output = {"list<jsonpatch>": "list(JSONPatch)"}.get(program.output, program.output)
        output = output.replace("<", "(").replace(">", ")")  # cel-go's spelling: map(string, int)
        if want is None or (output in want if variables is not None else program.returns(want, output)):
            return []
        expected = want[0] if len(want) == 1 else "one of [" + " ".join(want) + "]"
        detail = f"must evaluate to {expected} but got {output}"
    return [field.invalid(path, source if shown is None else shown, detail)]


def match_conditions(conditions: list[Any], path: str, params: bool) -> list[FieldError]:
    """validateMatchConditions: at most 64, each a named boolean expression, names unique."""
    found: list[FieldError] = []
    if len(conditions) > _MAX_MATCH_CONDITIONS:
        found.append(field.too_many(path, len(conditions), _MAX_MATCH_CONDITIONS))
    names: set[str] = set()
    for i, condition in enumerate(conditions):
        condition, at = as_dict(condition), f"{path}[{i}]"
        expression = str(condition.get("expression") or "").strip()
        if not expression:
            found.append(field.required(f"{at}.expression"))
        else:
            found += cel_error(f"{at}.expression", expression, ("bool",), declarations(params))
        name = condition.get("name") or ""
        if not name:
            found.append(field.required(f"{at}.name"))
        else:
            found += [field.invalid(f"{at}.name", name, msg) for msg in qualified_name(name)]
            if name in names:
                found.append(field.duplicate(f"{at}.name", name))
            names.add(name)
    return found
