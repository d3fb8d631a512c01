"""The write path's fast walks, held equal to the plain ones they replaced, on many objects.

Field validation judges types and drops unknown fields in one walk (fieldvalidation._typed_and_known)
where it took two; managed fields compare two objects through schema nodes compiled once
(fieldcompare.compare) and build FieldsV1 from the paths sorted once (to_fields_v1); the check for
objects the field manager cannot type stops where no schema is (structuredmerge.untypable); a create is not
shaped a third time when nothing changed it since it was shaped (objects.reshaped), and managed fields
read shaped views instead of shaped copies (shaping.shaped_view). The plain walks
are kept here as the reference. The objects: the schema corpus (fixtures, manifests, the goldens'
objects, all again with their keys reversed), every body the differential cases send, and each of
them again with wrong types, nulls and unknown fields put in at seeded places.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
import random
from collections.abc import Iterable
from typing import Any

import orjson
import pytest
import schema_corpus

from apiserver.kinds import (
    fieldcompare,
    fieldmanager,
    fieldnodes,
    fieldsv1,
    fieldvalidation,
    godecode,
    managedfields,
    objects,
    schemas,
    shaping,
    structuredmerge,
    zerovalues,
)
from apiserver.kinds.fieldnodes import Path

pytestmark = pytest.mark.store_once

_ANSWERS = os.path.join(os.path.dirname(__file__), "differential", "answers.jsonl.gz")


def _bodies(value: Any) -> Iterable[dict[str, Any]]:
    """The objects of built-in kinds a case sends, wherever they sit in it."""
    if isinstance(value, dict):
        if isinstance(value.get("kind"), str) and isinstance(value.get("apiVersion"), str) \
                and schema_corpus.ref(value) is not None:
            yield value
        for child in value.values():
            yield from _bodies(child)
    elif isinstance(value, list):
        for child in value:
            yield from _bodies(child)


def _differential_objects() -> list[dict[str, Any]]:
    found: dict[bytes, dict[str, Any]] = {}
    with gzip.open(_ANSWERS, "rt") as f:
        for line in f:
            case = json.loads(line).get("case")
            for body in _bodies(case or {}):
                found.setdefault(orjson.dumps(body), body)
    return list(found.values())


_WRONG = (None, None, None, 7, 2.5, "text", True, [], {}, ["a"], {"k": "v"}, [None], 0, "", False)


def _mutated(obj: dict[str, Any], seed: int) -> dict[str, Any]:
    return schema_corpus.mutated(obj, seed, _WRONG, replaced=4, unknown=2)


_CORPUS = [obj for obj in schema_corpus.objects() if schema_corpus.ref(obj) is not None] + _differential_objects()
_MUTATED = [_mutated(obj, seed) for seed in (1, 2) for obj in _CORPUS]


def test_the_corpus_is_large() -> None:
    assert len(_CORPUS) > 3000, len(_CORPUS)


# -- field validation ------------------------------------------------------------------------------

@pytest.mark.parametrize("part", range(8))
def test_one_walk_judges_and_drops_as_two(part: int) -> None:
    mistyped = dropped = 0
    for obj in (_CORPUS + _MUTATED)[part::8]:
        ref = schema_corpus.ref(obj)
        assert ref is not None
        two, one = copy.deepcopy(obj), copy.deepcopy(obj)
        error = fieldvalidation.type_error(two, ref)
        unknown = fieldvalidation.unknown_fields(two, schemas.resolve(ref), drop=True) if error is None else None
        fused_error, fused_unknown = fieldvalidation._typed_and_known(one, ref)
        assert fused_error == error, obj
        if error is None:
            assert fused_unknown == unknown, obj
            assert orjson.dumps(one) == orjson.dumps(two), obj  # the same drops, in the same key order
            dropped += orjson.dumps(two) != orjson.dumps(obj)
        mistyped += error is not None
    assert mistyped > 50 and dropped > 50, (mistyped, dropped)


# -- managed fields --------------------------------------------------------------------------------

_ABSENT = object()


def _reference_walk(old: Any, new: Any, field: schemas.Schema | None, path: Path, changed: set[Path],
                    removed: set[Path]) -> None:
    """fieldcompare's compare as it was written before its schema nodes were compiled."""
    if old is _ABSENT:
        changed.add(path)
    elif new is _ABSENT:
        removed.add(path)
    elif old == new:
        return
    value = new if isinstance(new, (dict, list)) else old
    if not isinstance(value, (dict, list)) or not fieldnodes.granular(value, field):
        if old is not _ABSENT and new is not _ABSENT and old != new:
            changed.add(path)
        return
    if isinstance(value, list):
        olds = old if isinstance(old, list) else []
        news = new if isinstance(new, list) else []
    else:
        olds = old if isinstance(old, dict) else {}
        news = new if isinstance(new, dict) else {}
    if not olds and not news:
        if old is not _ABSENT and new is not _ABSENT and old != new:
            changed.add(path)
        return
    if isinstance(value, dict):
        for key in olds.keys() | news.keys():
            o = olds.get(key, _ABSENT)
            n = news.get(key, _ABSENT)
            if o is _ABSENT or n is _ABSENT or o != n:
                _reference_walk(o, n, schemas.child_schema(field, key), path + ("f:" + key,), changed, removed)
        return
    kind, keys = fieldnodes.list_keys(field)
    item = schemas.child_schema(field, None)
    old_items: dict[str, list[Any]] = {}
    for element in olds:
        old_items.setdefault(fieldnodes.item_element(element, kind, keys, item), []).append(element)
    new_items: dict[str, list[Any]] = {}
    for element in news:
        new_items.setdefault(fieldnodes.item_element(element, kind, keys, item), []).append(element)
    for name in old_items.keys() | new_items.keys():
        lefts, rights = old_items.get(name, []), new_items.get(name, [])
        here = path + (name,)
        if len(lefts) <= 1 and len(rights) <= 1:
            _reference_walk(lefts[0] if lefts else _ABSENT, rights[0] if rights else _ABSENT, item, here, changed,
                            removed)
        elif len(lefts) >= 2 and len(rights) >= 2:
            if lefts != rights:
                changed.add(here)
        elif len(lefts) >= 2:
            if rights:
                _reference_walk(_ABSENT, rights[0], item, here, changed, removed)
            removed.add(here)
        else:
            if lefts:
                _reference_walk(lefts[0], _ABSENT, item, here, changed, removed)
            changed.add(here)


