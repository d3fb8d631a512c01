"""Every bad input is answered: generated requests against the real server never get a 5xx or a traceback.

(The one 5xx allowed is upstream's own: 504 for a list at a resourceVersion the store has not reached.)

Each case gets a Status 4xx with a message, or a success where the input happens to be valid, and a
rejected write leaves the store as it was (the list resourceVersion does not move). CI runs 1,000
cases per target; `FUZZ_EXAMPLES=10000` (or more) runs the long version on demand.
"""

from __future__ import annotations

import glob
import json
import os
import re
import string
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from keepalive import Connection
from support import GOLDEN, ServerProcess

from apiserver.kinds.resources import BUILTIN

CASES = int(os.environ.get("FUZZ_EXAMPLES", "1000"))
# Each generated example carries a batch of cases: generating them one example each costs more than
# the requests they make, and CI's 1,000 cases per target must fit in its time.
BATCH = 4
FUZZ = settings(max_examples=CASES // BATCH, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])
# The targets beyond the issue's list run a quarter as many cases.
FUZZ_MORE = settings(FUZZ, max_examples=max(1, CASES // BATCH // 4))


def batch(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(strategy, min_size=BATCH, max_size=BATCH)

NS_PATH = "/api/v1/namespaces/fuzz"
CM_PATH = NS_PATH + "/configmaps"
TARGET = CM_PATH + "/target"


class Probe:
    """Sends generated requests and checks every answer; counts what came back."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.statuses: Counter[int] = Counter()
        self._revision: str | None = None  # the store's revision when nothing has written since

    def revision(self) -> str:
        status, listing = self.conn.json("GET", CM_PATH + "?limit=1")
        assert status == 200
        return str(listing["metadata"]["resourceVersion"])

    def create_target(self) -> None:
        body = {"metadata": {"name": "target", "labels": {"a": "b"}}, "data": {"k": "v"}}
        assert self.conn.json("POST", CM_PATH, body)[0] == 201
        self._revision = None

    def ensure(self, path: str, collection: str, body: dict[str, Any]) -> None:
        """Creates the object at path again if an earlier case removed it."""
        if self.conn.request("GET", path)[0] == 404:
            assert self.conn.json("POST", collection, body)[0] == 201
            self._revision = None

    def read(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        status, answer_headers, body = self.conn.request("GET", path, headers=headers)
        return status, self._answered(status, answer_headers, body)

    def write(self, method: str, path: str, body: bytes, content_type: str) -> int:
        """Sends a write; a rejected one must leave the store's revision where it was."""
        before = self._revision or self.revision()
        status, headers, answer = self.conn.request(method, path, body, {"Content-Type": content_type})
        self._answered(status, headers, answer)
        if status >= 400:
            self._revision = self.revision()
            assert self._revision == before, (status, answer[:500])
        else:
            self._revision = None
            if method == "POST" and status == 201 and path == CM_PATH:
                # Keep the namespace small: every case lists it for the revision.
                name = json.loads(answer)["metadata"]["name"]
                self.conn.request("DELETE", CM_PATH + "/" + urllib.parse.quote(name, safe=""))
        if status == 404 and path.startswith(TARGET) and self.conn.request("GET", TARGET)[0] == 404:
            # A valid update may have deleted it (a deletionTimestamp and no finalizers): bring it back.
            self.create_target()
        return status

    def _answered(self, status: int, headers: dict[str, str], body: bytes) -> Any:
        """Asserts the answer is a success or a well-formed 4xx Status; returns the decoded Status."""
        self.statuses[status] += 1
        assert status < 500 or upstreams_own_error(status, body), (status, body[:2000])
        # The line every Python traceback starts with: a bare "Traceback" may be the fuzzed name echoed back.
        assert b"Traceback (most recent call last)" not in body, body[:2000]
        if status < 400:
            return None
        content_type = headers.get("content-type", "")
        if status == 404 and content_type.startswith("text/plain"):
            # A path no handler takes (outside the API, a group nobody serves): Go's plain-text NotFound.
            assert body == b"404 page not found\n", body[:200]
            return None
        # A Status comes in the media type the client asked for, as upstream writes it.
        assert content_type.startswith(("application/json", "application/yaml")), headers
        answer = json.loads(body) if content_type.startswith("application/json") else yaml.safe_load(body)
        assert answer["kind"] == "Status" and answer["apiVersion"] == "v1", answer
        assert answer["status"] == "Failure" and answer["code"] == status, answer
        assert isinstance(answer["message"], str) and answer["message"], answer
        return answer


def upstreams_own_error(status: int, body: bytes) -> bool:
    """kube-apiserver's deliberate 504 for a list at a resourceVersion the store has not reached yet, and
    its 500 for a write whose object names a resourceVersion that is no number (the storage's
    strconv.ParseUint; kube-apiserver 1.36.2 answers a merge patch setting it to ":" so)."""
    answer = json.loads(body)
    if status == 500:
        return str(answer.get("message", "")).startswith("strconv.ParseUint: parsing ")
    if status != 504:
        return False
    causes = answer.get("details", {}).get("causes", [])
    return [cause.get("reason") for cause in causes] == ["ResourceVersionTooLarge"]


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Probe]:
    """A server of its own, so that the store's revision moves only by this module's writes."""
    server = ServerProcess(str(tmp_path_factory.mktemp("fuzz")))
    server.start()
    connection = Connection(server)
    probe = Probe(connection)
    try:
        assert connection.json("POST", "/api/v1/namespaces", {"metadata": {"name": "fuzz"}})[0] == 201
        probe.create_target()
        yield probe
    finally:
        connection.close()
        server.stop()
        print(f"\nfuzz: {sum(probe.statuses.values())} answers by status: {sorted(probe.statuses.items())}")
        assert "Traceback" not in server.log(), server.log()


# -- strategies -------------------------------------------------------------------------------------

# Kept small, for the same reason as the batches.
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)
# Mostly near-valid (DNS labels and qualified names), sometimes anything at all.
label_text = st.one_of(st.text(max_size=70), st.text(alphabet=string.ascii_letters + string.digits + "-_./",
                                                     min_size=1, max_size=70))
names = st.one_of(st.text(max_size=300), st.text(alphabet=string.ascii_lowercase + string.digits + "-.",
                                                 min_size=1, max_size=260))
metadata_fields = st.fixed_dictionaries({}, optional={
    "name": st.one_of(names, json_values),
    "generateName": st.one_of(st.text(max_size=10), json_values),
    "namespace": st.one_of(st.just("fuzz"), st.text(max_size=10), json_values),
    "labels": st.one_of(st.dictionaries(label_text, label_text, max_size=3), json_values),
    "annotations": st.one_of(st.dictionaries(st.text(max_size=20), st.text(max_size=20), max_size=3),
                             json_values),
    "resourceVersion": st.one_of(st.text(max_size=10), json_values),
    "uid": json_values, "finalizers": st.one_of(st.lists(st.text(max_size=10), max_size=2), json_values),
    "ownerReferences": json_values, "deletionTimestamp": json_values, "creationTimestamp": json_values,
    "generation": json_values, "managedFields": json_values,
})
string_maps = st.dictionaries(st.text(max_size=10), st.text(max_size=10), max_size=3)
configmaps = st.fixed_dictionaries({}, optional={
    "apiVersion": st.one_of(st.just("v1"), json_values),
    "kind": st.one_of(st.just("ConfigMap"), json_values),
    "metadata": st.one_of(metadata_fields, json_values),
    "data": st.one_of(string_maps, json_values),
    "binaryData": st.one_of(string_maps, json_values),
    "immutable": json_values,
})
bodies = st.one_of(configmaps, json_values)
# Visible latin-1 only: the HTTP parser refuses control characters (DEL included) before the app sees
# the request, with a plain 400 as Go's net/http does.
header_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF,
                                             blacklist_categories=["Cc"]), max_size=80)
