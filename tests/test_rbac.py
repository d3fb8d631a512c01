"""RBAC as kube-apiserver 1.36 applies it: the bootstrap policy, bindings to users, groups and
ServiceAccounts, aggregation, the exact 403 texts, and escalation prevention."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from keepalive import Connection
from support import REPO, ServerProcess, run_kubectl

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "golden",
                      "kube-1.36.2", "surface")
RBAC = "/apis/rbac.authorization.k8s.io/v1"
_TOKENS = {"bob": "bob-token-0123456789", "carol": "carol-token-0123456789",
           "bot": "bot-token-0123456789", "dana": "dana-token-0123456789"}
_USERS = {"bob": ("bob", ""), "carol": ("carol", "qa"), "dana": ("dana", ""),
          "bot": ("system:serviceaccount:team:bot", "system:serviceaccounts,system:serviceaccounts:team")}


def _golden_bootstrap(plural: str) -> dict[str, dict[str, object]]:
    with open(os.path.join(GOLDEN, "table", f"{plural}.rbac.authorization.k8s.io.list.includeObject-Object.json")) as f:
        rows = json.load(f)["rows"]
    return {r["object"]["metadata"]["name"]: r["object"] for r in rows
            if (r["object"]["metadata"].get("labels") or {}).get("kubernetes.io/bootstrapping") == "rbac-defaults"}


def _apply(server: ServerProcess, manifest: str) -> None:
    run_kubectl(server, "apply", "-f", "-", stdin=manifest)


def _wait_for(check: Connection, path: str, status: int) -> None:
    """The token file is re-read on change; the first request after writing it may still see the old file."""
    for _ in range(50):
        if check.request("GET", path)[0] == status:
            return
        time.sleep(0.1)
    raise AssertionError(f"{path} never answered {status}")


@pytest.fixture(scope="module")
def users(shared_server: ServerProcess) -> Iterator[dict[str, Connection]]:
    with open(os.path.join(shared_server.data_dir, "pki", "tokens.csv"), "a") as f:
        for key, token in _TOKENS.items():
            name, groups = _USERS[key]
            f.write(f'{token},{name},{key}-uid,"{groups}"\n')
    run_kubectl(shared_server, "create", "namespace", "team")
    run_kubectl(shared_server, "create", "namespace", "other")
    _apply(shared_server, """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-reader, namespace: team}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [settings]
  verbs: [update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-reads-cms, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: bob}
