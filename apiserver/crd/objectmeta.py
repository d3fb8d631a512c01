"""The type and object meta of the resources embedded in a custom object (x-kubernetes-embedded-resource),
coerced as upstream's decoder coerces them: apiextensions-apiserver's schema/objectmeta Coerce, with
GetObjectMetaWithOptions and SetObjectMeta.

An embedded resource's apiVersion and kind must be strings, and its metadata must decode as a
metav1.ObjectMeta; once it does, it is written back as that ObjectMeta writes itself (fields it does
not know gone, empty ones left out, times in UTC to the second). A request's body that fails is
refused while decoding; a CRD's default that fails is refused by its validation.
"""

from __future__ import annotations

import copy
import datetime
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import fieldvalidation, schemas, schemavalidator
from apiserver.registry import field

Schema = dict[str, Any]

_OBJECT_META = schemas.definition_ref("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
# metav1.ObjectMeta's fields as SetObjectMeta writes them back: all omitempty, the pointers kept when zero.
_OBJECT_META_FIELDS = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
                       "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                       "annotations", "ownerReferences", "finalizers", "managedFields")
_POINTERS = ("deletionTimestamp", "deletionGracePeriodSeconds")
_TIMES = ("creationTimestamp", "deletionTimestamp")


def coerce(value: Any, schema: Schema | None, at: str, unknown: list[str] | None = None) -> FieldError | None:
    """CoerceWithOptions without dropping invalid fields: the first embedded resource whose apiVersion
    or kind is no string, or whose metadata does not decode as an ObjectMeta; decodable metadata is
    written back in place. `unknown` (ReturnUnknownFieldPaths) gathers the paths of the metadata's
    fields ObjectMeta does not know, sorted as upstream sorts them."""
    found = _coerce(value, schema, at, unknown)
    if unknown is not None:
        unknown.sort()
    return found


def _coerce(value: Any, schema: Schema | None, at: str, unknown: list[str] | None) -> FieldError | None:
    if schema is None:
        return None
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key in list(value):
            item = value[key]
            child = f"{at}.{key}" if at else key
            if schema.get("x-kubernetes-embedded-resource"):
                if key in ("apiVersion", "kind") and not isinstance(item, str):
                    return field.invalid_shown(child, schemavalidator.shown_value(item), "must be a string")
                if key == "metadata":
                    error = _object_meta_error(item)
                    if error is not None:
                        return field.invalid_shown(child, schemavalidator.shown_value(item), error)
                    value[key] = item = _as_object_meta(item, child, unknown)
            if key in properties:
                found = _coerce(item, properties[key], child, unknown)
            elif "additionalProperties" in schema and schema["additionalProperties"] is not None:
                extra = schema["additionalProperties"]
                found = _coerce(item, extra if isinstance(extra, dict) else None, f"{at}[{key}]", unknown)
            else:
                found = None
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _coerce(item, schema.get("items"), f"{at}[{index}]", unknown)
            if found is not None:
                return found
    return None


def _object_meta_error(meta: Any) -> str | None:
    """json.Unmarshal of the metadata into a metav1.ObjectMeta: its error, in Go's words."""
    if meta is not None and not isinstance(meta, dict):
        return f"json: cannot unmarshal {_json_kind(meta)} into Go value of type v1.ObjectMeta"
    return fieldvalidation.type_error(meta, _OBJECT_META)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array"}.get(type(value), "object")


def _as_object_meta(meta: dict[str, Any] | None, at: str, unknown: list[str] | None) -> dict[str, Any]:
    """SetObjectMeta after GetObjectMeta: the ObjectMeta's fields as it writes them (unknown ones, at any
    depth, gone and named in `unknown`; empty ones left out; times in UTC to the second), without a zero
    creationTimestamp."""
    decoded = copy.deepcopy(meta or {})
    strangers = fieldvalidation.unknown_fields(decoded, schemas.resolve(_OBJECT_META), at, drop=True)
    if unknown is not None:
        unknown += strangers
    written: dict[str, Any] = {}
    for key in _OBJECT_META_FIELDS:
        item = decoded.get(key)
        if item is None or (key not in _POINTERS and item in ("", 0, [], {})):
            continue
        written[key] = _utc_second(item) if key in _TIMES else item
    if written.get("creationTimestamp", "") is None:
        del written["creationTimestamp"]
    return written


def _utc_second(text: str) -> str | None:
    """metav1.Time's JSON: RFC 3339 in UTC, whole seconds; None for the zero time, which is left out."""
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return text  # Go took it (Coerce checked), Python's parser does not: kept as written
    shown = moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return None if shown == "0001-01-01T00:00:00Z" else shown
