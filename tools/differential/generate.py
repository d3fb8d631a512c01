"""The generated cases: for every served kind, writes that kube-apiserver 1.36 accepts or refuses.

A case is a small JSON record: an id (`Kind.version.group/family/detail`), the kind's label, the
namespace it runs in (made fresh for it, or none for a cluster-scoped kind, whose object names are
unique per case), `setup` requests whose answers are not compared, the `request` whose answer is, and
an optional `check` (a read of the object afterwards, to see what was really stored). The families:

- basics: create, create again, read, list, delete, update with a stale or bad resourceVersion;
- metadata: names, generateName, labels, annotations, finalizers, owner references, namespace;
- decode: unknown and duplicate fields under each fieldValidation, malformed bodies, wrong kind;
- fields: the kind's schema walked, each field absent, empty, zero, typical, at its limits and
  mutated (sampled, seeded by the kind, so the same cases come out every time);
- writes: the same change as update (PUT), merge, JSON and strategic merge patch, and server-side
  apply by one manager, then by a second (conflict, force);
- updates: every field of the seed changed on an existing object (the immutable-field rules);
- status and scale subresources.
"""

from __future__ import annotations

import collections
import hashlib
import json
import random
from typing import Any, Iterator

from apiserver.kinds import schemas
from tools.differential import schemawalk
from tools.differential.kinds import Kind, object_name, served_kinds
from tools.differential.schemawalk import ABSENT, Field
from tools.differential.seeds import Obj, seed

Case = dict[str, Any]
Request = dict[str, Any]
SEED = 23
FIELD_CASES = 32  # sampled create cases from the schema walk, per kind
WRITE_FIELDS = 4  # fields whose change is sent by every write method, per kind
UPDATE_CASES = 10  # fields of the seed changed on an existing object, per kind
STATUS_CASES = 4
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def token_of(case_id: str) -> str:
    return hashlib.sha1(case_id.encode()).hexdigest()[:8]


class Builder:
    """The cases of one kind, each given its namespace, object name and seed from its id."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.cases: list[Case] = []
        self.schema = schemas.kind_schema(kind.group, kind.version, kind.kind) or {}

    def start(self, family: str, detail: str) -> tuple[str, str | None, str, Obj]:
        case_id = f"{self.kind.label}/{family}/{detail}"
        token = token_of(case_id)
        namespace = f"d-{token}" if self.kind.namespaced else None
        name = object_name(self.kind, token)
        return case_id, namespace, name, seed(self.kind, name, namespace, token)

    def add(self, case_id: str, namespace: str | None, request: Request, setup: list[Request] | None = None,
            check: Request | None = None) -> None:
        case: Case = {"id": case_id, "kind": self.kind.label, "namespace": namespace, "setup": setup or [],
                      "request": request}
        if check is not None:
            case["check"] = check
        self.cases.append(case)

    def prerequisites(self, namespace: str | None) -> list[Request]:
        """What a case of this kind needs before its object: a Binding binds an existing Pod."""
        if self.kind.kind == "Binding":
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "obj"},
                   "spec": {"containers": [{"name": "c", "image": "registry.example.com/app:1"}]}}
            return [post(f"/api/v1/namespaces/{namespace}/pods", pod)]
        return []

    def read_back(self, namespace: str | None, name: str) -> Request | None:
        if self.kind.kind == "Binding":
            return get(f"/api/v1/namespaces/{namespace}/pods/obj")
        if "get" not in self.kind.verbs:
            return None
        return get(self.kind.item(namespace, name))


def post(path: str, body: Any, query: str = "", content_type: str = "application/json") -> Request:
    return _request("POST", path, body, query, content_type)


def get(path: str, query: str = "", accept: str = "") -> Request:
    req: Request = {"method": "GET", "path": path}
    if query:
        req["query"] = query
    if accept:
        req["accept"] = accept
    return req


def _request(method: str, path: str, body: Any, query: str = "",
             content_type: str = "application/json") -> Request:
    req: Request = {"method": method, "path": path}
    if query:
        req["query"] = query
    if isinstance(body, str):
        req["raw"] = body
    elif body is not None:
        req["body"] = body
    if body is not None:
        req["contentType"] = content_type
    return req


def put_read(path: str, body: Obj) -> Request:
    """A PUT carrying the resourceVersion of the object the setup's last step wrote."""
    return {**_request("PUT", path, body), "resourceVersionFromSetup": True}


