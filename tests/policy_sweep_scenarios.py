"""Admission-policy scenarios (ValidatingAdmissionPolicy, MutatingAdmissionPolicy): requests in the image
of real policy libraries (Gatekeeper's and Kyverno's rules rewritten as CEL, kubernetes.io's examples),
each scenario in namespaces of its own, replayed with tests/admission_replay.py.

tools/capture_policy_sweep.py records kube-apiserver 1.36.2's answers into tests/fixtures/policy_sweep/;
tests/test_admission_policy_sweep.py replays them against this server. Policies are cluster-wide, so
every one selects only its scenario's namespaces (or objects), and a scenario's first request after a
policy is written waits (`until`) until the policy is enforced: the reference learns of it through an
informer.
"""

from __future__ import annotations

from typing import Any

Step = dict[str, Any]
ADMISSION = "/apis/admissionregistration.k8s.io/v1"
SCENARIO_LABEL = "sweep.example.io/scenario"


def ns(name: str, scenario: str, **labels: str) -> Step:
    return {"name": f"namespace {name}", "method": "POST", "path": "/api/v1/namespaces",
            "body": {"apiVersion": "v1", "kind": "Namespace",
                     "metadata": {"name": name, "labels": {SCENARIO_LABEL: scenario, **labels}}},
            "keep": ["metadata.name"]}


def rule(group: str, version: str, resources: list[str], operations: list[str], **extra: Any) -> dict[str, Any]:
    return {"apiGroups": [group], "apiVersions": [version], "resources": resources, "operations": operations, **extra}


def in_scenario(scenario: str) -> dict[str, Any]:
    return {"matchLabels": {SCENARIO_LABEL: scenario}}


def policy(name: str, spec: dict[str, Any], kind: str = "ValidatingAdmissionPolicy", step: str = "") -> Step:
    plural = "validatingadmissionpolicies" if kind == "ValidatingAdmissionPolicy" else "mutatingadmissionpolicies"
    return {"name": step or f"policy {name}", "method": "POST", "path": f"{ADMISSION}/{plural}",
            "body": {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": name},
                     "spec": spec}, "keep": ["metadata.name"]}


def binding(name: str, policy_name: str, actions: list[str] | None = None, kind: str = "ValidatingAdmissionPolicy",
            step: str = "", **spec: Any) -> Step:
    body_spec: dict[str, Any] = {"policyName": policy_name, **spec}
    if actions is not None:
        body_spec["validationActions"] = actions
    plural = "validatingadmissionpolicybindings" if kind == "ValidatingAdmissionPolicy" \
        else "mutatingadmissionpolicybindings"
    return {"name": step or f"binding {name}", "method": "POST", "path": f"{ADMISSION}/{plural}",
            "body": {"apiVersion": "admissionregistration.k8s.io/v1", "kind": f"{kind}Binding",
                     "metadata": {"name": name}, "spec": body_spec}, "keep": ["metadata.name"]}


def configmap(namespace: str, name: str, data: dict[str, str] | None, step: str, labels: dict[str, str] | None = None,
              query: dict[str, str] | None = None, keep: tuple[str, ...] = ("metadata.name",),
              until: dict[str, Any] | None = None) -> Step:
    meta: dict[str, Any] = {"generateName": name} if name.endswith("-") else {"name": name}
    if labels:
        meta["labels"] = labels
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
    if data is not None:
        body["data"] = data
    found = {"name": step, "method": "POST", "path": f"/api/v1/namespaces/{namespace}/configmaps", "body": body,
             "query": query or {}, "keep": list(keep)}
    if until:
        found["until"] = until
    return found


def patch(path: str, body: Any, step: str, keep: tuple[str, ...] = ("metadata.name",), kind: str = "merge",
          query: dict[str, str] | None = None, until: dict[str, Any] | None = None) -> Step:
    found = {"name": step, "method": "PATCH", "path": path, "content_type": f"application/{kind}-patch+json"
             if kind != "apply" else "application/apply-patch+yaml", "body": body, "query": query or {},
             "keep": list(keep)}
    if until:
        found["until"] = until
    return found


def delete(path: str, step: str, body: dict[str, Any] | None = None, query: dict[str, str] | None = None,
           until: dict[str, Any] | None = None) -> Step:
    found = {"name": step, "method": "DELETE", "path": path, "body": body, "query": query or {},
             "keep": ["metadata.name"]}
    if until:
        found["until"] = until
    return found


def deployment(namespace: str, name: str, replicas: int, step: str, labels: dict[str, str] | None = None,
               image: str = "registry.example/shop/web:2.1", query: dict[str, str] | None = None,
               keep: tuple[str, ...] = ("metadata.name", "spec.replicas"),
               until: dict[str, Any] | None = None) -> Step:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "web", "image": image}]}}}}
    found = {"name": step, "method": "POST", "path": f"/apis/apps/v1/namespaces/{namespace}/deployments",
             "body": body, "query": query or {}, "keep": list(keep)}
    if until:
        found["until"] = until
    return found


