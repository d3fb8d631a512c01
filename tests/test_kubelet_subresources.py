"""Pod log, exec, attach, portforward and proxy, nodes/proxy and services/proxy answer as kube-apiserver does
when no kubelet or pod can be reached: upstream's checks, then a refused connection."""

from __future__ import annotations

import http.client
import json

import pytest
from accounts import add_token
from support import ServerProcess, run_kubectl

NS = "default"


def status(code: int, message: str, reason: str = "") -> dict:
    body: dict = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message}
    if reason:
        body["reason"] = reason
    body["code"] = code
    return body


def create(server: ServerProcess, path: str, body: dict) -> None:
    code, answer = server.json("POST", path, body)
    assert code == 201, answer


def set_status(server: ServerProcess, path: str, status_patch: dict) -> None:
    code, raw = server.request("PATCH", path + "/status", json.dumps({"status": status_patch}).encode(),
                               content_type="application/merge-patch+json")
    assert code == 200, raw


def pod(name: str, node: str = "", containers: tuple[str, ...] = ("web",)) -> dict:
    spec: dict = {"containers": [{"name": c, "image": "nginx:1.27", "ports": [{"containerPort": 8080}]}
                                 for c in containers]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


@pytest.fixture(scope="module")
def cluster(shared_server: ServerProcess) -> ServerProcess:
    server = shared_server
    for name, addresses in (("addressed", [{"type": "InternalIP", "address": "10.0.0.7"}]), ("bare", [])):
        create(server, "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
        if addresses:
            set_status(server, f"/api/v1/nodes/{name}", {"addresses": addresses})
    create(server, f"/api/v1/namespaces/{NS}/pods", pod("unscheduled"))
    create(server, f"/api/v1/namespaces/{NS}/pods", pod("placed", "addressed", ("web", "sidecar")))
    create(server, f"/api/v1/namespaces/{NS}/pods", pod("stranded", "bare"))
    create(server, f"/api/v1/namespaces/{NS}/pods", pod("ghost-node", "missing"))
    set_status(server, f"/api/v1/namespaces/{NS}/pods/placed", {"phase": "Running", "podIP": "10.244.1.5",
                                                                "podIPs": [{"ip": "10.244.1.5"}]})
    return server


def get(server: ServerProcess, path: str, method: str = "GET", headers: dict | None = None) -> tuple[int, object]:
    # http.client, not urllib: urllib replaces a Connection header with its own "close".
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(), timeout=30)
    try:
        conn.request(method, path, headers={"Authorization": f"Bearer {server.token}", **(headers or {})})
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    return response.status, json.loads(raw) if raw else None


UPGRADE = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}


