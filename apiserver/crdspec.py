"""What a CustomResourceDefinition declares, read into the registry's terms; and the CRD's own rules.

Pure functions on decoded objects. A CRD becomes one ResourceType per served version, each carrying
a CustomVersion: the schema its objects are pruned and checked against, the version objects are
stored in, and the paths of its scale subresource.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from typing import Any

import orjson

from apiserver import crschema
from apiserver.conversion import Codec
from apiserver.errors import FieldError
from apiserver.resources import ResourceType, Subresource
from columns.crd import COLUMN_TYPES, CrdPrinter, crd_printer
from columns.jsonpath import InvalidPath, compile_path

GROUP = "apiextensions.k8s.io"
KIND = "CustomResourceDefinition"
# The order kube-apiserver lists a custom resource's verbs in.
CUSTOM_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")

# Field orders of the CRD's Go types, so a stored CRD reads like upstream's.
_SPEC_ORDER = ("group", "names", "scope", "versions", "conversion", "preserveUnknownFields")
_NAMES_ORDER = ("plural", "singular", "shortNames", "kind", "listKind", "categories")
_VERSION_ORDER = ("name", "served", "storage", "deprecated", "deprecationWarning", "schema", "subresources",
                  "additionalPrinterColumns", "selectableFields")
_COLUMN_ORDER = ("name", "type", "format", "description", "priority", "jsonPath")
_KUBE_VERSION = re.compile(r"v(\d+)(?:(alpha|beta)(\d+))?")


def _in_order(obj: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def canonical(value: Any) -> Any:
    """A custom object as upstream serializes unstructured objects: every map's keys sorted."""
    if isinstance(value, dict):
        return {k: canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def version_order(name: str) -> tuple[int, int, int, str]:
    """Sort key putting versions in kube-apiserver's priority: GA, then beta, then alpha, newest first."""
    match = _KUBE_VERSION.fullmatch(name)
    if match is None:
        return (3, 0, 0, name)
    stability = {None: 0, "beta": 1, "alpha": 2}[match.group(2)]
    return (stability, -int(match.group(1)), -int(match.group(3) or 0), "")


def storage_version_hash(group: str, version: str, kind: str) -> str:
    return base64.b64encode(hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()[:8]).decode()


class ApiVersionCodec(Codec):
    """Conversion strategy None: versions differ in apiVersion only, so reads rewrite just that.

    Sorted keys put apiVersion first in nearly every stored object, so the rewrite is a splice of
    the stored bytes; an object with a key sorting before it is re-serialized instead."""

    def __init__(self, served: str, stored: str) -> None:
        super().__init__(lambda obj: {**obj, "apiVersion": served}, lambda obj: {**obj, "apiVersion": stored})
        self._stored_head = b'{"apiVersion":' + orjson.dumps(stored)
        self._served_head = b'{"apiVersion":' + orjson.dumps(served)

    def served_bytes(self, stored: bytes) -> bytes:
        if stored.startswith(self._stored_head):
            return self._served_head + stored[len(self._stored_head):]
        return super().served_bytes(stored)


def _path_keys(path: str) -> list[str]:
    return path.removeprefix(".").split(".")


class CustomVersion:
    """One served version of a CRD, as its objects' writes and reads need it."""

    def __init__(self, crd: dict[str, Any], version: dict[str, Any], storage_version: str) -> None:
        spec = crd["spec"]
        self.crd_name: str = crd["metadata"]["name"]
        self.created: str = crd["metadata"].get("creationTimestamp", "")
        self.version = version
        self.storage_version = storage_version
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        self.schema: dict[str, Any] | None = schema if isinstance(schema, dict) else None
        subresources = version.get("subresources") or {}
        self.has_status = "status" in subresources
        self.scale_paths: dict[str, str] | None = subresources.get("scale")
        self.codec = ApiVersionCodec(f"{spec['group']}/{version['name']}", f"{spec['group']}/{storage_version}")

    @functools.cached_property
    def printer(self) -> CrdPrinter:
        """The version's Table columns, compiled once (their paths were checked when the CRD was written)."""
        return crd_printer(self.version)

    def prepare(self, obj: dict[str, Any]) -> None:
        """Prunes unknown fields and fills schema defaults, in place, as upstream does while decoding."""
        crschema.prune(obj, self.schema)
        crschema.default(obj, self.schema)

    def problems(self, obj: dict[str, Any]) -> list[FieldError]:
        return crschema.validate(obj, self.schema)

    def generation_fields(self, obj: dict[str, Any]) -> dict[str, Any]:
        """What a change to bumps metadata.generation: all but metadata (and status, if a subresource)."""
        skipped = ("metadata", "status") if self.has_status else ("metadata",)
        return {k: v for k, v in obj.items() if k not in skipped}

    def _get(self, obj: dict[str, Any], path: str) -> Any:
        value: Any = obj
        for key in _path_keys(path):
            if not isinstance(value, dict):
                return None
            value = value.get(key)
        return value

    def scale_of(self, obj: dict[str, Any]) -> dict[str, Any]:
        assert self.scale_paths is not None
        meta = obj["metadata"]
        spec_replicas = self._get(obj, self.scale_paths.get("specReplicasPath", ""))
        status_replicas = self._get(obj, self.scale_paths.get("statusReplicasPath", ""))
        selector_path = self.scale_paths.get("labelSelectorPath")
        selector = self._get(obj, selector_path) if selector_path else None
        status: dict[str, Any] = {"replicas": status_replicas if isinstance(status_replicas, int) else 0}
        if isinstance(selector, str) and selector:
            status["selector"] = selector
        return {
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                         if k in meta},
            "spec": {"replicas": spec_replicas} if isinstance(spec_replicas, int) and spec_replicas else {},
            "status": status,
        }

    def set_replicas(self, obj: dict[str, Any], replicas: int) -> bool:
        """Writes the scale's replicas at specReplicasPath; answers whether anything changed."""
        assert self.scale_paths is not None
        keys = _path_keys(self.scale_paths.get("specReplicasPath", ""))
        parent = obj
        for key in keys[:-1]:
            child = parent.get(key)
            if not isinstance(child, dict):
                child = parent[key] = {}
            parent = child
        if parent.get(keys[-1]) == replicas:
            return False
        parent[keys[-1]] = replicas
        return True


