"""What the server itself sets and keeps in an object's metadata on create, update and delete.

Pure functions on decoded objects; no storage and no HTTP. They follow kube-apiserver's generic
registry (rest.BeforeCreate, BeforeUpdate, BeforeDelete) for the rules users can observe.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

import orjson

from apiserver import errors
from apiserver.kinds import fieldmanager, ownership, scheme, shaping
from apiserver.kinds.resources import ResourceType
from apiserver.kinds.scheme import json_type
from apiserver.registry import meta as object_meta
from apiserver.registry.certificates import strategies as certificates
from apiserver.registry.core import pod_ephemeral_containers, pod_resize
from apiserver.registry.lookup import strategy_for
from apiserver.registry.strategy import Strategy

# kube-apiserver's metadata field order, so that stored bytes read like upstream's.
_META_ORDER = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
               "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
               "ownerReferences", "finalizers", "managedFields")
# What the server sets on create whatever the body says; a generation is kept unless the kind's strategy
# tracks it (upstream's BeforeCreate leaves it to PrepareForCreate), and so is a resourceVersion, which
# storage refuses and a dry run echoes.
_SERVER_SET = ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")
# Consonants and digits that cannot spell words, as upstream's name generator uses.
_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
FINALIZE = "finalize"  # namespaces/finalize
# The rules of a kind asked only of an object otherwise valid (the object, as validated): the authorizer's.
IfValid = Callable[[dict[str, Any]], list[errors.FieldError]]


_last_second: list[tuple[int, str]] = [(-1, "")]


def now_rfc3339(offset_seconds: int = 0) -> str:
    # A write asks for the time several times (managed fields, creation, strategies) and the answer
    # has a second's resolution: formatted once per second, as strftime costs more than the rest.
    second = int(time.time()) + offset_seconds
    cached_second, text = _last_second[0]
    if second != cached_second:
        text = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))
        if not offset_seconds:
            _last_second[0] = (second, text)
    return text


def ordered(obj: dict[str, Any]) -> dict[str, Any]:
    """kind, apiVersion, metadata first (metadata in upstream's order), the rest as the client sent it."""
    meta = obj.get("metadata") or {}
    out: dict[str, Any] = {"kind": obj.get("kind"), "apiVersion": obj.get("apiVersion")}
    out["metadata"] = {k: meta[k] for k in _META_ORDER if k in meta}
    out["metadata"].update((k, v) for k, v in meta.items() if k not in out["metadata"])
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def check_identity(rt: ResourceType, obj: Any, namespace: str, name: str | None) -> dict[str, Any]:
    """The body must be an object of this kind, in this namespace, with the name in the URL."""
    if not isinstance(obj, dict):
        raise errors.bad_request("the object provided is unrecognized (must be of type " + rt.kind + ")")
    kind = obj.get("kind")
    api_version = obj.get("apiVersion")
    problem = scheme.decoding_error(rt, str(kind or ""), str(api_version or ""))
    if problem is not None:
        raise problem
    if kind and kind != rt.kind:  # a custom resource's: upstream decodes those as unstructured objects
        raise errors.bad_request(f"the kind in the data ({kind}) does not match the expected kind ({rt.kind})")
    if api_version and api_version != rt.api_version and rt.custom is not None:
        raise errors.bad_request(f"the API version in the data ({api_version}) does not match the expected API "
                                 f"version ({rt.api_version})")
    obj["kind"], obj["apiVersion"] = rt.kind, rt.api_version
    meta = obj.get("metadata")
    if meta is None:
        meta = obj["metadata"] = {}
    if not isinstance(meta, dict):
        if rt.custom is not None:
            raise errors.bad_request("metadata must be an object")
        raise errors.bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: json: cannot '
                                 f"unmarshal {json_type(meta)} into Go struct field {rt.kind}.metadata of type "
                                 "v1.ObjectMeta")
    _check_metadata_types(rt, meta)
    if not rt.namespaced:
        meta.pop("namespace", None)  # EnsureObjectNamespaceMatchesRequestNamespace clears it
    else:
        body_ns = meta.get("namespace") or ""
        if body_ns and body_ns != namespace:
            raise errors.bad_request("the namespace of the provided object does not match the namespace sent on "
                                     "the request")
        meta["namespace"] = namespace
    if name is not None and meta.get("name") and meta["name"] != name:
        raise errors.bad_request("the name of the object (" + str(meta["name"]) + ") does not match the name on "
                                 "the URL (" + name + ")")
    if name is not None and not meta.get("name"):
        # checkName: an update or patch must name its object, though the URL does.
        raise errors.bad_request(f"the name of the object ({name} based on URL) was undeterminable: name must be "
                                 "provided")
    return obj


