"""Records how kube-apiserver decodes PATCH bodies: each patch type, under each fieldValidation
directive, sent bodies that are not what the type takes, that carry unknown or repeated fields, or
whose operations fail.

Usage: python tools/capture_patch_decoding.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Every patch is a dry run against one ConfigMap, so each case sees the same object; the answer kept is
the status, the Status of a refusal (or the patched data and labels of a success) and the Warning
lines. tests/test_patch_decoding.py holds ours to them (apiserver/patching/patch.py).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import capture_validation

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "patch_decoding.json")

NAMESPACE = "patching"
TARGET = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "probe", "labels": {"x": "1"}}, "data": {"a": "1"}}
TYPES = {"json": "application/json-patch+json", "merge": "application/merge-patch+json",
         "strategic": "application/strategic-merge-patch+json"}
DIRECTIVES = ("", "Warn", "Strict", "Ignore")  # "": none given, which the server takes as Warn

# Bodies every patch type is sent: not its shape, null, broken JSON.
_SHAPES = [b"null", b"[]", b"{}", b'"x"', b"1", b"true", b"[1]", b"[null]", b"[{}]", b'{"a":null}', b"{", b""]
_OPERATIONS = [
    b'[{"op":"add","path":"/metadata/labels/y","value":"2"}]',
    b'[{"op":"add","path":"/metadata/labels/y","value":"2","extra":1}]',
    b'[{"op":"add","path":"/metadata/labels/y","value":"2","op":"add"}]',
    b'[{"op":1,"path":"/data/a"}]',
    b'[{"op":"add","path":1,"value":"2"}]',
    b'[{"op":"bogus","path":"/data/a"}]',
    b'[{"path":"/data/a"}]',
    b'[{"op":"remove","path":"/data/zzz"}]',
    b'[{"op":"remove","path":"/data/a"}]',
    b'[{"op":"test","path":"/data/a","value":"2"}]',
    b'[{"op":"test","path":"/data/a","value":"1"},{"op":"add","path":"/data/t","value":"ok"}]',
    b'[{"op":"add","path":"/data/b","value":1}]',
    b'[{"op":"replace","path":"/data/zzz","value":"q"}]',
    b'[{"op":"move","from":"/data/zzz","path":"/data/q"}]',
    b'[{"op":"copy","from":"/data/a","path":"/data/c"}]',
    b'[{"op":"add","path":"/data","value":null}]',
    b'[{"op":"add","path":"data/x","value":"1"}]',
    b'[{"op":"replace","path":"/kind","value":"Pod"}]',
    b'[{"op":"replace","path":"/apiVersion","value":"v2"}]',
]
_MERGES = [
    b'{"data":{"a":null}}',
    b'{"data":{"a":1}}',
    b'{"data":{"b":"2"}}',
    b'{"metadata":{"labels":{"y":"1","y":"2"}}}',
    b'{"unknownTop":1,"data":{"b":"2"}}',
    b'{"metadata":{"labels":{"y":"1"},"unknownMeta":true}}',
    b'{"data":[1]}',
    b'{"metadata":null}',
    b'{"data":null}',
    b'{"metadata":{"name":"other"}}',
    b'{"$patch":"replace","data":{"z":"1"}}',
    # Type meta the patch changes: another kind, group or version, or none.
    b'{"kind":"Secret"}',
    b'{"kind":"Secret","data":{"x":5}}',
    b'{"apiVersion":"patching.example.io/v1","kind":"Widget"}',
    b'{"apiVersion":"v2"}',
    b'{"kind":"ConfigMapList"}',
    b'{"kind":null}',
]
BODIES = _SHAPES + _OPERATIONS + _MERGES

# A custom resource: its handler takes no strategic merge, and its unknown fields are what its schema prunes.
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.patching.example.io"},
       "spec": {"group": "patching.example.io", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": {
                        "size": {"type": "integer"}, "name": {"type": "string"}}}}}}}]}}
CUSTOM_TARGET = {"apiVersion": "patching.example.io/v1", "kind": "Widget", "metadata": {"name": "w1"},
                 "spec": {"size": 1, "name": "first"}}
CUSTOM_BODIES = [b'{"spec":{"size":3}}', b'{"spec":{"extra":1}}', b'{"unknownTop":1}', b'{"spec":{"size":"x"}}',
                 b'{"spec":{"size":1,"size":2}}', b'[{"op":"add","path":"/spec/extra","value":1}]',
                 b'[{"op":"replace","path":"/spec/size","value":"x"}]', b"null", b"[]",
                 b'{"metadata":{"name":"other"}}', b'{"metadata":{"labels":{"a":"1"},"unknownMeta":1}}']

Send = Callable[[str, str, bytes | None, str], tuple[int, Any, list[str]]]


def cases() -> list[tuple[str, str, str, bytes]]:
    """(case name, patch type, directive, body), every type with every directive and body; a name that
    starts with "custom" patches the custom resource."""
    return [(f"{kind} {directive or '-'} {body.decode()}", kind, directive, body)
            for kind in TYPES for directive in DIRECTIVES for body in BODIES] + [
        (f"custom {kind} {directive or '-'} {body.decode()}", kind, directive, body)
        for kind in TYPES for directive in DIRECTIVES for body in CUSTOM_BODIES]


def sender(kubeconfig: str) -> Send:
    """Sends a request with the kubeconfig's credentials: (status, decoded body, Warning lines)."""
    send_raw = capture_validation.exchange(kubeconfig)

    def send(method: str, path: str, data: bytes | None, content_type: str) -> tuple[int, Any, list[str]]:
        status, raw, headers = send_raw(method, path, data, content_type)
        try:
            decoded = json.loads(raw) if raw else None
        except ValueError:
            decoded = raw.decode("utf-8", "replace")  # an answer that is not JSON (a table, a watch stream)
        return status, decoded, list(headers.get_all("Warning") or [])
    return send


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), "application/json")
    status, body, _ = send("POST", f"/api/v1/namespaces/{NAMESPACE}/configmaps", json.dumps(TARGET).encode(),
                           "application/json")
    assert status in (201, 409), body
    status, body, _ = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           json.dumps(CRD).encode(), "application/json")
    assert status in (201, 409), body
    status, body = until_served(send, "POST", f"/apis/patching.example.io/v1/namespaces/{NAMESPACE}/widgets",
                                json.dumps(CUSTOM_TARGET).encode(), "application/json", (201, 409))
    assert status in (201, 409), body


