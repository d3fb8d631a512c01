"""The write families: one change sent by every write method, updates, subresources, exclusive fields.

- writes: a field's new value as update (PUT with the resourceVersion just written), JSON merge,
  JSON and strategic merge patch, and server-side apply by one manager, then by a second over the
  first's object (without force: a conflict where they disagree; with force);
- apply: server-side apply's own cases (creation, no field manager, twice, after a create, YAML);
- updates: fields of the seed, then sampled ones, changed on an existing object (immutable fields);
- status and scale subresources; exclusive: fields that exclude each other (exclusive.py).
"""

from __future__ import annotations

import json
from typing import Any

from tools.differential import exclusive, schemawalk
from tools.differential.cases import (
    APPLY,
    JSON_PATCH,
    MERGE,
    STATUS_CASES,
    STRATEGIC,
    UPDATE_CASES,
    WRITE_FIELDS,
    Builder,
    get,
    post,
    put_read,
    request,
    sampled_fields,
    yaml_text,
)
from tools.differential.schemawalk import ABSENT, Field
from tools.differential.seeds import Obj


def _write_fields(b: Builder) -> list[tuple[Field, str, Any]]:
    """Fields set by every write method: the seed's own leaves first, then sampled schema fields."""
    chosen: list[tuple[Field, str, Any]] = []
    _, _, _, obj = b.start("writes", "probe")
    for field in sampled_fields(b):
        if len(chosen) >= WRITE_FIELDS:
            break
        if isinstance(field.path[-1], int):
            continue
        found = _plausible(field, schemawalk.get(obj, field.path))
        if found is not None and schemawalk.place(obj, field, found[1]) != obj:
            chosen.append((field, *found))
    return chosen


_PLAUSIBLE = ("typical", "subdomain", "one", "int", "true", "false", "time", "fraction", "zero", "empty")


def _plausible(field: Field, current: Any) -> tuple[str, Any] | None:
    """The first value of the field that a user might well set, other than the one it has."""
    options = {label: value for label, value in schemawalk.variants(field) if value is not ABSENT}
    enums = [label for label in options if label.startswith("enum-")]
    for label in (*_PLAUSIBLE[:5], *enums, *_PLAUSIBLE[5:]):
        if label in options and options[label] != current:
            return label, options[label]
    return None


def _merge_body(changed: Obj, field: Field) -> Obj:
    """The smallest JSON merge patch giving the object the field's new value: a list is replaced whole."""
    cut = next((i for i, seg in enumerate(field.path) if isinstance(seg, int)), len(field.path))
    body: Any = schemawalk.get(changed, field.path[:cut])
    for seg in reversed(field.path[:cut]):
        body = {seg: body}
    return dict(body)


def _strategic_body(obj: Obj, changed: Obj, field: Field) -> Obj:
    """The smallest strategic merge patch setting the field: an existing list item named by its merge
    key, a new one sent whole."""
    path = field.path

    def below(depth: int) -> Any:
        if depth == len(path):
            return schemawalk.get(changed, path)
        seg = path[depth]
        if not isinstance(seg, int):
            return {seg: below(depth + 1)}
        item = schemawalk.get(changed, path[:depth + 1])
        if schemawalk.get(obj, path[:depth + 1]) is ABSENT:
            return [item]
        inner = below(depth + 1)
        key = field.schemas[depth - 1].get("x-kubernetes-patch-merge-key")
        if key and isinstance(item, dict) and isinstance(inner, dict) and key in item:
            inner = {key: item[key], **inner}
        return [inner]

    return dict(below(0))


def _json_patch(obj: Obj, field: Field, value: Any) -> list[Obj]:
    """A JSON patch adding the value at the deepest part of the path the object already has."""
    depth = len(field.path)
    while depth > 1 and schemawalk.get(obj, field.path[:depth - 1]) is ABSENT:
        depth -= 1
    target = schemawalk.place({}, field, value)
    sub = schemawalk.get(target, field.path[:depth])
    pointer = "/" + "/".join(str(s) for s in field.path[:depth])
    return [{"op": "add", "path": pointer, "value": sub}]


def writes(b: Builder) -> None:
    kind = b.kind
    for field, label, value in _write_fields(b):
        detail = f"{field.dotted}={label}"
        for method in ("put", "merge", "json", "strategic", "apply", "apply-second-manager",
                       "apply-second-manager-force"):
            case_id, ns, name, obj = b.start(f"writes-{method}", detail)
            changed = schemawalk.place(obj, field, value)
            create = [*b.prerequisites(ns), post(kind.collection(ns), obj)]
            item = kind.item(ns, name)
            check = b.read_back(ns, name)
            if method == "put":
                b.add(case_id, ns, put_read(item, changed), [*create, *b.settled(ns, name)], check)
            elif method == "merge":
                b.add(case_id, ns, request("PATCH", item, _merge_body(changed, field), "", MERGE), create,
                      check)
            elif method == "strategic":
                patch = request("PATCH", item, _strategic_body(obj, changed, field), "", STRATEGIC)
                b.add(case_id, ns, patch, create, check)
            elif method == "json":
                b.add(case_id, ns, request("PATCH", item, _json_patch(obj, field, value), "", JSON_PATCH),
                      create, check)
            elif method == "apply":
                b.add(case_id, ns, request("PATCH", item, changed, "fieldManager=first", APPLY),
                      b.prerequisites(ns), check)
            else:
                force = "&force=true" if method.endswith("force") else ""
                first = request("PATCH", item, obj, "fieldManager=first", APPLY)
                b.add(case_id, ns, request("PATCH", item, changed, "fieldManager=second" + force, APPLY),
                      [*b.prerequisites(ns), first], check)