def pod(namespace: str, name: str, containers: list[dict[str, Any]], step: str,
        labels: dict[str, str] | None = None, until: dict[str, Any] | None = None, **spec: Any) -> Step:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    found = {"name": step, "method": "POST", "path": f"/api/v1/namespaces/{namespace}/pods",
             "body": {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": containers, **spec}},
             "keep": ["metadata.name"]}
    if until:
        found["until"] = until
    return found


REFUSED = {"@refused": True}  # wait until the policy refuses
WARNED = {"@warned": True}  # wait until the policy warns
LIMITS = {"resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}}

# --- matchConstraints: rules, exclusions, selectors, subresources, equivalent versions, cluster scope ---
_KEYS = {"a": "1", "b": "2", "c": "3"}
MATCHING: list[Step] = [
    ns("sweep-match", "matching", env="prod"),
    ns("sweep-match-dev", "matching", env="dev"),
    policy("sweep-max-configmap-keys", {
        "matchConstraints": {
            "resourceRules": [rule("", "v1", ["configmaps"], ["CREATE", "UPDATE"], scope="Namespaced")],
            "excludeResourceRules": [rule("", "v1", ["configmaps"], ["*"], resourceNames=["legacy-settings"])],
            "namespaceSelector": in_scenario("matching"),
            "objectSelector": {"matchExpressions": [{"key": "policy.example.io/exempt", "operator": "DoesNotExist"}]}},
        "validations": [{"expression": "size(object.?data.orValue({})) <= 2",
                         "messageExpression": "'ConfigMap ' + object.metadata.name + ' has ' + "
                                              "string(size(object.data)) + ' keys, at most 2 are allowed'"}]}),
    binding("sweep-max-configmap-keys-prod", "sweep-max-configmap-keys", ["Deny"],
            matchResources={"namespaceSelector": {"matchLabels": {"env": "prod"}}}),
    configmap("sweep-match", "three-keys", _KEYS, "three keys are refused", until=REFUSED),
    configmap("sweep-match", "two-keys", {"a": "1", "b": "2"}, "two keys are admitted"),
    configmap("sweep-match", "no-data", None, "no data at all is admitted"),
    configmap("sweep-match-dev", "three-keys", _KEYS, "the binding selects prod namespaces only"),
    configmap("sweep-match", "legacy-settings", _KEYS, "an excluded resource name is admitted"),
    configmap("sweep-match", "exempt", _KEYS, "an exempt object is admitted",
              labels={"policy.example.io/exempt": "true"}),
    patch("/api/v1/namespaces/sweep-match/configmaps/exempt",
          {"metadata": {"labels": {"policy.example.io/exempt": None}}},
          "dropping the exemption: the new object matches the object selector"),
    patch("/api/v1/namespaces/sweep-match/configmaps/exempt", {"data": {"d": "4"}},
          "an exempt object stays exempt on update"),
    patch("/api/v1/namespaces/sweep-match/configmaps/two-keys", {"data": {"c": "3"}}, "an update is checked too"),
    configmap("sweep-match", "dry", _KEYS, "a dry run is refused alike", query={"dryRun": "All"}),
    delete("/api/v1/namespaces/sweep-match/configmaps/two-keys", "delete is not a matched operation"),
    deployment("sweep-match", "web", 1, "a deployment to scale"),
    policy("sweep-scale-ceiling", {
        "matchConstraints": {"resourceRules": [rule("apps", "v1", ["deployments/scale"], ["UPDATE"])],
                             "namespaceSelector": in_scenario("matching")},
        "validations": [{"expression": "object.spec.replicas <= 3", "reason": "Forbidden",
                         "messageExpression": "request.subResource + ' of ' + request.name + ': ' + object.kind + ' ' + "
                                              "object.apiVersion + ' asks ' + string(object.spec.replicas) + ' > 3'"}]}),
    binding("sweep-scale-ceiling", "sweep-scale-ceiling", ["Deny"]),
    patch("/apis/apps/v1/namespaces/sweep-match/deployments/web/scale", {"spec": {"replicas": 5}},
          "the scale subresource is refused", keep=("spec.replicas",), until=REFUSED),
    patch("/apis/apps/v1/namespaces/sweep-match/deployments/web/scale", {"spec": {"replicas": 2}},
          "a small scale is admitted", keep=("spec.replicas",)),
    patch("/apis/apps/v1/namespaces/sweep-match/deployments/web", {"spec": {"replicas": 5}},
          "the main resource is not the subresource", keep=("spec.replicas",)),
    policy("sweep-status-ready", {
        "matchConstraints": {"resourceRules": [rule("apps", "v1", ["deployments/status"], ["UPDATE"])],
                             "namespaceSelector": in_scenario("matching")},
        "validations": [{"expression": "object.status.?readyReplicas.orValue(0) <= object.spec.replicas"}]}),
    binding("sweep-status-ready", "sweep-status-ready", ["Deny"]),
    patch("/apis/apps/v1/namespaces/sweep-match/deployments/web/status",
          {"status": {"replicas": 9, "readyReplicas": 9, "updatedReplicas": 9, "availableReplicas": 9}},
          "a status update is checked with the default message", keep=("status.readyReplicas",), until=REFUSED),
    policy("sweep-hpa-ceiling", {
        "matchConstraints": {"resourceRules": [rule("autoscaling", "v2", ["horizontalpodautoscalers"], ["CREATE"])],
                             "namespaceSelector": in_scenario("matching")},
        "validations": [{"expression": "object.spec.maxReplicas <= 10",
                         "messageExpression": "'maxReplicas ' + string(object.spec.maxReplicas) + ' requested as ' + "
                                              "request.requestKind.version + ' matched as ' + request.kind.version + "
                                              "' ' + request.resource.version + ' with ' + "
                                              "string(size(object.spec.?metrics.orValue([]))) + ' metrics'"}]}),
    binding("sweep-hpa-ceiling", "sweep-hpa-ceiling", ["Deny"]),
    policy("sweep-hpa-exact", {
        "matchConstraints": {"matchPolicy": "Exact",
                             "resourceRules": [rule("autoscaling", "v2", ["horizontalpodautoscalers"], ["CREATE"])],
                             "namespaceSelector": in_scenario("matching")},
        "validations": [{"expression": "false", "messageExpression": "'exact match saw ' + request.kind.version"}]}),
    binding("sweep-hpa-exact", "sweep-hpa-exact", ["Warn"]),
    {"name": "an autoscaling/v2 request", "method": "POST",
     "path": "/apis/autoscaling/v2/namespaces/sweep-match/horizontalpodautoscalers",
     "body": {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web-v2"},
              "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                       "minReplicas": 1, "maxReplicas": 20}}, "keep": ["metadata.name"], "until": REFUSED},
    {"name": "an autoscaling/v1 request is matched as its v2 equivalent", "method": "POST",
     "path": "/apis/autoscaling/v1/namespaces/sweep-match/horizontalpodautoscalers",
     "body": {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web-v1"},
              "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                       "minReplicas": 1, "maxReplicas": 20, "targetCPUUtilizationPercentage": 70}},
     "keep": ["metadata.name"]},
    {"name": "an admitted v1 request: the exact policy does not see it", "method": "POST",
     "path": "/apis/autoscaling/v1/namespaces/sweep-match/horizontalpodautoscalers",
     "body": {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web-small"},
              "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                       "maxReplicas": 4}}, "keep": ["metadata.name", "spec.maxReplicas"]},
    policy("sweep-namespace-owner", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["namespaces"], ["CREATE"], scope="Cluster")]},
        "matchConditions": [{"name": "sweep-namespaces", "expression": "object.metadata.name.startsWith('sweep-owned-')"}],
        "validations": [{"expression": "has(object.metadata.labels) && 'owner' in object.metadata.labels",
                         "message": "namespaces need an owner label", "reason": "Forbidden"}]}),
    binding("sweep-namespace-owner", "sweep-namespace-owner", ["Deny"], matchResources={"namespaceSelector": {
        "matchExpressions": [{"key": "sweep.example.io/skip", "operator": "DoesNotExist"}]}}),
    {**ns("sweep-owned-a", "matching"), "name": "a namespace without an owner", "until": REFUSED},
    ns("sweep-owned-b", "matching", owner="platform"),
    {**ns("sweep-owned-c", "matching", **{"sweep.example.io/skip": "yes"}),
     "name": "a namespace is selected by its own labels"},
]

# --- params: by name, by selector, not found (Allow, Deny), none, an unknown kind, a cluster-scoped request ---
_PARAMS_NS = "sweep-params"
PARAMS: list[Step] = [
    ns(_PARAMS_NS, "params"),
    ns("sweep-params-empty", "params"),
    configmap(_PARAMS_NS, "limits", {"maxReplicas": "3", "team": "payments"}, "the named param"),
    configmap(_PARAMS_NS, "tier-gold", {"maxReplicas": "4"}, "a selected param",
              labels={"limits.example.io/tier": "gold"}),
    configmap(_PARAMS_NS, "tier-silver", {"maxReplicas": "2"}, "another selected param",
              labels={"limits.example.io/tier": "silver"}),
    policy("sweep-replica-ceiling", {
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConstraints": {"resourceRules": [rule("apps", "v1", ["deployments"], ["CREATE", "UPDATE"])],
                             "namespaceSelector": in_scenario("params")},
        "variables": [{"name": "ceiling", "expression": "int(params.data.maxReplicas)"}],
        "validations": [{"expression": "object.spec.replicas <= variables.ceiling",
                         "messageExpression": "'replicas ' + string(object.spec.replicas) + ' exceed ' + "
                                              "params.metadata.name + ' (' + params.kind + ') ceiling ' + "
                                              "string(variables.ceiling)"}]}),
    *[binding(f"sweep-ceiling-{name}", "sweep-replica-ceiling", ["Deny"],
              matchResources={"objectSelector": {"matchLabels": {"ceiling": name}}}, **({"paramRef": ref} if ref else {}))
      for name, ref in (("named", {"name": "limits", "namespace": _PARAMS_NS, "parameterNotFoundAction": "Deny"}),
                        ("selected", {"selector": {"matchExpressions": [{"key": "limits.example.io/tier",
                                                                         "operator": "Exists"}]},
                                      "parameterNotFoundAction": "Allow"}),
                        ("missing-deny", {"name": "nope", "parameterNotFoundAction": "Deny"}),
                        ("missing-allow", {"name": "nope", "parameterNotFoundAction": "Allow"}),
                        ("no-ref", None))],
    deployment(_PARAMS_NS, "named-over", 5, "over the named param's ceiling", {"ceiling": "named"}, until=REFUSED),
    deployment(_PARAMS_NS, "named-ok", 3, "within the named param's ceiling", {"ceiling": "named"}),
    deployment(_PARAMS_NS, "selected-over", 3, "a selector: each param is checked", {"ceiling": "selected"}),
    deployment(_PARAMS_NS, "selected-ok", 2, "within every selected param", {"ceiling": "selected"}),
    deployment("sweep-params-empty", "selected-none", 9, "no param selected, Allow", {"ceiling": "selected"}),
    deployment(_PARAMS_NS, "missing-deny", 1, "a missing param, Deny", {"ceiling": "missing-deny"}),
    deployment(_PARAMS_NS, "missing-allow", 9, "a missing param, Allow", {"ceiling": "missing-allow"}),
    deployment(_PARAMS_NS, "no-ref", 1, "no paramRef: params is null", {"ceiling": "no-ref"}),
    patch(f"/api/v1/namespaces/{_PARAMS_NS}/configmaps/limits", {"data": {"maxReplicas": "many"}},
          "the param is made unreadable"),
    deployment(_PARAMS_NS, "named-bad-param", 1, "a variable that fails on the param", {"ceiling": "named"},
               until={"@refused": True}),
    policy("sweep-namespace-param", {
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConstraints": {"resourceRules": [rule("", "v1", ["namespaces"], ["CREATE"],
                                                    resourceNames=["sweep-paramns-a"])]},
        "validations": [{"expression": "object.metadata.name != params.data.team"}]}),
    binding("sweep-namespace-param", "sweep-namespace-param", ["Deny"], paramRef={"name": "limits",
                                                                                  "parameterNotFoundAction": "Deny"}),
    {**ns("sweep-paramns-a", "params"), "name": "a namespace's params are looked up in the namespace itself",
     "until": REFUSED},
]