media_types = st.sampled_from([
    "application/json", "application/yaml", "application/*", "*/*", "text/html",
    "application/vnd.kubernetes.protobuf", "application/json;as=Table;v=v1;g=meta.k8s.io",
    "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
    "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", "application/json;as=Foo",
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io", "application/json;q=0",
    "application/json;charset=utf-8", ""])
media_ranges = st.lists(st.tuples(media_types, st.sampled_from(["", ";q=0.5", ";q=x", ";v"])),
                        min_size=1, max_size=3)
accepts = st.one_of(header_text, media_ranges.map(lambda parts: ",".join(m + p for m, p in parts)))
yaml_fragments = st.sampled_from([
    "a: &x [1, 2]\nb: *x\n", "? [a, b]\n: c\n", "1: one\ntrue: yes\n~: null\n", "d: 2001-12-14\n",
    "t: 2001-12-14t21:59:43.10-05:00\n", "b: !!binary aGVsbG8=\n", "s: !!set {a, b}\n", "o: !!omap [a: 1]\n",
    "x: !!python/object:os.system [ls]\n", "x: !custom 1\n", "big: 123456789012345678901234567890\n",
    "n: .nan\n", "i: -.inf\n", "- a\n- b\n", "just a string\n", "---\na: 1\n---\nb: 2\n", "",
    "metadata: {name: [1]}\n", "metadata: {labels: {a: 2001-12-14}}\n", "kind: ConfigMap\n<<: {a: 1}\n",
    "a: " + "[" * 200 + "]" * 200 + "\n", "e: [=, y, n, 12:30, 1e3, 0o17, 08, !Ref x]\n", "y: n\n1.5: f\n",
    "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n",
])


