"""A CRD's openAPIV3Schema made a structural schema, and the invariants that make it one: upstream's
apiextensions-apiserver pkg/apiserver/schema, convert.go (NewStructural) and validation.go with
complete.go (ValidateStructural).

NewStructural splits each schema node into what describes the value's shape (type, properties, items,
additionalProperties, the x-kubernetes extensions) and its value validations, where allOf, anyOf, oneOf
and not hold nested value validations whose shape fields are kept only to be refused ("must be empty to
be structural"). It fails at the first field no structural schema holds. ValidateStructural then walks
the result and returns its errors sorted by their text, as upstream sorts them.

The Go types are mirrored as dataclasses so that upstream's reflect.DeepEqual comparisons (a root
`metadata` that only names name and generateName, the int-or-string `anyOf`) compare the same fields:
a JSON null decodes as Go's nil, and a list given empty is not a list left out, as Go's nil slice is not
its empty one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from apiserver.cel import goregexp
from apiserver.errors import FieldError
from apiserver.registry import field as fielderr

Obj = dict[str, Any]


class _NotStructural(Exception):
    """NewStructural's error."""


@dataclass
class Generic:
    type: str = ""
    description: str = ""
    title: str = ""
    default: Any = None  # JSON{Object}: None is Go's nil
    nullable: bool = False
    external_docs: tuple[str, str] | None = None
    example: Any = None


@dataclass
class Extensions:
    preserve_unknown_fields: bool = False
    embedded_resource: bool = False
    int_or_string: bool = False
    list_map_keys: list[Any] | None = None
    list_type: str | None = None
    map_type: str | None = None


@dataclass
class ValueValidation:
    format: str = ""
    maximum: float | None = None
    exclusive_maximum: bool = False
    minimum: float | None = None
    exclusive_minimum: bool = False
    max_length: int | None = None
    min_length: int | None = None
    pattern: str = ""
    max_items: int | None = None
    min_items: int | None = None
    unique_items: bool = False
    multiple_of: float | None = None
    enum: list[Any] | None = None
    max_properties: int | None = None
    min_properties: int | None = None
    required: list[Any] | None = None
    all_of: list[NestedValueValidation] | None = None
    one_of: list[NestedValueValidation] | None = None
    any_of: list[NestedValueValidation] | None = None
    not_: NestedValueValidation | None = None


@dataclass
class NestedValueValidation:
    value_validation: ValueValidation = field(default_factory=ValueValidation)
    x_validations: list[Any] | None = None
    items: NestedValueValidation | None = None
    properties: dict[str, NestedValueValidation] | None = None
    additional_properties: NestedValueValidation | None = None
    forbidden_generics: Generic = field(default_factory=Generic)
    forbidden_extensions: Extensions = field(default_factory=Extensions)


@dataclass
class StructuralOrBool:
    structural: Structural | None
    allows: bool


@dataclass
class Structural:
    items: Structural | None = None
    properties: dict[str, Structural] | None = None
    additional_properties: StructuralOrBool | None = None
    generic: Generic = field(default_factory=Generic)
    extensions: Extensions = field(default_factory=Extensions)
    x_validations: list[Any] | None = None
    value_validation: ValueValidation | None = None


# --- NewStructural (convert.go) ---

def _string(schema: Obj, key: str) -> str:
    value = schema.get(key)
    return value if isinstance(value, str) else ""


def _flag(schema: Obj, key: str) -> bool:
    return schema.get(key) is True


def _number(schema: Obj, key: str) -> Any:
    value = schema.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _list(schema: Obj, key: str) -> list[Any] | None:
    value = schema.get(key)
    return value if isinstance(value, list) else None


def _dict(schema: Obj, key: str) -> Obj | None:
    value = schema.get(key)
    return value if isinstance(value, dict) else None