# --- expressions: chained variables, lazy errors, messages, reasons, runtime errors, match conditions ---
_EXPR = "sweep-expr"


def _labelled(name: str, label: str, value: str, step: str, until: dict[str, Any] | None = None,
              data: dict[str, str] | None = None) -> Step:
    return configmap(_EXPR, name, data if data is not None else {"value": "x"}, step, labels={label: value},
                     until=until)


EXPRESSIONS: list[Step] = [
    ns(_EXPR, "expressions"),
    policy("sweep-container-rules", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["pods"], ["CREATE"])],
                             "namespaceSelector": in_scenario("expressions")},
        "variables": [
            {"name": "containers", "expression": "object.spec.containers + object.spec.?initContainers.orValue([])"},
            {"name": "images", "expression": "variables.containers.map(c, c.image)"},
            {"name": "untrusted", "expression": "variables.images.filter(i, !i.startsWith('registry.example/'))"},
            {"name": "node", "expression": "object.spec.nodeName"}],
        "validations": [
            {"expression": "size(variables.untrusted) == 0", "reason": "Forbidden",
             "messageExpression": "'untrusted images: ' + variables.untrusted.join(', ')"},
            {"expression": "variables.containers.all(c, has(c.resources) && has(c.resources.limits))",
             "message": "every container needs limits", "messageExpression": "object.spec.missing + ' x'"},
            {"expression": "!has(object.metadata.labels) || !('debug' in object.metadata.labels) || "
                           "variables.node != ''"}]}),
    binding("sweep-container-rules", "sweep-container-rules", ["Deny"]),
    pod(_EXPR, "untrusted", [{"name": "app", "image": "docker.io/library/nginx:1.27", **LIMITS}],
        "an untrusted image", until=REFUSED),
    pod(_EXPR, "init-untrusted", [{"name": "app", "image": "registry.example/app:1", **LIMITS}],
        "an untrusted init container image", initContainers=[{"name": "setup", "image": "quay.io/tools/setup:3"}]),
    pod(_EXPR, "unlimited", [{"name": "app", "image": "registry.example/app:1"}],
        "a failing messageExpression falls back to the message"),
    pod(_EXPR, "good", [{"name": "app", "image": "registry.example/app:1", **LIMITS}], "a good pod"),
    pod(_EXPR, "debug", [{"name": "app", "image": "registry.example/app:1", **LIMITS}],
        "a variable that fails only where it is read", labels={"debug": "true"}),
    policy("sweep-message-fallbacks", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                             "namespaceSelector": in_scenario("expressions"),
                             "objectSelector": {"matchExpressions": [{"key": "fallback", "operator": "Exists"}]}},
        "validations": [
            {"expression": "object.metadata.labels.fallback != 'empty'", "messageExpression": "''",
             "message": "  the static message  "},
            {"expression": "object.metadata.labels.fallback != 'newline'", "messageExpression": "'two\\nlines'"},
            {"expression": "object.metadata.labels.fallback != 'padded'",
             "messageExpression": "'   padded ' + object.metadata.name + '   '"},
            {"expression": "object.metadata.labels.fallback != 'long'",
             "messageExpression": "string(object.data.value)", "message": "too long"}]}),
    binding("sweep-message-fallbacks", "sweep-message-fallbacks", ["Deny"]),
    _labelled("fallback-empty", "fallback", "empty", "an empty messageExpression", until=REFUSED),
    _labelled("fallback-newline", "fallback", "newline", "a messageExpression with a newline"),
    _labelled("fallback-padded", "fallback", "padded", "a messageExpression is trimmed"),
    _labelled("fallback-long", "fallback", "long", "a message over 5 KiB", data={"value": "y" * 5200}),
    _labelled("fallback-ok", "fallback", "fine", "no validation fails"),
    policy("sweep-reasons", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                             "namespaceSelector": in_scenario("expressions"),
                             "objectSelector": {"matchExpressions": [{"key": "reason", "operator": "Exists"}]}},
        "validations": [{"expression": f"object.metadata.labels.reason != '{reason}'", "reason": reason,
                         "message": f"refused as {reason}"}
                        for reason in ("Forbidden", "RequestEntityTooLarge")]
        + [{"expression": "object.metadata.labels.reason != 'Default'", "message": "refused with no reason"}]}),
    binding("sweep-reasons", "sweep-reasons", ["Deny"]),
    _labelled("reason-forbidden", "reason", "Forbidden", "reason Forbidden", until=REFUSED),
    _labelled("reason-too-large", "reason", "RequestEntityTooLarge", "reason RequestEntityTooLarge"),
    _labelled("reason-default", "reason", "Default", "no reason"),
    policy("sweep-runtime-errors", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                             "namespaceSelector": in_scenario("expressions"),
                             "objectSelector": {"matchExpressions": [{"key": "err", "operator": "Exists"}]}},
        "validations": [
            {"expression": "object.metadata.labels.err != 'nokey' || object.data.missing == 'x'"},
            {"expression": "object.metadata.labels.err != 'divzero' || 10 / (size(object.data) - 1) > 0"},
            {"expression": "object.metadata.labels.err != 'overflow' || 9223372036854775807 + size(object.data) > 0"},
            {"expression": "object.metadata.labels.err != 'regex' || object.data.value.matches(object.data.pattern)"},
            {"expression": "object.metadata.labels.err != 'int' || int(object.data.value) > 0"},
            {"expression": "object.metadata.labels.err != 'quantity' || "
                           "quantity(object.data.value).isGreaterThan(quantity('1'))"},
            {"expression": "object.metadata.labels.err != 'index' || object.data.value.split(',')[3] == 'x'"}]}),
    binding("sweep-runtime-errors", "sweep-runtime-errors", ["Deny"]),
    _labelled("err-nokey", "err", "nokey", "no such key", until=REFUSED),
    _labelled("err-divzero", "err", "divzero", "division by zero"),
    _labelled("err-overflow", "err", "overflow", "integer overflow"),
    _labelled("err-regex", "err", "regex", "a bad regular expression", data={"value": "a", "pattern": "["}),
    _labelled("err-int", "err", "int", "a string that is not an int", data={"value": "twelve"}),
    _labelled("err-quantity", "err", "quantity", "a string that is not a quantity", data={"value": "1.5 cores"}),
    _labelled("err-index", "err", "index", "an index out of range", data={"value": "a,b"}),
    policy("sweep-runtime-errors-ignored", {
        "failurePolicy": "Ignore",
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                             "namespaceSelector": in_scenario("expressions"),
                             "objectSelector": {"matchLabels": {"ignore-errors": "yes"}}},
        "validations": [{"expression": "object.data.missing == 'x'"},
                        {"expression": "object.data.value == 'good'", "message": "value must be good"}]}),
    binding("sweep-runtime-errors-ignored", "sweep-runtime-errors-ignored", ["Deny"]),
    _labelled("ignored-bad", "ignore-errors", "yes", "failurePolicy Ignore: an error is ignored, a false is not",
              until=REFUSED),
    _labelled("ignored-good", "ignore-errors", "yes", "failurePolicy Ignore: the error alone admits",
              data={"value": "good"}),
    policy("sweep-condition-errors", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                             "namespaceSelector": in_scenario("expressions"),
                             "objectSelector": {"matchExpressions": [{"key": "cond", "operator": "Exists"}]}},
        "matchConditions": [{"name": "team-is-set", "expression": "object.metadata.labels.team != ''"},
                            {"name": "owner-is-set", "expression": "object.metadata.labels.owner != ''"}],
        "validations": [{"expression": "false", "message": "conditions matched"}]}),
    binding("sweep-condition-errors", "sweep-condition-errors", ["Deny"]),
    configmap(_EXPR, "cond-both", {"a": "1"}, "both conditions hold", labels={"cond": "1", "team": "t", "owner": "o"},
              until=REFUSED),
    configmap(_EXPR, "cond-error", {"a": "1"}, "a condition that fails to evaluate", labels={"cond": "1", "team": "t"}),
    configmap(_EXPR, "cond-errors", {"a": "1"}, "both conditions fail to evaluate", labels={"cond": "1"}),
    configmap(_EXPR, "cond-false", {"a": "1"}, "a false condition wins over an error",
              labels={"cond": "1", "team": ""}),
    policy("sweep-condition-errors-ignored", {
        "failurePolicy": "Ignore",
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                             "namespaceSelector": in_scenario("expressions"),
                             "objectSelector": {"matchExpressions": [{"key": "icond", "operator": "Exists"}]}},
        "matchConditions": [{"name": "team-is-set", "expression": "object.metadata.labels.team != ''"}],
        "validations": [{"expression": "false", "message": "conditions matched"}]}),
    binding("sweep-condition-errors-ignored", "sweep-condition-errors-ignored", ["Deny"]),
    configmap(_EXPR, "icond-ok", {"a": "1"}, "Ignore: the condition holds", labels={"icond": "1", "team": "t"},
              until=REFUSED),
    configmap(_EXPR, "icond-error", {"a": "1"}, "Ignore: a condition error skips the policy", labels={"icond": "1"}),
]

