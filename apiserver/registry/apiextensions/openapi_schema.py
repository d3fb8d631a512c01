"""A CRD's OpenAPI v3 schema as upstream's ValidateCustomResourceDefinitionOpenAPISchema judges it, level by
level (apiextensions validation/validation.go): specStandardValidatorV3's rules of what OpenAPI a schema
may use, the list and map extensions (validateMapListKeysMapSet among them), and the
x-kubernetes-validations rules (kinds/crrulechecks.py), plus the root's own rules
(validateCustomResourceDefinitionValidation's: the status subresource's, nullable).

The schema is the v1 JSON as written; where upstream's internal form differs (`items` a schema or a
list, `additionalProperties` a schema or a bool) the accessors below read it as the internal form would.
Errors come as upstream's two lists, the schema's then the rules' compiled (CEL): a level's rules are
compiled only when it and all below it have no schema errors, and only when the schema passed the
structural and default checks (`costs` given).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import crrulechecks
from apiserver.kinds.crrulechecks import RuleCosts
from apiserver.registry import field as fields

Obj = dict[str, Any]
OPENAPI_V3_TYPES = ("array", "boolean", "integer", "number", "object", "string")  # sorted, as upstream lists
_META_FIELDS = ("metadata", "kind", "apiVersion")
# What the root may hold when the status subresource is on (status is cut out as properties[status]), by
# the internal field names upstream prints, and the v1 keys they come from.
_ALLOWED_AT_ROOT = ("Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
                    "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems",
                    "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
                    "XPreserveUnknownFields", "XValidations")


@dataclass(frozen=True)
class SchemaOptions:
    """The validationOptions the schema's checks read: a create requires all, an update what the old
    CRD already met (internal.Allowances)."""

    require_valid_property_type: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys_map_set_validation: bool = True
    require_structural_schema: bool = True
    require_pruned_defaults: bool = True
    suppress_per_expression_cost: bool = False


@dataclass(frozen=True)
class _Validator:
    """specStandardValidatorV3: what a level inherits from the levels above it."""

    allow_defaults: bool = True
    disallow_defaults_reason: str = ""
    inside_resource_meta: bool = False
    uncorrelatable: str | None = None  # the highest path below which oldSelf cannot be correlated

    def forbidding_defaults(self, reason: str) -> _Validator:
        return replace(self, allow_defaults=False, disallow_defaults_reason=reason)

    def forbidding_old_self(self, path: str) -> _Validator:
        return self if self.uncorrelatable is not None else replace(self, uncorrelatable=path)


@dataclass(frozen=True)
class _Cel:
    """CELSchemaContext: a level's rules compile (its declared type a resource's `root` or not), and
    how often they can run in one object (None: unbounded)."""

    root: bool
    cardinality: int | None
    costs: RuleCosts

    def child(self, schema: Obj, bound: Any = 1) -> _Cel:
        return _Cel(bool(schema.get("x-kubernetes-embedded-resource")),
                    crrulechecks.times(self.cardinality, bound), self.costs)


@dataclass
class Problems:
    """OpenAPISchemaErrorList: the schema's errors, apart from its compiled rules' (CEL) ones."""

    schema: list[FieldError] = field(default_factory=list)
    cel: list[FieldError] = field(default_factory=list)

    def add(self, other: Problems) -> None:
        self.schema += other.schema
        self.cel += other.cel

    def all(self) -> list[FieldError]:
        return self.schema + self.cel


def _items(schema: Obj) -> tuple[bool, Obj | None, list[Any]]:
    """JSONSchemaPropsOrArray: (set at all, the one schema, the list of schemas)."""
    items = schema.get("items")
    if isinstance(items, dict):
        return True, items, []
    if isinstance(items, list):
        return True, None, items
    return False, None, []


def _or_bool(value: Any) -> tuple[bool, Obj | None] | None:
    """JSONSchemaPropsOrBool: None unset, else (allows, the schema)."""
    if isinstance(value, dict):
        return True, value
    if isinstance(value, bool):
        return value, None
    return None


def _set(schema: Obj, key: str) -> bool:
    """A pointer field given (null leaves it nil)."""
    return schema.get(key) is not None


def _map(schema: Obj, key: str) -> dict[str, Any]:
    value = schema.get(key)
    return value if isinstance(value, dict) else {}


def _list(schema: Obj, key: str) -> list[Any]:
    value = schema.get(key)
    return value if isinstance(value, list) else []


def root_problems(schema: Obj, at: str, status_enabled: bool) -> list[FieldError]:
    """validateCustomResourceDefinitionValidation's checks of the root: with the status subresource on,
    an object with only the fields that survive cutting status out; never nullable."""
    problems: list[FieldError] = []
    if status_enabled:
        props = go_schema_props(schema)
        for name, value in props.items():
            if value is None or value is False or value == "":
                continue  # Go's zero value: unset
            if name == "Type":
                if value != "object":
                    problems.append(fields.invalid(f"{at}.type", value, 'only "object" is allowed as the type '
                                                   "at the root of the schema if the status subresource is enabled"))
                    break
                continue
            if name not in _ALLOWED_AT_ROOT:
                problems.append(fields.invalid_shown(at, fields.go_json(props), f"only [{' '.join(_ALLOWED_AT_ROOT)}] "
                                                     "fields are allowed at the root of the schema if the status "
                                                     "subresource is enabled"))
                break
    if schema.get("nullable") is True:
        problems.append(fields.forbidden(f"{at}.nullable", "nullable cannot be true at the root"))
    return problems


def _standard(schema: Obj, at: str, v: _Validator, options: SchemaOptions) -> list[FieldError]:
    """specStandardValidatorV3.validate: the OpenAPI a CRD schema may not use."""
    problems: list[FieldError] = []
    kind = schema.get("type") or ""
    if options.require_valid_property_type and kind and kind not in OPENAPI_V3_TYPES:
        problems.append(fields.not_supported(f"{at}.type", kind, OPENAPI_V3_TYPES))
    if _set(schema, "default") and not v.allow_defaults:
        detail = "must not be set" + (f" {v.disallow_defaults_reason}" if v.disallow_defaults_reason else "")
        problems.append(fields.forbidden(f"{at}.default", detail))
    if schema.get("id"):
        problems.append(fields.forbidden(f"{at}.id", "id is not supported"))
    if _or_bool(schema.get("additionalItems")) is not None:
        problems.append(fields.forbidden(f"{at}.additionalItems", "additionalItems is not supported"))
    if _map(schema, "patternProperties"):
        problems.append(fields.forbidden(f"{at}.patternProperties", "patternProperties is not supported"))
    if _map(schema, "definitions"):
        problems.append(fields.forbidden(f"{at}.definitions", "definitions is not supported"))
    if isinstance(schema.get("dependencies"), dict):
        problems.append(fields.forbidden(f"{at}.dependencies", "dependencies is not supported"))
    if _set(schema, "$ref"):
        problems.append(fields.forbidden(f"{at}.$ref", "$ref is not supported"))
    if kind == "null":
        problems.append(fields.forbidden(f"{at}.type", "type cannot be set to null, use nullable as an alternative"))
    if _items(schema)[2]:
        problems.append(fields.forbidden(f"{at}.items", "items must be a schema object and not an array"))
    if v.inside_resource_meta and schema.get("x-kubernetes-embedded-resource"):
        problems.append(fields.forbidden(f"{at}.x-kubernetes-embedded-resource",
                                         "must not be used inside of resource meta"))
    return problems


def map_list_keys_map_set_problems(schema: Obj, at: str) -> list[FieldError]:
    """validateMapListKeysMapSet: a set's or map list's items not nullable, a map list's keys required or
    defaulted, and not nullable."""
    _, items, _ = _items(schema)
    list_type = schema.get("x-kubernetes-list-type")
    if items is None or list_type not in ("set", "map"):
        return []
    problems: list[FieldError] = []
    if items.get("nullable") is True:
        problems.append(fields.forbidden(f"{at}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is {list_type}"))
    if list_type == "map":
        required = set(_list(items, "required"))
        properties = _map(items, "properties")
        for key in _list(schema, "x-kubernetes-list-map-keys"):
            key_schema = properties.get(key)
            if not isinstance(key_schema, dict):
                continue  # not a property at all: the schema's own check says so
            key_at = f"{at}.items.properties[{key}]"
            if key not in required and not _set(key_schema, "default"):
                problems.append(fields.required(f"{key_at}.default", "this property is in x-kubernetes-list-map-keys, "
                                                "so it must have a default or be a required property"))
            if key_schema.get("nullable") is True:
                problems.append(fields.forbidden(f"{key_at}.nullable",
                                                 "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
    return problems


def non_atomic_set(schema: Obj) -> bool:
    """hasNonAtomicSetType's predicate: a set whose items can change in part (an array not atomic, an object
    not an atomic map)."""
    _, items, _ = _items(schema)
    if schema.get("x-kubernetes-list-type") != "set" or items is None:
        return False
    if items.get("type") == "array":
        return items.get("x-kubernetes-list-type") not in (None, "atomic")
    if items.get("type") == "object":
        return items.get("x-kubernetes-map-type") != "atomic"
    return False


def invalid_type(schema: Obj) -> bool:
    """SchemaHasInvalidTypes' predicate."""
    kind = schema.get("type") or ""
    return bool(kind) and kind not in OPENAPI_V3_TYPES


