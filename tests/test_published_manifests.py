"""Manifests in the image of what well-known projects publish (tests/manifests/, written for these
tests) apply with kubectl as on kube-apiserver 1.36, every object they declare is there after, and
`kubectl get` prints it as kube-apiserver's printers do.

A project is one file, or a directory whose files are applied in name order, as its users would:
custom resources only once the CRDs before them are Established.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

import pytest
import yaml
from support import GOLDEN, ServerProcess, run_kubectl

# Once, on the embedded store: accepting and defaulting manifests is decided before the store.
pytestmark = pytest.mark.store_once

MANIFESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifests")
PROJECTS = sorted(os.listdir(MANIFESTS))
GOLDEN_TABLES = [os.path.join(GOLDEN, "kube-1.36.2", "table"), os.path.join(GOLDEN, "kube-1.36.2", "surface", "table")]


def project_files(name: str) -> list[str]:
    path = os.path.join(MANIFESTS, name)
    if os.path.isdir(path):
        return [os.path.join(path, f) for f in sorted(os.listdir(path))]
    return [path]


def declared(name: str) -> list[dict]:
    docs: list[dict] = []
    for path in project_files(name):
        with open(path) as f:
            docs.extend(doc for doc in yaml.safe_load_all(f) if doc)
    return docs


def apply_project(server: ServerProcess, name: str) -> list[str]:
    applied = []
    for path in project_files(name):
        applied += run_kubectl(server, "apply", "-f", path).stdout.splitlines()
        with open(path) as f:
            if re.search(r"^kind: CustomResourceDefinition$", f.read(), re.M):
                run_kubectl(server, "wait", "--for=condition=Established", "crd", "--all", "--timeout=30s")
    return applied


def resource_versions(server: ServerProcess, name: str) -> list[str]:
    """Every declared object's resourceVersion (kubectl answers one object as itself, more as a List)."""
    versions = []
    for path in project_files(name):
        got = json.loads(run_kubectl(server, "get", "-f", path, "-o", "json").stdout)
        versions += [item["metadata"]["resourceVersion"] for item in got.get("items", [got])]
    return versions


@pytest.mark.parametrize("name", PROJECTS)
def test_manifest_applies_and_every_object_is_served(server: ServerProcess, name: str) -> None:
    applied = apply_project(server, name)
    count = len(declared(name))
    assert len(applied) == count and all(line.endswith(" created") for line in applied), applied
    versions = resource_versions(server, name)
    assert len(versions) == count
    # Applying again writes nothing. kubectl may still send a patch (and say "configured") where the
    # server defaulted what the manifest leaves out of a list or a retained-keys struct, as on a real cluster.
    for path in project_files(name):
        run_kubectl(server, "apply", "-f", path)
    assert resource_versions(server, name) == versions


