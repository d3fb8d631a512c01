"""kube-openapi's SchemaValidator, as apiextensions runs it on custom resources and turns its errors into
field errors (apiextensions-apiserver/pkg/apiserver/validation/validation.go, kubeOpenAPIResultToFieldErrors).

Each schema node runs its validators in upstream's order (kube-openapi/pkg/validation/validate/schema.go):
type, the composition (allOf, anyOf, oneOf, not), string, format, number, slice, common (enum), object;
each applies to the values of its kind, so a value of the wrong type still meets the enum, and a number
the bounds. A composition tells its own failure as a message of the whole value, then the failures of
the branch that matched most (counted as kube-openapi's Result.MatchCount counts). Values are judged as the Go values
JSON decodes to: an integral number that fits is an int64, any other a float64. Errors that are not
kube-openapi's own (a value out of its format's range) carry no field path, as upstream's do.
"""

from __future__ import annotations

import math
import re
import struct
from decimal import Decimal
from functools import lru_cache
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import strformats
from apiserver.registry.field import go_quote
from columns.gofmt import format_float, json_text

Schema = dict[str, Any]

_INT64 = (-(2**63), 2**63 - 1)
_MAX_JSON_INTEGER = float(2**53 - 1)


class Found:
    """A validation's errors, each said once (validate.Result.AddErrors drops a repeated message)."""

    def __init__(self, root: str, formats_stripped: bool = True) -> None:
        self.root = root  # the field path the names are children of ("" for none)
        # A custom resource's validator is built with the formats its types do not support stripped
        # (StripUnsupportedFormatsPostProcessor); one built from a structural schema keeps them all.
        self.formats_stripped = formats_stripped
        self.errors: list[FieldError] = []

    def format_of(self, schema: Schema) -> str:
        if self.formats_stripped:
            return strformats.effective_format(schema)
        name = schema.get("format")
        return name if isinstance(name, str) else ""

    def add(self, error: FieldError) -> None:
        if error not in self.errors:
            self.errors.append(error)

    def at(self, name: str) -> str:
        """The field path of a kube-openapi name (fldPath.Child(name); no path at all is "<nil>")."""
        if name and name != ".":
            name = name.removeprefix(".")
            return f"{self.root}.{name}" if self.root else name
        return self.root or "<nil>"

    def typed(self, name: str, shown: Any, type_name: str, value: Any) -> None:
        """errors.InvalidType as field.TypeInvalid shows it: the value, then the message with %q of a string."""
        detail = f"{name} in body must be of type {type_name}"
        if isinstance(value, str):
            detail += f": {go_quote(value)}"
        self.add(FieldError("FieldValueTypeInvalid", self.at(name), f"Invalid value: {shown_value(shown)}: {detail}"))

    def invalid(self, name: str, value: Any, detail: str) -> None:
        self.add(FieldError("FieldValueInvalid", self.at(name), f"Invalid value: {shown_value(value)}: {detail}"))

    def too_many(self, name: str, actual: int, limit: int) -> None:
        """field.TooMany."""
        unit = "item" if limit == 1 else "items"
        self.add(FieldError("FieldValueTooMany", self.at(name), f"Too many: {actual}: must have at most {limit} {unit}"))

    def plain(self, message: str) -> None:
        """An error kube-openapi made with fmt.Errorf: field.Invalid at the root, of an empty value."""
        self.add(FieldError("FieldValueInvalid", self.root or "<nil>", f'Invalid value: "": {message}'))


