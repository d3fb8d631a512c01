"""Applying PATCH bodies as kube-apiserver's patch handler does: JSON merge patch (RFC 7386), JSON patch
(RFC 6902 as gopkg.in/evanphx/json-patch.v4 applies it, apiserver/patching/gojsonpatch.py), and strategic
merge patch for kinds that have a built-in schema; each decoded as the fieldValidation directive asks,
and the patched object decoded into its Go type, with upstream's words at each step."""

from __future__ import annotations

from typing import Any

import orjson

from apiserver import errors
from apiserver.kinds import fieldvalidation, schemas
from apiserver.kinds.resources import CustomVersion
from apiserver.kinds.scheme import TYPE_META_STRUCT, json_type
from apiserver.patching import gojsonpatch, strategicpatch, unstructured
from apiserver.registry.field import go_quote
from apiserver.wire import bodies, gojson, gonumbers, goprint

_MAX_OPERATIONS = 10_000  # upstream's maxJSONPatchOperations
# What encoding/json names when a patched document that is not an object is decoded for its kind.
_OPERATION_FIELDS = ("op", "path", "from", "value")


def apply_patch(original: dict[str, Any], raw: bytes, content_type: str | None,
                directive: str = "Ignore") -> tuple[Any, list[str]]:
    """The patched document, and the strict decoding errors its patch had (unknown or repeated fields),
    as upstream's patch handler decodes each patch type under the fieldValidation `directive`
    (handlers/patch.go: applyJSPatch and strategicPatchObject)."""
    kind = bodies.media_type(content_type)
    strict = directive in ("Warn", "Strict")
    if kind == bodies.JSON_PATCH:
        return _json_patched(original, raw, strict)
    if kind == bodies.MERGE_PATCH:
        return _merge_patched(original, raw, strict)
    schema = _kind_schema(original)
    if kind == bodies.STRATEGIC_PATCH and schema is not None:
        patch = _go_decoded(raw, "")
        if patch is None:
            return original, []  # a null patch decodes as an empty map: nothing changes
        if not isinstance(patch, dict):
            raise errors.bad_request(f"json: cannot unmarshal {json_type(patch)} into Go value of type "
                                     "map[string]interface {}")
        patched = strategicpatch.apply(original, patch, schema)
        mistyped = unstructured.restore_error(patched, schema)
        if mistyped is None:
            # The converter wraps an integer past its field's width before the types that unmarshal
            # themselves are decoded.
            if gonumbers.may_hold_unusual_numbers(raw):
                unstructured.restore_numbers(patched, schema)
            # Into the object's own Go type, whatever kind the patch named (the converter reads no type meta).
            typed = {**patched, "kind": original.get("kind"), "apiVersion": original.get("apiVersion")}
            mistyped = fieldvalidation.decode_problem(typed, ("", ""), unstructured=True)
        if mistyped is not None:
            raise unstructured.invalid_patch(patch, mistyped)
        return patched, _duplicates(raw) if strict else []
    # Custom resources have no patch strategies to follow, so upstream refuses strategic merge for them
    # and names the patch types their handler takes (server-side apply among them).
    accepted = [bodies.JSON_PATCH, bodies.MERGE_PATCH] + ([bodies.STRATEGIC_PATCH] if schema is not None
                                                          else [bodies.APPLY_PATCH])
    raise errors.unsupported_media_type(accepted)