def has_extensions(schema: Obj) -> bool:
    """schemaHasKubernetesExtensions' predicate: a schema using them must be structural."""
    return bool(schema.get("x-kubernetes-embedded-resource") or _set(schema, "x-kubernetes-preserve-unknown-fields")
                or schema.get("x-kubernetes-int-or-string") or _list(schema, "x-kubernetes-list-map-keys")
                or _set(schema, "x-kubernetes-list-type") or _list(schema, "x-kubernetes-validations"))


def schema_has(schema: Any, predicate: Callable[[Obj], bool]) -> bool:
    """SchemaHas: whether the schema or any schema within it meets the predicate."""
    if not isinstance(schema, dict):
        return False
    if predicate(schema):
        return True
    _, items, items_list = _items(schema)
    within: list[Any] = [items, *items_list, *_list(schema, "allOf"), *_list(schema, "anyOf"),
                         *_list(schema, "oneOf"), schema.get("not"), *_map(schema, "properties").values()]
    for key in ("additionalProperties", "additionalItems"):
        allowed = _or_bool(schema.get(key))
        within.append(allowed[1] if allowed else None)
    within += [*_map(schema, "patternProperties").values(), *_map(schema, "definitions").values()]
    within += [d for d in _map(schema, "dependencies").values() if isinstance(d, dict)]
    return any(schema_has(sub, predicate) for sub in within)