def forget_crd(send: Send, name: str) -> None:
    """Deletes a CRD a capture made before (and its objects with it), and waits until it is gone."""
    path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
    send("DELETE", path, None, "application/json")
    deadline = time.monotonic() + 60
    while send("GET", path, None, "application/json")[0] != 404 and time.monotonic() < deadline:
        time.sleep(0.5)


def until_served(send: Send, method: str, path: str, data: bytes, content_type: str,
                 accepted: tuple[int, ...]) -> tuple[int, Any]:
    """The answer to a write of a custom resource, sent again until its CRD is established and its
    handler installed (a minute at the most)."""
    deadline = time.monotonic() + 60
    while True:
        status, body, _ = send(method, path, data, content_type)
        if status in accepted or time.monotonic() > deadline:
            return status, body
        time.sleep(0.5)


def answer(send: Send, kind: str, directive: str, body: bytes, custom: bool = False) -> dict[str, Any]:
    """The answer to one case, without what differs between servers and runs (uid, times, versions)."""
    query = {"dryRun": "All", **({"fieldValidation": directive} if directive else {})}
    target = f"/apis/patching.example.io/v1/namespaces/{NAMESPACE}/widgets/w1" if custom else \
        f"/api/v1/namespaces/{NAMESPACE}/configmaps/probe"
    status, reply, warnings = send("PATCH", target + "?" + urllib.parse.urlencode(query), body, TYPES[kind])
    if status == 200 and isinstance(reply, dict):
        kept: Any = {"data": reply.get("data") or reply.get("spec"), "labels": reply.get("metadata", {}).get("labels"),
                     "type": [reply.get("apiVersion"), reply.get("kind")]}
    else:
        kept = reply
    return {"status": status, "body": kept, "warnings": warnings}


def main(kubeconfig: str) -> None:
    send = sender(kubeconfig)
    prepare(send)
    answers = {name: answer(send, kind, directive, body, name.startswith("custom"))
               for name, kind, directive, body in cases()}
    record(FIXTURE, answers)


# A patch's refusal prints the whole patched object; what differs between servers and runs in it.
_PER_SERVER = re.compile(r'(\\"(?:uid|resourceVersion|creationTimestamp|time|manager)\\":\\")[^\\]*')


def masked(message: str) -> str:
    """A refusal's message with the uid, versions, times and manager names of a printed object masked."""
    return _PER_SERVER.sub(r"\1X", message)


def record_cases(kubeconfig: str, tool: Any) -> None:
    """Records a capture tool of named cases (its CASES, prepare, run_case and FIXTURE, and its own sender
    or this module's): every case's answer from the server the kubeconfig names."""
    send = getattr(tool, "sender", sender)(kubeconfig)
    tool.prepare(send)
    record(tool.FIXTURE, {name: tool.run_case(send, name) for name in tool.CASES})


def record(fixture: str, answers: dict[str, Any]) -> None:
    """Writes the answers as the tests read them, and says how many there are."""
    with open(fixture, "w") as f:
        json.dump(answers, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(answers)} answers")


if __name__ == "__main__":
    main(sys.argv[1])
