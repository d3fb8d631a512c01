"""Steps that exercise Kubernetes' CEL `format` and `authorizer` libraries, shared by the test and the
script that recorded kube-apiserver 1.36.2's answers (tools/capture_cel_library.py).

Formats: a CRD whose items each name a format and a value, with rules that report
`format.named(...).value().validate(...)`'s errors (upstream's format_test.go cases and more), one
with rules that render upstream's test expressions as messages, and one whose rules must not compile.
Authorizer: a ValidatingAdmissionPolicy bound with `Warn` whose every validation fails with a message
rendering an authorizer check, run as users that RBAC grants different things (`kubectl --as`), and
one bound with `Deny` that refuses a write by what the requesting user may do. Ratcheting: a CRD rule
made stricter under an existing object, whose unchanged value is let through with a warning.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "fixtures" / "cel_library.json"
GROUP = "probe.example.io"
NAMESPACE = "authz-probe"

SPACE = "contains a space"
FORMAT_CASES: list[tuple[str, str]] = [
    ("dns1123Label", "my-label-name"), ("dns1123Label", SPACE), ("dns1123Label", "a.b"), ("dns1123Label", "x" * 64),
    ("dns1123Label", ""), ("dns1123Subdomain", "apiextensions.k8s.io"), ("dns1123Subdomain", SPACE),
    ("dns1123Subdomain", "a" * 254), ("dns1035Label", "my-label-name"), ("dns1035Label", SPACE),
    ("dns1035Label", "1abc"), ("qualifiedName", "apiextensions.k8s.io/v1beta1"), ("qualifiedName", SPACE),
    ("qualifiedName", "a/b/c"), ("qualifiedName", "/name"), ("qualifiedName", "Bad_Prefix/name"),
    ("qualifiedName", "x" * 64), ("dns1123LabelPrefix", "my-label-prefix-"), ("dns1123LabelPrefix", SPACE + "-"),
    ("dns1123LabelPrefix", "ab-"), ("dns1123LabelPrefix", "-"), ("dns1123SubdomainPrefix", "mysubdomain.prefix.-"),
    ("dns1123SubdomainPrefix", SPACE + "-"), ("dns1035LabelPrefix", "my-label-prefix-"),
    ("dns1035LabelPrefix", SPACE + "-"), ("labelValue", "my-cool-label-Value"), ("labelValue", "my-cool-label-Value!!"),
    ("labelValue", ""), ("labelValue", "v" * 64), ("uri", "http://example.com"), ("uri", "example.com"),
    ("uri", "/rooted/path"), ("uri", "mailto:someone"), ("uri", "http://[::1]:80/x"), ("uri", "http://[::1/x"),
    ("uri", "http://host:port/"), ("uri", "http://::1/"), ("uri", "http://localhost:80:80/"), ("uri", ""),
    ("uri", "http://a b.com/"), ("uri", "http://x/%zz"), ("uri", "http://x/%"), ("uri", "http://us er@x/"),
    ("uri", "://x"), ("uri", "*"), ("uri", "http://%41.com/"), ("uri", "1http://x"),
    ("uuid", "123e4567-e89b-12d3-a456-426614174000"), ("uuid", "123E4567E89B12D3A456426614174000"),
    ("uuid", "123e4567-e89b-12d3-a456-42661417400"), ("byte", "aGVsbG8="), ("byte", "aGVsbG8"), ("byte", ""),
    ("byte", "aGVs bG8="), ("date", "2021-01-01"), ("date", "2020-01-32"), ("date", "2020-02-29"),
    ("date", "2021-02-29"), ("date", "0000-02-29"), ("date", "2021-1-01"), ("date", "20210101"),
    ("datetime", "2021-01-01T00:00:00Z"), ("datetime", "2020-01-32T00:00:00Z"), ("datetime", "2021-01-01t23:59:59.5+01:00"),
    ("datetime", "2021-01-01T24:00:00Z"), ("datetime", "2021-01-01 00:00:00Z"), ("datetime", "2021-01-01T00:00:00"),
    ("datetime", "2021-01-01T00:00:60Z"), ("nope", "anything"),
]

# Upstream's format_test.go expressions and more, each as the message of an always-failing rule on a
# field of its own. Rendered with conditionals and indexes: CRD rules' cost estimate refuses
# concatenating a function's string result (its size is unbounded).
FORMAT_EXPRESSIONS: list[str] = [
    "format.dns1123Label().validate('my-label-name').hasValue() ? 'some' : 'none'",
    "format.dns1123Label().validate('contains a space').value()[0]",
    "format.labelValue().validate('my-cool-label-Value!!\\n\\n!!!').value()[0]",
    "format.named('unknown').hasValue() ? 'true' : 'false'",
    "format.named('uuid').value() == format.uuid() ? 'true' : 'false'",
    "format.uuid() == format.byte() ? 'true' : 'false'",
    "format.named('Date').hasValue() ? 'true' : 'false'",
    "format.byte().validate('aGVsbG8').orValue(['valid'])[0]",
    "format.byte().validate('aGVsbG8=').orValue(['valid'])[0]",
    "format.named('dns1035Label').value().validate('1a').value()[0]",
    "['a', 'B', 'c'].exists(x, format.dns1123Label().validate(x).hasValue()) ? 'true' : 'false'",
    "format.named('uri').orValue(format.uuid()) == format.uri() ? 'true' : 'false'",
    "format.named('nope').orValue(format.uuid()) == format.uuid() ? 'true' : 'false'",
    "optional.of(format.uuid()).value().validate('x').hasValue() ? 'true' : 'false'",
    "format.dns1123Subdomain().validate(self).hasValue() ? 'true' : 'false'",
    "format.qualifiedName().validate(self).orValue(['valid'])[0]",
    "format.dns1123Label().validate('ab').orValue(['valid'])[0]",
    "format.dns1123Label().validate('x').value().size() == 0 ? 'empty' : 'errors'",
]

# Rules (or messageExpressions, after "message:") the reference refuses, each on a field of its own.
BAD_RULES: list[str] = [
    "format.named(1).hasValue()",
    "format.dns1123Label().validate(1).hasValue()",
    "format.nope().validate('x').hasValue()",
    "format.dns1123Label().validate('x')",
    "format.dns1123Label()",
    "format.dns1123Label().validate(self) == optional.none()",
    "message:string(format.named('x').hasValue())",
    "message:format.dns1123Label().validate(self).value().join(', ')",
]


def _crd(plural: str, kind: str, spec_schema: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": spec_schema}}}}]}}


_BOUNDED = {"type": "string", "maxLength": 300}
_ITEM = {"type": "object", "required": ["format", "value"],
         "properties": {"format": {"type": "string", "maxLength": 64}, "value": _BOUNDED},
         "x-kubernetes-validations": [{"rule": "format.named(self.format).hasValue()", "message": "unknown format"}]}
# An item's first and second errors, each by a rule of its own.
for _index in (0, 1):
    _ITEM["x-kubernetes-validations"].append({
        "rule": f"!format.named(self.format).hasValue() || "
                f"format.named(self.format).value().validate(self.value).orValue([]).size() <= {_index}",
        "messageExpression": f"format.named(self.format).value().validate(self.value).value()[{_index}]"})
FORMAT_CRD = _crd("formatprobes", "FormatProbe", {"type": "object", "properties": {"items": {
    "type": "array", "maxItems": 200, "items": _ITEM}}})


def _field_rule(rule: str) -> dict[str, Any]:
    if rule.startswith("message:"):
        return {"type": "string", "maxLength": 63,
                "x-kubernetes-validations": [{"rule": "false", "messageExpression": rule.removeprefix("message:")}]}
    return {"type": "string", "maxLength": 63, "x-kubernetes-validations": [{"rule": rule}]}


EXPRESSION_CRD = _crd("expressionprobes", "ExpressionProbe", {"type": "object", "properties": {
    f"e{i:02d}": _field_rule(f"message:{source}") for i, source in enumerate(FORMAT_EXPRESSIONS)}})
BAD_CRD = _crd("badformatprobes", "BadFormatProbe", {"type": "object", "properties": {
    f"f{i}": _field_rule(rule) for i, rule in enumerate(BAD_RULES)}})


def _probe(kind: str, spec: dict[str, Any]) -> str:
    return json.dumps({"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": "probe", "namespace": "default"},
                       "spec": spec})


def kubectl(kubeconfig: str, args: list[str], stdin: str = "") -> tuple[int, str, str]:
    result = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args], input=stdin, capture_output=True,
                            text=True, timeout=60, check=False)
    return result.returncode, result.stdout, result.stderr


def lines(stderr: str) -> list[str]:
    """kubectl's error and warning lines, sorted: causes come in Go's map order upstream."""
    out = []
    for line in stderr.strip().splitlines():
        line = line.removeprefix("* ").strip()
        head, invalid, cause = line.partition(" is invalid: ")
        out += [head + " is invalid:", cause] if invalid and cause else [line] if line else []
    return sorted(out)


def create_format_crds(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    answers = []
    for crd in (FORMAT_CRD, EXPRESSION_CRD, BAD_CRD):
        code, _, stderr = kubectl(kubeconfig, ["create", "-f", "-"], json.dumps(crd))
        answers.append((crd["metadata"]["name"], code, lines(stderr)))
    return answers


def run_format_steps(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    items = [{"format": f, "value": v} for f, v in FORMAT_CASES]
    steps = []
    for name, kind, spec in (("formats", "FormatProbe", {"items": items}),
                             ("expressions", "ExpressionProbe",
                              {f"e{i:02d}": "Not_A_Subdomain" for i in range(len(FORMAT_EXPRESSIONS))})):
        code, _, stderr = kubectl(kubeconfig, ["create", "--dry-run=server", "-f", "-"], _probe(kind, spec))
        steps.append((name, code, lines(stderr)))
    return steps


PODS = f"authorizer.group('').resource('pods').namespace('{NAMESPACE}')"
ROBOT = f"authorizer.serviceAccount('{NAMESPACE}', 'robot').group('')"
# Checks each bound as a variable (so each runs once: a check costs 350000 of the 10M a policy may spend)
# and rendered whole by a message: allowed, reason, errored, error.
DECISIONS: list[str] = [
    f"{PODS}.check('get')",
    f"{PODS}.check('delete')",
    f"{PODS}.name('web').check('get')",
    "authorizer.group('').resource('pods').check('get')",
    "authorizer.requestResource.check('create')",
    "authorizer.requestResource.subresource('status').check('create')",
    "authorizer.requestResource.name('other').check('create')",
    f"{ROBOT}.resource('secrets').namespace('{NAMESPACE}').check('get')",
    f"{ROBOT}.resource('pods').namespace('{NAMESPACE}').check('get')",
    "authorizer.path('/probes/x').check('get')",
    "authorizer.path('/metrics').check('get')",
    f"authorizer.group('apps').resource('deployments').namespace('{NAMESPACE}').check('list')",
    f"{PODS}.fieldSelector('spec.nodeName=n1').labelSelector('app=web').check('list')",
    f"{PODS}.fieldSelector('not a selector').labelSelector('=').check('list')",
]
# Expressions whose evaluation fails, each a validation of its own.
FAILING: list[str] = [
    "authorizer.serviceAccount('Bad NS', 'robot').group('').resource('pods').check('get').allowed()",
    f"authorizer.serviceAccount('{NAMESPACE}', 'Bad_Name').group('').resource('pods').check('get').allowed()",
    "authorizer.path('  ').check('get').allowed()",
    "authorizer.group('').resource(' ').check('get').allowed()",
]


def _probe_policy(index: int) -> list[dict[str, Any]]:
    """A policy whose one validation fails, showing what it probes in the warning: a decision rendered whole
    (allowed, reason, errored, error) as a missing map key (neither a message nor a messageExpression may
    use the authorizer upstream, but an evaluation error is shown), or a failing expression's error.
    One warning per request: upstream truncates warnings past 4096 characters in all."""
    name = f"p{index:02d}"
    if index >= len(DECISIONS):
        return _policy(name, [{"expression": FAILING[index - len(DECISIONS)]}], "Warn")
    rendered = ("string(variables.d.allowed()) + ' ' + variables.d.reason() + ' ' + string(variables.d.errored()) + "
                "' ' + variables.d.error()")
    return _policy(name, [{"expression": "{}[variables.r] == true"}], "Warn",
                   [{"name": "d", "expression": DECISIONS[index]}, {"name": "r", "expression": rendered}])


PROBES = len(DECISIONS) + len(FAILING)


def _namespaced(kind: str, name: str, body: dict[str, Any], api: str = "rbac.authorization.k8s.io/v1") -> dict[str, Any]:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": NAMESPACE}, **body}


def _binding(name: str, role: str, subject: dict[str, Any]) -> dict[str, Any]:
    return _namespaced("RoleBinding", name, {"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                         "name": role}, "subjects": [subject]})


def _user(name: str) -> dict[str, Any]:
    return {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": name}


_RULES = {"pod-reader": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]},
                         {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}],
          "pod-admin": [{"apiGroups": [""], "resources": ["pods", "pods/status"], "verbs": ["*"]},
                        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}],
          "secret-reader": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]}


def _policy(name: str, validations: list[dict[str, Any]], action: str,
            variables: list[dict[str, str]] | None = None) -> list[dict[str, Any]]:
    api = "admissionregistration.k8s.io/v1"
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    selector = {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}}
    return [{"apiVersion": api, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
             "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules,
                                                                     "namespaceSelector": selector},
                      "matchConditions": [{"name": "only-probes",
                                           "expression": f"object.metadata.name.startsWith('{name}')"}],
                      "variables": variables or [], "validations": validations}},
            {"apiVersion": api, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
             "spec": {"policyName": name, "validationActions": [action]}}]


AUTHZ_OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
    *(_namespaced("Role", name, {"rules": rules}) for name, rules in _RULES.items()),
    # Upstream visits bindings in no fixed order, so a path only this binding grants gives a fixed reason.
    {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "probe-paths"},
     "rules": [{"nonResourceURLs": ["/probes/*"], "verbs": ["get"]}]},
    {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "alice-paths"},
     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "probe-paths"},
     "subjects": [_user("alice")]},
    _binding("alice-reads", "pod-reader", _user("alice")),
    _binding("alice-broken", "ghost", _user("alice")),
    _binding("bob-admin", "pod-admin", _user("bob")),
    _binding("robot-secrets", "secret-reader", {"kind": "ServiceAccount", "name": "robot", "namespace": NAMESPACE}),
    *(obj for index in range(PROBES) for obj in _probe_policy(index)),
    *_policy("guarded", [{"expression": f"{PODS}.check('delete').allowed()", "reason": "Forbidden",
                          "messageExpression": "request.userInfo.username + ' may not delete pods'"}], "Deny"),
    # A validation must evaluate to a bool, not to the optional `validate` answers.
    *_policy("optional-result", [{"expression": "format.dns1123Label().validate(object.metadata.name)"}], "Deny"),
    # A messageExpression may not name the authorizer, nor read a variable that does.
    *_policy("message-guard", [{"expression": "variables.deletion.allowed()",
                                  "messageExpression": "'denied: ' + variables.deletion.reason()"}], "Deny",
             [{"name": "deletion", "expression": f"{PODS}.check('delete')"}]),
]


# A webhook nothing answers, called only when its match conditions hold: whether a write fails tells
# whether the authorizer let the condition through (webhook matchConditions may ask it too).
AUTHZ_OBJECTS.append({
    "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
    "metadata": {"name": "authz-hook"},
    "webhooks": [{"name": "authz.probe.example.io", "clientConfig": {"url": "https://127.0.0.1:9/never"},
                  "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                             "resources": ["configmaps"]}],
                  "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}},
                  "matchConditions": [{"name": "hooked", "expression": "object.metadata.name.startsWith('hooked')"},
                                      {"name": "may-delete-pods", "expression": f"{PODS}.check('delete').allowed()"}],
                  "sideEffects": "None", "admissionReviewVersions": ["v1"], "failurePolicy": "Fail",
                  "timeoutSeconds": 2}]})


def _configmap(name: str) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NAMESPACE}})


_USERS = {"alice": "alice", "bob": "bob", "admin": None}
# (step, user to impersonate or None for the administrator, object name)
AUTHZ_STEPS: list[tuple[str, str | None, str]] = [
    *((f"p{index:02d}-as-{who}", user, f"p{index:02d}-{who}") for index in range(PROBES) for who, user in _USERS.items()),
    ("guarded-as-alice", "alice", "guarded-a"),
    ("guarded-as-bob", "bob", "guarded-b"),
    ("guarded-as-admin", None, "guarded-c"),
    ("message-guard-as-alice", "alice", "message-guard-a"),
    ("hooked-as-alice", "alice", "hooked-a"),
    ("hooked-as-bob", "bob", "hooked-b"),
]
# Steps whose error text is Go's HTTP client's own: only whether they failed is compared.
CODE_ONLY = ("hooked-as-alice", "hooked-as-bob")


def create_authz_objects(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    answers = []
    for obj in AUTHZ_OBJECTS:
        code, _, stderr = kubectl(kubeconfig, ["create", "-f", "-"], json.dumps(obj))
        answers.append((f"{obj['kind']}/{obj['metadata']['name']}", code, lines(stderr)))
    return answers


def run_authz_steps(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    steps = []
    for name, user, object_name in AUTHZ_STEPS:
        who = ["--as", user] if user else []
        code, _, stderr = kubectl(kubeconfig, [*who, "create", "--dry-run=server", "-f", "-"], _configmap(object_name))
        steps.append((name, code, [] if name in CODE_ONLY else lines(stderr)))
    return steps


def _ratchet_crd(minimum: int) -> str:
    x = {"type": "integer", "x-kubernetes-validations": [{"rule": f"self > {minimum}",
                                                          "message": f"x must exceed {minimum}"}]}
    return json.dumps(_crd("ratchets", "Ratchet", {"type": "object", "properties": {"x": x, "y": {"type": "string"}}}))


# A rule made stricter under an existing object: an update that leaves the failing value as it was is let
# through with the rule's error as a warning (CEL ratcheting), one that changes it is refused.
RATCHET_STEPS: list[tuple[str, list[str], str]] = [
    ("ratchet-crd", ["create", "-f", "-"], _ratchet_crd(0)),
    ("ratchet-object", ["create", "-f", "-"], _probe("Ratchet", {"x": 5, "y": "a"})),
    ("ratchet-stricter", ["replace", "-f", "-"], _ratchet_crd(10)),
    ("ratchet-unchanged", ["patch", "ratchet", "probe", "-n", "default", "--type=merge", "-p",
                           '{"spec":{"y":"b"}}'], ""),
    ("ratchet-changed", ["patch", "ratchet", "probe", "-n", "default", "--type=merge", "-p", '{"spec":{"x":6}}'], ""),
]


def run_ratchet_steps(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    steps = []
    for name, args, stdin in RATCHET_STEPS:
        code, _, stderr = kubectl(kubeconfig, args, stdin)
        steps.append((name, code, lines(stderr)))
        if name in ("ratchet-crd", "ratchet-stricter"):
            time.sleep(3)  # the CRD's new schema reaches its handler a moment after it is written
    return steps
