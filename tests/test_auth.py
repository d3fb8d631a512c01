"""Who gets in and what they may do: the token file, `token add`, the admin and view roles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import kubernetes
import pytest
from accounts import add_token
from keepalive import Connection
from support import REPO, ServerProcess, run_kubectl

CM_PATH = "/api/v1/namespaces/default/configmaps"


def kubectl_as(server: ServerProcess, kubeconfig: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_kubectl(server, "--kubeconfig", kubeconfig, *args, check=False)


@pytest.fixture(scope="module")
def viewer(shared_server: ServerProcess) -> Iterator[tuple[str, Connection]]:
    """A view token added to the running server, without a restart."""
    kubeconfig, token = add_token(shared_server, "viewer", "view")
    conn = Connection(shared_server, token)
    yield kubeconfig, conn
    conn.close()


def test_first_start_writes_the_admin_token_into_the_token_file(shared_server: ServerProcess) -> None:
    with open(os.path.join(shared_server.data_dir, "pki", "tokens.csv")) as f:
        first = f.readline()
    assert first == f"{shared_server.token},admin,admin,system:masters\n"
    assert os.stat(os.path.join(shared_server.data_dir, "pki", "tokens.csv")).st_mode & 0o777 == 0o600


def test_a_data_dir_from_before_the_token_file_keeps_its_kubeconfig(server: ServerProcess) -> None:
    server.stop()
    os.remove(os.path.join(server.data_dir, "pki", "tokens.csv"))
    server.start()
    assert run_kubectl(server, "get", "namespaces", "-o", "name").stdout.count("namespace/") == 4


def test_viewer_reads_through_kubectl(shared_server: ServerProcess,
                                      viewer: tuple[str, Connection]) -> None:
    kubeconfig, _ = viewer
    result = kubectl_as(shared_server, kubeconfig, "get", "configmaps", "-n", "default")
    assert result.returncode == 0, result.stderr
    assert kubectl_as(shared_server, kubeconfig, "get", "namespaces", "default").returncode == 0


def test_viewer_write_is_refused_like_rbac(shared_server: ServerProcess,
                                           viewer: tuple[str, Connection]) -> None:
    kubeconfig, _ = viewer
    result = kubectl_as(shared_server, kubeconfig, "create", "configmap", "nope", "-n", "default")
    assert result.returncode != 0
    assert result.stderr.strip() == (
        'error: failed to create configmap: configmaps is forbidden: User "viewer" cannot create resource '
        '"configmaps" in API group "" in the namespace "default"')


@pytest.mark.parametrize("method, path, body, message", [
    ("GET", "/api/v1/namespaces/default/secrets/token", None,
     'secrets "token" is forbidden: User "viewer" cannot get resource "secrets" in API group "" '
     'in the namespace "default"'),
    ("GET", "/api/v1/secrets", None,
     'secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" '
     'at the cluster scope'),
    ("GET", "/api/v1/namespaces/default/secrets?watch=1", None,
     'secrets is forbidden: User "viewer" cannot watch resource "secrets" in API group "" '
     'in the namespace "default"'),
    ("DELETE", "/api/v1/namespaces/default", None,
     'namespaces "default" is forbidden: User "viewer" cannot delete resource "namespaces" in API group "" '
     'in the namespace "default"'),
    ("POST", "/api/v1/nodes", {"metadata": {"name": "n"}},
     'nodes is forbidden: User "viewer" cannot create resource "nodes" in API group "" at the cluster scope'),
    ("PUT", "/apis/apps/v1/namespaces/default/deployments/web/scale", {"spec": {"replicas": 2}},
     'deployments.apps "web" is forbidden: User "viewer" cannot update resource "deployments/scale" '
     'in API group "apps" in the namespace "default"'),
    ("GET", "/api/v1/nodes", None,
     'nodes is forbidden: User "viewer" cannot list resource "nodes" in API group "" at the cluster scope'),
    ("GET", "/api/v1/persistentvolumes/pv-1", None,
     'persistentvolumes "pv-1" is forbidden: User "viewer" cannot get resource "persistentvolumes" in API group "" '
     'at the cluster scope'),
    ("GET", "/apis/storage.k8s.io/v1/storageclasses", None,
     'storageclasses.storage.k8s.io is forbidden: User "viewer" cannot list resource "storageclasses" in API group '
     '"storage.k8s.io" at the cluster scope'),
    ("PATCH", CM_PATH + "/x", {"data": {}},
     'configmaps "x" is forbidden: User "viewer" cannot patch resource "configmaps" in API group "" '
     'in the namespace "default"'),
    ("DELETE", CM_PATH, None,
     'configmaps is forbidden: User "viewer" cannot deletecollection resource "configmaps" in API group "" '
     'in the namespace "default"'),
])
def test_viewer_gets_upstreams_forbidden_status(shared_server: ServerProcess, viewer: tuple[str, Connection],
                                                method: str, path: str, body: object, message: str) -> None:
    _, conn = viewer
    before = shared_server.json("GET", CM_PATH)[1]["metadata"]["resourceVersion"]
    headers = {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else None
    status, answer = conn.json(method, path, body, headers=headers)
    assert status == 403
    assert answer["kind"] == "Status" and answer["reason"] == "Forbidden" and answer["code"] == 403
    assert answer["message"] == message
    assert shared_server.json("GET", CM_PATH)[1]["metadata"]["resourceVersion"] == before


def test_metrics_are_for_admins(shared_server: ServerProcess, viewer: tuple[str, Connection]) -> None:
    _, conn = viewer
    status, answer = conn.json("GET", "/metrics")
    assert status == 403
    assert answer["message"] == 'forbidden: User "viewer" cannot get path "/metrics"'
    assert shared_server.request("GET", "/metrics")[0] == 200


def test_forbidden_details_name_the_resource(shared_server: ServerProcess,
                                             viewer: tuple[str, Connection]) -> None:
    _, conn = viewer
    status, answer = conn.json("PUT", "/apis/apps/v1/namespaces/default/deployments/web", {})
    assert status == 403
    assert answer["details"] == {"name": "web", "group": "apps", "kind": "deployments"}


def test_viewer_reads_and_discovers(shared_server: ServerProcess,
                                    viewer: tuple[str, Connection]) -> None:
    _, conn = viewer
    for path in ("/api", "/apis", "/api/v1", "/version", "/apis/apps/v1/deployments", CM_PATH,
                 "/api/v1/namespaces/default/serviceaccounts", "/api/v1/namespaces",
                 "/apis/apps/v1/namespaces/default/deployments?watch=1&timeoutSeconds=1"):
        assert conn.request("GET", path)[0] == 200, path


def test_python_client_with_a_view_token(shared_server: ServerProcess,
                                         viewer: tuple[str, Connection]) -> None:
    kubeconfig, _ = viewer
    client = kubernetes.config.new_client_from_config(config_file=kubeconfig)
    core = kubernetes.client.CoreV1Api(client)
    assert core.read_namespace("default").metadata.name == "default"
    with pytest.raises(kubernetes.client.ApiException) as refused:
        core.create_namespaced_config_map("default", kubernetes.client.V1ConfigMap(
            metadata=kubernetes.client.V1ObjectMeta(name="from-viewer")))
    assert refused.value.status == 403
    assert json.loads(refused.value.body or "{}")["reason"] == "Forbidden"


def test_an_added_admin_token_writes(shared_server: ServerProcess) -> None:
    kubeconfig, _ = add_token(shared_server, "operator", "admin")
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: by-operator\n  namespace: default\n"
    result = run_kubectl(shared_server, "--kubeconfig", kubeconfig, "create", "--validate=false", "-f", "-",
                         stdin=manifest, check=False)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("header", ["Bearer", "Bearer ", "Basic YWRtaW46YWRtaW4=", "bearer nope", "Token x"])
def test_bad_authorization_headers_are_401(shared_server: ServerProcess, header: str) -> None:
    status, body = shared_server.request("GET", CM_PATH, auth=False, headers={"Authorization": header})
    assert status == 401
    assert json.loads(body)["reason"] == "Unauthorized"


def test_token_removed_from_the_file_is_refused_without_restart(server: ServerProcess) -> None:
    _, token = add_token(server, "temporary", "admin")
    conn = Connection(server, token)
    assert conn.request("GET", CM_PATH)[0] == 200
    path = os.path.join(server.data_dir, "pki", "tokens.csv")
    with open(path) as f:
        kept = [line for line in f if not line.startswith(token + ",")]
    with open(path + ".new", "w") as f:
        f.writelines(kept)
    os.replace(path + ".new", path)
    # The file is looked at again within a second of a change (not on every request).
    refused = False
    for _ in range(50):
        if conn.request("GET", CM_PATH)[0] == 401:
            refused = True
            break
        time.sleep(0.1)
    assert refused
    assert server.request("GET", CM_PATH)[0] == 200


def test_a_broken_token_file_keeps_the_last_good_tokens(server: ServerProcess) -> None:
    path = os.path.join(server.data_dir, "pki", "tokens.csv")
    with open(path, "a") as f:
        f.write("only-one-column\n")
    # Looked at again within a second; meanwhile and after, the admin token goes on working.
    for _ in range(50):
        assert server.request("GET", CM_PATH)[0] == 200
        if "token file not reloaded" in server.log():
            break
        time.sleep(0.1)
    assert "token file not reloaded" in server.log()
    result = subprocess.run([sys.executable, "-m", "apiserver", "token", "add", "x", "--role", "view",
                             "--data-dir", server.data_dir],
                            cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert result.stderr.startswith("not adding to a token file that does not parse: ")
    assert "tokens.csv:2: a record needs at least 3 columns" in result.stderr


def test_a_broken_token_file_stops_the_start(tmp_path: object) -> None:
    server = ServerProcess(str(tmp_path))
    server.start()
    server.stop()
    with open(os.path.join(server.data_dir, "pki", "tokens.csv"), "a") as f:
        f.write('tok,"unclosed\n')
    result = subprocess.run([sys.executable, "-m", "apiserver", "--data-dir", server.data_dir, "--port",
                             str(server.port)], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "tokens.csv" in result.stderr


def test_token_add_before_any_start_says_what_to_do(tmp_path: object) -> None:
    result = subprocess.run([sys.executable, "-m", "apiserver", "token", "add", "x", "--role", "view",
                             "--data-dir", str(tmp_path)],
                            cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "start it once" in result.stderr


def test_plain_http_without_credentials_is_admin_but_a_view_token_is_still_view(tmp_path: object) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--http"])
    server.start()
    try:
        assert server.json("POST", CM_PATH, {"metadata": {"name": "anon"}}, auth=False)[0] == 201
        _, token = add_token(server, "viewer", "view")
        assert server.request("DELETE", CM_PATH + "/anon", auth=False,
                              headers={"Authorization": f"Bearer {token}"})[0] == 403
    finally:
        server.stop()
