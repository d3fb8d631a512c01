"""Storage on a server with controllers: the default StorageClass `standard`, claims bound to matching
volumes or to volumes the simulated provisioner makes on their first consumer's node, and deletes that
wait, as upstream's protection controllers make them wait, until nothing uses the claim or volume."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("storage")),
                       extra_args=["--controllers=*", "--simulate-nodes", "3"]) as proc:
        yield proc


def apply(server: ServerProcess, *objects: dict[str, Any]) -> None:
    run_kubectl(server, "apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List",
                                                              "items": list(objects)}))


def get(server: ServerProcess, kind: str, name: str) -> Any:
    found = run_kubectl(server, "get", kind, name, "-o", "json", check=False)
    return json.loads(found.stdout) if found.returncode == 0 else None


def claim(name: str, size: str = "1Gi", storage_class: str | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, **spec}
    if storage_class is not None:
        body["storageClassName"] = storage_class
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": body}


def volume(name: str, size: str, storage_class: str = "manual", labels: dict[str, str] | None = None,
           policy: str = "Retain") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "persistentVolumeReclaimPolicy": policy, "hostPath": {"path": f"/srv/{name}"}}}


def pod_with(name: str, claim_name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "nginx",
                                     "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}]}}


def phase(server: ServerProcess, kind: str, name: str) -> str | None:
    found = get(server, kind, name)
    return None if found is None else found.get("status", {}).get("phase")


def test_a_fresh_server_has_the_default_storage_class(cluster: ServerProcess, shared_server: ServerProcess) -> None:
    printed = wait_for("the default class", lambda: run_kubectl(cluster, "get", "storageclass", "--no-headers").stdout)
    assert printed.split()[:5] == ["standard", "(default)", "fastkube.io/simulated", "Delete", "WaitForFirstConsumer"]
    bare = run_kubectl(shared_server, "get", "storageclass")
    assert (bare.stdout, bare.stderr.strip()) == ("", "No resources found")


def test_a_claim_waits_for_its_first_consumer_then_gets_a_volume_on_its_node(cluster: ServerProcess) -> None:
    apply(cluster, claim("cache", "3Gi"))
    assert wait_for("the waiting event", lambda: "waiting for first consumer to be created before binding" in
                    run_kubectl(cluster, "describe", "pvc", "cache").stdout)
    assert phase(cluster, "pvc", "cache") == "Pending"
    apply(cluster, pod_with("cache-user", "cache"))
    wait_for("the claim bound", lambda: phase(cluster, "pvc", "cache") == "Bound")
    bound = get(cluster, "pvc", "cache")
    pod = wait_for("the pod running", lambda: (p := get(cluster, "pod", "cache-user"))
                   and p["status"].get("phase") == "Running" and p)
    node = pod["spec"]["nodeName"]
    assert bound["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node
    assert bound["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] == "fastkube.io/simulated"
    assert bound["spec"]["storageClassName"] == "standard"  # the default class, given at admission
    assert bound["status"]["capacity"] == {"storage": "3Gi"}
    pv = get(cluster, "pv", bound["spec"]["volumeName"])
    assert pv["metadata"]["name"] == f"pvc-{bound['metadata']['uid']}"
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == "fastkube.io/simulated"
    assert pv["spec"]["claimRef"]["uid"] == bound["metadata"]["uid"]
    assert pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"] == [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]
    assert pv["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    events = run_kubectl(cluster, "get", "events", "--field-selector", "involvedObject.name=cache").stdout
    assert "ProvisioningSucceeded" in events and f"Successfully provisioned volume {pv['metadata']['name']}" in events


def test_an_immediate_claim_binds_the_smallest_matching_volume(cluster: ServerProcess) -> None:
    apply(cluster, volume("small", "1Gi"), volume("medium", "5Gi"), volume("large", "10Gi"),
          volume("labelled", "20Gi", labels={"tier": "gold"}))
    apply(cluster, claim("logs", "2Gi", "manual"), claim("gold", "2Gi", "manual",
                                                           selector={"matchLabels": {"tier": "gold"}}))
    wait_for("both bound", lambda: phase(cluster, "pvc", "logs") == phase(cluster, "pvc", "gold") == "Bound")
    assert get(cluster, "pvc", "logs")["spec"]["volumeName"] == "medium"
    assert get(cluster, "pvc", "gold")["spec"]["volumeName"] == "labelled"
    medium = get(cluster, "pv", "medium")
    assert medium["status"]["phase"] == "Bound"
    assert medium["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert (phase(cluster, "pv", "small"), phase(cluster, "pv", "large")) == ("Available", "Available")
    apply(cluster, claim("huge", "50Gi", "manual"))
    # No volume is big enough, and the class names no StorageClass to provision one: upstream's words.
    described = wait_for("the failed provisioning", lambda: "ProvisioningFailed" in (d := run_kubectl(
        cluster, "describe", "pvc", "huge").stdout) and d)
    assert 'storageclass.storage.k8s.io "manual" not found' in described
    assert phase(cluster, "pvc", "huge") == "Pending"


def test_a_claim_in_use_is_deleted_only_when_its_pod_goes(cluster: ServerProcess) -> None:
    apply(cluster, claim("scratch"), pod_with("scratch-user", "scratch"))
    wait_for("the pod running", lambda: phase(cluster, "pod", "scratch-user") == "Running")
    volume_name = get(cluster, "pvc", "scratch")["spec"]["volumeName"]
    run_kubectl(cluster, "delete", "pvc", "scratch", "--wait=false")
    held = get(cluster, "pvc", "scratch")
    assert held["metadata"]["deletionTimestamp"] and held["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    assert "Terminating" in run_kubectl(cluster, "get", "pvc", "scratch", "--no-headers").stdout
    run_kubectl(cluster, "delete", "pod", "scratch-user")
    wait_for("the claim gone", lambda: get(cluster, "pvc", "scratch") is None)
    wait_for("its volume reclaimed (Delete)", lambda: get(cluster, "pv", volume_name) is None)


def test_a_bound_volume_is_deleted_only_once_released(cluster: ServerProcess) -> None:
    apply(cluster, volume("kept", "1Gi", storage_class="kept"), claim("keeper", "1Gi", "kept"))
    wait_for("bound", lambda: phase(cluster, "pvc", "keeper") == "Bound")
    run_kubectl(cluster, "delete", "pv", "kept", "--wait=false")
    assert get(cluster, "pv", "kept")["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    run_kubectl(cluster, "delete", "pvc", "keeper")
    wait_for("the volume gone", lambda: get(cluster, "pv", "kept") is None)


def test_a_released_volume_with_retain_stays_released(cluster: ServerProcess) -> None:
    apply(cluster, volume("archive", "1Gi", storage_class="archive"), claim("archiver", "1Gi", "archive"))
    wait_for("bound", lambda: phase(cluster, "pvc", "archiver") == "Bound")
    run_kubectl(cluster, "delete", "pvc", "archiver")
    wait_for("released", lambda: phase(cluster, "pv", "archive") == "Released")


def test_a_pod_whose_claim_is_missing_waits_and_says_so(cluster: ServerProcess) -> None:
    apply(cluster, pod_with("lonely", "nowhere"))
    message = wait_for("the condition", lambda: next(
        (c["message"] for c in (get(cluster, "pod", "lonely") or {}).get("status", {}).get("conditions", ())
         if c["type"] == "PodScheduled"), None))
    assert message == ('0/3 nodes are available: persistentvolumeclaim "nowhere" not found. preemption: 0/3 nodes are '
                       "available: 3 Preemption is not helpful for scheduling.")
    apply(cluster, claim("nowhere"))
    wait_for("lonely running", lambda: phase(cluster, "pod", "lonely") == "Running")


def test_an_ephemeral_volume_gets_its_claim_which_goes_with_the_pod(cluster: ServerProcess) -> None:
    apply(cluster, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "builder"},
                    "spec": {"containers": [{"name": "app", "image": "nginx"}],
                             "volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
                                 "metadata": {"labels": {"type": "scratch"}},
                                 "spec": {"accessModes": ["ReadWriteOnce"],
                                          "resources": {"requests": {"storage": "1Gi"}}}}}}]}})
    wait_for("the builder running", lambda: phase(cluster, "pod", "builder") == "Running")
    made = get(cluster, "pvc", "builder-scratch")
    assert made["status"]["phase"] == "Bound" and made["metadata"]["labels"] == {"type": "scratch"}
    [owner] = made["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["controller"], owner["blockOwnerDeletion"]) == (
        "Pod", "builder", True, True)
    run_kubectl(cluster, "delete", "pod", "builder")
    wait_for("its claim gone with it", lambda: get(cluster, "pvc", "builder-scratch") is None)


def test_a_pod_placed_on_a_node_waits_for_its_claim(cluster: ServerProcess) -> None:
    placed = pod_with("placed", "later")
    placed["spec"]["nodeName"] = "node-1"
    apply(cluster, placed)
    # Another pod on that node, started after it: by then its kubelet has seen the first one, and held it.
    run_kubectl(cluster, "run", "marker", "--image=nginx", "--overrides", json.dumps({"spec": {"nodeName": "node-1"}}))
    wait_for("the marker running", lambda: phase(cluster, "pod", "marker") == "Running")
    assert phase(cluster, "pod", "placed") == "Pending"
    apply(cluster, volume("for-later", "1Gi", storage_class="later"), claim("later", "1Gi", "later"))
    wait_for("placed running once its claim is bound", lambda: phase(cluster, "pod", "placed") == "Running")
