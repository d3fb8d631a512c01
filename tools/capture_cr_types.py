"""Records how kube-apiserver judges a custom resource's values against the types, formats and numeric
ranges of its CRD's schema: values of every JSON kind sent to fields of each type and format, numbers
at the edges of int32, int64 and float, bounds and factors of the wrong kind, and nulls (those of a
field neither nullable nor defaulted are dropped before validation, upstream's
PruneNonNullableNullsWithoutDefaults).

Usage: python tools/capture_cr_types.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Every write is a dry run in a namespace of its own: creates, updates of one stored Probe, and
server-side applies. The answer kept is the status, the Status of a refusal (or the spec of a success)
and the Warning lines. The CRD is made afresh, so that a reference keeps no schema of an earlier run.
tests/test_cr_types.py holds ours to them (apiserver/kinds/schemavalidator.py, crschema.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import capture_patch_decoding as patching  # its sender and fixture writer serve here too

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "cr_types.json")

NAMESPACE = "crtypes"
GROUP = "crtypes.example.io"
COLLECTION = f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/probes"
JSON = "application/json"
APPLY = "application/apply-patch+yaml"

FIELDS: dict[str, dict[str, Any]] = {
    "when": {"type": "string", "format": "date-time"},
    "nwhen": {"type": "string", "format": "date-time", "nullable": True},
    "day": {"type": "string", "format": "date"},
    "id": {"type": "string", "format": "uuid"},
    "secret": {"type": "string", "format": "password"},  # kept, and any string passes
    "odd": {"type": "string", "format": "bogus"},  # an unsupported format, stripped
    "str": {"type": "string"},
    "short": {"type": "string", "maxLength": 2, "minLength": 1, "pattern": "^a"},
    "flag": {"type": "boolean"},
    "i32": {"type": "integer", "format": "int32"},
    "i64": {"type": "integer", "format": "int64"},
    "int": {"type": "integer"},
    "u32": {"type": "integer", "format": "uint32"},  # stripped: only int32 and int64 stay on an integer
    "num": {"type": "number"},
    "flt": {"type": "number", "format": "float"},
    "dbl": {"type": "number", "format": "double"},
    "bounded": {"type": "integer", "minimum": 1, "maximum": 10},
    "xbounded": {"type": "number", "minimum": 0.5, "maximum": 2.5, "exclusiveMinimum": True,
                 "exclusiveMaximum": True},
    "ibound": {"type": "integer", "minimum": -1.5, "maximum": 2.5},
    "i32big": {"type": "integer", "format": "int32", "maximum": 3000000000},
    "fltbig": {"type": "number", "format": "float", "minimum": -1e39},
    "mult": {"type": "number", "multipleOf": 0.5},
    "imult": {"type": "integer", "multipleOf": 3},
    "fmult": {"type": "integer", "multipleOf": 1.5},
    "obj": {"type": "object", "properties": {"a": {"type": "string"}}},
    "list": {"type": "array", "items": {"type": "string"}},
    "dlist": {"type": "array", "items": {"type": "string", "default": "d"}},
    "nlist": {"type": "array", "items": {"type": "string", "nullable": True}},
    "def": {"type": "string", "default": "d"},
    "ios": {"x-kubernetes-int-or-string": True},
    "nios": {"x-kubernetes-int-or-string": True, "nullable": True},
    "choice": {"type": "string", "enum": ["a", "b"]},
    "nchoice": {"type": "string", "enum": ["a"], "nullable": True},
    "ichoice": {"type": "integer", "enum": [1, 2]},
    "names": {"type": "object", "additionalProperties": {"type": "string"}},
    "few": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 3},
    "one": {"type": "array", "items": {"type": "string"}, "maxItems": 1},
    "props": {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1, "maxProperties": 2},
    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
}

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": f"probes.{GROUP}"},
       "spec": {"group": GROUP, "scope": "Namespaced",
                "names": {"plural": "probes", "singular": "probe", "kind": "Probe"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": FIELDS}}}}}]}}
STORED = {"apiVersion": f"{GROUP}/v1", "kind": "Probe", "metadata": {"name": "stored"}, "spec": {"str": "x"}}

# Values of every JSON kind, as the body spells them (a number's text decides how it decodes).
_KINDS = ["null", "true", '"x"', "5", "1.5", "2.0", "[1]", '["x"]', '{"a":1}']
_EDGES: dict[str, list[str]] = {
    "when": ['"2024-01-02T03:04:05Z"', '"2024-13-02T03:04:05Z"', '"x\\u0001\\u00e9"'],
    "day": ['"2024-02-30"', '"2024-02-03"'],
    "id": ['"123e4567-e89b-12d3-a456-426614174000"', '"nope"'],
    "i32": ["2147483647", "2147483648", "-2147483648", "-2147483649", "3000000000", "1e3", "2.5e9", "-0.0"],
    "i64": ["9223372036854775807", "9223372036854775808", "-9223372036854775809", "1e19", "1e3"],
    "int": ["9223372036854775808", "1e20", "1e3"],
    "u32": ["-1", "5000000000"],
    "num": ["1e308", "-0.0"],
    "flt": ["3.4028234e38", "3.5e38", "1e39", "-1e39", "1e-50", "123456789"],
    "dbl": ["1e308"],
    "bounded": ["0", "1", "10", "11", "10.5", "0.5"],
    "xbounded": ["0.5", "2.5", "1", "3"],
    "ibound": ["-2", "-1", "2", "3", "2.5", "-1.5"],
    "i32big": ["2147483648", "3000000001"],
    "fltbig": ["-1e40"],
    "mult": ["1", "1.25", "0.5", "3"],
    "imult": ["6", "7", "6.0", "7.5"],
    "fmult": ["3", "4", "4.5"],
    "obj": ['{"a":null}', '{"a":5}'],
    "list": ["[null]", '[1,"x",true]'],
    "dlist": ["[null]", '["x",null]'],
    "nlist": ["[null]"],
    "ios": ['"5"', "5.5"],
    "choice": ['"a"', '"c"', "97"],  # an int64 converts to the string of its code point
    "nchoice": ['"a"', '"b"'],
    "ichoice": ["1", "1.0", "3", '"1"'],
    "names": ['{"k":null}', '{"k":1}'],
    "few": ['["a","b","c","d"]', '["a","b"]'],
    "one": ['["a","b"]'],
    "props": ["{}", '{"a":"1","b":"2","c":"3"}', '{"a":"1"}'],
    "free": ['{"k":null}', '{"k":{"j":null}}'],
    "short": ['"abcd"', '""', '"b"', '"bcde"'],
}
_UPDATED = ["when", "nwhen", "i32", "flt", "def", "obj", "list", "names"]
# An apply's values are typed against the schema before any validation (a string where a number goes
# fails there, answered 500); these are the ones that get through to the validator. Read as YAML, 2.0 is
# an int64.
_NUMBERS = ["null", "5", "1.5", "2.0"]
_APPLIED: dict[str, list[str]] = {
    "when": _NUMBERS + ["true", '"x"'], "nwhen": _NUMBERS + ["true", '"x"'], "i32": _NUMBERS,
    "int": _NUMBERS, "flt": _NUMBERS, "def": ["null", '"x"'], "list": ["null", '["x"]'], "obj": ["null"],
}
_WHOLE = ["null", "5", "[]"]


def _body(name: str, spec: str, resource_version: str = "") -> bytes:
    version = f',"resourceVersion":"{resource_version}"' if resource_version else ""
    return (f'{{"apiVersion":"{GROUP}/v1","kind":"Probe","metadata":{{"name":"{name}"{version}}},'
            f'"spec":{spec}}}').encode()


def cases() -> list[tuple[str, str, str]]:
    """(case name, how it is written: create, update or apply, the spec's JSON text)."""
    found = [(f"create {field} {value}", "create", f'{{"{field}":{value}}}')
             for field in FIELDS for value in _KINDS + _EDGES.get(field, [])]
    found += [(f"update {field} {value}", "update", f'{{"{field}":{value}}}')
              for field in _UPDATED for value in _KINDS]
    found += [(f"apply {field} {value}", "apply", f'{{"{field}":{value}}}')
              for field, values in _APPLIED.items() for value in values]
    found += [(f"create spec {value}", "create", value) for value in _WHOLE]
    return found


CASES = cases()


def prepare(send: patching.Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)
    status, body, _ = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           json.dumps(CRD).encode(), JSON)
    assert status in (201, 409), body
    deadline = time.monotonic() + 60
    while True:  # served once the CRD is established and its handler installed
        status, body, _ = send("POST", COLLECTION, json.dumps(STORED).encode(), JSON)
        if status in (201, 409) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert status in (201, 409), body


def answer(send: patching.Send, index: int) -> dict[str, Any]:
    """One case's answer: the status, the Status of a refusal (the spec of a success) and the Warning lines."""
    _, how, spec = CASES[index]
    if how == "create":
        status, reply, warnings = send("POST", COLLECTION + "?dryRun=All", _body("created", spec), JSON)
    elif how == "update":
        _, stored, _ = send("GET", COLLECTION + "/stored", None, JSON)
        body = _body("stored", spec, stored["metadata"]["resourceVersion"])
        status, reply, warnings = send("PUT", COLLECTION + "/stored?dryRun=All", body, JSON)
    else:
        status, reply, warnings = send("PATCH", COLLECTION + "/applied?dryRun=All&fieldManager=probe",
                                       _body("applied", spec), APPLY)
    if 200 <= status < 300 and isinstance(reply, dict):
        reply = {"spec": reply.get("spec")}
    return {"status": status, "body": reply, "warnings": warnings}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    patching.forget_crd(send, CRD["metadata"]["name"])
    prepare(send)
    answers = {name: answer(send, i) for i, (name, *_) in enumerate(CASES)}
    patching.record(FIXTURE, answers)


if __name__ == "__main__":
    main(sys.argv[1])