def apply_cases(b: Builder) -> None:
    kind = b.kind
    case_id, ns, name, obj = b.start("apply", "create")
    item = kind.item(ns, name)
    b.add(case_id, ns, request("PATCH", item, obj, "fieldManager=first", APPLY), b.prerequisites(ns),
          b.read_back(ns, name))
    case_id, ns, name, obj = b.start("apply", "no-field-manager")
    b.add(case_id, ns, request("PATCH", kind.item(ns, name), obj, "", APPLY), b.prerequisites(ns))
    case_id, ns, name, obj = b.start("apply", "twice-same")
    first = request("PATCH", kind.item(ns, name), obj, "fieldManager=first", APPLY)
    b.add(case_id, ns, first, [*b.prerequisites(ns), first], b.read_back(ns, name))
    case_id, ns, name, obj = b.start("apply", "after-create")
    b.add(case_id, ns, request("PATCH", kind.item(ns, name), obj, "fieldManager=first", APPLY),
          [*b.prerequisites(ns), post(kind.collection(ns), obj)], b.read_back(ns, name))
    case_id, ns, name, obj = b.start("apply", "name-mismatch")
    other = json.loads(json.dumps(obj))
    other["metadata"]["name"] = "another"
    b.add(case_id, ns, request("PATCH", kind.item(ns, name), other, "fieldManager=first", APPLY))
    case_id, ns, name, obj = b.start("apply", "yaml")
    b.add(case_id, ns, request("PATCH", kind.item(ns, name), yaml_text(obj), "fieldManager=first", APPLY),
          b.prerequisites(ns))


def updates(b: Builder) -> None:
    """Each leaf of the seed changed on an existing object by PUT: the immutable-field rules."""
    kind = b.kind
    _, _, _, probe = b.start("updates", "probe")
    leaves = [f for f in schemawalk.fields(b.schema)
              if schemawalk.get(probe, f.path) is not ABSENT and not isinstance(schemawalk.get(probe, f.path),
                                                                                   (dict, list))]
    leaves += [f for f in sampled_fields(b) if f not in leaves]
    taken = 0
    for field in leaves:
        if taken >= UPDATE_CASES:
            break
        found = _plausible(field, schemawalk.get(probe, field.path))
        if found is None:
            continue
        label, value = found
        case_id, ns, name, obj = b.start("updates", f"{field.dotted}={label}")
        changed = schemawalk.place(obj, field, value)
        if changed == obj:
            continue
        taken += 1
        b.add(case_id, ns, put_read(kind.item(ns, name), changed),
              [*b.prerequisites(ns), post(kind.collection(ns), obj), *b.settled(ns, name)],
              b.read_back(ns, name))


def subresources(b: Builder) -> None:
    kind = b.kind
    if "status" in kind.subresources:
        status_fields = [f for f in sampled_fields(b, "status") if len(f.path) > 1]
        for field in status_fields[:STATUS_CASES]:
            label, value = next(((lb, v) for lb, v in schemawalk.variants(field)
                                 if v is not ABSENT and v is not None), ("null", None))
            case_id, ns, name, obj = b.start("status", f"{field.dotted}={label}")
            create = [*b.prerequisites(ns), post(kind.collection(ns), obj)]
            changed = schemawalk.place(obj, field, value)
            patch = request("PATCH", kind.item(ns, name) + "/status", _merge_body(changed, field), "", MERGE)
            b.add(case_id, ns, patch, create, b.read_back(ns, name))
        case_id, ns, name, obj = b.start("status", "put-spec-change")
        create = [*b.prerequisites(ns), post(kind.collection(ns), obj)]
        changed = json.loads(json.dumps(obj))
        changed.setdefault("metadata", {}).setdefault("labels", {})["changed"] = "yes"
        settled = [*create, *b.settled(ns, name)]
        b.add(case_id, ns, put_read(kind.item(ns, name) + "/status", changed), settled, b.read_back(ns, name))
    if "scale" in kind.subresources:
        for label, replicas in (("three", 3), ("zero", 0), ("negative", -1)):
            case_id, ns, name, obj = b.start("scale", label)
            create = [post(kind.collection(ns), obj)]
            body = {"apiVersion": "autoscaling/v1", "kind": "Scale",
                    "metadata": {"name": name, "namespace": ns}, "spec": {"replicas": replicas}}
            b.add(case_id, ns, request("PUT", kind.item(ns, name) + "/scale", body), create,
                  b.read_back(ns, name))
        case_id, ns, name, obj = b.start("scale", "get")
        b.add(case_id, ns, get(kind.item(ns, name) + "/scale"), [post(kind.collection(ns), obj)])
        case_id, ns, name, obj = b.start("scale", "merge")
        patch = request("PATCH", kind.item(ns, name) + "/scale", {"spec": {"replicas": 2}}, "", MERGE)
        b.add(case_id, ns, patch, [post(kind.collection(ns), obj)], b.read_back(ns, name))


def exclusive_cases(b: Builder) -> None:
    """Fields that exclude each other set together, each on a new object and on an existing one."""
    for label, setting in exclusive.settings(b.kind.kind).items():
        case_id, ns, name, obj = b.start("exclusive", label)
        b.add(case_id, ns, post(b.kind.collection(ns), exclusive.apply_setting(obj, setting)),
              b.prerequisites(ns), b.read_back(ns, name))
        case_id, ns, name, obj = b.start("exclusive-update", label)
        b.add(case_id, ns, put_read(b.kind.item(ns, name), exclusive.apply_setting(obj, setting)),
              [post(b.kind.collection(ns), obj), *b.settled(ns, name)], b.read_back(ns, name))


