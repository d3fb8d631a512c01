"""Applying PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902, by the jsonpatch library), and
strategic merge patch for kinds that have a built-in schema."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch  # type: ignore[import-untyped]

from apiserver import errors
from apiserver.kinds import schemas
from apiserver.patching import strategicpatch, unstructured
from apiserver.wire import bodies


def apply_patch(original: dict[str, Any], raw: bytes, content_type: str | None) -> Any:
    kind = bodies.media_type(content_type)
    if kind == bodies.MERGE_PATCH:
        patch = bodies.decode_json(raw)
        if not isinstance(patch, dict):
            raise errors.bad_request("the patch is not a JSON object: a merge patch must be an object")
        return merge_patch(original, patch)
    if kind == bodies.JSON_PATCH:
        operations = bodies.decode_json(raw)
        if not isinstance(operations, list):
            raise errors.bad_request("the server rejected our request due to an error in our request: "
                                     "json: cannot unmarshal object into Go value of type jsonpatch.Patch")
        try:
            return jsonpatch.JsonPatch(operations).apply(copy.deepcopy(original))
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, KeyError) as exc:
            raise errors.ApiError(422, "Invalid", f"the server rejected our request due to an error in our "
                                                  f"request: {exc}") from None
    schema = _kind_schema(original)
    if kind == bodies.STRATEGIC_PATCH and schema is not None:
        patch = bodies.decode_json(raw)
        if not isinstance(patch, dict):
            raise errors.bad_request("the patch is not a JSON object: a strategic merge patch must be an object")
        patched = strategicpatch.apply(original, patch, schema)
        mistyped = unstructured.restore_error(patched, schema)
        if mistyped is not None:
            raise unstructured.invalid_patch(patch, mistyped)
        return patched
    # Custom resources have no patch strategies to follow, so upstream refuses strategic merge for them
    # and names the patch types their handler takes (server-side apply among them).
    accepted = [bodies.JSON_PATCH, bodies.MERGE_PATCH] + ([bodies.STRATEGIC_PATCH] if schema is not None
                                                          else [bodies.APPLY_PATCH])
    raise errors.unsupported_media_type(accepted)


def _kind_schema(obj: dict[str, Any]) -> schemas.Schema | None:
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return schemas.kind_schema(group, version, str(obj.get("kind") or ""))


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: objects merge key by key, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
