"""The garbage collector follows custom resources too, from the time their CRD is established: an
orphaning delete of a custom object takes its reference off the dependents, then the `orphan` finalizer
off the object, so `kubectl delete --cascade=orphan` returns; a dependent whose owner is gone goes too."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "bars.gc.example.com"},
       "spec": {"group": "gc.example.com", "scope": "Namespaced",
                "names": {"plural": "bars", "singular": "bar", "kind": "Bar"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
BARS = "/apis/gc.example.com/v1/namespaces/default/bars"


@pytest.fixture(scope="module")
def collecting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("gc")),
                       extra_args=["--controllers=garbage-collector-controller"]) as server:
        run_kubectl(server, "create", "-f", "-", stdin=json.dumps(CRD))
        run_kubectl(server, "wait", "--for=condition=Established", "crd/bars.gc.example.com")
        yield server


def _bar(server: ServerProcess, name: str, owner: dict | None = None) -> dict:
    meta: dict = {"name": name}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
                                    "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"]}]
    status, created = server.json("POST", BARS, {"apiVersion": "gc.example.com/v1", "kind": "Bar", "metadata": meta})
    assert status == 201, created
    return created  # type: ignore[no-any-return]


def test_kubectl_delete_cascade_orphan_of_a_custom_object_returns(collecting: ServerProcess) -> None:
    owner = _bar(collecting, "test")
    _bar(collecting, "custom-dependent", owner)
    status, created = collecting.json("POST", "/api/v1/namespaces/default/configmaps", {
        "metadata": {"name": "builtin-dependent", "ownerReferences": [{
            "apiVersion": "gc.example.com/v1", "kind": "Bar", "name": "test", "uid": owner["metadata"]["uid"]}]}})
    assert status == 201, created
    run_kubectl(collecting, "delete", "bars", "test", "--cascade=orphan", timeout=60)
    assert collecting.json("GET", f"{BARS}/test")[0] == 404
    for path in (f"{BARS}/custom-dependent", "/api/v1/namespaces/default/configmaps/builtin-dependent"):
        status, kept = collecting.json("GET", path)
        assert status == 200 and "ownerReferences" not in kept["metadata"]


def test_a_custom_dependent_of_a_deleted_owner_is_collected(collecting: ServerProcess) -> None:
    owner = _bar(collecting, "parent")
    _bar(collecting, "child", owner)
    run_kubectl(collecting, "delete", "bars", "parent")
    wait_for("the child collected", lambda: collecting.json("GET", f"{BARS}/child")[0] == 404, 30)