# ObjectMeta's typed fields: a value of another JSON type is a decoding error upstream (400), and
# everything below relies on these types.
_META_TYPES: dict[str, tuple[type, str]] = {
    **{f: (str, "string") for f in ("name", "generateName", "namespace", "selfLink", "resourceVersion",
                                    "creationTimestamp", "deletionTimestamp")},
    "uid": (str, "types.UID"),
    "generation": (int, "int64"), "deletionGracePeriodSeconds": (int, "int64"),
    "labels": (dict, "map[string]string"), "annotations": (dict, "map[string]string"),
    "finalizers": (list, "[]string"), "ownerReferences": (list, "[]v1.OwnerReference"),
    "managedFields": (list, "[]v1.ManagedFieldsEntry"),
}


def _check_metadata_types(rt: ResourceType, meta: dict[str, Any]) -> None:
    for field_name, (expected, go_type) in _META_TYPES.items():
        value = meta.get(field_name)
        if value is None:
            continue
        wrong = not isinstance(value, expected) or isinstance(value, bool) and expected is int
        inner = None
        if not wrong and go_type == "map[string]string":
            inner = next((v for v in value.values() if not isinstance(v, str)), None)
        elif not wrong and go_type == "[]string":
            inner = next((v for v in value if not isinstance(v, str)), None)
        if wrong or inner is not None:
            found = json_type(value if wrong else inner)
            target = go_type if wrong else "string"
            raise errors.bad_request(
                f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: json: cannot unmarshal '
                f"{found} into Go struct field ObjectMeta.metadata.{field_name} of type {target}")


