"""Custom objects against their version's openAPIV3Schema: pruned, defaulted, then every rule checked.

Pruning drops what the schema does not declare (unless x-kubernetes-preserve-unknown-fields keeps
it) and defaulting fills declared defaults, as upstream does while decoding. Validation reports every failing field at once, with the
field paths, reasons and wording kube-apiserver uses for custom resources ("spec.replicas in body
must be of type integer: \"string\""). Checked: type (nullable, x-kubernetes-int-or-string), enum,
required, pattern, minLength/maxLength, minimum/maximum (exclusive too), minItems/maxItems, and the
common string formats (date, date-time, uuid, ipv4, ipv6, byte).
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime
import ipaddress
import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from apiserver.crd import durations
from apiserver.errors import FieldError
from columns.gofmt import format_float, json_text

Schema = dict[str, Any]

_ROOT_FIELDS = ("apiVersion", "kind", "metadata")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def prune(obj: dict[str, Any], schema: Schema | None) -> None:
    """Removes, in place, the fields the schema does not declare; the root's type fields always stay."""
    if schema is None:
        return
    _prune_object(obj, schema, keep=_ROOT_FIELDS)


def _prune(value: Any, schema: Schema) -> None:
    if isinstance(value, dict):
        keep = _ROOT_FIELDS if schema.get("x-kubernetes-embedded-resource") else ()
        _prune_object(value, schema, keep)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for item in value:
                _prune(item, items)


def _prune_object(value: dict[str, Any], schema: Schema, keep: tuple[str, ...]) -> None:
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
    for key in list(value):
        if key in keep:
            continue
        if key in properties:
            _prune(value[key], properties[key])
        elif isinstance(additional, dict):
            _prune(value[key], additional)
        elif not preserve and additional is not True:
            del value[key]


def default(value: Any, schema: Schema | None) -> None:
    """Fills, in place, absent fields (and nulls the schema does not allow) that declare a default."""
    if schema is None:
        return
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, sub in properties.items():
            if "default" in sub and (key not in value or _null_to_default(value[key], sub)):
                value[key] = copy.deepcopy(sub["default"])
        additional = schema.get("additionalProperties")
        for key, item in value.items():
            sub = properties.get(key)
            if sub is None and isinstance(additional, dict):
                sub = additional
                if _null_to_default(item, sub):
                    value[key] = item = copy.deepcopy(sub["default"])
            if isinstance(sub, dict):
                default(item, sub)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                if _null_to_default(item, items):
                    value[index] = item = copy.deepcopy(items["default"])
                default(item, items)


def _null_to_default(value: Any, schema: Schema) -> bool:
    return value is None and not schema.get("nullable") and "default" in schema


def validate(obj: dict[str, Any], schema: Schema | None) -> list[FieldError]:
    """Every rule the object breaks; the root's apiVersion, kind and metadata are checked elsewhere."""
    if schema is None:
        return []
    problems: list[FieldError] = []
    root = {k: v for k, v in obj.items() if k not in _ROOT_FIELDS}
    required = [r for r in schema.get("required") or () if r not in _ROOT_FIELDS]
    _check(root, {**schema, "required": required}, "", problems)
    return problems


def check_value(value: Any, schema: Schema, problems: list[FieldError]) -> None:
    """The rules a value breaks against a schema of its own, paths starting at the value."""
    _check(value, schema, "", problems)


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _type_matches(value: Any, schema: Schema) -> tuple[bool, str]:
    """Whether the value has the schema's type, and the type name messages use."""
    if schema.get("x-kubernetes-int-or-string"):
        kind = _type_of(value)
        return kind in ("integer", "string"), "integer,string"
    wanted = schema.get("type")
    if not wanted:
        return True, ""
    kind = _type_of(value)
    if kind == wanted or (wanted == "number" and kind == "integer"):
        return True, wanted
    # A JSON number with a zero fraction decodes as an integer upstream.
    if wanted == "integer" and isinstance(value, float) and value.is_integer():
        return True, wanted
    return False, wanted


