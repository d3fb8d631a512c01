"""A second `kubectl apply` of a changed manifest patches only the change, and `kubectl diff` is then empty."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
import yaml
from golden_objects import fixture_documents
from support import FIXTURES, ServerProcess, run_kubectl, versioned_kubectl


def _changed() -> str:
    """The workloads and services fixtures with a few edits a user would make."""
    docs = fixture_documents("05-workloads.yaml") + fixture_documents("06-network-storage.yaml")
    for doc in docs:
        name = doc["metadata"]["name"]
        if doc["kind"] == "Deployment" and name == "web":
            doc["spec"]["replicas"] = 5
            del doc["metadata"]["labels"]["tier"]
            containers = doc["spec"]["template"]["spec"]["containers"]
            containers[0]["image"] = "registry.example.com/web:2.4.0"
            containers[0]["env"] = [{"name": "MODE", "value": "fast"}]
            del containers[1]
        if doc["kind"] == "Service" and name == "web-nodeport":
            doc["spec"]["ports"][1]["port"] = 9091
    return yaml.safe_dump_all(docs)


def test_a_patch_by_another_manager_takes_over_the_fields_it_changes(server: ServerProcess) -> None:
    run_kubectl(server, "apply", "-f", os.path.join(FIXTURES, "00-namespaces.yaml"))
    run_kubectl(server, "apply", "-f", os.path.join(FIXTURES, "05-workloads.yaml"))
    run_kubectl(server, "-n", "golden", "scale", "deployment", "web", "--replicas=4")
    entries = {e["manager"]: e for e in _get(server, "deployment", "web")["metadata"]["managedFields"]}
    # kubectl scale names no fieldManager: the manager is the User-Agent's product name.
    assert set(entries) == {"kubectl-client-side-apply", "kubectl"}
    assert entries["kubectl"]["subresource"] == "scale"
    assert entries["kubectl"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    run_kubectl(server, "-n", "golden", "patch", "deployment", "web", "-p", '{"spec":{"replicas":6}}')
    entries = {e["manager"]: e for e in _get(server, "deployment", "web")["metadata"]["managedFields"]}
    # The last writer of a field is its only owner; a manager left with nothing is dropped.
    assert set(entries) == {"kubectl-client-side-apply", "kubectl-patch"}
    assert "f:replicas" not in entries["kubectl-client-side-apply"]["fieldsV1"]["f:spec"]
    assert entries["kubectl-patch"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}


def _get(server: ServerProcess, resource: str, name: str) -> dict[str, Any]:
    out = run_kubectl(server, "-n", "golden", "get", resource, name, "-o", "json", "--show-managed-fields")
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("version", ["default", "1.27"])
def test_second_apply_patches_only_the_change(server: ServerProcess, version: str) -> None:
    binary = None if version == "default" else versioned_kubectl(version)
    run_kubectl(server, "apply", "-f", os.path.join(FIXTURES, "00-namespaces.yaml"), binary=binary)
    for name in ("05-workloads.yaml", "06-network-storage.yaml"):
        run_kubectl(server, "apply", "-f", os.path.join(FIXTURES, name), binary=binary)
    before = _get(server, "deployment", "web")
    service_before = _get(server, "service", "web-nodeport")

    out = run_kubectl(server, "apply", "-f", "-", stdin=_changed(), binary=binary)
    assert "deployment.apps/web configured" in out.stdout
    assert "service/web-nodeport configured" in out.stdout
    assert "daemonset.apps/agent unchanged" in out.stdout

    after = _get(server, "deployment", "web")
    assert after["metadata"]["generation"] == before["metadata"]["generation"] + 1
    assert after["metadata"]["labels"] == {"app": "web"}
    assert after["spec"]["replicas"] == 5
    [container] = after["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "registry.example.com/web:2.4.0"
    assert container["env"] == [{"name": "MODE", "value": "fast"}]
    # What the server defaulted, and the user never wrote, stays as it was.
    for key in ("strategy", "revisionHistoryLimit", "progressDeadlineSeconds"):
        assert after["spec"][key] == before["spec"][key]
    assert container["terminationMessagePath"] == "/dev/termination-log"
    # The applier still owns everything it wrote, and nothing of the container it dropped.
    [entry] = after["metadata"]["managedFields"]
    assert entry["manager"] == "kubectl-client-side-apply"
    containers = entry["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert list(containers) == ['k:{"name":"app"}']
    assert containers['k:{"name":"app"}']["f:env"] == {".": {}, 'k:{"name":"MODE"}': {".": {}, "f:name": {},
                                                                                       "f:value": {}}}
    assert "f:tier" not in entry["fieldsV1"]["f:metadata"]["f:labels"]

    service = _get(server, "service", "web-nodeport")
    assert service["spec"]["clusterIP"] == service_before["spec"]["clusterIP"]
    assert [p["nodePort"] for p in service["spec"]["ports"]] == [30080, 30090]
    assert service["spec"]["ports"][1]["port"] == 9091

    # Nothing left to change: diff is empty and a third apply changes nothing.
    diff = run_kubectl(server, "diff", "-f", "-", stdin=_changed(), check=False, binary=binary)
    assert diff.returncode == 0, diff.stdout + diff.stderr
    again = run_kubectl(server, "apply", "-f", "-", stdin=_changed(), binary=binary)
    assert "deployment.apps/web unchanged" in again.stdout
    assert "service/web-nodeport unchanged" in again.stdout


def test_a_node_port_already_taken_is_invalid(server: ServerProcess) -> None:
    run_kubectl(server, "apply", "-f", os.path.join(FIXTURES, "00-namespaces.yaml"))
    service: dict[str, Any] = {"apiVersion": "v1", "kind": "Service",
                               "metadata": {"name": "first", "namespace": "golden"},
               "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30555}]}}
    run_kubectl(server, "apply", "-f", "-", stdin=json.dumps(service))
    service["metadata"]["name"] = "second"
    status, body = server.json("POST", "/api/v1/namespaces/golden/services", service)
    assert status == 422
    assert body["message"] == ('Service "second" is invalid: spec.ports[0].nodePort: '
                               "Invalid value: 30555: provided port is already allocated")
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.ports[0].nodePort",
                                          "message": "Invalid value: 30555: provided port is already allocated"}]
    out_of_range = json.loads(json.dumps(service).replace("30555", "80"))
    status, body = server.json("POST", "/api/v1/namespaces/golden/services", out_of_range)
    assert status == 422
    assert "provided port is not in the valid range. The range of valid ports is 30000-32767" in body["message"]
