"""Which printer makes a kind's Table rows: the one place that answers it."""

from __future__ import annotations

from columns.base import Printer
from tables.default import DEFAULT_PRINTER


def printer_for(group: str, kind: str) -> Printer:
    """The kind's printer; upstream's default convertor (Name, Created At) until kinds declare their own."""
    return DEFAULT_PRINTER
