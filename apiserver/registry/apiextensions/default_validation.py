"""A CRD schema's defaults judged as the values they will become: upstream's ValidateDefaults
(apiextensions-apiserver/pkg/apiserver/schema/defaulting/validation.go, isResourceRoot true).

Every `default` under `properties` and `items` (additionalProperties may hold none) must survive
pruning unchanged (when required), carry well-typed type and object meta where it is or holds a
resource (schema/objectmeta's Coerce, then Validate), pass the schema of its own level (kube-openapi's
SchemaValidator) and that level's x-kubernetes-validations, once against itself as the old value and
once as a new value, as ratcheting lets a default arrive on a create. A default of a resource's
apiVersion, kind or metadata (or inside them) is judged inside a resource made around it
(defaulting/surroundingobject.go), whose type meta is "validation/v1" "Validation" where the default
gives none. Each default's rules are held to the per-call cost limit and a runtime cost budget of their
own (apiserver/cel/budget.py); upstream's one budget across all of a schema's defaults is not shared.
"""

from __future__ import annotations

import copy
from typing import Any

from apiserver.crd import crvalidation
from apiserver.crd.objectmeta import coerce
from apiserver.errors import FieldError, aggregate
from apiserver.kinds import crschema, crvalidations, schemavalidator
from apiserver.registry import field

Schema = dict[str, Any]

_META_FIELDS = ("apiVersion", "kind", "metadata")
_SUBSCHEMAS = ("items", "additionalProperties", "allOf", "anyOf", "oneOf", "not")
_SURROUNDING_TYPE_META = {"kind": "Validation", "apiVersion": "validation/v1"}

# A step from a resource towards a default inside its type or object meta: a field name, or None for
# a list's item (SurroundingObjectFunc's Child and Index).
Step = str | None


def default_problems(openapi: Any, at: str, require_pruned_defaults: bool) -> list[FieldError]:
    """ValidateDefaults of the schema at `at` (".../openAPIV3Schema"), the schema being a resource's root."""
    if not isinstance(openapi, dict):
        openapi = {}
    root = openapi if openapi.get("x-kubernetes-embedded-resource") else \
        {**openapi, "x-kubernetes-embedded-resource": True}
    walk = _Walk(require_pruned_defaults, openapi, root)
    walk.node(root, at, root, [], inside_meta=False)
    return walk.problems


def has_unpruned_defaults(openapi: Any) -> bool:
    """schemaHasUnprunedDefaults: whether PruneDefaults would change a default of the schema. Each
    default is put in the resource around it (with no type meta), its object meta coerced with invalid
    fields dropped, pruned, and taken out again (defaulting/prune.go)."""
    if not isinstance(openapi, dict):
        return False
    root = openapi if openapi.get("x-kubernetes-embedded-resource") else \
        {**openapi, "x-kubernetes-embedded-resource": True}
    return _unpruned_below(root, root, [])


def _unpruned_below(schema: Schema, root: Schema, steps: list[str | None]) -> bool:
    if schema.get("default") is not None and _pruning_changes(schema["default"], root, steps):
        return True
    children: list[tuple[Any, str | None]] = [(_additional(schema), "*"), (schema.get("items"), None)]
    children += [(sub, key) for key, sub in (schema.get("properties") or {}).items()]
    return any(isinstance(sub, dict) and _unpruned_below(sub, root, [*steps, step]) for sub, step in children)


def _pruning_changes(value: Any, root: Schema, steps: list[str | None]) -> bool:
    """Whether coercing and pruning the resource made around `value` (at `steps` from the root) changes it."""
    surrounding: Any = copy.deepcopy(value)
    for step in reversed(steps):
        surrounding = [surrounding] if step is None else {step: surrounding}
    if coerce(surrounding, root, "") is not None:
        return True  # a field Coerce finds malformed is dropped
    prune(surrounding, root)
    for step in steps:
        if isinstance(surrounding, list) and step is None and surrounding:
            surrounding = surrounding[0]
        elif isinstance(surrounding, dict) and step in surrounding:
            surrounding = surrounding[step]
        else:
            return True  # pruned away
    return not _same(surrounding, value)


