"""Writes apiserver/data/resources.json: every group, version and resource a real kube-apiserver 1.36
serves, read off its aggregated discovery documents (shared/golden/kube-1.36.2/discovery), plus the
facts about each resource that discovery does not say but the stored objects in the goldens show.

- groups, versions and resources in discovery's order, with verbs, short names, categories,
  singular names and subresources (their response kinds and verbs) as discovery lists them;
- storageVersionHash: upstream's hash of the group/version/kind an object is stored as (the first 8
  bytes of sha256 over "group/version/kind", base64), for every resource that is stored; checked here
  against the legacy discovery documents the goldens hold;
- tracksGeneration: whether stored objects of the resource carry metadata.generation (read off the
  metadata lists of the goldens);
- groupPriorityMinimum and versionPriority of each group-version: those of its local APIService (read
  off the goldens' APIService list; apiregistration.k8s.io itself has none).

Usage: python tools/discovery_facts.py [GOLDEN_DIR]
"""

from __future__ import annotations

import base64
import glob
import hashlib
import json
import os
import sys
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_GOLDEN = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "shared", "golden")

# Served from another resource's stored objects: (group, resource) -> (group, version, kind) stored.
_STORED_AS = {
    ("events.k8s.io", "events"): ("", "v1", "Event"),
    ("autoscaling", "horizontalpodautoscalers"): ("autoscaling", "v2", "HorizontalPodAutoscaler"),
}
# Computed or write-only: never stored, so discovery gives them no hash.
_NOT_STORED = frozenset({
    ("", "bindings"), ("", "componentstatuses"),
    ("authentication.k8s.io", "tokenreviews"), ("authentication.k8s.io", "selfsubjectreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"), ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"), ("authorization.k8s.io", "subjectaccessreviews"),
})
# Served from CustomResourceDefinitions the fixtures create: not built in.
_CUSTOM_GROUPS = frozenset({"example.com"})


def storage_version_hash(group: str, version: str, kind: str) -> str:
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _generation_tracked(golden: str) -> set[str]:
    """'plural.group' (or 'plural' for core) of the resources whose stored objects carry a generation."""
    tracked: set[str] = set()
    for pattern in ("metadata", os.path.join("surface", "metadata")):
        for path in glob.glob(os.path.join(golden, "kube-1.36.2", pattern, "*.list.json")):
            with open(path) as f:
                items = json.load(f).get("items") or ()
            if any("generation" in item["metadata"] for item in items):
                tracked.add(os.path.basename(path)[:-len(".list.json")])
    return tracked


def _resource(group: str, version: str, entry: dict[str, Any], tracked: set[str]) -> dict[str, Any]:
    plural = entry["resource"]
    out: dict[str, Any] = {
        "plural": plural, "singular": entry["singularResource"], "kind": entry["responseKind"]["kind"],
        "namespaced": entry["scope"] == "Namespaced", "verbs": entry["verbs"],
    }
    for key in ("shortNames", "categories"):
        if key in entry:
            out[key] = entry[key]
    if "subresources" in entry:
        out["subresources"] = [{"name": sub["subresource"], "group": sub["responseKind"]["group"],
                                "version": sub["responseKind"]["version"], "kind": sub["responseKind"]["kind"],
                                "verbs": sub["verbs"]} for sub in entry["subresources"]]
    if (group, plural) not in _NOT_STORED:
        stored = _STORED_AS.get((group, plural), (group, version, out["kind"]))
        out["storageVersionHash"] = storage_version_hash(*stored)
        out["stored"] = "/".join(stored)
    qualified = f"{plural}.{group}" if group else plural
    out["tracksGeneration"] = qualified in tracked
    return out


def _priority(priorities: dict[str, tuple[int, int]], group: str, version: str) -> dict[str, int]:
    found = priorities.get(f"{version}.{group}")
    return {} if found is None else {"groupPriorityMinimum": found[0], "versionPriority": found[1]}


def _check_hashes(golden: str, groups: list[dict[str, Any]]) -> None:
    """The hashes computed here must equal those of the legacy documents the goldens hold."""
    ours = {(g["name"], v["version"], r["plural"]): r.get("storageVersionHash")
            for g in groups for v in g["versions"] for r in v["resources"]}
    for path, group in (("api.v1.json", ""), ("apis.apps.v1.json", "apps")):
        with open(os.path.join(golden, "kube-1.36.2", "discovery", path)) as f:
            doc = json.load(f)
        for entry in doc["resources"]:
            if "/" not in entry["name"]:
                expected = entry.get("storageVersionHash")
                found = ours[(group, "v1", entry["name"])]
                if found != expected:
                    raise SystemExit(f"storageVersionHash of {entry['name']}: {found} != {expected}")


def _apiservice_priorities(golden: str) -> dict[str, tuple[int, int]]:
    """The priorities kube-apiserver registers each served group-version's local APIService with."""
    path = os.path.join(golden, "kube-1.36.2", "table", "apiservices.apiregistration.k8s.io.list.includeObject-Object.json")
    with open(path) as f:
        rows = json.load(f)["rows"]
    return {row["object"]["metadata"]["name"]: (row["object"]["spec"]["groupPriorityMinimum"],
                                                row["object"]["spec"]["versionPriority"]) for row in rows}


def main(golden: str) -> None:
    tracked = _generation_tracked(golden)
    priorities = _apiservice_priorities(golden)
    groups: list[dict[str, Any]] = []
    for doc in ("api.aggregated-v2.json", "apis.aggregated-v2.json"):
        with open(os.path.join(golden, "kube-1.36.2", "discovery", doc)) as f:
            items = json.load(f)["items"]
        for item in items:
            name = item["metadata"].get("name", "")
            if name in _CUSTOM_GROUPS:
                continue
            groups.append({"name": name, "versions": [
                {"version": v["version"], **_priority(priorities, name, v["version"]),
                 "resources": [_resource(name, v["version"], r, tracked) for r in v["resources"]]}
                for v in item["versions"]]})
    _check_hashes(golden, groups)
    with open(os.path.join(os.path.dirname(_HERE), "apiserver", "data", "resources.json"), "w") as f:
        json.dump({"groups": groups}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else _DEFAULT_GOLDEN)
