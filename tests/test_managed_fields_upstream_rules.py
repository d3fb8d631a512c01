"""managedFields rules of upstream's field manager that the differential replay reaches only in part, each
confirmed against kube-apiserver 1.36.2 (the expected entries are what it answered):

- skipNonAppliedManager: an update of an object without managedFields is not tracked; the first apply
  over it records what the object held as an Update by "before-first-apply".
- structured-merge-diff's comparison: an empty list a client sends is owned as sent (it becomes null only
  in storage); a list going to null loses its items, and its owner with them.
- ScaleHandler.ToParent: an update through /scale is recorded without a time; one on an object whose
  replicas nobody owns is not tracked.
"""

from __future__ import annotations

import itertools
from typing import Any

from support import ServerProcess

NS = "/api/v1/namespaces/default"
APPS = "/apis/apps/v1/namespaces/default"
RBAC = "/apis/rbac.authorization.k8s.io/v1/namespaces/default"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
_names = itertools.count()


def _name(prefix: str) -> str:
    return f"{prefix}-{next(_names)}"


def _entries(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries without their times, which are not compared."""
    return [{k: v for k, v in e.items() if k != "time"} for e in obj["metadata"].get("managedFields") or ()]


def _deployment(name: str, **spec: Any) -> dict[str, Any]:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": labels}, **spec,
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "img:1"}]}}}}


def test_an_update_of_an_object_without_managed_fields_is_not_tracked(shared_server: ServerProcess) -> None:
    name = _name("untracked")
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    status, created = shared_server.json("PATCH", f"{NS}/configmaps/{name}?fieldManager=ann", config,
                                         content_type=APPLY)
    assert status == 201 and "managedFields" not in created["metadata"], created
    status, patched = shared_server.json("PATCH", f"{NS}/configmaps/{name}?fieldManager=ann",
                                         {"metadata": {"labels": {"a": "1"}}}, content_type=MERGE)
    assert status == 200 and patched["metadata"]["labels"] == {"a": "1"}
    assert "managedFields" not in patched["metadata"], patched


def test_the_first_apply_records_what_the_object_held_as_before_first_apply(shared_server: ServerProcess) -> None:
    name = _name("first-apply")
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    assert shared_server.json("PATCH", f"{NS}/configmaps/{name}?fieldManager=ann", config,
                              content_type=APPLY)[0] == 201
    assert shared_server.json("PATCH", f"{NS}/configmaps/{name}?fieldManager=ann", {"data": {"k": "v"}},
                              content_type=MERGE)[0] == 200
    status, applied = shared_server.json("PATCH", f"{NS}/configmaps/{name}?fieldManager=ben",
                                         {**config, "data": {"j": "w"}}, content_type=APPLY)
    assert status == 200, applied
    assert _entries(applied) == [
        {"manager": "ben", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:j": {}}}},
        {"manager": "before-first-apply", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {".": {}, "f:k": {}}}},
    ]


def test_an_empty_list_sent_is_owned_and_stored_null(shared_server: ServerProcess) -> None:
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": _name("empty")},
            "rules": []}
    status, created = shared_server.json("POST", f"{RBAC}/roles?fieldManager=maker", role)
    assert status == 201, created
    assert created["rules"] is None
    assert _entries(created) == [{"manager": "maker", "operation": "Update", "apiVersion": "rbac.authorization.k8s.io/v1",
                                  "fieldsType": "FieldsV1", "fieldsV1": {"f:rules": {}}}]


def test_a_list_set_to_null_takes_its_items_from_their_owner(shared_server: ServerProcess) -> None:
    name = _name("csinode")
    node = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
            "spec": {"drivers": [{"name": "csi.example.com", "nodeID": "n1"}]}}
    path = "/apis/storage.k8s.io/v1/csinodes"
    status, created = shared_server.json("POST", f"{path}?fieldManager=maker", node)
    assert status == 201, created
    status, updated = shared_server.json("PUT", f"{path}/{name}?fieldManager=maker",
                                         {**node, "metadata": created["metadata"], "spec": {}})
    assert status == 200 and updated["spec"] == {"drivers": None}, updated
    assert "managedFields" not in updated["metadata"], updated


def test_an_update_through_scale_is_recorded_without_a_time(shared_server: ServerProcess) -> None:
    name = _name("scaled")
    assert shared_server.json("POST", f"{APPS}/deployments?fieldManager=maker", _deployment(name, replicas=1))[0] == 201
    status, _ = shared_server.json("PATCH", f"{APPS}/deployments/{name}/scale?fieldManager=scaler",
                                   {"spec": {"replicas": 3}}, content_type=MERGE)
    assert status == 200
    status, scaled = shared_server.json("GET", f"{APPS}/deployments/{name}")
    entry = scaled["metadata"]["managedFields"][0]
    assert entry == {"manager": "scaler", "operation": "Update", "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}
    assert all("f:replicas" not in (e["fieldsV1"].get("f:spec") or {}) for e in scaled["metadata"]["managedFields"][1:])


def test_a_scale_update_nobody_owns_the_replicas_of_is_not_tracked(shared_server: ServerProcess) -> None:
    name = _name("unowned-replicas")
    config = _deployment(name)
    status, created = shared_server.json("PATCH", f"{APPS}/deployments/{name}?fieldManager=ann", config,
                                         content_type=APPLY)
    assert status == 201, created
    before = created["metadata"]["managedFields"]
    status, _ = shared_server.json("PATCH", f"{APPS}/deployments/{name}/scale?fieldManager=scaler",
                                   {"spec": {"replicas": 2}}, content_type=MERGE)
    assert status == 200
    status, scaled = shared_server.json("GET", f"{APPS}/deployments/{name}")
    assert scaled["spec"]["replicas"] == 2
    assert _entries(scaled) == _entries({"metadata": {"managedFields": before}}), scaled["metadata"]
