"""apiextensions.k8s.io/v1 validation of the CustomResourceDefinition object itself
(staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go):
ValidateCustomResourceDefinition(Update) and validateCustomResourceDefinitionSpec in upstream's order,
on the internal form (`internal.py`). Of the OpenAPI schema's own rules, what `schema_validation.py`
holds; the conversion's are `conversion_validation.py`'s.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1035_label, dns1123_subdomain
from apiserver.registry import field
from apiserver.registry.apiextensions import (
    conversion_validation,
    deletion,
    openapi_schema,
    schema_validation,
)
from apiserver.registry.apiextensions.internal import (
    Allowances,
    InternalSpec,
    go_versions,
    internal_spec,
    schemas,
    update_allowances,
)
from apiserver.registry.apiextensions.openapi_schema import SchemaOptions
from apiserver.registry.meta import subdomain_name

Obj = dict[str, Any]

_SCOPES = ("Cluster", "Namespaced")
_COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")
_COLUMN_FORMATS = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def name_rule(crd: Obj) -> list[FieldError]:
    """ValidateObjectMeta's name function for a CRD: a DNS subdomain, and plural.group (upstream's
    closure over the CRD, which is why the strategy's own name rule leaves CRDs alone)."""
    meta, spec = _dict(crd.get("metadata")), _dict(crd.get("spec"))
    required = f"{_dict(spec.get('names')).get('plural') or ''}.{spec.get('group') or ''}"
    found: list[FieldError] = []
    for key, prefix in (("generateName", True), ("name", False)):
        name = meta.get(key)
        if not name:
            continue
        found += [field.invalid(f"metadata.{key}", name, msg) for msg in subdomain_name(name, prefix)]
        if name != required:
            found.append(field.invalid(f"metadata.{key}", name, 'must be spec.names.plural+"."+spec.group'))
    return found


def _deprecation_warning(version: Obj, path: str) -> list[FieldError]:
    """validateDeprecationWarning."""
    warning = version.get("deprecationWarning")
    if warning is None:
        return []
    if not version.get("deprecated"):
        return [field.invalid(path, warning, "can only be set for deprecated versions")]
    problems = []
    if len(warning.encode()) > 256:
        problems.append("must be <= 256 characters long")
    if not warning:
        problems.append("must not be an empty string")
    offset = 0
    for ch in warning:
        if not ch.isprintable() and ch != " ":
            kind = "control" if unicodedata.category(ch) == "Cc" else "non-printable"
            problems.append(
                f"must only contain printable UTF-8 characters; {kind} character found at index {offset}"
            )
            break
        offset += len(ch.encode())
    return [field.invalid(path, warning, p) for p in problems]


def _simple_json_path(value: str, path: str) -> list[FieldError]:
    """validateSimpleJSONPath."""
    if not value:
        return [field.invalid(path, value, "must not be empty")]
    if not value.startswith("."):
        return [field.invalid(path, value, "must be a simple json path starting with .")]
    return []


def _subresources(subresources: Any, path: str) -> list[FieldError]:
    """ValidateCustomResourceDefinitionSubresources: the scale paths."""
    scale = _dict(subresources).get("scale")
    if scale is None:
        return []
    scale, found = _dict(scale), []
    for key, under in (("specReplicasPath", ".spec."), ("statusReplicasPath", ".status.")):
        at, value = f"{path}.scale.{key}", scale.get(key) or ""
        if not value:
            found.append(field.required(at))
        elif errs := _simple_json_path(value, at):
            found += errs
        elif not value.startswith(under):
            found.append(field.invalid(at, value, f"should be a json path under {under[:-1]}"))
    selector = scale.get("labelSelectorPath") or ""
    if selector:
        at = f"{path}.scale.labelSelectorPath"
        if errs := _simple_json_path(selector, at):
            found += errs
        elif not selector.startswith((".spec.", ".status.")):
            found.append(field.invalid(at, selector, "should be a json path under either .spec or .status"))
    return found


