"""CRD conversion webhooks (`spec.conversion.strategy: Webhook`): a real HTTPS webhook on loopback
(conversion_scenarios.review_answer, v1alpha1 `spec.size` <-> v1 `spec.replicas`), driven with the
recorded scenarios, kubectl and the official kubernetes client.

Each scenario must answer its clients as kube-apiserver 1.36.2 did (tests/fixtures/conversion,
recorded by tools/capture_conversion_reference.py), and every ConversionReview this server sends
must be one the reference sent in the same scenario. The reference sends more of them: its watch
cache converts each object it caches, and its field manager converts objects into the version of
each managedFields entry; this server converts what a request reads or writes, when it does.
"""

from __future__ import annotations

import difflib
import json
import os
import threading
import time
from typing import Any, Iterator

import pytest
from conversion_scenarios import SCENARIOS, Scenario, _watched, cache, compared
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException
from support import ServerProcess, run_kubectl
from webhook_scenarios import DNS_NAMES, Cluster
from webhook_server import WebhookServer, make_certificates

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "conversion")
# Steps whose managedFields differ, left out of those steps' comparison: the reference's field manager
# keeps a manager's entries per apiVersion, converting the object into each entry's version through the
# webhook; this server keeps one entry per manager, in the version of its last write.
# Each step named here follows a write in one version to a field another manager set in the other.
_MANAGED_FIELDS_DIFFER = {("round_trip", "put_v1alpha1"), ("round_trip", "watch_v1alpha1"),
                          ("subresources", "patch_status_v1alpha1"), ("subresources", "get_v1"),
                          ("subresources", "deletecollection_v1alpha1")}
# The hanging webhook's call gives up after upstream's 30 s: it runs beside the other tests.
_SLOW = "hanging"


class _Running:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.result: Any = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.result = SCENARIOS[_SLOW](self.cluster)

    def join(self) -> Any:
        self._thread.join(120)
        return self.result


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(str(tmp_path_factory.mktemp("conversion") / "server"))
    process.start()
    try:
        yield process
    finally:
        process.stop_all()


@pytest.fixture(scope="module")
def cluster(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    directory = tmp_path_factory.mktemp("webhook")
    certificates = make_certificates(str(directory / "webhook"), DNS_NAMES)
    webhook = WebhookServer(certificates).start()
    try:
        yield Cluster(server.url, server.token, webhook, certificates,
                      make_certificates(str(directory / "other"), ca_name="another-ca").ca_bundle)
    finally:
        webhook.stop()


@pytest.fixture(scope="module")
def slow(cluster: Cluster) -> Iterator[_Running]:
    running = _Running(cluster)
    yield running
    running.join()  # before the servers it talks to stop


def _recorded(name: str) -> Any:
    with open(os.path.join(FIXTURES, f"{name}.json")) as f:
        return json.load(f)


def _without(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, key) for k, v in value.items() if k != key}
    if isinstance(value, list):
        return [_without(v, key) for v in value]
    return value


def _answers(name: str, result: Any) -> Any:
    """What clients saw, step by step; the CR lists' `continue: ""` left out (see below)."""
    out = {}
    for step, seen in result.items():
        answer = seen["client"] if isinstance(seen, dict) and "client" in seen else seen
        if (name, step) in _MANAGED_FIELDS_DIFFER:
            answer = _without(answer, "managedFields")
        body = answer.get("body") if isinstance(answer, dict) else None
        if isinstance(body, dict) and body.get("kind", "").endswith("List"):
            # kube-apiserver writes an empty continue into every custom resource list, with or
            # without conversion; this server leaves it out (a difference of all CR lists).
            body["metadata"].pop("continue", None)
        out[step] = answer
    return out


def _sent(result: Any) -> list[str]:
    return sorted({json.dumps(review, sort_keys=True) for seen in result.values()
                   if isinstance(seen, dict) for review in seen.get("sent") or ()})


