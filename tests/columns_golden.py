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
from typing import Any

import orjson

from columns.base import Printer, RenderedCell, render_cells

TABLES = Path(__file__).resolve().parents[2] / "shared" / "golden" / "kube-1.36.2" / "table"


@dataclass(frozen=True)
class GoldenRow:
    resource: str
    name: str
    data: bytes
    cells: list[RenderedCell]
    conditions: list[dict[str, Any]] | None
    captured: float

    def __str__(self) -> str:
        return f"{self.resource}/{self.name}"


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
    """Every row of the list answer, plus the single-object GET answer (fed the listed object)."""
    answer = TABLES / f"{resource}.list.includeObject-Object.json"
    table = json.loads(answer.read_text())
    objects = {}
    found = []
    for row in table["rows"]:
        name = row["object"]["metadata"]["name"]
        objects[name] = orjson.dumps(row["object"])
        found.append(GoldenRow(resource, name, objects[name], row["cells"], row.get("conditions"),
                               captured_at(answer)))
    get = TABLES / f"{resource}.get.default.json"
    for row in json.loads(get.read_text())["rows"]:
        name = row["object"]["metadata"]["name"]
        found.append(GoldenRow(f"{resource}(get)", name, objects[name], row["cells"], row.get("conditions"),
                               captured_at(get)))
    return found


def printed(printer: Printer, golden: GoldenRow) -> tuple[list[RenderedCell], list[dict[str, Any]] | None]:
    row = printer.row(golden.data)
    return render_cells(row, golden.captured), row.conditions