def _list_problems(schema: Obj, at: str, options: SchemaOptions) -> list[FieldError]:
    """The map-type and list-type extensions: on what type, with which values, and a map list's keys."""
    problems: list[FieldError] = []
    kind = schema.get("type") or ""
    map_type, list_type = schema.get("x-kubernetes-map-type"), schema.get("x-kubernetes-list-type")
    has_items, items, _ = _items(schema)
    keys = _list(schema, "x-kubernetes-list-map-keys")
    if map_type is not None and kind != "object":
        if kind:
            problems.append(fields.invalid(f"{at}.type", kind, "must be object if x-kubernetes-map-type is specified"))
        else:
            problems.append(fields.required(f"{at}.type", "must be object if x-kubernetes-map-type is specified"))
    if map_type is not None and map_type not in ("atomic", "granular"):
        problems.append(fields.not_supported(f"{at}.x-kubernetes-map-type", map_type, ("atomic", "granular")))
    if list_type is not None and kind != "array":
        if kind:
            problems.append(fields.invalid(f"{at}.type", kind, "must be array if x-kubernetes-list-type is specified"))
        else:
            problems.append(fields.required(f"{at}.type", "must be array if x-kubernetes-list-type is specified"))
    elif options.require_atomic_set_type and list_type == "set" and items is not None:
        detail = "must be atomic as item of a list with x-kubernetes-list-type=set"
        # upstream shows the items' list type in both cases
        shown = fields.go_json(items.get("x-kubernetes-list-type"))
        if items.get("type") == "array" and items.get("x-kubernetes-list-type") not in (None, "atomic"):
            problems.append(fields.invalid_shown(f"{at}.items.x-kubernetes-list-type", shown, detail))
        elif items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
            problems.append(fields.invalid_shown(f"{at}.items.x-kubernetes-map-type", shown, detail))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        problems.append(fields.not_supported(f"{at}.x-kubernetes-list-type", list_type, ("atomic", "set", "map")))
    if keys:
        if list_type is None:
            problems.append(fields.required(f"{at}.x-kubernetes-list-type",
                                            "must be map if x-kubernetes-list-map-keys is non-empty"))
        elif list_type != "map":
            problems.append(fields.invalid(f"{at}.x-kubernetes-list-type", list_type,
                                           "must be map if x-kubernetes-list-map-keys is non-empty"))
    if list_type == "map":
        if not keys:
            problems.append(fields.required(f"{at}.x-kubernetes-list-map-keys",
                                            "must not be empty if x-kubernetes-list-type is map"))
        if not has_items:
            problems.append(fields.required(f"{at}.items", "must have a schema if x-kubernetes-list-type is map"))
        elif items is None:
            shown = fields.go_json({"Schema": None, "JSONSchemas": [go_schema_props(s) for s in _list(schema, "items")]})
            problems.append(fields.invalid_shown(f"{at}.items", shown,
                                                 "must only have a single schema if x-kubernetes-list-type is map"))
        elif items.get("type") != "object":
            problems.append(fields.invalid(f"{at}.items.type", items.get("type") or "",
                                           "must be object if parent array's x-kubernetes-list-type is map"))
        else:
            properties, seen = _map(items, "properties"), set()
            for key in keys:
                if key in properties:
                    if (properties[key] or {}).get("type") in ("array", "object"):
                        # upstream shows the items' type, not the key's
                        problems.append(fields.invalid(f"{at}.items.properties[{key}].type", items["type"],
                                                       "must be a scalar type if parent array's "
                                                       "x-kubernetes-list-type is map"))
                else:
                    problems.append(fields.invalid(f"{at}.x-kubernetes-list-map-keys", keys,
                                                   "entries must all be names of item properties"))
                if key in seen:
                    problems.append(fields.invalid(f"{at}.x-kubernetes-list-map-keys", keys,
                                                   "must not contain duplicate entries"))
                seen.add(key)
    return problems


