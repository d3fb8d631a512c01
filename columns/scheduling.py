"""The PriorityClass printer (scheduling.k8s.io/v1)."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import Meta, age_column, column, name_column, printer
from columns.format import since


class PriorityClass(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    value: int = 0
    globalDefault: bool = False
    preemptionPolicy: str | None = None


PRIORITY_CLASSES = printer(
    [name_column(),
     column("Value", "value represents the integer value of this priority class. This is the actual priority that "
                     "pods receive when they have the name of this class in their pod spec.", type="integer"),
     column("Global-Default", "globalDefault specifies whether this PriorityClass should be considered as the "
                              "default priority for pods that do not have any priority class. Only one "
                              "PriorityClass can be marked as `globalDefault`. However, if more than one "
                              "PriorityClasses exists with their `globalDefault` field set to true, the smallest "
                              "value of such global default PriorityClasses will be used as the default priority.",
            type="boolean"),
     age_column(),
     column("PreemptionPolicy", "preemptionPolicy is the Policy for preempting pods with lower priority. One of "
                                "Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.")],
    PriorityClass,
    lambda pc: Row([pc.metadata.name, pc.value, pc.globalDefault, since(pc.metadata.creationTimestamp),
                    pc.preemptionPolicy or ""]),
)
