"""The objects kube-apiserver creates itself at start, besides namespaces, RBAC and the `kubernetes`
Service: system PriorityClasses, the API priority-and-fairness configuration, the default ServiceCIDR.

The facts are apiserver/data/bootstrap.json, read off a real kube-apiserver's answers by
tools/bootstrap_facts.py (each record names its golden). They are written through the ordinary write
path, in the data file's order, by the manager upstream credits with them.
"""

from __future__ import annotations

import importlib.resources
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BootstrapObject:
    group: str
    version: str
    resource: str
    manager: str
    body: dict[str, Any]
    # What the server's own controller then writes through /status (None: nothing).
    status: dict[str, Any] | None
    status_manager: str | None


def bootstrap_objects() -> list[BootstrapObject]:
    with (importlib.resources.files("apiserver") / "data" / "bootstrap.json").open("rb") as f:
        groups = json.load(f)
    return [BootstrapObject(g["group"], g["version"], g["resource"], record["manager"], record["object"],
                            record.get("status"), record.get("statusManager"))
            for g in groups for record in g["objects"]]