def _unsupported_fields(schema: Obj) -> None:
    """validateUnsupportedFields."""
    if _string(schema, "id"):
        raise _NotStructural("OpenAPIV3Schema 'id' is not supported")
    if _string(schema, "$schema"):
        raise _NotStructural("OpenAPIV3Schema 'schema' is not supported")
    if _string(schema, "$ref"):
        raise _NotStructural("OpenAPIV3Schema '$ref' is not supported")
    if _dict(schema, "patternProperties"):
        raise _NotStructural("OpenAPIV3Schema 'patternProperties' is not supported")
    if _dict(schema, "dependencies"):
        raise _NotStructural("OpenAPIV3Schema 'dependencies' is not supported")
    if schema.get("additionalItems") is not None:
        raise _NotStructural("OpenAPIV3Schema 'additionalItems' is not supported")
    if _dict(schema, "definitions"):
        raise _NotStructural("OpenAPIV3Schema 'definitions' is not supported")


def _generics(schema: Obj) -> Generic:
    docs = _dict(schema, "externalDocs")
    return Generic(
        type=_string(schema, "type"), description=_string(schema, "description"), title=_string(schema, "title"),
        default=schema.get("default"), nullable=_flag(schema, "nullable"),
        external_docs=(_string(docs, "description"), _string(docs, "url")) if docs is not None else None,
        example=schema.get("example"),
    )


def _value_validation(schema: Obj) -> ValueValidation:
    not_ = _dict(schema, "not")
    nested_not = _nested(not_) if not_ is not None else None
    clauses = {key: [_nested(x if isinstance(x, dict) else {}) for x in _list(schema, key) or ()] or None
               for key in ("allOf", "anyOf", "oneOf")}
    return ValueValidation(
        format=_string(schema, "format"), maximum=_number(schema, "maximum"),
        exclusive_maximum=_flag(schema, "exclusiveMaximum"), minimum=_number(schema, "minimum"),
        exclusive_minimum=_flag(schema, "exclusiveMinimum"), max_length=_number(schema, "maxLength"),
        min_length=_number(schema, "minLength"), pattern=_string(schema, "pattern"),
        max_items=_number(schema, "maxItems"), min_items=_number(schema, "minItems"),
        unique_items=_flag(schema, "uniqueItems"), multiple_of=_number(schema, "multipleOf"),
        enum=list(_list(schema, "enum") or ()) or None, max_properties=_number(schema, "maxProperties"),
        min_properties=_number(schema, "minProperties"), required=_list(schema, "required"),
        all_of=clauses["allOf"], any_of=clauses["anyOf"], one_of=clauses["oneOf"], not_=nested_not,
    )


def _extensions(schema: Obj) -> Extensions:
    preserve = schema.get("x-kubernetes-preserve-unknown-fields")
    if preserve is False:
        raise _NotStructural("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")
    list_type, map_type = schema.get("x-kubernetes-list-type"), schema.get("x-kubernetes-map-type")
    return Extensions(
        preserve_unknown_fields=preserve is True, embedded_resource=_flag(schema, "x-kubernetes-embedded-resource"),
        int_or_string=_flag(schema, "x-kubernetes-int-or-string"),
        list_map_keys=_list(schema, "x-kubernetes-list-map-keys"),
        list_type=list_type if isinstance(list_type, str) else None,
        map_type=map_type if isinstance(map_type, str) else None,
    )


def _items_schema(schema: Obj) -> Obj | None:
    """JSONSchemaPropsOrArray: the one schema items holds, none, or the refusal of an array of them."""
    items = schema.get("items")
    if isinstance(items, list) and items:
        raise _NotStructural("OpenAPIV3Schema 'items' must be a schema, but is an array")
    return items if isinstance(items, dict) else None


def new_structural(schema: Obj) -> Structural:
    """NewStructural; raises _NotStructural."""
    _unsupported_fields(schema)
    value_validation = _value_validation(schema)
    generic = _generics(schema)
    extensions = _extensions(schema)
    built = Structural(generic=generic, extensions=extensions, x_validations=_list(schema, "x-kubernetes-validations"),
                       value_validation=value_validation)
    items = _items_schema(schema)
    if items is not None:
        built.items = new_structural(items)
    properties = _dict(schema, "properties")
    if properties:
        built.properties = {name: new_structural(sub if isinstance(sub, dict) else {})
                            for name, sub in properties.items()}
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        built.additional_properties = StructuralOrBool(new_structural(additional), True)
    elif isinstance(additional, bool):
        built.additional_properties = StructuralOrBool(None, additional)
    return built


