"""The official `kubernetes` Python client against the real server, with the kubeconfig it wrote."""

from __future__ import annotations

import threading

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from support import ServerProcess


@pytest.fixture
def api(shared_server: ServerProcess) -> client.ApiClient:
    return config.new_client_from_config(config_file=shared_server.kubeconfig)


def test_crud_through_typed_clients(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    apps = client.AppsV1Api(api)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py")))
    cm = core.create_namespaced_config_map("py", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="settings", labels={"app": "demo"}), data={"mode": "fast"}))
    assert cm.metadata.uid and int(cm.metadata.resource_version) > 0
    cm.data["mode"] = "faster"
    replaced = core.replace_namespaced_config_map("settings", "py", cm)
    assert int(replaced.metadata.resource_version) > int(cm.metadata.resource_version)
    patched = core.patch_namespaced_config_map("settings", "py", {"metadata": {"labels": {"extra": "yes"}}},
                                             _content_type="application/merge-patch+json")
    assert patched.metadata.labels == {"app": "demo", "extra": "yes"}
    deployment = apps.create_namespaced_deployment("py", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})
    assert deployment.metadata.generation == 1
    scale = apps.patch_namespaced_deployment_scale("web", "py", {"spec": {"replicas": 5}},
                                                   _content_type="application/merge-patch+json")
    assert scale.spec.replicas == 5
    assert apps.read_namespaced_deployment("web", "py").metadata.generation == 2
    names = [item.metadata.name for item in core.list_namespaced_config_map("py").items]
    assert names == ["settings"]
    core.delete_namespaced_config_map("settings", "py")
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_config_map("settings", "py")
    assert missing.value.status == 404


def test_conflict_is_reported_as_409(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    cm = core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cas")))
    core.patch_namespaced_config_map("cas", "default", {"data": {"x": "1"}},
                                     _content_type="application/merge-patch+json")
    cm.data = {"x": "2"}
    with pytest.raises(ApiException) as conflict:
        core.replace_namespaced_config_map("cas", "default", cm)
    assert conflict.value.status == 409


def test_watch_sees_every_change_and_resumes(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="watched")))
    start = core.list_namespaced_config_map("watched").metadata.resource_version
    seen: list[tuple[str, str]] = []

    def consume() -> None:
        w = watch.Watch()
        for event in w.stream(core.list_namespaced_config_map, "watched", resource_version=start,
                              timeout_seconds=5):
            seen.append((event["type"], event["object"].metadata.name))
            if len(seen) == 4:
                w.stop()

    reader = threading.Thread(target=consume)
    reader.start()
    core.create_namespaced_config_map("watched", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="a")))
    core.create_namespaced_config_map("watched", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="b")))
    core.patch_namespaced_config_map("a", "watched", {"data": {"k": "v"}},
                                     _content_type="application/merge-patch+json")
    core.delete_namespaced_config_map("b", "watched")
    reader.join(10)
    assert seen == [("ADDED", "a"), ("ADDED", "b"), ("MODIFIED", "a"), ("DELETED", "b")]

    resumed = [(e["type"], e["object"].metadata.name) for e in watch.Watch().stream(
        core.list_namespaced_config_map, "watched", resource_version=start, timeout_seconds=1)]
    assert resumed == seen