def _column(column: Any, path: str) -> list[FieldError]:
    """ValidateCustomResourceColumnDefinition."""
    column, found = _dict(column), []
    types = "must be one of " + ",".join(_COLUMN_TYPES)
    if not column.get("name"):
        found.append(field.required(f"{path}.name"))
    if not column.get("type"):
        found.append(field.required(f"{path}.type", types))
    elif column["type"] not in _COLUMN_TYPES:
        found.append(field.invalid(f"{path}.type", column["type"], types))
    if column.get("format") and column["format"] not in _COLUMN_FORMATS:
        found.append(
            field.invalid(f"{path}.format", column["format"], "must be one of " + ",".join(_COLUMN_FORMATS))
        )
    if not column.get("jsonPath"):
        found.append(field.required(f"{path}.JSONPath"))
    else:
        found += _simple_json_path(str(column["jsonPath"]), f"{path}.JSONPath")
    return found


def _status_enabled(subresources: Any) -> bool:
    return _dict(subresources).get("status") is not None


def _version(version: Obj, path: str, status_enabled: bool, allowed: Allowances,
             options: SchemaOptions) -> list[FieldError]:
    """validateCustomResourceDefinitionVersion (what is left in a version once shared fields moved up)."""
    name = version.get("name") or ""
    found = _deprecation_warning(version, f"{path}.deprecationWarning")
    found += schema_validation.schema(
        _dict(version.get("schema")).get("openAPIV3Schema"), f"{path}.schema", status_enabled,
        replace(options, suppress_per_expression_cost=name in allowed.unchanged_schemas),
    )
    found += _subresources(version.get("subresources"), f"{path}.subresources")
    for i, column in enumerate(_list(version.get("additionalPrinterColumns"))):
        found += _column(column, f"{path}.additionalPrinterColumns[{i}]")
    if version.get("selectableFields"):
        found += schema_validation.selectable_fields(
            version["selectableFields"],
            _dict(version.get("schema")).get("openAPIV3Schema"),
            f"{path}.selectableFields",
            "may only be set when `version.schema.openAPIV3Schema` is not included",
            name in allowed.too_many_selectable_fields,
        )
    return found


def _names(names: Obj, path: str) -> list[FieldError]:
    """ValidateCustomResourceDefinitionNames."""
    found: list[FieldError] = []
    for key in ("plural", "singular"):
        value = names.get(key) or ""
        if value and (errs := dns1035_label(value)):
            found.append(field.invalid(f"{path}.{key}", value, ",".join(errs)))
    for key in ("kind", "listKind"):
        value = names.get(key) or ""
        if value and (errs := dns1035_label(value.lower())):
            found.append(
                field.invalid(
                    f"{path}.{key}",
                    value,
                    "may have mixed case, but should otherwise match: " + ",".join(errs),
                )
            )
    for i, short in enumerate(_list(names.get("shortNames"))):
        if errs := dns1035_label(str(short)):
            found.append(field.invalid(f"{path}.shortNames[{i}]", short, ",".join(errs)))
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        found.append(
            field.invalid(f"{path}.listKind", names["listKind"], "kind and listKind may not be the same")
        )
    for i, category in enumerate(_list(names.get("categories"))):
        if errs := dns1035_label(str(category)):
            found.append(field.invalid(f"{path}.categories[{i}]", category, ",".join(errs)))
    return found


