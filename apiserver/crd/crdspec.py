"""What a CustomResourceDefinition declares, read into the registry's terms.

Pure functions on decoded objects. A CRD becomes one ResourceType per served version, each carrying
a CustomVersion: the schema its objects are pruned and checked against, the version objects are
stored in, and the paths of its scale subresource.
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import re
from typing import Any

import orjson

from apiserver import errors
from apiserver.crd import crvalidation, objectmeta
from apiserver.crd.webhookconversion import WebhookConversion, webhook_conversion
from apiserver.errors import FieldError
from apiserver.kinds import crschema, crvalidations
from apiserver.kinds.conversion import IDENTITY, Codec
from apiserver.kinds.resources import ResourceType, Subresource
from apiserver.wire import gonumbers
from columns.crd import CrdPrinter, crd_printer

# The order kube-apiserver lists a custom resource's verbs in.
CUSTOM_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")

_KUBE_VERSION = re.compile(r"v(\d+)(?:(alpha|beta)(\d+))?")


def canonical(value: Any) -> Any:
    """A custom object as upstream serializes unstructured objects: every map's keys sorted, and a whole
    float64 below 1e21 written as an integer (`1e3` as `1000`, read back as one). Validation saw the
    float: kube-openapi names its type "number"."""
    if isinstance(value, dict):
        return {k: canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return gonumbers.as_written(value) if type(value) is float else value


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
        self.kind: str = spec["names"]["kind"]
        self.created: str = crd["metadata"].get("creationTimestamp", "")
        self.version = version
        self.storage_version = storage_version
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        self.schema: dict[str, Any] | None = schema if isinstance(schema, dict) else None
        subresources = version.get("subresources") or {}
        self.has_status = "status" in subresources
        self.scale_paths: dict[str, str] | None = subresources.get("scale")
        # With a conversion webhook, objects are converted before the codec sees them (crd.converting),
        # which must then leave them as they are.
        self.conversion: WebhookConversion | None = webhook_conversion(crd)
        self.codec: Codec = IDENTITY if self.conversion is not None else ApiVersionCodec(
            f"{spec['group']}/{version['name']}", f"{spec['group']}/{storage_version}")
        self.deprecation_warning: str | None = deprecation_warning(spec, version)

    @functools.cached_property
    def printer(self) -> CrdPrinter:
        """The version's Table columns, compiled once (their paths were checked when the CRD was written)."""
        return crd_printer(self.version)

    def prepare(self, obj: dict[str, Any], keep_nulls: bool = False) -> None:
        """Prunes unknown fields and the nulls of fields neither nullable nor defaulted, coerces embedded
        resources and fills schema defaults, in place, as upstream does while decoding. An apply's
        object, which upstream merges rather than decodes, `keep_nulls` for validation to judge."""
        crschema.prune(obj, self.schema)
        if not keep_nulls:
            crschema.prune_nulls(obj, self.schema)
        if self._embeds_resources and (mistyped := objectmeta.coerce(obj, self.schema, "")) is not None:
            raise errors.bad_request(f'{self.kind} in version "{self.version["name"]}" cannot be handled as a {self.kind}: '
                                     f"{mistyped.path}: {mistyped.message}")
        crschema.default(obj, self.schema)

    def embedded_meta_error(self, obj: dict[str, Any]) -> str | None:
        """Why the type or object meta of a resource obj embeds does not decode (objectmeta.coerce), in
        the words a patch's refusal ends with; obj is left as it is."""
        if not self._embeds_resources:
            return None
        mistyped = objectmeta.coerce(copy.deepcopy(obj), self.schema, "")
        return None if mistyped is None else f"{mistyped.path}: {mistyped.message}"

    def embedded_unknown_fields(self, obj: dict[str, Any]) -> list[str]:
        """The paths of what the metadata of the resources obj embeds holds that ObjectMeta does not know,
        sorted, as Coerce names them for fieldValidation. obj's embedded metadata is rewritten: pass a
        copy (a metadata that does not decode is refused by prepare)."""
        unknown: list[str] = []
        if self._embeds_resources:
            objectmeta.coerce(obj, self.schema, "", unknown)
        return unknown

    @functools.cached_property
    def _embeds_resources(self) -> bool:
        return '"x-kubernetes-embedded-resource"' in orjson.dumps(self.schema).decode()

    @functools.cached_property
    def rules(self) -> crvalidations.RuleValidator | None:
        """The schema's x-kubernetes-validations, compiled once for this version of the CRD."""
        return crvalidations.build(self.schema)

    def problems(self, obj: dict[str, Any], old: dict[str, Any] | None = None, status: bool = False,
                 ratcheted: list[FieldError] | None = None) -> list[FieldError]:
        return crvalidation.problems(obj, old, self.schema, self.scale_paths, self.rules, status, ratcheted)

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

    @property
    def spec_replicas_path(self) -> str:
        assert self.scale_paths is not None
        return str(self.scale_paths.get("specReplicasPath", ""))

    def has_spec_replicas(self, obj: dict[str, Any]) -> bool:
        """Whether specReplicasPath holds a number (scaleFromCustomResource's replicasFound)."""
        value = self._get(obj, self.spec_replicas_path)
        return isinstance(value, int) and not isinstance(value, bool)

    def scale_of(self, obj: dict[str, Any]) -> dict[str, Any]:
        """scaleFromCustomResource: replicas not found read as 0."""
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


def deprecation_warning(spec: dict[str, Any], version: dict[str, Any]) -> str | None:
    """The Warning every request to a deprecated version carries: its deprecationWarning, else upstream's
    defaultDeprecationWarning, which points at the most preferred served version newer than it."""
    if not version.get("deprecated"):
        return None
    given = version.get("deprecationWarning")
    if given is not None:
        return str(given)
    group, kind, name = spec["group"], spec["names"]["kind"], version["name"]
    text = f"{group}/{name} {kind} is deprecated"
    newer = [v["name"] for v in spec.get("versions") or ()
             if v.get("served") and not v.get("deprecated") and version_order(v["name"]) < version_order(name)]
    if newer:
        text += f"; use {group}/{min(newer, key=version_order)} {kind}"
    return text


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