def storage_version(crd: dict[str, Any]) -> str:
    return next((v["name"] for v in crd["spec"].get("versions") or () if v.get("storage")), "")


def resource_types(crd: dict[str, Any]) -> list[ResourceType]:
    """The resource types a CRD serves: one per served version, in kube-apiserver's version order."""
    spec = crd["spec"]
    names = spec["names"]
    group, kind = spec["group"], names["kind"]
    stored = storage_version(crd)
    versions = sorted((v for v in spec.get("versions") or () if v.get("served")),
                      key=lambda v: version_order(v["name"]))
    out = []
    for version in versions:
        subresources = version.get("subresources") or {}
        subs = []
        if "status" in subresources:
            subs.append(Subresource("status", kind))
        if "scale" in subresources:
            subs.append(Subresource("scale", "Scale", "autoscaling", "v1"))
        out.append(ResourceType(
            group, version["name"], kind, names["plural"], names.get("singular") or kind.lower(),
            spec.get("scope") == "Namespaced", verbs=CUSTOM_VERBS, short_names=tuple(names.get("shortNames") or ()),
            categories=tuple(names.get("categories") or ()), subresources=tuple(subs), tracks_generation=True,
            storage_version_hash=storage_version_hash(group, stored, kind),
            custom=CustomVersion(crd, version, stored)))
    return out