@pytest.mark.parametrize("path, method, headers, code, expected", [
    # A pod on no node has no log yet: an empty 204, which kubectl prints as nothing.
    ("pods/unscheduled/log", "GET", None, 204, None),
    ("pods/unscheduled/exec?command=ls", "POST", UPGRADE, 400,
     status(400, "pod unscheduled does not have a host assigned", "BadRequest")),
    ("pods/unscheduled/attach", "GET", UPGRADE, 400,
     status(400, "pod unscheduled does not have a host assigned", "BadRequest")),
    ("pods/unscheduled/portforward", "POST", UPGRADE, 400,
     status(400, "pod unscheduled does not have a host assigned", "BadRequest")),
    ("pods/placed/log", "GET", None, 400,
     status(400, "a container name must be specified for pod placed, choose one of: [web sidecar]", "BadRequest")),
    ("pods/placed/log?container=db", "GET", None, 400,
     status(400, "container db is not valid for pod placed", "BadRequest")),
    ("pods/placed/log?container=web&tailLines=5", "GET", None, 500,
     status(500, 'Get "https://10.0.0.7:10250/containerLogs/default/placed/web?tailLines=5": dial tcp '
                 "10.0.0.7:10250: connect: connection refused")),
    ("pods/placed/exec?command=ls&container=web", "POST", UPGRADE, 500,
     status(500, "error dialing backend: dial tcp 10.0.0.7:10250: connect: connection refused")),
    ("pods/placed/exec?command=ls&container=web", "POST", None, 400,
     status(400, "Upgrade request required", "BadRequest")),
    ("pods/stranded/log", "GET", None, 500, status(500, "no preferred addresses found; known addresses: []")),
    ("pods/ghost-node/log", "GET", None, 404,
     {**status(404, 'nodes "missing" not found', "NotFound"), "details": {"name": "missing", "kind": "nodes"}}),
    ("pods/nobody/log", "GET", None, 404,
     {**status(404, 'pods "nobody" not found', "NotFound"), "details": {"name": "nobody", "kind": "pods"}}),
    ("pods/placed/proxy/healthz", "GET", None, 503,
     status(503, "error trying to reach service: dial tcp 10.244.1.5:8080: connect: connection refused",
            "ServiceUnavailable")),
    ("pods/unscheduled:80/proxy/", "GET", None, 400, status(400, "address not allowed", "BadRequest")),
    ("pods/a:b:c:d/proxy", "GET", None, 400, status(400, 'invalid pod request "a:b:c:d"', "BadRequest")),
    # Log options are decoded (400), then validated (422), before the pod is even looked up.
    ("pods/nobody/log?tailLines=ten", "GET", None, 400,
     status(400, 'strconv.ParseInt: parsing "ten": invalid syntax', "BadRequest")),
    ("pods/nobody/log?tailLines=-1", "GET", None, 422, {
        **status(422, 'PodLogOptions "nobody" is invalid: tailLines: Invalid value: -1: must be greater than or '
                      "equal to 0", "Invalid"),
        "details": {"name": "nobody", "kind": "PodLogOptions", "causes": [{
            "reason": "FieldValueInvalid", "message": "Invalid value: -1: must be greater than or equal to 0",
            "field": "tailLines"}]}}),
    ("pods/unscheduled/log?limitBytes=0&sinceSeconds=0", "GET", None, 422, {
        **status(422, 'PodLogOptions "unscheduled" is invalid: [limitBytes: Invalid value: 0: must be greater than '
                      "0, sinceSeconds: Invalid value: 0: must be greater than 0]", "Invalid"),
        "details": {"name": "unscheduled", "kind": "PodLogOptions", "causes": [
            {"reason": "FieldValueInvalid", "message": "Invalid value: 0: must be greater than 0",
             "field": "limitBytes"},
            {"reason": "FieldValueInvalid", "message": "Invalid value: 0: must be greater than 0",
             "field": "sinceSeconds"}]}}),
])
def test_pod_subresources_answer_as_upstream(cluster: ServerProcess, path: str, method: str, headers: dict | None,
                                             code: int, expected: object) -> None:
    assert get(cluster, f"/api/v1/namespaces/{NS}/{path}", method, headers) == (code, expected)


def test_node_and_service_proxies_answer_as_upstream(cluster: ServerProcess) -> None:
    assert get(cluster, "/api/v1/nodes/addressed/proxy/metrics") == (503, status(
        503, "error trying to reach service: dial tcp 10.0.0.7:10250: connect: connection refused",
        "ServiceUnavailable"))
    assert get(cluster, "/api/v1/nodes/addressed:9100/proxy/metrics")[1]["message"] == (  # type: ignore[index]
        "error trying to reach service: dial tcp 10.0.0.7:9100: connect: connection refused")
    create(cluster, f"/api/v1/namespaces/{NS}/services", {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}})
    assert get(cluster, f"/api/v1/namespaces/{NS}/services/web/proxy/")[0] == 404  # no Endpoints object yet
    assert get(cluster, f"/api/v1/namespaces/{NS}/services/web:81/proxy/") == (503, status(
        503, 'no service port 81 found for service "web"', "ServiceUnavailable"))
    create(cluster, f"/api/v1/namespaces/{NS}/endpoints", {
        "apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"}, "subsets": []})
    assert get(cluster, f"/api/v1/namespaces/{NS}/services/web:80/proxy/") == (503, status(
        503, 'no endpoints available for service "web"', "ServiceUnavailable"))
    code, raw = cluster.request("PUT", f"/api/v1/namespaces/{NS}/endpoints/web", json.dumps({
        "apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"},
        "subsets": [{"addresses": [{"ip": "10.244.1.5", "targetRef": {"kind": "Pod", "namespace": NS,
                                                                       "name": "placed"}}],
                     "ports": [{"name": "http", "port": 8080}]}]}).encode())
    assert code == 200, raw
    assert get(cluster, f"/api/v1/namespaces/{NS}/services/https:web:80/proxy/api")[1]["message"] == (  # type: ignore[index]
        "error trying to reach service: dial tcp 10.244.1.5:8080: connect: connection refused")


