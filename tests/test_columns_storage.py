"""The PersistentVolume, PersistentVolumeClaim and StorageClass printers against kube-apiserver 1.36.2."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
import pytest
from columns_golden import GoldenRow, column_definitions, printed, rows

from columns import storage
from columns.base import Printer, RenderedCell, render_cells

PRINTERS: dict[str, Printer] = {
    "persistentvolumes": storage.PERSISTENT_VOLUMES,
    "persistentvolumeclaims": storage.PERSISTENT_VOLUME_CLAIMS,
    "storageclasses.storage.k8s.io": storage.STORAGE_CLASSES,
}


@pytest.mark.parametrize("golden", [g for resource in PRINTERS for g in rows(resource)], ids=str)
def test_rows_match_upstream(golden: GoldenRow) -> None:
    assert printed(PRINTERS[golden.resource], golden) == (golden.cells, golden.conditions)


@pytest.mark.parametrize("resource", PRINTERS)
def test_columns_match_upstream(resource: str) -> None:
    assert PRINTERS[resource].definitions == column_definitions(resource)


NOW = 2_000_000_000.0  # 2033-05-18T03:33:20Z


def cells(printer: Printer, obj: Mapping[str, Any]) -> list[RenderedCell]:
    return render_cells(printer.row(orjson.dumps(obj)), NOW)


def test_claims_prefer_the_beta_class_annotation_and_show_capacity_once_bound() -> None:
    claim = {"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "old"}},
             "spec": {"storageClassName": "new", "volumeName": "pv"}, "status": {"phase": "Bound"}}
    assert cells(storage.PERSISTENT_VOLUME_CLAIMS, claim)[1:8] == ["Bound", "pv", "0", "", "old", "<unset>",
                                                                "<unknown>"]
    assert cells(storage.PERSISTENT_VOLUMES, {"metadata": {"deletionTimestamp": "2033-01-01T00:00:00Z"}})[1:6] == \
        ["0", "", "", "Terminating", ""]


def test_storage_class_defaults() -> None:
    beta = {"metadata": {"name": "s", "annotations": {"storageclass.beta.kubernetes.io/is-default-class": "true"}}}
    assert storage.STORAGE_CLASSES.row(orjson.dumps(beta)).cells[:5] == ["s (default)", "", "Delete", "Immediate",
                                                                        False]