def _compare(name: str, ours: Any) -> None:
    recorded = _recorded(name)
    ours_answers, recorded_answers = _answers(name, ours), _answers(name, recorded)
    if ours_answers != recorded_answers:
        diff = difflib.unified_diff(_lines(recorded_answers), _lines(ours_answers), "reference", "ours", lineterm="")
        pytest.fail("\n".join(diff), pytrace=False)
    extra = [review for review in _sent(ours) if review not in _sent(recorded)]
    assert not extra, f"reviews the reference never sent: {extra}"


def _lines(value: Any) -> list[str]:
    return json.dumps(value, indent=1, sort_keys=True).splitlines()


@pytest.mark.parametrize("name", [name for name in SCENARIOS if name != _SLOW])
def test_the_scenario_goes_as_on_the_reference(cluster: Cluster, slow: _Running, name: str) -> None:
    _compare(name, compared(SCENARIOS[name](cluster), cluster.run))


def test_each_object_of_a_list_is_sent_in_one_review(cluster: Cluster) -> None:
    with Scenario(cluster, "onereview") as s:
        for index in range(5):
            made = cluster.request("POST", s.url("v1"), cache(s.group, "v1", f"c{index}", index))
            assert made["code"] == 201, made
        before = len(cluster.webhooks.reviews(s.path))
        listed = cluster.request("GET", s.url("v1alpha1"))
        assert [item["spec"]["size"] for item in listed["body"]["items"]] == [0, 1, 2, 3, 4]
        reviews = cluster.webhooks.reviews(s.path)[before:]
        assert [len(r["request"]["objects"]) for r in reviews] == [5]
        # Read in the storage version, nothing is sent.
        assert cluster.request("GET", s.url("v1"))["code"] == 200
        assert len(cluster.webhooks.reviews(s.path)) == before + 1


def test_kubectl_reads_and_writes_either_version(cluster: Cluster, server: ServerProcess) -> None:
    with Scenario(cluster, "kubectl") as s:
        manifest = json.dumps({**cache(s.group, "v1alpha1", "web", 3),
                               "metadata": {"name": "web", "namespace": s.namespace}})
        run_kubectl(server, "apply", "-f", "-", stdin=manifest)
        as_v1 = json.loads(run_kubectl(server, "get", f"caches.v1.{s.group}", "web", "-n", s.namespace,
                                       "-o", "json").stdout)
        assert as_v1["apiVersion"] == f"{s.group}/v1"
        assert as_v1["spec"] == {"engine": "redis", "replicas": 3}
        run_kubectl(server, "patch", f"caches.v1.{s.group}", "web", "-n", s.namespace, "--type=merge",
                    "-p", '{"spec":{"replicas":7}}')
        listed = json.loads(run_kubectl(server, "get", f"caches.v1alpha1.{s.group}", "-n", s.namespace,
                                        "-o", "json").stdout)
        assert [item["spec"] for item in listed["items"]] == [{"engine": "redis", "size": 7}]
        table = run_kubectl(server, "get", f"caches.v1alpha1.{s.group}", "-n", s.namespace).stdout
        assert table.split("\n")[1].startswith("web ")


def _custom(server: ServerProcess) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(config.new_client_from_config(config_file=server.kubeconfig))


def test_the_kubernetes_client_watches_in_the_other_version(cluster: Cluster, server: ServerProcess) -> None:
    api = _custom(server)
    with Scenario(cluster, "client") as s:
        api.create_namespaced_custom_object(s.group, "v1", s.namespace, "caches",
                                            cache(s.group, "v1", "first", 2))
        got = api.get_namespaced_custom_object(s.group, "v1alpha1", s.namespace, "caches", "first")
        assert got["spec"] == {"engine": "redis", "size": 2}
        listed = api.list_namespaced_custom_object(s.group, "v1alpha1", s.namespace, "caches")
        seen: list[tuple[str, Any]] = []
        stream = watch.Watch()

        def follow() -> None:
            for event in stream.stream(api.list_namespaced_custom_object, s.group, "v1alpha1", s.namespace,
                                       "caches", resource_version=listed["metadata"]["resourceVersion"],
                                       timeout_seconds=10):
                seen.append((event["type"], event["object"]))
                if len(seen) == 2:
                    stream.stop()
        follower = threading.Thread(target=follow)
        follower.start()
        api.create_namespaced_custom_object(s.group, "v1", s.namespace, "caches",
                                            cache(s.group, "v1", "second", 9))
        api.patch_namespaced_custom_object(s.group, "v1", s.namespace, "caches", "first",
                                           {"spec": {"replicas": 4}})
        follower.join(15)
        assert [(kind, obj["apiVersion"], obj["metadata"]["name"], obj["spec"]) for kind, obj in seen] == [
            ("ADDED", f"{s.group}/v1alpha1", "second", {"engine": "redis", "size": 9}),
            ("MODIFIED", f"{s.group}/v1alpha1", "first", {"engine": "redis", "size": 4})]