def as_yaml(value: Any) -> str:
    return yaml.safe_dump(value, allow_unicode=True)


yaml_documents = st.one_of(
    bodies.map(as_yaml), yaml_fragments, st.text(max_size=200),
    st.tuples(configmaps.map(as_yaml), yaml_fragments).map(lambda pair: pair[0] + pair[1]),
)
pointers = st.sampled_from(["/data/k", "/data/new", "/metadata/name", "/metadata/labels/a",
                            "/metadata/resourceVersion", "/kind", "/metadata", "", "/", "/data/-", "/x/y/z",
                            "/metadata/labels/~1bad", "/data/~2"])
json_patch_ops = st.lists(st.fixed_dictionaries(
    {"op": st.one_of(st.sampled_from(["add", "remove", "replace", "move", "copy", "test"]), json_values)},
    optional={"path": st.one_of(pointers, st.text(max_size=20), json_values),
              "from": st.one_of(st.sampled_from(["/data/k", "/metadata/labels", "/nope"]), json_values),
              "value": json_values}), max_size=4)


# -- targets ----------------------------------------------------------------------------------------

@FUZZ
@given(cases=batch(st.tuples(bodies, st.sampled_from(["POST", "PUT"]))))
def test_json_bodies(probe: Probe, cases: list[tuple[Any, str]]) -> None:
    for body, method in cases:
        path = CM_PATH if method == "POST" else TARGET
        probe.write(method, path, json.dumps(body).encode(), "application/json")


@FUZZ
@given(cases=batch(st.tuples(yaml_documents, st.sampled_from(["POST", "PUT"]))))
def test_yaml_bodies(probe: Probe, cases: list[tuple[str, str]]) -> None:
    for document, method in cases:
        probe.write(method, CM_PATH if method == "POST" else TARGET, document.encode(), "application/yaml")


@FUZZ
@given(cases=batch(st.tuples(names, st.dictionaries(label_text, label_text, max_size=3),
                             st.dictionaries(st.text(max_size=300), st.text(max_size=30), max_size=2))))
def test_names_and_labels(probe: Probe, cases: list[tuple[str, dict[str, str], dict[str, str]]]) -> None:
    for name, labels, notes in cases:
        body = {"metadata": {"name": name, "labels": labels, "annotations": notes}}
        probe.write("POST", CM_PATH, json.dumps(body).encode(), "application/json")
        probe.read(CM_PATH + "/" + urllib.parse.quote(name, safe=""))