def _reference_compare(old: Any, new: Any, field: schemas.Schema | None) -> tuple[set[Path], set[Path]]:
    changed: set[Path] = set()
    removed: set[Path] = set()
    _reference_walk(old, new, field, (), changed, removed)
    return changed, removed


def _reference_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """to_fields_v1 as it was: the tree of the paths, then every level sorted and marked (_tidy)."""
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        for element in path:
            node = node.setdefault(element, {})
        if path:
            node.setdefault(".", {})
    return fieldsv1._tidy(root)


def _ordered(fields: dict[str, Any]) -> list[Any]:
    return [(k, _ordered(v)) for k, v in fields.items()]


def _stored(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as a write compares it: Go's shape, its empty lists and maps as sent."""
    return shaping.shaped_object(copy.deepcopy(obj), [])


@pytest.mark.parametrize("part", range(8))
def test_compiled_comparison_finds_the_plain_paths(part: int) -> None:
    compared = 0
    for index, obj in enumerate(_CORPUS[part::8]):
        ref = schema_corpus.ref(obj)
        new = _stored(obj)
        other = _stored(_mutated(obj, index))
        for old, now in ((zerovalues.zero(ref), new), (zerovalues.zero(ref), other), (new, other),
                         (other, new)):
            fast = fieldcompare.compare(old, now, ref)
            assert fast == _reference_compare(old, now, ref), obj
            for paths in fast:
                assert _ordered(fieldsv1.to_fields_v1(paths)) == _ordered(_reference_fields_v1(paths)), obj
            compared += 1
    assert compared > 1000


_ELEMENTS = ["f:a", "f:b", "f:data", "k:{\"name\":\"x\"}", "v:1", "v:\"a\"", "f:metadata", "i:0", ".", "f:"]


@pytest.mark.parametrize("seed", range(200))
def test_fields_v1_from_sorted_paths_is_the_tidied_tree(seed: int) -> None:
    rng = random.Random(seed)
    elements = _ELEMENTS if seed % 2 else _ELEMENTS[:7]  # half of them as a server writes them
    paths = {tuple(rng.choice(elements) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 15))}
    assert _ordered(fieldsv1.to_fields_v1(paths)) == _ordered(_reference_fields_v1(paths))
    assert _ordered(fieldsv1.to_fields_v1(iter(sorted(paths)))) == _ordered(_reference_fields_v1(paths))


def _reference_untypable(value: Any, field: schemas.Schema | None) -> bool:
    """structuredmerge.untypable as it was, descending below nodes without a schema too."""
    if isinstance(value, dict):
        return any(isinstance(child, (dict, list)) and _reference_untypable(child, schemas.child_schema(field, key))
                   for key, child in value.items())
    if not isinstance(value, list) or field is None:
        return False
    kind, keys = structuredmerge._list_kind(field)
    item_schema = schemas.child_schema(field, None)
    for item in value:
        if kind == "map" and structuredmerge._unkeyed(item, keys, item_schema):
            return True
        if isinstance(item, (dict, list)) and _reference_untypable(item, item_schema):
            return True
    return False


def test_untypable_objects_are_found_without_descending_where_no_schema_is() -> None:
    untypable = 0
    for obj in _CORPUS + _MUTATED:
        ref = schema_corpus.ref(obj)
        assert ref is not None
        found = structuredmerge.untypable(obj, ref)
        assert found == _reference_untypable(obj, ref), obj
        untypable += found
    assert untypable > 20, untypable


