"""pods/eviction against PodDisruptionBudgets, as upstream's eviction REST; `kubectl drain` on top of it.

No disruption controller runs here: each test writes the budget's status through /status, as one would.
"""

from __future__ import annotations

import json

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException
from support import ServerProcess, run_kubectl

NODE = "worker-1"
BUDGET_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."


def ok(answer: tuple[int, object], status: int = 200) -> dict:
    code, body = answer
    assert code == status, body
    assert isinstance(body, dict)
    return body


def make_namespace(server: ServerProcess, name: str) -> str:
    ok(server.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}),
       201)
    return name


def make_running_pod(server: ServerProcess, namespace: str, name: str, labels: dict[str, str], ready: bool = True,
                     node: str = NODE) -> dict:
    ok(server.json("POST", f"/api/v1/namespaces/{namespace}/pods", {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": labels, "ownerReferences": [{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8f", "uid": "6a1c6c2e-0000-4000-8000-000000000001",
            "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"nodeName": node, "containers": [{"name": "web", "image": "nginx:1.27"}]}}), 201)
    return ok(server.request_json_patch(
        f"/api/v1/namespaces/{namespace}/pods/{name}/status",
        {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}))


def make_budget(server: ServerProcess, namespace: str, name: str, labels: dict[str, str],
                status: dict | None) -> dict:
    created = ok(server.json("POST", f"/apis/policy/v1/namespaces/{namespace}/poddisruptionbudgets", {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": labels}}}), 201)
    if status is None:
        return created
    return ok(server.request_json_patch(f"/apis/policy/v1/namespaces/{namespace}/poddisruptionbudgets/{name}/status",
                                        {"status": {"observedGeneration": created["metadata"]["generation"], **status}}))


def evict(server: ServerProcess, namespace: str, name: str, extra: dict | None = None,
          query: str = "") -> tuple[int, dict]:
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": namespace},
            **(extra or {})}
    return server.json("POST", f"/api/v1/namespaces/{namespace}/pods/{name}/eviction{query}", body)


def revision(server: ServerProcess) -> str:
    return str(ok(server.json("GET", "/api/v1/pods"))["metadata"]["resourceVersion"])


@pytest.fixture(scope="module")
def cluster(shared_server: ServerProcess) -> ServerProcess:
    def request_json_patch(path: str, body: dict) -> tuple[int, object]:
        status, raw = shared_server.request("PATCH", path, json.dumps(body).encode(),
                                            content_type="application/merge-patch+json")
        return status, json.loads(raw)

    shared_server.request_json_patch = request_json_patch  # type: ignore[attr-defined]
    ok(shared_server.json("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": NODE}}),
       201)
    return shared_server


def test_a_budget_allowing_no_disruption_refuses_with_429(cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-none")
    make_running_pod(cluster, ns, "web-1", {"app": "web"})
    make_budget(cluster, ns, "web", {"app": "web"},
                {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1})
    before = revision(cluster)
    status, refused = evict(cluster, ns, "web-1")
    assert status == 429
    assert refused == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": BUDGET_MESSAGE, "reason": "TooManyRequests",
                       "details": {"causes": [{"reason": "DisruptionBudget",
                                               "message": "The disruption budget web needs 1 healthy pods and has 1 "
                                                          "currently"}]},
                       "code": 429}
    assert revision(cluster) == before
    assert ok(cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/web-1"))["metadata"].get("deletionTimestamp") is None


def test_a_budget_whose_status_is_not_observed_yet_asks_to_retry(cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-stale")
    make_running_pod(cluster, ns, "web-1", {"app": "web"})
    make_budget(cluster, ns, "web", {"app": "web"}, None)
    status, refused = evict(cluster, ns, "web-1")
    assert status == 429
    assert refused["details"] == {"causes": [{"reason": "DisruptionBudget",
                                              "message": "The disruption budget web is still being processed by the "
                                                         "server."}],
                                  "retryAfterSeconds": 10}
    # A spec change the controller has not seen (generation 2, observed 1) is just as stale.
    make_budget(cluster, ns, "api", {"app": "api"},
                {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2})
    ok(cluster.request_json_patch(f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/api",
                                  {"spec": {"minAvailable": 2}}))
    make_running_pod(cluster, ns, "api-1", {"app": "api"})
    assert evict(cluster, ns, "api-1")[0] == 429


def test_an_allowed_eviction_takes_one_disruption_and_deletes_the_pod(cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-one")
    make_running_pod(cluster, ns, "web-1", {"app": "web"})
    make_running_pod(cluster, ns, "web-2", {"app": "web"})
    make_budget(cluster, ns, "web", {"app": "web"},
                {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2})
    answer = ok(evict(cluster, ns, "web-1", {"deleteOptions": {"gracePeriodSeconds": 0}}), 201)
    assert answer == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    assert cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/web-1")[0] == 404
    budget = ok(cluster.json("GET", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/web"))
    assert budget["status"]["disruptionsAllowed"] == 0
    assert list(budget["status"]["disruptedPods"]) == ["web-1"]
    [condition] = budget["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == ("DisruptionAllowed", "False",
                                                                             "InsufficientPods")
    # The budget is spent now: the second pod stays.
    assert evict(cluster, ns, "web-2")[0] == 429


def test_the_default_grace_period_leaves_the_pod_terminating_with_its_disruption_condition(
        cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-grace")
    make_running_pod(cluster, ns, "web-1", {"app": "web"})
    ok(evict(cluster, ns, "web-1"), 201)
    pod = ok(cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/web-1"))
    assert pod["metadata"]["deletionGracePeriodSeconds"] == 30
    target = [c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert [(c["status"], c["reason"], c["message"]) for c in target] == [
        ("True", "EvictionByEvictionAPI", "Eviction API: evicting")]


def test_pending_pods_and_unready_pods_under_a_healthy_budget_go_without_spending_it(cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-free")
    ok(cluster.json("POST", f"/api/v1/namespaces/{ns}/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pending", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}), 201)
    make_running_pod(cluster, ns, "unready", {"app": "web"}, ready=False)
    make_budget(cluster, ns, "web", {"app": "web"},
                {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 2})
    ok(evict(cluster, ns, "pending"), 201)
    assert cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/pending")[0] == 404
    ok(evict(cluster, ns, "unready", {"deleteOptions": {"gracePeriodSeconds": 0}}), 201)
    assert cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/unready")[0] == 404
    budget = ok(cluster.json("GET", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/web"))
    assert "disruptedPods" not in budget["status"]


def test_a_pod_under_two_budgets_is_a_500_as_upstream(cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-two")
    make_running_pod(cluster, ns, "web-1", {"app": "web", "tier": "front"})
    healthy = {"disruptionsAllowed": 1, "currentHealthy": 1, "desiredHealthy": 0, "expectedPods": 1}
    make_budget(cluster, ns, "by-app", {"app": "web"}, healthy)
    make_budget(cluster, ns, "by-tier", {"tier": "front"}, healthy)
    assert evict(cluster, ns, "web-1") == (500, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
        "code": 500})


def test_dry_run_changes_nothing(cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-dry")
    make_running_pod(cluster, ns, "web-1", {"app": "web"})
    make_budget(cluster, ns, "web", {"app": "web"},
                {"disruptionsAllowed": 1, "currentHealthy": 1, "desiredHealthy": 0, "expectedPods": 1})
    before = revision(cluster)
    ok(evict(cluster, ns, "web-1", query="?dryRun=All"), 201)
    assert revision(cluster) == before


@pytest.mark.parametrize("body, code, message", [
    ({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "other"}}, 400,
     "name in URL does not match name in Eviction object"),
    ({"apiVersion": "apps/v1", "kind": "Eviction", "metadata": {"name": "web-1"}}, 400,
     ('Eviction in version "v1" cannot be handled as a Eviction: no kind "Eviction" is registered for version '
      '"apps/v1" in scheme "deps/github.com/openshift/kubernetes/pkg/api/legacyscheme/scheme.go:30"')),
    ({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web-1", "namespace": "elsewhere"}}, 400,
     "the namespace of the provided object does not match the namespace sent on the request"),
    ({"metadata": {"name": "web-1"}, "deleteOptions": {"preconditions": ["uid"]}}, 400,
     ('Eviction in version "v1" cannot be handled as a Eviction: json: cannot unmarshal array into Go struct field '
      "DeleteOptions.deleteOptions.preconditions of type v1.Preconditions")),
    ({"metadata": {"name": "web-1"}, "deleteOptions": {"gracePeriodSeconds": "30"}}, 400,
     ('Eviction in version "v1" cannot be handled as a Eviction: json: cannot unmarshal string into Go struct field '
      "DeleteOptions.deleteOptions.gracePeriodSeconds of type int64")),
    # Any dryRun value is a dry run (dryrun.IsDryRun): no condition is written before the delete refuses it.
    ({"metadata": {"name": "web-1"}, "deleteOptions": {"dryRun": ["Some"]}}, 422,
     'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"'),
])
def test_bad_evictions_are_refused_and_write_nothing(cluster: ServerProcess, body: dict, code: int,
                                                     message: str) -> None:
    ns = "evict-bad"
    if cluster.json("GET", f"/api/v1/namespaces/{ns}")[0] == 404:
        make_namespace(cluster, ns)
        make_running_pod(cluster, ns, "web-1", {"app": "web"})
    before = revision(cluster)
    status, refused = cluster.json("POST", f"/api/v1/namespaces/{ns}/pods/web-1/eviction", body)
    assert (status, refused["message"]) == (code, message)
    assert revision(cluster) == before


def test_evicting_a_missing_pod_is_404(cluster: ServerProcess) -> None:
    status, refused = evict(cluster, "default", "ghost")
    assert (status, refused["message"]) == (404, 'pods "ghost" not found')


def test_the_python_client_evicts_and_sees_the_budget(cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-py")
    make_running_pod(cluster, ns, "web-1", {"app": "web"})
    make_budget(cluster, ns, "web", {"app": "web"},
                {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1})
    core = client.CoreV1Api(config.new_client_from_config(config_file=cluster.kubeconfig))
    eviction = client.V1Eviction(metadata=client.V1ObjectMeta(name="web-1", namespace=ns),
                                 delete_options=client.V1DeleteOptions(grace_period_seconds=0))
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_pod_eviction("web-1", ns, eviction)
    assert refused.value.status == 429 and json.loads(refused.value.body)["message"] == BUDGET_MESSAGE
    ok(cluster.request_json_patch(f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/web/status",
                                  {"status": {"disruptionsAllowed": 1}}))
    core.create_namespaced_pod_eviction("web-1", ns, eviction)
    assert cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/web-1")[0] == 404


def test_kubectl_drain_retries_against_a_budget_allowing_nothing(cluster: ServerProcess) -> None:
    node = "drain-blocked"
    ok(cluster.json("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}}), 201)
    ns = make_namespace(cluster, "drain-blocked")
    make_running_pod(cluster, ns, "web-1", {"app": "web"}, node=node)
    make_budget(cluster, ns, "web", {"app": "web"},
                {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1})
    drained = run_kubectl(cluster, "drain", node, "--grace-period=0", "--timeout=8s", check=False)
    assert drained.returncode != 0
    assert f"node/{node} cordoned" in drained.stdout
    assert (f'error when evicting pods/"web-1" -n "{ns}" (will retry after 5s): {BUDGET_MESSAGE}'
            in drained.stderr), drained.stderr
    assert ok(cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/web-1"))["metadata"].get("deletionTimestamp") is None
    assert ok(cluster.json("GET", f"/api/v1/nodes/{node}"))["spec"]["unschedulable"] is True


def test_kubectl_drain_evicts_what_the_budget_allows(cluster: ServerProcess) -> None:
    node = "drain-allowed"
    ok(cluster.json("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}}), 201)
    ns = make_namespace(cluster, "drain-allowed")
    make_running_pod(cluster, ns, "web-1", {"app": "web"}, node=node)
    make_running_pod(cluster, ns, "web-2", {"app": "web"}, node=NODE)
    make_budget(cluster, ns, "web", {"app": "web"},
                {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2})
    drained = run_kubectl(cluster, "drain", node, "--grace-period=0", "--timeout=30s")
    assert f"evicting pod {ns}/web-1" in drained.stderr + drained.stdout
    assert "pod/web-1 evicted" in drained.stdout
    assert f"node/{node} drained" in drained.stdout
    assert cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/web-1")[0] == 404
    assert ok(cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/web-2"))["metadata"].get("deletionTimestamp") is None
    budget = ok(cluster.json("GET", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/web"))
    assert budget["status"]["disruptionsAllowed"] == 0 and list(budget["status"]["disruptedPods"]) == ["web-1"]


def test_policy_v1beta1_evictions_and_stale_preconditions(cluster: ServerProcess) -> None:
    ns = make_namespace(cluster, "evict-beta")
    ok(cluster.json("POST", f"/api/v1/namespaces/{ns}/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pending"},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}), 201)
    status, refused = cluster.json("POST", f"/api/v1/namespaces/{ns}/pods/pending/eviction", {
        "apiVersion": "policy/v1beta1", "kind": "Eviction", "metadata": {"name": "pending"},
        "deleteOptions": {"preconditions": {"uid": "00000000-0000-4000-8000-000000000000"}}})
    assert (status, refused["reason"]) == (409, "Conflict")
    uid = ok(cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/pending"))["metadata"]["uid"]
    assert refused["message"] == (
        'Operation cannot be fulfilled on Pod "pending": the UID in the precondition '
        f"(00000000-0000-4000-8000-000000000000) does not match the UID in record ({uid}). The object might have "
        "been deleted and then recreated")
    ok(cluster.json("POST", f"/api/v1/namespaces/{ns}/pods/pending/eviction", {
        "apiVersion": "policy/v1beta1", "kind": "Eviction", "metadata": {"name": "pending"},
        "deleteOptions": {"preconditions": {"uid": uid}}}), 201)
    assert cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/pending")[0] == 404
