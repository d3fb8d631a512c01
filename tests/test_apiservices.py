"""APIServices: the local ones of the served group-versions, and those users create for groups this
server does not serve (metrics-server's), which report what upstream's availability controller finds
and are listed in discovery as kube-aggregator lists them."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from support import GOLDEN, ServerProcess, run_kubectl

AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
METRICS = {
    "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
    "metadata": {"name": "v1beta1.metrics.k8s.io", "labels": {"k8s-app": "metrics-server"}},
    "spec": {"service": {"name": "metrics-server", "namespace": "kube-system"}, "group": "metrics.k8s.io",
             "version": "v1beta1", "insecureSkipTLSVerify": True, "groupPriorityMinimum": 100,
             "versionPriority": 100},
}
PATH = "/apis/apiregistration.k8s.io/v1/apiservices"


def _available(server: ServerProcess) -> dict[str, Any]:
    status, got = server.json("GET", f"{PATH}/v1beta1.metrics.k8s.io")
    assert status == 200
    [condition] = got["status"]["conditions"]
    assert condition["type"] == "Available" and condition["status"] == "False"
    return condition  # type: ignore[no-any-return]


def test_an_apiservice_for_a_group_not_served_is_stored_and_unavailable(server: ServerProcess) -> None:
    before = server.request("GET", "/apis", headers={"Accept": AGGREGATED})[1]
    run_kubectl(server, "apply", "-f", "-", stdin=json.dumps(METRICS))
    condition = _available(server)
    assert (condition["reason"], condition["message"]) == (
        "ServiceNotFound", 'service/metrics-server in "kube-system" is not present')
    status, got = server.json("GET", f"{PATH}/v1beta1.metrics.k8s.io")
    assert got["spec"]["service"] == {"namespace": "kube-system", "name": "metrics-server", "port": 443}
    names = [item["metadata"]["name"] for item in server.json("GET", PATH)[1]["items"]]
    assert "v1beta1.metrics.k8s.io" in names and "v1.apps" in names and names == sorted(names)
    # Listed as kube-aggregator lists it, though nothing answers behind it.
    status, aggregated = server.json("GET", "/apis", headers={"Accept": AGGREGATED})
    assert aggregated["items"][-1] == {"metadata": {"name": "metrics.k8s.io"},
                                       "versions": [{"version": "v1beta1", "freshness": "Stale"}]}
    assert aggregated["items"][:-1] == json.loads(before)["items"]
    entry = {"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"}
    group = {"name": "metrics.k8s.io", "versions": [entry], "preferredVersion": entry}
    assert server.json("GET", "/apis")[1]["groups"][-1] == group
    assert server.json("GET", "/apis/metrics.k8s.io")[1] == {"kind": "APIGroup", "apiVersion": "v1", **group}
    for path in ("/apis/metrics.k8s.io/v1beta1", "/apis/metrics.k8s.io/v1beta1/nodes"):
        assert server.request("GET", path) == (503, b"service unavailable\n")
    assert "False (ServiceNotFound)" in run_kubectl(server, "get", "apiservice", "v1beta1.metrics.k8s.io").stdout

    run_kubectl(server, "-n", "kube-system", "create", "service", "clusterip", "metrics-server", "--tcp=443:4443")
    condition = _available(server)
    assert (condition["reason"], condition["message"]) == (
        "EndpointsNotFound", 'cannot find endpointslices for service/metrics-server in "kube-system"')

    run_kubectl(server, "delete", "apiservice", "v1beta1.metrics.k8s.io")
    assert server.json("GET", f"{PATH}/v1beta1.metrics.k8s.io")[0] == 404
    assert server.request("GET", "/apis", headers={"Accept": AGGREGATED})[1] == before
    assert server.request("GET", "/apis/metrics.k8s.io") == (404, b"404 page not found\n")


def test_local_apiservices_cannot_be_deleted(server: ServerProcess) -> None:
    status, body = server.json("DELETE", f"{PATH}/v1.apps")
    assert status == 405 and body["kind"] == "Status" and body["reason"] == "MethodNotAllowed"
    assert server.json("GET", f"{PATH}/v1.apps")[0] == 200


def test_local_apiservices_equal_upstreams(server: ServerProcess) -> None:
    sys.path.insert(0, GOLDEN)
    import compare  # golden/compare.py: the normalization every golden comparison shares

    accept = "application/json;as=Table;v=v1;g=meta.k8s.io"
    status, raw = server.request("GET", PATH + "?includeObject=Object", headers={"Accept": accept})
    assert status == 200
    with open(os.path.join(GOLDEN, "kube-1.36.2", "table",
                           "apiservices.apiregistration.k8s.io.list.includeObject-Object.json")) as f:
        golden = json.load(f)
    # The golden server had the fixtures' CRDs; this one has none.
    expected = [row["object"] for row in compare.norm(golden)["rows"]
                if row["object"]["metadata"]["name"] != "v1.example.com"]
    assert [row["object"] for row in compare.norm(json.loads(raw))["rows"]] == expected


def test_apiservices_are_selected_by_label_and_name(server: ServerProcess) -> None:
    run_kubectl(server, "apply", "-f", "-", stdin=json.dumps(METRICS))
    status, found = server.json("GET", PATH + "?labelSelector=k8s-app%3Dmetrics-server")
    assert status == 200 and [i["metadata"]["name"] for i in found["items"]] == ["v1beta1.metrics.k8s.io"]
    status, found = server.json("GET", PATH + "?fieldSelector=metadata.name%3Dv1.apps")
    assert status == 200 and [i["metadata"]["name"] for i in found["items"]] == ["v1.apps"]
    status, found = server.json("GET", PATH + "?labelSelector=kube-aggregator.kubernetes.io%2Fautomanaged%3Donstart")
    assert status == 200 and "v1beta1.metrics.k8s.io" not in [i["metadata"]["name"] for i in found["items"]]
