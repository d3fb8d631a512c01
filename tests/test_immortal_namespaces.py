"""NamespaceLifecycle: default, kube-system and kube-public may not be deleted, one by one or through
`kubectl delete namespace --all` (which deletes the others and reports the refusals)."""

from __future__ import annotations

import pytest
from support import ServerProcess, run_kubectl


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_an_immortal_namespace_may_not_be_deleted(shared_server: ServerProcess, name: str) -> None:
    out = run_kubectl(shared_server, "delete", "namespace", name, check=False)
    assert out.returncode == 1
    assert out.stderr.strip() == (f'Error from server (Forbidden): namespaces "{name}" is forbidden: '
                                  f"this namespace may not be deleted")
    status, ns = shared_server.json("GET", f"/api/v1/namespaces/{name}")
    assert status == 200 and ns["status"]["phase"] == "Active"


def test_the_status_names_the_namespace(shared_server: ServerProcess) -> None:
    status, refused = shared_server.json("DELETE", "/api/v1/namespaces/kube-system?dryRun=All")
    assert status == 403
    assert refused["reason"] == "Forbidden"
    assert refused["details"] == {"name": "kube-system", "kind": "namespaces"}


def test_delete_namespace_all_keeps_the_immortal_ones(shared_server: ServerProcess) -> None:
    run_kubectl(shared_server, "create", "namespace", "mortal")
    out = run_kubectl(shared_server, "delete", "namespace", "--all", check=False)
    assert out.returncode == 1
    assert 'namespace "mortal" deleted' in out.stdout
    for name in ("default", "kube-system", "kube-public"):
        assert f'namespaces "{name}" is forbidden: this namespace may not be deleted' in out.stderr
        assert shared_server.json("GET", f"/api/v1/namespaces/{name}")[0] == 200
    assert shared_server.json("GET", "/api/v1/namespaces/mortal")[0] == 404