def basics(b: Builder) -> None:
    kind = b.kind
    case_id, ns, name, obj = b.start("basics", "create")
    pre = b.prerequisites(ns)
    b.add(case_id, ns, post(kind.collection(ns), obj), pre, b.read_back(ns, name))
    case_id, ns, name, obj = b.start("basics", "create-dry-run")
    b.add(case_id, ns, post(kind.collection(ns), obj, "dryRun=All"), b.prerequisites(ns),
          b.read_back(ns, name))
    if not kind.stored():
        return
    case_id, ns, name, obj = b.start("basics", "create-twice")
    b.add(case_id, ns, post(kind.collection(ns), obj), [post(kind.collection(ns), obj)])
    case_id, ns, name, obj = b.start("basics", "get-missing")
    b.add(case_id, ns, get(kind.item(ns, name)))
    case_id, ns, name, obj = b.start("basics", "get-table")
    b.add(case_id, ns, get(kind.item(ns, name), accept=TABLE), [post(kind.collection(ns), obj)])
    case_id, ns, name, obj = b.start("basics", "delete-missing")
    b.add(case_id, ns, _request("DELETE", kind.item(ns, name), None))
    case_id, ns, name, obj = b.start("basics", "delete")
    b.add(case_id, ns, _request("DELETE", kind.item(ns, name), None), [post(kind.collection(ns), obj)],
          b.read_back(ns, name))
    if kind.namespaced:
        case_id, ns, name, obj = b.start("basics", "list")
        b.add(case_id, ns, get(kind.collection(ns)), [post(kind.collection(ns), obj)])
    for label, rv in (("stale", "1"), ("bad", "abc")):
        case_id, ns, name, obj = b.start("basics", f"update-{label}-resourceVersion")
        changed = json.loads(json.dumps(obj))
        changed["metadata"]["resourceVersion"] = rv
        b.add(case_id, ns, _request("PUT", kind.item(ns, name), changed), [post(kind.collection(ns), obj)])
    case_id, ns, name, obj = b.start("basics", "update-unconditional")
    b.add(case_id, ns, _request("PUT", kind.item(ns, name), obj), [post(kind.collection(ns), obj)],
          b.read_back(ns, name))
    case_id, ns, name, obj = b.start("basics", "update-unchanged")
    b.add(case_id, ns, put_read(kind.item(ns, name), obj), [post(kind.collection(ns), obj)],
          b.read_back(ns, name))
    case_id, ns, name, obj = b.start("basics", "update-missing")
    b.add(case_id, ns, _request("PUT", kind.item(ns, name), obj), [], b.read_back(ns, name))
    case_id, ns, name, obj = b.start("basics", "update-name-mismatch")
    changed = json.loads(json.dumps(obj))
    changed["metadata"]["name"] = "other"
    b.add(case_id, ns, _request("PUT", kind.item(ns, name), changed), [post(kind.collection(ns), obj)])


