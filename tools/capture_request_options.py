"""Records how kube-apiserver refuses a write's options and a request's malformed parts before any object
is judged: dryRun, fieldManager and fieldValidation of creates, updates and patches, a patch of no patch
type, DeleteOptions in the query and in the body, bodies that are null or whose metadata is no object,
and names that do not match the URL.

Usage: python tools/capture_request_options.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
A case whose path names `{fresh}` is sent to a ConfigMap made for it alone (a delete whose body carries
no dryRun deletes for real, as upstream's handler reads the body's options and ignores the query's).
tests/test_request_options.py holds ours to the answers (apiserver/http/write_options.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import capture_patch_decoding as patching  # its sender and namespace serve here too

HERE = os.path.dirname(os.path.abspath(__file__))

FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "request_options.json")
COLLECTION = f"/api/v1/namespaces/{patching.NAMESPACE}/configmaps"
JSON = "application/json"
MERGE = "application/merge-patch+json"
APPLY = "application/apply-patch+yaml"


def _configmap(name: str, **meta: Any) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}}).encode()


_NEW = _configmap("made-by-case")
# Unknown fields whose names Go's %q escapes (a quote, a tab) or keeps (a letter beyond ASCII).
_ODD_FIELDS = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "odd"},
                          "\u00e9": 1, 'q"x': 2, "tab\t": 3, "<a>": 4}).encode()
_LONG = "m" * 129

# (name, method, path under the collection, body, content type)
CASES: list[tuple[str, str, str, bytes | None, str]] = [
    ("create dryRun Bogus", "POST", "?dryRun=Bogus", _NEW, JSON),
    ("create dryRun empty", "POST", "?dryRun=", _NEW, JSON),
    ("create dryRun All twice", "POST", "?dryRun=All&dryRun=All", _configmap("twice"), JSON),
    ("create dryRun All and Bogus", "POST", "?dryRun=All&dryRun=Bogus", _NEW, JSON),
    ("create fieldManager too long", "POST", f"?dryRun=All&fieldManager={_LONG}", _NEW, JSON),
    ("create fieldManager unprintable", "POST", "?dryRun=All&fieldManager=a%01b%7F", _NEW, JSON),
    ("create fieldManager long and unprintable", "POST", f"?dryRun=All&fieldManager=%01{_LONG}", _NEW, JSON),
    ("create fieldValidation lower case", "POST", "?dryRun=All&fieldValidation=strict", _NEW, JSON),
    ("create every option wrong", "POST", f"?dryRun=No&fieldValidation=x&fieldManager={_LONG}", _NEW, JSON),
    ("create null body", "POST", "?dryRun=All", b"null", JSON),
    ("create metadata a string", "POST", "?dryRun=All",
     b'{"apiVersion":"v1","kind":"ConfigMap","metadata":"x"}', JSON),
    ("update dryRun Bogus", "PUT", "/probe?dryRun=Bogus", _configmap("probe"), JSON),
    ("update fieldValidation bogus", "PUT", "/probe?dryRun=All&fieldValidation=Bogus", _configmap("probe"), JSON),
    ("update another name", "PUT", "/probe?dryRun=All", _configmap("other"), JSON),
    ("update no name", "PUT", "/probe?dryRun=All", b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}', JSON),
    ("update no metadata", "PUT", "/probe?dryRun=All", b'{"apiVersion":"v1","kind":"ConfigMap"}', JSON),
    ("patch dryRun Bogus", "PATCH", "/probe?dryRun=Bogus", b'{"data":{"b":"2"}}', MERGE),
    ("patch force without apply", "PATCH", "/probe?dryRun=All&force=true", b"{}", MERGE),
    ("patch force false without apply", "PATCH", "/probe?dryRun=All&force=false", b"{}", MERGE),
    ("patch fieldManager unprintable", "PATCH", "/probe?dryRun=All&fieldManager=%09", b"{}", MERGE),
    ("apply without fieldManager", "PATCH", "/probe?dryRun=All", b"{}", APPLY),
    ("apply fieldManager too long", "PATCH", f"/probe?dryRun=All&fieldManager={_LONG}", b"{}", APPLY),
    ("patch of plain text", "PATCH", "/probe?dryRun=Bogus", b"{}", "text/plain"),
    ("patch of a missing object", "PATCH", "/missing?dryRun=All", b"{}", MERGE),
    ("delete propagationPolicy Bogus", "DELETE", "/{fresh}?dryRun=All&propagationPolicy=Bogus", None, JSON),
    ("delete dryRun Bogus", "DELETE", "/{fresh}?dryRun=Bogus", None, JSON),
    ("delete body dryRun Bogus", "DELETE", "/{fresh}", b'{"dryRun":["Bogus"]}', JSON),
    ("delete body propagationPolicy Bogus", "DELETE", "/{fresh}", b'{"propagationPolicy":"Bogus"}', JSON),
    ("delete body both policies", "DELETE", "/{fresh}",
     b'{"propagationPolicy":"Orphan","orphanDependents":true}', JSON),
    ("delete body uid precondition", "DELETE", "/{fresh}?dryRun=All",
     b'{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"x"},"dryRun":["All"]}', JSON),
    ("delete body unknown field", "DELETE", "/{fresh}?dryRun=All", b'{"unknown":1}', JSON),
    ("create unknown fields to quote, warned", "POST", "?dryRun=All&fieldValidation=Warn", _ODD_FIELDS, JSON),
    ("create unknown fields to quote, strict", "POST", "?dryRun=All&fieldValidation=Strict", _ODD_FIELDS, JSON),
    ("patch unknown and repeated fields to quote, warned", "PATCH", "/probe?dryRun=All&fieldValidation=Warn",
     rb'{"data":{"a":"1"},"\u00e9\t\"x":1,"\u00e9\t\"x":2}', MERGE),
]


def prepare(send: patching.Send) -> None:
    patching.prepare(send)


def answer(send: patching.Send, index: int) -> dict[str, Any]:
    """One case's answer: the status, the Status of a refusal (of a success, its kind and Status
    fields only) and the Warning lines."""
    _, method, path, body, content_type = CASES[index]
    if "{fresh}" in path:
        fresh = f"fresh-{index}"
        status, reply, _ = send("POST", COLLECTION, _configmap(fresh), JSON)
        assert status in (201, 409), reply
        path = path.replace("{fresh}", fresh)
    status, reply, warnings = send(method, COLLECTION + path, body, content_type)
    if 200 <= status < 300 and isinstance(reply, dict):
        reply = {k: reply.get(k) for k in ("kind", "status")}
    return {"status": status, "body": reply, "warnings": warnings}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    answers = {name: answer(send, i) for i, (name, *_) in enumerate(CASES)}
    patching.record(FIXTURE, answers)


if __name__ == "__main__":
    main(sys.argv[1])
