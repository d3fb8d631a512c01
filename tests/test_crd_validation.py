"""Custom objects against their openAPIV3Schema: unknown fields pruned, every failing field reported."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support import ServerProcess

GADGETS = "/apis/shop.io/v1/namespaces/default/gadgets"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["size"],
            "properties": {
                "size": {"type": "string", "enum": ["small", "large"]},
                "name": {"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 5},
                "replicas": {"type": "integer", "minimum": 0, "maximum": 10},
                "ratio": {"type": "number", "maximum": 1, "exclusiveMaximum": True},
                "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
                "owner": {"type": "string", "nullable": True},
                "note": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "port": {"x-kubernetes-int-or-string": True},
                "parts": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}}},
                "mode": {"type": "string", "default": "auto"},
                "seen": {"type": "string", "format": "date-time"},
                "id": {"type": "string", "format": "uuid"},
                "limits": {"type": "object", "default": {},
                           "properties": {"cpu": {"type": "integer", "default": 1}}},
            },
        },
        "status": {"type": "object", "properties": {"phase": {"type": "string", "enum": ["Ready", "Broken"]}}},
    },
}
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.shop.io"},
    "spec": {"group": "shop.io", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": SCHEMA}}]},
}


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    status, _ = shared_server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD)
    assert status == 201
    yield shared_server


def _gadget(name: str, spec: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "shop.io/v1", "kind": "Gadget", "metadata": {"name": name}, "spec": spec, **extra}


def test_unknown_fields_are_pruned_and_defaults_filled(server: ServerProcess) -> None:
    status, created = server.json("POST", GADGETS, _gadget("pruned", {
        "size": "small", "unknown": 1, "labels": {"a": "b"}, "free": {"anything": {"at": ["all"]}},
        "parts": [{"qty": 1, "colour": "red"}], "owner": None, "port": "http", "seen": "2026-11-30T05:00:00.5+01:00",
        "id": "0F8FAD5B-D9CB-469F-A165-70867728950E"}, unknownTop=True))
    assert status == 201, created
    assert created["spec"] == {"free": {"anything": {"at": ["all"]}}, "labels": {"a": "b"}, "owner": None,
                               "parts": [{"qty": 1}], "port": "http", "size": "small", "mode": "auto",
                               "limits": {"cpu": 1}, "seen": "2026-11-30T05:00:00.5+01:00",
                               "id": "0F8FAD5B-D9CB-469F-A165-70867728950E"}
    assert "unknownTop" not in created


def test_every_failing_field_is_reported(server: ServerProcess) -> None:
    status, error = server.json("POST", GADGETS, _gadget("bad", {
        "size": "huge", "name": "ABCDEFG", "replicas": "3", "ratio": 1, "tags": ["a", "b", "c"], "note": None,
        "labels": {"a": 1}, "port": True, "parts": [{"qty": "x"}]}))
    assert status == 422
    assert error["reason"] == "Invalid"
    assert error["details"]["kind"] == "Gadget" and error["details"]["group"] == "shop.io"
    causes = {(c["field"], c["reason"], c["message"]) for c in error["details"]["causes"]}
    assert causes == {
        ("spec.size", "FieldValueNotSupported", 'Unsupported value: "huge": supported values: "small", "large"'),
        ("spec.name", "FieldValueTooLong", "Too long: may not be more than 5 bytes"),
        ("spec.replicas", "FieldValueTypeInvalid",
         'Invalid value: "string": spec.replicas in body must be of type integer: "string"'),
        ("spec.ratio", "FieldValueInvalid", "Invalid value: 1: spec.ratio in body should be less than 1"),
        ("spec.tags", "FieldValueTooMany", "Too many: 3: must have at most 2 items"),
        ("spec.labels.a", "FieldValueTypeInvalid",
         'Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'),
        ("spec.port", "FieldValueTypeInvalid",
         'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'),
        ("spec.parts[0].qty", "FieldValueTypeInvalid",
         'Invalid value: "string": spec.parts[0].qty in body must be of type integer: "string"'),
    }
    assert error["message"].startswith('Gadget.shop.io "bad" is invalid: [')
    for field, _, message in causes:
        assert f"{field}: {message}" in error["message"]


@pytest.mark.parametrize("spec,field,message", [
    ({}, "spec.size", "Required value"),
    ({"size": "small", "replicas": -1}, "spec.replicas",
     "Invalid value: -1: spec.replicas in body should be greater than or equal to 0"),
    ({"size": "small", "replicas": 11}, "spec.replicas",
     "Invalid value: 11: spec.replicas in body should be less than or equal to 10"),
    ({"size": "small", "name": "a"}, "spec.name", 'Invalid value: "a": spec.name in body should be at least 2 chars long'),
    ({"size": "small", "seen": "2026-11-30 25:00:00Z"}, "spec.seen",
     'Invalid value: "2026-11-30 25:00:00Z": spec.seen in body must be of type date-time: "2026-11-30 25:00:00Z"'),
    ({"size": "small", "id": "not-a-uuid"}, "spec.id",
     'Invalid value: "not-a-uuid": spec.id in body must be of type uuid: "not-a-uuid"'),
])
def test_single_rules(server: ServerProcess, spec: dict[str, Any], field: str, message: str) -> None:
    status, error = server.json("POST", GADGETS, _gadget("single", spec))
    assert status == 422
    assert [(c["field"], c["message"]) for c in error["details"]["causes"]] == [(field, message)]
    assert error["message"] == f'Gadget.shop.io "single" is invalid: {field}: {message}'


def test_updates_and_status_are_checked_too(server: ServerProcess) -> None:
    status, _ = server.json("POST", GADGETS, _gadget("updated", {"size": "large", "replicas": 2.0}))
    assert status == 201
    status, error = server.json("PATCH", f"{GADGETS}/updated", {"spec": {"size": "medium"}},
                                content_type="application/merge-patch+json")
    assert status == 422
    assert error["details"]["causes"][0]["field"] == "spec.size"
    status, error = server.json("PATCH", f"{GADGETS}/updated/status", {"status": {"phase": "Gone"}},
                                content_type="application/merge-patch+json")
    assert status == 422
    assert error["details"]["causes"][0]["field"] == "status.phase"
    status, obj = server.json("PATCH", f"{GADGETS}/updated/status", {"status": {"phase": "Ready", "extra": 1}},
                              content_type="application/merge-patch+json")
    assert status == 200
    assert obj["status"] == {"phase": "Ready"}



def test_a_crd_that_cannot_be_served_is_refused(server: ServerProcess) -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "wrong.shop.io"},
           "spec": {"group": "shop.io", "scope": "Everywhere", "names": {"plural": "bolts", "kind": "Bolt"},
                    "versions": [{"name": "v1", "served": True, "storage": False, "additionalPrinterColumns": [
                        {"name": "X", "type": "text", "jsonPath": ".spec.x["}], "schema": {"openAPIV3Schema": {
                            "type": "object", "properties": {"spec": {"properties": {"x": {"type": "string"}}}}}}},
                                 {"name": "v2", "served": True, "storage": False}]}}
    status, error = server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    assert status == 422
    # kube-apiserver 1.36.2's answer, in its order (a printer column's path need only start with a dot).
    assert [(c["field"], c["message"]) for c in error["details"]["causes"] if c["field"] != "spec.versions"] == [
        ("metadata.name", 'Invalid value: "wrong.shop.io": must be spec.names.plural+"."+spec.group'),
        ("spec.scope", 'Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"'),
        ("spec.versions[1].schema.openAPIV3Schema", "Required value"),
        ("spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
         "Required value: must not be empty for specified object fields"),
        ("spec.versions[0].additionalPrinterColumns[0].type",
         'Invalid value: "text": must be one of boolean,date,integer,number,string'),
        ("status.storedVersions", "Invalid value: null: must have at least one stored version")]
    assert server.request("GET", "/apis/shop.io/v1/namespaces/default/bolts") == (404, b"404 page not found\n")


def test_group_and_scope_of_a_crd_cannot_change(server: ServerProcess) -> None:
    _, crd = server.json("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.shop.io")
    crd["spec"]["scope"] = "Cluster"
    status, error = server.json("PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.shop.io",
                                crd)
    assert status == 422
    assert [(c["field"], c["message"]) for c in error["details"]["causes"]] == [
        ("spec.scope", 'Invalid value: "Cluster": field is immutable')]