selector_keys = st.one_of(st.sampled_from(["metadata.name", "metadata.namespace", "status.phase",
                                           "spec.nodeName", "a", "app.kubernetes.io/name", "", "x/", "/y"]),
                          label_text)
selector_values = st.one_of(st.sampled_from(["b", "target", "fuzz", "", "(b)", "(b,c)", "(", ")", "(b c)"]),
                            label_text)
selector_terms = st.one_of(
    st.tuples(selector_keys, st.sampled_from(["=", "==", "!=", "", "=!", " in ", " notin ", "in", "<", ">"]),
              selector_values).map("".join),
    selector_keys.map(lambda key: "!" + key))
selectors = st.one_of(st.text(max_size=60), st.lists(selector_terms, max_size=3).map(",".join))


@FUZZ
@given(cases=batch(st.tuples(selectors, st.sampled_from(["fieldSelector", "labelSelector"]),
                             st.sampled_from([CM_PATH, "/api/v1/configmaps", "/api/v1/namespaces",
                                              "/apis/apps/v1/deployments"]), st.booleans())))
def test_selectors(probe: Probe, cases: list[tuple[str, str, str, bool]]) -> None:
    for selector, param, path, watch in cases:
        query = {param: selector, **({"watch": "1", "timeoutSeconds": "-1"} if watch else {})}
        probe.read(path + "?" + urllib.parse.urlencode(query))


read_paths = st.sampled_from([CM_PATH, TARGET, "/api/v1/namespaces/fuzz", "/api", "/apis", "/api/v1",
                              "/apis/apps/v1", "/version", CM_PATH + "?watch=1&timeoutSeconds=-1"])


@FUZZ
@given(cases=batch(st.tuples(accepts, read_paths)))
def test_accept_headers(probe: Probe, cases: list[tuple[str, str]]) -> None:
    for accept, path in cases:
        probe.read(path, {"Accept": accept})


resource_versions = st.one_of(st.text(max_size=25), st.integers(min_value=-(2**70), max_value=2**70).map(str),
                              st.sampled_from(["abc", "0", "-1", "1e3", " 1", "0x10", "１", "9" * 40]))


@FUZZ
@given(cases=batch(st.tuples(resource_versions, st.booleans(), st.sampled_from([
    "", "&resourceVersionMatch=NotOlderThan", "&resourceVersionMatch=Exact", "&resourceVersionMatch=x",
    "&sendInitialEvents=true&allowWatchBookmarks=true"]))))
def test_resource_versions(probe: Probe, cases: list[tuple[str, bool, str]]) -> None:
    for rv, watch, extra in cases:
        query = "?resourceVersion=" + urllib.parse.quote(rv, safe="") + extra
        status, answer = probe.read(CM_PATH + query + ("&watch=1&timeoutSeconds=-1" if watch else ""))
        if watch and not extra and re.search(r"[^\d\s+_-]", rv):
            # kube-apiserver answers 500 here; a resourceVersion that is no number is the client's mistake.
            # (Options that fail validation are refused before it is read: a 422, as upstream's.)
            assert (status, answer["reason"]) == (400, "BadRequest"), (rv, answer)


preconditions = st.fixed_dictionaries({"resourceVersion": st.one_of(st.text(max_size=8), json_values)})
merge_patches = st.one_of(
    bodies, st.fixed_dictionaries({"metadata": metadata_fields}, optional={"data": json_values}),
    st.fixed_dictionaries({"metadata": preconditions}))


@FUZZ
@given(cases=batch(st.tuples(merge_patches, st.booleans())))
def test_merge_patches(probe: Probe, cases: list[tuple[Any, bool]]) -> None:
    for patch, dry_run in cases:
        probe.write("PATCH", TARGET + ("?dryRun=All" if dry_run else ""), json.dumps(patch).encode(),
                    "application/merge-patch+json")