def wipe_system_fields(meta: dict[str, Any]) -> None:
    """What the create handler clears of any body before anything sees it (rest.WipeObjectMetaSystemFields)."""
    for field_name in ("creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
        meta.pop(field_name, None)


def decoded_for_create(rt: ResourceType, obj: dict[str, Any], manager: str | None = None,
                       applied: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A created object as mutating admission sees it: decoded, defaulted, its managed fields updated
    (upstream's decoding and field manager); `manager`, if given, is recorded as owning what it wrote.

    `applied` are the managedFields a server-side apply computed, which stand instead."""
    strategy = strategy_for(rt)
    meta = obj["metadata"]
    meta.setdefault("name", "")  # left out when empty, as Go writes it; the strategies read it
    for field_name in _SERVER_SET:
        meta.pop(field_name, None)
    meta.pop("managedFields", None)
    if rt.subresource("status") is not None and not strategy.keeps_status_on_create:
        # Status is the status subresource's to write. Dropped before defaulting, which gives the new
        # object the status a read of it shows (a claim's Pending).
        obj.pop("status", None)
    strategy.decode(obj)
    if rt.custom is not None:
        rt.custom.prepare(obj, keep_nulls=applied is not None)
    strategy.default(obj)
    strategy.own_on_create(obj)
    if applied is None:
        ownership.track(rt, obj, None, manager, None, now_rfc3339())
    elif applied:
        meta["managedFields"] = applied
    return obj


def named_for_create(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """A created object after mutating admission, as the store first sees it: named (a generated name
    drawn), given what the server sets (FillObjectMetaSystemFields)."""
    meta = obj["metadata"]
    strategy = strategy_for(rt)
    if not meta.get("name") and meta.get("generateName"):
        suffix = "".join(secrets.choice(_GENERATE_ALPHABET) for _ in range(5)) if strategy.suffixes_generated_names \
            else ""
        meta["name"] = meta["generateName"] + suffix
    given_version = meta.pop("resourceVersion", None)
    for field_name in _SERVER_SET:
        meta.pop(field_name, None)
    meta["uid"] = str(uuid.uuid4())
    # Holds resourceVersion's place in the key order until the store writes the revision in; the
    # body's own stays, as upstream's FillObjectMetaSystemFields leaves it, for a dry run to echo.
    meta["resourceVersion"] = given_version if isinstance(given_version, str) else ""
    meta["creationTimestamp"] = now_rfc3339()
    if rt.tracks_generation:
        meta["generation"] = 1
    return obj


def prepare_create(rt: ResourceType, obj: dict[str, Any], found: list[errors.FieldError] | None = None,
                   if_valid: IfValid | None = None) -> dict[str, Any]:
    """The object as it will be stored (upstream's BeforeCreate, after the storage's BeginCreate): the
    create strategy's changes made, and validated (`found`: what the rules reading other objects found,
    which come first in the same 422; `if_valid`: the rules asked only of an object otherwise valid)."""
    strategy_for(rt).prepare_for_create(obj)
    validate(rt, obj, found=found, if_valid=if_valid)
    return ordered(shaping.shaped_object(obj))


def decoded_for_update(rt: ResourceType, obj: dict[str, Any], applying: bool = False) -> dict[str, Any]:
    """An update's new object as mutating admission sees it: decoded (merged, if `applying`) and
    defaulted (prepare_update, which follows, defaults it again: defaulting twice changes nothing)."""
    if rt.custom is not None:
        rt.custom.prepare(obj, keep_nulls=applying)
    strategy_for(rt).default(obj)
    return obj


def reshaped(obj: dict[str, Any], shaped_as: bytes | None = None) -> dict[str, Any]:
    """The object back in upstream's shape after a later step (allocation, namespace setup) changed it.

    `shaped_as`: the object's JSON when last shaped (shaped_json). A step that changed nothing leaves it
    in shape, as shaping what is shaped changes nothing; then it is not walked again."""
    if shaped_as is not None and shaped_json(obj) == shaped_as:
        return obj
    return ordered(shaping.shaped_object(obj))


def shaped_json(obj: dict[str, Any]) -> bytes | None:
    """What `reshaped` tells an unchanged object by: its JSON, keys in order (None: not JSON)."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        return None


def validate(rt: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None = None,
             status: bool = False, warnings: list[str] | None = None,
             found: list[errors.FieldError] | None = None, if_valid: IfValid | None = None) -> None:
    """The object's metadata and then its kind's rules (`status`: its status strategy's), in one 422 as
    upstream's Validate returns them; a custom resource's ratcheted rule failures go to `warnings`."""
    strategy = strategy_for(rt)
    if old is None:
        name_rule = strategy.name_rule if strategy.name_rule_of is None else strategy.name_rule_of(obj)
        problems = object_meta.validate(obj["metadata"], rt.namespaced, name_rule, strategy.kube_finalizers,
                                        strategy.checks_generate_name)
    else:
        problems = object_meta.validate_update(obj["metadata"], old["metadata"], strategy.kube_finalizers)
    if rt.custom is not None:
        ratcheted: list[errors.FieldError] = []
        problems += rt.custom.problems(obj, old, status, ratcheted)
        if warnings is not None:
            warnings += [f"{problem.path}: {problem.message}" for problem in ratcheted]
    elif old is None:
        problems += strategy.validate(obj)
    else:
        problems += strategy.validate_update(obj, old)
    if found:
        problems = found + problems
    if not problems and if_valid is not None:
        problems = if_valid(obj)
    if problems:
        group = rt.group if strategy.invalid_group is None else strategy.invalid_group
        raise errors.invalid(rt.kind, group, str(obj["metadata"].get("name") or ""), problems)


def prepare_update(rt: ResourceType, new: dict[str, Any], old: dict[str, Any],
                   subresource: str | None, manager: str | None = None,
                   applied: list[dict[str, Any]] | None = None, shape: bool = True,
                   warnings: list[str] | None = None, applying: bool = False,
                   in_cluster: Callable[[str, dict[str, Any], dict[str, Any]], list[errors.FieldError]] | None = None,
                   if_valid: IfValid | None = None) -> dict[str, Any]:
    """Carries over what a client cannot change and applies the subresource's view of the update.

    `in_cluster` are a subresource strategy's rules that read other objects or ask the authorizer
    (bound to the request by the caller), judged on the prepared object before the strategy's own;
    `if_valid`, the main resource's rules asked only of an object otherwise valid.
    `applied` are the managedFields a server-side apply computed, which stand instead of tracking;
    `applying` says the new object is an apply's merge, not a decoded body. Without `shape` an update
    of the main resource comes back unshaped: for a caller that changes it further and then shapes it
    (`reshaped`), as shaping twice is shaping once."""
    now = now_rfc3339()
    strategy = strategy_for(rt)
    old_meta = old["metadata"]
    if subresource == pod_ephemeral_containers.SUBRESOURCE:
        new = pod_ephemeral_containers.prepare_update(new, old)
    if subresource == pod_resize.SUBRESOURCE:
        return _resized(rt, strategy, new, old, manager, now, applied)
    if subresource == "approval":
        approved = certificates.approval_update(new, old, now)
        _check_subresource(rt, strategy, subresource, approved, old)
        ownership.track(rt, approved, old, manager, subresource, now)
        return ordered(shaping.shaped_object(approved))
    if subresource == "status":
        merged = dict(old)
        if "status" in new:
            merged["status"] = new["status"]
        else:
            merged.pop("status", None)
        merged["metadata"] = dict(old_meta)
        if rt.custom is None:
            # Built-in status strategies reset the spec (and some kinds' labels), not the rest of the metadata.
            taken = () if strategy.status_keeps_metadata else \
                ("annotations",) if strategy.status_keeps_labels else ("labels", "annotations")
            for field_name in taken:
                if new["metadata"].get(field_name):
                    merged["metadata"][field_name] = new["metadata"][field_name]
                else:
                    merged["metadata"].pop(field_name, None)
            merged = ordered(merged)
        if rt.custom is not None:
            rt.custom.prepare(merged)
            validate(rt, merged, old, status=True, warnings=warnings)
        strategy.prepare_for_status_update(merged, old, now)
        _check_subresource(rt, strategy, subresource, merged, old, in_cluster)
        _record(rt, merged, old, manager, subresource, now, applied)
        strategy.after_status_update(merged, old, now)
        return ordered(shaping.shaped_object(merged))
    meta = new["metadata"]
    for field_name in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                       "generation"):
        if field_name in old_meta:
            meta[field_name] = old_meta[field_name]
        else:
            meta.pop(field_name, None)
    meta.pop("selfLink", None)
    if rt.subresource("status") is not None:
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)
    strategy.decode(new)
    strategy.keep_on_update(new, old)
    # Managed fields are the server's record: a write changes them through what it changes, or by
    # setting them outright (kubectl's client-side to server-side migration does).
    given = meta.pop("managedFields", None)
    if not fieldmanager.decodable(given) or given == old_meta.get("managedFields"):
        given = None
    if "managedFields" in old_meta:
        meta["managedFields"] = old_meta["managedFields"]
    if rt.custom is not None:
        rt.custom.prepare(new, keep_nulls=applying)  # before generation compares: pruned or defaulted fields change nothing
    strategy.default(new)
    # Compared as Go holds it, so that fields Go always writes do not count as changes, while an empty
    # list or map the client sent does (it becomes null only in storage).
    emptied: shaping.Emptied = []
    new = shaping.shaped_object(new, emptied)
    meta = new["metadata"]
    # namespaces/finalize is the whole object but its status (namespaceFinalizeStrategy): what it changes
    # is the spec's finalizers, which the main resource's update keeps.
    finalizing = subresource == FINALIZE
    _record(rt, new, old, manager, subresource if subresource in (pod_ephemeral_containers.SUBRESOURCE, FINALIZE)
            else None, now, applied, given, shaped=True)
    shaping.as_stored(emptied)
    if not finalizing:
        strategy.prepare_for_update(new, old)
    if rt.tracks_generation and _spec_of(rt, new) != _spec_of(rt, old):
        meta["generation"] = int(old_meta.get("generation") or 0) + 1
    shaping.as_decoded(emptied)
    if subresource == pod_ephemeral_containers.SUBRESOURCE:
        problems = pod_ephemeral_containers.validate_update(new, old, strategy.kube_finalizers)
        if problems:
            raise errors.invalid(rt.kind, rt.group, meta.get("name", ""), problems)
    elif finalizing:
        problems = object_meta.validate_update(meta, old_meta, strategy.kube_finalizers)
        problems += strategy.validate_subresource_update(FINALIZE, new, old)
        if problems:
            raise errors.invalid(rt.kind, rt.group, meta.get("name", ""), problems)
    else:
        validate(rt, new, old, warnings=warnings, if_valid=if_valid)
    shaping.as_stored(emptied)
    return ordered(shaping.shaped_object(new)) if shape else new