def _rules(schema: Obj, at: str, v: _Validator, cel: _Cel | None, found: Problems) -> None:
    """The level's x-kubernetes-validations: well-formed always; compiled when nothing at or below the
    level is wrong with the schema (a wrong schema gives no type to compile against)."""
    rules = _list(schema, "x-kubernetes-validations")
    if not rules:
        return
    found.schema += crrulechecks.rule_form_problems(schema, rules, at)
    if not found.schema and cel is not None:
        found.cel += crrulechecks.compiled_rule_problems(schema, rules, at, cel.root, v.uncorrelatable,
                                                         cel.cardinality, cel.costs)


def _walk(schema: Any, at: str, v: _Validator, is_root: bool, options: SchemaOptions,
          cel: _Cel | None) -> Problems:
    found = Problems()
    if not isinstance(schema, dict):
        return found
    found.schema += _standard(schema, at, v, options)
    if schema.get("uniqueItems") is True:
        found.schema.append(fields.forbidden(f"{at}.uniqueItems", "uniqueItems cannot be set to true since "
                                             "the runtime complexity becomes quadratic"))
    properties = _map(schema, "properties")
    additional = _or_bool(schema.get("additionalProperties"))
    if additional is not None:
        allows, additional_schema = additional
        if properties and (not allows or additional_schema is not None):
            found.schema.append(fields.forbidden(f"{at}.additionalProperties",
                                                 "additionalProperties and properties are mutual exclusive"))
        # Pruning a default within the metadata's maps could not tell which keys to keep.
        sub = v.forbidding_defaults("inside additionalProperties applying to object metadata") \
            if v.inside_resource_meta else v
        if additional_schema is not None:
            found.add(_walk(additional_schema, f"{at}.additionalProperties", sub, False, options,
                            cel and cel.child(additional_schema, schema.get("maxProperties"))))
    for name, property_schema in properties.items():
        # cel.MapIsCorrelatable: a granular or atomic map's properties keep their old values
        sub = v if schema.get("x-kubernetes-map-type") in (None, "granular", "atomic") else v.forbidding_old_self(at)
        if (is_root or schema.get("x-kubernetes-embedded-resource")) and name in _META_FIELDS:
            sub = replace(sub, inside_resource_meta=True)
            if is_root:
                sub = sub.forbidding_defaults(f"in top-level {name}")
        child_cel = cel.child(property_schema) if cel and isinstance(property_schema, dict) else None
        found.add(_walk(property_schema, f"{at}.properties[{name}]", sub, False, options, child_cel))
    found.add(_walk(schema.get("not"), f"{at}.not", v, False, options, None))
    for key in ("allOf", "oneOf", "anyOf"):
        for i, sub_schema in enumerate(_list(schema, key)):
            found.add(_walk(sub_schema, f"{at}.{key}[{i}]", v, False, options, None))
    for name, sub_schema in _map(schema, "definitions").items():
        found.add(_walk(sub_schema, f"{at}.definitions[{name}]", v, False, options, None))
    has_items, items, items_list = _items(schema)
    if has_items:
        # Only a map list's items correlate old to new (a set's would by identity, which rules do not do).
        sub = v if schema.get("x-kubernetes-list-type") == "map" else v.forbidding_old_self(at)
        if items is not None:
            found.add(_walk(items, f"{at}.items", sub, False, options, cel and cel.child(items, schema.get("maxItems"))))
        for i, item in enumerate(items_list):
            item_cel = cel.child(item, schema.get("maxItems")) if cel and isinstance(item, dict) else None
            found.add(_walk(item, f"{at}.items[{i}]", sub, False, options, item_cel))
    for name, dependency in _map(schema, "dependencies").items():
        found.add(_walk(dependency if isinstance(dependency, dict) else None, f"{at}.dependencies[{name}]", v,
                        False, options, None))
    if schema.get("x-kubernetes-preserve-unknown-fields") is False:
        found.schema.append(fields.invalid(f"{at}.x-kubernetes-preserve-unknown-fields", False,
                                           "must be true or undefined"))
    found.schema += _list_problems(schema, at, options)
    if options.require_map_list_keys_map_set_validation:
        found.schema += map_list_keys_map_set_problems(schema, at)
    _rules(schema, at, v, cel, found)
    return found


