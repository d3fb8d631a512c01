"""Golden rows for printer tests: each stored object, its exact cells, and when they were captured.

The captures of a real kube-apiserver 1.36.2 embed every row's full object (includeObject=Object),
so a printer can be fed the object's bytes and compared with the cells upstream printed. Ages are
compared after rendering at the capture time, taken from the answer's Date header.
"""

from __future__ import annotations

import email.utils
import json
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import orjson

from columns.base import Printer, RenderedCell, render_cells

TABLES = Path(__file__).resolve().parents[2] / "shared" / "golden" / "kube-1.36.2" / "table"


@dataclass(frozen=True)
class GoldenRow:
    resource: str
    answer: str  # which capture the cells come from: "list" is the includeObject=Object list
    name: str
    data: bytes
    cells: list[RenderedCell]
    conditions: list[dict[str, Any]] | None
    captured: float

    def __str__(self) -> str:
        return f"{self.resource}/{self.name}" if self.answer == "list" else f"{self.resource}/{self.name}@{self.answer}"


def captured_at(answer: Path) -> float:
    headers = answer.with_name(answer.name.removesuffix(".json") + ".headers.txt").read_text()
    for line in headers.splitlines():
        if line.lower().startswith("date:"):
            return email.utils.parsedate_to_datetime(line.split(":", 1)[1].strip()).timestamp()
    raise ValueError(f"no date header for {answer}")


def load(resource: str) -> dict[str, Any]:
    table: dict[str, Any] = json.loads((TABLES / f"{resource}.list.includeObject-Object.json").read_text())
    return table


def column_definitions(resource: str) -> list[dict[str, Any]]:
    answer = json.loads((TABLES / f"{resource}.list.default.json").read_text())
    columns: list[dict[str, Any]] = answer["columnDefinitions"]
    return columns


def rows(resource: str) -> list[GoldenRow]:
    """Every row of every answer about `resource`, each fed the full object of the Object list.

    Only the includeObject=Object list embeds whole objects; the other answers (GET, default and
    Metadata lists, selectors, paging, all namespaces) are matched to it by namespace and name.
    """
    primary = TABLES / f"{resource}.list.includeObject-Object.json"
    objects = {}
    found = []
    for row in json.loads(primary.read_text())["rows"]:
        meta = row["object"]["metadata"]
        objects[meta.get("namespace"), meta["name"]] = orjson.dumps(row["object"])
        found.append(GoldenRow(resource, "list", meta["name"], objects[meta.get("namespace"), meta["name"]],
                               row["cells"], row.get("conditions"), captured_at(primary)))
    for answer in sorted(TABLES.glob(f"{resource}.*.json")):
        variant = answer.name[len(resource) + 1:].removesuffix(".json")
        if answer == primary or not variant.startswith(("list.", "get.", "all-namespaces.")):
            continue
        for row in json.loads(answer.read_text())["rows"]:
            if row["object"] is None:  # includeObject=None: nothing to match the cells to
                continue
            meta = row["object"]["metadata"]
            found.append(GoldenRow(resource, variant, meta["name"], objects[meta.get("namespace"), meta["name"]],
                                   row["cells"], row.get("conditions"), captured_at(answer)))
    return found


def printed(printer: Printer, golden: GoldenRow) -> tuple[list[RenderedCell], list[dict[str, Any]] | None]:
    row = printer.row(golden.data)
    return render_cells(row, golden.captured), row.conditions


# Every built-in resource the goldens print, and the kind that prints it.
RESOURCES = {
    "pods": ("", "Pod"), "namespaces": ("", "Namespace"), "configmaps": ("", "ConfigMap"),
    "secrets": ("", "Secret"), "serviceaccounts": ("", "ServiceAccount"), "services": ("", "Service"),
    "endpoints": ("", "Endpoints"), "nodes": ("", "Node"), "events": ("", "Event"),
    "persistentvolumes": ("", "PersistentVolume"), "persistentvolumeclaims": ("", "PersistentVolumeClaim"),
    "deployments.apps": ("apps", "Deployment"), "replicasets.apps": ("apps", "ReplicaSet"),
    "statefulsets.apps": ("apps", "StatefulSet"), "daemonsets.apps": ("apps", "DaemonSet"),
    "jobs.batch": ("batch", "Job"), "cronjobs.batch": ("batch", "CronJob"),
    "ingresses.networking.k8s.io": ("networking.k8s.io", "Ingress"),
    "ingressclasses.networking.k8s.io": ("networking.k8s.io", "IngressClass"),
    "endpointslices.discovery.k8s.io": ("discovery.k8s.io", "EndpointSlice"),
    "storageclasses.storage.k8s.io": ("storage.k8s.io", "StorageClass"),
    "apiservices.apiregistration.k8s.io": ("apiregistration.k8s.io", "APIService"),
}

NOW = 2_000_000_000.0  # 2033-05-18T03:33:20Z: a fixed "now" for hand-written cases


def cells(printer: Printer, obj: Mapping[str, Any]) -> list[RenderedCell]:
    """The rendered row of a hand-written object, at NOW."""
    return render_cells(printer.row(orjson.dumps(obj)), NOW)
