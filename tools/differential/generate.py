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
- exclusive: fields that exclude each other set together (exclusive.py), on create and update;
- status and scale subresources;
- custom resources of a CRD each case installs (custom.py), reported as the kind `CustomResource`.
"""
from __future__ import annotations

import collections
import json
import random
from typing import Any, Iterator

from tools.differential import custom, schemawalk, writes
from tools.differential.cases import (
    FIELD_CASES,
    SEED,
    TABLE,
    Builder,
    Case,
    get,
    post,
    put_read,
    request,
    sampled_fields,
    yaml_text,
)
from tools.differential.kinds import Kind, served_kinds
from tools.differential.schemawalk import ABSENT


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
    b.add(case_id, ns, request("DELETE", kind.item(ns, name), None))
    case_id, ns, name, obj = b.start("basics", "delete")
    b.add(case_id, ns, request("DELETE", kind.item(ns, name), None), [post(kind.collection(ns), obj)],
          b.read_back(ns, name))
    if kind.namespaced:
        case_id, ns, name, obj = b.start("basics", "list")
        b.add(case_id, ns, get(kind.collection(ns)), [post(kind.collection(ns), obj)])
    for label, rv in (("stale", "1"), ("bad", "abc")):
        case_id, ns, name, obj = b.start("basics", f"update-{label}-resourceVersion")
        changed = json.loads(json.dumps(obj))
        changed["metadata"]["resourceVersion"] = rv
        b.add(case_id, ns, request("PUT", kind.item(ns, name), changed), [post(kind.collection(ns), obj)])
    case_id, ns, name, obj = b.start("basics", "update-unconditional")
    b.add(case_id, ns, request("PUT", kind.item(ns, name), obj), [post(kind.collection(ns), obj)],
          b.read_back(ns, name))
    case_id, ns, name, obj = b.start("basics", "update-unchanged")
    b.add(case_id, ns, put_read(kind.item(ns, name), obj),
          [post(kind.collection(ns), obj), *b.settled(ns, name)],
          b.read_back(ns, name))
    case_id, ns, name, obj = b.start("basics", "update-missing")
    b.add(case_id, ns, request("PUT", kind.item(ns, name), obj), [], b.read_back(ns, name))
    case_id, ns, name, obj = b.start("basics", "update-name-mismatch")
    changed = json.loads(json.dumps(obj))
    changed["metadata"]["name"] = "other"
    b.add(case_id, ns, request("PUT", kind.item(ns, name), changed), [post(kind.collection(ns), obj)])


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
    b.add(case_id, ns, post(kind.collection(ns), yaml_text(obj), content_type="application/yaml"),
          b.prerequisites(ns))


# Fields a case must not set: they would change the answers of other cases running beside it.
def field_cases(b: Builder) -> None:
    pairs = [(f, label, value) for f in sampled_fields(b) for label, value in schemawalk.variants(f)]
    random.Random(f"{b.seed}/{b.kind.label}/values").shuffle(pairs)
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


def read_only(kind: Kind) -> list[Case]:
    """A kind served for reading only (ComponentStatus): its list and each named item."""
    b = Builder(kind)
    case_id, _, _, _ = b.start("read", "list")
    b.add(case_id, None, get(kind.collection(None)))
    for name in ("etcd-0", "missing"):
        case_id, _, _, _ = b.start("read", f"get-{name}")
        b.add(case_id, None, get(kind.item(None, name)))
    return b.cases


def cases_of(kind: Kind, seed: int = SEED) -> list[Case]:
    if not kind.writable():
        return read_only(kind)
    b = Builder(kind, seed)
    basics(b)
    metadata(b)
    decode(b)
    field_cases(b)
    if kind.stored():
        writes.exclusive_cases(b)
        writes.writes(b)
        writes.apply_cases(b)
        writes.updates(b)
        writes.subresources(b)
    return b.cases


def all_cases(seed: int = SEED) -> list[Case]:
    out: list[Case] = []
    for kind in served_kinds():
        out.extend(cases_of(kind, seed))
    out.extend(custom.custom_cases())
    counts = collections.Counter(c["id"] for c in out)
    duplicates = {i for i, n in counts.items() if n > 1}
    assert not duplicates, f"case ids are not unique: {sorted(duplicates)[:5]}"
    return out


def seeded_cases(seed: int) -> list[Case]:
    """What another seed adds to the main seed's cases: those it generates with other content under the
    same id (other fields and values sampled), and those of ids the main seed has not."""
    main = {case["id"]: case for case in all_cases()}
    return [case for case in all_cases(seed) if main.get(case["id"]) != case]


def main() -> None:
    counts = collections.Counter(c["kind"] for c in all_cases())
    for kind, count in counts.items():
        print(f"{count:5d}  {kind}")
    print(f"{sum(counts.values()):5d}  cases")


if __name__ == "__main__":
    main()