def _go_decoded(raw: bytes, prefix: str) -> Any:
    """The JSON of a patch, or encoding/json's syntax error (after `prefix`) as a 400."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise errors.bad_request(prefix + gojson.syntax_error(raw)) from None


def _duplicates(raw: bytes, prefix: str = "") -> list[str]:
    return [f"{prefix}duplicate field {go_quote(path)}" for path in fieldvalidation.duplicate_fields(raw)]


def _json_patched(original: dict[str, Any], raw: bytes, strict: bool) -> tuple[Any, list[str]]:
    problems: list[str] = []
    if strict:
        # Decoded first as []jsonPatchOp, strictly: a wrong type is refused, an unknown or repeated
        # field noted.
        operations = _go_decoded(raw, "error decoding patch: ")
        problems = _operation_problems(operations, raw)
    else:
        operations = _go_decoded(raw, "")
    try:
        decoded = gojsonpatch.decode(operations) if operations is not None else []
    except gojsonpatch.PatchError as exc:
        raise errors.bad_request(str(exc)) from None
    if len(decoded) > _MAX_OPERATIONS:
        raise errors.ApiError(413, "RequestEntityTooLarge", "Request entity too large: The allowed maximum "
                              f"operations in a JSON patch is {_MAX_OPERATIONS}, got {len(decoded)}")
    try:
        return gojsonpatch.apply(original, decoded), problems
    except gojsonpatch.PatchError:
        # A generic 422: the library's own words are not passed on.
        raise errors.ApiError(422, "Invalid", "the server rejected our request due to an error in our request",
                              {}) from None


def _operation_problems(operations: Any, raw: bytes) -> list[str]:
    """What strictly decoding the operations as []jsonPatchOp refuses (raised) or notes (returned)."""
    if operations is None:
        return []
    if not isinstance(operations, list):
        raise errors.bad_request(f"error decoding patch: json: cannot unmarshal {json_type(operations)} into Go "
                                 "value of type []handlers.jsonPatchOp")
    unknown = []
    for i, operation in enumerate(operations):
        if operation is None:
            continue
        if not isinstance(operation, dict):
            raise errors.bad_request(f"error decoding patch: json: cannot unmarshal {json_type(operation)} into "
                                     "Go value of type handlers.jsonPatchOp")
        for key, value in operation.items():
            if key in ("op", "path", "from") and value is not None and not isinstance(value, str):
                raise errors.bad_request(f"error decoding patch: json: cannot unmarshal {json_type(value)} into "
                                         f"Go struct field jsonPatchOp.{key} of type string")
            if key not in _OPERATION_FIELDS:
                unknown.append(f"json patch unknown field {go_quote(f'[{i}].{key}')}")
    return _duplicates(raw, "json patch ") + unknown


def _merge_patched(original: dict[str, Any], raw: bytes, strict: bool) -> tuple[Any, list[str]]:
    problems: list[str] = []
    if strict:
        patch = _go_decoded(raw, "error decoding patch: ")
        if patch is not None and not isinstance(patch, dict):
            raise errors.bad_request(f"error decoding patch: json: cannot unmarshal {json_type(patch)} into Go "
                                     "value of type map[string]interface {}")
        problems = _duplicates(raw)
    else:
        try:
            patch = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise errors.bad_request(_BAD_MERGE_PATCH) from None
    if isinstance(patch, dict):
        return merge_patch(original, patch), problems
    if isinstance(patch, list):
        # json-patch's MergePatch takes a patch that is an array for the whole document.
        return _without_nulls(patch), problems
    raise errors.bad_request(_BAD_MERGE_PATCH)


_BAD_MERGE_PATCH = "Invalid JSON Patch"  # json-patch's ErrBadJSONPatch


def _without_nulls(value: Any) -> Any:
    """An array patch as json-patch writes it back: objects' null members dropped, their keys sorted."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in sorted(value.items()) if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def decoded(patched: Any, raw: bytes, content_type: str | None, directive: str, problems: list[str],
            custom: CustomVersion | None, url_type: tuple[str, str], undecodable: str | None = None
            ) -> dict[str, str]:
    """The patched object decoded into its Go type as upstream's jsonPatcher and smpPatcher decode it:
    a wrong type refused whatever the directive, then a kind or version the patch named that does not
    decode into the type (`undecodable`, scheme.decoding_problem); the patch's strict errors (`problems`)
    and the fields the type does not know warned of under Warn, refused under Strict. Returns the warning
    header."""
    kind = bodies.media_type(content_type)
    if kind in (bodies.MERGE_PATCH, bodies.JSON_PATCH):
        if not isinstance(patched, dict):
            raise _invalid_patched(patched, raw, kind, "couldn't get version/kind; json parse error: json: cannot "
                                   f"unmarshal {json_type(patched)} into Go value of type {TYPE_META_STRUCT}")
        if custom is not None and (problem := custom.embedded_meta_error(patched)) is not None:
            raise _invalid_patched(patched, raw, kind, problem)
        if custom is None:
            problem = fieldvalidation.decode_problem(patched, url_type)
            if problem is not None:
                if gonumbers.may_hold_unusual_numbers(raw):
                    patched = gonumbers.respelled(patched, raw, kind == bodies.JSON_PATCH)
                    problem = fieldvalidation.decode_problem(patched, url_type) or problem
                raise _invalid_patched(patched, raw, kind, problem)
            if undecodable is not None:
                raise _invalid_patched(patched, raw, kind, undecodable)
            if gonumbers.may_hold_fractions(raw):  # a custom object's, when written (crdspec.canonical)
                gonumbers.whole_floats_as_integers(patched)
    # A refusal shows the document as patched; a copy keeps it, as finding the unknown fields takes them
    # out (whatever the directive: the Go type has nowhere to keep them).
    as_patched = orjson.loads(orjson.dumps(patched)) if directive == "Strict" else patched
    unknown = fieldvalidation.unknown_paths(patched, custom, url_type)
    if directive == "Ignore":
        return {}
    problems = problems + [f"unknown field {go_quote(p)}" for p in unknown]
    if not problems:
        return {}
    if directive == "Warn":
        return fieldvalidation.warning_header(problems)
    message = "strict decoding error: " + ", ".join(problems)
    if kind == bodies.STRATEGIC_PATCH:
        raise unstructured.invalid_patch(orjson.loads(raw), message)
    raise _invalid_patched(as_patched, raw, kind, message)


