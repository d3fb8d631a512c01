"""cel-go's sortBy sorts with Go's sort.Slice, which is not stable: entries whose keys tie come out in
the order Go's pattern-defeating quicksort leaves them. apiserver/cel/gosort.py ports it whole; its
answers are held to Go's own, recorded by tools/go_sort_slice (120 key lists with many ties)."""

from __future__ import annotations

import json
import os

import pytest
from cel_expr_python import cel

from apiserver.cel import gosort
from apiserver.cel.environment import compile_checked

pytestmark = pytest.mark.store_once

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "go_sort_slice.json")
with open(FIXTURE) as f:
    RECORDED: list[tuple[list[int], list[int]]] = json.load(f)


@pytest.mark.parametrize("index", range(len(RECORDED)))
def test_sort_slice_leaves_ties_where_go_leaves_them(index: int) -> None:
    keys, order = RECORDED[index]
    assert gosort.sorted_slice(list(range(len(keys))), lambda i, j: keys[i] < keys[j]) == (order or [])


def test_sort_by_orders_tied_entries_as_cel_go_does() -> None:
    """Past 12 entries Go's sort is no insertion sort: a stable sort would keep the tied entries in order."""
    keys, order = next((k, o) for k, o in RECORDED if o != sorted(range(len(k)), key=k.__getitem__))
    entries = [{"k": key, "n": index} for index, key in enumerate(keys)]
    outcome = compile_checked("self.sortBy(e, e.k).map(e, e.n)", {"self": cel.Type.DYN}).evaluate({"self": entries})
    assert outcome.error is None
    assert outcome.value == order
