"""Records how kube-apiserver reads YAML bodies it cannot turn into an object: go-yaml's syntax errors
(with the line its parser names), its refusals of tags, anchors and keys, and sigs.k8s.io/yaml's of
what JSON cannot hold; each as a create's body (application/yaml) and as a server-side apply's.

Usage: python tools/capture_yaml_bodies.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Every request is a dry run, against ConfigMaps in their own namespace. tests/test_yaml_bodies.py holds
ours to the answers (apiserver/wire/goyaml.py, apiserver/wire/bodies.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import capture_patch_decoding as patching  # its sender and record serve here too

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "yaml_bodies.json")
NAMESPACE = "yamlbodies"
CONFIGMAPS = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
_CM = b"apiVersion: v1\nkind: ConfigMap\n"
_LAUGHS = b"a: &a [x, x, x, x, x, x, x, x, x]\n" + b"".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]\n".encode()
    for previous, name in zip("abcdefgh", "bcdefghi"))

DOCUMENTS: list[bytes] = [
    # libyaml's scanner and parser, each line rule of go-yaml's parser.fail()
    b"a: b: c", _CM + b"metadata:\n  - b\n name: d", b"{a: 1", b"[1, 2", b'a: "x', b"\t a: 1", b"a: @x",
    _CM + b"b", b"- a\nb: 1", b"a: 'x", b"a:\n  b: 1\n c: 2", b"a: [1, 2}", b"a: {b: 1]", b"a: |\n  x\n y",
    b"a: >-\n  x\n\tb", b'a: "\\x4"', b'a: "\\u12"', b'a: "\\ud800"', b"a: [b, c", b"a: {b: c", b'"a\nb": 1: 2',
    b"a: b\n  c: d", _CM + b'metadata:\n  name: x\ndata:\n  k: "a\\qb"', b"%YAML 1.3\n---\na: 1",
    b"%FOO bar\n---\na: 1", b"a: !e!x 1",
    # the reader
    b"\xff\xfe\x00", b"a: \x01", b"a: 1\n\xc3(", b"a: \xed\xa0\x80", b"\xef\xbb\xbfa: 1",
    # anchors and aliases
    b"a: *nope", b"&a a: &b b\n*a : *c", b"a: &x 1\nb: &x 2\nc: *x", b'a: &x 1\nb: &x 2\nc: *x\nd: "x',
    b"a: &x [*x]", b"<<: 5", _LAUGHS,
    # tags
    b"a: !!int x", b"a: !!int 1.5", b'a: !!int "1"', b"a: !!int 0x1F", b"a: !!int 2001-01-01", b"a: !!float x",
    b"a: !!float 1", b"a: !!str 1", b"a: !!bool 1", b"a: !!bool maybe", b"a: !!null x", b'a: !!null ""',
    b"a: !!timestamp x", b"a: !!timestamp 2001-02-03", b'a: !!binary "@@@"', b"a: !!map x", b"a: !!seq x",
    b"a: !!str [1]", b"a: !custom 5", b"a: !<tag:x> 1",
    # keys and values JSON cannot hold
    b"!!map {a: 1}: 2", b"[1, 2]: 3", b"{a: [1, {b: ~}], c: x}: 1", b"~: 1", b"a: .nan", b"a: .inf", b"a: -.inf",
    b"a: 1e400", b"a: 99999999999999999999", b"a: 1\na: 2", b"? a\n? b\n: c", b'{"a": 1,}', b"a: 0x",
    # not an object, or no document
    b"x", b"5", b'"a"', b"- a\n - b", b"null", b"", b"---\n---", b"key: value\n---\nother: 1", b"a: 1\n...\nb: 2",
]


def prepare(send: patching.Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), "application/json")


def answer(send: patching.Send, document: bytes) -> dict[str, Any]:
    """The create's and the apply's status and message."""
    status, reply, _ = send("POST", f"{CONFIGMAPS}?dryRun=All", document, "application/yaml")
    applied, applied_reply, _ = send("PATCH", f"{CONFIGMAPS}/applied?dryRun=All&fieldManager=m", document,
                                     "application/apply-patch+yaml")
    return {"create": [status, reply.get("message") if isinstance(reply, dict) else reply],
            "apply": [applied, applied_reply.get("message") if isinstance(applied_reply, dict) else applied_reply]}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {document.hex(): answer(send, document) for document in DOCUMENTS})


if __name__ == "__main__":
    main(sys.argv[1])