def _invalid_patched(patched: Any, raw: bytes, kind: str, problem: str) -> errors.ApiError:
    """A JSON or merge patch's result refused as upstream's jsonPatcher refuses it: an Invalid of no kind
    naming the patched document, as json-patch writes it (its top level, and every object the patch
    reached into, with sorted keys; the rest as it was)."""
    body = orjson.loads(raw) if raw.strip() else None
    if kind == bodies.MERGE_PATCH:
        shown_doc = _merge_shown(body, patched)
    else:
        reached: list[list[str]] = []
        for operation in body if isinstance(body, list) else ():
            parts = str(operation.get("path") or "").split("/")[1:] if isinstance(operation, dict) else []
            reached.extend(parts[:i] for i in range(1, len(parts)))
        shown_doc = _sorted_where_reached(patched, [], reached)
    shown = gonumbers.dumps(shown_doc).decode()
    return errors.invalid("", "", "", [errors.FieldError(
        "FieldValueInvalid", "patch", f"Invalid value: {orjson.dumps(shown).decode()}: {problem}")])


def _merge_shown(patch: Any, merged: Any) -> Any:
    """A merge patch's result as json-patch's MergePatch writes it: an object the patch merged into with
    sorted keys, its members the patch did not name as they were; what the patch set is its own decoded
    value (pruneNulls decodes it all), so every object within it has sorted keys."""
    if isinstance(patch, dict) and isinstance(merged, dict):
        return {k: _merge_shown(patch[k], merged[k]) if k in patch else merged[k] for k in sorted(merged)}
    return goprint.sorted_keys(merged) if isinstance(patch, list) else merged


def _sorted_where_reached(value: Any, at: list[str], reached: list[list[str]]) -> Any:
    """A JSON patch's result as json-patch writes it: the top level and every object or array on an
    operation's path decoded (an object's keys sorted), the rest as it was."""
    if at and at not in reached:
        return value
    if isinstance(value, list):
        return [_sorted_where_reached(v, [*at, str(i)], reached) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _sorted_where_reached(value[k], [*at, k], reached) for k in sorted(value)}
    return value


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