- {kind: ServiceAccount, name: bot}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: qa-edit, namespace: other}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects:
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: qa}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: dana-ghost}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: does-not-exist}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: dana}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-admin, namespace: other}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: bob}
""")
    conns = {key: Connection(shared_server, token) for key, token in _TOKENS.items()}
    _wait_for(conns["bob"], "/api/v1/namespaces/team/configmaps", 200)
    yield conns
    for conn in conns.values():
        conn.close()


@pytest.mark.parametrize("plural", ["clusterroles", "clusterrolebindings"])
def test_bootstrap_policy_equals_kube_apiserver_1_36(shared_server: ServerProcess, plural: str) -> None:
    golden = _golden_bootstrap(plural)
    ours = {o["metadata"]["name"]: o for o in json.loads(
        run_kubectl(shared_server, "get", plural, "-l", "kubernetes.io/bootstrapping=rbac-defaults",
                    "-o", "json").stdout)["items"]}
    # Exactly upstream's: the token file's view group is bound by the authorizer, not by a stored object.
    assert set(ours) == set(golden)
    for name, expected in golden.items():
        for field in ("rules", "aggregationRule", "subjects", "roleRef"):
            assert ours[name].get(field) == expected.get(field), (name, field)
        assert ours[name]["metadata"]["labels"] == expected["metadata"]["labels"], name
        assert ours[name]["metadata"]["annotations"] == expected["metadata"]["annotations"], name


def test_bootstrap_namespace_roles_are_those_of_kube_apiserver(shared_server: ServerProcess) -> None:
    for plural in ("roles", "rolebindings"):
        with open(os.path.join(GOLDEN, "kubectl", f"get-{plural}.rbac.authorization.k8s.io.A.txt")) as f:
            golden = {tuple(line.split()[:2]) for line in f.read().splitlines()[2:-1]
                      if line.split()[0] in ("kube-system", "kube-public")}
        ours = run_kubectl(shared_server, "get", plural, "-A", "--no-headers",
                           "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name").stdout
        assert {tuple(line.split()) for line in ours.splitlines()} == golden


# (user, method, path, allowed) over verbs x resources x namespaces x bindings.
_MATRIX = [
    ("bob", "GET", "/api/v1/namespaces/team/configmaps", True),
    ("bob", "GET", "/api/v1/namespaces/team/configmaps/settings", True),
    ("bob", "GET", "/api/v1/namespaces/team/configmaps?watch=1", False),
    ("bob", "GET", "/api/v1/namespaces/team/secrets", False),
    ("bob", "GET", "/api/v1/namespaces/default/configmaps", False),
    ("bob", "GET", "/api/v1/configmaps", False),
    ("bob", "DELETE", "/api/v1/namespaces/team/configmaps/settings", False),
    ("bob", "GET", "/api/v1/namespaces/other/secrets", True),
    ("bob", "GET", "/apis/apps/v1/namespaces/other/deployments", True),
    ("bob", "GET", "/api/v1/nodes", False),
    ("bot", "GET", "/api/v1/namespaces/team/configmaps", True),
    ("bot", "GET", "/api/v1/namespaces/other/configmaps", False),
    ("carol", "GET", "/api/v1/namespaces/other/configmaps", True),
    ("carol", "GET", "/apis/apps/v1/namespaces/other/deployments/x/scale", True),
    ("carol", "GET", "/api/v1/namespaces/other/pods/p/log", True),
    ("carol", "GET", "/api/v1/namespaces/team/configmaps", False),
    ("carol", "GET", f"{RBAC}/namespaces/other/roles", False),
    ("dana", "GET", "/api/v1/namespaces/team/configmaps", False),
]


@pytest.mark.parametrize("user, method, path, allowed", _MATRIX)
def test_what_each_binding_allows(users: dict[str, Connection], user: str, method: str, path: str,
                                  allowed: bool) -> None:
    status, _, body = users[user].request(method, path + ("&" if "?" in path else "?") + "timeoutSeconds=1")
    assert (status != 403) == allowed, (status, body)


def test_update_is_allowed_by_resource_name_only(shared_server: ServerProcess, users: dict[str, Connection]) -> None:
    for name in ("settings", "other"):
        run_kubectl(shared_server, "create", "configmap", name, "-n", "team")
    body = json.dumps({"metadata": {"name": "settings"}, "data": {"a": "1"}}).encode()
    assert users["bob"].request("PUT", "/api/v1/namespaces/team/configmaps/settings", body)[0] == 200
    status, _, answer = users["bob"].request("PUT", "/api/v1/namespaces/team/configmaps/other",
                                             body.replace(b"settings", b"other"))
    assert status == 403
    assert json.loads(answer)["message"] == (
        'configmaps "other" is forbidden: User "bob" cannot update resource "configmaps" in API group "" '
        'in the namespace "team"')


@pytest.mark.parametrize("user, path, message", [
    ("bob", "/api/v1/namespaces/team/secrets/s",
     'secrets "s" is forbidden: User "bob" cannot get resource "secrets" in API group "" in the namespace "team"'),
    ("bot", "/apis/apps/v1/deployments",
     'deployments.apps is forbidden: User "system:serviceaccount:team:bot" cannot list resource "deployments" '
     'in API group "apps" at the cluster scope'),
    ("dana", "/api/v1/namespaces/team/configmaps",
     'configmaps is forbidden: User "dana" cannot list resource "configmaps" in API group "" in the namespace '
     '"team": RBAC: clusterrole.rbac.authorization.k8s.io "does-not-exist" not found'),
    ("bob", "/metrics", 'forbidden: User "bob" cannot get path "/metrics"'),
    ("dana", "/metrics", 'forbidden: User "dana" cannot get path "/metrics": RBAC: '
                         'clusterrole.rbac.authorization.k8s.io "does-not-exist" not found'),
])
def test_denials_carry_kube_apiservers_text(users: dict[str, Connection], user: str, path: str,
                                            message: str) -> None:
    status, _, body = users[user].request("GET", path)
    assert status == 403
    answer = json.loads(body)
    assert (answer["reason"], answer["code"], answer["message"]) == ("Forbidden", 403, message)


@pytest.mark.parametrize("path", ["/api", "/apis", "/api/v1", "/apis/apps/v1", "/version", "/openapi/v2"])
def test_discovery_and_version_are_open_to_everyone_authenticated(users: dict[str, Connection], path: str) -> None:
    assert users["dana"].request("GET", path)[0] == 200


def test_aggregated_view_follows_a_new_aggregate_to_view_role(shared_server: ServerProcess,
                                                              users: dict[str, Connection]) -> None:
    run_kubectl(shared_server, "create", "rolebinding", "carol-view", "--clusterrole=view", "--group=qa",
                "-n", "team")
    leases = "/apis/coordination.k8s.io/v1/namespaces/team/leases"
    assert users["carol"].request("GET", leases)[0] == 403
    _apply(shared_server, """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: lease-viewing
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, list, watch]
""")
    assert users["carol"].request("GET", leases)[0] == 200
    run_kubectl(shared_server, "delete", "clusterrole", "lease-viewing")
    assert users["carol"].request("GET", leases)[0] == 403


def test_granting_what_one_does_not_hold_is_refused(shared_server: ServerProcess,
                                                    users: dict[str, Connection]) -> None:
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "grab"},
            "rules": [{"apiGroups": [""], "resources": ["nodes", "secrets"], "verbs": ["get", "list"]},
                      {"apiGroups": [""], "resources": ["pods"], "verbs": ["*"]}]}
    status, _, body = users["bob"].request("POST", f"{RBAC}/namespaces/other/roles", json.dumps(role).encode())
    assert status == 403, body
    assert json.loads(body)["message"] == (
        'roles.rbac.authorization.k8s.io "grab" is forbidden: user "bob" (groups=["system:authenticated"]) is '
        'attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}\n'
        '{APIGroups:[""], Resources:["pods"], Verbs:["*"]}')
    assert users["bob"].request("GET", f"{RBAC}/namespaces/other/roles/grab")[0] == 404
    held = {**role, "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}]}
    assert users["bob"].request("POST", f"{RBAC}/namespaces/other/roles", json.dumps(held).encode())[0] == 201


def test_binding_a_role_one_does_not_hold_needs_bind(shared_server: ServerProcess,
                                                     users: dict[str, Connection]) -> None:
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "up"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
               "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "carol"}]}
    path = f"{RBAC}/namespaces/other/rolebindings"
    status, _, body = users["bob"].request("POST", path, json.dumps(binding).encode())
    assert status == 403
    assert json.loads(body)["message"] == (
        'rolebindings.rbac.authorization.k8s.io "up" is forbidden: user "bob" (groups=["system:authenticated"]) is '
        'attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}')
    _apply(shared_server, """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: may-bind-cluster-admin}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles]
  resourceNames: [cluster-admin]
  verbs: [bind]