# --- validationActions, audit annotations, request fields, authorizer, DELETE and CONNECT ---
_REQ = "sweep-requests"
_ECHO = ("'op=' + request.operation + ' kind=' + request.kind.group + '/' + request.kind.version + '/' + "
         "request.kind.kind + ' resource=' + request.resource.resource + ' sub=' + "
         "(has(request.subResource) ? request.subResource : '-') + ' name=' + "
         "(has(request.name) ? request.name : '-') + ' ns=' + (has(request.namespace) ? request.namespace : '-') + "
         "' dryRun=' + string(request.dryRun) + ' user=' + request.userInfo.username + ' masters=' + "
         "string('system:masters' in request.userInfo.groups) + ' options=' + "
         "(has(request.options) ? request.options.kind + '/' + request.options.apiVersion + ' dry=' + "
         "request.options.?dryRun.orValue([]).join(',') + ' manager=' + request.options.?fieldManager.orValue('-') "
         "+ ' propagation=' + request.options.?propagationPolicy.orValue('-') : '-') + ' object=' + "
         "(object == null ? 'null' : object.kind + ':' + object.metadata.?name.orValue('-')) + ' old=' + "
         "(oldObject == null ? 'null' : oldObject.metadata.name) + ' nsobj=' + "
         "(namespaceObject == null ? 'null' : namespaceObject.metadata.name + ':' + "
         "namespaceObject.metadata.labels.?team.orValue('-') + ':' + namespaceObject.status.phase)")
_CM = f"/api/v1/namespaces/{_REQ}/configmaps"

