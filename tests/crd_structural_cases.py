"""CRD schemas that exercise upstream's structural schema checks (apiextensions-apiserver
pkg/apiserver/schema: NewStructural's refusals, ValidateStructural's invariants and completeness), each
created with `?dryRun=All` and its answer recorded: the reference's by tools/capture_crd_structural.py
into tests/fixtures/crd_structural.json, ours by tests/test_crd_structural.py.

A case that could meet two of NewStructural's refusals holds one: upstream meets them in Go's random
map order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FIXTURE = "crd_structural.json"
Send = Callable[[str, str, Any, str], tuple[int, Any]]
Obj = dict[str, Any]
_CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
_INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]


def _root(**properties: Obj) -> Obj:
    return {"type": "object", "properties": properties}


def _spec(schema: Obj) -> Obj:
    """`schema` as the root's spec."""
    return _root(spec=schema)


def _in_spec(**clause: Any) -> Obj:
    """A spec object with one field `a`, and `clause` (an allOf, anyOf, oneOf or not) beside it."""
    return _spec({"type": "object", "properties": {"a": {"type": "string"}}, **clause})


def _nested(key: str, forbidden: Obj) -> Obj:
    clause = [forbidden] if key != "not" else forbidden
    return _in_spec(**{key: clause})


CASES: dict[str, Obj] = {
    # What NewStructural refuses: only `$schema` escapes ValidateCustomResourceDefinitionOpenAPISchema,
    # whose refusal of the others is said instead.
    "new/schema-at-root": {"type": "object", "$schema": "http://json-schema.org/draft-04/schema#"},
    "new/schema-in-property": _spec({"type": "object", "$schema": "x"}),
    "new/schema-in-anyOf": _in_spec(anyOf=[{"$schema": "x"}]),
    "new/schema-in-not": _in_spec(**{"not": {"$schema": "x"}}),
    "new/schema-in-items": _spec({"type": "array", "items": {"type": "string", "$schema": "x"}}),
    "new/schema-in-additionalProperties": _spec({"type": "object", "additionalProperties": {"$schema": "x"}}),
    "new/schema-in-nested-items": _in_spec(allOf=[{"items": {"$schema": "x"}}]),
    "new/schema-in-nested-property": _in_spec(oneOf=[{"properties": {"a": {"$schema": "x"}}}]),
    "new/schema-stops-structural-checks": {"type": "string", "$schema": "x"},
    "new/schema-empty": {"type": "object", "$schema": ""},
    "new/id": _spec({"type": "string", "id": "x"}),
    "new/ref": _spec({"type": "string", "$ref": "#/definitions/x"}),
    "new/ref-empty": _spec({"type": "string", "$ref": ""}),
    "new/patternProperties": _spec({"type": "object", "patternProperties": {"^a": {"type": "string"}}}),
    "new/patternProperties-empty": _spec({"type": "object", "patternProperties": {}}),
    "new/dependencies": _spec({"type": "object", "dependencies": {"a": ["b"]}}),
    "new/additionalItems": _spec({"type": "array", "items": {"type": "string"}, "additionalItems": False}),
    "new/definitions": _spec({"type": "object", "definitions": {"a": {"type": "string"}}}),
    "new/definitions-empty": _spec({"type": "object", "definitions": {}}),
    "new/items-array": _spec({"type": "array", "items": [{"type": "string"}]}),
    "new/items-array-in-anyOf": _spec({"type": "array", "items": {"type": "string"}, "anyOf": [{"items": [{}]}]}),
    "new/items-empty-array": _spec({"type": "array", "items": []}),
    "new/preserve-false": _spec({"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
    "new/preserve-false-in-allOf": _in_spec(allOf=[{"x-kubernetes-preserve-unknown-fields": False}]),
    "new/id-stops-structural-checks": {"type": "string", "properties": {"a": {"type": "string", "id": "x"}}},
    # validateStructuralInvariants: types.
    "type/missing-at-root": {"properties": {"spec": {"type": "object"}}},
    "type/string-at-root": {"type": "string"},
    "type/array-at-root": {"type": "array", "items": {"type": "string"}},
    "type/missing-field": _root(spec={"properties": {"a": {"type": "string"}}}),
    "type/missing-item": _spec({"type": "array", "items": {"maxLength": 3}}),
    "type/missing-additionalProperties": _spec({"type": "object", "additionalProperties": {"maxLength": 3}}),
    "type/missing-with-preserve": _spec({"x-kubernetes-preserve-unknown-fields": True}),
    "type/missing-with-int-or-string": _spec({"x-kubernetes-int-or-string": True}),
    "type/missing-at-root-with-preserve": {"x-kubernetes-preserve-unknown-fields": True},
    "type/missing-deep": _spec({"type": "object", "properties": {"a": {"type": "array", "items": {
        "type": "object", "properties": {"b": {"description": "untyped"}}}}}}),
    "type/several-missing": _root(a={}, b={"type": "array", "items": {}}, c={"type": "object", "properties": {"d": {}}}),
    "items/missing": _spec({"type": "array"}),
    "items/missing-in-items": _spec({"type": "array", "items": {"type": "array"}}),
    "items/missing-with-preserve": _spec({"type": "array", "x-kubernetes-preserve-unknown-fields": True}),
    "additionalProperties/at-root": {"type": "object", "additionalProperties": {"type": "string"}},
    "additionalProperties/false-at-root": {"type": "object", "additionalProperties": False},
    "additionalProperties/true-at-root": {"type": "object", "additionalProperties": True},
    "additionalProperties/in-field": _spec({"type": "object", "additionalProperties": {"type": "string"}}),
    "additionalProperties/false-in-field": _spec({"type": "object", "additionalProperties": False}),
    # validateExtensions.
    "extensions/int-or-string-preserve": _spec({"x-kubernetes-int-or-string": True,
                                                "x-kubernetes-preserve-unknown-fields": True}),
    "extensions/int-or-string-embedded": _spec({"type": "object", "x-kubernetes-int-or-string": True,
                                               "x-kubernetes-embedded-resource": True,
                                               "x-kubernetes-preserve-unknown-fields": True}),
    # Embedded resources.
    "embedded/string": _spec({"type": "string", "x-kubernetes-embedded-resource": True,
                              "x-kubernetes-preserve-unknown-fields": True}),
    "embedded/untyped": _spec({"x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}),
    "embedded/untyped-without-properties": _spec({"x-kubernetes-embedded-resource": True}),
    "embedded/no-properties": _spec({"type": "object", "x-kubernetes-embedded-resource": True}),
    "embedded/preserve": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                "x-kubernetes-preserve-unknown-fields": True}),
    "embedded/properties": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                  "properties": {"a": {"type": "string"}}}),
    "embedded/additionalProperties": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                            "x-kubernetes-preserve-unknown-fields": True,
                                            "additionalProperties": {"type": "string"}}),
    "embedded/additionalProperties-false": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                                  "properties": {"a": {"type": "string"}},
                                                  "additionalProperties": False}),
    "embedded/in-items": _spec({"type": "array", "items": {"type": "object", "x-kubernetes-embedded-resource": True}}),
    "embedded/kind-integer": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                    "properties": {"kind": {"type": "integer"}}}),
    "embedded/apiVersion-untyped": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                          "properties": {"apiVersion": {"maxLength": 5}}}),
    "embedded/kind-string": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                   "properties": {"kind": {"type": "string"}, "apiVersion": {"type": "string"}}}),
    "embedded/metadata-string": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                       "properties": {"metadata": {"type": "string"}}}),
    "embedded/metadata-labels": _spec({"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
        "metadata": {"type": "object", "properties": {"labels": {"type": "object",
                                                                  "additionalProperties": {"type": "string"}}}}}}),
    "embedded/metadata-untyped": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                        "properties": {"metadata": {"x-kubernetes-preserve-unknown-fields": True}}}),
    "embedded/nested-object-kind-integer": _spec({"type": "object", "x-kubernetes-embedded-resource": True,
                                                  "properties": {"inner": {"type": "object", "properties": {
                                                      "kind": {"type": "integer"}}}}}),
    # kind, apiVersion and metadata at the root.
    "root/kind-integer": _root(kind={"type": "integer"}),
    "root/apiVersion-object": _root(apiVersion={"type": "object"}),
    "root/kind-string": _root(kind={"type": "string"}, apiVersion={"type": "string"}),
    "root/kind-in-plain-object": _spec({"type": "object", "properties": {"kind": {"type": "integer"},
                                                                         "metadata": {"type": "string"}}}),
    "metadata/object": _root(metadata={"type": "object"}),
    "metadata/string": _root(metadata={"type": "string"}),
    "metadata/untyped": _root(metadata={"x-kubernetes-preserve-unknown-fields": True}),
    "metadata/name": _root(metadata={"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}}),
    "metadata/generateName": _root(metadata={"type": "object", "properties": {"generateName": {"type": "string"}}}),
    "metadata/name-and-generateName": _root(metadata={"type": "object", "properties": {
        "name": {"type": "string", "pattern": "^a"}, "generateName": {"type": "string"}}}),
    "metadata/labels": _root(metadata={"type": "object", "properties": {"labels": {"type": "object"}}}),
    "metadata/name-and-labels": _root(metadata={"type": "object", "properties": {
        "name": {"type": "string"}, "labels": {"type": "object"}}}),
    "metadata/description": _root(metadata={"type": "object", "description": "the metadata"}),
    "metadata/title": _root(metadata={"type": "object", "title": "meta"}),
    "metadata/nullable": _root(metadata={"type": "object", "nullable": True}),
    "metadata/example": _root(metadata={"type": "object", "example": {"name": "a"}}),
    "metadata/externalDocs": _root(metadata={"type": "object", "externalDocs": {"url": "https://example.com"}}),
    "metadata/maxProperties": _root(metadata={"type": "object", "maxProperties": 3}),
    "metadata/required-empty": _root(metadata={"type": "object", "required": []}),
    "metadata/required": _root(metadata={"type": "object", "required": ["name"],
                                         "properties": {"name": {"type": "string"}}}),
    "metadata/preserve": _root(metadata={"type": "object", "x-kubernetes-preserve-unknown-fields": True}),
    "metadata/additionalProperties": _root(metadata={"type": "object", "additionalProperties": {"type": "string"}}),
    "metadata/map-type": _root(metadata={"type": "object", "x-kubernetes-map-type": "atomic"}),
    "metadata/validations": _root(metadata={"type": "object",
                                            "x-kubernetes-validations": [{"rule": "self.name.size() < 5"}]}),
    "metadata/anyOf": _root(metadata={"type": "object", "properties": {"name": {"type": "string"}},
                                      "anyOf": [{"required": ["name"]}]}),
    "metadata/format": _root(metadata={"type": "object", "format": "x"}),
    "metadata/enum-empty": _root(metadata={"type": "object", "enum": []}),
    "metadata/list-map-keys-empty": _root(metadata={"type": "object", "x-kubernetes-list-map-keys": []}),
    "metadata/in-items": _spec({"type": "array", "items": {"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"labels": {"type": "string"}}}}}}),
    "metadata/string-in-spec": _spec({"type": "object", "properties": {"metadata": {"type": "string"}}}),
    # validateNestedValueValidation: what allOf, anyOf, oneOf and not may not hold.
    **{f"nested/{key}-{name}": _nested(key, forbidden) for key in ("allOf", "anyOf", "oneOf", "not")
       for name, forbidden in (
           ("type", {"type": "string"}),
           ("additionalProperties", {"additionalProperties": {"maxLength": 2}}),
           ("default", {"default": "x"}),
           ("title", {"title": "t"}),
           ("description", {"description": "d"}),
           ("nullable", {"nullable": True}),
           ("preserve", {"x-kubernetes-preserve-unknown-fields": True}),
           ("embedded", {"x-kubernetes-embedded-resource": True}),
           ("int-or-string", {"x-kubernetes-int-or-string": True}),
           ("list-map-keys", {"x-kubernetes-list-map-keys": ["a"]}),
           ("list-type", {"x-kubernetes-list-type": "atomic"}),
           ("map-type", {"x-kubernetes-map-type": "atomic"}),
           ("validations", {"x-kubernetes-validations": [{"rule": "true"}]}),
           ("metadata", {"properties": {"metadata": {}}}),
       )},
    "nested/additionalProperties-true": _in_spec(anyOf=[{"additionalProperties": True}]),
    "nested/additionalProperties-false": _in_spec(anyOf=[{"additionalProperties": False}]),
    "nested/list-map-keys-empty": _in_spec(anyOf=[{"x-kubernetes-list-map-keys": []}]),
    "nested/list-type-empty": _in_spec(anyOf=[{"x-kubernetes-list-type": ""}]),
    "nested/nullable-false": _in_spec(anyOf=[{"nullable": False}]),
    "nested/default-false": _in_spec(anyOf=[{"default": False}]),
    "nested/validations-empty": _in_spec(anyOf=[{"x-kubernetes-validations": []}]),
    "nested/allowed": _in_spec(anyOf=[{"required": ["a"]}, {"properties": {"a": {"maxLength": 3, "format": "x",
                                                                                   "example": "e"}}}]),
    "nested/in-property": _in_spec(allOf=[{"properties": {"a": {"type": "string", "title": "t"}}}]),
    "nested/in-items": _spec({"type": "array", "items": {"type": "string"}, "anyOf": [{"items": {"type": "string"}}]}),
    "nested/in-nested": _in_spec(**{"not": {"anyOf": [{"allOf": [{"type": "string"}]}]}}),
    "nested/several": _in_spec(anyOf=[{"type": "string", "title": "t", "description": "d", "nullable": True,
                                       "default": "x"}]),
    "nested/in-field-items": _spec({"type": "array", "items": {"type": "object", "properties": {
        "a": {"type": "string"}}, "oneOf": [{"properties": {"a": {"default": "z"}}}]}}),
    "nested/metadata-deep": _in_spec(allOf=[{"properties": {"a": {"properties": {"metadata": {}}}}}]),
    "nested/at-root": {"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"type": "object"}]},
    # The int-or-string exceptions.
    "int-or-string/anyOf": _spec({"x-kubernetes-int-or-string": True, "anyOf": _INT_OR_STRING}),
    "int-or-string/allOf": _spec({"x-kubernetes-int-or-string": True,
                                  "allOf": [{"anyOf": _INT_OR_STRING}, {"pattern": "^[0-9]+%?$"}]}),
    "int-or-string/allOf-second": _spec({"x-kubernetes-int-or-string": True,
                                         "allOf": [{"pattern": "^a"}, {"anyOf": _INT_OR_STRING}]}),
    "int-or-string/anyOf-reversed": _spec({"x-kubernetes-int-or-string": True,
                                           "anyOf": [{"type": "string"}, {"type": "integer"}]}),
    "int-or-string/anyOf-three": _spec({"x-kubernetes-int-or-string": True,
                                        "anyOf": [*_INT_OR_STRING, {"type": "number"}]}),
    "int-or-string/anyOf-with-more": _spec({"x-kubernetes-int-or-string": True,
                                            "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]}),
    "int-or-string/anyOf-without-extension": _spec({"type": "string", "anyOf": _INT_OR_STRING}),
    "int-or-string/anyOf-with-properties-empty": _spec({"x-kubernetes-int-or-string": True, "anyOf": [
        {"type": "integer", "properties": {}}, {"type": "string"}]}),
    "int-or-string/anyOf-in-allOf-nested": _spec({"x-kubernetes-int-or-string": True, "allOf": [
        {"anyOf": _INT_OR_STRING, "oneOf": [{"type": "string"}]}]}),
    # Patterns Go's regexp refuses.
    "pattern/missing-paren": _spec({"type": "string", "pattern": "(("}),
    "pattern/unexpected-paren": _spec({"type": "string", "pattern": "a)b"}),
    "pattern/missing-bracket": _spec({"type": "string", "pattern": "[a-"}),
    "pattern/repeat": _spec({"type": "string", "pattern": "a**"}),
    "pattern/repeat-count": _spec({"type": "string", "pattern": "a{1001}"}),
    "pattern/repeat-count-order": _spec({"type": "string", "pattern": "x{2,1}"}),
    "pattern/trailing-backslash": _spec({"type": "string", "pattern": "a\\"}),
    "pattern/escape": _spec({"type": "string", "pattern": "\\Z"}),
    "pattern/any-byte": _spec({"type": "string", "pattern": "a\\Cb"}),
    "pattern/class-range": _spec({"type": "string", "pattern": "[z-a]"}),
    "pattern/unicode-class": _spec({"type": "string", "pattern": "\\p{Foo}"}),
    "pattern/perl-flags": _spec({"type": "string", "pattern": "(?x)a"}),
    "pattern/named-capture": _spec({"type": "string", "pattern": "(?P<a-b>x)"}),
    "pattern/missing-argument": _spec({"type": "string", "pattern": "*a"}),
    "pattern/lookahead": _spec({"type": "string", "pattern": "a(?=b)"}),
    "pattern/backreference": _spec({"type": "string", "pattern": "(a)\\1"}),
    "pattern/repeat-count-non-greedy": _spec({"type": "string", "pattern": "a{1001}?"}),
    "pattern/repeat-count-after-star": _spec({"type": "string", "pattern": "a*{0,1001}"}),
    "pattern/repeat-count-nested": _spec({"type": "string", "pattern": "(a{500}){3}"}),
    "pattern/repeat-count-nested-non-greedy": _spec({"type": "string", "pattern": "(a{500}){3}?"}),
    "pattern/repeat-twice": _spec({"type": "string", "pattern": "a{2}{3}"}),
    "pattern/hex-escape-open": _spec({"type": "string", "pattern": "a\\x{"}),
    "pattern/hex-escape-unclosed": _spec({"type": "string", "pattern": "\\x{41"}),
    "pattern/hex-escape-too-big": _spec({"type": "string", "pattern": "\\x{110000}"}),
    "pattern/any-byte-in-class": _spec({"type": "string", "pattern": "[\\C]"}),
    "pattern/any-byte-quoted": _spec({"type": "string", "pattern": "\\Q\\C\\E"}),
    "pattern/any-byte-before-escape": _spec({"type": "string", "pattern": "\\C\\Z"}),
    "pattern/any-byte-after-escape": _spec({"type": "string", "pattern": "\\Z\\C"}),
    "pattern/any-byte-unclosed-group": _spec({"type": "string", "pattern": "(a\\C"}),
    "pattern/any-byte-after-paren": _spec({"type": "string", "pattern": "a)\\C"}),
    "pattern/any-byte-in-flags": _spec({"type": "string", "pattern": "(?i\\C)"}),
    "pattern/any-byte-in-name": _spec({"type": "string", "pattern": "(?P<a\\C"}),
    "pattern/class-negated-empty": _spec({"type": "string", "pattern": "[^]"}),
    "pattern/posix-class": _spec({"type": "string", "pattern": "[[:foo:]]"}),
    "pattern/class-escape-range": _spec({"type": "string", "pattern": "[a-\\d]"}),
    "pattern/flags-negated-empty": _spec({"type": "string", "pattern": "(?-)"}),
    "pattern/named-capture-empty": _spec({"type": "string", "pattern": "(?P<>a)"}),
    "pattern/named-capture-unclosed": _spec({"type": "string", "pattern": "(?P<n"}),
    "pattern/unicode-class-unclosed": _spec({"type": "string", "pattern": "\\p{Gr"}),
    "pattern/octal-escape": _spec({"type": "string", "pattern": "\\8"}),
    "pattern/non-ascii": _spec({"type": "string", "pattern": "é(("}),
    "pattern/valid": _spec({"type": "string", "pattern": "^(?P<n>[a-z]+)\\d{1,3}(?i:x)$"}),
    "pattern/in-anyOf": _in_spec(anyOf=[{"pattern": "(("}]),
    "pattern/at-root": {"type": "object", "pattern": "(("},
    "pattern/on-integer": _spec({"type": "integer", "pattern": "[["}),
    # validateStructuralCompleteness.
    "complete/anyOf-property": {"type": "object", "properties": {"a": {"type": "string"}},
                                "anyOf": [{"properties": {"b": {"maxLength": 3}}}]},
    "complete/allOf-property": {"type": "object", "allOf": [{"properties": {"a": {}}}, {"required": ["b"]}]},
    "complete/oneOf-deep": {"type": "object", "properties": {"a": {"type": "object"}},
                            "oneOf": [{"properties": {"a": {"properties": {"b": {}}}}}]},
    "complete/not-items": {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}},
                           "not": {"properties": {"a": {"items": {"properties": {"c": {}}}}}}},
    "complete/items-missing": {"type": "object", "properties": {"a": {"type": "object"}},
                               "anyOf": [{"properties": {"a": {"items": {"maxLength": 1}}}}]},
    "complete/nested-clause": {"type": "object", "properties": {"a": {"type": "string"}},
                               "anyOf": [{"allOf": [{"properties": {"z": {}}}]}]},
    "complete/present": {"type": "object", "properties": {"a": {"type": "string"}},
                         "anyOf": [{"properties": {"a": {"maxLength": 3}}}, {"required": ["a"]}]},
    "complete/in-spec": _in_spec(anyOf=[{"properties": {"zz": {"maxLength": 3}}}]),
    "complete/with-additionalProperties": _spec({"type": "object", "additionalProperties": {"type": "string"},
                                                "anyOf": [{"properties": {"x": {"maxLength": 3}}}]}),
    "complete/root-additionalProperties": {"type": "object", "additionalProperties": {"type": "string"},
                                           "anyOf": [{"properties": {"x": {"maxLength": 3}}}]},
    # Errors from all over, in upstream's sorted order.
    "sorted/many": {"type": "object", "properties": {
        "z": {"type": "array"}, "a": {}, "metadata": {"type": "object", "properties": {"labels": {}}},
        "kind": {"type": "integer"}, "m": {"type": "object", "anyOf": [{"type": "string"}],
                                           "properties": {"q": {"type": "string", "pattern": "(("}}}},
                   "anyOf": [{"properties": {"nope": {}}}]},
    # Accepted as they are.
    "ok/plain": _spec({"type": "object", "properties": {"replicas": {"type": "integer"}}}),
    "ok/int-or-string": _spec({"x-kubernetes-int-or-string": True}),
    "ok/preserve-root": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
}

# Cases whose schemas differ by version, where the errors are reported under each version's path.
VERSIONED_CASES: dict[str, list[Obj]] = {
    "versions/second-bad": [_spec({"type": "object"}), _spec({"type": "array"})],
    "versions/both-bad": [{"type": "string"}, _root(metadata={"type": "object", "properties": {"uid": {}}})],
    "versions/second-not-structural": [_spec({"type": "object"}), {"type": "object", "$schema": "x"}],
}


def crd(versions: list[Obj]) -> Obj:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "structurals.structural.example.com"},
        "spec": {
            "group": "structural.example.com",
            "scope": "Namespaced",
            "names": {"plural": "structurals", "singular": "structural", "kind": "Structural",
                      "listKind": "StructuralList"},
            "versions": [{"name": f"v{i + 1}", "served": True, "storage": i == 0,
                          "schema": {"openAPIV3Schema": schema}} for i, schema in enumerate(versions)],
        },
    }


def _answer(status: int, body: Any) -> Obj:
    if status < 300:
        return {"code": status}
    return {"code": status, "reason": body.get("reason"), "message": body.get("message"),
            "causes": (body.get("details") or {}).get("causes")}


def run(send: Send) -> dict[str, Obj]:
    """Every case's answer to a dry-run create."""
    answers: dict[str, Obj] = {}
    every = {**{name: [schema] for name, schema in CASES.items()}, **VERSIONED_CASES}
    for name, versions in every.items():
        answers[name] = _answer(*send("POST", f"{_CRDS}?dryRun=All", crd(versions), "application/json"))
    return answers