def _spec(internal: InternalSpec, required_review: bool, allowed: Allowances) -> list[FieldError]:
    """validateCustomResourceDefinitionSpec; `allowed`, what an update may keep that a create could not
    have."""
    spec, versions, top = internal.spec, internal.versions, internal.top
    found: list[FieldError] = []
    group = spec.get("group") or ""
    if not group:
        found.append(field.required("spec.group"))
    elif errs := dns1123_subdomain(group):
        found.append(field.invalid("spec.group", group, ",".join(errs)))
    elif len(group.split(".")) < 2:
        found.append(field.invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = spec.get("scope") or ""
    if not scope:
        found.append(field.required("spec.scope"))
    elif scope not in _SCOPES:
        found.append(field.not_supported("spec.scope", scope, _SCOPES))
    preserve_unknown = bool(spec.get("preserveUnknownFields"))
    if not _dict(top.get("validation")).get("openAPIV3Schema"):
        for i, version in enumerate(versions):
            at = f"spec.versions[{i}].schema.openAPIV3Schema"
            if _dict(version.get("schema")).get("openAPIV3Schema"):
                continue
            if not allowed.versions_without_schema:
                found.append(field.required(at))
            elif version.get("served") and not preserve_unknown:
                # an update of a CRD that had versions without one: needed only where all would be pruned
                found.append(field.required(at, "because otherwise all fields are pruned"))
    spec_schemas = schemas(internal)
    has_defaults = any(openapi_schema.schema_has(s, lambda level: level.get("default") is not None)
                       for s in spec_schemas)
    if has_defaults and preserve_unknown:
        found.append(field.invalid("spec.preserveUnknownFields", True,
                                   "must be false in order to use defaults in the schema"))
    # Pruning, defaults and the Kubernetes extensions all need a structural schema.
    options = SchemaOptions(
        require_valid_property_type=not allowed.invalid_types,
        require_atomic_set_type=not allowed.non_atomic_sets,
        require_map_list_keys_map_set_validation=not allowed.invalid_map_list_keys,
        require_structural_schema=not allowed.non_structural_schemas or not preserve_unknown or has_defaults
        or any(openapi_schema.schema_has(s, openapi_schema.has_extensions) for s in spec_schemas),
        require_pruned_defaults=not allowed.unpruned_defaults,
    )
    names = [v.get("name") or "" for v in versions]
    for i, version in enumerate(versions):
        if errs := dns1035_label(names[i]):
            found.append(field.invalid(f"spec.versions[{i}].name", names[i], ",".join(errs)))
        subresources = top["subresources"] if top.get("subresources") is not None else version.get("subresources")
        found += _version(version, f"spec.versions[{i}]", _status_enabled(subresources), allowed, options)
    shown = field.go_json(go_versions(versions, spec.get("versions")))
    if len(set(names)) != len(names):
        found.append(field.invalid_shown("spec.versions", shown, "must contain unique version names"))
    if sum(1 for v in versions if v.get("storage")) != 1:
        found.append(
            field.invalid_shown(
                "spec.versions", shown, "must have exactly one version marked as storage version"
            )
        )
    # The internal spec.version, the first version's name, is judged again as a DNS-1035 label (it
    # cannot differ from that name here: v1's conversion sets it so).
    if names and names[0] and (errs := dns1035_label(names[0])):
        found.append(field.invalid("spec.version", names[0], ",".join(errs)))
    names_obj = _dict(spec.get("names"))
    for key in ("plural", "singular", "kind", "listKind"):
        if not names_obj.get(key):
            found.append(field.required(f"spec.names.{key}"))
    found += _names(names_obj, "spec.names")
    # The shared schema is judged under the internal spec.version, the first version's name.
    any_status = _status_enabled(top.get("subresources")) or any(
        _status_enabled(v.get("subresources")) for v in versions)
    found += schema_validation.schema(
        _dict(top.get("validation")).get("openAPIV3Schema"),
        "spec.validation",
        any_status,
        replace(options, suppress_per_expression_cost=bool(names) and names[0] in allowed.unchanged_schemas),
    )
    found += _subresources(top.get("subresources"), "spec.subresources")
    for i, column in enumerate(_list(top.get("additionalPrinterColumns"))):
        found += _column(column, f"spec.additionalPrinterColumns[{i}]")
    if top.get("selectableFields"):
        found += schema_validation.selectable_fields(
            top["selectableFields"],
            _dict(top.get("validation")).get("openAPIV3Schema"),
            "spec.selectableFields",
            "may only be set when validations.schema is included",
            "" in allowed.too_many_selectable_fields,
        )
    conversion = internal.conversion
    if conversion is not None and conversion["strategy"] != "None" and spec.get("preserveUnknownFields"):
        found.append(
            field.invalid(
                "spec.conversion.strategy",
                conversion["strategy"],
                "must be None if spec.preserveUnknownFields is true",
            )
        )
    return found + conversion_validation.conversion(conversion, required_review)


def _stored_versions(crd: Obj) -> list[FieldError]:
    """ValidateCustomResourceDefinitionStoredVersions."""
    stored = _list(_dict(crd.get("status")).get("storedVersions"))
    path = "status.storedVersions"
    if not stored:
        return [field.invalid(path, stored or None, "must have at least one stored version")]
    found: list[FieldError] = []
    left = {str(v): i for i, v in enumerate(stored)}
    for version in _list(_dict(crd.get("spec")).get("versions")):
        name = _dict(version).get("name") or ""
        if _dict(version).get("storage") and name not in left:
            found.append(field.invalid(path, stored, "must have the storage version " + name))
        left.pop(name, None)
    for name, i in left.items():
        found.append(
            field.invalid(
                f"{path}[{i}]",
                name,
                f"missing from spec.versions; {name} was previously a storage "
                f"version, and must remain in spec.versions until a storage migration ensures no "
                f"data remains persisted in {name} and removes {name} from status.storedVersions",
            )
        )
    return found


_APPROVAL = "api-approved.kubernetes.io"
_APPROVAL_PATH = f"metadata.annotations[{_APPROVAL}]"


def _approval_state(crd: Obj) -> tuple[str, str]:
    """apihelpers.GetAPIApprovalState: (state, reason) of the approval annotation."""
    annotation = str(_dict(_dict(crd.get("metadata")).get("annotations")).get(_APPROVAL) or "")
    if not annotation:
        return "missing", (
            f'protected groups must have approval annotation "{_APPROVAL}", see '
            "https://github.com/kubernetes/enhancements/pull/1111"
        )
    if annotation.startswith("unapproved"):
        return "bypassed", f"not approved: {field.go_quote(annotation)}"
    parts = urlsplit(annotation) if "://" in annotation else None
    if parts is not None and parts.scheme and parts.netloc:
        return "approved", f"approved in {annotation}"
    return "invalid", (
        f'protected groups must have approval annotation "{_APPROVAL}" with either a URL or a '
        'reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111'
    )


def _api_approval(crd: Obj, old: Obj | None) -> list[FieldError]:
    """validateAPIApproval: a CRD in a *.k8s.io or *.kubernetes.io group says whether it was approved."""
    group = str(_dict(crd.get("spec")).get("group") or "")
    if not (group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))):
        return []
    state, reason = _approval_state(crd)
    if old is not None and _approval_state(old)[0] == state:
        return []
    if state == "missing":
        return [field.required(_APPROVAL_PATH, reason)]
    if state == "invalid":
        annotations = _dict(_dict(crd.get("metadata")).get("annotations"))
        return [field.invalid(_APPROVAL_PATH, str(annotations.get(_APPROVAL) or ""), reason)]
    return []