def default_crd(crd: dict[str, Any]) -> None:
    """Fills what upstream defaults in a CRD's spec, in its Go field order."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.get("names")
    if isinstance(names, dict) and isinstance(names.get("kind"), str):
        names.setdefault("singular", names["kind"].lower())
        names.setdefault("listKind", names["kind"] + "List")
        spec["names"] = _in_order(names, _NAMES_ORDER)
    versions = spec.get("versions")
    if isinstance(versions, list):
        spec["versions"] = [_default_version(v) if isinstance(v, dict) else v for v in versions]
    spec.setdefault("conversion", {"strategy": "None"})
    crd["spec"] = _in_order(spec, _SPEC_ORDER)


def _default_version(version: dict[str, Any]) -> dict[str, Any]:
    columns = version.get("additionalPrinterColumns")
    if isinstance(columns, list):
        version["additionalPrinterColumns"] = [_in_order(c, _COLUMN_ORDER) if isinstance(c, dict) else c
                                               for c in columns]
    return _in_order(version, _VERSION_ORDER)


def validate_crd(crd: dict[str, Any]) -> list[FieldError]:
    """The rules a CRD must meet to be served (a subset of upstream's, with its paths and wording)."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return [FieldError("FieldValueRequired", "spec", "Required value")]
    problems: list[FieldError] = []
    group = spec.get("group")
    names_value = spec.get("names")
    names: dict[str, Any] = names_value if isinstance(names_value, dict) else {}
    if not group:
        problems.append(FieldError("FieldValueRequired", "spec.group", "Required value"))
    for field_name in ("plural", "kind"):
        if not names.get(field_name):
            problems.append(FieldError("FieldValueRequired", f"spec.names.{field_name}", "Required value"))
    name = crd.get("metadata", {}).get("name")
    if group and names.get("plural") and name != f"{names['plural']}.{group}":
        problems.append(crschema_invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"))
    scope = spec.get("scope")
    if scope not in ("Cluster", "Namespaced"):
        problems.append(FieldError("FieldValueNotSupported", "spec.scope",
                                   f'Unsupported value: {crschema.bad_value(scope)}: supported values: "Cluster", '
                                   '"Namespaced"'))
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        problems.append(FieldError("FieldValueRequired", "spec.versions", "Required value"))
        return problems
    if sum(1 for v in versions if isinstance(v, dict) and v.get("storage")) != 1:
        problems.append(FieldError("FieldValueInvalid", "spec.versions",
                                   "Invalid value: ...: must have exactly one version marked as storage version"))
    for index, version in enumerate(versions):
        if not isinstance(version, dict) or not version.get("name"):
            problems.append(FieldError("FieldValueRequired", f"spec.versions[{index}].name", "Required value"))
            continue
        problems.extend(_validate_schema(version, f"spec.versions[{index}].schema.openAPIV3Schema"))
        problems.extend(_validate_columns(version, f"spec.versions[{index}]"))
    return problems


def _validate_schema(version: dict[str, Any], path: str) -> list[FieldError]:
    """A structural schema: present, an object at the root, and a type on every field it specifies."""
    schema = (version.get("schema") or {}).get("openAPIV3Schema")
    if not isinstance(schema, dict):
        return [FieldError("FieldValueRequired", path, "Required value: schemas are required")]
    problems: list[FieldError] = []
    if schema.get("type") != "object":
        if schema.get("type"):
            problems.append(crschema_invalid(f"{path}.type", schema["type"], "must be object at the root"))
        else:
            problems.append(FieldError("FieldValueRequired", f"{path}.type",
                                       "Required value: must not be empty at the root"))
    _typed_fields(schema, path, problems)
    return problems


def _typed_fields(schema: dict[str, Any], path: str, problems: list[FieldError]) -> None:
    children = [(f"{path}.properties[{name}]", sub, "object fields")
                for name, sub in (schema.get("properties") or {}).items()]
    if isinstance(schema.get("items"), dict):
        children.append((f"{path}.items", schema["items"], "array items"))
    if isinstance(schema.get("additionalProperties"), dict):
        children.append((f"{path}.additionalProperties", schema["additionalProperties"], "object fields"))
    for child_path, sub, where in children:
        if not isinstance(sub, dict):
            continue
        untyped_allowed = sub.get("x-kubernetes-int-or-string") or sub.get("x-kubernetes-preserve-unknown-fields")
        if not sub.get("type") and not untyped_allowed:
            problems.append(FieldError("FieldValueRequired", f"{child_path}.type",
                                       f"Required value: must not be empty for specified {where}"))
        _typed_fields(sub, child_path, problems)


def immutable_changes(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """What an update may not change: where the CRD's objects live depends on its group and scope."""
    problems = []
    for field_name in ("group", "scope"):
        value = (new.get("spec") or {}).get(field_name)
        if value != (old.get("spec") or {}).get(field_name):
            problems.append(crschema_invalid(f"spec.{field_name}", value, "field is immutable"))
    return problems


def crschema_invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {crschema.bad_value(value)}: {detail}")


def _validate_columns(version: Any, path: str) -> list[FieldError]:
    problems: list[FieldError] = []
    columns = version.get("additionalPrinterColumns") if isinstance(version, dict) else None
    for index, column in enumerate(columns or ()):
        at = f"{path}.additionalPrinterColumns[{index}]"
        kind = column.get("type")
        if kind not in COLUMN_TYPES:
            supported = ", ".join(f'"{t}"' for t in sorted(COLUMN_TYPES))
            problems.append(FieldError("FieldValueNotSupported", f"{at}.type",
                                       f"Unsupported value: {crschema.bad_value(kind)}: supported values: "
                                       f"{supported}"))
        if not column.get("jsonPath"):
            problems.append(FieldError("FieldValueRequired", f"{at}.jsonPath", "Required value"))
            continue
        try:
            compile_path(str(column["jsonPath"]))
        except InvalidPath:
            problems.append(crschema_invalid(f"{at}.jsonPath", column.get("jsonPath"), "must be a simple json path"))
    return problems