def test_kubectl_logs_of_an_unscheduled_pod_prints_nothing(cluster: ServerProcess) -> None:
    printed = run_kubectl(cluster, "logs", "unscheduled")
    assert (printed.stdout, printed.stderr) == ("", "")


def test_kubectl_exec_reports_what_a_real_cluster_reports(cluster: ServerProcess) -> None:
    refused = run_kubectl(cluster, "exec", "unscheduled", "--", "ls", check=False)
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines()[-1] == (
        "Error from server (BadRequest): pod unscheduled does not have a host assigned")
    unreachable = run_kubectl(cluster, "exec", "placed", "-c", "web", "--", "ls", check=False)
    assert unreachable.returncode == 1
    assert unreachable.stderr.strip().splitlines()[-1] == (
        "Error from server: error dialing backend: dial tcp 10.0.0.7:10250: connect: connection refused")


def test_kubectl_logs_of_a_pod_whose_kubelet_is_unreachable(cluster: ServerProcess) -> None:
    failed = run_kubectl(cluster, "logs", "placed", "-c", "sidecar", check=False)
    assert failed.returncode == 1
    assert failed.stderr.strip() == ('Error from server: Get "https://10.0.0.7:10250/containerLogs/default/placed/'
                                     'sidecar": dial tcp 10.0.0.7:10250: connect: connection refused')


def test_discovery_lists_the_kubelet_subresources(cluster: ServerProcess) -> None:
    code, document = cluster.json("GET", "/api/v1")
    assert code == 200
    names = {r["name"]: r["verbs"] for r in document["resources"]}
    assert names["pods/log"] == ["get"]
    assert names["pods/exec"] == ["create", "get"]
    assert names["pods/proxy"] == ["create", "delete", "get", "patch", "update"]
    assert names["nodes/proxy"] == names["services/proxy"] == ["create", "delete", "get", "patch", "update"]


def test_the_view_role_may_read_logs_but_not_exec(cluster: ServerProcess) -> None:
    kubeconfig, _ = add_token(cluster, "viewer", "view")
    printed = run_kubectl(cluster, "--kubeconfig", kubeconfig, "logs", "unscheduled")
    assert (printed.returncode, printed.stdout) == (0, "")
    refused = run_kubectl(cluster, "--kubeconfig", kubeconfig, "exec", "unscheduled", "--", "ls", check=False)
    assert refused.returncode == 1
    assert ('User "viewer" cannot create resource "pods/exec" in API group "" in the namespace "default"'
            in refused.stderr), refused.stderr


@pytest.mark.parametrize("subresource", ["exec?command=ls", "attach", "portforward"])
def test_a_websocket_get_needs_create_as_the_spdy_post_does(cluster: ServerProcess, subresource: str) -> None:
    # Upstream's ensureAuthorizedForVerb: `get pods/exec` (a websocket's GET) alone runs nothing in a pod.
    # The answer is the reference's, to a user impersonated with only get on the pods and these.
    rbac = "/apis/rbac.authorization.k8s.io/v1"
    for path, obj in ((f"{rbac}/clusterroles", {"kind": "ClusterRole", "metadata": {"name": "streams-get"}, "rules": [
            {"apiGroups": [""], "resources": ["pods", "pods/exec", "pods/attach", "pods/portforward"],
             "verbs": ["get"]}]}),
            (f"{rbac}/clusterrolebindings", {"kind": "ClusterRoleBinding", "metadata": {"name": "streams-get"},
                                             "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                                         "kind": "ClusterRole", "name": "streams-get"},
                                             "subjects": [{"kind": "User", "name": "streamer",
                                                           "apiGroup": "rbac.authorization.k8s.io"}]})):
        code, answer = cluster.json("POST", path, {"apiVersion": "rbac.authorization.k8s.io/v1", **obj})
        assert code in (201, 409), answer
    refused = get(cluster, f"/api/v1/namespaces/{NS}/pods/placed/{subresource}", "GET",
                  {"Impersonate-User": "streamer"})
    assert refused == (403, {**status(403, 'pods "placed" is forbidden: ', "Forbidden"),
                             "details": {"name": "placed", "kind": "pods"}})
    # The administrator may create: the request goes on, to be told what else it lacks.
    assert get(cluster, f"/api/v1/namespaces/{NS}/pods/placed/{subresource}", "GET")[0] == 400