REQUESTS: list[Step] = [
    ns(_REQ, "requests", team="platform"),
    policy("sweep-request-echo", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["*"]),
                                               rule("", "v1", ["pods/exec", "pods/portforward"], ["CONNECT"])],
                             "namespaceSelector": in_scenario("requests")},
        "validations": [{"expression": "false", "messageExpression": _ECHO}]}),
    binding("sweep-request-echo", "sweep-request-echo", ["Warn"]),
    configmap(_REQ, "echo", {"a": "1"}, "create", until=WARNED),
    configmap(_REQ, "echo-", {"a": "1"}, "create with a generated name"),
    configmap(_REQ, "echo-dry", {"a": "1"}, "create, dry run", query={"dryRun": "All"}),
    configmap(_REQ, "echo-managed", {"a": "1"}, "create with a field manager", query={"fieldManager": "sweeper"}),
    {"name": "update", "method": "PUT", "path": f"{_CM}/echo",
     "body": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "echo"}, "data": {"a": "2"}},
     "keep": ["data"]},
    patch(f"{_CM}/echo", {"data": {"b": "3"}}, "merge patch", keep=("data",)),
    patch(f"{_CM}/applied", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"},
                             "data": {"a": "1"}}, "server-side apply creates", kind="apply",
          query={"fieldManager": "sweep-apply"}),
    patch(f"{_CM}/applied", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"},
                             "data": {"a": "2"}}, "server-side apply updates", kind="apply",
          query={"fieldManager": "sweep-apply"}),
    delete(f"{_CM}/echo-managed", "delete", body={"propagationPolicy": "Background"}),
    delete(f"{_CM}/echo", "delete, dry run", query={"dryRun": "All"}),
    pod(_REQ, "shell", [{"name": "app", "image": "registry.example/app:1"}, {"name": "debug",
                                                                            "image": "registry.example/debug:1"}],
        "a pod to exec into"),
    # CONNECT: the object is the PodExecOptions (no metadata: the message falls back), then the pod is
    # found to run nowhere. (A policy refusing exec was enforced by kube-apiserver only a minute or more
    # after it was written, so none is here.)
    {"name": "exec is admitted with a warning and reaches the pod", "method": "POST",
     "path": f"/api/v1/namespaces/{_REQ}/pods/shell/exec",
     "query": {"container": "debug", "command": "sh", "stdin": "true"}},
    policy("sweep-authorizer", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["secrets"], ["CREATE"])],
                             "namespaceSelector": in_scenario("requests")},
        "variables": [{"name": "builder", "expression": "authorizer.serviceAccount(request.namespace, 'builder')"
                                                        ".group('').resource('secrets').namespace(request.namespace)"
                                                        ".name(object.metadata.name).check('get')"}],
        "validations": [
            {"expression": "authorizer.group('').resource('configmaps').namespace(request.namespace).check('delete')"
                           ".allowed()", "message": "the requester may not delete configmaps"},
            {"expression": "authorizer.requestResource.check('create').allowed() && "
                           "authorizer.path('/healthz').check('get').allowed()", "message": "no request resource"},
            {"expression": "variables.builder.allowed()",
             "messageExpression": "'the builder cannot read ' + object.metadata.name + ': ' + "
                                  "string(variables.builder.allowed())",
             "message": "the builder service account cannot read this secret"}]}),
    binding("sweep-authorizer", "sweep-authorizer", ["Deny"]),
    {"name": "a secret the builder cannot read", "method": "POST", "path": f"/api/v1/namespaces/{_REQ}/secrets",
     "body": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "deploy-key"}}, "keep": ["metadata.name"],
     "until": REFUSED},
    {"name": "a role for the builder", "method": "POST",
     "path": f"/apis/rbac.authorization.k8s.io/v1/namespaces/{_REQ}/roles",
     "body": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "builder"},
              "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"],
                         "resourceNames": ["registry-key"]}]}, "keep": ["metadata.name"]},
    {"name": "bound to the builder", "method": "POST",
     "path": f"/apis/rbac.authorization.k8s.io/v1/namespaces/{_REQ}/rolebindings",
     "body": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "builder"},
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "builder"},
              "subjects": [{"kind": "ServiceAccount", "name": "builder", "namespace": _REQ}]},
     "keep": ["metadata.name"]},
    {"name": "a secret the builder may read", "method": "POST", "path": f"/api/v1/namespaces/{_REQ}/secrets",
     "body": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "registry-key"}}, "keep": ["metadata.name"],
     "until": {"@refused": False}},
]

_ACT = "sweep-actions"
ACTIONS: list[Step] = [
    ns(_ACT, "actions"),
    policy("sweep-team-label", {
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                             "namespaceSelector": in_scenario("actions")},
        "validations": [{"expression": "has(object.metadata.labels) && 'team' in object.metadata.labels",
                         "message": "ConfigMaps need a team label: \"team\" – café"}],
        "auditAnnotations": [{"key": "tier", "valueExpression": "string(object.metadata.labels.tier)"}]}),
    *[binding(f"sweep-team-{tier}", "sweep-team-label", actions,
              matchResources={"objectSelector": {"matchLabels": {"tier": tier}}})
      for tier, actions in (("warn", ["Warn"]), ("audit", ["Audit"]), ("deny", ["Deny", "Audit"]),
                            ("both", ["Warn", "Audit"]))],
    binding("sweep-team-annotated", "sweep-team-label", ["Audit"], matchResources={"objectSelector": {
        "matchExpressions": [{"key": "annotated", "operator": "Exists"}]}}),
    configmap(_ACT, "warned", None, "Warn: admitted with a warning", labels={"tier": "warn"}, until=WARNED),
    configmap(_ACT, "audited", None, "Audit: admitted quietly", labels={"tier": "audit"}),
    configmap(_ACT, "denied", None, "Deny and Audit: refused", labels={"tier": "deny"}, until=REFUSED),
    configmap(_ACT, "both", None, "Warn and Audit", labels={"tier": "both"}),
    configmap(_ACT, "labelled", None, "a good one", labels={"tier": "warn", "team": "x"}),
    configmap(_ACT, "no-tier", None, "an audit annotation that fails to evaluate fails the request",
              labels={"team": "x", "annotated": "yes"}, until=REFUSED),
    binding("sweep-bad-actions", "sweep-team-label", ["Deny", "Warn"], step="Deny and Warn together are refused"),
    binding("sweep-dup-actions", "sweep-team-label", ["Audit", "Audit", "Log"], step="duplicate and unknown actions"),
    binding("sweep-no-actions", "sweep-team-label", [], step="no actions"),
    binding("sweep-ref-both", "sweep-team-label", ["Deny"], step="paramRef with name and selector",
            paramRef={"name": "a", "selector": {"matchLabels": {"a": "b"}}}),
    binding("sweep-ref-action", "sweep-team-label", ["Deny"], step="paramRef without parameterNotFoundAction",
            paramRef={"name": "a", "namespace": "Bad_NS"}),
    binding("sweep-no-policy", "", ["Deny"], step="binding without a policy name"),
]