def _nested(schema: Obj) -> NestedValueValidation:
    """newNestedValueValidation."""
    _unsupported_fields(schema)
    value_validation = _value_validation(schema)
    generic = _generics(schema)
    extensions = _extensions(schema)
    nested = NestedValueValidation(value_validation=value_validation,
                                   x_validations=_list(schema, "x-kubernetes-validations"),
                                   forbidden_generics=generic, forbidden_extensions=extensions)
    items = _items_schema(schema)
    if items is not None:
        nested.items = _nested(items)
    properties = _dict(schema, "properties")
    if properties is not None:
        nested.properties = {name: _nested(sub if isinstance(sub, dict) else {}) for name, sub in properties.items()}
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        nested.additional_properties = _nested(additional)
    elif additional is True:
        nested.additional_properties = NestedValueValidation()
    return nested


# --- ValidateStructural (validation.go, complete.go) ---

class _Level(Enum):
    ROOT = "at the root"
    ITEM = "for specified array items"
    FIELD = "for specified object fields"


_INT_OR_STRING_ANY_OF = [NestedValueValidation(forbidden_generics=Generic(type="integer")),
                         NestedValueValidation(forbidden_generics=Generic(type="string"))]


def _is_int_or_string_any_of(s: Structural) -> bool:
    """isIntOrStringAnyOfPattern: anyOf [{type: integer}, {type: string}] and nothing else in them."""
    return s.value_validation is not None and s.value_validation.any_of == _INT_OR_STRING_ANY_OF


def _is_int_or_string_all_of(s: Structural) -> bool:
    """isIntOrStringAllOfPattern: that anyOf as the first allOf's."""
    all_of = s.value_validation.all_of if s.value_validation is not None else None
    return all_of is not None and all_of[0].value_validation.any_of == _INT_OR_STRING_ANY_OF


