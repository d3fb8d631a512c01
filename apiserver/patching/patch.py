"""Applying PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902, by the jsonpatch library), and
strategic merge patch for kinds that have a built-in schema."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch  # type: ignore[import-untyped]
import orjson

from apiserver import errors
from apiserver.kinds import fieldvalidation, schemas
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
        mistyped = unstructured.restore_error(patched, schema) or fieldvalidation.decode_problem(
            patched, ("", ""), unstructured=True)
        if mistyped is not None:
            raise unstructured.invalid_patch(patch, mistyped)
        return patched
    # Custom resources have no patch strategies to follow, so upstream refuses strategic merge for them
    # and names the patch types their handler takes (server-side apply among them).
    accepted = [bodies.JSON_PATCH, bodies.MERGE_PATCH] + ([bodies.STRATEGIC_PATCH] if schema is not None
                                                          else [bodies.APPLY_PATCH])
    raise errors.unsupported_media_type(accepted)


def undecodable(patched: Any, raw: bytes, content_type: str | None, url_type: tuple[str, str]) -> None:
    """A JSON or merge patch's result that its Go type cannot be decoded from is refused as upstream's
    jsonPatcher does: an Invalid of no kind naming the patched document, as json-patch writes it (its
    top level, and every object the patch reached into, with sorted keys; the rest as it was)."""
    kind = bodies.media_type(content_type)
    if kind not in (bodies.MERGE_PATCH, bodies.JSON_PATCH) or not isinstance(patched, dict):
        return
    problem = fieldvalidation.decode_problem(patched, url_type)
    if problem is None:
        return
    body = bodies.decode_json(raw)
    reached: list[list[str]] = []
    if kind == bodies.MERGE_PATCH:
        _merged_paths(body, patched, [], reached)
    else:
        for operation in body if isinstance(body, list) else ():
            parts = str(operation.get("path") or "").split("/")[1:] if isinstance(operation, dict) else []
            reached.extend(parts[:i] for i in range(1, len(parts)))
    shown = orjson.dumps(_sorted_where_reached(patched, [], reached)).decode()
    raise errors.invalid("", "", "", [errors.FieldError(
        "FieldValueInvalid", "patch", f"Invalid value: {orjson.dumps(shown).decode()}: {problem}")])


def _merged_paths(patch: Any, doc: Any, at: list[str], found: list[list[str]]) -> None:
    """The objects a merge patch merged into (rather than set whole): json-patch re-marshals those."""
    for key, value in patch.items() if isinstance(patch, dict) else ():
        if isinstance(value, dict) and isinstance(doc, dict) and isinstance(doc.get(key), dict):
            found.append([*at, key])
            _merged_paths(value, doc[key], [*at, key], found)


def _sorted_where_reached(value: Any, at: list[str], reached: list[list[str]]) -> Any:
    if not isinstance(value, dict):
        return value
    if at and at not in reached:
        return value
    return {k: _sorted_where_reached(value[k], [*at, k], reached) for k in sorted(value)}


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
