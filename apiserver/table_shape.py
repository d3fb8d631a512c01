"""The Table shape: rows from the kind's printer, each row computed once per stored version.

Per request only the ages are rendered and the embedded object chosen (includeObject: None gives
null, Metadata a PartialObjectMetadata, Object the object as served).
"""

from __future__ import annotations

import time
from typing import Hashable

from apiserver.conversion import codec_for
from apiserver.reply import JSON_TYPE
from apiserver.resources import ResourceType
from apiserver.shape import Listing
from apiserver.storage.interface import StoredObject
from columns.base import Printer
from tables.convertor import printer_for
from tables.metadata import partial_object_metadata, pom_prefix
from tables.rows import row_json, row_of
from tables.table import Include, definitions_json, table_json


class TableShape:
    content_type = JSON_TYPE

    def __init__(self, api_version: str, include: Include, managed_fields: bool = True) -> None:
        self.api_version = api_version
        self.include = include
        self.managed_fields = managed_fields
        self._pom_prefix = pom_prefix(api_version)

    @property
    def key(self) -> Hashable:
        return ("table", self.api_version, self.include, self.managed_fields)

    def _row(self, rt: ResourceType, printer: Printer, data: bytes, now: float) -> bytes:
        if self.include == "None":
            obj = b"null"
        elif self.include == "Metadata":
            obj = partial_object_metadata(self._pom_prefix, data, self.managed_fields)
        else:
            obj = codec_for(rt).served_bytes(data)
        return row_json(row_of(printer, data), now, obj)

    def object_body(self, rt: ResourceType, stored: StoredObject) -> bytes:
        return self.event_object(rt, stored, True)

    def list_body(self, rt: ResourceType, listing: Listing) -> bytes:
        printer = printer_for(rt.group, rt.kind)
        now = time.time()
        row = self._row
        return table_json(self.api_version, listing.metadata(), definitions_json(printer),
                          [row(rt, printer, obj.data, now) for _, obj in listing.items])

    def event_object(self, rt: ResourceType, stored: StoredObject, first: bool) -> bytes:
        printer = printer_for(rt.group, rt.kind)
        return table_json(self.api_version, {"resourceVersion": str(stored.rv)},
                          definitions_json(printer) if first else None,
                          [self._row(rt, printer, stored.data, time.time())])
