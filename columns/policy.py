"""The PodDisruptionBudget printer (policy/v1)."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import Meta, age_column, column, name_column, printer
from columns.format import since

NOT_SET = "N/A"


class PDBSpec(msgspec.Struct):
    minAvailable: int | str | None = None
    maxUnavailable: int | str | None = None


class PDBStatus(msgspec.Struct):
    disruptionsAllowed: int = 0


class PodDisruptionBudget(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: PDBSpec = msgspec.field(default_factory=PDBSpec)
    status: PDBStatus = msgspec.field(default_factory=PDBStatus)


def int_or_string(value: int | str | None) -> str:
    """An IntOrString as its String() prints it; N/A when unset."""
    return NOT_SET if value is None else str(value)


def pdb_row(pdb: PodDisruptionBudget) -> Row:
    return Row([pdb.metadata.name, int_or_string(pdb.spec.minAvailable), int_or_string(pdb.spec.maxUnavailable),
                pdb.status.disruptionsAllowed, since(pdb.metadata.creationTimestamp)])


POD_DISRUPTION_BUDGETS = printer(
    [name_column(),
     column("Min Available", "The minimum number of pods that must be available."),
     column("Max Unavailable", "The maximum number of pods that may be unavailable."),
     column("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time.", type="integer"),
     age_column()],
    PodDisruptionBudget,
    pdb_row,
)
