"""The RuntimeClass printer (node.k8s.io/v1)."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import Meta, age_column, column, name_column, printer
from columns.format import since


class RuntimeClass(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    handler: str = ""


# Upstream describes HANDLER with a field ObjectMeta does not have, so its description is empty.
RUNTIME_CLASSES = printer(
    [name_column(), column("Handler", ""), age_column()],
    RuntimeClass,
    lambda rc: Row([rc.metadata.name, rc.handler, since(rc.metadata.creationTimestamp)]),
)
