"""CRDs whose OpenAPI schemas upstream's ValidateCustomResourceDefinitionOpenAPISchema, its
specStandardValidatorV3 and validateMapListKeysMapSet, and the root's rules judge; and updates of CRDs
stored with what a create could not have (a set of non-atomic items, a map list's key without a default,
a type OpenAPI does not know, a version without a schema), which the old CRD lets an update keep.

Creates are dry runs. An update's CRD is created in a form the API takes, then the caller rewrites the
stored object behind the server's back (`Rewrite`, as in crd_update_ratchet_cases.py) to the form a create
would refuse, and each step is a merge patch. The reference's answers are tests/fixtures/crd_openapi.json,
recorded by tools/capture_crd_openapi.py. Each case has one offending property at most where upstream
walks a map, so that its answer does not depend on Go's map order.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

GROUP = "openapi.example.com"
FIXTURE = "crd_openapi.json"
Send = Callable[[str, str, Any, str], tuple[int, Any]]
Rewrite = Callable[[dict[str, dict[str, Any]]], None]  # by CRD name, the spec fields to store
_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
_MERGE = "application/merge-patch+json"


def _obj(properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **more}


def _spec(schema: dict[str, Any]) -> dict[str, Any]:
    return _obj({"spec": schema})


def _list_of(item: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "array", "items": item, **more}


_KEYED = _obj({"k": {"type": "string"}, "v": {"type": "string"}}, required=["k"])
_STRING = {"type": "string"}
_RULE_BAD = {"rule": "self.nope == 1"}

# name -> (root schema, extra version fields)
CREATES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "type-unknown": (_spec({"type": "foo"}), {}),
    "type-null": (_spec({"type": "null"}), {}),
    "id": (_spec({"type": "string", "id": "x"}), {}),
    "id-empty": (_spec({"type": "string", "id": ""}), {}),
    "ref": (_spec({"type": "string", "$ref": "#/definitions/x"}), {}),
    "additional-items": (_spec(_list_of(_STRING, additionalItems=False)), {}),
    "pattern-properties": (_spec({"type": "object", "patternProperties": {"^a": _STRING}}), {}),
    "definitions": (_spec({"type": "object", "definitions": {"a": _STRING}}), {}),
    "dependencies": (_spec(_obj({"a": _STRING}, dependencies={"a": ["b"]})), {}),
    "dependencies-empty": (_spec({"type": "object", "dependencies": {}}), {}),
    "items-array": (_spec({"type": "array", "items": [_STRING]}), {}),
    "unique-items": (_spec(_list_of(_STRING, uniqueItems=True)), {}),
    "unique-items-false": (_spec(_list_of(_STRING, uniqueItems=False)), {}),
    "additional-and-properties": (_spec(_obj({"a": _STRING}, additionalProperties=_STRING)), {}),
    "additional-false-and-properties": (_spec(_obj({"a": _STRING}, additionalProperties=False)), {}),
    "additional-true-and-properties": (_spec(_obj({"a": _STRING}, additionalProperties=True)), {}),
    "additional-bad-type": (_spec({"type": "object", "additionalProperties": {"type": "foo"}}), {}),
    "preserve-false": (_spec({"type": "object", "x-kubernetes-preserve-unknown-fields": False}), {}),
    "preserve-true": (_spec({"type": "object", "x-kubernetes-preserve-unknown-fields": True}), {}),
    "default-top-level-kind": (_obj({"kind": {"type": "string", "default": "W"}}), {}),
    "default-top-level-api-version": (_obj({"apiVersion": {"type": "string", "default": "v"}}), {}),
    "embedded-in-embedded-meta": (_spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                         "properties": {"metadata": {"type": "object", "properties": {"labels": {
                                             "type": "object", "x-kubernetes-embedded-resource": True,
                                             "x-kubernetes-preserve-unknown-fields": True}}}}}), {}),
    "default-in-embedded-meta-map": (_spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                            "properties": {"metadata": {"type": "object", "properties": {"labels": {
                                                "type": "object", "additionalProperties": {"type": "string",
                                                                                           "default": "x"}}}}}}), {}),
    "map-type-on-string": (_spec({"type": "string", "x-kubernetes-map-type": "atomic"}), {}),
    "map-type-unknown": (_spec({"type": "object", "x-kubernetes-map-type": "foo"}), {}),
    "map-type-granular": (_spec({"type": "object", "x-kubernetes-map-type": "granular"}), {}),
    "list-type-on-object": (_spec({"type": "object", "x-kubernetes-list-type": "atomic"}), {}),
    "list-type-unknown": (_spec(_list_of(_STRING, **{"x-kubernetes-list-type": "foo"})), {}),
    "list-map-keys-without-type": (_spec(_list_of(_KEYED, **{"x-kubernetes-list-map-keys": ["k"]})), {}),
    "list-map-keys-on-set": (_spec(_list_of(_STRING, **{"x-kubernetes-list-type": "set",
                                                         "x-kubernetes-list-map-keys": ["k"]})), {}),
    "map-without-keys": (_spec(_list_of(_KEYED, **{"x-kubernetes-list-type": "map"})), {}),
    "map-items-array": (_spec({"type": "array", "items": [_KEYED], "x-kubernetes-list-type": "map",
                               "x-kubernetes-list-map-keys": ["k"]}), {}),
    "map-items-string": (_spec(_list_of(_STRING, **{"x-kubernetes-list-type": "map",
                                                     "x-kubernetes-list-map-keys": ["k"]})), {}),
    "map-key-object": (_spec(_list_of(_obj({"k": {"type": "object"}}, required=["k"]),
                                      **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"]})), {}),
    "map-key-missing": (_spec(_list_of(_KEYED, **{"x-kubernetes-list-type": "map",
                                                   "x-kubernetes-list-map-keys": ["k", "z"]})), {}),
    "map-key-duplicate": (_spec(_list_of(_KEYED, **{"x-kubernetes-list-type": "map",
                                                     "x-kubernetes-list-map-keys": ["k", "k"]})), {}),
    "map-key-not-required": (_spec(_list_of(_KEYED, **{"x-kubernetes-list-type": "map",
                                                        "x-kubernetes-list-map-keys": ["v"]})), {}),
    "map-key-defaulted": (_spec(_list_of(_obj({"k": {"type": "string", "default": "a"}}),
                                         **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"]})), {}),
    "map-key-nullable": (_spec(_list_of(_obj({"k": {"type": "string", "nullable": True}}, required=["k"]),
                                        **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"]})), {}),
    "map-items-nullable": (_spec(_list_of({**_KEYED, "nullable": True}, **{"x-kubernetes-list-type": "map",
                                                                           "x-kubernetes-list-map-keys": ["k"]})), {}),
    "set-items-nullable": (_spec(_list_of({"type": "string", "nullable": True}, **{"x-kubernetes-list-type": "set"})), {}),
    "set-of-objects": (_spec(_list_of(_KEYED, **{"x-kubernetes-list-type": "set"})), {}),
    "set-of-granular-objects": (_spec(_list_of({**_KEYED, "x-kubernetes-map-type": "granular"},
                                               **{"x-kubernetes-list-type": "set"})), {}),
    "set-of-atomic-objects": (_spec(_list_of({**_KEYED, "x-kubernetes-map-type": "atomic"},
                                             **{"x-kubernetes-list-type": "set"})), {}),
    "set-of-set-lists": (_spec(_list_of(_list_of(_STRING, **{"x-kubernetes-list-type": "set"}),
                                        **{"x-kubernetes-list-type": "set"})), {}),
    "set-of-lists": (_spec(_list_of(_list_of(_STRING), **{"x-kubernetes-list-type": "set"})), {}),
    "root-nullable": ({"type": "object", "nullable": True, "properties": {"spec": {"type": "object"}}}, {}),
    "status-root-map-type": ({"type": "object", "x-kubernetes-map-type": "granular",
                              "properties": {"spec": {"type": "object"}}}, {"subresources": {"status": {}}}),
    "status-root-nullable": ({"type": "object", "nullable": True, "properties": {"status": {"type": "object"}}},
                             {"subresources": {"status": {}}}),
    "status-root-array": ({"type": "array", "items": _STRING}, {"subresources": {"status": {}}}),
    "status-root-allowed": ({"type": "object", "description": "d", "required": ["spec"],
                             "x-kubernetes-preserve-unknown-fields": True,
                             "properties": {"spec": {"type": "object"}}}, {"subresources": {"status": {}}}),
    "rule-with-schema-error-below": (_spec(_obj({"a": {"type": "foo"}}, **{"x-kubernetes-validations": [_RULE_BAD]})), {}),
    "rule-with-schema-error-beside": (_obj({"a": {"type": "foo"}, "b": {"type": "object", "x-kubernetes-validations":
                                                                         [_RULE_BAD]}}), {}),
    "rule-with-form-error": (_spec({"type": "object", "x-kubernetes-validations": [
        _RULE_BAD, {"rule": "true", "message": " "}]}), {}),
    "rule-with-carriage-return": (_spec({"type": "object", "x-kubernetes-validations": [
        {"rule": "true\r&& true"}]}), {}),
    "rule-field-path-carriage-return": (_spec({"type": "object", "x-kubernetes-validations": [
        {"rule": "true", "fieldPath": ".a\r"}]}), {}),
    "rule-untyped-schema": (_spec(_obj({"a": {}}, **{"x-kubernetes-validations": [_RULE_BAD]})), {}),
    "rule-old-self-in-list": (_spec(_list_of(_obj({"a": _STRING}, **{"x-kubernetes-validations": [
        {"rule": "self == oldSelf"}]}))), {}),
    "rule-old-self-in-atomic-map": (_spec(_obj({"a": {"type": "string", "x-kubernetes-validations": [
        {"rule": "self == oldSelf"}]}}, **{"x-kubernetes-map-type": "atomic"})), {}),
    "rule-old-self-in-map-list": (_spec(_list_of({**_KEYED, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]},
                                                 **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"]})), {}),
}

# name -> (root schema, extra spec fields)
SPEC_CREATES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "defaults-preserving-unknown": (_spec({"type": "string", "default": "x"}), {"preserveUnknownFields": True}),
    "defaults-pruning": (_spec({"type": "string", "default": "x"}), {"preserveUnknownFields": False}),
}

_SET_OF_OBJECTS = _spec(_list_of(_KEYED, **{"x-kubernetes-list-type": "set"}))
_KEY_WITHOUT_DEFAULT = _spec(_list_of(_KEYED, **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["v"]}))
_UNKNOWN_TYPE = _spec(_obj({"a": {"type": "foo"}}))
_UNIQUE = _spec(_list_of(_STRING, uniqueItems=True))
_FINE = _spec({"type": "object", "properties": {"a": _STRING}})


def _described(schema: dict[str, Any], text: str) -> dict[str, Any]:
    return {**schema, "description": text}


def _version(name: str, schema: dict[str, Any] | None, storage: bool = True, served: bool = True
             ) -> dict[str, Any]:
    version: dict[str, Any] = {"name": name, "served": served, "storage": storage}
    if schema is not None:
        version["schema"] = {"openAPIV3Schema": schema}
    return version


def _label(value: str) -> dict[str, Any]:
    return {"metadata": {"labels": {"touched": value}}}


def _versions(*versions: dict[str, Any]) -> dict[str, Any]:
    return {"spec": {"versions": list(versions)}}


def _stored(*versions: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"versions": list(versions), **spec}


_UNTYPED = _obj({"spec": {"properties": {"a": _STRING}}})

# name -> (plural, the versions as created, the spec fields as stored, the steps: (name, merge patch))
UPDATES: dict[str, tuple[str, list[dict[str, Any]], dict[str, Any], list[tuple[str, dict[str, Any]]]]] = {
    "non-atomic-set": ("sets", [_version("v1", _FINE)], _stored(_version("v1", _SET_OF_OBJECTS)), [
        ("label", _label("a")),
        ("described", _versions(_version("v1", _described(_SET_OF_OBJECTS, "d")))),
        ("another-set", _versions(_version("v1", _obj({"spec": _SET_OF_OBJECTS["properties"]["spec"],
                                                         "more": _SET_OF_OBJECTS["properties"]["spec"]})))),
        ("unique-items-added", _versions(_version("v1", _obj({"spec": _SET_OF_OBJECTS["properties"]["spec"],
                                                                "more": _UNIQUE["properties"]["spec"]})))),
    ]),
    "key-without-default": ("keys", [_version("v1", _FINE)], _stored(_version("v1", _KEY_WITHOUT_DEFAULT)), [
        ("label", _label("a")),
        ("described", _versions(_version("v1", _described(_KEY_WITHOUT_DEFAULT, "d")))),
        ("set-added", _versions(_version("v1", _obj({"spec": _KEY_WITHOUT_DEFAULT["properties"]["spec"],
                                                       "more": _SET_OF_OBJECTS["properties"]["spec"]})))),
    ]),
    "unknown-type": ("types", [_version("v1", _FINE)], _stored(_version("v1", _UNKNOWN_TYPE)), [
        ("label", _label("a")),
        ("described", _versions(_version("v1", _described(_UNKNOWN_TYPE, "d")))),
    ]),
    "unique-items": ("uniques", [_version("v1", _FINE)], _stored(_version("v1", _UNIQUE)), [
        ("label", _label("a")),
    ]),
    "fine-then-set": ("fines", [_version("v1", _FINE)], _stored(_version("v1", _FINE)), [
        ("set-added", _versions(_version("v1", _SET_OF_OBJECTS))),
        ("key-without-default-added", _versions(_version("v1", _KEY_WITHOUT_DEFAULT))),
        ("unknown-type-added", _versions(_version("v1", _UNKNOWN_TYPE))),
    ]),
    "version-without-schema": ("schemaless", [_version("v1", _FINE), _version("v2", _FINE, False)],
                               _stored(_version("v1", _FINE), _version("v2", None, False)), [
        ("label", _label("a")),
        ("unserved", _versions(_version("v1", _FINE), _version("v2", None, False, False))),
        ("v3-added", _versions(_version("v1", _FINE), _version("v2", None, False, False),
                               _version("v3", None, False, False))),
    ]),
    # Pruning off (an old CRD's preserveUnknownFields) and nothing that needs a structural schema: the
    # schema need not be one.
    "non-structural-pruning-off": ("nonstructurals", [_version("v1", _FINE)],
                                   _stored(_version("v1", _UNTYPED), preserveUnknownFields=True), [
        ("label", _label("a")),
        ("described", _versions(_version("v1", _described(_UNTYPED, "d")))),
        ("rule-added", _versions(_version("v1", {**_UNTYPED, "x-kubernetes-validations": [{"rule": "true"}]}))),
        ("default-added", _versions(_version("v1", _obj({"spec": {"properties": {"a": {**_STRING, "default": "x"}}}})))),
        ("pruning-on", {"spec": {"preserveUnknownFields": False}}),
    ]),
}


def crd(plural: str, versions: list[dict[str, Any]]) -> dict[str, Any]:
    kind = plural.capitalize()
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": plural + "x", "kind": kind, "listKind": kind + "List"},
            "versions": versions,
        },
    }


def _answer(code: int, body: Any) -> dict[str, Any]:
    if code < 300:
        return {"code": code}
    return {"code": code, "reason": body.get("reason"), "message": body.get("message"),
            "causes": (body.get("details") or {}).get("causes")}


def run_creates(send: Send) -> dict[str, dict[str, Any]]:
    answers: dict[str, dict[str, Any]] = {}
    for i, (name, (schema, extra)) in enumerate(CREATES.items()):
        body = crd(f"creates{i}", [{**_version("v1", schema), **extra}])
        answers[f"create/{name}"] = _answer(*send("POST", _PATH + "?dryRun=All", body, "application/json"))
    for i, (name, (schema, extra)) in enumerate(SPEC_CREATES.items()):
        body = crd(f"speccreates{i}", [_version("v1", schema)])
        body["spec"].update(extra)
        answers[f"create/{name}"] = _answer(*send("POST", _PATH + "?dryRun=All", body, "application/json"))
    return answers


def run_updates(send: Send, rewrite: Rewrite) -> dict[str, dict[str, Any]]:
    answers: dict[str, dict[str, Any]] = {}
    for name, (plural, created, _, _) in UPDATES.items():
        answers[f"{name}/create"] = _answer(*send("POST", _PATH, crd(plural, created), "application/json"))
    rewrite({f"{plural}.{GROUP}": copy.deepcopy(stored) for plural, _, stored, _ in UPDATES.values()})
    for name, (plural, _, _, steps) in UPDATES.items():
        for step, patch in steps:
            answers[f"{name}/{step}"] = _answer(*send("PATCH", f"{_PATH}/{plural}.{GROUP}", patch, _MERGE))
    return answers


def cleanup(send: Send) -> None:
    for plural, _, _, _ in UPDATES.values():
        send("DELETE", f"{_PATH}/{plural}.{GROUP}", None, "")
