"""Writes apiserver/data/bootstrap.json: the objects kube-apiserver 1.36 creates itself at start that
are not RBAC (system PriorityClasses, the API priority-and-fairness PriorityLevelConfigurations and
FlowSchemas, the `kubernetes` ServiceCIDR), read off the surface goldens' Table lists with
includeObject=Object (shared/golden/kube-1.36.2/surface/table/<resource>.list.includeObject-Object.json).

An object is the server's own when no client applied it (no last-applied-configuration annotation).
Kept: what a client could have written (name, labels, annotations, the body) and the status the
server's own controllers give it (the ServiceCIDR's Ready condition; a FlowSchema's Dangling condition
is computed at write time, as for any FlowSchema). Dropped: identity, times and managedFields. Each
record names the golden it came from and the manager kube-apiserver credits with the write.

Usage: python tools/bootstrap_facts.py [GOLDEN_DIR]
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_GOLDEN = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "shared", "golden")
_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# In creation order: a FlowSchema's Dangling condition depends on its PriorityLevelConfiguration.
_RESOURCES = (
    ("scheduling.k8s.io", "v1", "priorityclasses", False),
    ("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations", False),
    ("flowcontrol.apiserver.k8s.io", "v1", "flowschemas", False),
    ("networking.k8s.io", "v1", "servicecidrs", True),
)
_KEPT_META = ("name", "labels", "annotations")


def _record(obj: dict[str, Any], source: str, keep_status: bool) -> dict[str, Any]:
    meta = obj["metadata"]
    entries = meta.get("managedFields") or ()
    creator = next((e["manager"] for e in entries if e.get("operation") == "Update" and "subresource" not in e),
                   "kube-apiserver")
    status_manager = next((e["manager"] for e in entries if e.get("subresource") == "status"), None)
    body = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    body["metadata"] = {k: meta[k] for k in _KEPT_META if k in meta}
    record: dict[str, Any] = {"source": source, "manager": creator, "object": body}
    if keep_status and obj.get("status"):
        record["status"] = obj["status"]
        record["statusManager"] = status_manager
    return record


def main(golden: str) -> None:
    out: list[dict[str, Any]] = []
    for group, version, plural, keep_status in _RESOURCES:
        source = os.path.join("kube-1.36.2", "surface", "table", f"{plural}.{group}.list.includeObject-Object.json")
        with open(os.path.join(golden, source)) as f:
            rows = json.load(f)["rows"]
        objects = [row["object"] for row in rows
                   if _APPLIED not in (row["object"]["metadata"].get("annotations") or {})]
        out.append({"group": group, "version": version, "resource": plural,
                    "objects": [_record(obj, source, keep_status) for obj in objects]})
    with open(os.path.join(os.path.dirname(_HERE), "apiserver", "data", "bootstrap.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else _DEFAULT_GOLDEN)