def _metadata_mutations(kind: Kind) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "name-upper", {"name": "Bad_Name"}
    yield "name-dot", {"name": "a.b"}
    yield "name-63", {"name": "n" * 63}
    yield "name-64", {"name": "n" * 64}
    yield "name-254", {"name": "n" * 254}
    yield "name-leading-dash", {"name": "-a"}
    yield "name-empty", {"name": ""}
    yield "generate-name", {"name": ABSENT, "generateName": "gen-"}
    yield "generate-name-bad", {"name": ABSENT, "generateName": "Gen_"}
    yield "label-key-bad", {"labels": {"bad key": "v"}}
    yield "label-key-prefixed", {"labels": {"example.com/key": "v"}}
    yield "label-prefix-bad", {"labels": {"Bad_Prefix/key": "v"}}
    yield "label-value-64", {"labels": {"key": "v" * 64}}
    yield "label-value-bad", {"labels": {"key": "-bad-"}}
    yield "annotation-key-bad", {"annotations": {"bad key": "v"}}
    yield "annotation-key-long", {"annotations": {"k" * 64: "v"}}
    yield "annotations-empty", {"annotations": {}}
    yield "finalizer-bad", {"finalizers": ["bad"]}
    yield "finalizer-qualified", {"finalizers": ["example.com/done", "example.com/done"]}
    yield "owner-no-uid", {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o"}]}
    yield "owner-ok", {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o",
                                            "uid": "6a1f0b7c-0000-4000-8000-000000000001"}]}
    yield "owner-two-controllers", {"ownerReferences": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "6a1f0b7c-0000-4000-8000-000000000001",
         "controller": True},
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "p", "uid": "6a1f0b7c-0000-4000-8000-000000000002",
         "controller": True}]}
    yield "resource-version-set", {"resourceVersion": "5"}
    yield "uid-set", {"uid": "6a1f0b7c-0000-4000-8000-000000000003"}
    yield "generation-set", {"generation": 7}
    yield "creation-timestamp-set", {"creationTimestamp": "2020-01-01T00:00:00Z"}
    if kind.namespaced:
        yield "namespace-mismatch", {"namespace": "elsewhere"}
        yield "namespace-absent", {"namespace": ABSENT}
    else:
        yield "namespace-on-cluster-kind", {"namespace": "default"}


def metadata(b: Builder) -> None:
    for label, changes in _metadata_mutations(b.kind):
        case_id, ns, name, obj = b.start("metadata", label)
        for key, value in changes.items():
            if value is ABSENT:
                obj["metadata"].pop(key, None)
            else:
                obj["metadata"][key] = value
        b.add(case_id, ns, post(b.kind.collection(ns), obj), b.prerequisites(ns))


def decode(b: Builder) -> None:
    kind = b.kind
    for mode in ("Strict", "Warn", "Ignore"):
        case_id, ns, name, obj = b.start("decode", f"unknown-field-{mode}")
        obj["unknownTopField"] = 1
        obj["metadata"]["unknownMetaField"] = "x"
        b.add(case_id, ns, post(kind.collection(ns), obj, f"fieldValidation={mode}"), b.prerequisites(ns))
        case_id, ns, name, obj = b.start("decode", f"duplicate-field-{mode}")
        text = json.dumps(obj)
        raw = text[:-1] + ', "metadata": ' + json.dumps(obj["metadata"]) + "}"
        b.add(case_id, ns, post(kind.collection(ns), raw, f"fieldValidation={mode}"), b.prerequisites(ns))
    case_id, ns, name, obj = b.start("decode", "malformed")
    b.add(case_id, ns, post(kind.collection(ns), json.dumps(obj)[:-2]))
    case_id, ns, name, obj = b.start("decode", "wrong-kind")
    obj["kind"] = "Wrong"
    b.add(case_id, ns, post(kind.collection(ns), obj))
    case_id, ns, name, obj = b.start("decode", "wrong-api-version")
    obj["apiVersion"] = "example.com/v9"
    b.add(case_id, ns, post(kind.collection(ns), obj))
    case_id, ns, name, obj = b.start("decode", "no-type-meta")
    del obj["apiVersion"], obj["kind"]
    b.add(case_id, ns, post(kind.collection(ns), obj), b.prerequisites(ns))
    case_id, ns, name, obj = b.start("decode", "yaml-body")
    b.add(case_id, ns, post(kind.collection(ns), _yaml(obj), content_type="application/yaml"),
          b.prerequisites(ns))


def _yaml(obj: Obj) -> str:
    import yaml

    return str(yaml.safe_dump(obj, sort_keys=False))


# Fields a case must not set: they would change the answers of other cases running beside it.
_GLOBAL_FIELDS = {("PriorityClass", "globalDefault")}


def _sampled_fields(b: Builder, under: str | None = None) -> list[Field]:
    found = [f for f in schemawalk.fields(b.schema, under) if (b.kind.kind, f.dotted) not in _GLOBAL_FIELDS]
    random.Random(f"{SEED}/{b.kind.label}/{under}").shuffle(found)
    return found


