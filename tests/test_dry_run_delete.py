"""A server-side dry-run delete deletes nothing, whether the dry run comes in the DeleteOptions body
(kubectl --dry-run=server) or the query, for one object, a collection and a namespace.

Upstream's delete handlers read DeleteOptions from the body when there is one and from the query
otherwise (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go)."""

from __future__ import annotations

from support import ServerProcess, run_kubectl


def _namespace_with_configmaps(server: ServerProcess, namespace: str, *names: str) -> None:
    run_kubectl(server, "create", "namespace", namespace)
    for name in names:
        run_kubectl(server, "create", "configmap", name, "-n", namespace)


def _configmaps(server: ServerProcess, namespace: str) -> list[str]:
    status, listed = server.json("GET", f"/api/v1/namespaces/{namespace}/configmaps")
    assert status == 200, listed
    return sorted(item["metadata"]["name"] for item in listed["items"] if item["metadata"]["name"] != "kube-root-ca.crt")


def test_kubectl_dry_run_server_delete_keeps_the_object(shared_server: ServerProcess) -> None:
    _namespace_with_configmaps(shared_server, "dry-one", "kept")
    out = run_kubectl(shared_server, "delete", "configmap", "kept", "-n", "dry-one", "--dry-run=server")
    assert out.stdout.strip() == 'configmap "kept" deleted (server dry run)'
    assert _configmaps(shared_server, "dry-one") == ["kept"]


def test_kubectl_dry_run_server_delete_all_keeps_the_collection(shared_server: ServerProcess) -> None:
    _namespace_with_configmaps(shared_server, "dry-all", "one", "two")
    run_kubectl(shared_server, "delete", "configmaps", "--all", "-n", "dry-all", "--dry-run=server")
    assert _configmaps(shared_server, "dry-all") == ["one", "two"]


def test_kubectl_dry_run_server_delete_namespace_keeps_it_and_its_contents(shared_server: ServerProcess) -> None:
    _namespace_with_configmaps(shared_server, "dry-ns", "inside")
    run_kubectl(shared_server, "delete", "namespace", "dry-ns", "--dry-run=server")
    status, ns = shared_server.json("GET", "/api/v1/namespaces/dry-ns")
    assert status == 200 and ns["status"]["phase"] == "Active" and "deletionTimestamp" not in ns["metadata"]
    assert _configmaps(shared_server, "dry-ns") == ["inside"]


def test_dry_run_in_the_body_of_a_delete_collection_keeps_everything(shared_server: ServerProcess) -> None:
    _namespace_with_configmaps(shared_server, "dry-body", "a", "b")
    status, listed = shared_server.json("DELETE", "/api/v1/namespaces/dry-body/configmaps",
                                        {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]})
    assert status == 200 and {"a", "b"} <= {item["metadata"]["name"] for item in listed["items"]}
    assert _configmaps(shared_server, "dry-body") == ["a", "b"]


def test_dry_run_query_without_a_body_keeps_the_object(shared_server: ServerProcess) -> None:
    _namespace_with_configmaps(shared_server, "dry-query", "q")
    status, _ = shared_server.json("DELETE", "/api/v1/namespaces/dry-query/configmaps/q?dryRun=All")
    assert status == 200
    assert _configmaps(shared_server, "dry-query") == ["q"]


def test_an_unknown_dry_run_value_in_the_body_is_refused(shared_server: ServerProcess) -> None:
    _namespace_with_configmaps(shared_server, "dry-bad", "c")
    status, refused = shared_server.json("DELETE", "/api/v1/namespaces/dry-bad/configmaps/c",
                                         {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["Some"]})
    assert status == 422, refused
    assert refused["message"] == ('DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: '
                                  '["Some"]: supported values: "All"')
    assert _configmaps(shared_server, "dry-bad") == ["c"]


def test_a_body_stands_alone_even_beside_a_dry_run_query(shared_server: ServerProcess) -> None:
    """Upstream reads the query only when there is no body: kube-apiserver 1.36.2 deleted the object for
    the same request (curl -X DELETE -d '{"kind":"DeleteOptions","apiVersion":"v1"}' '...?dryRun=All')."""
    _namespace_with_configmaps(shared_server, "dry-both", "gone")
    status, _ = shared_server.json("DELETE", "/api/v1/namespaces/dry-both/configmaps/gone?dryRun=All",
                                   {"kind": "DeleteOptions", "apiVersion": "v1"})
    assert status == 200
    assert _configmaps(shared_server, "dry-both") == []