def _resized(rt: ResourceType, strategy: Strategy, new: dict[str, Any], old: dict[str, Any], manager: str | None,
             now: str, applied: list[dict[str, Any]] | None) -> dict[str, Any]:
    """pods/resize: the decoded pod defaulted, then podResizeStrategy's PrepareForUpdate (its resources only,
    a new generation when the spec changed) and ValidateUpdate."""
    strategy.default(new)
    resized = shaping.shaped_object(pod_resize.prepare_update(new, old))
    if resized.get("spec") != old.get("spec"):
        resized["metadata"]["generation"] = int(old["metadata"].get("generation") or 0) + 1
    _record(rt, resized, old, manager, pod_resize.SUBRESOURCE, now, applied)
    problems = object_meta.validate_update(resized["metadata"], old["metadata"], strategy.kube_finalizers)
    problems += pod_resize.validate_update(resized, old)
    if problems:
        raise errors.invalid(rt.kind, rt.group, str(resized["metadata"].get("name") or ""), problems)
    return ordered(shaping.shaped_object(resized))


def _check_subresource(rt: ResourceType, strategy: Strategy, subresource: str, new: dict[str, Any],
                       old: dict[str, Any],
                       in_cluster: Callable[[str, dict[str, Any], dict[str, Any]], list[errors.FieldError]] | None
                       = None) -> None:
    problems = [] if in_cluster is None else in_cluster(subresource, new, old)
    problems += strategy.validate_subresource_update(subresource, new, old)
    if problems:
        raise errors.invalid(rt.kind, rt.group, str(new["metadata"].get("name") or ""), problems)


