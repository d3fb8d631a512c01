"""The built-in kinds' part of a write: defaulting, create-time strategy, and the shape of the stored
object (Go's always-written fields, Go struct key order).

Called by objects.prepare_create / prepare_update on the object as it will be stored (core/v1 for
Events served as events.k8s.io/v1). Kinds without a 1.36 definition pass through untouched. The
order is upstream's: defaulting, then managed fields, then admission and the registry strategy.
"""

from __future__ import annotations

from typing import Any, Callable

import orjson

from apiserver.errors import FieldError
from apiserver.kinds import conversion, defaults, fieldmanager, kindvalidation, managedfields, schemas, shaping
from apiserver.kinds.resources import ResourceType

Obj = dict[str, Any]

_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


def _ref(obj: Obj) -> schemas.Schema | None:
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return schemas.kind_ref(group, version, str(obj.get("kind") or ""))


def shaped(obj: Obj) -> Obj:
    """The object as kube-apiserver serializes it: Go's always-written fields, Go struct key order."""
    ref = _ref(obj)
    if ref is None:
        return obj
    return shaping.shaped(obj, shaping.compiled(ref))  # type: ignore[no-any-return]


# A custom object's schema may leave parts open; upstream then tracks what it finds, maps key by key.
_OPEN_OBJECT: schemas.Schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def ownership_schema(rt: ResourceType, obj: Obj) -> tuple[schemas.Schema | None, bool]:
    """The schema managedFields are computed by, and whether the kind's status is its subresource's."""
    if rt.custom is not None:
        return _with_object_meta(rt.custom.schema or _OPEN_OBJECT), rt.custom.has_status
    return _ref(obj), rt.subresource("status") is not None


# Status subresources that also leave the labels alone (their strategies' GetResetFields).
_STATUS_KEEPS_LABELS = frozenset({"Deployment"})


def reset_fields(rt: ResourceType, subresource: str | None) -> tuple[managedfields.Path, ...]:
    """What a write through this endpoint cannot set, so never owns: status for the main resource,
    the spec (and some kinds' labels) for /status."""
    if subresource == "status":
        if rt.custom is None and rt.kind in _STATUS_KEEPS_LABELS:
            return ("f:spec",), ("f:metadata", "f:labels")
        return (("f:spec",),)
    if subresource is None and ownership_schema(rt, {})[1]:
        return (("f:status",),)
    return ()


def track(rt: ResourceType, obj: Obj, old: Obj | None, manager: str | None, subresource: str | None,
          now: str, entries: list[dict[str, Any]] | None = None) -> None:
    """Records in metadata.managedFields what `manager` changed going from old (None: created) to obj.

    `entries` are the managedFields to start from, when a write sets them itself; else old's.
    """
    schema, _ = ownership_schema(rt, obj)
    if manager is None or schema is None:
        return
    if entries is None:
        entries = [] if old is None else list(old["metadata"].get("managedFields") or ())
    request = fieldmanager.Request(manager, rt.api_version, subresource, now)
    views = conversion.converted_views(obj) if rt.custom is None else {}
    if views:
        updated = _record_versioned(entries, old, obj, views, request, reset_fields(rt, subresource))
    else:
        updated = fieldmanager.record_update(entries, None if old is None else shaped(json_copy(old)),
                                             shaped(json_copy(obj)), schema, request,
                                             reset_fields(rt, subresource))
    if updated:
        obj["metadata"]["managedFields"] = updated
    else:
        obj["metadata"].pop("managedFields", None)


def _record_versioned(entries: list[dict[str, Any]], old: Obj | None, new: Obj,
                      views: dict[str, Callable[[Obj], Obj]], request: fieldmanager.Request,
                      ignored: tuple[managedfields.Path, ...]) -> list[dict[str, Any]]:
    """An Update of a kind served through several versions, as upstream's field manager records it: the
    writer's fields in the version it wrote through, and every other version's managers losing what
    the write changed as their version shows it. Entries naming a version the kind is not served
    through are compared in the writer's."""
    by_version: dict[str, list[dict[str, Any]]] = {request.api_version: []}
    for entry in entries:
        version = entry.get("apiVersion", "")
        by_version.setdefault(version if version in views else request.api_version, []).append(entry)
    out: list[dict[str, Any]] = []
    for version, group in by_version.items():
        view = views.get(version, _as_stored)
        seen_old = None if old is None else shaped(json_copy(view(old)))
        seen_new = shaped(json_copy(view(new)))
        schema = _ref(seen_new)
        if schema is None:
            out += group
        elif version == request.api_version:
            out += managedfields.update(group, seen_old, seen_new, schema, request.manager, request.api_version,
                                        request.subresource, request.now, ignored)
        else:
            out += managedfields.release(group, seen_old, seen_new, schema, ignored)
    return fieldmanager.cap(fieldmanager.sorted_entries(out))


