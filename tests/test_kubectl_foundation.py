"""The foundation driven by the real kubectl: fixtures in, every everyday verb, a restart, nothing lost."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from support import FIXTURES, ServerProcess, run_kubectl

FIXTURE_FILES = ("00-namespaces.yaml", "01-crds.yaml", "02-cluster.yaml", "03-config.yaml", "04-pods.yaml",
                 "05-workloads.yaml", "06-network-storage.yaml", "07-events.yaml")


def fixture_objects() -> list[dict]:
    objects = []
    for name in FIXTURE_FILES:
        with open(os.path.join(FIXTURES, name)) as f:
            objects.extend(doc for doc in yaml.safe_load_all(f) if doc)
    return objects


def load_fixtures(server: ServerProcess) -> None:
    """What fixtures/apply.sh does, minus the custom objects that need served CRDs."""
    for name in FIXTURE_FILES:
        run_kubectl(server, "apply", "--validate=false", "-f", os.path.join(FIXTURES, name))
    status_dir = os.path.join(FIXTURES, "status")
    for file_name in sorted(os.listdir(status_dir)):
        parts = file_name.removesuffix(".yaml").split("__")
        if "widgets.example.com" in parts:
            continue
        path = os.path.join(status_dir, file_name)
        if len(parts) == 2:
            resource, obj = parts
            run_kubectl(server, "patch", resource, obj, "--subresource=status", "--type=merge", "--patch-file", path)
        else:
            namespace, resource, obj = parts
            run_kubectl(server, "-n", namespace, "patch", resource, obj, "--subresource=status", "--type=merge",
                        "--patch-file", path)
    run_kubectl(server, "-n", "golden", "delete", "pod", "terminating-pod", "--wait=false")


@pytest.fixture(scope="module")
def loaded(shared_server: ServerProcess) -> ServerProcess:
    load_fixtures(shared_server)
    return shared_server


def get_json(server: ServerProcess, *args: str) -> dict:
    return json.loads(run_kubectl(server, "get", "-o", "json", *args).stdout)


def test_every_fixture_is_stored_with_server_set_metadata(loaded: ServerProcess) -> None:
    for obj in fixture_objects():
        if obj["kind"] == "Pod" and obj["metadata"]["name"] == "terminating-pod":
            continue
        ns = obj["metadata"].get("namespace")
        resource = obj["kind"].lower() + "." + obj["apiVersion"].split("/")[0] if "/" in obj["apiVersion"] \
            else obj["kind"].lower()
        args = ["-n", ns] if ns else []
        got = get_json(loaded, *args, resource, obj["metadata"]["name"])
        meta = got["metadata"]
        assert meta["name"] == obj["metadata"]["name"]
        assert meta["uid"] and meta["creationTimestamp"].endswith("Z")
        assert int(meta["resourceVersion"]) > 0
        assert meta.get("labels", {}).items() >= obj["metadata"].get("labels", {}).items()
        if obj["kind"] == "ConfigMap":
            assert got.get("data") == obj.get("data")


def test_status_subresource_patch_changes_only_status(loaded: ServerProcess) -> None:
    pod = get_json(loaded, "-n", "golden", "pod", "running-pod")
    assert pod["status"]["phase"] == "Running"
    assert pod["spec"]["nodeName"] == "node-a"
    before = pod["metadata"]["resourceVersion"]
    run_kubectl(loaded, "-n", "golden", "patch", "pod", "running-pod", "--subresource=status", "--type=merge",
                "-p", '{"status":{"phase":"Failed"},"spec":{"nodeName":"elsewhere"}}')
    after = get_json(loaded, "-n", "golden", "pod", "running-pod")
    assert after["status"]["phase"] == "Failed"
    assert after["spec"]["nodeName"] == "node-a"
    assert int(after["metadata"]["resourceVersion"]) > int(before)
    run_kubectl(loaded, "-n", "golden", "patch", "pod", "running-pod", "--subresource=status", "--type=merge",
                "-p", '{"status":{"phase":"Running"}}')


def test_main_resource_update_ignores_status(loaded: ServerProcess) -> None:
    run_kubectl(loaded, "-n", "golden", "patch", "deployment", "web", "--type=merge",
                "-p", '{"status":{"replicas":99},"metadata":{"labels":{"patched":"yes"}}}')
    deploy = get_json(loaded, "-n", "golden", "deployment", "web")
    assert deploy["metadata"]["labels"]["patched"] == "yes"
    assert deploy["status"].get("replicas") != 99


def test_label_annotate_patch_replace_delete(loaded: ServerProcess) -> None:
    run_kubectl(loaded, "-n", "golden", "create", "--validate=false", "-f", "-", stdin=yaml.safe_dump(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "verbs"}, "data": {"a": "1"}}))
    run_kubectl(loaded, "-n", "golden", "label", "configmap", "verbs", "team=blue")
    run_kubectl(loaded, "-n", "golden", "annotate", "configmap", "verbs", "note=hello")
    run_kubectl(loaded, "-n", "golden", "patch", "configmap", "verbs", "--type=merge", "-p", '{"data":{"b":"2"}}')
    run_kubectl(loaded, "-n", "golden", "patch", "configmap", "verbs", "--type=json",
                "-p", '[{"op":"remove","path":"/data/a"}]')
    cm = get_json(loaded, "-n", "golden", "configmap", "verbs")
    assert cm["metadata"]["labels"] == {"team": "blue"}
    assert cm["metadata"]["annotations"] == {"note": "hello"}
    assert cm["data"] == {"b": "2"}
    cm["data"] = {"replaced": "yes"}
    run_kubectl(loaded, "replace", "--validate=false", "-f", "-", stdin=json.dumps(cm))
    assert get_json(loaded, "-n", "golden", "configmap", "verbs")["data"] == {"replaced": "yes"}
    names = run_kubectl(loaded, "-n", "golden", "get", "configmaps", "-o", "name").stdout.split()
    assert "configmap/verbs" in names
    run_kubectl(loaded, "-n", "golden", "delete", "configmap", "verbs")
    missing = run_kubectl(loaded, "-n", "golden", "get", "configmap", "verbs", check=False)
    assert missing.returncode == 1
    assert 'configmaps "verbs" not found' in missing.stderr


def test_get_yaml_round_trips(loaded: ServerProcess) -> None:
    out = run_kubectl(loaded, "-n", "golden", "get", "secret", "app-secret", "-o", "yaml").stdout
    secret = yaml.safe_load(out)
    assert secret["kind"] == "Secret" and secret["metadata"]["namespace"] == "golden"
    assert secret["data"]


def test_scale_uses_the_scale_subresource(loaded: ServerProcess) -> None:
    before = get_json(loaded, "-n", "golden", "statefulset", "db")
    run_kubectl(loaded, "-n", "golden", "scale", "statefulset", "db", "--replicas=4")
    after = get_json(loaded, "-n", "golden", "statefulset", "db")
    assert after["spec"]["replicas"] == 4
    assert after["metadata"]["generation"] == before["metadata"]["generation"] + 1
    status, scale = loaded.json("GET", "/apis/apps/v1/namespaces/golden/statefulsets/db/scale")
    assert status == 200
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 4}


def test_get_all_lists_the_all_category(loaded: ServerProcess) -> None:
    out = run_kubectl(loaded, "-n", "golden", "get", "all", "-o", "name").stdout.split()
    for expected in ("pod/running-pod", "service/web-lb", "deployment.apps/web", "replicaset.apps/web-5d8f7c9b6d",
                     "statefulset.apps/db", "daemonset.apps/agent", "job.batch/pi-complete",
                     "cronjob.batch/hourly-report"):
        assert expected in out
    assert not any(name.startswith("configmap/") for name in out)


def test_short_names_resolve(loaded: ServerProcess) -> None:
    for short, kind in (("cm", "ConfigMap"), ("deploy", "Deployment"), ("sts", "StatefulSet"), ("ev", "Event"),
                        ("pvc", "PersistentVolumeClaim"), ("ing", "Ingress"), ("cj", "CronJob")):
        listing = get_json(loaded, "-n", "golden", short)
        assert listing["items"] and all(item["kind"] == kind for item in listing["items"])


def test_finalizer_holds_deleted_pod_until_removed(loaded: ServerProcess) -> None:
    pod = get_json(loaded, "-n", "golden", "pod", "terminating-pod")
    assert pod["metadata"]["deletionTimestamp"]
    assert pod["metadata"]["deletionGracePeriodSeconds"] == 30
    assert pod["metadata"]["finalizers"] == ["example.com/hold"]


def test_finalizer_removal_completes_a_deletion(loaded: ServerProcess) -> None:
    run_kubectl(loaded, "-n", "golden", "create", "--validate=false", "-f", "-", stdin=yaml.safe_dump(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "held", "finalizers": ["example.com/x"]}}))
    run_kubectl(loaded, "-n", "golden", "delete", "configmap", "held", "--wait=false")
    held = get_json(loaded, "-n", "golden", "configmap", "held")
    assert held["metadata"]["deletionTimestamp"]
    run_kubectl(loaded, "-n", "golden", "patch", "configmap", "held", "--type=json",
                "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
    assert run_kubectl(loaded, "-n", "golden", "get", "configmap", "held", check=False).returncode == 1


def test_field_selector_on_name(loaded: ServerProcess) -> None:
    listing = get_json(loaded, "-n", "golden", "pods", "--field-selector", "metadata.name=running-pod")
    assert [item["metadata"]["name"] for item in listing["items"]] == ["running-pod"]


def test_everything_survives_a_restart(loaded: ServerProcess) -> None:
    before = get_json(loaded, "-A", "configmaps,pods,deployments,services,nodes,namespaces")
    loaded.stop()
    loaded.start()
    after = get_json(loaded, "-A", "configmaps,pods,deployments,services,nodes,namespaces")
    assert after["items"] == before["items"]