def _record(rt: ResourceType, obj: dict[str, Any], old: dict[str, Any], manager: str | None,
            subresource: str | None, now: str, applied: list[dict[str, Any]] | None,
            given: list[dict[str, Any]] | None = None, shaped: bool = False) -> None:
    if applied is None:
        ownership.track(rt, obj, old, manager, subresource, now, given, shaped)
    elif applied:
        obj["metadata"]["managedFields"] = applied
    else:
        obj["metadata"].pop("managedFields", None)


def _spec_of(rt: ResourceType, obj: dict[str, Any]) -> Any:
    """What a change of bumps metadata.generation; kinds without a spec (ConfigMap-like) never bump it."""
    if rt.custom is not None:
        return rt.custom.generation_fields(obj)
    return obj.get(strategy_for(rt).generation_field)


def check_preconditions(rt: ResourceType, obj: dict[str, Any], preconditions: dict[str, Any] | None) -> None:
    """A delete's preconditions, checked as rest.BeforeDelete checks them to fail early (naming the kind)."""
    if not preconditions:
        return
    meta = obj["metadata"]
    name = meta.get("name", "")
    uid = preconditions.get("uid")
    if uid is not None and uid != meta.get("uid", ""):
        raise errors.conflict(rt.kind, rt.group, name,
                              f"the UID in the precondition ({uid}) does not match the UID in record "
                              f"({meta.get('uid', '')}). The object might have been deleted and then recreated")
    rv = preconditions.get("resourceVersion")
    if rv is not None and rv != meta.get("resourceVersion", ""):
        raise errors.conflict(rt.kind, rt.group, name,
                              f"the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion "
                              f"in record ({meta.get('resourceVersion', '')}). The object might have been modified")


def require_namespace_usable(namespace_obj: dict[str, Any] | None, namespace: str, rt: ResourceType,
                             name: str) -> None:
    if namespace_obj is None:
        raise errors.namespace_missing(namespace)
    if (namespace_obj.get("status") or {}).get("phase") == "Terminating":
        raise errors.namespace_terminating(namespace, rt.plural, rt.group, name)


