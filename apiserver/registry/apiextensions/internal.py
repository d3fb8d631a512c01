"""A v1 CustomResourceDefinitionSpec in the internal form upstream validates
(apiextensions/v1/conversion.go, Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...).

Per-version schema, subresources, printer columns and selectable fields that are identical across all
versions move to the spec's top level (`validation`, `subresources`, `additionalPrinterColumns`,
`selectableFields`) and leave the versions, so their errors are reported there, once; the conversion's
webhook fields flatten to `webhookClientConfig` and `conversionReviewVersions`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from apiserver.registry.apiextensions import openapi_schema

Obj = dict[str, Any]

_HOISTED = (
    ("schema", "validation"),
    ("subresources", "subresources"),
    ("additionalPrinterColumns", "additionalPrinterColumns"),
    ("selectableFields", "selectableFields"),
)


@dataclass
class InternalSpec:
    spec: Obj
    versions: list[Obj]
    top: Obj = field(default_factory=dict)  # the hoisted fields, under their internal names
    conversion: Obj | None = None


def _same(values: list[Any]) -> bool:
    first = values[0]
    return all(v == first for v in values)


def internal_spec(spec: Obj) -> InternalSpec:
    versions = [dict(v) if isinstance(v, dict) else {} for v in spec.get("versions") or ()]
    internal = InternalSpec(spec, versions)
    if versions:
        for key, top in _HOISTED:
            values = [v.get(key) or None for v in versions]
            if _same(values):
                internal.top[top] = values[0]
                for version in versions:
                    version.pop(key, None)
    conversion = spec.get("conversion")
    if isinstance(conversion, dict):
        webhook = conversion.get("webhook") if isinstance(conversion.get("webhook"), dict) else None
        internal.conversion = {
            "strategy": conversion.get("strategy") or "",
            "webhookClientConfig": webhook.get("clientConfig") if webhook else None,
            "conversionReviewVersions": (webhook or {}).get("conversionReviewVersions") or [],
        }
    return internal


def _schema_for_version(internal: InternalSpec, version: str) -> tuple[bool, Any]:
    """apiextensions.GetSchemaForVersion: (found, the version's schema); the shared one, whatever the name,
    when no version has its own."""
    if not any(v.get("schema") for v in internal.versions):
        return True, internal.top.get("validation")
    if internal.top.get("validation") is not None:
        return False, None  # malformed: both shared and per-version schemas
    for v in internal.versions:
        if v.get("name") == version:
            return True, v.get("schema")
    return False, None


@dataclass(frozen=True)
class Allowances:
    """What an update lets through because the old CRD had it already (a limit that came later, or a
    cost estimate that grew), by version name, "" naming the spec's shared fields."""

    unchanged_schemas: frozenset[str] = frozenset()  # not held to the per-expression cost limit
    too_many_selectable_fields: frozenset[str] = frozenset()
    # What the old CRD had anywhere in its schemas, and so its update may still have (upstream's
    # requireOpenAPISchema, requireValidPropertyType, requireAtomicSetType,
    # requireMapListKeysMapSetValidation, requireStructuralSchema and requirePrunedDefaults, negated).
    versions_without_schema: bool = False
    invalid_types: bool = False
    non_atomic_sets: bool = False
    invalid_map_list_keys: bool = False
    non_structural_schemas: bool = False
    unpruned_defaults: bool = False


def _versions_with_unchanged_schemas(new: InternalSpec, old: InternalSpec) -> frozenset[str]:
    """findVersionsWithUnchangedSchemas: the new versions whose schema is the one the old spec has for
    that name."""
    unchanged = set()
    for version in new.versions:
        name = version.get("name") or ""
        found, schema = _schema_for_version(new, name)
        old_found, old_schema = _schema_for_version(old, name)
        if found and old_found and schema == old_schema:
            unchanged.add(name)
    return frozenset(unchanged)


def _too_many_selectable_fields_allowed(new: InternalSpec, old: InternalSpec, limit: int) -> frozenset[str]:
    """findTooManySelectableFieldsAllowed: where the old spec already had more than `limit` selectable
    fields, and the new one has the very same."""
    allowed = set()
    if len(old.top.get("selectableFields") or ()) > limit and \
            new.top.get("selectableFields") == old.top.get("selectableFields"):
        allowed.add("")
    olds = {v.get("name") or "": v for v in old.versions}
    for version in new.versions:
        previous = olds.get(version.get("name") or "")
        if previous is not None and len(previous.get("selectableFields") or ()) > limit and \
                version.get("selectableFields") == previous.get("selectableFields"):
            allowed.add(version.get("name") or "")
    return frozenset(allowed)


def schemas(internal: InternalSpec) -> list[Obj]:
    """HasSchemaWith's schemas: the shared one and each version's."""
    given = [_openapi(internal.top.get("validation"))] + [_openapi(v.get("schema")) for v in internal.versions]
    return [s for s in given if isinstance(s, dict)]


def _openapi(validation: Any) -> Any:
    return validation.get("openAPIV3Schema") if isinstance(validation, dict) else None


def _all_versions_have_schemas(internal: InternalSpec) -> bool:
    """allVersionsSpecifyOpenAPISchema."""
    if _openapi(internal.top.get("validation")) is not None:
        return True
    return all(_openapi(v.get("schema")) is not None for v in internal.versions)


def update_allowances(new: InternalSpec, old: InternalSpec, selectable_limit: int,
                      non_structural: Callable[[Obj], bool], unpruned_defaults: Callable[[Obj], bool]) -> Allowances:
    """What `new` may keep of `old`; `non_structural` and `unpruned_defaults` judge one old schema
    (upstream's schemaIsNonStructural and schemaHasUnprunedDefaults)."""
    old_schemas = schemas(old)
    return Allowances(
        _versions_with_unchanged_schemas(new, old),
        _too_many_selectable_fields_allowed(new, old, selectable_limit),
        versions_without_schema=not _all_versions_have_schemas(old),
        invalid_types=any(openapi_schema.schema_has(s, openapi_schema.invalid_type) for s in old_schemas),
        non_atomic_sets=any(openapi_schema.schema_has(s, openapi_schema.non_atomic_set) for s in old_schemas),
        invalid_map_list_keys=any(openapi_schema.schema_has(
            s, lambda level: bool(openapi_schema.map_list_keys_map_set_problems(level, ""))) for s in old_schemas),
        non_structural_schemas=any(non_structural(s) for s in old_schemas),
        unpruned_defaults=any(unpruned_defaults(s) for s in old_schemas),
    )


def go_versions(versions: list[Obj], given: Any) -> list[Obj] | None:
    """The internal versions as json.Marshal writes them (no json tags, Go field order; unset: null)."""
    shown = [
        {
            "Name": v.get("name") or "",
            "Served": bool(v.get("served")),
            "Storage": bool(v.get("storage")),
            "Deprecated": bool(v.get("deprecated")),
            "DeprecationWarning": v.get("deprecationWarning"),
            "Schema": v.get("schema"),
            "Subresources": v.get("subresources"),
            "AdditionalPrinterColumns": v.get("additionalPrinterColumns") or None,
            "SelectableFields": v.get("selectableFields") or None,
        }
        for v in versions
    ]
    return shown if isinstance(given, list) else None

