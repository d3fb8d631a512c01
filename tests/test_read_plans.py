"""A repeated read answered from what the first one was found to be (apiserver.http.readplans) is still
checked as a first read is: for its user's permission, against the types served now, and for its
own Accept header and query."""

from __future__ import annotations

import json
import os
import time

import pytest
from keepalive import Connection
from support import ServerProcess, run_kubectl

from apiserver.http.readplans import ReadPlan, ReadPlans
from apiserver.kinds.resources import builtin_registry

_TOKEN = "erin-token-0123456789"
_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: backups.stash.example.dev}
spec:
  group: stash.example.dev
  scope: Namespaced
  names: {plural: backups, singular: backup, kind: Backup, listKind: BackupList}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"""
_TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def _until(check: Connection, path: str, status: int, headers: dict[str, str] | None = None) -> None:
    """Bindings and CRDs take effect once the server has seen them: at most a few seconds."""
    for _ in range(100):
        if check.request("GET", path, headers=headers)[0] == status:
            return
        time.sleep(0.1)
    raise AssertionError(f"{path} never answered {status}")


@pytest.fixture
def erin(server: ServerProcess) -> Connection:
    with open(os.path.join(server.data_dir, "pki", "tokens.csv"), "a") as f:
        f.write(f'{_TOKEN},erin,erin-uid,""\n')
    run_kubectl(server, "create", "namespace", "shop")
    run_kubectl(server, "create", "configmap", "storefront-settings", "-n", "shop", "--from-literal=theme=dark")
    return Connection(server, _TOKEN)


def test_a_repeated_read_is_refused_once_its_user_loses_the_binding(server: ServerProcess, erin: Connection) -> None:
    path = "/api/v1/namespaces/shop/configmaps?labelSelector=app%3Dstorefront"
    single = "/api/v1/namespaces/shop/configmaps/storefront-settings"
    assert erin.request("GET", path)[0] == 403
    run_kubectl(server, "create", "rolebinding", "erin-view", "--clusterrole=view", "--user=erin", "-n", "shop")
    _until(erin, path, 200)
    for _ in range(3):  # the same reads again: answered from their plans
        assert erin.request("GET", path)[0] == 200
        assert erin.request("GET", single)[0] == 200
    run_kubectl(server, "delete", "rolebinding", "erin-view", "-n", "shop")
    _until(erin, path, 403)
    status, _, body = erin.request("GET", single)
    assert status == 403
    assert json.loads(body)["message"] == ('configmaps "storefront-settings" is forbidden: User "erin" cannot get '
                                           'resource "configmaps" in API group "" in the namespace "shop"')
    # The administrator's identical read, planned by erin's requests, is still let in.
    assert Connection(server).request("GET", single)[0] == 200


def test_a_repeated_read_of_a_withdrawn_type_is_not_found(server: ServerProcess) -> None:
    admin = Connection(server)
    run_kubectl(server, "apply", "-f", "-", stdin=_CRD)
    path = "/apis/stash.example.dev/v1alpha1/namespaces/default/backups"
    _until(admin, path, 200)
    for _ in range(3):
        assert admin.request("GET", path)[0] == 200
    run_kubectl(server, "delete", "crd", "backups.stash.example.dev")
    _until(admin, path, 404)
    assert admin.request("GET", path)[0] == 404


def test_identical_paths_with_another_accept_or_query_are_answered_in_their_own_shape(
        server: ServerProcess) -> None:
    admin = Connection(server)
    run_kubectl(server, "create", "configmap", "checkout-flags", "--from-literal=beta=on")
    path = "/api/v1/namespaces/default/configmaps"
    for _ in range(2):
        plain = json.loads(admin.request("GET", path)[2])
        table = json.loads(admin.request("GET", path, headers={"Accept": _TABLE})[2])
        none = json.loads(admin.request("GET", path + "?includeObject=None", headers={"Accept": _TABLE})[2])
        assert plain["kind"] == "ConfigMapList"
        assert table["kind"] == "Table"
        assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
        assert none["kind"] == "Table" and none["rows"][0]["object"] is None
    # A bad Accept is refused every time, planned or not.
    for _ in range(2):
        assert admin.request("GET", path, headers={"Accept": "application/vnd.kubernetes.protobuf"})[0] == 406


def test_plans_are_forgotten_when_the_served_types_change_and_past_their_bound() -> None:
    registry = builtin_registry()
    plans = ReadPlans(registry)
    rt = registry.lookup("", "v1", "configmaps")
    assert rt is not None
    plan = ReadPlan("list", None, None, None, None, None)  # type: ignore[arg-type]  # only its identity matters here
    plans.remember("/api/v1/configmaps", b"", "", plan)
    assert plans.find("/api/v1/configmaps", b"", "") is plan
    assert plans.find("/api/v1/configmaps", b"limit=1", "") is None
    registry.remove(rt)
    assert plans.find("/api/v1/configmaps", b"", "") is None
    registry.add(rt)
    for i in range(5000):
        plans.remember(f"/api/v1/namespaces/n{i}/configmaps", b"", "", plan)
    assert plans.find("/api/v1/namespaces/n0/configmaps", b"", "") is None
    assert plans.find("/api/v1/namespaces/n4999/configmaps", b"", "") is plan
