"""RBAC's matching and escalation rules as pure functions, table-driven: a rule and a request in,
upstream's answer out."""

from __future__ import annotations

import pytest

from apiserver.auth import rbac
from apiserver.auth.rbac import Rule
from apiserver.auth.tokens import User
from apiserver.http import audit

PODS = Rule(("get", "list"), ("",), ("pods",))


@pytest.mark.parametrize("rule, request_, allowed", [
    (PODS, ("get", "", "pods", None, "p"), True),
    (PODS, ("watch", "", "pods", None, ""), False),
    (PODS, ("get", "apps", "pods", None, "p"), False),
    (PODS, ("get", "", "pods", "log", "p"), False),  # a subresource is named on its own
    (Rule(("get",), ("",), ("pods/log",)), ("get", "", "pods", "log", "p"), True),
    (Rule(("get",), ("",), ("*/scale",)), ("get", "apps", "deployments", "scale", "d"), False),  # group differs
    (Rule(("get",), ("apps",), ("*/scale",)), ("get", "apps", "deployments", "scale", "d"), True),
    (Rule(("get",), ("apps",), ("*/scale",)), ("get", "apps", "deployments", None, "d"), False),
    (Rule(("*",), ("*",), ("*",)), ("escalate", "rbac.authorization.k8s.io", "roles", None, ""), True),
    (Rule(("get",), ("",), ("configmaps",), ("a",)), ("get", "", "configmaps", None, "a"), True),
    (Rule(("get",), ("",), ("configmaps",), ("a",)), ("get", "", "configmaps", None, "b"), False),
    (Rule(("list",), ("",), ("configmaps",), ("a",)), ("list", "", "configmaps", None, ""), False),
    (Rule(("*",), ("",), ("pods",)), ("*", "", "pods", None, ""), True),
    (Rule(("get",), ("",), ("pods",)), ("*", "", "pods", None, ""), False),  # "*" asked is only "*" held
])
def test_resource_rules(rule: Rule, request_: tuple[str, str, str, str | None, str], allowed: bool) -> None:
    assert rule.allows(*request_) is allowed


@pytest.mark.parametrize("urls, path, allowed", [
    (("/healthz",), "/healthz", True),
    (("/healthz",), "/healthz/ping", False),
    (("/apis/*",), "/apis/apps/v1", True),
    (("/apis/*",), "/apis", False),
    (("*",), "/anything", True),
])
def test_non_resource_rules(urls: tuple[str, ...], path: str, allowed: bool) -> None:
    assert Rule(("get",), urls=urls).allows_path("get", path) is allowed
    assert Rule(("post",), urls=urls).allows_path("get", path) is False


ROBOT = "system:serviceaccount:team:robot"


@pytest.mark.parametrize("subject, user, groups, applies", [
    ({"kind": "User", "name": "alice"}, "alice", (), True),
    ({"kind": "User", "name": "Alice"}, "alice", (), False),
    ({"kind": "Group", "name": "qa"}, "alice", ("qa",), True),
    ({"kind": "Group", "name": "qa"}, "qa", (), False),
    ({"kind": "ServiceAccount", "name": "robot"}, ROBOT, (), True),  # a RoleBinding's own namespace
    ({"kind": "ServiceAccount", "name": "robot", "namespace": "team"}, ROBOT, (), True),
    ({"kind": "ServiceAccount", "name": "robot", "namespace": "elsewhere"}, ROBOT, (), False),
    ({"kind": "User", "name": ROBOT}, ROBOT, (), True),
])
def test_which_subjects_apply(subject: dict[str, str], user: str, groups: tuple[str, ...], applies: bool) -> None:
    assert (rbac.applying_subject([subject], user, groups, "team") is not None) is applies