def bad_value(value: Any) -> str:
    """A rejected value as field errors print it (Go's %v for scalars, %q for strings)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json_text(value)


def _invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {bad_value(value)}: {detail}")


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@lru_cache(maxsize=512)
def _pattern(source: str) -> re.Pattern[str] | None:
    try:
        return re.compile(source)
    except re.error:
        return None


def _check(value: Any, schema: Schema, path: str, problems: list[FieldError]) -> None:
    if value is None and schema.get("nullable"):
        return
    matches, type_name = _type_matches(value, schema)
    if not matches:
        kind = _type_of(value)
        problems.append(FieldError("FieldValueTypeInvalid", path,
                                   f'Invalid value: "{kind}": {path} in body must be of type {type_name}: "{kind}"'))
        return
    enum = schema.get("enum")
    if enum is not None and not any(_same(value, allowed) for allowed in enum):
        supported = ", ".join(json.dumps(a if isinstance(a, str) else json_text(a), ensure_ascii=False)
                              for a in enum)
        problems.append(FieldError("FieldValueNotSupported", path,
                                   f"Unsupported value: {bad_value(value)}: supported values: {supported}"))
    if isinstance(value, str):
        _check_string(value, schema, path, problems)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(value, schema, path, problems)
    elif isinstance(value, list):
        _check_array(value, schema, path, problems)
    elif isinstance(value, dict):
        _check_object(value, schema, path, problems)


def _same(value: Any, allowed: Any) -> bool:
    # JSON equality: true is not 1, and 1 equals 1.0.
    kinds = (_type_of(value), _type_of(allowed))
    if kinds[0] in ("integer", "number") and kinds[1] in ("integer", "number"):
        return bool(value == allowed)
    return kinds[0] == kinds[1] and bool(value == allowed)


def _check_string(value: str, schema: Schema, path: str, problems: list[FieldError]) -> None:
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and len(value) > max_length:
        unit = "byte" if max_length == 1 else "bytes"
        problems.append(FieldError("FieldValueTooLong", path, f"Too long: may not be more than {max_length} {unit}"))
    min_length = schema.get("minLength")
    if isinstance(min_length, int) and len(value) < min_length:
        problems.append(_invalid(path, value, f"{path} in body should be at least {min_length} chars long"))
    source = schema.get("pattern")
    if isinstance(source, str):
        pattern = _pattern(source)
        if pattern is not None and not pattern.search(value):
            problems.append(_invalid(path, value, f"{path} in body should match '{source}'"))
    name = schema.get("format")
    check = _FORMATS.get(name) if isinstance(name, str) else None
    if check is not None and not check(value):
        problems.append(FieldError("FieldValueTypeInvalid", path,
                                   f"Invalid value: {bad_value(value)}: {path} in body must be of type {name}: "
                                   f"{bad_value(value)}"))


def _is_date(text: str) -> bool:
    if not _DATE.fullmatch(text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    match = _DATE_TIME.fullmatch(text)
    if match is None or not _is_date(match.group(1)):
        return False
    hour, minute, second = (int(g) for g in match.group(2, 3, 4))
    return hour < 24 and minute < 60 and second < 61


def _is_ip(text: str, version: int, separator: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == version and separator in text
    except ValueError:
        return False


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except binascii.Error:
        return False
    return True


# The string formats upstream checks that objects commonly declare; others are accepted unchecked.
_FORMATS: dict[str, Callable[[str], bool]] = {
    "date": _is_date,
    "date-time": _is_date_time,
    "datetime": _is_date_time,
    "uuid": lambda text: _UUID.fullmatch(text) is not None,
    "ipv4": lambda text: _is_ip(text, 4, "."),
    "ipv6": lambda text: _is_ip(text, 6, ":"),
    "byte": _is_base64,
    "duration": lambda text: durations.parse_duration(text) is not None,
}


def _check_number(value: float, schema: Schema, path: str, problems: list[FieldError]) -> None:
    minimum = schema.get("minimum")
    if isinstance(minimum, (int, float)):
        exclusive = bool(schema.get("exclusiveMinimum"))
        if value < minimum or (exclusive and value == minimum):
            relation = "greater than" if exclusive else "greater than or equal to"
            problems.append(_invalid(path, value, f"{path} in body should be {relation} {format_float(minimum)}"))
    maximum = schema.get("maximum")
    if isinstance(maximum, (int, float)):
        exclusive = bool(schema.get("exclusiveMaximum"))
        if value > maximum or (exclusive and value == maximum):
            relation = "less than" if exclusive else "less than or equal to"
            problems.append(_invalid(path, value, f"{path} in body should be {relation} {format_float(maximum)}"))


def _check_array(value: list[Any], schema: Schema, path: str, problems: list[FieldError]) -> None:
    max_items = schema.get("maxItems")
    if isinstance(max_items, int) and len(value) > max_items:
        problems.append(FieldError("FieldValueTooMany", path,
                                   f"Too many: {len(value)}: must have at most {max_items} items"))
    min_items = schema.get("minItems")
    if isinstance(min_items, int) and len(value) < min_items:
        problems.append(_invalid(path, len(value), f"{path} in body should have at least {min_items} items"))
    items = schema.get("items")
    if isinstance(items, dict):
        for index, item in enumerate(value):
            _check(item, items, f"{path}[{index}]", problems)


def _check_object(value: dict[str, Any], schema: Schema, path: str, problems: list[FieldError]) -> None:
    for name in schema.get("required") or ():
        if name not in value:
            problems.append(FieldError("FieldValueRequired", _child(path, name), "Required value"))
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    for key in sorted(value):
        sub = properties.get(key)
        if sub is None and isinstance(additional, dict):
            sub = additional
        if isinstance(sub, dict):
            _check(value[key], sub, _child(path, key), problems)