def _as_stored(obj: Obj) -> Obj:
    return obj


def _with_object_meta(schema: schemas.Schema) -> schemas.Schema:
    """A custom resource's schema says nothing of its metadata, which is an ObjectMeta all the same."""
    meta = schemas.kind_ref("meta.k8s.io", "v1", "ObjectMeta") or {
        "$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    return {**schema, "properties": {**(schema.get("properties") or {}), "metadata": meta}}


def json_copy(obj: Obj) -> Obj:
    return orjson.loads(orjson.dumps(obj))  # type: ignore[no-any-return]


def validate(obj: Obj, old: Obj | None) -> list[FieldError]:
    """Field errors of a built-in kind; a custom resource that borrows a built-in kind's name has none."""
    return [] if _ref(obj) is None else kindvalidation.validate(obj, old)


def default(obj: Obj, creating: bool = False) -> None:
    kind = str(obj.get("kind") or "")
    defaults.default(kind, obj)
    if kind == "DaemonSet" and creating:
        # Set before managed fields are taken: kube-apiserver records it as the creator's.
        obj["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = str(
            obj["metadata"].get("generation") or 1)


def admit_create(obj: Obj) -> None:
    """Admission and the create strategy: what a creator never wrote, so never owns."""
    kind = str(obj.get("kind") or "")
    defaults.admit(kind, obj)
    if kind == "Job":
        _job_selector(obj)
        # Every read decodes the stored job through its defaulting again, so a job stored without
        # labels reads with its template's, the generated ones included: store what every read shows.
        defaults.default(kind, obj)
        _own_labels(obj)
    elif kind == "CustomResourceDefinition":
        # The CRD strategy records the storage version; the names and conditions are the controller's.
        stored = [v["name"] for v in (obj.get("spec") or {}).get("versions") or () if v.get("storage")]
        obj["status"] = {"storedVersions": stored}
    elif kind == "PersistentVolume":
        obj["status"]["lastPhaseTransitionTime"] = obj["metadata"]["creationTimestamp"]


def update_strategy(new: Obj, old: Obj) -> None:
    kind = str(new.get("kind") or "")
    if kind == "DaemonSet":
        annotations = new["metadata"].setdefault("annotations", {})
        previous = (old["metadata"].get("annotations") or {}).get(_TEMPLATE_GENERATION)
        if previous is not None:
            annotations.setdefault(_TEMPLATE_GENERATION, previous)
        if (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
            annotations[_TEMPLATE_GENERATION] = str(int(previous or 0) + 1)


def on_status_update(new: Obj, old: Obj, now: str) -> None:
    """A volume records when its phase last changed, unless the writer says so itself; a job whose
    status write left it without labels reads with its template's, as every decode defaults them."""
    if new.get("kind") == "Job":
        defaults.default("Job", new)
        _own_labels(new)
    if new.get("kind") != "PersistentVolume":
        return
    status, old_status = new.get("status") or {}, old.get("status") or {}
    if status.get("phase") != old_status.get("phase") and \
            status.get("lastPhaseTransitionTime") in (None, old_status.get("lastPhaseTransitionTime")):
        status["lastPhaseTransitionTime"] = now


def _own_labels(obj: Obj) -> None:
    """The job's labels apart from its template's, once the strategy is done adding to them."""
    labels = obj["metadata"].get("labels")
    if isinstance(labels, dict):
        obj["metadata"]["labels"] = dict(labels)


def _job_selector(obj: Obj) -> None:
    """A job's pods are told apart by its uid, unless the user chose the selector (manualSelector).

    Labels the user already put on the template stay as written (validation judges them), and so does
    a selector the user gave: only its controller-uid match is added when missing."""
    spec = obj.setdefault("spec", {})
    if spec.get("manualSelector") is True:
        return
    meta = obj["metadata"]
    template = spec.setdefault("template", {})
    template_meta = template.setdefault("metadata", {})
    if not isinstance(template_meta.get("labels"), dict):
        template_meta["labels"] = {}
    labels = template_meta["labels"]
    for key in _JOB_NAME_LABELS:
        labels.setdefault(key, meta["name"])
    for key in _JOB_UID_LABELS:
        labels.setdefault(key, meta["uid"])
    if not isinstance(spec.get("selector"), dict):
        spec["selector"] = {}
    if not isinstance(spec["selector"].get("matchLabels"), dict):
        spec["selector"]["matchLabels"] = {}
    spec["selector"]["matchLabels"].setdefault("batch.kubernetes.io/controller-uid", meta["uid"])


# Upstream's order: the legacy key, then the batch.kubernetes.io one.
_JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_JOB_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