def openapi_schema_problems(schema: Obj, at: str, options: SchemaOptions, costs: RuleCosts | None) -> list[FieldError]:
    """ValidateCustomResourceDefinitionOpenAPISchema from the root, its schema errors then its rules'
    compiled ones; rules compile only with `costs` to add up (the schema passed the structural and default
    checks)."""
    cel = _Cel(True, 1, costs) if costs is not None else None
    return _walk(schema, at, _Validator(), True, options, cel).all()


# The internal JSONSchemaProps' fields in Go's order, from the v1 keys they come from; upstream prints a
# schema as json.Marshal writes the internal struct (no json tags), zero values included.
_SCHEMA_FIELDS = (
    ("ID", "id", ""), ("Schema", "$schema", ""), ("Ref", "$ref", None), ("Description", "description", ""),
    ("Type", "type", ""), ("Nullable", "nullable", False), ("Format", "format", ""), ("Title", "title", ""),
    ("Default", "default", None), ("Maximum", "maximum", None), ("ExclusiveMaximum", "exclusiveMaximum", False),
    ("Minimum", "minimum", None), ("ExclusiveMinimum", "exclusiveMinimum", False),
    ("MaxLength", "maxLength", None), ("MinLength", "minLength", None), ("Pattern", "pattern", ""),
    ("MaxItems", "maxItems", None), ("MinItems", "minItems", None), ("UniqueItems", "uniqueItems", False),
    ("MultipleOf", "multipleOf", None), ("Enum", "enum", None), ("MaxProperties", "maxProperties", None),
    ("MinProperties", "minProperties", None), ("Required", "required", None), ("Items", "items", None),
    ("AllOf", "allOf", None), ("OneOf", "oneOf", None), ("AnyOf", "anyOf", None), ("Not", "not", None),
    ("Properties", "properties", None), ("AdditionalProperties", "additionalProperties", None),
    ("PatternProperties", "patternProperties", None), ("Dependencies", "dependencies", None),
    ("AdditionalItems", "additionalItems", None), ("Definitions", "definitions", None),
    ("ExternalDocs", "externalDocs", None), ("Example", "example", None),
    ("XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields", None),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource", False),
    ("XIntOrString", "x-kubernetes-int-or-string", False), ("XListMapKeys", "x-kubernetes-list-map-keys", None),
    ("XListType", "x-kubernetes-list-type", None), ("XMapType", "x-kubernetes-map-type", None),
    ("XValidations", "x-kubernetes-validations", None),
)


