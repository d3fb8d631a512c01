"""YAML request bodies read as kube-apiserver reads them (sigs.k8s.io/yaml over go-yaml v2), not as PyYAML would."""

from __future__ import annotations

import json

import pytest
import yaml
from support import ServerProcess

from apiserver.wire.goyaml import load_first_document, plain_scalar

CM_PATH = "/api/v1/namespaces/default/configmaps"


@pytest.mark.parametrize("text, value", [
    ("=", "="),  # PyYAML's YAML 1.1 "value" type, which its safe loader refuses
    ("y", True), ("Y", True), ("yes", True), ("On", True), ("TRUE", True),
    ("n", False), ("N", False), ("no", False), ("OFF", False), ("false", False),
    ("~", None), ("null", None), ("NULL", None),
    ("12:30", "12:30"),  # no base-60 numbers in go-yaml
    ("1e3", 1000.0), ("1.5e3", 1500.0), (".5", 0.5), ("-.5e1", -5.0),  # PyYAML: 1e3 and 1.5e3 are strings
    ("0o17", 15), ("0X1F", 31), ("017", 15), ("-0b11", -3), ("+5", 5), ("1_000", 1000),
    ("08", 8.0),  # not octal, so Go reads it as a float
    ("2001-12-14", "2001-12-14"), ("2001-12-14T21:59:43Z", "2001-12-14T21:59:43Z"),
    ("0x", "0x"), ("1.2.3", "1.2.3"), ("-", "-"), ("yess", "yess"), ("True_", "True_"),
])
def test_plain_scalars_resolve_as_go_yaml_v2(text: str, value: object) -> None:
    resolved = plain_scalar(text)
    assert resolved == value and type(resolved) is type(value)


def test_quoted_and_tagged_scalars_keep_their_text() -> None:
    assert load_first_document(b"a: 'y'\nb: \"=\"\nc: !!str 12:30\nd: !Ref web\ne: !!timestamp 2001-12-14\n") == {
        "a": "y", "b": "=", "c": "12:30", "d": "web", "e": "2001-12-14"}


def test_unknown_tags_are_ignored_and_binary_is_decoded() -> None:
    assert load_first_document(b"s: !!set {a, b}\nm: !Thing {x: 1}\nl: !List [1]\nb: !!binary aGVsbG8=\n") == {
        "s": {"a": None, "b": None}, "m": {"x": 1}, "l": [1], "b": "hello"}


def test_only_the_first_document_is_read() -> None:
    assert load_first_document(b"a: 1\n---\nb: [unclosed\n") == {"a": 1}
    assert load_first_document(b"") is None


def create_yaml(server: ServerProcess, path: str, document: str) -> tuple[int, dict]:
    status, raw = server.request("POST", path, document.encode(), content_type="application/yaml")
    return status, json.loads(raw)


def test_a_crd_whose_enum_holds_a_bare_equals_sign_is_created(shared_server: ServerProcess) -> None:
    document = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: matchers.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: matchers, singular: matcher, kind: Matcher}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              operator:
                type: string
                enum:
                - =
                - '!='
                - =~
"""
    status, created = create_yaml(shared_server, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", document)
    assert status == 201, created
    enum = created["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"][
        "operator"]["enum"]
    assert enum == ["=", "!=", "=~"]


def test_yes_and_no_and_y_are_booleans_where_go_yaml_reads_them_so(shared_server: ServerProcess) -> None:
    # ConfigMap data holds strings: an unquoted y is a boolean to go-yaml, so the write is refused as upstream's is.
    status, refused = create_yaml(shared_server, CM_PATH, "metadata: {name: flags}\ndata: {enabled: y}\n")
    assert (status, refused["reason"]) == (400, "BadRequest"), refused
    assert "cannot unmarshal bool into Go struct field" in refused["message"]
    assert shared_server.json("GET", CM_PATH + "/flags")[0] == 404
    status, created = create_yaml(shared_server, CM_PATH,
                                  "metadata: {name: flags, labels: {'y': 'n'}}\ndata: {at: 12:30, eq: =, big: '1e3'}\n")
    assert status == 201, created
    assert created["data"] == {"at": "12:30", "eq": "=", "big": "1e3"}
    assert created["metadata"]["labels"] == {"y": "n"}


def test_a_whole_float_is_an_integer_once_converted(shared_server: ServerProcess) -> None:
    document = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: floaty}
spec:
  replicas: 2.0
  revisionHistoryLimit: 1e1
  selector: {matchLabels: {app: floaty}}
  template:
    metadata: {labels: {app: floaty}}
    spec: {containers: [{name: c, image: nginx}]}
"""
    status, created = create_yaml(shared_server, "/apis/apps/v1/namespaces/default/deployments", document)
    assert status == 201, created
    assert (created["spec"]["replicas"], created["spec"]["revisionHistoryLimit"]) == (2, 10)


def test_number_keys_are_spelt_as_go_spells_a_float32() -> None:
    assert load_first_document(b"{1e300: a, -1e300: b, 1e6: c, 0.1: d, 1e-50: e, 100000.0: f}") == {
        ".inf": "a", "-.inf": "b", "1e+06": "c", "0.1": "d", "0": "e", "100000": "f"}


def test_merge_keys_apply_where_they_stand_as_in_go_yaml() -> None:
    assert load_first_document(b"base: &b {a: 1, b: 1}\nm: {a: 0, <<: *b, b: 2}\n")["m"] == {"a": 1, "b": 2}
    assert load_first_document(b"m: {<<: [{a: first}, {a: second, c: 3}]}\n")["m"] == {"a": "first", "c": 3}
    assert load_first_document(b"m: {'<<': {a: 1}}\n")["m"] == {"<<": {"a": 1}}


def test_a_merge_of_something_other_than_maps_is_400(shared_server: ServerProcess) -> None:
    status, refused = create_yaml(shared_server, CM_PATH, "metadata: {name: merged}\ndata: {<<: [a, b]}\n")
    assert (status, refused["reason"]) == (400, "BadRequest")
    assert "map merge requires map or sequence of maps as the value" in refused["message"]


def test_a_map_merging_itself_is_refused() -> None:
    with pytest.raises(yaml.YAMLError, match="an anchor's value contains itself"):
        load_first_document(b"a: &a {<<: *a, b: 1}\n")
