"""Loading the golden fixtures with the real kubectl, and the objects kube-apiserver 1.36 kept for them."""

from __future__ import annotations

import glob
import json
import os
from typing import Any, Iterator

import yaml
from support import FIXTURES, GOLDEN, ServerProcess, run_kubectl

FIXTURE_FILES = ("00-namespaces.yaml", "01-crds.yaml", "02-cluster.yaml", "03-config.yaml", "04-pods.yaml",
                 "05-workloads.yaml", "06-network-storage.yaml", "07-events.yaml", "08-custom.yaml")


def load_fixtures(server: ServerProcess, binary: str | None = None) -> None:
    """What fixtures/apply.sh does, with kubectl's default validation."""
    for name in FIXTURE_FILES:
        run_kubectl(server, "apply", "-f", os.path.join(FIXTURES, name), binary=binary)
        if name == "01-crds.yaml":
            run_kubectl(server, "wait", "--for=condition=Established", "crd/widgets.example.com",
                        "crd/gadgets.example.com", "--timeout=30s", binary=binary)
    for path in sorted(glob.glob(os.path.join(FIXTURES, "status", "*.yaml"))):
        parts = os.path.basename(path)[:-len(".yaml")].split("__")
        scope = ["-n", parts[0]] if len(parts) == 3 else []
        run_kubectl(server, *scope, "patch", parts[-2], parts[-1], "--subresource=status", "--type=merge",
                    "--patch-file", path, binary=binary)
    run_kubectl(server, "-n", "golden", "delete", "pod", "terminating-pod", "--wait=false", binary=binary)


def fixture_documents(name: str) -> list[dict[str, Any]]:
    with open(os.path.join(FIXTURES, name)) as f:
        return [doc for doc in yaml.safe_load_all(f) if doc]


def fixture_objects() -> Iterator[dict[str, Any]]:
    for name in FIXTURE_FILES:
        yield from fixture_documents(name)


def resource_name(doc: dict[str, Any]) -> str:
    """The golden file stem for a fixture's kind (plural.group)."""
    plural = {"Endpoints": "endpoints", "IngressClass": "ingressclasses", "Ingress": "ingresses",
              "StorageClass": "storageclasses", "Policy": "policies"}.get(doc["kind"], doc["kind"].lower() + "s")
    group = doc["apiVersion"].rpartition("/")[0]
    return f"{plural}.{group}" if group else plural


def golden_object(doc: dict[str, Any]) -> dict[str, Any]:
    """The object kube-apiserver 1.36.2 returned for a fixture document."""
    path = os.path.join(GOLDEN, "kube-1.36.2", "table", resource_name(doc) + ".list.includeObject-Object.json")
    with open(path) as f:
        table = json.load(f)
    meta = doc["metadata"]
    for row in table["rows"]:
        got = row["object"]["metadata"]
        if got["name"] == meta["name"] and got.get("namespace") == meta.get("namespace"):
            return row["object"]  # type: ignore[no-any-return]
    raise LookupError(f"no golden object for {doc['kind']} {meta.get('namespace')}/{meta['name']}")


def normalized(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without what legitimately differs between two servers: identities, times, allocations."""
    meta = obj["metadata"]
    text = json.dumps(obj)
    if meta.get("uid"):
        text = text.replace(meta["uid"], "<uid>")
    out: dict[str, Any] = json.loads(text)
    meta = out["metadata"]
    for key in ("resourceVersion", "creationTimestamp", "deletionTimestamp"):
        if key in meta:
            meta[key] = f"<{key}>"
    for entry in meta.get("managedFields") or ():
        entry["time"] = "<time>"
    if meta.get("managedFields"):
        # Entries are ordered by time first, so whether two writes fell in the same second decides
        # their order; with times normalized away, compare them in one fixed order.
        meta["managedFields"].sort(key=lambda e: (e.get("operation", ""), e.get("manager", ""),
                                                  e.get("apiVersion", ""), e.get("subresource", "")))
    status = out.get("status")
    if out["kind"] == "CustomResourceDefinition" and isinstance(status, dict):
        for condition in status.get("conditions") or ():
            condition["lastTransitionTime"] = "<set by the server>"
    if out["kind"] == "PersistentVolume" and isinstance(status, dict) and \
            status.get("lastPhaseTransitionTime", "") >= obj["metadata"]["creationTimestamp"]:
        status["lastPhaseTransitionTime"] = "<set by the server>"
    spec = out.get("spec")
    if out["kind"] == "Service" and isinstance(spec, dict):
        if spec.get("clusterIP") not in (None, "None"):
            spec["clusterIP"] = "<ip>"
            spec["clusterIPs"] = ["<ip>"]
        for port in spec.get("ports") or ():
            if "nodePort" in port:
                port["nodePort"] = "<port>"
    return out


def object_path(doc: dict[str, Any]) -> str:
    plural, _, group = resource_name(doc).partition(".")
    version = doc["apiVersion"].rpartition("/")[2]
    root = f"/apis/{group}/{version}" if group else f"/api/{version}"
    namespace = doc["metadata"].get("namespace")
    return root + (f"/namespaces/{namespace}" if namespace else "") + f"/{plural}/{doc['metadata']['name']}"


def key_order(value: Any, path: str = "") -> list[str]:
    """Every object key with its path, in the order the JSON text has them."""
    if isinstance(value, dict):
        return [p for key, child in value.items() for p in (f"{path}.{key}", *key_order(child, f"{path}.{key}"))]
    if isinstance(value, list):
        return [p for i, child in enumerate(value) for p in key_order(child, f"{path}[{i}]")]
    return []
