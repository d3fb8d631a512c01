"""Server-side apply against kube-apiserver 1.36.2's answers, with kubectl, and with the official Python client."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from typing import Any

import pytest
import yaml
from kubernetes import config, dynamic
from golden_objects import fixture_documents
from support import FIXTURES, GOLDEN, ServerProcess, run_kubectl, unavailable

SSA = os.path.join(GOLDEN, "ssa")
APPLY = "application/apply-patch+yaml"

# The one answer we cannot give: the CRD controllers' manager is named after the reference's binary, which
# was "kube-apiserver" when the ssa set was captured and "kube-apiserver-go1264" for every other golden
# (tests/test_kinds_golden.py holds us to that one). Only that name differs in the file.
KNOWN_MISSES = {"38-crd-apply-create.after.json"}


def test_the_ssa_scenarios_answer_as_kube_apiserver(server: ServerProcess, tmp_path: Any) -> None:
    kubectl = shutil.which("kubectl") or unavailable("kubectl is not on PATH")
    if shutil.which("curl") is None:
        unavailable("curl is not on PATH")
    out = os.path.join(str(tmp_path), "capture")
    env = {**os.environ, "BASE": server.url, "TOKEN": server.token, "CACERT": server.ca, "NS": "ssa-public",
           "SET": "public", "OUT": out, "KUBECTL": kubectl, "KUBECONFIG": server.kubeconfig}
    run = subprocess.run([os.path.join(SSA, "ssa_scenario.sh")], env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    compared = subprocess.run(["python3", os.path.join(SSA, "compare_ssa.py"), os.path.join(SSA, "kube-1.36.2"), out],
                              capture_output=True, text=True, timeout=120)
    lines = compared.stdout.strip().splitlines()
    equal, total = map(int, re.fullmatch(r"ssa: (\d+)/(\d+)", lines[-1]).groups())  # type: ignore[union-attr]
    misses = {line.split()[-1] for line in lines[:-1]}
    assert misses == KNOWN_MISSES, compared.stdout
    assert (equal, total) == (207, 208)


# -- kubectl apply --server-side ------------------------------------------------------------------

_ORDER = ["00-namespaces.yaml", "01-crds.yaml", "02-cluster.yaml", "03-config.yaml", "04-pods.yaml",
          "05-workloads.yaml", "06-network-storage.yaml", "07-events.yaml", "08-custom.yaml"]


def _changed(name: str) -> tuple[str, set[tuple[str, str, str]]]:
    """A fixture with an edit a user would make, and which objects the edit touches (none: unchanged)."""
    docs = fixture_documents(name)
    touched: set[tuple[str, str, str]] = set()
    for doc in docs:
        key = (doc["kind"], doc["metadata"].get("namespace", ""), doc["metadata"]["name"])
        if key == ("Deployment", "golden", "web"):
            doc["spec"]["replicas"] = 5
            doc["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example.com/web:2.4.0"
            touched.add(key)
        elif doc["kind"] == "ConfigMap" and not touched:
            doc.setdefault("data", {})["added-by-test"] = "yes"
            touched.add(key)
    return yaml.safe_dump_all(docs), touched


def _snapshot(server: ServerProcess) -> dict[tuple[str, str, str], str]:
    """Every object's resourceVersion, by (kind, namespace, name)."""
    out = run_kubectl(server, "get", "-A", "-o", "json",
                      "configmaps,secrets,deployments,services,pods,statefulsets,daemonsets,jobs,cronjobs,ingresses")
    found = {}
    for item in json.loads(out.stdout)["items"]:
        meta = item["metadata"]
        found[(item["kind"], meta.get("namespace", ""), meta["name"])] = meta["resourceVersion"]
    return found


def test_kubectl_server_side_applies_every_fixture_then_only_the_changes(server: ServerProcess) -> None:
    for name in _ORDER:
        run_kubectl(server, "apply", "--server-side", "-f", os.path.join(FIXTURES, name))
        if name == "01-crds.yaml":
            run_kubectl(server, "wait", "--for=condition=Established", "crd/widgets.example.com",
                        "crd/gadgets.example.com", "--timeout=30s")
    for name in _ORDER:
        diff = run_kubectl(server, "diff", "--server-side", "-f", os.path.join(FIXTURES, name), check=False)
        assert (diff.returncode, diff.stdout) == (0, ""), diff.stdout + diff.stderr
    deployment = json.loads(run_kubectl(server, "-n", "golden", "get", "deployment", "web", "-o", "json",
                                        "--show-managed-fields").stdout)
    entry, = [e for e in deployment["metadata"]["managedFields"] if e["manager"] == "kubectl"]
    assert entry["operation"] == "Apply" and "f:replicas" in entry["fieldsV1"]["f:spec"]

    before = _snapshot(server)
    expected: set[tuple[str, str, str]] = set()
    for name in _ORDER:
        text, touched = _changed(name)
        if not touched:
            continue
        expected |= touched
        result = run_kubectl(server, "apply", "--server-side", "-f", "-", stdin=text)
        assert "serverside-applied" in result.stdout
        diff = run_kubectl(server, "diff", "--server-side", "-f", "-", stdin=text, check=False)
        assert (diff.returncode, diff.stdout) == (0, ""), diff.stdout + diff.stderr
    after = _snapshot(server)
    edited = {key for key in before if before[key] != after.get(key)}
    # Only the objects with an edit were written; their siblings in the same files kept their versions.
    assert ("Deployment", "golden", "web") in expected
    assert edited == expected
    web = json.loads(run_kubectl(server, "-n", "golden", "get", "deployment", "web", "-o", "json").stdout)
    assert web["spec"]["replicas"] == 5
    assert web["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.example.com/web:2.4.0"


def test_kubectl_reports_a_conflict_and_force_conflicts_takes_the_field(server: ServerProcess) -> None:
    manifest = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: default\n"
                "data:\n  owner: first\n")
    run_kubectl(server, "apply", "--server-side", "--field-manager=first", "-f", "-", stdin=manifest)
    second = manifest.replace("owner: first", "owner: second")
    refused = run_kubectl(server, "apply", "--server-side", "--field-manager=second", "-f", "-", stdin=second,
                          check=False)
    assert refused.returncode == 1
    assert 'Apply failed with 1 conflict: conflict with "first": .data.owner' in refused.stderr
    run_kubectl(server, "apply", "--server-side", "--field-manager=second", "--force-conflicts", "-f", "-",
                stdin=second)
    cm = json.loads(run_kubectl(server, "get", "configmap", "shared", "-o", "json", "--show-managed-fields").stdout)
    assert cm["data"] == {"owner": "second"}
    assert [e["manager"] for e in cm["metadata"]["managedFields"]] == ["second"]