""")
    run_kubectl(shared_server, "create", "rolebinding", "bob-binds", "--clusterrole=may-bind-cluster-admin",
                "--user=bob", "-n", "other")
    assert users["bob"].request("POST", path, json.dumps(binding).encode())[0] == 201


def test_kubectl_as_a_bound_user(shared_server: ServerProcess, users: dict[str, Connection]) -> None:
    as_bob = ("--token", _TOKENS["bob"])
    assert run_kubectl(shared_server, *as_bob, "get", "configmaps", "-n", "team", "-o", "name").returncode == 0
    denied = run_kubectl(shared_server, *as_bob, "create", "configmap", "x", "-n", "team", check=False)
    assert denied.stderr.strip() == (
        'error: failed to create configmap: configmaps is forbidden: User "bob" cannot create resource '
        '"configmaps" in API group "" in the namespace "team"')


# -- the review APIs answer what requests meet ------------------------------------------------------

_CAN_I = [
    # (user, verb, resource, namespace, path of the request kubectl would send)
    ("bob", "list", "configmaps", "team", "/api/v1/namespaces/team/configmaps"),
    ("bob", "list", "secrets", "team", "/api/v1/namespaces/team/secrets"),
    ("bob", "list", "secrets", "other", "/api/v1/namespaces/other/secrets"),
    ("bob", "list", "configmaps", "default", "/api/v1/namespaces/default/configmaps"),
    ("bot", "list", "configmaps", "team", "/api/v1/namespaces/team/configmaps"),
    ("bot", "list", "configmaps", "other", "/api/v1/namespaces/other/configmaps"),
    ("carol", "list", "deployments.apps", "other", "/apis/apps/v1/namespaces/other/deployments"),
    ("carol", "list", "nodes", "", "/api/v1/nodes"),
    ("dana", "list", "configmaps", "team", "/api/v1/namespaces/team/configmaps"),
]


@pytest.mark.parametrize("user, verb, resource, namespace, path", _CAN_I)
def test_kubectl_auth_can_i_agrees_with_the_request(shared_server: ServerProcess, users: dict[str, Connection],
                                                    user: str, verb: str, resource: str, namespace: str,
                                                    path: str) -> None:
    where = ("-n", namespace) if namespace else ()
    answer = run_kubectl(shared_server, "--token", _TOKENS[user], "auth", "can-i", verb, resource, *where,
                         check=False)
    # kubectl prints the reason after a denial: "no - RBAC: ..." for a binding to a missing role.
    verdict = answer.stdout.split()[0] if answer.stdout.split() else answer.stderr
    assert verdict in ("yes", "no"), answer.stderr
    status = users[user].request("GET", path)[0]
    assert (verdict == "yes") == (status == 200), (answer.stdout, status)


def _post(conn: Connection, path: str, body: dict[str, object]) -> tuple[int, dict[str, object]]:
    status, _, raw = conn.request("POST", path, json.dumps(body).encode())
    return status, json.loads(raw)


def test_self_subject_access_review_names_the_binding_that_allowed(users: dict[str, Connection]) -> None:
    status, answer = _post(users["bot"], "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
        "kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
        "spec": {"resourceAttributes": {"namespace": "team", "verb": "get", "resource": "configmaps"}}})
    assert status == 201
    # The create handler's field manager credits the asker (keepalive's User-Agent) with the spec.
    managed = answer["metadata"].pop("managedFields")  # type: ignore[attr-defined]
    assert [(m["operation"], m["fieldsV1"]) for m in managed] == [("Update", {"f:spec": {"f:resourceAttributes": {
        ".": {}, "f:namespace": {}, "f:resource": {}, "f:verb": {}}}})]
    assert answer == {
        "kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {},
        "spec": {"resourceAttributes": {"namespace": "team", "verb": "get", "resource": "configmaps"}},
        "status": {"allowed": True, "reason": 'RBAC: allowed by RoleBinding "bob-reads-cms/team" of Role '
                                              '"cm-reader" to ServiceAccount "bot/team"'}}


def test_subject_access_review_asks_about_someone_else(shared_server: ServerProcess,
                                                       users: dict[str, Connection]) -> None:
    admin = Connection(shared_server)
    try:
        asks = {"resourceAttributes": {"namespace": "other", "verb": "create", "resource": "configmaps"}}
        status, answer = _post(admin, "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                               {"spec": {**asks, "user": "someone", "groups": ["qa"]}})
        assert (status, answer["status"]) == (201, {
            "allowed": True, "reason": 'RBAC: allowed by RoleBinding "qa-edit/other" of ClusterRole "edit" '
                                       'to Group "qa"'})
        status, answer = _post(admin, "/apis/authorization.k8s.io/v1/namespaces/other/localsubjectaccessreviews",
                               {"spec": {**asks, "user": "someone"}})
        assert (status, answer["status"]) == (201, {"allowed": False})
        status, answer = _post(admin, "/apis/authorization.k8s.io/v1/subjectaccessreviews", {"spec": asks})
        assert status == 422
        # The REST storage names the internal object's kind, which is empty (kube-apiserver 1.36.2).
        assert answer["message"] == ('.authorization.k8s.io "" is invalid: spec.user: '
                                     'Invalid value: "": at least one of user or group must be specified')
    finally:
        admin.close()
    # Asking about others is itself a permission.
    status, answer = _post(users["bob"], "/apis/authorization.k8s.io/v1/subjectaccessreviews", {"spec": asks})
    assert status == 403


def test_whoami_and_token_review(shared_server: ServerProcess, users: dict[str, Connection]) -> None:
    whoami = run_kubectl(shared_server, "--token", _TOKENS["bot"], "auth", "whoami", "-o", "json")
    info = json.loads(whoami.stdout)["status"]["userInfo"]
    assert info == {"username": "system:serviceaccount:team:bot", "uid": "bot-uid",
                    "groups": ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"]}
    admin = Connection(shared_server)
    try:
        path = "/apis/authentication.k8s.io/v1/tokenreviews"
        status, answer = _post(admin, path, {"spec": {"token": _TOKENS["bob"]}})
        assert (status, answer["status"]) == (201, {
            "authenticated": True, "user": {"username": "bob", "uid": "bob-uid", "groups": ["system:authenticated"]},
            "audiences": ["https://kubernetes.default.svc.cluster.local"]})
        status, answer = _post(admin, path, {"spec": {"token": "not-a-token"}})
        assert (status, answer["status"]) == (201, {"user": {}, "error": "invalid bearer token"})
    finally:
        admin.close()


def test_rules_review_lists_what_is_bound(shared_server: ServerProcess, users: dict[str, Connection]) -> None:
    listed = run_kubectl(shared_server, "--token", _TOKENS["bob"], "auth", "can-i", "--list", "-n", "team").stdout
    rows = [" ".join(line.split()) for line in listed.splitlines()]
    assert rows[0] == "Resources Non-Resource URLs Resource Names Verbs"
    assert "configmaps [] [] [get list]" in rows
    assert "configmaps [] [settings] [update]" in rows
    assert any(r.startswith("[/version]") and r.endswith("[get]") for r in rows)
    assert not any(r.startswith("secrets ") for r in rows)


# -- every kind of identity, through kubectl: can-i and the request agree -----------------------------

_ACTIONS = [
    # (can-i arguments, the kubectl command that does it; dry runs and missing names write nothing)
    (("get", "configmaps", "-n", "team"), ("get", "configmaps", "-n", "team")),
    (("list", "secrets", "-n", "team"), ("get", "secrets", "-n", "team")),
    (("list", "secrets", "-n", "other"), ("get", "secrets", "-n", "other")),
    (("create", "configmaps", "-n", "team"), ("create", "configmap", "probe", "-n", "team", "--dry-run=server")),
    (("create", "configmaps", "-n", "other"), ("create", "configmap", "probe", "-n", "other", "--dry-run=server")),
    (("delete", "configmaps", "-n", "other"), ("delete", "configmap", "no-such-thing", "-n", "other")),
    (("list", "deployments.apps", "-n", "other"), ("get", "deployments.apps", "-n", "other")),
    (("list", "nodes"), ("get", "nodes")),
    (("list", "configmaps", "-n", "default"), ("get", "configmaps", "-n", "default")),
]


@pytest.fixture(scope="module")
def identities(shared_server: ServerProcess, users: dict[str, Connection]) -> dict[str, tuple[str, ...]]:
    """kubectl arguments that make it act as: a token-file user, a ServiceAccount token, a client
    certificate, and the admin impersonating someone."""
    run_kubectl(shared_server, "create", "serviceaccount", "bot", "-n", "team")
    sa_token = run_kubectl(shared_server, "create", "token", "bot", "-n", "team").stdout.strip()
    cert = subprocess.run([sys.executable, "-m", "apiserver", "token", "add", "bob", "--role", "view",
                           "--client-cert", "--data-dir", shared_server.data_dir],
                          cwd=REPO, capture_output=True, text=True, timeout=30, check=True).stdout
    cert_kubeconfig = os.path.join(shared_server.data_dir, "bob-cert.kubeconfig")
    with open(cert_kubeconfig, "w") as f:
        f.write(cert)
    return {"token": ("--token", _TOKENS["bob"]), "serviceaccount-token": ("--token", sa_token),
            "client-certificate": ("--kubeconfig", cert_kubeconfig), "impersonated": ("--as", "carol", "--as-group", "qa")}


@pytest.mark.parametrize("identity", ["token", "serviceaccount-token", "client-certificate", "impersonated"])
@pytest.mark.parametrize("can_i, action", _ACTIONS)
def test_can_i_agrees_with_kubectl_for_every_identity(shared_server: ServerProcess,
                                                      identities: dict[str, tuple[str, ...]], identity: str,
                                                      can_i: tuple[str, ...], action: tuple[str, ...]) -> None:
    who = identities[identity]
    answer = run_kubectl(shared_server, *who, "auth", "can-i", *can_i, check=False).stdout.split()
    done = run_kubectl(shared_server, *who, *action, check=False)
    forbidden = "(Forbidden)" in done.stderr or " is forbidden: " in done.stderr
    assert answer and answer[0] in ("yes", "no"), done.stderr
    assert (answer[0] == "yes") == (not forbidden), (answer, done.stdout, done.stderr)


# -- RBAC objects are checked as upstream checks them ------------------------------------------------

@pytest.mark.parametrize("path, body, message", [
    (f"{RBAC}/namespaces/team/roles",
     {"metadata": {"name": "bad"}, "rules": [{"apiGroups": [""], "resources": ["pods"]},
                                            {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]},
     'Role.rbac.authorization.k8s.io "bad" is invalid: [rules[0].verbs: Required value: verbs must contain at '
     'least one value, rules[1].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply '
     'to non-resource URLs]'),
    (f"{RBAC}/clusterroles",
     {"metadata": {"name": "bad"}, "rules": [{"verbs": ["get"], "resources": ["pods", "secrets"],
                                             "resourceNames": ["x"]}]},
     # kube-apiserver 1.36.2 has no rule on resource names naming several resources.
     'ClusterRole.rbac.authorization.k8s.io "bad" is invalid: rules[0].apiGroups: Required value: resource rules '
     'must supply at least one api group'),
    (f"{RBAC}/clusterrolebindings",
     {"metadata": {"name": "bad"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "x"},
      "subjects": [{"kind": "ServiceAccount", "name": "robot"}, {"kind": "Robot", "name": "r"}]},
     'ClusterRoleBinding.rbac.authorization.k8s.io "bad" is invalid: [roleRef.kind: Unsupported value: "Role": '
     'supported values: "ClusterRole", subjects[0].namespace: Required value, subjects[1].kind: Unsupported value: '
     '"Robot": supported values: "ServiceAccount", "User", "Group"]'),
])
def test_bad_rbac_objects_are_refused(users: dict[str, Connection], shared_server: ServerProcess, path: str,
                                      body: dict[str, object], message: str) -> None:
    admin = Connection(shared_server)
    try:
        status, answer = _post(admin, path, body)
    finally:
        admin.close()
    assert (status, answer["reason"], answer["message"]) == (422, "Invalid", message)


def test_a_binding_keeps_its_role_and_defaults_subject_groups(shared_server: ServerProcess,
                                                              users: dict[str, Connection]) -> None:
    admin = Connection(shared_server)
    try:
        path = f"{RBAC}/namespaces/team/rolebindings"
        status, created = _post(admin, path, {
            "metadata": {"name": "fixed"}, "subjects": [{"kind": "User", "name": "erin"}],
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}})
        assert status == 201
        assert created["subjects"] == [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "erin"}]
        patch = json.dumps({"roleRef": {"name": "edit"}}).encode()
        status, _, raw = admin.request("PATCH", f"{path}/fixed", patch,
                                       {"Content-Type": "application/merge-patch+json"})
    finally:
        admin.close()
    assert (status, json.loads(raw)["message"]) == (422, (
        # kube-apiserver 1.36.2 renders the struct as JSON (checked on the reference).
        'RoleBinding.rbac.authorization.k8s.io "fixed" is invalid: roleRef: Invalid value: {'
        '"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: cannot change roleRef'))


def test_a_watch_narrowed_to_one_name_is_authorized_by_that_name(shared_server: ServerProcess,
                                                                 users: dict[str, Connection]) -> None:
    _apply(shared_server, """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: watch-settings, namespace: team}
rules:
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [settings]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: frank-watches-settings, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: watch-settings}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: frank}
""")
    admin = Connection(shared_server)
    as_frank = {"Impersonate-User": "frank"}
    base = "/api/v1/namespaces/team/configmaps?watch=1&timeoutSeconds=1"
    try:
        assert admin.request("GET", base + "&fieldSelector=metadata.name%3Dsettings", headers=as_frank)[0] == 200
        status, _, body = admin.request("GET", base + "&fieldSelector=metadata.name%3Dother", headers=as_frank)
        assert (status, json.loads(body)["message"]) == (403, (
            'configmaps "other" is forbidden: User "frank" cannot watch resource "configmaps" in API group "" in '
            'the namespace "team"'))
        assert admin.request("GET", base, headers=as_frank)[0] == 403
    finally:
        admin.close()
