"""The OpenAPI documents kubectl downloads before it applies: /openapi/v3 (index and one document per
group-version) and /openapi/v2.

Both are rendered from the 1.36 definitions in `schemas`. kubectl reads two things from them: the
schema of each kind (patch strategies for apply) and whether a kind's PATCH operation takes the
`fieldValidation` query parameter; if it does, kubectl leaves validation to the server.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
from typing import Any, Callable, Iterable

from apiserver.discovery import openapi_proto
from apiserver.kinds import schemas
from apiserver.kinds.resources import Registry, ResourceType

KUBE_VERSION = "v1.36.2"
_V3_REF = "#/components/schemas/"
_V2_REF = "#/definitions/"


def _convert(value: Any, ref_prefix: str) -> Any:
    """JSON Schema (draft 2020, nullable type lists) to OpenAPI's dialect of it."""
    if isinstance(value, list):
        return [_convert(v, ref_prefix) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    if "$ref" in value and len(value) > 1 and ref_prefix == _V3_REF:
        # OpenAPI 3.0 ignores siblings of $ref; upstream wraps the reference so a field keeps its own
        # description (kubectl explain shows both).
        value = {"allOf": [{"$ref": value["$ref"]}], **{k: v for k, v in value.items() if k != "$ref"}}
    for key, child in value.items():
        if key == "$ref":
            out[key] = ref_prefix + child[len("#/$defs/"):]
        elif key == "type" and isinstance(child, list):
            kinds = [k for k in child if k != "null"]
            out[key] = kinds[0] if len(kinds) == 1 else kinds
        elif key == "oneOf" and all(set(alt) == {"type"} for alt in child):
            # IntOrString and Quantity: OpenAPI spells "string or number" as a string format.
            out["type"] = "string"
            if any("integer" in schemas.types_of(alt) for alt in child):
                out["format"] = "int-or-string"
        elif key == "properties":
            out[key] = {name: _convert(prop, ref_prefix) for name, prop in child.items()}
        else:
            out[key] = _convert(child, ref_prefix)
    return out


def _closure(names: Iterable[str]) -> list[str]:
    """The definitions these refer to, directly or not, in sorted order."""
    found: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in found or name not in schemas.definitions():
            continue
        found.add(name)
        stack.extend(_refs(schemas.definitions()[name]))
    return sorted(found)


def _refs(value: Any) -> Iterable[str]:
    if isinstance(value, dict):
        ref = schemas.ref_name(value)
        if ref is not None:
            yield ref
        for child in value.values():
            yield from _refs(child)
    elif isinstance(value, list):
        for child in value:
            yield from _refs(child)


def _kind_names(types: list[ResourceType]) -> list[str]:
    names = ["io.k8s.apimachinery.pkg.apis.meta.v1.Status", "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
             "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"]
    for rt in types:
        for kind in (rt.kind, rt.list_kind):
            name = schemas.definition_name(rt.group, rt.version, kind)
            if name is not None:
                names.append(name)
    return names


def _path_prefix(rt: ResourceType) -> str:
    root = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    return root + ("/namespaces/{namespace}" if rt.namespaced else "") + "/" + rt.plural


@functools.cache
def _parameters() -> dict[str, Any]:
    """Upstream's query parameters per action, with their descriptions (tools/openapi_parameters.py)."""
    with (importlib.resources.files("apiserver") / "data" / "openapi_parameters.json").open("rb") as f:
        return json.load(f)  # type: ignore[no-any-return]


def _query_parameter(param: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": param["type"], **({"uniqueItems": True} if param.get("uniqueItems") else {})}
    return {"name": param["name"], "in": "query", "description": param["description"], "schema": schema}


def _operation(rt: ResourceType, action: str, ref: str | None) -> dict[str, Any]:
    op: dict[str, Any] = {
        "tags": [rt.group.replace(".k8s.io", "").replace(".", "") + "_" + rt.version if rt.group else "core_v1"],
        "operationId": f"{action}{rt.kind}",
        "parameters": [_query_parameter(p) for p in _parameters()["actions"][action]],
        "responses": {"200": {"description": "OK", "content": {
            "application/json": {"schema": {"$ref": ref}}}} if ref else {"description": "OK"}},
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
    }
    if action in ("put", "post", "patch"):
        # kubectl apply sends a strategic merge patch only where the document lists it: never for custom kinds.
        patch_media = ["application/json-patch+json", "application/merge-patch+json",
                       "application/strategic-merge-patch+json"]
        if rt.custom is not None:
            patch_media.remove("application/strategic-merge-patch+json")
        media = patch_media if action == "patch" else ["application/json", "application/yaml"]
        body_ref = _V3_REF + "io.k8s.apimachinery.pkg.apis.meta.v1.Patch" if action == "patch" else ref
        op["requestBody"] = {"content": {m: {"schema": {"$ref": body_ref}} for m in media}, "required": True}
    return op


def _builtin_name(rt: ResourceType, kind: str) -> str | None:
    return schemas.definition_name(rt.group, rt.version, kind)


def _custom_name(rt: ResourceType, kind: str) -> str:
    """Upstream names a custom kind's schema by its reversed group: com.example.v1.Widget."""
    return ".".join([*reversed(rt.group.split(".")), rt.version, kind])


def _paths(types: list[ResourceType], name_of: Callable[[ResourceType, str], str | None] = _builtin_name
           ) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for rt in types:
        name = name_of(rt, rt.kind)
        list_name = name_of(rt, rt.list_kind)
        ref = _V3_REF + name if name else None
        list_ref = _V3_REF + list_name if list_name else None
        collection: dict[str, Any] = {}
        item: dict[str, Any] = {}
        if rt.allows("list"):
            collection["get"] = _operation(rt, "list", list_ref)
        if rt.allows("create"):
            collection["post"] = _operation(rt, "post", ref)
        if rt.allows("deletecollection"):
            collection["delete"] = _operation(rt, "deletecollection", None)
        if rt.allows("get"):
            item["get"] = _operation(rt, "get", ref)
        if rt.allows("update"):
            item["put"] = _operation(rt, "put", ref)
        if rt.allows("patch"):
            item["patch"] = _operation(rt, "patch", ref)
        if rt.allows("delete"):
            item["delete"] = _operation(rt, "delete", None)
        prefix = _path_prefix(rt)
        pretty = [_query_parameter(_parameters()["pretty"])]
        if collection:
            paths[prefix] = {**collection, "parameters": pretty}
        if item:
            paths[prefix + "/{name}"] = {**item, "parameters": pretty}
    return paths


def _custom_schema(rt: ResourceType) -> dict[str, Any]:
    assert rt.custom is not None
    schema = dict(rt.custom.schema or {"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    schema["properties"] = {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
        **{k: v for k, v in (schema.get("properties") or {}).items() if k not in ("apiVersion", "kind", "metadata")}}
    schema["x-kubernetes-group-version-kind"] = [{"group": rt.group, "version": rt.version, "kind": rt.kind}]
    return schema


def _custom_list_schema(rt: ResourceType) -> dict[str, Any]:
    return {"type": "object", "required": ["items"],
            "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                           "items": {"type": "array", "items": {"$ref": "#/$defs/" + _custom_name(rt, rt.kind)}},
                           "metadata": {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}},
            "x-kubernetes-group-version-kind": [{"group": rt.group, "version": rt.version, "kind": rt.list_kind}]}


def _dumps(doc: Any) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


class OpenAPI:
    """The documents for one registry, rendered once and kept as bytes."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    def _group_versions(self) -> dict[str, list[ResourceType]]:
        found: dict[str, list[ResourceType]] = {}
        for rt in self._registry.types:
            if schemas.definition_name(rt.group, rt.version, rt.kind) is None:
                continue
            key = f"apis/{rt.group}/{rt.version}" if rt.group else f"api/{rt.version}"
            found.setdefault(key, []).append(rt)
        return found

    @functools.cached_property
    def _v3_documents(self) -> dict[str, tuple[bytes, str]]:
        documents = {}
        for key, types in self._group_versions().items():
            doc = {
                "openapi": "3.0.0",
                "info": {"title": "Kubernetes", "version": KUBE_VERSION},
                "paths": _paths(types),
                "components": {"schemas": {name: _convert(schemas.definitions()[name], _V3_REF)
                                           for name in _closure(_kind_names(types))}},
            }
            body = _dumps(doc)
            documents[key] = (body, hashlib.sha512(body).hexdigest().upper())
        return documents

    def _custom_documents(self) -> dict[str, tuple[bytes, str]]:
        """Custom resources' documents, rendered per request: CRDs come and go while the server runs."""
        found: dict[str, list[ResourceType]] = {}
        for rt in self._registry.types:
            if rt.custom is not None:
                found.setdefault(f"apis/{rt.group}/{rt.version}", []).append(rt)
        documents = {}
        for key, types in found.items():
            own = {}
            for rt in types:
                own[_custom_name(rt, rt.kind)] = _custom_schema(rt)
                own[_custom_name(rt, rt.list_kind)] = _custom_list_schema(rt)
            meta = _closure(["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                             "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta", *_kind_names([])])
            components = {name: _convert(schemas.definitions()[name], _V3_REF) for name in meta}
            components.update((name, _convert(schema, _V3_REF)) for name, schema in own.items())
            doc = {"openapi": "3.0.0", "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
                   "paths": _paths(types, _custom_name), "components": {"schemas": components}}
            body = _dumps(doc)
            documents[key] = (body, hashlib.sha512(body).hexdigest().upper())
        return documents

    def v3_index(self) -> bytes:
        documents = {**self._custom_documents(), **self._v3_documents}
        return _dumps({"paths": {key: {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"}
                                 for key, (_, digest) in sorted(documents.items())}})

    def v3_document(self, key: str) -> tuple[bytes, str] | None:
        """A group-version's document and its hash (its ETag)."""
        return self._v3_documents.get(key) or self._custom_documents().get(key)

    @functools.cached_property
    def _v2_json(self) -> bytes:
        return _dumps(self._v2_document())

    @functools.cached_property
    def _v2_proto(self) -> bytes:
        return openapi_proto.document(self._v2_document())

    def v2_body(self, accept: str) -> tuple[bytes, str]:
        """The v2 document as the client asks for it: gnostic protobuf (kubectl) or JSON."""
        if openapi_proto.PROTOBUF_TYPE in accept:
            # Go's media type parser refuses the '@' in the protobuf type, so upstream answers octet-stream.
            return self._v2_proto, "application/octet-stream"
        return self._v2_json, "application/json"

    def _v2_document(self) -> dict[str, Any]:
        types = [rt for group in self._group_versions().values() for rt in group]
        paths = json.loads(json.dumps(_paths(types)).replace(_V3_REF, _V2_REF))
        for item in paths.values():
            for param in item.get("parameters", ()):
                param.update(param.pop("schema"))
            for method, op in item.items():
                if method == "parameters":
                    continue
                op.pop("requestBody", None)
                for param in op["parameters"]:
                    param.update(param.pop("schema"))
                op["responses"] = {"200": {"description": "OK"}}
        return {
            "swagger": "2.0",
            "info": {"title": "Kubernetes", "version": KUBE_VERSION},
            "paths": paths,
            "definitions": {name: _convert(schemas.definitions()[name], _V2_REF)
                            for name in _closure(_kind_names(types))},
        }
