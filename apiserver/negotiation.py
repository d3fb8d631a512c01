"""Content negotiation: which Shape answers a read, from the Accept header.

Plain JSON only for now; Table and PartialObjectMetadata shapes plug in here.
"""

from __future__ import annotations

from apiserver import errors
from apiserver.shape import JSON_SHAPE, Shape

_JSON_RANGES = ("application/json", "application/*", "*/*", "")


def negotiate(accept: str, verb: str) -> Shape:
    """The first Accept clause this server can answer; 406 when none is usable (protobuf only, say)."""
    for clause in accept.split(","):
        media = clause.split(";", 1)[0].strip().lower()
        if media in _JSON_RANGES:
            return JSON_SHAPE
    raise errors.not_acceptable("only the following media types are accepted: application/json, "
                                "application/yaml, application/vnd.kubernetes.protobuf")
