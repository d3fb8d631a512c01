"""Records how kube-apiserver reads a request's options and path before it reaches any object: the
ListOptions of lists, watches and deletecollections (the query's conversion, then ValidateListOptions),
DeleteOptions from the query (every dryRun, the first of anything else) and from the body (decoded in
the meta internal scheme: other kinds, Go's type errors, bodies that are no object), encoding/json's
syntax errors wherever a body or token breaks, a path no route
takes (plain text, or a Status where a built-in group's web service answers), a custom resource's
unknown subresource, a dry-run create naming a resourceVersion, the items a deletecollection answers,
and the 202 of a delete that leaves its object in place after orphanDependents=false.

Usage: python tools/capture_request_refusals.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Each answer keeps the status, the media type, the Status of a refusal (or of a success, only the parts
a case names) and the Warning lines. A case whose path names `{fresh}` is sent to a ConfigMap made for
it alone, `{held}` to one a finalizer holds (only ever deleted as a dry run). tests/test_request_refusals.py holds ours to them (apiserver/query/list_options.py,
apiserver/http/delete_options.py, apiserver/http/app.py).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import capture_patch_decoding as patching  # its namespace, ConfigMap, custom resource and writer serve here
import capture_validation

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "request_refusals.json")
CONFIGMAPS = f"/api/v1/namespaces/{patching.NAMESPACE}/configmaps"
WIDGETS = f"/apis/patching.example.io/v1/namespaces/{patching.NAMESPACE}/widgets"
JSON = "application/json"
YAML = "application/yaml"
# A deletecollection that matches nothing, so that one accepted deletes nothing.
NONE_MATCH = f"{CONFIGMAPS}?labelSelector=nomatch%3D1&dryRun=All"

HELD = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "held", "finalizers": ["example.com/hold"]}}
# (status, media type, decoded body, Warning lines)
Send = Callable[[str, str, "bytes | None", str], tuple[int, str, Any, list[str]]]


def _delete(name: str, body: bytes, query: str = "") -> tuple[str, str, str, bytes | None, str, tuple[str, ...]]:
    return (name, "DELETE", f"{CONFIGMAPS}/{{fresh}}{query}", body, JSON, ())


def _configmap(name: str, version: str | None) -> bytes:
    meta: dict[str, Any] = {"name": name} if version is None else {"name": name, "resourceVersion": version}
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}).encode()


# (name, method, path, body, content type, what of a success's metadata to keep)
CASES: list[tuple[str, str, str, bytes | None, str, tuple[str, ...]]] = [
    ("list timeoutSeconds not a number", "GET", f"{CONFIGMAPS}?timeoutSeconds=abc", None, JSON, ()),
    ("list timeoutSeconds before limit", "GET", f"{CONFIGMAPS}?limit=abc&timeoutSeconds=x", None, JSON, ()),
    ("list timeoutSeconds a fraction", "GET", f"{CONFIGMAPS}?timeoutSeconds=1.5", None, JSON, ()),
    ("list timeoutSeconds empty", "GET", f"{CONFIGMAPS}?timeoutSeconds=", None, JSON, ()),
    ("list limit out of range", "GET", f"{CONFIGMAPS}?limit=99999999999999999999", None, JSON, ()),
    ("list limit empty", "GET", f"{CONFIGMAPS}?limit=", None, JSON, ()),
    ("list limit with a plus sign", "GET", f"{CONFIGMAPS}?limit=%2B1", None, JSON, ()),
    ("list limit negative", "GET", f"{CONFIGMAPS}?limit=-5", None, JSON, ()),
    ("list limit with an underscore", "GET", f"{CONFIGMAPS}?limit=1_0", None, JSON, ()),
    ("list limit repeated", "GET", f"{CONFIGMAPS}?limit=1&limit=x", None, JSON, ()),
    ("list sendInitialEvents true", "GET", f"{CONFIGMAPS}?sendInitialEvents=true", None, JSON, ()),
    ("list sendInitialEvents false", "GET", f"{CONFIGMAPS}?sendInitialEvents=false", None, JSON, ()),
    ("list sendInitialEvents empty", "GET", f"{CONFIGMAPS}?sendInitialEvents=", None, JSON, ()),
    ("list watch false with sendInitialEvents", "GET", f"{CONFIGMAPS}?watch=false&sendInitialEvents=true", None,
     JSON, ()),
    ("list watch FALSE with sendInitialEvents", "GET", f"{CONFIGMAPS}?watch=FALSE&sendInitialEvents=true", None,
     JSON, ()),
    ("list watch 0 with sendInitialEvents", "GET", f"{CONFIGMAPS}?watch=0&sendInitialEvents=true", None, JSON, ()),
    ("list resourceVersionMatch Exact at 0", "GET", f"{CONFIGMAPS}?resourceVersionMatch=Exact&resourceVersion=0",
     None, JSON, ()),
    ("list every rule broken", "GET",
     f"{CONFIGMAPS}?resourceVersionMatch=exact&resourceVersion=0&continue=x&sendInitialEvents=1", None, JSON, ()),
    ("list resourceVersionMatch alone", "GET", f"{CONFIGMAPS}?resourceVersionMatch=Bogus", None, JSON, ()),
    ("list allowWatchBookmarks any value", "GET", f"{CONFIGMAPS}?allowWatchBookmarks=abc&limit=1", None, JSON, ()),
    ("list shardSelector", "GET", f"{CONFIGMAPS}?shardSelector=abc", None, JSON, ()),
    ("list limit before the label selector", "GET", f"{CONFIGMAPS}?labelSelector=a%20b&limit=x", None, JSON, ()),
    ("list label selector before validation", "GET", f"{CONFIGMAPS}?labelSelector=a%20b&sendInitialEvents=1",
     None, JSON, ()),
    ("list field selector syntax before validation", "GET", f"{CONFIGMAPS}?fieldSelector=a&sendInitialEvents=1",
     None, JSON, ()),
    ("list field label after validation", "GET", f"{CONFIGMAPS}?fieldSelector=bogus%3D1&sendInitialEvents=1",
     None, JSON, ()),
    ("list field label unknown", "GET", f"{CONFIGMAPS}?fieldSelector=bogus%3D1", None, JSON, ()),
    ("watch resourceVersionMatch Bogus with continue", "GET",
     f"{CONFIGMAPS}?watch=1&resourceVersionMatch=Bogus&continue=x", None, JSON, ()),
    ("watch sendInitialEvents without resourceVersionMatch", "GET", f"{CONFIGMAPS}?watch=1&sendInitialEvents=true",
     None, JSON, ()),
    ("watch any value is true", "GET", f"{CONFIGMAPS}?watch=abc&sendInitialEvents=true", None, JSON, ()),
    ("watch empty is true", "GET", f"{CONFIGMAPS}?watch=&sendInitialEvents=true", None, JSON, ()),
    ("watch timeoutSeconds a fraction", "GET", f"{CONFIGMAPS}?watch=1&timeoutSeconds=1.5", None, JSON, ()),
    ("watch limit not a number", "GET", f"{CONFIGMAPS}?watch=1&limit=x", None, JSON, ()),
    ("watch resourceVersionMatch without sendInitialEvents", "GET",
     f"{CONFIGMAPS}?watch=1&resourceVersion=1&resourceVersionMatch=NotOlderThan", None, JSON, ()),
    ("get reads no list options", "GET", f"{CONFIGMAPS}/probe?timeoutSeconds=abc&sendInitialEvents=1", None, JSON,
     ("name",)),
    ("get with watch answers the object", "GET", f"{CONFIGMAPS}/probe?watch=1", None, JSON, ("name",)),
    ("deletecollection timeoutSeconds not a number", "DELETE", f"{NONE_MATCH}&timeoutSeconds=x", None, JSON, ()),
    ("deletecollection sendInitialEvents", "DELETE", f"{NONE_MATCH}&sendInitialEvents=true", None, JSON, ()),
    ("deletecollection watch", "DELETE", f"{NONE_MATCH}&watch=1", None, JSON, ()),
    ("deletecollection gracePeriodSeconds not a number", "DELETE", f"{NONE_MATCH}&gracePeriodSeconds=x", None, JSON,
     ()),
    ("deletecollection dryRun All and Bogus", "DELETE", f"{NONE_MATCH}&dryRun=Bogus", None, JSON, ()),
    ("deletecollection body of another kind", "DELETE", NONE_MATCH, b'{"kind":"Pod","apiVersion":"v1"}', JSON, ()),
    ("deletecollection list options before the body", "DELETE", f"{NONE_MATCH}&limit=x",
     b'{"kind":"Pod","apiVersion":"v1"}', JSON, ()),
    ("deletecollection validation before the body", "DELETE", f"{NONE_MATCH}&resourceVersionMatch=x",
     b'{"kind":"Pod","apiVersion":"v1"}', JSON, ()),
    ("deletecollection field label before the body", "DELETE", f"{NONE_MATCH}&fieldSelector=bogus%3D1",
     b'{"kind":"Pod","apiVersion":"v1"}', JSON, ()),
    ("deletecollection null body", "DELETE", NONE_MATCH, b"null", JSON, ()),
    ("deletecollection items carry no kind", "DELETE", f"{CONFIGMAPS}?dryRun=All&fieldSelector=metadata.name%3Dprobe",
     None, JSON, ()),
    _delete("delete body naming a Pod", b'{"kind":"Pod","apiVersion":"v1","dryRun":["All"]}'),
    _delete("delete body naming a Pod of no version", b'{"kind":"Pod","dryRun":["All"]}'),
    _delete("delete body DeleteOptions of apps/v1", b'{"kind":"DeleteOptions","apiVersion":"apps/v1","dryRun":["All"]}'),
    _delete("delete body DeleteOptions of an unknown group",
            b'{"kind":"DeleteOptions","apiVersion":"nosuch/v7","dryRun":["All"]}'),
    _delete("delete body DeleteOptions of meta.k8s.io/v1beta1",
            b'{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1beta1","dryRun":["All"]}'),
    _delete("delete body ListOptions", b'{"kind":"ListOptions","apiVersion":"meta.k8s.io/v1","dryRun":["All"]}'),
    _delete("delete body internal ListOptions",
            b'{"kind":"ListOptions","apiVersion":"meta.k8s.io/__internal","dryRun":["All"]}'),
    _delete("delete body internal WatchEvent",
            b'{"kind":"WatchEvent","apiVersion":"meta.k8s.io/__internal","dryRun":["All"]}'),
    _delete("delete body internal Pod", b'{"kind":"Pod","apiVersion":"meta.k8s.io/__internal","dryRun":["All"]}'),
    _delete("delete body v1beta1 Table", b'{"kind":"Table","apiVersion":"meta.k8s.io/v1beta1","dryRun":["All"]}'),
    _delete("delete body v1beta1 PartialObjectMetadataList",
            b'{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1beta1","dryRun":["All"]}'),
    _delete("delete body Status", b'{"kind":"Status","apiVersion":"v1","dryRun":["All"]}'),
    _delete("delete body Status of apps/v1", b'{"kind":"Status","apiVersion":"apps/v1","dryRun":["All"]}'),
    _delete("delete body kind alone", b'{"kind":"DeleteOptions","dryRun":["All"]}'),
    _delete("delete body apiVersion alone", b'{"apiVersion":"v1","dryRun":["All"]}'),
    _delete("delete body kind in capitals", b'{"KIND":"Pod","dryRun":["All"]}'),
    _delete("delete body apiVersion of three parts", b'{"kind":"DeleteOptions","apiVersion":"v1/x/y","dryRun":["All"]}'),
    _delete("delete body group without version", b'{"kind":"DeleteOptions","apiVersion":"apps/","dryRun":["All"]}'),
    _delete("delete body kind a number", b'{"kind":1,"dryRun":["All"]}'),
    _delete("delete body apiVersion and kind numbers", b'{"kind":1,"apiVersion":true,"dryRun":["All"]}'),
    _delete("delete body gracePeriodSeconds a string", b'{"dryRun":["All"],"gracePeriodSeconds":"x"}'),
    _delete("delete body gracePeriodSeconds a fraction", b'{"dryRun":["All"],"gracePeriodSeconds":1.5}'),
    _delete("delete body gracePeriodSeconds null", b'{"dryRun":["All"],"gracePeriodSeconds":null}'),
    _delete("delete body dryRun a string", b'{"dryRun":"All"}'),
    _delete("delete body dryRun of a number", b'{"dryRun":[1]}'),
    _delete("delete body orphanDependents a string", b'{"dryRun":["All"],"orphanDependents":"yes"}'),
    _delete("delete body propagationPolicy a number", b'{"dryRun":["All"],"propagationPolicy":1}'),
    _delete("delete body preconditions a string", b'{"dryRun":["All"],"preconditions":"x"}'),
    _delete("delete body precondition uid a number", b'{"dryRun":["All"],"preconditions":{"uid":1}}'),
    _delete("delete body ignoreStoreReadError a string",
            b'{"dryRun":["All"],"ignoreStoreReadErrorWithClusterBreakingPotential":"x"}'),
    _delete("delete body ignoreStoreReadError with dryRun",
            b'{"dryRun":["All"],"ignoreStoreReadErrorWithClusterBreakingPotential":true}'),
    _delete("delete body two wrong fields", b'{"dryRun":["All"],"gracePeriodSeconds":"x","orphanDependents":"y"}'),
    _delete("delete body dryRun in other case", b'{"dryRun":["All"],"Dryrun":["x"]}'),
    _delete("delete body dryRun twice", b'{"dryRun":["All"],"dryRun":["Bogus"]}'),
    _delete("delete body cut short", b"{"),
    _delete("delete body an array", b"[]"),
    _delete("delete body a string", b'"x"'),
    _delete("delete body a number", b"1"),
    _delete("delete body null", b"null"),
    _delete("delete body dryRun null", b'{"dryRun":null}'),
    _delete("delete body with text after it", b'{"dryRun":["All"]} x'),
    _delete("delete body a literal cut short", b"tru"),
    _delete("delete body key without a colon", b'{"dryRun" ["All"]}'),
    _delete("delete body bad escape", b'{"dryRun":["A\\q"]}'),
    ("delete yaml body", "DELETE", f"{CONFIGMAPS}/{{fresh}}", b"dryRun: [All]", YAML, ()),
    ("delete yaml body a string", "DELETE", f"{CONFIGMAPS}/{{fresh}}", b"x", YAML, ()),
    ("delete yaml body dryRun a string", "DELETE", f"{CONFIGMAPS}/{{fresh}}", b"dryRun: x", YAML, ()),
    ("delete body of plain text", "DELETE", f"{CONFIGMAPS}/{{fresh}}", b'{"dryRun":["All"]}', "text/plain", ()),
    _delete("delete dryRun All and Bogus", b"", "?dryRun=All&dryRun=Bogus"),
    _delete("delete dryRun Bogus and All", b"", "?dryRun=Bogus&dryRun=All"),
    _delete("delete gracePeriodSeconds not a number", b"", "?dryRun=All&gracePeriodSeconds=x"),
    _delete("delete gracePeriodSeconds first of two", b"", "?dryRun=All&gracePeriodSeconds=5&gracePeriodSeconds=x"),
    _delete("delete gracePeriodSeconds first not a number", b"",
            "?dryRun=All&gracePeriodSeconds=x&gracePeriodSeconds=5"),
    _delete("delete gracePeriodSeconds out of range", b"", "?dryRun=All&gracePeriodSeconds=99999999999999999999"),
    _delete("delete propagationPolicy first of two", b"",
            "?dryRun=All&propagationPolicy=Orphan&propagationPolicy=Bogus"),
    _delete("delete propagationPolicy first Bogus", b"", "?dryRun=All&propagationPolicy=Bogus&propagationPolicy=Orphan"),
    _delete("delete orphanDependents any value", b"", "?dryRun=All&orphanDependents=yes"),
    _delete("delete orphanDependents empty", b"", "?dryRun=All&orphanDependents="),
    _delete("delete orphanDependents FALSE with a policy", b"", "?dryRun=All&orphanDependents=FALSE&propagationPolicy=Orphan"),
    _delete("delete ignoreStoreReadError with others", b"",
            "?dryRun=All&ignoreStoreReadErrorWithClusterBreakingPotential=true&gracePeriodSeconds=1&orphanDependents=1"),
    _delete("delete query options beside a body", b'{"dryRun":["All"]}', "?dryRun=Bogus&gracePeriodSeconds=x"),
    ("delete held orphanDependents false", "DELETE", f"{CONFIGMAPS}/{{held}}?dryRun=All&orphanDependents=false", None,
     JSON, ("finalizers",)),
    ("delete held orphanDependents false in the body", "DELETE", f"{CONFIGMAPS}/{{held}}",
     b'{"dryRun":["All"],"orphanDependents":false}', JSON, ("finalizers",)),
    ("delete held orphanDependents true", "DELETE", f"{CONFIGMAPS}/{{held}}?dryRun=All&orphanDependents=true", None,
     JSON, ("finalizers",)),
    ("delete held by no option", "DELETE", f"{CONFIGMAPS}/{{held}}?dryRun=All", None, JSON, ("finalizers",)),
    _delete("delete orphanDependents false deleted at once", b"", "?dryRun=All&orphanDependents=false"),
    ("unknown group", "GET", "/apis/nosuch.example.com/v1/things", None, JSON, ()),
    ("unknown group create", "POST", "/apis/nosuch.example.com/v1/things", b"{}", JSON, ()),
    ("unknown group delete", "DELETE", "/apis/nosuch.example.com/v1/namespaces/default/things/x", None, JSON, ()),
    ("unknown group version", "GET", "/apis/nosuch.example.com/v1", None, JSON, ()),
    ("unknown group document", "GET", "/apis/nosuch.example.com", None, JSON, ()),
    ("unknown group deep path", "GET", "/apis/nosuch.example.com/v1/namespaces/default/x/y/z/w", None, JSON, ()),
    ("removed group", "GET", "/apis/extensions/v1beta1/ingresses", None, JSON, ()),
    ("path outside the API", "GET", "/nothing", None, JSON, ()),
    ("built-in group unknown version", "GET", "/apis/apps/v9/deployments", None, JSON, ()),
    ("built-in group unknown version document", "GET", "/apis/apps/v9", None, JSON, ()),
    ("built-in group unknown resource", "GET", "/apis/apps/v1/nothings", None, JSON, ()),
    ("built-in group deep path", "GET", "/apis/apps/v1/namespaces/default/deployments/x/y/z", None, JSON, ()),
    ("core unknown version", "GET", "/api/v2/pods", None, JSON, ()),
    ("core unknown resource", "GET", "/api/v1/nothings", None, JSON, ()),
    ("core deep path", "GET", "/api/v1/namespaces/default/configmaps/x/y/z", None, JSON, ()),
    ("custom group unknown resource", "GET", f"/apis/patching.example.io/v1/namespaces/{patching.NAMESPACE}/gadgets",
     None, JSON, ()),
    ("custom group unknown version", "GET", f"/apis/patching.example.io/v2/namespaces/{patching.NAMESPACE}/widgets",
     None, JSON, ()),
    ("custom group unknown version document", "GET", "/apis/patching.example.io/v2", None, JSON, ()),
    ("custom resource unknown subresource", "GET", f"{WIDGETS}/w1/nosub", None, JSON, ()),
    ("custom resource status it has not", "GET", f"{WIDGETS}/w1/status", None, JSON, ()),
    ("custom resource deep path", "GET", f"{WIDGETS}/w1/x/y", None, JSON, ()),
    ("custom resource deep path past status it has not", "GET", f"{WIDGETS}/w1/status/y", None, JSON, ()),
    ("custom resource unknown subresource of none", "GET", f"{WIDGETS}/absent/nosub", None, JSON, ()),
    ("create dry run naming a resourceVersion", "POST", f"{CONFIGMAPS}?dryRun=All", _configmap("versioned", "5"), JSON,
     ("name", "resourceVersion")),
    ("create dry run naming a resourceVersion not a number", "POST", f"{CONFIGMAPS}?dryRun=All",
     _configmap("versioned", "abc"), JSON, ("name", "resourceVersion")),
    ("create dry run naming an empty resourceVersion", "POST", f"{CONFIGMAPS}?dryRun=All",
     _configmap("versioned", ""), JSON, ("name", "resourceVersion")),
    ("create body with text after it", "POST", f"{CONFIGMAPS}?dryRun=All", _configmap("trailing", None) + b" x",
     JSON, ()),
    ("create body a minus sign", "POST", f"{CONFIGMAPS}?dryRun=All", b"-", JSON, ()),
    ("create body a fraction cut short", "POST", f"{CONFIGMAPS}?dryRun=All", b"1.", JSON, ()),
    ("create body a control character in a string", "POST", f"{CONFIGMAPS}?dryRun=All",
     b'{"metadata":{"name":"a\x01"}}', JSON, ()),
    ("create body trailing comma", "POST", f"{CONFIGMAPS}?dryRun=All", b'{"metadata":{"name":"a"},}', JSON, ()),
    ("patch body trailing comma", "PATCH", f"{CONFIGMAPS}/probe?dryRun=All", b'{"data":{"a":"2"},}',
     "application/merge-patch+json", ()),
    ("patch body elements without a comma", "PATCH", f"{CONFIGMAPS}/probe?dryRun=All", b"[1 2]",
     "application/json-patch+json", ()),
    ("list continue token with text after it", "GET",
     f"{CONFIGMAPS}?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAsInN0YXJ0IjoiYSJ9eA", None, JSON, ()),
    ("create naming a resourceVersion", "POST", CONFIGMAPS, _configmap("versioned", "5"), JSON, ()),
]


def sender(kubeconfig: str) -> Send:
    """Sends with the kubeconfig's credentials: (status, media type, decoded body, Warning lines)."""
    send_raw = capture_validation.exchange(kubeconfig)

    def send(method: str, path: str, data: bytes | None, content_type: str) -> tuple[int, str, Any, list[str]]:
        status, raw, headers = send_raw(method, path, data, content_type)
        try:
            decoded = json.loads(raw) if raw else None
        except ValueError:
            decoded = raw.decode("utf-8", "replace")  # Go's plain-text 404
        return status, headers.get("Content-Type", ""), decoded, list(headers.get_all("Warning") or [])
    return send