# --- UPDATE and DELETE: oldObject, namespaceObject, protected objects, deletecollection ---
_UPD = "sweep-update"
_DEP = f"/apis/apps/v1/namespaces/{_UPD}/deployments"
UPDATES: list[Step] = [
    ns(_UPD, "update"),
    policy("sweep-immutable-team", {
        "matchConstraints": {"resourceRules": [rule("apps", "v1", ["deployments"], ["UPDATE"])],
                             "namespaceSelector": in_scenario("update")},
        "matchConditions": [{"name": "had-team", "expression":
                             "has(oldObject.metadata.labels) && 'team' in oldObject.metadata.labels"}],
        "validations": [{"expression": "object.metadata.?labels.team == oldObject.metadata.?labels.team",
                         "messageExpression": "'team is immutable: ' + oldObject.metadata.labels.team + ' -> ' + "
                                              "object.metadata.?labels.team.orValue('<removed>')"}]}),
    binding("sweep-immutable-team", "sweep-immutable-team", ["Deny"]),
    policy("sweep-freeze", {
        "matchConstraints": {"resourceRules": [rule("apps", "v1", ["deployments"], ["UPDATE"])],
                             "namespaceSelector": in_scenario("update")},
        "validations": [{"expression": "namespaceObject.metadata.?labels[?'freeze'].orValue('') != 'true' || "
                                       "object.spec.replicas >= oldObject.spec.replicas", "reason": "Forbidden",
                         "messageExpression": "'namespace ' + namespaceObject.metadata.name + ' is frozen: ' + "
                                              "string(oldObject.spec.replicas) + ' -> ' + string(object.spec.replicas)"}]}),
    binding("sweep-freeze", "sweep-freeze", ["Deny"]),
    policy("sweep-namespace-in-conditions", {
        "matchConstraints": {"resourceRules": [rule("apps", "v1", ["deployments"], ["UPDATE"])],
                             "namespaceSelector": in_scenario("update")},
        "matchConditions": [{"name": "no-namespace", "expression": "namespaceObject == null"}],
        "validations": [{"expression": "false", "message": "a match condition sees no namespaceObject"}]}),
    binding("sweep-namespace-in-conditions", "sweep-namespace-in-conditions", ["Warn"]),
    policy("sweep-protected", {
        "matchConstraints": {"resourceRules": [rule("apps", "v1", ["deployments"], ["DELETE"])],
                             "namespaceSelector": in_scenario("update")},
        "validations": [{"expression": "oldObject.metadata.?labels[?'protected'].orValue('') != 'true'",
                         "reason": "Forbidden",
                         "messageExpression": "'deployment ' + oldObject.metadata.name + ' is protected (object ' + "
                                              "(object == null ? 'null' : 'set') + ', dryRun ' + "
                                              "string(request.dryRun) + ')'"}]}),
    binding("sweep-protected", "sweep-protected", ["Deny"]),
    deployment(_UPD, "api", 3, "a deployment with a team", {"team": "payments", "protected": "true"}),
    deployment(_UPD, "worker", 3, "a deployment without one", {"role": "worker"}),
    patch(f"{_DEP}/api", {"metadata": {"labels": {"team": "search"}}}, "changing the team is refused",
          until=REFUSED),
    patch(f"{_DEP}/api", {"metadata": {"labels": {"team": None}}}, "removing the team is refused"),
    patch(f"{_DEP}/api", {"metadata": {"labels": {"tier": "gold"}}}, "another label may change",
          keep=("metadata.labels",)),
    patch(f"{_DEP}/worker", {"metadata": {"labels": {"team": "batch"}}}, "a team may be added",
          keep=("metadata.labels",)),
    patch(f"{_DEP}/worker", {"spec": {"replicas": 1}}, "scaling down before the freeze", keep=("spec.replicas",)),
    patch(f"/api/v1/namespaces/{_UPD}", {"metadata": {"labels": {"freeze": "true"}}}, "freeze the namespace",
          keep=("metadata.labels",)),
    patch(f"{_DEP}/api", {"spec": {"replicas": 1}}, "scaling down in a frozen namespace", keep=("spec.replicas",),
          until=REFUSED),
    patch(f"{_DEP}/api", {"spec": {"replicas": 4}}, "scaling up in a frozen namespace", keep=("spec.replicas",)),
    delete(f"{_DEP}/api", "a protected deployment is not deleted", until=REFUSED),
    delete(f"{_DEP}/api", "nor in a dry run", query={"dryRun": "All"}),
    {"name": "nor by deletecollection", "method": "DELETE", "path": _DEP, "query": {"labelSelector": "team"},
     "keep": ["kind"]},
    delete(f"{_DEP}/worker", "an unprotected one is"),
]

# --- MutatingAdmissionPolicy: JSON patches, apply configurations, errors, reinvocation, params, dry run ---
_MUT = "sweep-mutate"
MAP = "MutatingAdmissionPolicy"


def _mutating(name: str, mutations: list[dict[str, Any]], resources: list[str] | None = None,
              operations: list[str] | None = None, **spec: Any) -> Step:
    group = "apps" if resources and resources[0] == "deployments" else ""
    return policy(name, {
        "matchConstraints": {"resourceRules": [rule(group, "v1", resources or ["configmaps"],
                                                    operations or ["CREATE"])],
                             "namespaceSelector": in_scenario("mutating")},
        "failurePolicy": spec.pop("failurePolicy", "Fail"), "reinvocationPolicy": spec.pop("reinvocationPolicy", "Never"),
        "mutations": mutations, **spec}, kind=MAP)


def _json_patch(expression: str) -> dict[str, Any]:
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}


def _apply(expression: str) -> dict[str, Any]:
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}


def _selected(label: str) -> dict[str, Any]:
    return {"objectSelector": {"matchExpressions": [{"key": label, "operator": "Exists"}]}}