@FUZZ
@given(cases=batch(st.one_of(json_patch_ops, json_values)))
def test_json_patches(probe: Probe, cases: list[Any]) -> None:
    for operations in cases:
        probe.write("PATCH", TARGET, json.dumps(operations).encode(), "application/json-patch+json")


@FUZZ_MORE
@given(cases=batch(st.tuples(st.binary(max_size=300), st.one_of(st.sampled_from(
    ["application/json", "application/yaml", "text/yaml", "application/merge-patch+json",
     "application/json-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml",
     "application/vnd.kubernetes.protobuf"]), header_text),
    st.sampled_from(["POST", "PUT", "PATCH", "DELETE"]))))
def test_raw_bytes_of_any_media_type(probe: Probe, cases: list[tuple[bytes, str, str]]) -> None:
    for raw, content_type, method in cases:
        path = CM_PATH if method == "POST" else CM_PATH + "/absent" if method == "DELETE" else TARGET
        probe.write(method, path, raw, content_type)


query_parameters = st.dictionaries(
    st.sampled_from(["dryRun", "gracePeriodSeconds", "timeoutSeconds", "limit", "continue", "watch",
                     "propagationPolicy", "fieldManager", "includeObject", "pretty", "orphanDependents"]),
    st.one_of(st.text(max_size=12), st.integers().map(str)), max_size=4)


def _holds_open(timeout: str) -> bool:
    """Whether a watch's timeoutSeconds keeps it open (none, 0 or more), rather than being refused or
    ending it at once."""
    try:
        return int(timeout or "0") >= 0
    except ValueError:
        return False


@FUZZ_MORE
@given(cases=batch(st.tuples(query_parameters, st.sampled_from(["GET", "DELETE", "PUT"]), st.booleans())))
def test_query_parameters(probe: Probe, cases: list[tuple[dict[str, str], str, bool]]) -> None:
    for params, method, named in cases:
        if "watch" in params and _holds_open(params.get("timeoutSeconds", "")):
            params["timeoutSeconds"] = "-1"  # a watch that ends at once; 0 or none leaves it open
        path = (CM_PATH + "/absent" if named else CM_PATH) + "?" + urllib.parse.urlencode(params)
        if method == "GET":
            probe.read(path)
        else:
            probe.write(method, path, b"{}", "application/json")


path_segments = st.lists(st.one_of(
    st.sampled_from(["api", "apis", "v1", "namespaces", "fuzz", "configmaps", "target", "status", "scale",
                     "apps", "deployments", "..", "", "%2F", "finalize"]),
    st.text(alphabet=string.printable, max_size=10).map(lambda text: urllib.parse.quote(text, safe=""))),
    max_size=7)


@FUZZ_MORE
@given(cases=batch(st.tuples(path_segments, st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]))))
def test_paths(probe: Probe, cases: list[tuple[list[str], str]]) -> None:
    for segments, method in cases:
        path = "/" + "/".join(segments)
        if method == "GET":
            probe.read(path)
        else:
            probe.write(method, path, b'{"metadata":{"name":"p"}}',
                        "application/merge-patch+json" if method == "PATCH" else "application/json")


EVICTEE = NS_PATH + "/pods/evictee"
EVICTEE_BODY = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "evictee", "labels": {"app": "fuzz"}},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
delete_options = st.fixed_dictionaries({}, optional={
    "gracePeriodSeconds": st.one_of(st.integers(min_value=-5, max_value=5), json_values),
    "preconditions": st.one_of(preconditions, json_values),
    "dryRun": st.one_of(st.just(["All"]), json_values)})
evictions = st.one_of(st.fixed_dictionaries({}, optional={
    "apiVersion": st.one_of(st.sampled_from(["policy/v1", "policy/v1beta1"]), json_values),
    "kind": st.one_of(st.just("Eviction"), json_values),
    "metadata": st.one_of(st.fixed_dictionaries({}, optional={
        "name": st.one_of(st.just("evictee"), names, json_values),
        "namespace": st.one_of(st.just("fuzz"), json_values)}), json_values),
    "deleteOptions": st.one_of(delete_options, json_values)}), json_values)


