"""CRDs whose schemas carry defaults, sent to a server (dry-run creates) to record how it judges them:
upstream's ValidateDefaults (apiextensions-apiserver/pkg/apiserver/schema/defaulting/validation.go).

Each case is one schema, most with one offending default (upstream walks properties in Go's random map
order, so an answer with several causes is compared with its causes sorted). Shared by
tools/capture_crd_defaults.py, which records the reference's answers in fixtures/crd_defaults.json,
and tests/test_crd_defaults.py, which holds ours to them.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from typing import Any

FIXTURE = "crd_defaults.json"
Send = Callable[[str, str, Any, str], tuple[int, Any]]
Schema = dict[str, Any]

_CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All"


def _obj(properties: Schema, **extra: Any) -> Schema:
    return {"type": "object", "properties": properties, **extra}


def _spec(properties: Schema, **extra: Any) -> Schema:
    """A root whose spec holds the given properties."""
    return _obj({"spec": _obj(properties, **extra)})


def _field(schema: Schema) -> Schema:
    """A root whose spec has one field, `f`, of the given schema."""
    return _spec({"f": schema})


def _embedded(default: Any, properties: Schema | None = None, **extra: Any) -> Schema:
    """A root whose spec.template is an embedded resource with the given default."""
    return _spec({"template": {"type": "object", "x-kubernetes-embedded-resource": True,
                               "properties": properties or {"spec": {"type": "object"}},
                               "default": default, **extra}})


def _ruled(schema: Schema, *rules: Schema) -> Schema:
    return _field({**schema, "x-kubernetes-validations": list(rules)})


_RESOURCE = {"apiVersion": "ex.com/v1", "kind": "Thing"}
_EMBEDDED = {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {"spec": {"type": "object"}}}

CASES: dict[str, Schema] = {
    # The value against its own level's schema: types, formats, enums, patterns and ranges.
    "integer-given-string": _field({"type": "integer", "default": "string"}),
    "string-given-integer": _field({"type": "string", "default": 5}),
    "boolean-given-string": _field({"type": "boolean", "default": "true"}),
    "number-given-string": _field({"type": "number", "default": "1.5"}),
    "integer-given-fraction": _field({"type": "integer", "default": 1.5}),
    "number-given-integer": _field({"type": "number", "default": 2}),
    "object-given-string": _field({"type": "object", "default": "x"}),
    "array-given-object": _field({"type": "array", "items": {"type": "string"}, "default": {}}),
    "date-time-malformed": _field({"type": "string", "format": "date-time", "default": "nope"}),
    "date-time-fine": _field({"type": "string", "format": "date-time", "default": "2024-01-02T03:04:05Z"}),
    "uuid-malformed": _field({"type": "string", "format": "uuid", "default": "not-a-uuid"}),
    "ipv4-malformed": _field({"type": "string", "format": "ipv4", "default": "1.2.3"}),
    "int32-out-of-range": _field({"type": "integer", "format": "int32", "default": 2**40}),
    "format-kept-for-integer": _field({"type": "integer", "format": "date", "default": True}),
    "enum-missed": _field({"type": "string", "enum": ["a", "b"], "default": "c"}),
    "enum-met": _field({"type": "string", "enum": ["a", "b"], "default": "b"}),
    "pattern-missed": _field({"type": "string", "pattern": "^[a-z]+$", "default": "ABC"}),
    "too-short": _field({"type": "string", "minLength": 3, "default": "ab"}),
    "too-long": _field({"type": "string", "maxLength": 3, "default": "abcd"}),
    "below-minimum": _field({"type": "integer", "minimum": 10, "default": 5}),
    "above-maximum": _field({"type": "integer", "maximum": 10, "default": 11}),
    "at-exclusive-maximum": _field({"type": "number", "maximum": 1, "exclusiveMaximum": True, "default": 1}),
    "at-exclusive-minimum": _field({"type": "integer", "minimum": 0, "exclusiveMinimum": True, "default": 0}),
    "not-a-multiple": _field({"type": "integer", "multipleOf": 3, "default": 7}),
    "too-few-items": _field({"type": "array", "items": {"type": "string"}, "minItems": 2, "default": ["a"]}),
    "too-many-items": _field({"type": "array", "items": {"type": "string"}, "maxItems": 1,
                              "default": ["a", "b"]}),
    "too-few-properties": _field({"type": "object", "additionalProperties": {"type": "string"},
                                  "minProperties": 2, "default": {"a": "x"}}),
    "too-many-properties": _field({"type": "object", "additionalProperties": {"type": "string"},
                                   "maxProperties": 1, "default": {"a": "x", "b": "y"}}),
    "required-missing": _field({"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}},
                                "default": {}}),
    "int-or-string-given-bool": _field({"x-kubernetes-int-or-string": True, "default": True}),
    "int-or-string-nested-given-bool": _field({"type": "object", "properties": {"p": {
        "x-kubernetes-int-or-string": True}}, "default": {"p": False}}),
    "int-or-string-fine": _field({"x-kubernetes-int-or-string": True, "default": "50%"}),
    "any-of-none-met": _field({"type": "string", "anyOf": [{"pattern": "^a"}, {"pattern": "^b"}], "default": "c"}),
    "any-of-one-met": _field({"type": "string", "anyOf": [{"pattern": "^a"}, {"pattern": "^c"}], "default": "c"}),
    "any-of-best-branch-told": _field({"type": "object", "properties": {"a": {"type": "integer"}},
                                       "anyOf": [{"required": ["b"]},
                                                 {"properties": {"a": {"minimum": 5}}, "required": ["c"]}],
                                       "default": {"a": 1}}),
    "one-of-none-met": _field({"type": "string", "oneOf": [{"pattern": "^a"}, {"maxLength": 1}], "default": "cc"}),
    "one-of-two-met": _field({"type": "string", "oneOf": [{"pattern": "^a"}, {"maxLength": 5}], "default": "ab"}),
    "one-of-one-met": _field({"type": "string", "oneOf": [{"pattern": "^a"}, {"maxLength": 1}], "default": "ab"}),
    "all-of-one-missed": _field({"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 3}], "default": 5}),
    "all-of-none-met": _field({"type": "integer", "allOf": [{"minimum": 10}, {"multipleOf": 3}], "default": 5}),
    "not-met": _field({"type": "string", "not": {"pattern": "^a"}, "default": "abc"}),
    "not-missed": _field({"type": "string", "not": {"pattern": "^a"}, "default": "bc"}),
    "composition-nested": _field({"type": "object", "properties": {"p": {"type": "string", "anyOf": [
        {"enum": ["x"]}, {"maxLength": 1}]}}, "default": {"p": "yy"}}),
    "int-or-string-any-of-given-bool": _field({"x-kubernetes-int-or-string": True, "anyOf": [
        {"type": "integer"}, {"type": "string"}], "default": True}),
    "null-default-skipped": _field({"type": "string", "default": None}),
    "nullable-null-default": _field({"type": "string", "nullable": True, "default": None}),
    # Nested: a default's own fields, and defaults in items and properties at any depth.
    "object-default-with-wrong-field": _field({"type": "object", "properties": {"a": {"type": "integer"}},
                                               "default": {"a": "x"}}),
    "object-default-with-several-wrong": _field({"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "string", "enum": ["x"]}}, "default": {"a": "x", "b": "y"}}),
    "items-default-wrong": _field({"type": "array", "items": {"type": "string", "default": 5}}),
    "items-object-default-wrong": _field({"type": "array", "items": {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1}}, "default": {"n": 0}}}),
    "items-property-default-wrong": _field({"type": "array", "items": {"type": "object", "properties": {
        "n": {"type": "integer", "default": "one"}}}}),
    "deep-property-default-wrong": _field({"type": "object", "properties": {"g": {"type": "object", "properties": {
        "h": {"type": "array", "items": {"type": "string", "pattern": "^x", "default": "y"}}}}}}),
    "array-default-with-wrong-item": _field({"type": "array", "items": {"type": "integer", "maximum": 3},
                                             "default": [1, 5]}),
    "two-defaults-wrong": _spec({"a": {"type": "integer", "default": "x"},
                                 "b": {"type": "string", "default": 1}}),
    "defaults-fine": _spec({"a": {"type": "integer", "default": 3}, "b": {"type": "object", "default": {},
                            "properties": {"c": {"type": "string", "default": "z"}}},
                            "d": {"type": "array", "items": {"type": "string"}, "default": ["x"]}}),
    "spec-default-fine": _obj({"spec": _obj({"a": {"type": "integer"}}, default={"a": 1})}),
    # Unknown fields: what pruning would take out.
    "unknown-field": _obj({"spec": _obj({"a": {"type": "integer"}}, default={"zz": 1})}),
    "unknown-field-in-items": _field({"type": "array", "items": {"type": "object", "properties": {
        "a": {"type": "string"}}}, "default": [{"a": "x", "b": "y"}]}),
    "unknown-field-nested": _field({"type": "object", "properties": {"a": {"type": "object", "properties": {
        "b": {"type": "string"}}}}, "default": {"a": {"c": "x"}}}),
    "unknown-field-kept-by-preserve": _field({"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                              "properties": {"a": {"type": "string"}},
                                              "default": {"a": "x", "b": {"c": 1}}}),
    "unknown-field-under-preserve-declared": _field({"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                                     "properties": {"a": {"type": "object", "properties": {
                                                         "b": {"type": "string"}}}},
                                                     "default": {"a": {"z": 1}}}),
    "additional-properties-keep-keys": _field({"type": "object", "additionalProperties": {"type": "object",
                                               "properties": {"a": {"type": "string"}}},
                                               "default": {"k": {"a": "x", "b": "y"}}}),
    "unknown-and-wrong": _field({"type": "object", "properties": {"a": {"type": "integer"}},
                                 "default": {"a": "x", "zz": 1}}),
    # The root's default: a resource, so apiVersion and kind are required.
    "root-default-unknown": {"type": "object", "default": {"spec": {}}},
    "root-default-no-type-meta": _obj({"spec": _obj({})}, default={"spec": {}}),
    "root-default-fine": _obj({"spec": _obj({"a": {"type": "integer"}})},
                              default={**_RESOURCE, "spec": {"a": 1}}),
    "root-default-bad-kind": _obj({"spec": _obj({})}, default={"apiVersion": "ex.com/v1", "kind": "a b"}),
    "root-default-bad-api-version": _obj({"spec": _obj({})}, default={"apiVersion": "a/b/c", "kind": "Thing"}),
    "root-default-empty-kind": _obj({"spec": _obj({})}, default={"apiVersion": "ex.com/v1", "kind": ""}),
    "root-default-kind-not-string": _obj({"spec": _obj({})}, default={"apiVersion": "ex.com/v1", "kind": 5}),
    "root-default-metadata-wrong": _obj({"spec": _obj({})}, default={**_RESOURCE, "metadata": {"labels": "x"}}),
    "root-default-metadata-bad-name": _obj({"spec": _obj({})}, default={**_RESOURCE, "metadata": {"name": "a/b"}}),
    "root-default-metadata-unknown": _obj({"spec": _obj({})}, default={**_RESOURCE, "metadata": {"zz": 1}}),
    # Defaults of the root's type and object meta, judged inside a resource made around them.
    "root-name-default-bad": _obj({"metadata": {"type": "object", "properties": {
        "name": {"type": "string", "default": "a/b"}}}}),
    "root-name-default-fine": _obj({"metadata": {"type": "object", "properties": {
        "name": {"type": "string", "default": "fine"}}}}),
    "root-generate-name-default-bad": _obj({"metadata": {"type": "object", "properties": {
        "generateName": {"type": "string", "default": "a%"}}}}),
    "root-name-default-wrong-type": _obj({"metadata": {"type": "object", "properties": {
        "name": {"type": "string", "default": 5}}}}),
    "root-name-default-too-long": _obj({"metadata": {"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 3, "default": "abcd"}}}}),
    "root-metadata-default-bad-labels": _obj({"metadata": {"type": "object", "default": {
        "labels": {"a b": "c"}}}}),
    "root-metadata-default-labels-not-map": _obj({"metadata": {"type": "object", "default": {"labels": "x"}}}),
    "root-metadata-default-fine": _obj({"metadata": {"type": "object", "default": {"labels": {"a": "b"}}}}),
    "root-metadata-default-namespace": _obj({"metadata": {"type": "object", "default": {"namespace": "Bad_NS"}}}),
    "root-metadata-default-bad-time": _obj({"metadata": {"type": "object", "default": {
        "creationTimestamp": "yesterday"}}}),
    "root-metadata-default-generation": _obj({"metadata": {"type": "object", "default": {"generation": -1}}}),
    "root-metadata-default-not-object": _obj({"metadata": {"type": "object", "default": "x"}}),
    "root-kind-default-bad": _obj({"kind": {"type": "string", "default": "a b"}}),
    "root-kind-default-empty": _obj({"kind": {"type": "string", "default": ""}}),
    "root-api-version-default-bad": _obj({"apiVersion": {"type": "string", "default": "a/b/c"}}),
    "root-api-version-default-fine": _obj({"apiVersion": {"type": "string", "default": "ex.com/v1"}}),
    # Embedded resources: their own type and object meta, and the defaults inside them.
    "embedded-default-fine": _embedded({**_RESOURCE, "metadata": {"labels": {"a": "b"}}, "spec": {}}),
    # written back as the ObjectMeta it decodes to: unknown fields gone, times in UTC
    "embedded-default-metadata-coerced": _embedded({**_RESOURCE, "metadata": {
        "name": "n", "zz": 1, "creationTimestamp": "2024-05-01T10:00:00+02:00", "namespace": ""}, "spec": {}}),
    "embedded-default-no-kind": _embedded({"apiVersion": "v1", "spec": {}}),
    "embedded-default-no-type-meta": _embedded({"spec": {}}),
    "embedded-default-api-version-not-string": _embedded({"apiVersion": 5, "kind": "Thing"}),
    "embedded-default-empty-api-version": _embedded({"apiVersion": "", "kind": "Thing"}),
    "embedded-default-bad-kind": _embedded({"apiVersion": "v1", "kind": "1abc"}),
    "embedded-default-labels-not-map": _embedded({**_RESOURCE, "metadata": {"labels": "x"}}),
    "embedded-default-label-value-not-string": _embedded({**_RESOURCE, "metadata": {"labels": {"a": 1}}}),
    "embedded-default-metadata-not-object": _embedded({**_RESOURCE, "metadata": "x"}),
    "embedded-default-bad-name": _embedded({**_RESOURCE, "metadata": {"name": "a/b"}}),
    "embedded-default-bad-namespace": _embedded({**_RESOURCE, "metadata": {"namespace": "Bad_NS"}}),
    "embedded-default-bad-annotation": _embedded({**_RESOURCE, "metadata": {"annotations": {"a b": "c"}}}),
    "embedded-default-bad-finalizer": _embedded({**_RESOURCE, "metadata": {"finalizers": ["a b"]}}),
    "embedded-default-generation-string": _embedded({**_RESOURCE, "metadata": {"generation": "1"}}),
    "embedded-default-bad-time": _embedded({**_RESOURCE, "metadata": {"creationTimestamp": "2024"}}),
    "embedded-default-unknown-field": _embedded({**_RESOURCE, "zz": 1}),
    "embedded-default-metadata-unknown": _embedded({**_RESOURCE, "metadata": {"zz": 1}}),
    "embedded-default-wrong-spec": _embedded({**_RESOURCE, "spec": "x"}),
    "embedded-list-default-bad-metadata": _field({"type": "array", "items": _EMBEDDED,
                                                  "default": [{**_RESOURCE, "metadata": {"labels": "x"}}]}),
    "embedded-list-default-no-kind": _field({"type": "array", "items": _EMBEDDED, "default": [{"apiVersion": "v1"}]}),
    "embedded-map-default-no-kind": _field({"type": "object", "additionalProperties": _EMBEDDED,
                                            "default": {"k": {"apiVersion": "v1"}}}),
    "embedded-in-embedded-default-no-kind": _spec({"template": {
        "type": "object", "x-kubernetes-embedded-resource": True, "properties": {"inner": _EMBEDDED},
        "default": {**_RESOURCE, "inner": {"apiVersion": "v1", "spec": {}}}}}),
    "embedded-preserving-default": _spec({"template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                                       "x-kubernetes-preserve-unknown-fields": True,
                                                       "default": {**_RESOURCE, "zz": {"a": 1}}}}),
    "embedded-name-default-bad": _spec({"template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                                     "properties": {"metadata": {"type": "object", "properties": {
                                                         "name": {"type": "string", "default": "a/b"}}}}}}),
    "embedded-labels-default-bad": _spec({"template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                                       "properties": {"metadata": {"type": "object", "properties": {
                                                           "labels": {"type": "object", "additionalProperties": {
                                                               "type": "string"}, "default": {"a": "b c"}}}}}}}),
    "embedded-kind-default-bad": _spec({"template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                                     "properties": {"kind": {"type": "string", "default": "a_b"}}}}),
    "embedded-finalizer-item-default-bad": _spec({"template": {
        "type": "object", "x-kubernetes-embedded-resource": True, "properties": {"metadata": {
            "type": "object", "properties": {"finalizers": {"type": "array", "items": {
                "type": "string", "default": "a b"}}}}}}}),
    "embedded-in-items-default-bad": _field({"type": "array", "items": {
        "type": "object", "x-kubernetes-embedded-resource": True, "properties": {"spec": {"type": "object"}},
        "default": {"spec": {}}}}),
    "embedded-inner-default-wrong": _spec({"template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                                        "properties": {"spec": _obj({"n": {
                                                            "type": "integer", "default": "x"}})}}}),
    # x-kubernetes-validations of the default's level and below it, run on the default.
    "rule-fails": _ruled({"type": "string", "default": "abc"}, {"rule": "self.size() < 2"}),
    "rule-passes": _ruled({"type": "string", "default": "a"}, {"rule": "self.size() < 2"}),
    "rule-message": _ruled({"type": "integer", "default": 1}, {"rule": "self > 5", "message": "must be big"}),
    "rule-message-expression": _ruled({"type": "integer", "default": 1},
                                      {"rule": "self > 5", "messageExpression": "'got ' + string(self)"}),
    "rule-reason-and-field-path": _ruled({"type": "object", "properties": {"a": {"type": "integer"}},
                                          "default": {"a": 1}},
                                         {"rule": "self.a > 5", "reason": "FieldValueForbidden",
                                          "fieldPath": ".a"}),
    "rule-reason-required": _ruled({"type": "string", "default": "x"},
                                   {"rule": "self == 'y'", "reason": "FieldValueRequired"}),
    "rule-on-object-default": _ruled({"type": "object", "properties": {"a": {"type": "integer"}},
                                      "default": {"a": 1}}, {"rule": "self.a > 5"}),
    "rule-on-array-default": _ruled({"type": "array", "items": {"type": "integer"}, "default": [1]},
                                    {"rule": "self.size() > 1"}),
    "two-rules-fail": _ruled({"type": "integer", "default": 1}, {"rule": "self > 5"}, {"rule": "self > 7"}),
    "rule-below-default": _field({"type": "object", "default": {"a": 1}, "properties": {
        "a": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 5"}]}}}),
    "rule-in-items-below-default": _field({"type": "array", "default": [1, 9], "items": {
        "type": "integer", "x-kubernetes-validations": [{"rule": "self > 5"}]}}),
    "rule-transition-passes": _ruled({"type": "string", "default": "a"}, {"rule": "self == oldSelf"}),
    "rule-transition-fails": _ruled({"type": "string", "default": "a"}, {"rule": "self != oldSelf"}),
    "rule-transition-and-plain-fail": _ruled({"type": "string", "default": "a"}, {"rule": "self != oldSelf"},
                                             {"rule": "self == 'b'"}),
    "rule-transition-in-atomic-map": _field({"type": "object", "x-kubernetes-map-type": "atomic",
                                             "default": {"a": "x"}, "properties": {"a": {
                                                 "type": "string",
                                                 "x-kubernetes-validations": [{"rule": "self != oldSelf"}]}}}),
    "rule-optional-old-self-absent": _ruled({"type": "string", "default": "a"},
                                            {"rule": "oldSelf.hasValue()", "optionalOldSelf": True}),
    "rule-optional-old-self-fine": _ruled({"type": "string", "default": "a"},
                                          {"rule": "!oldSelf.hasValue() || oldSelf.value() == self",
                                           "optionalOldSelf": True}),
    "rule-runtime-error": _ruled({"type": "object", "additionalProperties": {"type": "string"},
                                  "default": {"a": "x"}}, {"rule": "self['b'] == 'x'"}),
    "rule-not-compiling": _ruled({"type": "string", "default": "a"}, {"rule": "self.nope()"}),
    "rule-not-compiling-without-default": _field({"type": "string",
                                                  "x-kubernetes-validations": [{"rule": "self.nope()"}]}),
    "root-rule-on-root-default": _obj({"spec": _obj({"a": {"type": "integer"}})},
                                      default={**_RESOURCE, "spec": {"a": 1}},
                                      **{"x-kubernetes-validations": [{"rule": "self.spec.a > 5"}]}),
    "root-rule-reads-kind": _obj({"spec": _obj({})}, default={**_RESOURCE, "spec": {}},
                                 **{"x-kubernetes-validations": [{"rule": "self.kind == 'Other'"}]}),
    "embedded-rule-reads-kind": _embedded({**_RESOURCE, "spec": {}},
                                          **{"x-kubernetes-validations": [{"rule": "self.kind == 'Other'"}]}),
    "rule-on-metadata-default-level": _obj({"metadata": {"type": "object", "properties": {
        "name": {"type": "string", "default": "abc",
                 "x-kubernetes-validations": [{"rule": "self.size() < 2"}]}}}}),
    "schema-error-before-rule": _ruled({"type": "integer", "default": "x"}, {"rule": "self > 5"}),
}


# Custom objects meet the same validator (kube-openapi's) without the formats their types do not
# support, and with x-kubernetes-int-or-string as integer or string; its compositions are theirs too.
COMPOSED_SCHEMA = _spec({
    "choice": {"type": "string", "anyOf": [{"pattern": "^a"}, {"pattern": "^b"}]},
    "only": {"type": "string", "oneOf": [{"pattern": "^a"}, {"maxLength": 5}]},
    "both": {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 3}]},
    "never": {"type": "string", "not": {"pattern": "^a"}},
    "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
    "ref": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
})
COMPOSED_OBJECTS: dict[str, Any] = {
    "all-met": {"choice": "abc", "only": "abcdef", "both": 2, "never": "b", "port": "50%", "ref": {"a": 1}},
    "any-of-missed": {"choice": "c"},
    "one-of-two-met": {"only": "ab"},
    "one-of-none-met": {"only": "bcdefg"},
    "all-of-missed": {"both": 5},
    "not-met": {"never": "abc"},
    "int-or-string-given-bool": {"port": True},
    "required-branches-missed": {"ref": {}},
    "several-missed": {"choice": "c", "both": 0, "ref": {}},
}


def crd(name: str, schema: Schema) -> dict[str, Any]:
    plural = f"d{zlib.crc32(name.encode())}s"
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.ex.com"},
            "spec": {"group": "ex.com", "scope": "Namespaced",
                     "names": {"plural": plural, "kind": "Thing"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


def _two_versions(name: str) -> dict[str, Any]:
    """Schemas that differ by version stay in their versions: the paths name them."""
    body = crd(name, _field({"type": "integer", "default": "x"}))
    second = {"name": "v2", "served": True, "storage": False,
              "schema": {"openAPIV3Schema": _field({"type": "string", "default": "fine"})}}
    body["spec"]["versions"].append(second)
    return body


def _defaults(schema: Any, path: str = "") -> dict[str, Any]:
    """The defaults of a stored schema by their level's path: upstream stores a default as its
    validation coerced it."""
    if not isinstance(schema, dict):
        return {}
    found = {path or ".": schema["default"]} if "default" in schema else {}
    for key, sub in (schema.get("properties") or {}).items():
        found |= _defaults(sub, f"{path}.{key}")
    return found | _defaults(schema.get("items"), f"{path}[]")


def _answer(status: int, body: Any) -> dict[str, Any]:
    if status < 300:
        versions = body.get("spec", {}).get("versions") or [{}]
        stored = _defaults((versions[0].get("schema") or {}).get("openAPIV3Schema"))
        return {"code": status, **({"defaults": stored} if stored else {})}
    details = body.get("details") or {}
    causes = sorted(details.get("causes") or [], key=lambda c: (c.get("field", ""), c.get("message", "")))
    return {"code": status, "reason": body.get("reason"),
            "message": body.get("message") if len(causes) < 2 else None, "causes": causes}


def run(send: Send) -> dict[str, dict[str, Any]]:
    """Every case's answer: code, and for a refusal the reason, the causes (sorted: upstream's order of
    properties is a Go map's) and the message (when it has one cause, so its order is fixed)."""
    answers = {}
    bodies = {name: crd(name, schema) for name, schema in CASES.items()}
    bodies["per-version-schemas"] = _two_versions("per-version-schemas")
    for name, body in bodies.items():
        status, answer = send("POST", _CRDS, body, "application/json")
        answers[name] = _answer(status, answer)
    answers.update(_composed_objects(send))
    return answers


def _composed_objects(send: Send) -> dict[str, dict[str, Any]]:
    """Custom objects of a CRD whose spec composes schemas, created once its names are accepted."""
    body = crd("composed", COMPOSED_SCHEMA)
    plural = body["spec"]["names"]["plural"]
    send("POST", _CRDS.split("?")[0], body, "application/json")
    path = f"/apis/ex.com/v1/namespaces/default/{plural}?dryRun=All"
    answers = {}
    for name, spec in COMPOSED_OBJECTS.items():
        thing = {"apiVersion": "ex.com/v1", "kind": "Thing", "metadata": {"name": name}, "spec": spec}
        for _ in range(200):  # until the CRD is served
            status, answer = send("POST", path, thing, "application/json")
            if status != 404:
                break
            time.sleep(0.05)
        answers[f"object/{name}"] = _answer(status, answer)
    send("DELETE", f"{_CRDS.split('?')[0]}/{body['metadata']['name']}", None, "")
    return answers
