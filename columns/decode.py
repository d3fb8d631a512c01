"""The one seam where stored bytes become the small typed view a printer reads.

A view is a msgspec Struct declaring only the fields its columns need. The fast reader decodes
straight into it and skips everything else (managedFields, specs, annotations) without building
it; the full-parse reader builds the whole object first and then walks it into the same view.
Both must give identical views: the contract tests hold them to that over every golden object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import msgspec
import orjson

View = TypeVar("View", bound=msgspec.Struct)
Reader = Callable[[type[View]], Callable[[bytes], View]]


def struct_reader(view: type[View]) -> Callable[[bytes], View]:
    """Decodes only the declared fields; about three times faster than a full parse for Pods."""
    return msgspec.json.Decoder(view).decode


def full_parse_reader(view: type[View]) -> Callable[[bytes], View]:
    """The reference: parse every field with orjson, then walk the dicts into the view."""

    def read(data: bytes) -> View:
        return msgspec.convert(orjson.loads(data), view)

    return read