@FUZZ_MORE
@given(cases=batch(st.tuples(evictions, st.booleans())))
def test_evictions(probe: Probe, cases: list[tuple[Any, bool]]) -> None:
    for eviction, dry_run in cases:
        probe.ensure(EVICTEE, NS_PATH + "/pods", EVICTEE_BODY)
        probe.write("POST", EVICTEE + "/eviction" + ("?dryRun=All" if dry_run else ""),
                    json.dumps(eviction).encode(), "application/json")


log_queries = st.dictionaries(
    st.sampled_from(["tailLines", "limitBytes", "sinceSeconds", "container", "follow", "previous", "timestamps"]),
    st.one_of(st.text(max_size=12), st.integers(min_value=-(2**65), max_value=2**65).map(str)), max_size=4)


@FUZZ_MORE
@given(cases=batch(st.tuples(log_queries, st.sampled_from(["log", "exec", "attach", "portforward", "proxy"]))))
def test_kubelet_subresources_of_a_pod_on_no_node(probe: Probe, cases: list[tuple[dict[str, str], str]]) -> None:
    for params, subresource in cases:
        probe.ensure(EVICTEE, NS_PATH + "/pods", EVICTEE_BODY)
        probe.read(EVICTEE + "/" + subresource + "?" + urllib.parse.urlencode(params))


# Valid objects of every kind the surface fixtures hold (golden/surface/fixtures: the kinds served
# since the registry came from discovery), moved into this module's namespace; the target below
# replaces their fields with generated values, and each must still be answered with a success or a
# 4xx Status.
def _newer_kinds() -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    kinds = {(rt.group_version, rt.kind): rt for rt in BUILTIN if not rt.synthetic}
    for path in sorted(glob.glob(os.path.join(GOLDEN, "surface", "fixtures", "*.yaml"))):
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                rt = kinds.get((doc.get("apiVersion"), doc.get("kind"))) if doc else None
                if rt is None or rt.kind == "Namespace":
                    continue
                prefix = f"/apis/{rt.group_version}" if rt.group else "/api/v1"
                if rt.namespaced:
                    doc["metadata"]["namespace"] = "fuzz"
                    prefix += "/namespaces/fuzz"
                found.append((f"{prefix}/{rt.plural}", doc))
    # The fixtures write HPAs through autoscaling/v2; v1 converts, annotations included.
    found.append(("/apis/autoscaling/v1/namespaces/fuzz/horizontalpodautoscalers", {
        "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {
            "name": "hpa-v1", "annotations": {"autoscaling.alpha.kubernetes.io/metrics": "[]"}},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3,
                 "targetCPUUtilizationPercentage": 50}}))
    return found


NEWER_KINDS = _newer_kinds()


def _field_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a document a generated value can go: each key and list item, nested."""
    found = [prefix] if prefix else []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found.extend(_field_paths(child, prefix + (key,)))
    return found


def _with(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copied = json.loads(json.dumps(document))
    parent = copied
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return copied


@FUZZ_MORE
@given(cases=batch(st.tuples(st.sampled_from(range(len(NEWER_KINDS))), st.integers(min_value=0),
                             json_values, st.sampled_from(["POST", "PUT"]))))
def test_newer_kinds_bodies(probe: Probe, cases: list[tuple[int, int, Any, str]]) -> None:
    for which, where, value, method in cases:
        path, valid = NEWER_KINDS[which]
        paths = _field_paths(valid)
        body = _with(valid, paths[where % len(paths)], value)
        name = valid["metadata"]["name"]
        if method == "PUT":
            probe.write("PUT", f"{path}/{name}", json.dumps(body).encode(), "application/json")
        else:
            status = probe.write("POST", path, json.dumps(body).encode(), "application/json")
            if status == 201:
                # Keep the next case's create possible.
                probe.conn.request("DELETE", f"{path}/{urllib.parse.quote(name, safe='')}")
                probe.write("POST", path, json.dumps(valid).encode(), "application/json")