def scale_of(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """The autoscaling/v1 Scale view of a workload."""
    if rt.custom is not None:
        return rt.custom.scale_of(obj)
    meta = obj["metadata"]
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    selector = spec.get("selector") or {}
    if strategy_for(rt).scale_selector_is_map:
        selector = {"matchLabels": selector}
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                     if k in meta},
        "spec": {"replicas": int(spec.get("replicas", 1))} if spec.get("replicas", 1) else {},
        "status": {"replicas": int(status.get("replicas") or 0), "selector": _selector_string(selector)},
    }


# ScaleREST's stand-in (the smallest int32) for replicas an update started from without finding them.
_UNSET_REPLICAS = -2147483648


def scale_for_read(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """GET /scale: a custom resource without replicas at its specReplicasPath has no Scale (ScaleREST.Get)."""
    if rt.custom is not None and not rt.custom.has_spec_replicas(obj):
        raise errors.internal(f"the spec replicas field {_spec_replicas_path(rt)} does not exist")
    return scale_of(rt, obj)


def scale_to_patch(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """The Scale a patch of /scale applies to: a custom resource's missing replicas are the stand-in,
    which the patch must replace (scaleUpdatedObjectInfo.UpdatedObject)."""
    scale = scale_of(rt, obj)
    if rt.custom is not None and not rt.custom.has_spec_replicas(obj):
        scale["spec"] = {"replicas": _UNSET_REPLICAS}
    return scale


def _spec_replicas_path(rt: ResourceType) -> str:
    assert rt.custom is not None
    return f'"{rt.custom.spec_replicas_path}"'


def _selector_string(selector: dict[str, Any]) -> str:
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or ():
        key, op, values = expr.get("key", ""), expr.get("operator", ""), sorted(expr.get("values") or ())
        if op == "In":
            parts.append(f"{key} in ({','.join(values)})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(values)})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append("!" + key)
    return ",".join(sorted(parts))


def scale_configuration(rt: ResourceType, scale: dict[str, Any]) -> dict[str, Any]:
    """A Scale applied to /scale, as the configuration of its object: the replicas and nothing else."""
    meta = scale.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    config: dict[str, Any] = {"apiVersion": rt.api_version, "kind": rt.kind,
                              "metadata": {k: meta[k] for k in ("name", "namespace") if k in meta}}
    spec = scale.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    if "replicas" in spec:
        if rt.custom is not None:
            rt.custom.set_replicas(config, spec["replicas"])
        else:
            config["spec"] = {"replicas": spec["replicas"]}
    return config


def apply_scale(rt: ResourceType, obj: dict[str, Any], scale: Any, manager: str | None = None) -> dict[str, Any]:
    if not isinstance(scale, dict):
        raise errors.bad_request("the object provided is unrecognized (must be of type Scale)")
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    if rt.custom is not None and replicas == _UNSET_REPLICAS:
        raise errors.bad_request(f"the spec replicas field {_spec_replicas_path(rt)} cannot be empty")
    # A custom resource's ScaleREST runs no ValidateScale: the resource's own validation judges the replicas.
    if not isinstance(replicas, int) or isinstance(replicas, bool) or (replicas < 0 and rt.custom is None):
        raise errors.invalid("Scale", "autoscaling", obj["metadata"].get("name", ""), [
            errors.FieldError("FieldValueInvalid", "spec.replicas",
                              f"Invalid value: {replicas}: must be greater than or equal to 0")])
    rv = (scale.get("metadata") or {}).get("resourceVersion")
    if rv and rv != obj["metadata"].get("resourceVersion"):
        raise errors.stale_update(rt.plural, rt.group, obj["metadata"].get("name", ""))
    old = ownership.json_copy(obj)
    if rt.custom is not None:
        changed = rt.custom.set_replicas(obj, replicas)
    else:
        spec = obj.setdefault("spec", {})
        changed = spec.get("replicas") != replicas
        spec["replicas"] = replicas
    if changed and obj["metadata"].get("generation"):
        obj["metadata"]["generation"] = int(obj["metadata"]["generation"]) + 1
    if rt.custom is not None:
        validate(rt, obj, old)  # ScaleREST updates through the resource's own store and strategy
    ownership.track(rt, obj, old, manager, "scale", now_rfc3339())
    return ordered(obj)