_CM_KEEP = ("metadata.labels", "metadata.annotations", "data")
MUTATING: list[Step] = [
    ns(_MUT, "mutating"),
    _mutating("sweep-jsonpatch", [_json_patch(
        "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.io/team~x'), value: 'platform'},"
        " JSONPatch{op: 'replace', path: '/metadata/labels/patch', value: 'done'},"
        " JSONPatch{op: 'test', path: '/data/mode', value: 'strict'},"
        " JSONPatch{op: 'add', path: '/data/checked', value: 'yes'}]")],
        matchConstraints={"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                          "namespaceSelector": in_scenario("mutating"), **_selected("patch")}),
    binding("sweep-jsonpatch", "sweep-jsonpatch", kind=MAP),
    configmap(_MUT, "patched", {"mode": "strict"}, "JSON patch ops", labels={"patch": "yes"}, keep=_CM_KEEP,
              until=REFUSED),  # the patched label is invalid
    configmap(_MUT, "patched-test-fails", {"mode": "lax"}, "a failed test op", labels={"patch": "yes"},
              keep=_CM_KEEP),
    configmap(_MUT, "patched-dry", {"mode": "strict"}, "a dry run is mutated too", labels={"patch": "yes"},
              keep=_CM_KEEP, query={"dryRun": "All"}),
    _mutating("sweep-patch-errors", [_json_patch(
        "object.metadata.labels.patcherr == 'remove' ? [JSONPatch{op: 'remove', path: '/data/absent'}] : "
        "object.metadata.labels.patcherr == 'parent' ? [JSONPatch{op: 'add', path: '/spec/x/y', value: 'z'}] : "
        "object.metadata.labels.patcherr == 'type' ? [JSONPatch{op: 'add', path: '/data/n', value: 3}] : "
        "object.metadata.labels.patcherr == 'op' ? [JSONPatch{op: 'frobnicate', path: '/data/a'}] : "
        "object.metadata.labels.patcherr == 'index' ? [JSONPatch{op: 'add', path: '/metadata/finalizers/5', "
        "value: 'x'}] : [JSONPatch{op: 'copy', from: '/data/nothing', path: '/data/b'}]")],
        matchConstraints={"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                          "namespaceSelector": in_scenario("mutating"), **_selected("patcherr")}),
    binding("sweep-patch-errors", "sweep-patch-errors", kind=MAP),
    *[configmap(_MUT, f"patcherr-{case}", {"a": "1"}, f"a patch error: {case}", labels={"patcherr": case},
                until=REFUSED if case == "remove" else None)
      for case in ("remove", "parent", "type", "op", "index", "copy")],
    _mutating("sweep-sidecar", [_apply(
        "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'proxy', "
        "image: 'registry.example/proxy:1.0'}]}}")],
        resources=["pods"], matchConditions=[{"name": "inject", "expression":
                                              "object.metadata.?annotations[?'sidecar.example.io/inject']"
                                              ".orValue('') == 'true'"}]),
    binding("sweep-sidecar", "sweep-sidecar", kind=MAP),
    {**pod(_MUT, "injected", [{"name": "app", "image": "registry.example/app:1"}], "a sidecar is merged by name"),
     "body": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "injected", "annotations": {
         "sidecar.example.io/inject": "true"}}, "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}]}},
     "keep": ["spec.containers"], "until": {"spec.containers.1.name": "proxy"}},
    {**pod(_MUT, "injected-again", [], "an existing sidecar is updated in place"),
     "body": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "injected-again", "annotations": {
         "sidecar.example.io/inject": "true"}}, "spec": {"containers": [
             {"name": "proxy", "image": "registry.example/proxy:0.9", "args": ["--old"]},
             {"name": "app", "image": "registry.example/app:1"}]}},
     "keep": ["spec.containers"]},
    pod(_MUT, "plain", [{"name": "app", "image": "registry.example/app:1"}], "no annotation, no sidecar"),
    _mutating("sweep-replicas-floor", [_apply(
        "Object{spec: Object.spec{replicas: object.spec.replicas < 2 ? 2 : object.spec.replicas}}"),
        _json_patch("[JSONPatch{op: 'add', path: '/metadata/annotations', value: "
                    "{'example.io/mutated-by': request.userInfo.username, "
                    "'example.io/operation': request.operation}}]")],
        resources=["deployments"], operations=["CREATE", "UPDATE"],
        matchConditions=[{"name": "selected", "expression": "object.metadata.name == 'tiny'"}]),
    binding("sweep-replicas-floor", "sweep-replicas-floor", kind=MAP),
    deployment(_MUT, "tiny", 1, "an apply configuration and a patch in order",
               keep=("spec.replicas", "metadata.annotations"), until={"spec.replicas": 2}),
    patch(f"/apis/apps/v1/namespaces/{_MUT}/deployments/tiny", {"spec": {"replicas": 0}}, "and on update",
          keep=("spec.replicas", "metadata.annotations")),
    _mutating("sweep-invalid-result", [_json_patch(
        "[JSONPatch{op: 'replace', path: '/spec/replicas', value: -1}]")], resources=["deployments"],
        matchConditions=[{"name": "selected", "expression": "object.metadata.name == 'negative'"}]),
    binding("sweep-invalid-result", "sweep-invalid-result", kind=MAP),
    deployment(_MUT, "negative", 3, "a mutation that makes the object invalid", until=REFUSED),
    _mutating("sweep-wrong-type", [_json_patch(
        "[JSONPatch{op: 'replace', path: '/spec/replicas', value: 'three'}]")], resources=["deployments"],
        matchConditions=[{"name": "selected", "expression": "object.metadata.name == 'stringly'"}]),
    binding("sweep-wrong-type", "sweep-wrong-type", kind=MAP),
    deployment(_MUT, "stringly", 3, "a mutation that writes a string into an int", until=REFUSED),
    _mutating("sweep-a-copy-tier", [_json_patch(
        "has(object.metadata.labels) && 'tier' in object.metadata.labels ? "
        "[JSONPatch{op: 'add', path: '/data/tier-seen', value: object.metadata.labels.tier}] : []")],
        reinvocationPolicy="IfNeeded", matchConstraints={
            "resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
            "namespaceSelector": in_scenario("mutating"), **_selected("reinvoke")}),
    binding("sweep-a-copy-tier", "sweep-a-copy-tier", kind=MAP),
    _mutating("sweep-b-set-tier", [_apply("Object{metadata: Object.metadata{labels: {'tier': 'backend'}}}")],
              matchConstraints={"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                                "namespaceSelector": in_scenario("mutating"), **_selected("reinvoke")}),
    binding("sweep-b-set-tier", "sweep-b-set-tier", kind=MAP),
    configmap(_MUT, "reinvoked", {"a": "1"}, "a policy reinvoked after a later one changed the object",
              labels={"reinvoke": "yes"}, keep=_CM_KEEP, until={"metadata.labels": {"reinvoke": "yes", "tier": "backend"}}),
    configmap(_MUT, "param-owner", {"owner": "team-a"}, "a param"),
    _mutating("sweep-param-owner", [_json_patch(
        "[JSONPatch{op: 'add', path: '/metadata/labels/owner', value: params.data.owner}]")],
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConstraints={"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                          "namespaceSelector": in_scenario("mutating"), **_selected("owned")}),
    binding("sweep-param-owner", "sweep-param-owner", kind=MAP,
            paramRef={"name": "param-owner", "parameterNotFoundAction": "Deny"}),
    binding("sweep-param-owner-missing", "sweep-param-owner", kind=MAP,
            paramRef={"name": "absent", "parameterNotFoundAction": "Deny"},
            matchResources={"objectSelector": {"matchLabels": {"owned": "missing"}}}),
    configmap(_MUT, "owned", {"a": "1"}, "a param's value patched in", labels={"owned": "yes"}, keep=_CM_KEEP,
              until={"metadata.labels": {"owned": "yes", "owner": "team-a"}}),
    configmap(_MUT, "owned-missing", {"a": "1"}, "a missing param with Deny", labels={"owned": "missing"},
              keep=_CM_KEEP),
    _mutating("sweep-condition-error", [_json_patch("[JSONPatch{op: 'add', path: '/data/x', value: 'y'}]")],
              matchConstraints={"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                                "namespaceSelector": in_scenario("mutating"), **_selected("mcond")},
              matchConditions=[{"name": "needs-team", "expression": "object.metadata.labels.team == 'a'"}]),
    binding("sweep-condition-error", "sweep-condition-error", kind=MAP),
    configmap(_MUT, "mcond", {"a": "1"}, "a match condition error", labels={"mcond": "yes"}, until=REFUSED),
]

# --- writes: policies and bindings refused when they are written ---
_RULES = {"resourceRules": [rule("apps", "v1", ["deployments"], ["CREATE"])]}
WRITES: list[Step] = [
    policy("sweep-w-variable-type", {"matchConstraints": _RULES,
                                     "variables": [{"name": "name", "expression": "object.metadata.name"},
                                                   {"name": "count", "expression": "size(object.spec)"}],
                                     "validations": [{"expression": "variables.name"},
                                                     {"expression": "variables.count + 'x' == 'y'"}]},
           step="a validation answering a string variable"),
    policy("sweep-w-names", {"matchConstraints": _RULES,
                             "matchConditions": [{"name": "bad name!", "expression": "true"},
                                                 {"name": "dup", "expression": "true"},
                                                 {"name": "dup", "expression": "1"}],
                             "variables": [{"name": "1abc", "expression": "1"}, {"name": "v", "expression": ""}],
                             "validations": [{"expression": "true", "messageExpression": "1"}],
                             "auditAnnotations": [{"key": "Bad Key", "valueExpression": "1"},
                                                  {"key": "ok", "valueExpression": "'x'"},
                                                  {"key": "ok", "valueExpression": "'y'"}]},
           step="bad names, duplicates and wrong types"),
    policy("sweep-w-authorizer-message", {"matchConstraints": _RULES, "validations": [
        {"expression": "authorizer.requestResource.check('get').allowed()",
         "messageExpression": "authorizer.requestResource.check('get').reason()"}]},
           step="a messageExpression cannot use the authorizer"),
    policy("sweep-w-spec", {"failurePolicy": "Maybe", "paramKind": {"apiVersion": "v1/x/y", "kind": ""},
                            "matchConstraints": {"matchPolicy": "Closest", "resourceRules": [
                                {"apiGroups": [], "apiVersions": ["v1"], "operations": ["FETCH"],
                                 "resources": ["pods/*/x"], "scope": "Everywhere"}]},
                            "validations": []}, step="a spec wrong everywhere"),
    policy("sweep-w-no-rules", {"validations": [{"expression": "true"}]}, step="no matchConstraints"),
    policy("sweep-w-unauthorized", {"matchConstraints": _RULES, "validations": [
        {"expression": "true", "reason": "Unauthorized"}, {"expression": "params.x == 1"},
        {"expression": "object.spec.replicas > 1", "messageExpression": "'x' + variables.missing"}]},
           step="reason Unauthorized, params without a paramKind, an undeclared variable"),
    policy("sweep-w-cost", {"matchConstraints": _RULES, "validations": [
        {"expression": "object.spec.template.spec.containers.all(a, object.spec.template.spec.containers.all(b, "
                       "object.spec.template.spec.containers.all(c, a.name.matches(b.name + c.name))))"}]},
           step="an expression over its estimated cost"),
    policy("sweep-w-mutations", {"matchConstraints": _RULES, "reinvocationPolicy": "Sometimes", "mutations": [
        {"patchType": "Strategic"}, {"patchType": "JSONPatch"},
        {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "{'spec': 1}"}},
        {"patchType": "JSONPatch", "jsonPatch": {"expression": "'not a list'"}}]}, kind=MAP,
           step="mutations wrong in every way"),
    policy("sweep-w-no-mutations", {"matchConstraints": _RULES, "mutations": []}, kind=MAP,
           step="a mutating policy without mutations"),
]


# Last: a policy whose param kind is not served keeps kube-apiserver's policy source failing its syncs,
# which it retries with a growing back-off, so policies written after it are enforced only much later.
UNSERVED_PARAM: list[Step] = [
    policy("sweep-widget-limits", {
        "paramKind": {"apiVersion": "widgets.example.io/v1", "kind": "WidgetLimit"},
        "matchConstraints": {"resourceRules": [rule("", "v1", ["configmaps"], ["CREATE"])],
                             "namespaceSelector": in_scenario("params")},
        "validations": [{"expression": "object.metadata.name != params.metadata.name"}]}),
    binding("sweep-widget-limits", "sweep-widget-limits", ["Deny"], paramRef={"name": "default",
                                                                              "parameterNotFoundAction": "Deny"}),
    configmap("sweep-params-empty", "widget", {"a": "1"}, "a param kind that is not served", until=REFUSED),
]


def probed(steps: list[Step]) -> list[Step]:
    """Each step that waits for a policy preceded by its dry run, which waits in its place: the real request
    is sent once, when the policy is enforced (a CONNECT, which has no dry run, waits itself)."""
    found = []
    for step in steps:
        if "until" in step and not step["path"].endswith("/exec"):
            found.append({**step, "name": f"(dry run) {step['name']}", "query": {**step.get("query", {}),
                                                                               "dryRun": "All"}})
            step = {k: v for k, v in step.items() if k != "until"}
        found.append(step)
    return found


# --- a MutatingAdmissionPolicy matched through an equivalent version mutates the object in that version ---
_EQ = "sweep-eqmutate"
_HPA_V1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                    "minReplicas": 1, "maxReplicas": 20, "targetCPUUtilizationPercentage": 70}}
EQUIVALENT_MUTATION: list[Step] = [
    ns(_EQ, "eqmutate"),
    policy("sweep-hpa-utilization", {
        "matchConstraints": {"resourceRules": [rule("autoscaling", "v2", ["horizontalpodautoscalers"], ["CREATE"])],
                             "namespaceSelector": in_scenario("eqmutate")},
        "failurePolicy": "Fail", "reinvocationPolicy": "Never",
        "mutations": [
            {"patchType": "JSONPatch", "jsonPatch": {"expression":
             "[JSONPatch{op: 'replace', path: '/spec/metrics/0/resource/target/averageUtilization', value: 50},"
             " JSONPatch{op: 'add', path: '/metadata/labels', value: {'seen-as': request.kind.version + '-' +"
             " object.apiVersion.replace('/', '-')}}]"}},
            {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
             "Object{spec: Object.spec{maxReplicas: object.spec.maxReplicas + size(object.spec.metrics)}}"}}]},
        kind=MAP),
    binding("sweep-hpa-utilization", "sweep-hpa-utilization", kind=MAP),
    {"name": "an autoscaling/v1 request is mutated as its v2 equivalent", "method": "POST",
     "path": f"/apis/autoscaling/v1/namespaces/{_EQ}/horizontalpodautoscalers",
     "body": {**_HPA_V1, "metadata": {"name": "web-v1"}},
     "keep": ["metadata.name", "metadata.labels", "spec"], "until": REFUSED},  # its v2 conversion fails
    {"name": "an autoscaling/v2 request is mutated as it is", "method": "POST",
     "path": f"/apis/autoscaling/v2/namespaces/{_EQ}/horizontalpodautoscalers",
     "body": {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web-v2"},
              "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                       "minReplicas": 1, "maxReplicas": 20, "metrics": [
                           {"type": "Resource", "resource": {"name": "cpu", "target": {
                               "type": "Utilization", "averageUtilization": 70}}}]}},
     "keep": ["metadata.name", "metadata.labels", "spec"]},
    {"name": "the v1 request's object read back as v1", "method": "GET",
     "path": f"/apis/autoscaling/v1/namespaces/{_EQ}/horizontalpodautoscalers/web-v1",
     "keep": ["metadata.labels", "spec"]},
]

SCENARIOS: dict[str, list[Step]] = {name: probed(steps) for name, steps in (
    ("matching", MATCHING), ("params", PARAMS), ("expressions", EXPRESSIONS), ("requests", REQUESTS),
    ("actions", ACTIONS), ("updates", UPDATES), ("mutating", MUTATING), ("writes", WRITES),
    ("unserved-param", UNSERVED_PARAM), ("equivalent-mutation", EQUIVALENT_MUTATION))}


def normalized(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Warnings sorted (upstream evaluates policies and bindings in its informers' map order), and a
    deleted object's uid left out of the Status that says so."""
    found = []
    for answer in answers:
        details = answer["body"].get("details")
        if isinstance(details, dict) and "uid" in details:
            answer = {**answer, "body": {**answer["body"], "details": {k: v for k, v in details.items() if k != "uid"}}}
        found.append({**answer, "warnings": sorted(answer["warnings"])})
    return found