def _invariants(s: Structural | None, level: _Level, at: str) -> list[FieldError]:
    """validateStructuralInvariants."""
    if s is None:
        return []
    found: list[FieldError] = []
    generic, extensions = s.generic, s.extensions
    if generic.type == "array" and s.items is None:
        found.append(fielderr.required(f"{at}.items", "must be specified"))
    found += _invariants(s.items, _Level.ITEM, f"{at}.items")
    for name, sub in (s.properties or {}).items():
        found += _invariants(sub, _Level.FIELD, f"{at}.properties[{name}]")
    if s.additional_properties is not None:
        if level is _Level.ROOT:
            found.append(fielderr.forbidden(f"{at}.additionalProperties", "must not be used at the root"))
        found += _invariants(s.additional_properties.structural, _Level.FIELD, f"{at}.additionalProperties")
    found += _extensions_problems(extensions, at)
    found += _value_validation_problems(s.value_validation, _is_int_or_string_any_of(s), _is_int_or_string_all_of(s),
                                        level, at)
    check_metadata = level is _Level.ROOT or extensions.embedded_resource
    embedded_detail = "must be object if x-kubernetes-embedded-resource is true"
    if extensions.embedded_resource and generic.type != "object":
        if not generic.type:
            found.append(fielderr.required(f"{at}.type", embedded_detail))
        else:
            found.append(fielderr.invalid(f"{at}.type", generic.type, embedded_detail))
    elif not generic.type and not extensions.int_or_string and not extensions.preserve_unknown_fields:
        found.append(fielderr.required(f"{at}.type", f"must not be empty {level.value}"))
    if extensions.embedded_resource and s.additional_properties is not None:
        found.append(fielderr.forbidden(f"{at}.additionalProperties",
                                        "must not be used if x-kubernetes-embedded-resource is set"))
    if level is _Level.ROOT and generic.type and generic.type != "object":
        found.append(fielderr.invalid(f"{at}.type", generic.type, "must be object at the root"))
    properties = s.properties or {}
    for name in ("kind", "apiVersion"):
        if name in properties and check_metadata and properties[name].generic.type != "string":
            found.append(fielderr.invalid(f"{at}.properties[{name}].type", properties[name].generic.type,
                                          "must be string"))
    if "metadata" in properties:
        found += _metadata_invariants(properties["metadata"], check_metadata, level, f"{at}.properties[metadata]")
    if extensions.embedded_resource and not extensions.preserve_unknown_fields and not properties:
        found.append(fielderr.required(
            f"{at}.properties",
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
    return found


def _metadata_invariants(s: Structural, check_metadata: bool, level: _Level, at: str) -> list[FieldError]:
    """validateStructuralMetadataInvariants: an object, and at the root nothing but name and generateName
    (a default is judged elsewhere)."""
    found: list[FieldError] = []
    if check_metadata and s.generic.type != "object":
        found.append(fielderr.invalid(f"{at}.type", s.generic.type, "must be object"))
    if level is _Level.ROOT:
        properties = s.properties
        names = set(properties or ()) & {"name", "generateName"}
        if names and len(properties or ()) == len(names):
            properties = None
        bare = replace(s, properties=properties, generic=replace(s.generic, type="", default=None),
                       value_validation=s.value_validation or ValueValidation())
        if bare != Structural(value_validation=ValueValidation()):
            found.append(fielderr.forbidden(
                at, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
    return found


def _extensions_problems(x: Extensions, at: str) -> list[FieldError]:
    """validateExtensions."""
    found: list[FieldError] = []
    if x.int_or_string and x.preserve_unknown_fields:
        found.append(fielderr.invalid(f"{at}.x-kubernetes-preserve-unknown-fields", True,
                                      "must be false if x-kubernetes-int-or-string is true"))
    if x.int_or_string and x.embedded_resource:
        found.append(fielderr.invalid(f"{at}.x-kubernetes-embedded-resource", True,
                                      "must be false if x-kubernetes-int-or-string is true"))
    return found


def _value_validation_problems(v: ValueValidation | None, skip_any_of: bool, skip_first_all_of_any_of: bool,
                               level: _Level, at: str) -> list[FieldError]:
    """validateValueValidation: the nested clauses, and a pattern Go's regexp compiles."""
    if v is None:
        return []
    found: list[FieldError] = []
    if not skip_any_of:
        for i, clause in enumerate(v.any_of or ()):
            found += _nested_problems(clause, False, False, level, f"{at}.anyOf[{i}]")
    for i, clause in enumerate(v.all_of or ()):
        found += _nested_problems(clause, skip_first_all_of_any_of and i == 0, False, level, f"{at}.allOf[{i}]")
    for i, clause in enumerate(v.one_of or ()):
        found += _nested_problems(clause, False, False, level, f"{at}.oneOf[{i}]")
    found += _nested_problems(v.not_, False, False, level, f"{at}.not")
    if v.pattern and (error := goregexp.compile_error(v.pattern)) is not None:
        found.append(fielderr.invalid(f"{at}.pattern", v.pattern,
                                      f"must be a valid regular expression, but isn't: {error}"))
    return found


def _nested_problems(v: NestedValueValidation | None, skip_any_of: bool, skip_all_of_any_of: bool, level: _Level,
                     at: str) -> list[FieldError]:
    """validateNestedValueValidation: inside allOf, anyOf, oneOf and not only value validations, no
    metadata, and no x-kubernetes-validations (upstream's options allow none for a CRD)."""
    if v is None:
        return []
    found = _value_validation_problems(v.value_validation, skip_any_of, skip_all_of_any_of, level, at)
    found += _nested_problems(v.items, False, False, level, f"{at}.items")
    for name, sub in (v.properties or {}).items():
        found += _nested_problems(sub, False, False, _Level.FIELD, f"{at}.properties[{name}]")
    generic, extensions = v.forbidden_generics, v.forbidden_extensions
    if generic.type:
        found.append(fielderr.forbidden(f"{at}.type", "must be empty to be structural"))
    if v.additional_properties is not None:
        found.append(fielderr.forbidden(f"{at}.additionalProperties", "must be undefined to be structural"))
    if generic.default is not None:
        found.append(fielderr.forbidden(f"{at}.default", "must be undefined to be structural"))
    if generic.title:
        found.append(fielderr.forbidden(f"{at}.title", "must be empty to be structural"))
    if generic.description:
        found.append(fielderr.forbidden(f"{at}.description", "must be empty to be structural"))
    if generic.nullable:
        found.append(fielderr.forbidden(f"{at}.nullable", "must be false to be structural"))
    if extensions.preserve_unknown_fields:
        found.append(fielderr.forbidden(f"{at}.x-kubernetes-preserve-unknown-fields", "must be false to be structural"))
    if extensions.embedded_resource:
        found.append(fielderr.forbidden(f"{at}.x-kubernetes-embedded-resource", "must be false to be structural"))
    if extensions.int_or_string:
        found.append(fielderr.forbidden(f"{at}.x-kubernetes-int-or-string", "must be false to be structural"))
    if extensions.list_map_keys:
        found.append(fielderr.forbidden(f"{at}.x-kubernetes-list-map-keys", "must be empty to be structural"))
    if extensions.list_type is not None:
        found.append(fielderr.forbidden(f"{at}.x-kubernetes-list-type", "must be undefined to be structural"))
    if extensions.map_type is not None:
        found.append(fielderr.forbidden(f"{at}.x-kubernetes-map-type", "must be undefined to be structural"))
    if v.x_validations:
        found.append(fielderr.forbidden(f"{at}.x-kubernetes-validations", "must be empty to be structural"))
    if "metadata" in (v.properties or {}):
        found.append(fielderr.forbidden(f"{at}.properties[metadata]", "must not be specified in a nested context"))
    return found


def _completeness(v: ValueValidation | None, s: Structural | None, s_at: str, v_at: str) -> list[FieldError]:
    """validateValueValidationCompleteness: every field and items a nested value validation names is
    specified in the structural schema too. Upstream starts it at the root's own value validation only."""
    if v is None:
        return []
    if s is None:
        return [fielderr.required(s_at, f"because it is defined in {v_at}")]
    found = _nested_completeness(v.not_, s, s_at, f"{v_at}.not")
    for key, clauses in (("allOf", v.all_of), ("anyOf", v.any_of), ("oneOf", v.one_of)):
        for i, clause in enumerate(clauses or ()):
            found += _nested_completeness(clause, s, s_at, f"{v_at}.{key}[{i}]")
    return found


def _nested_completeness(v: NestedValueValidation | None, s: Structural | None, s_at: str,
                         v_at: str) -> list[FieldError]:
    """validateNestedValueValidationCompleteness (upstream's options for a CRD let no nested
    additionalProperties through, nor a property that only additionalProperties specifies)."""
    if v is None:
        return []
    if s is None:
        return [fielderr.required(s_at, f"because it is defined in {v_at}")]
    found = _completeness(v.value_validation, s, s_at, v_at)
    found += _nested_completeness(v.items, s.items, f"{s_at}.items", f"{v_at}.items")
    for name, sub in (v.properties or {}).items():
        specified = (s.properties or {}).get(name)
        if specified is None:
            found.append(fielderr.required(f"{s_at}.properties[{name}]",
                                           f"because it is defined in {v_at}.properties[{name}]"))
        else:
            found += _nested_completeness(sub, specified, f"{s_at}.properties[{name}]", f"{v_at}.properties[{name}]")
    return found


def validate_structural(s: Structural, at: str) -> list[FieldError]:
    """ValidateStructural, its errors in the order of their text."""
    found = _invariants(s, _Level.ROOT, at) + _completeness(s.value_validation, s, at, at)
    return sorted(found, key=lambda error: f"{error.path}: {error.message}")


def structural_problems(openapi: Obj, at: str) -> tuple[list[FieldError], list[FieldError]]:
    """(NewStructural's error, ValidateStructural's errors) for the schema at `at`: upstream keeps the first
    aside, to be reported only when nothing else is."""
    try:
        built = new_structural(openapi)
    except _NotStructural as error:
        return [fielderr.invalid(at, "", str(error))], []
    return [], validate_structural(built, at)