def prepare(send: Send) -> None:
    patching.prepare(lambda method, path, data, content_type: _without_media_type(send(method, path, data,
                                                                                         content_type)))


def _without_media_type(answer: tuple[int, str, Any, list[str]]) -> tuple[int, Any, list[str]]:
    status, _, body, warnings = answer
    return status, body, warnings


def answer(send: Send, index: int) -> dict[str, Any]:
    """One case's answer: status, media type, the Status of a refusal (of a success, its kind and
    status, the metadata fields the case names, and for a list whether its items name their kind) and
    Warning lines."""
    _, method, path, body, content_type, shown = CASES[index]
    if "{fresh}" in path:
        fresh = f"refusal-{index}"
        status, _, reply, _ = send("POST", CONFIGMAPS, _configmap(fresh, None), JSON)
        assert status in (201, 409), reply
        path = path.replace("{fresh}", fresh)
    if "{held}" in path:  # a ConfigMap a finalizer holds: a delete leaves it in place
        status, _, reply, _ = send("POST", CONFIGMAPS, json.dumps(HELD).encode(), JSON)
        assert status in (201, 409), reply
        path = path.replace("{held}", HELD["metadata"]["name"])
    status, media_type, reply, warnings = send(method, path, body or None, content_type)
    if 200 <= status < 300 and isinstance(reply, dict):
        reply = _summary(reply, shown)
    return {"status": status, "contentType": media_type, "body": reply, "warnings": warnings}


def _summary(reply: dict[str, Any], shown: tuple[str, ...]) -> dict[str, Any]:
    summary: dict[str, Any] = {k: reply.get(k) for k in ("kind", "status")}
    meta = reply.get("metadata") or {}
    summary.update({f"metadata.{k}": meta.get(k) for k in shown})
    if isinstance(reply.get("items"), list):
        # Not the items themselves: other tests share the namespace.
        summary["itemsNameTheirKind"] = any("kind" in item or "apiVersion" in item for item in reply["items"])
    return summary


def main(kubeconfig: str) -> None:
    send = sender(kubeconfig)
    prepare(send)
    answers = {name: answer(send, i) for i, (name, *_) in enumerate(CASES)}
    patching.record(FIXTURE, answers)


if __name__ == "__main__":
    main(sys.argv[1])