class _Walk:
    def __init__(self, require_pruned_defaults: bool, written_root: Schema, marked_root: Schema) -> None:
        self.require_pruned_defaults = require_pruned_defaults
        # The root as written, and as the walk marks it: a resource. Rules compile against the former.
        self.written_root, self.marked_root = written_root, marked_root
        self.problems: list[FieldError] = []

    def node(self, schema: Schema, at: str, resource: Schema, steps: list[Step], inside_meta: bool) -> None:
        """validate: `resource` is the schema of the nearest resource around (or at) this level, `steps`
        the way from it to here."""
        if schema.get("x-kubernetes-embedded-resource"):
            inside_meta, resource, steps = False, schema, []
        if schema.get("default") is not None:
            if inside_meta:
                self._inside_meta(schema, at, resource, steps)
            else:
                self._elsewhere(schema, at)
        # additionalProperties is not followed: defaults are forbidden there.
        items = schema.get("items")
        if isinstance(items, dict):
            self.node(items, f"{at}.items", resource, [*steps, None], inside_meta)
        for key, sub in (schema.get("properties") or {}).items():
            if isinstance(sub, dict):
                meta = inside_meta or bool(schema.get("x-kubernetes-embedded-resource") and key in _META_FIELDS)
                self.node(sub, f"{at}.properties[{key}]", resource, [*steps, key], meta)

    def _inside_meta(self, schema: Schema, at: str, resource: Schema, steps: list[Step]) -> None:
        """A default of type or object meta, checked in the resource made around it."""
        value = schema["default"]
        surrounding = _surrounding(copy.deepcopy(value), steps)
        shown = schemavalidator.shown_value(value)
        coerce_error = coerce(surrounding, resource, "")
        if coerce_error is not None:
            self.problems.append(field.invalid_shown(f"{at}.default", shown, "must result in valid metadata: "
                                                     f"{coerce_error.path}: {coerce_error.message}"))
            return
        meta_errors = crvalidation.embedded_problems(surrounding, resource)
        if meta_errors:
            self.problems.append(field.invalid_shown(f"{at}.default", shown, "must result in valid metadata: "
                                                     + aggregate([f"{e.path}: {e.message}" for e in meta_errors])))
            return
        # A level of type or object meta is never a resource's root.
        self._value_and_rules(value, schema, at, resource_root=False)

    def _elsewhere(self, schema: Schema, at: str) -> None:
        value = schema["default"]
        if self.require_pruned_defaults:
            pruned = copy.deepcopy(value)
            prune(pruned, schema)
            if not _same(pruned, value):
                self.problems.append(field.invalid_shown(f"{at}.default", schemavalidator.shown_value(value),
                                                         "must not have unknown fields"))
        # Coerce rewrites, in place, the object meta of the default it judges: the CRD's own default, so
        # it is stored as coerced (upstream's structural schema shares the default with the CRD).
        coerce_error = coerce(value, schema, f"{at}.default")
        if coerce_error is not None:
            self.problems.append(coerce_error)
            return
        meta_errors = crvalidation.embedded_problems(value, schema, f"{at}.default")
        if meta_errors:
            self.problems += meta_errors
            return
        self._value_and_rules(value, schema, at, bool(schema.get("x-kubernetes-embedded-resource")))

    def _value_and_rules(self, value: Any, schema: Schema, at: str, resource_root: bool) -> None:
        """ValidateCustomResource of the default against its level's schema, then that level's rules."""
        found = crschema.check_value(value, _without_int_or_string(schema), f"{at}.default", formats_stripped=False)
        if found:
            self.problems += found
            return
        rules = crvalidations.build(self.written_root if schema is self.marked_root else schema, resource_root)
        if rules is None:
            return
        failed = rules.validate(value, value, f"{at}.default", ratchet=False)
        if not failed:
            # A rule with optionalOldSelf must take the default as a new value too (a create).
            failed = rules.validate(value, None, f"{at}.default", ratchet=False)
        self.problems += failed


def _without_int_or_string(schema: Any) -> Any:
    """The schema as kube-openapi gets it from a structural schema (ToKubeOpenAPI), not as a custom
    resource's validator is built (ConvertJSONSchemaProps): x-kubernetes-int-or-string is an extension
    it does not read, so such a level takes any type, and no format is stripped."""
    if isinstance(schema, list):
        return [_without_int_or_string(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: {name: _without_int_or_string(sub) for name, sub in value.items()}
            if key == "properties" and isinstance(value, dict) else
            _without_int_or_string(value) if key in _SUBSCHEMAS else value
            for key, value in schema.items() if key != "x-kubernetes-int-or-string"}


def _surrounding(value: Any, steps: list[Step]) -> dict[str, Any]:
    """The resource a value at `steps` sits in: NewRootObjectFunc().WithTypeMeta(validation/v1
    Validation) then Child and Index along the steps. The first step is always a field (apiVersion,
    kind or metadata), so the resource is an object."""
    for step in reversed(steps):
        value = [value] if step is None else {step: value}
    for key, filler in _SURROUNDING_TYPE_META.items():
        value.setdefault(key, filler)
    return value  # type: ignore[no-any-return]


def _same(a: Any, b: Any) -> bool:
    """reflect.DeepEqual of decoded JSON values."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def prune(value: Any, schema: Schema | None) -> None:
    """pruning.Prune (isResourceRoot as the schema's x-kubernetes-embedded-resource): removes, in place,
    the fields the schema does not declare; x-kubernetes-preserve-unknown-fields keeps a level's own,
    a resource its type and object meta. An additionalProperties of true or false holds no schema, so
    what is under its values goes."""
    if schema is not None and schema.get("x-kubernetes-preserve-unknown-fields"):
        _skip_prune(value, schema)
        return
    if isinstance(value, dict):
        if schema is None:
            value.clear()
            return
        properties = schema.get("properties") or {}
        for key in list(value):
            if schema.get("x-kubernetes-embedded-resource") and key in _META_FIELDS:
                continue
            if key in properties:
                prune(value[key], properties[key])
            elif "additionalProperties" in schema and schema["additionalProperties"] is not None:
                prune(value[key], _additional(schema))
            else:
                del value[key]
    elif isinstance(value, list):
        for item in value:
            prune(item, None if schema is None else schema.get("items"))


def _skip_prune(value: Any, schema: Schema | None) -> None:
    if schema is None:
        return
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, item in value.items():
            if schema.get("x-kubernetes-embedded-resource") and key in _META_FIELDS:
                continue
            if key in properties:
                prune(item, properties[key])
            elif "additionalProperties" in schema and schema["additionalProperties"] is not None:
                prune(item, _additional(schema))
    elif isinstance(value, list):
        for item in value:
            _skip_prune(item, schema.get("items"))


def _additional(schema: Schema) -> Schema | None:
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None
