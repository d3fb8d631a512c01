"""A v1 pod template as json.Marshal writes the internal core.PodTemplateSpec it converts to: how upstream
shows a pod template that is a bad value (a Job's template, fixed once the job runs).

The internal types have no json tags, so their Go field names are the keys, every field is written (nil
pointers, slices and maps as null, others at their zero value), and an embedded struct's fields sit
in its parent. The facts are apiserver/data/internal_pod_types.json (tools/internal_core_facts.py):
each internal field with the name v1 gives it. The one conversion that moves fields: a v1 PodSpec's
hostNetwork, hostPID, hostIPC, shareProcessNamespace and hostUsers are the internal
PodSecurityContext's, which therefore always exists.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import Any

from apiserver.kinds import quantity
from apiserver.registry import field

Obj = dict[str, Any]

_INTEGERS = frozenset({"int", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
_HOST_FIELDS = ("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "hostUsers")
_OBJECT_META = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
                "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
                "ownerReferences", "finalizers", "managedFields")


@functools.cache
def _facts() -> Obj:
    with (importlib.resources.files("apiserver") / "data" / "internal_pod_types.json").open("rb") as f:
        return json.load(f)  # type: ignore[no-any-return]


def _tagged_meta(meta: Any) -> Obj:
    """metav1.ObjectMeta keeps its json tags: every field omitempty."""
    meta = meta if isinstance(meta, dict) else {}
    return {k: meta[k] for k in _OBJECT_META if meta.get(k) not in (None, "", 0, [], {})}


def _label_selector(selector: Obj) -> Obj:
    out: Obj = {}
    if selector.get("matchLabels"):
        out["matchLabels"] = dict(sorted(selector["matchLabels"].items()))
    if selector.get("matchExpressions"):
        out["matchExpressions"] = [{k: e[k] for k in ("key", "operator", "values") if e.get(k) or k != "values"}
                                   for e in selector["matchExpressions"] if isinstance(e, dict)]
    return out


def _quantity(value: Any) -> str:
    try:
        return quantity.canonical(quantity.parse(value))
    except quantity.QuantityError:
        return str(value)


def _value(value: Any, go_type: str) -> Any:
    """One value of a Go type, as json.Marshal writes it."""
    if go_type.startswith("*"):
        return None if value is None else _value(value, go_type[1:])
    if go_type.startswith("[]"):
        return None if value is None else [_value(v, go_type[2:]) for v in value]
    named = _facts()["named"].get(go_type)
    if named is not None and named != "string":
        return _value(value, named)
    if go_type.startswith("map["):
        if value is None:
            return None
        item_type = go_type[go_type.index("]") + 1:]
        return {k: _value(value[k], item_type) for k in sorted(value)}
    if go_type == "string" or named == "string" or go_type == "types.UID":
        return value if isinstance(value, str) else ""
    if go_type == "bool":
        return value is True
    if go_type in _INTEGERS:
        return value if isinstance(value, int) else 0
    if go_type == "resource.Quantity":
        return _quantity(value) if value is not None else "0"
    if go_type == "intstr.IntOrString":
        return 0 if value is None else value
    if go_type == "metav1.LabelSelector":
        return _label_selector(value if isinstance(value, dict) else {})
    if go_type in ("metav1.Time", "metav1.MicroTime"):
        return value
    return _struct(value if isinstance(value, dict) else {}, go_type)


def _struct(value: Obj, name: str) -> Obj:
    if name == "PodSpec":
        # The internal PodSecurityContext holds what v1 keeps in the pod spec itself.
        context = value.get("securityContext")
        merged = {**(context if isinstance(context, dict) else {}),
                  **{k: value[k] for k in _HOST_FIELDS if k in value}}
        value = {**value, "securityContext": merged}
    out: Obj = {}
    for go_name, go_type, json_name in _facts()["structs"][name]:
        if go_type == "metav1.ObjectMeta":
            # Embedded in the internal type, but v1's `metadata`; its tags keep it a JSON object's fields.
            out.update(_tagged_meta(value.get("metadata")))
        elif not go_name:
            out.update(_value(value, go_type))
        else:
            key = json_name if json_name is not None else go_name[0].lower() + go_name[1:]
            out[go_name] = _value(value.get(key), go_type)
    return out


def pod_template_json(template: Any) -> str:
    return field.go_json(_struct(template if isinstance(template, dict) else {}, "PodTemplateSpec"))


def pod_spec_json(spec: Any) -> str:
    return field.go_json(_struct(spec if isinstance(spec, dict) else {}, "PodSpec"))
