"""Content negotiation: which Shape answers a read, and how an error is written, from the Accept header.

As kube-apiserver does it: the header is split into clauses, ordered as its goautoneg orders them
(by q, but a concrete type before a wildcard); each clause is tried against the media types in
the server's order, and the first one the endpoint can write wins. A clause may ask for a
transform with `as`, `g` and `v`: a Table (JSON or YAML) or PartialObjectMetadata(List), in
meta.k8s.io v1 or v1beta1. A clause this server cannot write (protobuf, `as=Foo`, a transform
without `g`) is skipped. Errors are negotiated without transforms; when no clause allows a plain
object, they are written as indented JSON.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, NamedTuple

import orjson

from apiserver import errors
from apiserver.errors import ApiError
from apiserver.reply import JSON_TYPE
from apiserver.shapes.metadata_shape import MetadataShape
from apiserver.shapes.shape import JSON_SHAPE, Shape, YamlShape
from apiserver.shapes.table_shape import TableShape
from apiserver.wire.yaml_wire import yaml_of
from tables.table import INCLUDE_VALUES, Include
from tables.wire import go_json

YAML_TYPE = "application/yaml"
PROTOBUF_TYPE = "application/vnd.kubernetes.protobuf"
# The server's media types, in the order a wildcard clause tries them.
SERVED_TYPES = (JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE)
NOT_ACCEPTABLE = "only the following media types are accepted: " + ", ".join(SERVED_TYPES)
# A watch needs a streaming encoding; YAML has none upstream.
NOT_ACCEPTABLE_STREAM = ("only the following media types are accepted: "
                         f"{JSON_TYPE};stream=watch, {PROTOBUF_TYPE};stream=watch")

META_GROUP = "meta.k8s.io"
META_VERSIONS = ("v1", "v1beta1")
Transform = Literal["Table", "PartialObjectMetadata", "PartialObjectMetadataList"]
TRANSFORMS: tuple[Transform, ...] = ("Table", "PartialObjectMetadata", "PartialObjectMetadataList")

_NO_QUERY: Mapping[str, str] = MappingProxyType({})

# Our own clause parameter, beyond upstream (which ignores parameters it does not know):
# `managedFields=omit` leaves managedFields out of every PartialObjectMetadata written.
MANAGED_FIELDS_PARAM = "managedFields"


@dataclass(frozen=True)
class Clause:
    type: str
    subtype: str
    q: float
    params: Mapping[str, str]

    def matches(self, media_type: str) -> bool:
        kind, _, sub = media_type.partition("/")
        return (self.type == "*" and self.subtype == "*") or (
            self.type == kind and self.subtype in ("*", sub))


def parse_accept(header: str) -> list[Clause]:
    """The clauses of an Accept header, most preferred first (upstream's goautoneg rules)."""
    clauses = []
    for part in header.split(","):
        media_range, *params = part.strip(" ").split(";")
        type_, *rest = media_range.split("/")
        type_ = type_.strip(" ")
        if not rest and type_ == "*":
            subtype = "*"
        elif len(rest) == 1:
            subtype = rest[0].strip(" ")
        else:
            continue
        q = 1.0
        values: dict[str, str] = {}
        for param in params:
            name, eq, value = param.partition("=")
            if not eq:
                continue
            name = name.strip(" ")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
            else:
                values[name] = value.strip(" ")
        clauses.append(Clause(type_, subtype, q, values))
    # Go sorts a short slice by insertion, so this gives upstream's order, quirks included.
    for i in range(1, len(clauses)):
        j = i
        while j > 0 and _before(clauses[j], clauses[j - 1]):
            clauses[j], clauses[j - 1] = clauses[j - 1], clauses[j]
            j -= 1
    return clauses


def _before(a: Clause, b: Clause) -> bool:
    """goautoneg's order: a higher q first, or a concrete type (or subtype) before a wildcard, whatever its q."""
    return a.q > b.q or (a.type != "*" and b.type == "*") or (a.subtype != "*" and b.subtype == "*")


# A named tuple: every read looks its Shape up by it, and a tuple is hashed and compared in C.
class Choice(NamedTuple):
    """What one clause asks for: a media type this server writes, and possibly a transform."""

    media_type: str
    transform: Transform | None = None
    version: str = "v1"
    managed_fields: bool = True

    @property
    def api_version(self) -> str:
        return f"{META_GROUP}/{self.version}"


def _acceptable(clause: Clause, media_type: str, transforms: bool) -> Choice | None:
    params = clause.params
    if media_type == PROTOBUF_TYPE:
        return None
    stream = params.get("stream", "")
    if stream and (stream != "watch" or media_type != JSON_TYPE):
        return None
    if params.get("sv"):
        return None
    managed_fields = params.get(MANAGED_FIELDS_PARAM) != "omit"
    if not any(name in params for name in ("as", "g", "v")):
        return Choice(media_type, managed_fields=managed_fields)
    kind, group, version = params.get("as", ""), params.get("g", ""), params.get("v", "")
    if not transforms or group != META_GROUP or version not in META_VERSIONS:
        return None
    for transform in TRANSFORMS:
        if kind == transform:
            return Choice(media_type, transform, version, managed_fields)
    return None


@functools.lru_cache(maxsize=512)  # clients send the same few headers: parse each once
def choose(header: str, transforms: bool = True) -> Choice | None:
    """The first clause this server can write; without `transforms`, plain objects only (errors)."""
    if not header:
        return Choice(JSON_TYPE)
    for clause in parse_accept(header):
        for media_type in SERVED_TYPES:
            if clause.matches(media_type):
                choice = _acceptable(clause, media_type, transforms)
                if choice is not None:
                    return choice
    return None


def _include(query: Mapping[str, str]) -> Include:
    value = query.get("includeObject", "")
    if value == "":
        return "Metadata"
    for include in INCLUDE_VALUES:
        if value == include:
            return include
    raise errors.bad_request(f"Unable to convert to Table as requested: includeObject: Invalid value: "
                             f"{orjson.dumps(value).decode()}: must be 'Metadata', 'Object', 'None', or empty")


def negotiate(accept: str, verb: str, query: Mapping[str, str] = _NO_QUERY) -> Shape:
    """The Shape that answers a read; 406 when no clause can be written, 400 for a bad includeObject."""
    choice = choose(accept)
    if choice is None:
        raise errors.not_acceptable(NOT_ACCEPTABLE)
    if verb == "watch":
        if choice.media_type != JSON_TYPE:
            raise errors.not_acceptable(NOT_ACCEPTABLE_STREAM)
        if choice.transform == "PartialObjectMetadataList":
            # Upstream answers 200 and then sends nothing; saying so is kinder.
            raise errors.not_acceptable("you requested PartialObjectMetadataList, but a watch sends single "
                                        "objects: ask for PartialObjectMetadata")
    return _shape(choice, _include(query) if choice.transform == "Table" else None)


@functools.lru_cache(maxsize=64)  # a few dozen combinations at most; shapes hold no per-request state
def _shape(choice: Choice, include: Include | None) -> Shape:
    shape: Shape = JSON_SHAPE
    if choice.transform == "Table":
        assert include is not None
        shape = TableShape(choice.api_version, include, choice.managed_fields)
    elif choice.transform is not None:
        shape = MetadataShape(choice.api_version, choice.transform == "PartialObjectMetadataList",
                              choice.managed_fields)
    return YamlShape(shape) if choice.media_type == YAML_TYPE else shape


def error_body(exc: ApiError, accept: str) -> tuple[bytes, str]:
    """An error's body and media type: negotiated without transforms, as upstream writes errors."""
    choice = choose(accept, transforms=False)
    if choice is None:
        # Upstream falls back to Go's json.MarshalIndent: two-space indent, no trailing newline.
        return go_json(exc.status(), orjson.OPT_INDENT_2), JSON_TYPE
    if choice.media_type == YAML_TYPE:
        return yaml_of(exc.status()), YAML_TYPE
    return go_json(exc.status()) + b"\n", JSON_TYPE
