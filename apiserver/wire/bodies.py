"""Reading request bodies: media type, JSON or YAML into plain Python values (the HTTP edge bounds size)."""

from __future__ import annotations

import math
from typing import Any

import orjson

from apiserver import errors
from apiserver.wire import gonumbers, goyaml, protobuf

JSON = "application/json"
YAML = "application/yaml"
MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

BODY_TYPES = (JSON, YAML)
YAML_TYPES = (YAML, "application/x-yaml", "text/yaml")
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH)

_INT64 = range(-(2**63), 2**63)
# Anchors let a few bytes stand for a huge document ("billion laughs"); a document without them has
# fewer values than bytes, so more than that, plus slack, is refused.
_ALIAS_SLACK = 10_000


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_json(content_type: str | None) -> bool:
    """Whether a create or update body is JSON (no content type reads as JSON)."""
    return media_type(content_type) in ("", JSON)


def decode_object(raw: bytes, content_type: str | None) -> Any:
    """A create or update body (JSON, YAML, or protobuf for built-in kinds)."""
    kind = media_type(content_type) or JSON
    if kind == JSON:
        return decode_json(raw)
    if kind in YAML_TYPES:
        return decode_yaml(raw)
    if kind == protobuf.MEDIA_TYPE:
        return protobuf.decode_protobuf(raw)
    raise errors.unsupported_media_type(["application/json", "application/yaml", protobuf.MEDIA_TYPE])


def decode_json(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise errors.bad_request(f"the object provided is unrecognized: {exc}") from None


def decode_yaml(raw: bytes) -> Any:
    """A YAML body as sigs.k8s.io/yaml turns it into JSON, or a 400 in its words."""
    try:
        return yaml_value(raw)
    except (goyaml.YamlError, goyaml.NotJSON) as exc:
        raise errors.bad_request(f"error converting YAML to JSON: {exc}") from None


def yaml_value(raw: bytes) -> Any:
    """A YAML body as sigs.k8s.io/yaml turns it into JSON; raises goyaml.YamlError (go-yaml's refusal)
    or goyaml.NotJSON (the conversion's), for the caller to wrap as its handler does."""
    try:
        return _as_json(goyaml.load_first_document(raw), [len(raw) + _ALIAS_SLACK])
    except RecursionError:
        raise goyaml.NotJSON("the document is nested too deeply") from None


def json_as_yaml(value: Any, size: int) -> Any:
    """A value decoded from a JSON body of `size` bytes, as yaml_value reads the same body (JSON is
    YAML): whole floats below 1e21 become integers, integers past 64 bits floats."""
    return _as_json(value, [size + _ALIAS_SLACK])


_NOT_NUMBERS = {"nan": "NaN", "inf": "+Inf", "-inf": "-Inf"}


def _as_json(value: Any, budget: list[int]) -> Any:
    """A YAML value as JSON can hold it: string keys, 64-bit integers, finite numbers, no other types."""
    budget[0] -= 1
    if budget[0] < 0:
        raise goyaml.YamlError("yaml: document contains excessive aliasing")  # go-yaml's words, our own bound
    if isinstance(value, str) or value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        # JSON numbers past 64 bits decode as floats; orjson, as Go, cannot write such an integer.
        return value if value in _INT64 else float(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise goyaml.NotJSON(f"json: unsupported value: {_NOT_NUMBERS[str(value)]}")
        written = gonumbers.as_written(value)  # sigs.k8s.io/yaml writes the float64 as JSON and reads it back
        return _as_json(written, budget) if type(written) is int else written
    if isinstance(value, list):
        return [_as_json(item, budget) for item in value]
    if isinstance(value, dict):
        return {key: _as_json(item, budget) for key, item in value.items()}  # keys: goyaml spelt them
    raise goyaml.NotJSON(f"a {type(value).__name__} value has no JSON form")