def test_aggregation_follows_chains_and_ignores_itself() -> None:
    def role(name: str, labels: dict[str, str], rules: list[dict[str, object]] | None = None,
             selects: str | None = None) -> dict[str, object]:
        obj: dict[str, object] = {"metadata": {"name": name, "labels": labels}, "rules": rules}
        if selects:
            obj["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {selects: "true"}}]}
        return obj
    roles = {
        "view": role("view", {"to-edit": "true"}, selects="to-view"),
        "edit": role("edit", {"to-edit": "true"}, selects="to-edit"),
        "reads": role("reads", {"to-view": "true"}, [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]),
        "writes": role("writes", {"to-edit": "true"}, [{"verbs": ["create"], "apiGroups": [""],
                                                        "resources": ["pods"]}]),
    }
    rules = rbac.aggregated_rules(roles)
    assert rules["view"] == [Rule(("get",), ("",), ("pods",))]
    assert rules["edit"] == [Rule(("get",), ("",), ("pods",)), Rule(("create",), ("",), ("pods",))]


def _aggregating(name: str, *selectors: dict[str, object], labels: dict[str, str] | None = None
                 ) -> dict[str, object]:
    return {"metadata": {"name": name, "labels": labels or {}},
            "aggregationRule": {"clusterRoleSelectors": list(selectors)}}


def _plain(name: str, verb: str, labels: dict[str, str]) -> dict[str, object]:
    return {"metadata": {"name": name, "labels": labels},
            "rules": [{"verbs": [verb], "apiGroups": [""], "resources": ["pods"]}]}


def test_aggregation_takes_rules_selector_by_selector() -> None:
    # The controller lists each selector's roles in name order in turn, not every role once.
    roles = {"agg": _aggregating("agg", {"matchLabels": {"second": "true"}}, {"matchLabels": {"first": "true"}}),
             "a": _plain("a", "get", {"first": "true"}), "b": _plain("b", "list", {"second": "true"})}
    assert rbac.aggregated_rules(roles)["agg"] == [Rule(("list",), ("",), ("pods",)), Rule(("get",), ("",), ("pods",))]


def test_roles_that_aggregate_each_other_settle_on_everything_they_reach() -> None:
    # Forty roles selecting every role (an empty selector) walked path by path never finished, and the
    # server answered nothing while its policy was compiled; synced to the fixed point, each holds every
    # plain role's rules, in name order.
    roles = {f"agg-{i:02}": _aggregating(f"agg-{i:02}", {}) for i in range(40)}
    roles.update({"z-get": _plain("z-get", "get", {}), "a-list": _plain("a-list", "list", {})})
    rules = rbac.aggregated_rules(roles)
    for i in range(40):
        assert rules[f"agg-{i:02}"] == [Rule(("list",), ("",), ("pods",)), Rule(("get",), ("",), ("pods",))]
    assert rules["z-get"] == [Rule(("get",), ("",), ("pods",))]


def test_a_loop_of_two_aggregated_roles_shares_what_either_selects() -> None:
    roles = {"x": _aggregating("x", {"matchLabels": {"to-x": "true"}}, labels={"to-y": "true"}),
             "y": _aggregating("y", {"matchLabels": {"to-y": "true"}}, labels={"to-x": "true"}),
             "reads": _plain("reads", "get", {"to-x": "true"})}
    rules = rbac.aggregated_rules(roles)
    assert rules["x"] == rules["y"] == [Rule(("get",), ("",), ("pods",))]


@pytest.mark.parametrize("held, wanted, missing", [
    ([PODS], [Rule(("get",), ("",), ("pods",))], []),
    ([PODS], [Rule(("get", "delete"), ("",), ("pods", "secrets"))],
     ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}']),
    ([Rule(("get",), ("",), ("*/log",))], [Rule(("get",), ("",), ("pods/log",))], []),
    ([Rule(("get",), ("",), ("configmaps",), ("a",))], [Rule(("get",), ("",), ("configmaps",))],
     ['{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}']),
    ([Rule(("get",), ("",), ("configmaps",))], [Rule(("get",), ("",), ("configmaps",), ("a", "b"))], []),
    ([Rule(("get",), urls=("/logs/*",))], [Rule(("get",), urls=("/logs/kube", "/metrics"))],
     ['{NonResourceURLs:["/metrics"], Verbs:["get"]}']),
])
def test_escalation_lists_what_is_not_held(held: list[Rule], wanted: list[Rule], missing: list[str]) -> None:
    assert rbac.missing_rules(held, wanted) == missing


# -- the audit policy ----------------------------------------------------------------------------

_POLICY = """
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  users: ["system:kube-proxy"]
- level: None
  nonResourceURLs: ["/healthz*"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["pods/log", "configmaps"]
    resourceNames: ["settings"]
- level: Request
  namespaces: ["team"]
  verbs: ["create"]
- level: Metadata
  userGroups: ["qa"]
"""


@pytest.mark.parametrize("user, method, path, level", [
    (User("system:kube-proxy", "", ()), "GET", "/api/v1/pods", "None"),
    (User("a", "", ()), "GET", "/healthz/etcd", "None"),
    (User("a", "", ()), "GET", "/api/v1/namespaces/x/configmaps/settings", "RequestResponse"),
    (User("a", "", ()), "GET", "/api/v1/namespaces/x/configmaps/other", "None"),
    (User("a", "", ()), "POST", "/api/v1/namespaces/team/secrets", "Request"),
    (User("a", "", ("qa",)), "DELETE", "/api/v1/namespaces/team/secrets/s", "Metadata"),
    (User("a", "", ("qa",)), "GET", "/version", "Metadata"),
])
def test_audit_policy_levels(user: User, method: str, path: str, level: str) -> None:
    rules, _ = audit.parse_policy(_POLICY)
    request = audit.describe(method, path, watch=False)
    found = next((rule.level for rule in rules if audit.rule_matches(rule, user, request)), "None")
    assert found == level