def _go_number(value: Any) -> Any:
    """A float64 as encoding/json writes it: whole numbers without a fraction."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 1e21 else value


def _go_or_bool(value: Any) -> Any:
    if isinstance(value, dict):
        return {"Allows": True, "Schema": go_schema_props(value)}
    return {"Allows": bool(value), "Schema": None}


def _go_field(name: str, value: Any) -> Any:
    if name in ("AllOf", "OneOf", "AnyOf"):
        return [go_schema_props(s) for s in value]
    if name in ("Properties", "PatternProperties", "Definitions"):
        return {k: go_schema_props(value[k]) for k in sorted(value)}
    if name == "Not":
        return go_schema_props(value)
    if name == "Items":
        if isinstance(value, list):
            return {"Schema": None, "JSONSchemas": [go_schema_props(s) for s in value]}
        return {"Schema": go_schema_props(value), "JSONSchemas": None}
    if name in ("AdditionalProperties", "AdditionalItems"):
        return _go_or_bool(value)
    if name == "Dependencies":
        return {k: {"Schema": go_schema_props(d) if isinstance(d, dict) else None,
                    "Property": d if isinstance(d, list) else None} for k, d in sorted(value.items())}
    if name == "ExternalDocs":
        return {"Description": value.get("description") or "", "URL": value.get("url") or ""}
    if name == "XValidations":
        return [{"Rule": r.get("rule", ""), "Message": r.get("message", ""),
                 "MessageExpression": r.get("messageExpression", ""), "Reason": r.get("reason"),
                 "FieldPath": r.get("fieldPath", ""), "OptionalOldSelf": r.get("optionalOldSelf")} for r in value]
    return _go_number(value)


def go_schema_props(schema: Any) -> Obj:
    """A v1 schema as upstream prints its internal JSONSchemaProps."""
    schema = schema if isinstance(schema, dict) else {}
    return {name: zero if schema.get(key) is None else _go_field(name, schema[key])
            for name, key, zero in _SCHEMA_FIELDS}