def shown_value(value: Any) -> str:
    """A value as field errors print it (%v of numbers and booleans, %q of strings, JSON of the rest)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return go_quote(value)
    return json_text(value)


def go_value(value: Any) -> Any:
    """The Go value JSON decodes a number to: int64 when integral and in range, else float64."""
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
        try:
            return float(value)
        except OverflowError:
            return math.copysign(math.inf, value)
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _schema_info(value: Any) -> tuple[str, str]:
    """typeValidator.schemaInfoForType: the JSON type and format of a decoded Go value."""
    if isinstance(value, bool):
        return "boolean", ""
    if isinstance(value, str):
        return "string", ""
    if _is_int(value):
        return "integer", "int64"
    if isinstance(value, float):
        return "number", "float64"
    return ("array", "") if isinstance(value, list) else ("object", "")


def _go_round(value: float) -> float:
    """math.Round: halves away from zero."""
    whole = float(math.trunc(value))
    return whole + math.copysign(1.0, value) if abs(value - whole) >= 0.5 else whole


def is_json_integer(value: float) -> bool:
    """swag.IsFloat64AJSONInteger: integral within 2^53, to a relative error of 1e-9."""
    if math.isnan(value) or math.isinf(value) or abs(value) > _MAX_JSON_INTEGER:
        return False
    rounded = _go_round(value)
    if value == rounded:
        return True
    if rounded == 0:
        return False
    return abs(value - rounded) < 1e-9 * abs(rounded)


def _type_problem(value: Any, schema: Schema, name: str, found: Found) -> None:
    """typeValidator.Validate; it applies where the schema names a type or a format."""
    types = strformats.types_of(schema)
    wanted_format = found.format_of(schema)
    if not types and not wanted_format:
        return
    if value is None:
        if types and "null" not in types and not schema.get("nullable"):
            found.typed(name, "null", ",".join(types), "null")
        return
    kind, data_format = _schema_info(value)
    is_float_int = kind == "number" and is_json_integer(value) and "integer" in types
    is_int_float = kind == "integer" and "number" in types
    stringish = isinstance(value, (str, list))
    if not stringish and wanted_format and not (kind in types or data_format == wanted_format
                                                or is_float_int or is_int_float):
        found.typed(name, data_format, wanted_format, data_format)
        return
    if "number" not in types and "integer" not in types and wanted_format and stringish:
        return
    if not (kind in types or is_float_int or is_int_float):
        found.typed(name, kind, ",".join(types), kind)


def _string_problem(value: str, schema: Schema, name: str, found: Found) -> None:
    """stringValidator.Validate: the first of maxLength, minLength and pattern the string breaks."""
    max_length = schema.get("maxLength")
    if _is_int(max_length) and len(value) > max_length:
        unit = "byte" if max_length == 1 else "bytes"
        found.add(FieldError("FieldValueTooLong", found.at(name), f"Too long: may not be more than {max_length} {unit}"))
        return
    min_length = schema.get("minLength")
    if _is_int(min_length) and len(value) < min_length:
        found.invalid(name, value, f"{name} in body should be at least {min_length} chars long")
        return
    source = schema.get("pattern")
    if isinstance(source, str) and source:
        pattern = _pattern(source)
        if pattern is not None and not pattern.search(value):
            found.invalid(name, value, f"{name} in body should match '{source}'")


@lru_cache(maxsize=512)
def _pattern(source: str) -> re.Pattern[str] | None:
    try:
        return re.compile(source)
    except re.error:
        return None


def _format_problem(value: str, schema: Schema, name: str, found: Found) -> None:
    """formatValidator.Validate, for the formats strfmt knows."""
    wanted = found.format_of(schema)
    if strformats.is_known(wanted) and not strformats.is_valid(wanted, value):
        found.typed(name, value, wanted, value)


def _go_text(value: float) -> str:
    """swag.FormatInt64 / FormatFloat64 ('f', shortest digits)."""
    if isinstance(value, int):
        return str(value)
    return format(Decimal(repr(value)).normalize(), "f")


def _fits_int(text: str, bits: int) -> bool:
    """strconv.ParseInt(text, 10, bits) succeeds."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        return False
    return -(2 ** (bits - 1)) <= int(text) < 2 ** (bits - 1)


def _fits_float32(value: float) -> bool:
    """strconv.ParseFloat(text, 32) succeeds: the value does not round beyond float32's range."""
    try:
        struct.pack("<f", value)
    except OverflowError:
        return False
    return True


def out_of_range(value: float, type_name: str, number_format: str, prefix: str, name: str) -> str | None:
    """IsValueValidAgainstRange: why a number cannot be held by the type and format without loss."""
    fits = True
    if type_name == "integer":
        fits = _fits_int(_go_text(value), 32 if number_format == "int32" else 64)
    elif number_format == "float":
        fits = _fits_float32(float(value))
    if fits:
        return None
    if number_format:
        return f"{prefix} value must be of type {type_name} with format {number_format} in {name}"
    return f"{prefix} value must be of type {type_name} (default format) in {name}"


def _go_int64(value: float) -> int:
    """int64(f) as amd64 converts: truncation, and the minimum for what does not fit."""
    if math.isnan(value) or not -(2.0**63) <= value < 2.0**63:
        return _INT64[0]
    return math.trunc(value)


def _bound_problem(value: float, bound: float, exclusive: bool, upper: bool, name: str,
                   native: bool, found: Found) -> None:
    """Maximum/MinimumNativeType when the bound fits the type (an int64 against the bound's int64),
    else Maximum/Minimum of both as float64."""
    data: int | float
    if native and _is_int(value):
        data, limit, shown_limit = value, _go_int64(bound), str(_go_int64(bound))
    else:
        data, limit, shown_limit = float(value), bound, format_float(bound)
    if upper and (data > limit or (exclusive and data == limit)):
        relation = "less than" if exclusive else "less than or equal to"
    elif not upper and (data < limit or (exclusive and data == limit)):
        relation = "greater than" if exclusive else "greater than or equal to"
    else:
        return
    found.invalid(name, data, f"{name} in body should be {relation} {shown_limit}")


