"""The Table shape: rows from the kind's printer, each row computed once per stored version.

A row is cached with its embedded object (includeObject: None gives null, Metadata a
PartialObjectMetadata, Object the object as served), so a repeated list of unchanged objects only
renders ages and joins bytes.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Hashable

import orjson

from apiserver.kinds.conversion import codec_for
from apiserver.kinds.resources import ResourceType
from apiserver.registry.flowcontrol import dangling as flowcontrol
from apiserver.reply import JSON_TYPE
from apiserver.shapes.shape import Listing
from apiserver.storage.interface import StoredObject
from columns.base import Printer
from columns.registry import printer_for
from tables.metadata import partial_object_metadata, pom_prefix
from tables.rows import RowsTemplate, compile_rows, render_rows, variant
from tables.table import Include, definitions_json, table_json, table_parts


class TableShape:
    content_type = JSON_TYPE

    def __init__(self, api_version: str, include: Include, managed_fields: bool = True) -> None:
        self.api_version = api_version
        self.include = include
        self.managed_fields = managed_fields
        self._pom_prefix = pom_prefix(api_version)
        self.key: Hashable = ("table", api_version, include, managed_fields)
        self._answer_key = ("answer", self.key)

    def _rows_of(self, rt: ResourceType) -> tuple[Printer, str, Callable[[bytes], bytes]]:
        """The printer, the row variant and the embedding of this shape for one resource type."""
        # A custom resource's columns come from its CRD version; built-in kinds have theirs in columns/.
        printer = rt.custom.printer if rt.custom is not None else printer_for(rt.group, rt.kind)
        if self.include == "None":
            return printer, variant(printer, "None"), lambda data: b"null"
        if self.include == "Metadata":
            prefix, managed = self._pom_prefix, self.managed_fields
            return (printer, variant(printer, f"Metadata|{self.api_version}|{managed}"),
                    lambda data: partial_object_metadata(prefix, data, managed))
        # The object as this resource serves it (events.k8s.io converts the stored core Event).
        return printer, variant(printer, f"Object|{rt.group}/{rt.version}/{rt.kind}"), codec_for(rt).served_bytes

    def object_body(self, rt: ResourceType, stored: StoredObject) -> bytes:
        return self.event_object(rt, stored, True)

    def list_body(self, rt: ResourceType, listing: Listing) -> bytes:
        return b"".join(self.list_parts(rt, listing))

    def list_parts(self, rt: ResourceType, listing: Listing) -> list[bytes]:
        now = time.time()
        # Ages change once a second at most: rows rendered within this second are this request's too,
        # and so is the whole answer, when its rows were.
        second = self.moment(now)
        kept = listing.kept_answer(self._answer_key, second)
        if kept is not None:
            return kept
        printer, row_variant, embed = self._rows_of(rt)
        if rt.kind == "FlowSchema" and rt.group == "flowcontrol.apiserver.k8s.io":
            # Upstream's FlowSchema printer lists them in matching order; a new list, as an unfiltered
            # listing may be the store's own.
            listing = dataclasses.replace(listing, items=sorted(
                listing.items, key=lambda item: flowcontrol.by_matching_precedence(orjson.loads(item[1].data))))
        pieces = listing.pieces
        rows = None if pieces is None else pieces.get(self.key, second)
        if rows is None:
            template = None if pieces is None else pieces.kept(self.key)
            if not isinstance(template, RowsTemplate):
                template = compile_rows(printer, row_variant, (obj.data for _, obj in listing.items), embed)
                if pieces is not None:
                    pieces.keep(self.key, template, template.size)
            rows = template.render(now)
            if pieces is None or not template.steady(now):
                return self._parts(printer, listing, rows)
            pieces.put(self.key, rows, second)
        return listing.keep_answer(self._answer_key, second, self._parts(printer, listing, rows))

    def _parts(self, printer: Printer, listing: Listing, rows: bytes) -> list[bytes]:
        return table_parts(self.api_version, listing.metadata(), definitions_json(printer), [rows])

    def event_object(self, rt: ResourceType, stored: StoredObject, first: bool) -> bytes:
        printer, row_variant, embed = self._rows_of(rt)
        row: list[bytes] = []
        render_rows(row, printer, row_variant, (stored.data,), embed, time.time())
        return table_json(self.api_version, {"resourceVersion": str(stored.rv)},
                          definitions_json(printer) if first else None, row)

    def moment(self, now: float) -> Hashable:
        return int(now)  # ages are whole seconds (see `RowsTemplate`)