def field_cases(b: Builder) -> None:
    pairs = [(f, label, value) for f in _sampled_fields(b) for label, value in schemawalk.variants(f)]
    random.Random(f"{SEED}/{b.kind.label}/values").shuffle(pairs)
    taken = 0
    seen: set[str] = set()
    for field, label, value in pairs:
        if taken >= FIELD_CASES:
            break
        detail = f"{field.dotted}={label}"
        if detail in seen:
            continue
        case_id, ns, name, obj = b.start("fields", detail)
        changed = schemawalk.place(obj, field, value)
        if changed == obj and label != "absent":
            continue
        seen.add(detail)
        taken += 1
        b.add(case_id, ns, post(b.kind.collection(ns), changed), b.prerequisites(ns), b.read_back(ns, name))


def _write_fields(b: Builder) -> list[tuple[Field, str, Any]]:
    """Fields set by every write method: the seed's own leaves first, then sampled schema fields."""
    chosen: list[tuple[Field, str, Any]] = []
    _, _, _, obj = b.start("writes", "probe")
    for field in _sampled_fields(b):
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


def _strategic_body(changed: Obj, field: Field) -> Obj:
    """The smallest strategic merge patch setting the field: list items named by their merge keys."""
    body: Any = schemawalk.get(changed, field.path)
    for depth in range(len(field.path) - 1, -1, -1):
        seg = field.path[depth]
        if not isinstance(seg, int):
            body = {seg: body}
            continue
        key = field.schemas[depth - 1].get("x-kubernetes-patch-merge-key")
        item = schemawalk.get(changed, field.path[:depth + 1])
        if key and isinstance(item, dict) and isinstance(body, dict) and key in item:
            body = {key: item[key], **body}
        body = [body]
    return dict(body)


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
                b.add(case_id, ns, put_read(item, changed), create, check)
            elif method == "merge":
                b.add(case_id, ns, _request("PATCH", item, _merge_body(changed, field), "", MERGE), create,
                      check)
            elif method == "strategic":
                patch = _request("PATCH", item, _strategic_body(changed, field), "", STRATEGIC)
                b.add(case_id, ns, patch, create, check)
            elif method == "json":
                b.add(case_id, ns, _request("PATCH", item, _json_patch(obj, field, value), "", JSON_PATCH),
                      create, check)
            elif method == "apply":
                b.add(case_id, ns, _request("PATCH", item, changed, "fieldManager=first", APPLY),
                      b.prerequisites(ns), check)
            else:
                force = "&force=true" if method.endswith("force") else ""
                first = _request("PATCH", item, obj, "fieldManager=first", APPLY)
                b.add(case_id, ns, _request("PATCH", item, changed, "fieldManager=second" + force, APPLY),
                      [*b.prerequisites(ns), first], check)


def apply_cases(b: Builder) -> None:
    kind = b.kind
    case_id, ns, name, obj = b.start("apply", "create")
    item = kind.item(ns, name)
    b.add(case_id, ns, _request("PATCH", item, obj, "fieldManager=first", APPLY), b.prerequisites(ns),
          b.read_back(ns, name))
    case_id, ns, name, obj = b.start("apply", "no-field-manager")
    b.add(case_id, ns, _request("PATCH", kind.item(ns, name), obj, "", APPLY), b.prerequisites(ns))
    case_id, ns, name, obj = b.start("apply", "twice-same")
    first = _request("PATCH", kind.item(ns, name), obj, "fieldManager=first", APPLY)
    b.add(case_id, ns, first, [*b.prerequisites(ns), first], b.read_back(ns, name))
    case_id, ns, name, obj = b.start("apply", "after-create")
    b.add(case_id, ns, _request("PATCH", kind.item(ns, name), obj, "fieldManager=first", APPLY),
          [*b.prerequisites(ns), post(kind.collection(ns), obj)], b.read_back(ns, name))
    case_id, ns, name, obj = b.start("apply", "name-mismatch")
    other = json.loads(json.dumps(obj))
    other["metadata"]["name"] = "another"
    b.add(case_id, ns, _request("PATCH", kind.item(ns, name), other, "fieldManager=first", APPLY))
    case_id, ns, name, obj = b.start("apply", "yaml")
    b.add(case_id, ns, _request("PATCH", kind.item(ns, name), _yaml(obj), "fieldManager=first", APPLY),
          b.prerequisites(ns))


