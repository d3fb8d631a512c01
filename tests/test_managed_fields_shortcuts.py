"""The managed-fields shortcuts of the write path, held equal to the set arithmetic they stand for.

An update that changes only what its manager owns keeps its entry as it is, and another manager's
entry a write leaves alone stays too: both are found by looking paths up in the FieldsV1 tree
(`_owns`, `_node_at`) instead of expanding it into its paths (`from_fields_v1`). Checked here on
seeded random path sets against the plain arithmetic, and `canonical` against a round trip.
"""

from __future__ import annotations

import random

import pytest

from apiserver.kinds import fieldsv1, managedfields
from apiserver.kinds.fieldnodes import Path

pytestmark = pytest.mark.store_once

_ELEMENTS = ["f:a", "f:b", "f:data", "k:{\"name\":\"x\"}", "v:1", "f:metadata", "f:labels", "i:0"]


def _paths(rng: random.Random, count: int) -> set[Path]:
    return {tuple(rng.choice(_ELEMENTS) for _ in range(rng.randint(1, 4))) for _ in range(count)}


@pytest.mark.parametrize("seed", range(300))
def test_path_lookups_answer_as_the_expanded_set(seed: int) -> None:
    rng = random.Random(seed)
    owned = _paths(rng, rng.randint(1, 12))
    fields = fieldsv1.to_fields_v1(owned)
    expanded = fieldsv1.from_fields_v1(fields)
    for path in _paths(rng, 20) | owned:
        assert fieldsv1.owns(fields, path) == (path in expanded), path
        below = any(p[:len(path)] == path for p in expanded)
        assert (fieldsv1.node_at(fields, path) is not None) == below, path


@pytest.mark.parametrize("seed", range(300))
def test_a_left_alone_entry_is_what_releasing_it_gives(seed: int) -> None:
    rng = random.Random(seed)
    owned = _paths(rng, rng.randint(1, 10))
    changed, removed = _paths(rng, rng.randint(0, 3)), _paths(rng, rng.randint(0, 2))
    removed -= changed
    entry = {"manager": "m", "operation": "Update", "fieldsV1": fieldsv1.to_fields_v1(owned)}
    kept = {p for p in owned - changed if not any(p[:i] in removed for i in range(len(p) + 1))}
    expected = [] if not kept else [entry if kept == owned else
                                    {**entry, "fieldsV1": fieldsv1.to_fields_v1(kept)}]
    assert managedfields._released(entry, changed, removed) == expected


def _ordered(fields: dict) -> list:  # type: ignore[type-arg]
    return [(k, _ordered(v)) for k, v in fields.items()]


@pytest.mark.parametrize("seed", range(200))
def test_canonical_fields_are_what_a_round_trip_leaves_as_they_are(seed: int) -> None:
    rng = random.Random(seed)
    plain = rng.random() < 0.5  # only the f:, k: and v: a server writes: found canonical
    fields = fieldsv1.to_fields_v1({p for p in _paths(rng, rng.randint(1, 10))
                                         if not plain or all(e[0] in "fkv" for e in p)} or {("f:a",)})
    assert fieldsv1.canonical(fields) or not plain
    for candidate in (fields, dict(reversed(list(fields.items()))), {**fields, "f:zz": {".": {}}}):
        round_trip = fieldsv1.to_fields_v1(fieldsv1.from_fields_v1(candidate))
        if fieldsv1.canonical(candidate):
            assert _ordered(candidate) == _ordered(round_trip)
