"""CustomResourceDefinitions served end to end: the real server process and the real kubectl."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import yaml
from support import FIXTURES, GOLDEN, ServerProcess, run_kubectl

from apiserver.crd.crdspec import ApiVersionCodec, canonical

DISCOVERY = os.path.join(GOLDEN, "kube-1.36.2", "discovery")
WIDGETS = "/apis/example.com/v1/namespaces/golden/widgets"
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

THINGS_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "things.demo.io"},
    "spec": {
        "group": "demo.io", "scope": "Cluster",
        "names": {"plural": "things", "kind": "Thing", "shortNames": ["th"], "categories": ["demo"]},
        "versions": [
            {"name": "v1beta1", "served": True, "storage": True,
             "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
             "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                      "statusReplicasPath": ".status.replicas",
                                                      "labelSelectorPath": ".status.selector"}}},
            {"name": "v1", "served": True, "storage": False,
             "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
             "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                      "statusReplicasPath": ".status.replicas",
                                                      "labelSelectorPath": ".status.selector"}}},
        ],
    },
}


@pytest.fixture(scope="module")
def loaded(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    """The server with the golden namespaces, CRDs (established) and custom objects."""
    run_kubectl(shared_server, "apply", "--validate=false", "-f", os.path.join(FIXTURES, "00-namespaces.yaml"))
    run_kubectl(shared_server, "apply", "--validate=false", "-f", os.path.join(FIXTURES, "01-crds.yaml"))
    started = time.monotonic()
    waited = run_kubectl(shared_server, "wait", "--for=condition=Established", "crd/widgets.example.com",
                         "crd/gadgets.example.com", "--timeout=10s")
    assert time.monotonic() - started < 5
    assert waited.stdout.count("condition met") == 2
    run_kubectl(shared_server, "apply", "--validate=false", "-f", os.path.join(FIXTURES, "08-custom.yaml"))
    yield shared_server


def _with_status(server: ServerProcess, crd: str) -> dict[str, Any]:
    """The CRD once its controller has written its conditions (a moment after the create, as upstream;
    the create itself already writes a status, with the stored versions but no conditions)."""
    deadline = time.monotonic() + 30
    while True:
        _, obj = server.json("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}")
        if (obj.get("status") or {}).get("conditions") or time.monotonic() > deadline:
            return obj  # type: ignore[no-any-return]
        time.sleep(0.02)


def _sorted_compact(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_crd_status_is_set_like_upstream(loaded: ServerProcess) -> None:
    status, crd = loaded.json("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
    assert status == 200
    conditions = {c["type"]: c for c in crd["status"]["conditions"]}
    assert [c["type"] for c in crd["status"]["conditions"]] == ["NamesAccepted", "Established"]
    assert conditions["Established"]["status"] == "True"
    assert conditions["Established"]["reason"] == "InitialNamesAccepted"
    assert conditions["NamesAccepted"]["reason"] == "NoConflicts"
    assert crd["status"]["acceptedNames"] == {"plural": "widgets", "singular": "widget", "shortNames": ["wd"],
                                              "kind": "Widget", "listKind": "WidgetList", "categories": ["all"]}
    assert crd["status"]["storedVersions"] == ["v1"]
    assert crd["spec"]["conversion"] == {"strategy": "None"}
    assert list(crd["spec"]) == ["group", "names", "scope", "versions", "conversion"]


def _golden_resource_list() -> bytes:
    # Our discovery documents leave out the newline Go's encoder ends them with.
    with open(os.path.join(DISCOVERY, "apis.example.com.v1.json"), "rb") as f:
        return f.read().rstrip(b"\n")


def test_discovery_matches_kube_apiserver(loaded: ServerProcess) -> None:
    golden = _golden_resource_list()
    status, body = loaded.request("GET", "/apis/example.com/v1")
    assert status == 200
    assert body == golden
    _, groups = loaded.json("GET", "/apis")
    assert {"name": "example.com", "versions": [{"groupVersion": "example.com/v1", "version": "v1"}],
            "preferredVersion": {"groupVersion": "example.com/v1", "version": "v1"}} in groups["groups"]
    with open(os.path.join(DISCOVERY, "apis.aggregated-v2.json")) as f:
        golden_items = {i["metadata"]["name"]: i for i in json.load(f)["items"]}
    _, aggregated = loaded.json("GET", "/apis", headers={"Accept": AGGREGATED})
    items = {i["metadata"]["name"]: i for i in aggregated["items"]}
    assert items["example.com"] == golden_items["example.com"]


def test_kubectl_finds_kinds_by_short_name_and_category(loaded: ServerProcess) -> None:
    by_short = run_kubectl(loaded, "get", "wd", "-n", "golden", "-o", "name")
    assert by_short.stdout.split() == ["widget.example.com/widget-alpha", "widget.example.com/widget-beta",
                                       "widget.example.com/widget-gamma"]
    in_all = run_kubectl(loaded, "get", "all", "-n", "golden", "-o", "name")
    assert "widget.example.com/widget-alpha" in in_all.stdout.split()


def test_custom_objects_are_stored_with_sorted_keys(loaded: ServerProcess) -> None:
    status, body = loaded.request("GET", f"{WIDGETS}/widget-alpha")
    assert status == 200
    obj = json.loads(body)
    assert body == _sorted_compact(obj)
    assert obj["metadata"]["generation"] == 1
    assert obj["spec"]["items"] == [{"name": "bolt", "qty": 10}, {"name": "nut", "qty": 20}]
    status, listed = loaded.request("GET", WIDGETS)
    items = json.loads(listed)["items"]
    assert [i["metadata"]["name"] for i in items] == ["widget-alpha", "widget-beta", "widget-gamma"]
    assert json.loads(listed)["kind"] == "WidgetList"
    assert _sorted_compact(items[0]) in listed


def test_status_patches_from_the_fixtures(loaded: ServerProcess) -> None:
    for name in ("widget-alpha", "widget-beta"):
        patch_file = os.path.join(FIXTURES, "status", f"golden__widgets.example.com__{name}.yaml")
        run_kubectl(loaded, "-n", "golden", "patch", "widgets.example.com", name, "--subresource=status",
                    "--type=merge", "--patch-file", patch_file)
        with open(patch_file) as f:
            expected = yaml.safe_load(f)["status"]
        _, obj = loaded.json("GET", f"{WIDGETS}/{name}")
        assert obj["status"] == expected
        assert obj["metadata"]["generation"] == 1
    _, beta = loaded.json("GET", f"{WIDGETS}/widget-beta")
    # The main resource ignores status; a spec change bumps generation.
    status, patched = loaded.json("PATCH", f"{WIDGETS}/widget-beta", {"spec": {"replicas": 5},
                                                                      "status": {"score": 99}},
                                  content_type="application/merge-patch+json")
    assert status == 200
    assert patched["spec"]["replicas"] == 5
    assert patched["status"] == beta["status"]
    assert patched["metadata"]["generation"] == 2


def test_patch_kinds(loaded: ServerProcess) -> None:
    status, obj = loaded.json("PATCH", f"{WIDGETS}/widget-gamma",
                              [{"op": "replace", "path": "/spec/size", "value": "tiny"}],
                              content_type="application/json-patch+json")
    assert status == 200 and obj["spec"]["size"] == "tiny"
    status, obj = loaded.json("PATCH", f"{WIDGETS}/widget-gamma", {"spec": {"owner": None}},
                              content_type="application/merge-patch+json")
    assert status == 200 and "owner" not in obj["spec"]
    status, error = loaded.json("PATCH", f"{WIDGETS}/widget-gamma", {"spec": {"size": "huge"}},
                                content_type="application/strategic-merge-patch+json")
    assert status == 415
    assert error["reason"] == "UnsupportedMediaType"
    refused = run_kubectl(loaded, "-n", "golden", "patch", "widget", "widget-gamma", "-p", '{"spec":{"size":"x"}}',
                          check=False)
    assert refused.returncode != 0
    assert "UnsupportedMediaType" in refused.stderr or "unknown format" in refused.stderr
    with open(os.path.join(FIXTURES, "08-custom.yaml")) as f:
        changed = f.read().replace("color: red", "color: purple")
    applied = run_kubectl(loaded, "apply", "--validate=false", "-f", "-", stdin=changed)  # a merge patch
    assert "gadget.example.com/gadget-one configured" in applied.stdout
    _, gadget = loaded.json("GET", "/apis/example.com/v1/namespaces/golden/gadgets/gadget-one")
    assert gadget["spec"] == {"color": "purple", "parts": ["a", "b"]}


def test_custom_objects_take_no_protobuf_bodies(loaded: ServerProcess) -> None:
    status, error = loaded.json("POST", WIDGETS, b"k8s\x00\x0a\x00", content_type="application/vnd.kubernetes.protobuf")
    assert status == 415
    assert error["message"].endswith("accepted media types include: application/json, application/yaml")


def test_create_watch_and_delete(loaded: ServerProcess) -> None:
    _, listed = loaded.json("GET", "/apis/example.com/v1/namespaces/golden/gadgets")
    since = listed["metadata"]["resourceVersion"]
    gadget = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "gadget-three"},
              "spec": {"color": "green", "anything": {"goes": [1, 2]}}}
    status, created = loaded.json("POST", "/apis/example.com/v1/namespaces/golden/gadgets", gadget)
    assert status == 201
    assert created["spec"] == gadget["spec"]  # preserve-unknown-fields keeps what it was given
    status, _ = loaded.json("PATCH", "/apis/example.com/v1/namespaces/golden/gadgets/gadget-three",
                            {"spec": {"color": "teal"}}, content_type="application/merge-patch+json")
    assert status == 200
    status, _ = loaded.json("DELETE", "/apis/example.com/v1/namespaces/golden/gadgets/gadget-three")
    assert status == 200
    status, body = loaded.request(
        "GET", f"/apis/example.com/v1/namespaces/golden/gadgets?watch=1&resourceVersion={since}&timeoutSeconds=1")
    events = [json.loads(line) for line in body.splitlines()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "gadget-three"), ("MODIFIED", "gadget-three"), ("DELETED", "gadget-three")]
    assert events[1]["object"]["spec"]["color"] == "teal"


def test_versions_scope_and_scale(loaded: ServerProcess) -> None:
    status, _ = loaded.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", THINGS_CRD)
    assert status == 201
    _, group = loaded.json("GET", "/apis/demo.io")
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"]["version"] == "v1"
    thing = {"apiVersion": "demo.io/v1", "kind": "Thing", "metadata": {"name": "one"}, "spec": {"replicas": 2}}
    status, created = loaded.json("POST", "/apis/demo.io/v1/things", thing)
    assert status == 201 and created["apiVersion"] == "demo.io/v1"
    assert "namespace" not in created["metadata"]
    _, old = loaded.json("GET", "/apis/demo.io/v1beta1/things/one")
    assert old["apiVersion"] == "demo.io/v1beta1"
    _, listed = loaded.json("GET", "/apis/demo.io/v1/things")
    assert [i["apiVersion"] for i in listed["items"]] == ["demo.io/v1"]
    assert loaded.json("GET", "/apis/demo.io/v1/namespaces/default/things/one")[0] == 404

    status, scale = loaded.json("GET", "/apis/demo.io/v1/things/one/scale")
    assert status == 200
    assert scale["kind"] == "Scale" and scale["spec"] == {"replicas": 2} and scale["status"] == {"replicas": 0}
    run_kubectl(loaded, "scale", "things.demo.io/one", "--replicas=4")
    status, obj = loaded.json("GET", "/apis/demo.io/v1/things/one")
    assert obj["spec"]["replicas"] == 4 and obj["metadata"]["generation"] == 2
    status, _ = loaded.json("PATCH", "/apis/demo.io/v1/things/one/status",
                            {"status": {"replicas": 3, "selector": "app=x"}},
                            content_type="application/merge-patch+json")
    assert status == 200
    _, scale = loaded.json("GET", "/apis/demo.io/v1/things/one/scale")
    assert scale["status"] == {"replicas": 3, "selector": "app=x"}


def test_deleting_the_crd_removes_endpoints_and_objects(loaded: ServerProcess) -> None:
    crd = dict(THINGS_CRD, metadata={"name": "things.demo.io"})
    if loaded.request("GET", "/apis/demo.io/v1/things")[0] == 404:
        assert loaded.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)[0] == 201
    thing = {"apiVersion": "demo.io/v1", "kind": "Thing", "metadata": {"name": "doomed"}}
    assert loaded.json("POST", "/apis/demo.io/v1/things", thing)[0] == 201
    run_kubectl(loaded, "delete", "crd", "things.demo.io", "--timeout=10s")
    assert loaded.request("GET", "/apis/demo.io/v1/things") == (404, b"404 page not found\n")
    assert loaded.request("GET", "/apis/demo.io") == (404, b"404 page not found\n")
    _, groups = loaded.json("GET", "/apis")
    assert "demo.io" not in [g["name"] for g in groups["groups"]]
    assert loaded.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)[0] == 201
    _, listed = loaded.json("GET", "/apis/demo.io/v1/things")
    assert listed["items"] == []


def test_crds_are_served_again_after_a_restart(loaded: ServerProcess) -> None:
    loaded.stop()
    loaded.start()
    status, obj = loaded.json("GET", f"{WIDGETS}/widget-alpha")
    assert status == 200 and obj["spec"]["size"] == "large"
    status, body = loaded.request("GET", "/apis/example.com/v1")
    assert body == _golden_resource_list()
    assert len(run_kubectl(loaded, "get", "wd", "-n", "golden", "-o", "name").stdout.split()) == 3


@pytest.mark.parametrize("obj", [
    {"apiVersion": "shop.io/v1beta1", "kind": "Gadget", "metadata": {"name": "a"}, "spec": {"x": "é\u2028"}},
    {"Zebra": 1, "apiVersion": "shop.io/v1beta1", "kind": "Gadget", "metadata": {"name": "b"}},
])
def test_version_splice_equals_reserialization(obj: dict[str, Any]) -> None:
    codec = ApiVersionCodec("shop.io/v1", "shop.io/v1beta1")
    stored = orjson.dumps(canonical(obj))
    assert codec.served_bytes(stored) == orjson.dumps(canonical({**obj, "apiVersion": "shop.io/v1"}))


def test_a_crd_claiming_a_built_in_resource_is_not_established(loaded: ServerProcess) -> None:
    # A group needs a dot (validateCustomResourceDefinitionSpec), and a *.k8s.io one an approval annotation.
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "ingresses.networking.k8s.io",
                        "annotations": {"api-approved.kubernetes.io": "unapproved, testing only"}},
           "spec": {"group": "networking.k8s.io", "scope": "Namespaced", "names": {"plural": "ingresses", "kind": "Fake"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
    assert loaded.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)[0] == 201
    stored = _with_status(loaded, "ingresses.networking.k8s.io")
    conditions = {c["type"]: (c["status"], c["reason"]) for c in stored["status"]["conditions"]}
    assert conditions == {"NamesAccepted": ("False", "PluralConflict"), "Established": ("False", "NotAccepted")}
    _, resources = loaded.json("GET", "/apis/networking.k8s.io/v1")
    assert [r["kind"] for r in resources["resources"] if r["name"] == "ingresses"] == ["Ingress"]
    assert loaded.json("DELETE",
                       "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ingresses.networking.k8s.io")[0] == 200
    assert loaded.json("GET", "/apis/networking.k8s.io/v1/namespaces/default/ingresses")[0] == 200


def test_deleting_a_namespace_deletes_its_custom_objects(loaded: ServerProcess) -> None:
    assert loaded.json("POST", "/api/v1/namespaces", {"metadata": {"name": "short-lived"}})[0] == 201
    widgets = "/apis/example.com/v1/namespaces/short-lived/widgets"
    held = {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "held", "finalizers": ["example.com/hold"]}, "spec": {"size": "small"}}
    free = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "free"}}
    assert loaded.json("POST", widgets, held)[0] == 201
    assert loaded.json("POST", widgets, free)[0] == 201
    assert loaded.json("DELETE", "/api/v1/namespaces/short-lived")[0] == 200
    assert loaded.json("GET", f"{widgets}/free")[0] == 404
    status, body = loaded.request("GET", f"{widgets}/held")
    assert status == 200
    obj = json.loads(body)
    assert obj["metadata"]["deletionTimestamp"]
    assert body == _sorted_compact(obj)
    assert loaded.json("PATCH", f"{widgets}/held", {"metadata": {"finalizers": None}},
                       content_type="application/merge-patch+json")[0] == 200
    assert loaded.json("GET", f"{widgets}/held")[0] == 404


def test_the_crd_group_has_its_apiservice(loaded: ServerProcess) -> None:
    with open(os.path.join(GOLDEN, "kube-1.36.2", "table",
                           "apiservices.apiregistration.k8s.io.list.includeObject-Object.json")) as f:
        golden = next(r["object"] for r in json.load(f)["rows"] if r["cells"][0] == "v1.example.com")
    status, ours = loaded.json("GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com")
    assert status == 200
    assert ours["spec"] == golden["spec"]
    assert ours["metadata"]["labels"] == golden["metadata"]["labels"]
    _, crd = loaded.json("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
    assert ours["metadata"]["creationTimestamp"] == crd["metadata"]["creationTimestamp"]