def _multiple_problem(value: float, factor: float, native: bool, name: str, found: Found) -> None:
    """MultipleOfNativeType when the factor fits the type, else MultipleOf of both as float64."""
    if native and _is_int(value):
        whole = _go_int64(factor)
        if whole <= 0:
            found.invalid(name, whole, f"factor MultipleOf declared for {name} must be positive: {whole}")
        elif value % whole:
            found.invalid(name, value, f"{name} in body should be a multiple of {whole}")
        return
    data = float(value)
    if factor <= 0:
        found.invalid(name, factor, f"factor MultipleOf declared for {name} must be positive: {format_float(factor)}")
        return
    multiple = 1 / factor * data if factor < 1 else data / factor
    if not is_json_integer(multiple):
        found.invalid(name, data, f"{name} in body should be a multiple of {format_float(factor)}")


def _number_problem(value: float, schema: Schema, name: str, found: Found) -> None:
    """numberValidator.Validate: the value within its format's range, then multipleOf, minimum, maximum."""
    types = strformats.types_of(schema)
    type_name = types[0] if len(types) == 1 and types[0] in ("integer", "number") else ""
    wanted = found.format_of(schema)
    number_format = wanted if wanted in {"integer": ("int32", "int64"), "number": ("float", "double")}.get(
        type_name, ()) else ""
    checked = out_of_range(value, type_name, number_format, "Checked", name)
    if checked is not None:
        found.plain(checked)
    factor = schema.get("multipleOf")
    if _is_number(factor):
        boundary = out_of_range(float(factor), type_name, number_format, "MultipleOf", name)
        if boundary is not None:
            found.plain(boundary)
        _multiple_problem(value, float(factor), boundary is None, name, found)
    for key, upper, prefix in (("minimum", False, "Minimum boundary"), ("maximum", True, "Maximum boundary")):
        bound = schema.get(key)
        if not _is_number(bound):
            continue
        boundary = out_of_range(float(bound), type_name, number_format, prefix, name)
        if boundary is not None:
            found.plain(boundary)
        exclusive = bool(schema.get("exclusiveMaximum" if upper else "exclusiveMinimum"))
        _bound_problem(value, float(bound), exclusive, upper, name, boundary is None, found)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _go_kind(value: Any) -> str:
    return _schema_info(value)[0] if value is not None else "null"


def _deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual of decoded JSON: an int64 is never a float64, nor a bool a number."""
    if _go_kind(a) != _go_kind(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_deep_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _go_string_of(code: int) -> str:
    """string(rune(i)): the code point, or U+FFFD where there is none."""
    return chr(code) if 0 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def enum_matches(value: Any, allowed: Any) -> bool:
    """basicCommonValidator's test: the value converted to the allowed value's Go type, then DeepEqual;
    null matches nothing."""
    if value is None or allowed is None:
        return False
    kind, wanted = _go_kind(value), _go_kind(allowed)
    if kind == "integer" and wanted == "number":
        return float(value) == allowed
    if kind == "number" and wanted == "integer":
        return _go_int64(value) == allowed
    if kind == "integer" and wanted == "string":
        return _go_string_of(value) == allowed
    return _deep_equal(value, allowed)


def _enum_problem(value: Any, schema: Schema, name: str, found: Found) -> None:
    enum = schema.get("enum")
    if not enum or any(enum_matches(value, allowed) for allowed in enum):
        return
    supported = ", ".join(go_quote(a if isinstance(a, str) else json_text(a)) for a in enum)
    found.add(FieldError("FieldValueNotSupported", found.at(name),
                         f"Unsupported value: {shown_value(value)}: supported values: {supported}"))


def _child(name: str, key: str) -> str:
    return f"{name}.{key}" if name else key


def _slice_problems(value: list[Any], schema: Schema, name: str, found: Found) -> int:
    """schemaSliceValidator.Validate: the items, then minItems and maxItems; its match count."""
    matched = 1
    items = schema.get("items")
    if isinstance(items, dict):
        for index, item in enumerate(value):
            matched += validate_value(item, items, f"{name}[{index}]", found)
    min_items = schema.get("minItems")
    if _is_int(min_items) and len(value) < min_items:
        found.invalid(name, len(value), f"{name} in body should have at least {min_items} items")
    max_items = schema.get("maxItems")
    if _is_int(max_items) and len(value) > max_items:
        found.too_many(name, len(value), max_items)
    return matched


def _object_problems(value: dict[str, Any], schema: Schema, name: str, found: Found) -> int:
    """objectValidator.Validate: min/maxProperties, additional properties, declared properties, required;
    its match count, its fields' own."""
    matched = 0
    min_properties, max_properties = schema.get("minProperties"), schema.get("maxProperties")
    if _is_int(min_properties) and len(value) < min_properties:
        found.invalid(name, len(value), f"{name} in body should have at least {min_properties} properties")
    if _is_int(max_properties) and len(value) > max_properties:
        found.too_many(name, len(value), max_properties)
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        for key in sorted(value):
            if key not in properties:
                matched += validate_value(value[key], additional, f"{name}.{key}", found)
    for key in sorted(value):
        if isinstance(properties.get(key), dict):
            matched += validate_value(value[key], properties[key], _child(name, key), found)
    for key in schema.get("required") or ():
        if key not in value:
            found.add(FieldError("FieldValueRequired", found.at(f"{name}.{key}"), "Required value"))
    return matched