# -- the official Python client -------------------------------------------------------------------

def test_the_python_clients_dynamic_server_side_apply(server: ServerProcess) -> None:
    api = config.new_client_from_config(config_file=server.kubeconfig)
    client = dynamic.DynamicClient(api)
    deployments = client.resources.get(api_version="apps/v1", kind="Deployment")
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "py-web", "namespace": "default"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "py-web"}},
                     "template": {"metadata": {"labels": {"app": "py-web"}},
                                  "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}}
    created = deployments.server_side_apply(body=body, name="py-web", namespace="default", field_manager="py")
    assert created.spec.replicas == 2
    assert created.spec.template.spec.containers[0].imagePullPolicy == "IfNotPresent"  # defaulted, not owned
    entry, = created.metadata.managedFields
    assert (entry.manager, entry.operation) == ("py", "Apply")
    assert "f:imagePullPolicy" not in json.dumps(entry.fieldsV1.to_dict())

    again = deployments.server_side_apply(body=body, name="py-web", namespace="default", field_manager="py")
    assert again.metadata.resourceVersion == created.metadata.resourceVersion

    other = {**body, "spec": {"replicas": 4}}
    with pytest.raises(dynamic.exceptions.ConflictError) as refused:
        deployments.server_side_apply(body=other, name="py-web", namespace="default", field_manager="autoscaler")
    status = json.loads(refused.value.body)
    assert status["details"]["causes"] == [{"reason": "FieldManagerConflict", "message": 'conflict with "py"',
                                            "field": ".spec.replicas"}]
    forced = deployments.server_side_apply(body=other, name="py-web", namespace="default",
                                           field_manager="autoscaler", force_conflicts=True)
    assert forced.spec.replicas == 4
    owners = {e.manager: e.fieldsV1.to_dict() for e in forced.metadata.managedFields}
    assert owners["autoscaler"] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in owners["py"]["f:spec"]


# -- subresources ---------------------------------------------------------------------------------

def _apply(server: ServerProcess, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    return server.json("PATCH", path, json.dumps(body).encode(), content_type=APPLY)


def test_apply_to_scale_owns_the_replicas_as_a_scale_subresource_entry(server: ServerProcess) -> None:
    path = "/apis/apps/v1/namespaces/default/deployments/web"
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                           "template": {"metadata": {"labels": {"app": "web"}},
                                        "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}}
    assert _apply(server, path + "?fieldManager=alice", deployment)[0] == 201
    scale = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"}, "spec": {"replicas": 5}}
    status, refused = _apply(server, path + "/scale?fieldManager=hpa", scale)
    assert (status, refused["message"]) == (409, 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas')
    status, answer = _apply(server, path + "/scale?fieldManager=hpa&force=true", scale)
    assert (status, answer["kind"], answer["spec"]) == (200, "Scale", {"replicas": 5})
    _, obj = server.json("GET", path)
    entries = {e["manager"]: e for e in obj["metadata"]["managedFields"]}
    assert obj["spec"]["replicas"] == 5
    assert entries["hpa"]["operation"] == "Apply" and entries["hpa"]["subresource"] == "scale"
    assert entries["hpa"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in entries["alice"]["fieldsV1"]["f:spec"]
    status, wrong = _apply(server, path + "/scale?fieldManager=hpa", {**deployment})
    assert (status, wrong["message"]) == (400, "invalid object type: apps/v1, Kind=Deployment")


def test_update_entries_past_ten_are_merged_oldest_first(server: ServerProcess) -> None:
    path = "/api/v1/namespaces/default/configmaps/crowded"
    assert _apply(server, path + "?fieldManager=owner", {"apiVersion": "v1", "kind": "ConfigMap",
                                                         "metadata": {"name": "crowded"}, "data": {"own": "x"}})[0] == 201
    for i in range(12):
        status, _ = server.json("PATCH", f"{path}?fieldManager=writer-{i:02d}",
                                json.dumps({"data": {f"k{i:02d}": "v"}}).encode(),
                                content_type="application/merge-patch+json")
        assert status == 200
    _, obj = server.json("GET", path)
    entries = obj["metadata"]["managedFields"]
    updates = [e for e in entries if e["operation"] == "Update"]
    assert len(updates) == 10
    ancient, = [e for e in updates if e["manager"] == "ancient-changes"]
    # The three oldest writers share one entry; the Apply entry is never merged away.
    assert ancient["fieldsV1"] == {"f:data": {"f:k00": {}, "f:k01": {}, "f:k02": {}}}
    assert {e["manager"] for e in updates} == {"ancient-changes"} | {f"writer-{i:02d}" for i in range(3, 12)}
    assert [e["manager"] for e in entries if e["operation"] == "Apply"] == ["owner"]