def updates(b: Builder) -> None:
    """Each leaf of the seed changed on an existing object by PUT: the immutable-field rules."""
    kind = b.kind
    _, _, _, probe = b.start("updates", "probe")
    leaves = [f for f in schemawalk.fields(b.schema)
              if schemawalk.get(probe, f.path) is not ABSENT and not isinstance(schemawalk.get(probe, f.path),
                                                                                   (dict, list))]
    leaves += [f for f in _sampled_fields(b) if f not in leaves]
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
              [*b.prerequisites(ns), post(kind.collection(ns), obj)], b.read_back(ns, name))


def subresources(b: Builder) -> None:
    kind = b.kind
    if "status" in kind.subresources:
        status_fields = [f for f in _sampled_fields(b, "status") if len(f.path) > 1]
        for field in status_fields[:STATUS_CASES]:
            label, value = next(((lb, v) for lb, v in schemawalk.variants(field)
                                 if v is not ABSENT and v is not None), ("null", None))
            case_id, ns, name, obj = b.start("status", f"{field.dotted}={label}")
            create = [*b.prerequisites(ns), post(kind.collection(ns), obj)]
            changed = schemawalk.place(obj, field, value)
            patch = _request("PATCH", kind.item(ns, name) + "/status", _merge_body(changed, field), "", MERGE)
            b.add(case_id, ns, patch, create, b.read_back(ns, name))
        case_id, ns, name, obj = b.start("status", "put-spec-change")
        create = [*b.prerequisites(ns), post(kind.collection(ns), obj)]
        changed = json.loads(json.dumps(obj))
        changed.setdefault("metadata", {}).setdefault("labels", {})["changed"] = "yes"
        b.add(case_id, ns, put_read(kind.item(ns, name) + "/status", changed), create, b.read_back(ns, name))
    if "scale" in kind.subresources:
        for label, replicas in (("three", 3), ("zero", 0), ("negative", -1)):
            case_id, ns, name, obj = b.start("scale", label)
            create = [post(kind.collection(ns), obj)]
            body = {"apiVersion": "autoscaling/v1", "kind": "Scale",
                    "metadata": {"name": name, "namespace": ns}, "spec": {"replicas": replicas}}
            b.add(case_id, ns, _request("PUT", kind.item(ns, name) + "/scale", body), create,
                  b.read_back(ns, name))
        case_id, ns, name, obj = b.start("scale", "get")
        b.add(case_id, ns, get(kind.item(ns, name) + "/scale"), [post(kind.collection(ns), obj)])
        case_id, ns, name, obj = b.start("scale", "merge")
        patch = _request("PATCH", kind.item(ns, name) + "/scale", {"spec": {"replicas": 2}}, "", MERGE)
        b.add(case_id, ns, patch, [post(kind.collection(ns), obj)], b.read_back(ns, name))


def read_only(kind: Kind) -> list[Case]:
    """A kind served for reading only (ComponentStatus): its list and each named item."""
    b = Builder(kind)
    case_id, _, _, _ = b.start("read", "list")
    b.add(case_id, None, get(kind.collection(None)))
    for name in ("etcd-0", "missing"):
        case_id, _, _, _ = b.start("read", f"get-{name}")
        b.add(case_id, None, get(kind.item(None, name)))
    return b.cases


def cases_of(kind: Kind) -> list[Case]:
    if not kind.writable():
        return read_only(kind)
    b = Builder(kind)
    basics(b)
    metadata(b)
    decode(b)
    field_cases(b)
    if kind.stored():
        writes(b)
        apply_cases(b)
        updates(b)
        subresources(b)
    return b.cases


def all_cases() -> list[Case]:
    out: list[Case] = []
    for kind in served_kinds():
        out.extend(cases_of(kind))
    counts = collections.Counter(c["id"] for c in out)
    duplicates = {i for i, n in counts.items() if n > 1}
    assert not duplicates, f"case ids are not unique: {sorted(duplicates)[:5]}"
    return out


def main() -> None:
    counts = collections.Counter(c["kind"] for c in all_cases())
    for kind, count in counts.items():
        print(f"{count:5d}  {kind}")
    print(f"{sum(counts.values()):5d}  cases")


if __name__ == "__main__":
    main()
