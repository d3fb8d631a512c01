"""Reading request bodies: media type, JSON or YAML into plain Python values (the HTTP edge bounds size)."""

from __future__ import annotations

import re
from typing import Any

import orjson
import yaml

from apiserver import errors
from apiserver.wire import protobuf

JSON = "application/json"
YAML = "application/yaml"
MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

BODY_TYPES = (JSON, YAML)
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH)

# The C loader when PyYAML was built with libyaml.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_BOOL = "tag:yaml.org,2002:bool"


class _YamlLoader(_SafeLoader):  # type: ignore[misc]
    # Unquoted dates stay strings, as sigs.k8s.io/yaml leaves them: a label `day: 2001-12-14` is text.
    yaml_implicit_resolvers = {first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
                               for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()}
    # YAML 1.1 as go-yaml v2 reads it: a bare y or n is a boolean too (`y: "1"` is the key "true").
    bool_values = {**_SafeLoader.bool_values, "y": True, "n": False}


_YamlLoader.add_implicit_resolver(_BOOL, re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))


_INT64 = range(-(2**63), 2**63)
# Anchors let a few bytes stand for a huge document ("billion laughs"); a document without them has
# fewer values than bytes, so more than that, plus slack, is refused.
_ALIAS_SLACK = 10_000


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def decode_object(raw: bytes, content_type: str | None) -> Any:
    """A create or update body (JSON, YAML, or protobuf for built-in kinds)."""
    kind = media_type(content_type) or JSON
    if kind == JSON:
        return decode_json(raw)
    if kind in (YAML, "application/x-yaml", "text/yaml"):
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
    try:
        return _as_json(yaml.load(raw, Loader=_YamlLoader), [len(raw) + _ALIAS_SLACK])
    except yaml.YAMLError as exc:
        raise errors.bad_request(f"error converting YAML to JSON: {exc}".replace("\n", " ")) from None
    except RecursionError:
        raise errors.bad_request("error converting YAML to JSON: the document is nested too deeply") from None


def _as_json(value: Any, budget: list[int]) -> Any:
    """A YAML value as JSON can hold it: string keys, 64-bit integers, finite numbers, no other types."""
    budget[0] -= 1
    if budget[0] < 0:
        raise errors.bad_request("error converting YAML to JSON: the document contains excessive aliasing")
    if isinstance(value, str) or value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        # JSON numbers past 64 bits decode as floats; orjson, as Go, cannot write such an integer.
        return value if value in _INT64 else float(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise errors.bad_request(f"error converting YAML to JSON: {value} is not a JSON number")
        return value
    if isinstance(value, list):
        return [_as_json(item, budget) for item in value]
    if isinstance(value, dict):
        return {_json_key(key): _as_json(item, budget) for key, item in value.items()}
    raise errors.bad_request(f"error converting YAML to JSON: a {type(value).__name__} value has no JSON "
                             "form")


def _json_key(key: Any) -> str:
    # Scalar keys are spelt as JSON spells them, as sigs.k8s.io/yaml converts them.
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return orjson.dumps(key).decode()
    raise errors.bad_request(f"error converting YAML to JSON: a {type(key).__name__} cannot be a key")