def _preserve_unknown_fields(crd: Obj, old: Obj | None) -> list[FieldError]:
    if old is not None and _dict(old.get("spec")).get("preserveUnknownFields"):
        return []
    if _dict(crd.get("spec")).get("preserveUnknownFields"):
        return [
            field.invalid(
                "spec.preserveUnknownFields",
                True,
                "cannot set to true, set "
                "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
            )
        ]
    return []


def validate_crd(crd: Obj) -> list[FieldError]:
    """ValidateCustomResourceDefinition, less the ObjectMeta rules but the name's."""
    found = name_rule(crd) + _spec(internal_spec(_dict(crd.get("spec"))), True, Allowances())
    found += _names(_dict(_dict(crd.get("status")).get("acceptedNames")), "status.acceptedNames")
    return found + _stored_versions(crd) + _api_approval(crd, None) + _preserve_unknown_fields(crd, None)


def validate_crd_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateCustomResourceDefinitionUpdate: the spec as on create, then what may not change."""
    old_spec, new_spec = _dict(old.get("spec")), _dict(new.get("spec"))
    required_review = conversion_validation.requires_known_review_version(old_spec)
    new_internal = internal_spec(new_spec)
    allowed = update_allowances(new_internal, internal_spec(old_spec), schema_validation.MAX_SELECTABLE_FIELDS,
                                schema_validation.non_structural, schema_validation.unpruned_defaults)
    found = _spec(new_internal, required_review, allowed)
    old_names, new_names = _dict(old_spec.get("names")), _dict(new_spec.get("names"))
    # Upstream holds scope and kind once the CRD is Established (requireImmutableNames), which its
    # controller sets a moment after the create and ours at once. The scope stays held regardless, as
    # where the objects are stored depends on it.
    found += field.immutable("spec.scope", new_spec.get("scope") or "", old_spec.get("scope") or "")
    if deletion.condition_true(old, "Established"):
        found += field.immutable("spec.names.kind", new_names.get("kind") or "", old_names.get("kind") or "")
    found += field.immutable("spec.group", new_spec.get("group") or "", old_spec.get("group") or "")
    found += field.immutable(
        "spec.names.plural", new_names.get("plural") or "", old_names.get("plural") or ""
    )
    found += _names(_dict(_dict(new.get("status")).get("acceptedNames")), "status.acceptedNames")
    return found + _stored_versions(new) + _api_approval(new, old) + _preserve_unknown_fields(new, old)