# -- shaping ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("part", range(4))
def test_a_shaped_object_shapes_to_itself(part: int) -> None:
    """What lets a create skip its last shaping when nothing changed the object after the first."""
    shaped = 0
    for obj in (_CORPUS + _MUTATED)[part::4]:
        if not isinstance(obj.get("metadata") or {}, dict):
            continue  # refused before any shaping (objects.check_identity)
        shaped += 1
        once = objects.reshaped(copy.deepcopy(obj))
        text = orjson.dumps(once)
        assert orjson.dumps(objects.reshaped(copy.deepcopy(once))) == text, obj
        assert objects.reshaped(once, text) is once
        assert orjson.dumps(once) == text
    assert shaped > 5000


# -- remembered decoding errors --------------------------------------------------------------------

_TEXTS = ["2026-12-02T07:20:00Z", "2026-13-02T07:20:00Z", "2026-12-02T07:20:00.123456Z", "2026-12-02 07:20:00",
          "2026-12-02T07:20:00+01:00", "1.5Gi", "1536Mi", "1.5.5", "", "aGVsbG8=", "aGVsbG8", "x\n=", "12e3",
          "٢٠٢٦-12-02T07:20:00Z", "2026-12-02T07:20:00.1234567Z"]
_JUDGED = [("io.k8s.apimachinery.pkg.apis.meta.v1.Time", None), ("io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
           None), ("io.k8s.apimachinery.pkg.api.resource.Quantity", None), (None, "byte"), (None, "int32")]


@pytest.mark.parametrize("definition,fmt", _JUDGED)
def test_a_remembered_text_error_is_the_one_decoding_gives(definition: str | None, fmt: str | None) -> None:
    schema: schemas.Schema = {"type": "string"}
    if definition is not None:
        schema = {"$ref": "#/$defs/" + definition}
    elif fmt is not None:
        schema = {"type": "string", "format": fmt}
    node = fieldvalidation._compiled(schema)
    assert node is not None and node.judged
    for unstructured in (False, True):
        for _ in range(2):  # computed, then remembered
            for text in _TEXTS:
                assert fieldvalidation._text_error(text, node, unstructured) == godecode.value_error(
                    text, definition, fmt, "v1.Struct", "Struct.field.path", unstructured), text


@pytest.mark.parametrize("seed", range(100))
def test_paths_below_prefixes_are_left_out_as_by_comparing_each(seed: int) -> None:
    rng = random.Random(seed)
    elements = _ELEMENTS[:7]
    paths = {tuple(rng.choice(elements) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 30))}
    prefixes = tuple({tuple(rng.choice(elements) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3))})
    expected = {p for p in paths if not any(p[:len(i)] == i for i in prefixes)}
    assert managedfields.without_prefixes(paths, prefixes) == expected


# -- a create's managed fields ---------------------------------------------------------------------

_IGNORED: list[tuple[Path, ...]] = [(), (("f:status",),), (("f:spec",), ("f:metadata", "f:labels")),
                                    (("f:metadata",),), (("f:spec", "f:containers"), ("f:data",))]


@pytest.mark.parametrize("part", range(8))
def test_a_create_owns_in_one_walk_what_the_path_sets_give(part: int) -> None:
    request = fieldmanager.Request("creator", "v1", None, "2026-01-01T00:00:00Z")
    owned = 0
    for index, obj in enumerate((_CORPUS + _MUTATED)[part::8]):
        ref = schema_corpus.ref(obj)
        assert ref is not None
        new = _stored(obj)
        ignored = _IGNORED[index % len(_IGNORED)]
        fast = fieldmanager.record_update([], None, new, ref, request, ignored)
        plain = managedfields.update([], None, new, ref, request.manager, request.api_version, None, request.now,
                                     ignored)
        assert orjson.dumps(fast) == orjson.dumps(plain), obj
        owned += bool(fast)
    assert owned > 2000


def test_no_zero_value_holds_a_list_item() -> None:
    """What lets a create's walk take every list item as added (createdfields._items)."""
    def items(value: Any) -> bool:
        if isinstance(value, dict):
            return any(items(v) for v in value.values())
        return isinstance(value, list) and bool(value)
    zeros = [zerovalues.zero({"$ref": "#/$defs/" + name}) for name in schemas.definitions()]
    assert len(zeros) > 500 and not any(items(z) for z in zeros)


@pytest.mark.parametrize("part", range(4))
def test_a_shaped_view_is_the_shaped_copy_and_leaves_the_object_be(part: int) -> None:
    """What lets managed fields compare shaped views of the old and new object instead of shaped copies."""
    for obj in (_CORPUS + _MUTATED)[part::4]:
        before = orjson.dumps(obj)
        for emptied in (None, []):
            copied = shaping.shaped_object(copy.deepcopy(obj), None if emptied is None else [])
            assert orjson.dumps(shaping.shaped_view(obj, emptied)) == orjson.dumps(copied), obj
            assert orjson.dumps(obj) == before, obj