def test_a_failing_webhook_fails_the_read_and_a_watch_tells_its_client(cluster: Cluster,
                                                                      server: ServerProcess) -> None:
    api = _custom(server)
    with Scenario(cluster, "down") as s:
        api.create_namespaced_custom_object(s.group, "v1", s.namespace, "caches",
                                            cache(s.group, "v1", "kept", 1))
        cluster.webhooks.answers[s.path] = lambda _review: (200, b"garbage")
        with pytest.raises(ApiException) as refused:
            api.get_namespaced_custom_object(s.group, "v1alpha1", s.namespace, "caches", "kept")
        assert refused.value.status == 500
        message = json.loads(refused.value.body)["message"]
        assert message.startswith(f"conversion webhook for {s.group}/v1, Kind=Cache failed: couldn't get")
        # The storage version needs no webhook.
        assert api.get_namespaced_custom_object(s.group, "v1", s.namespace, "caches", "kept")["spec"] == {
            "engine": "redis", "replicas": 1}
        watched = cluster.request("GET", s.url("v1alpha1", "?watch=1&timeoutSeconds=2"))
        assert watched["code"] == 200
        assert watched["body"]["type"] == "ERROR"
        assert watched["body"]["object"]["code"] == 500


# The webhook client's own deadline, settled above the store: once, not again on etcd.
@pytest.mark.store_once
def test_a_webhook_that_never_answers_gives_up_after_30_seconds(slow: _Running) -> None:
    _compare(_SLOW, compared(slow.join(), slow.cluster.run))


def test_strategy_none_versions_watched_together_each_get_their_own_version(cluster: Cluster) -> None:
    """Two watchers of one stored object in two versions share its change, never its encoding."""
    run = cluster.run
    name = f"plains.none-{run}.example.com"
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": name},
           "spec": {"group": f"none-{run}.example.com", "scope": "Cluster",
                    "names": {"plural": "plains", "kind": "Plain"},
                    "versions": [{"name": v, "served": True, "storage": v == "v1", "schema": {"openAPIV3Schema": {
                        "type": "object", "x-kubernetes-preserve-unknown-fields": True}}} for v in ("v1", "v2")]}}
    assert cluster.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)["code"] == 201
    base = f"/apis/none-{run}.example.com"
    assert cluster.request("GET", f"{base}/v1/plains")["code"] == 200
    answers: dict[str, list[str]] = {}

    def follow(version: str) -> None:
        # Live changes only (no resourceVersion), which reach every watcher as one shared event.
        watched = _watched(cluster, f"{base}/{version}/plains?watch=1&timeoutSeconds=3")
        answers[version] = [event["object"]["apiVersion"] for event in watched["events"]]
    followers = [threading.Thread(target=follow, args=(v,)) for v in ("v1", "v2")]
    for follower in followers:
        follower.start()
    for index in range(8):  # written while both watch, whenever each started
        body = {"apiVersion": f"none-{run}.example.com/v1", "kind": "Plain", "metadata": {"name": f"p{index}"}}
        assert cluster.request("POST", f"{base}/v1/plains", body)["code"] == 201
        time.sleep(0.25)
    for follower in followers:
        follower.join(10)
    assert answers["v1"] and set(answers["v1"]) == {f"none-{run}.example.com/v1"}
    assert answers["v2"] and set(answers["v2"]) == {f"none-{run}.example.com/v2"}