def _branch(value: Any, schema: Any, name: str, found: Found) -> tuple[Found, int]:
    """A value against one schema of allOf, anyOf, oneOf or not, apart: its errors and match count."""
    branch = Found(found.root, found.formats_stripped)
    matched = validate_value(value, schema, name, branch) if isinstance(schema, dict) else 0
    return branch, matched


def _merge(branch: Found, found: Found) -> None:
    for error in branch.errors:
        found.add(error)


def _schemas(schema: Schema, key: str) -> list[Any]:
    listed = schema.get(key)
    return listed if isinstance(listed, list) else []


def _composition_problems(value: Any, schema: Schema, name: str, found: Found) -> int:
    """schemaPropsValidator.Validate: anyOf, oneOf, allOf and not; of anyOf and oneOf, the failures of the
    branch that matched most (the first of those) are told. Returns its match count."""
    matched = 1
    shown = go_quote(name)
    any_of = _schemas(schema, "anyOf")
    if any_of:
        best: tuple[Found, int] | None = None
        success: tuple[Found, int] | None = None
        for sub in any_of:
            branch, count = _branch(value, sub, name, found)
            if not branch.errors:
                best, success = None, (branch, count)
                break
            if best is None or count > best[1]:
                best = (branch, count)
        if success is None:
            found.plain(f"{shown} must validate at least one schema (anyOf)")
        chosen = best or success
        if chosen is not None:
            _merge(chosen[0], found)
            matched += chosen[1]
    one_of = _schemas(schema, "oneOf")
    if one_of:
        best, success, valid = None, None, 0
        for sub in one_of:
            branch, count = _branch(value, sub, name, found)
            if not branch.errors:
                valid += 1
                best = None
                success = success or (branch, count)
            elif valid == 0 and (best is None or count > best[1]):
                best = (branch, count)
        chosen = success if valid == 1 else best
        if valid != 1:
            told = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
            found.plain(f"{shown} must validate one and only one schema (oneOf). {told}")
        if chosen is not None:
            _merge(chosen[0], found)
            matched += chosen[1]
    all_of = _schemas(schema, "allOf")
    if all_of:
        valid = 0
        for sub in all_of:
            branch, count = _branch(value, sub, name, found)
            valid += not branch.errors
            _merge(branch, found)
            matched += count
        if valid != len(all_of):
            found.plain(f"{shown} must validate all the schemas (allOf)" + ("" if valid else ". None validated"))
    if isinstance(schema.get("not"), dict) and not _branch(value, schema["not"], name, found)[0].errors:
        found.plain(f"{shown} must not validate the schema (not)")
    return matched


def validate_value(value: Any, schema: Schema, name: str, found: Found) -> int:
    """SchemaValidator.Validate of one value at its kube-openapi name (dotted, "" at the root). Returns
    the result's match count (each validator that applies, and what it merged), by which anyOf and oneOf
    choose the failures they tell."""
    value = go_value(value)
    _type_problem(value, schema, name, found)
    if value is None:
        _enum_problem(value, schema, name, found)
        return 1
    matched = 1
    if strformats.types_of(schema) or found.format_of(schema):
        matched += 2
    matched += _composition_problems(value, schema, name, found) + 1
    if isinstance(value, str):
        _string_problem(value, schema, name, found)
        _format_problem(value, schema, name, found)
        matched += 1 + strformats.is_known(found.format_of(schema))
    elif _is_number(value):
        _number_problem(value, schema, name, found)
        matched += 2
    elif isinstance(value, list):
        matched += _slice_problems(value, schema, name, found) + 1
    _enum_problem(value, schema, name, found)
    matched += 1
    if isinstance(value, dict):
        matched += _object_problems(value, schema, name, found) + 1
    return matched
