"""Reading request bodies: size limit, media type, JSON or YAML into plain Python values."""

from __future__ import annotations

from typing import Any

import orjson
import yaml

from apiserver import errors, protobuf

MAX_BODY_BYTES = 3 * 1024 * 1024

JSON = "application/json"
YAML = "application/yaml"
MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

BODY_TYPES = (JSON, YAML)
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH)

try:
    _YamlLoader: type = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _YamlLoader = yaml.SafeLoader


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def check_size(raw: bytes) -> None:
    if len(raw) > MAX_BODY_BYTES:
        raise errors.too_large()


def decode_object(raw: bytes, content_type: str | None) -> Any:
    """A create or update body (JSON, YAML, or protobuf for built-in kinds)."""
    check_size(raw)
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
        return yaml.load(raw, Loader=_YamlLoader)
    except yaml.YAMLError as exc:
        raise errors.bad_request(f"error converting YAML to JSON: {exc}".replace("\n", " ")) from None