@pytest.fixture(scope="module")
def everything(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    """One server holding every project at once, as a cluster would."""
    for name in PROJECTS:
        apply_project(shared_server, name)
    yield shared_server


def _cells(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def _golden_header(resource: str) -> list[str] | None:
    """The header kubectl prints for a built-in resource: kube-apiserver's column names, upper-cased."""
    for directory in GOLDEN_TABLES:
        path = os.path.join(directory, f"{resource}.list.default.json")
        if os.path.exists(path):
            with open(path) as f:
                return [c["name"].upper() for c in json.load(f)["columnDefinitions"]]
    return None


def _crd_header(docs: list[dict], kind: str, group: str) -> list[str] | None:
    """The header of a custom resource: its CRD's printer columns (Name first), as the CRD declares them."""
    for doc in docs:
        if doc["kind"] == "CustomResourceDefinition" and doc["spec"]["names"]["kind"] == kind \
                and doc["spec"]["group"] == group:
            columns = doc["spec"]["versions"][0].get("additionalPrinterColumns")
            return ["NAME", *(c["name"].upper() for c in columns)] if columns else None
    return None


def _kinds(name: str) -> list[tuple[str, str]]:
    """Each (kind, apiVersion) a project declares, once."""
    return sorted({(doc["kind"], doc["apiVersion"]) for doc in declared(name)})


def _resource(server: ServerProcess, kind: str, api_version: str) -> str:
    """`plural.group` of a kind, from the server's discovery (as kubectl maps kinds)."""
    status, found = server.json("GET", f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}")
    assert status == 200, found
    plural = next(r["name"] for r in found["resources"] if r["kind"] == kind and "/" not in r["name"])
    group = api_version.rpartition("/")[0]
    return f"{plural}.{group}" if group else plural


@pytest.mark.parametrize("name", PROJECTS)
def test_kubectl_get_prints_upstreams_columns_for_every_kind(everything: ServerProcess, name: str) -> None:
    docs = declared(name)
    for kind, api_version in _kinds(name):
        doc = next(d for d in docs if d["kind"] == kind and d["apiVersion"] == api_version)
        scope = ["-n", doc["metadata"]["namespace"]] if "namespace" in doc["metadata"] else []
        resource = _resource(everything, kind, api_version)
        lines = run_kubectl(everything, *scope, "get", resource, doc["metadata"]["name"], "-o", "wide").stdout \
            .splitlines()
        want = _golden_header(resource) or _crd_header(docs, kind, api_version.rpartition("/")[0])
        assert want is not None, f"no golden columns for {resource}"
        assert _cells(lines[0]) == want, (resource, lines)
        assert _cells(lines[1])[0] == doc["metadata"]["name"]


# Rows as kube-apiserver 1.36's printers give them for these objects (ages cut off: they vary).
EXPECTED_ROWS: list[tuple[tuple[str, ...], list[str]]] = [
    (("-n", "cluster-dashboard", "get", "deployments", "cluster-dashboard", "-o", "wide"),
     ["cluster-dashboard", "0/1", "0", "0", "<age>", "cluster-dashboard",
      "registry.example.com/cluster-dashboard:v2.7.0", "k8s-app=cluster-dashboard"]),
    (("-n", "cluster-dashboard", "get", "secrets", "cluster-dashboard-csrf"), ["cluster-dashboard-csrf", "Opaque", "1",
                                                                               "<age>"]),
    (("-n", "cluster-dashboard", "get", "secrets", "cluster-dashboard-certs"), ["cluster-dashboard-certs", "Opaque",
                                                                                "0", "<age>"]),
    (("-n", "cluster-dashboard", "get", "configmaps", "cluster-dashboard-settings"),
     ["cluster-dashboard-settings", "0", "<age>"]),
    (("-n", "cluster-dashboard", "get", "rolebindings", "cluster-dashboard", "-o", "wide"),
     ["cluster-dashboard", "Role/cluster-dashboard", "<age>", "cluster-dashboard/cluster-dashboard"]),
    (("get", "clusterrolebindings", "resource-metrics:system:auth-delegator", "-o", "wide"),
     ["resource-metrics:system:auth-delegator", "ClusterRole/system:auth-delegator", "<age>",
      "kube-system/resource-metrics"]),
    (("get", "priorityclasses", "resource-metrics-critical", "-o", "wide"),
     ["resource-metrics-critical", "1000000000", "false", "<age>", "PreemptLowerPriority"]),
    # No endpoint slices for the Service (no controller made them): upstream's availability reason.
    (("get", "apiservices", "v1beta1.metrics.k8s.io"),
     ["v1beta1.metrics.k8s.io", "kube-system/resource-metrics", "False (EndpointsNotFound)", "<age>"]),
    (("-n", "kube-system", "get", "deployments", "resource-metrics"),
     ["resource-metrics", "0/1", "0", "0", "<age>"]),
    (("-n", "db-operator-system", "get", "poddisruptionbudgets", "db-operator-controller"),
     ["db-operator-controller", "N/A", "1", "0", "<age>"]),
    (("-n", "db-operator-system", "get", "horizontalpodautoscalers", "db-operator-controller"),
     ["db-operator-controller", "Deployment/db-operator-controller", "cpu: <unknown>/80%", "2", "4", "0", "<age>"]),
    (("-n", "db-operator-system", "get", "networkpolicies", "db-operator-allow-webhook-and-metrics"),
     ["db-operator-allow-webhook-and-metrics", "control-plane=db-operator", "<age>"]),
    (("get", "mutatingwebhookconfigurations", "db-operator-mutating-webhook-configuration"),
     ["db-operator-mutating-webhook-configuration", "1", "<age>"]),
    (("get", "validatingwebhookconfigurations", "db-operator-validating-webhook-configuration"),
     ["db-operator-validating-webhook-configuration", "2", "<age>"]),
    # A CRD column whose path finds nothing is printed empty; Interval reads the first endpoint.
    (("-n", "db-operator-system", "get", "metricsmonitors", "db-operator-metrics"),
     ["db-operator-metrics", "30s", "<age>"]),
]


@pytest.mark.parametrize("args, row", EXPECTED_ROWS, ids=["/".join(a[a.index("get") + 1:][:2]) for a, _ in EXPECTED_ROWS])
def test_kubectl_get_prints_upstreams_cells(everything: ServerProcess, args: tuple[str, ...], row: list[str]) -> None:
    lines = run_kubectl(everything, *args).stdout.splitlines()
    assert len(lines) == 2
    cells = _cells(lines[1])
    ages = [i for i, want in enumerate(row) if want == "<age>"]
    assert all(re.fullmatch(r"\d+[smhd]", cells[i]) for i in ages if i < len(cells)), cells
    assert [("<age>" if i in ages else c) for i, c in enumerate(cells)] == row


def _allowed(server: ServerProcess, user: str, verb: str, group: str, resource: str) -> bool:
    """kube-apiserver's answer for the user, asked by group and resource: kubectl's `auth can-i` cannot name
    a group nothing serves (metrics.k8s.io has no server behind its APIService here)."""
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
              "spec": {"user": user, "resourceAttributes": {"namespace": "default", "verb": verb, "group": group,
                                                             "resource": resource}}}
    status, answer = server.json("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review)
    assert status == 201, answer
    return bool(answer["status"]["allowed"])


@pytest.fixture(scope="module")
def bound(everything: ServerProcess) -> ServerProcess:
    for role, user in (("view", "viewer"), ("edit", "editor"), ("admin", "administrator")):
        run_kubectl(everything, "create", "clusterrolebinding", f"{user}-is-{role}", f"--clusterrole={role}",
                    f"--user={user}")
    return everything


@pytest.mark.parametrize("user, verb, group, resource, allowed", [
    ("viewer", "list", "metrics.k8s.io", "pods", True),
    ("editor", "get", "metrics.k8s.io", "nodes", True),
    ("administrator", "watch", "metrics.k8s.io", "nodes", True),
    ("viewer", "get", "db.example.io", "postgresclusters", True),
    ("editor", "create", "db.example.io", "postgresclusters", True),
    ("administrator", "delete", "db.example.io", "postgresclusters", True),
    ("viewer", "create", "db.example.io", "postgresclusters", False),  # view aggregates only the viewer role
    ("viewer", "list", "monitoring.example.io", "metricsmonitors", False),  # no role aggregates monitors
    ("nobody", "list", "metrics.k8s.io", "pods", False),
])
def test_aggregated_roles_hold_the_rules_the_projects_aggregate(bound: ServerProcess, user: str, verb: str,
                                                                group: str, resource: str, allowed: bool) -> None:
    assert _allowed(bound, user, verb, group, resource) is allowed
