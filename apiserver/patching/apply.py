"""Reading a server-side apply request: its configuration, refused as upstream refuses it.

The merge itself and field ownership are kinds/fieldmanager's; this module only turns the request
into (configuration, force) or an error, before anything is read or written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from apiserver import errors
from apiserver.kinds import scheme
from apiserver.wire import bodies, goyaml


def is_apply(content_type: str | None) -> bool:
    """Whether the PATCH is an apply (its options were judged with every write's:
    apiserver/http/write_options.py)."""
    return bodies.media_type(content_type) == bodies.APPLY_PATCH


def forced(query: Mapping[str, str]) -> bool:
    return query.get("force", "").lower() in ("true", "1")


def decode_configuration(expected_kind: str, expected_api_version: str, raw: bytes, name: str) -> dict[str, Any]:
    """The applied configuration (YAML, or JSON which is YAML), checked against the URL it was sent to:
    sigs.k8s.io/yaml's Unmarshal into a map, so a document of nothing is an empty object."""
    try:
        config = _json_or_yaml(raw)
    except (goyaml.YamlError, goyaml.NotJSON) as exc:
        raise errors.bad_request(f"error decoding YAML: error converting YAML to JSON: {exc}") from None
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise errors.bad_request("error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
                                 f"unmarshal {scheme.json_type(config)} into Go value of type map[string]interface {{}}")
    # Read as an unstructured object reads them: a missing or non-string kind is "".
    api_version, kind = (value if isinstance(value, str) else "" for value in (config.get("apiVersion"),
                                                                               config.get("kind")))
    if kind != expected_kind or api_version != expected_api_version:
        group, _, version = api_version.rpartition("/")
        raise errors.bad_request(f"invalid object type: {group}/{version}, Kind={kind}")
    meta = config.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise errors.bad_request("error decoding YAML: metadata must be an object")
    if isinstance(meta, dict) and meta.get("managedFields") is not None:
        raise errors.bad_request("metadata.managedFields must be nil")
    if isinstance(meta, dict) and meta.get("name") and meta["name"] != name:
        raise errors.bad_request(f"the name of the object ({meta['name']}) does not match the name on the URL ({name})")
    return config


def _json_or_yaml(raw: bytes) -> Any:
    # JSON is YAML; read by the JSON parser it costs a fraction, which re-applying controllers feel.
    if raw.lstrip()[:1] == b"{":
        try:
            return bodies.json_as_yaml(orjson.loads(raw), len(raw))
        except orjson.JSONDecodeError:
            pass
    return bodies.yaml_value(raw)
