"""The column JSONPath dialect: upstream's observable answers, and the fast walk agreeing with jsonpath-ng."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from columns.jsonpath import MISSING, InvalidPath, KeyWalk, NgPath, compile_path, parse_steps

# Once, on the embedded store: printing is done on the objects read, whichever store they came from.
pytestmark = pytest.mark.store_once

OBJ: dict[str, Any] = {
    "metadata": {"name": "w", "labels": {"app.kubernetes.io/name": "web"},
                 "annotations": {"example.com/owner": "team"}},
    "spec": {"size": "large", "replicas": 3, "items": [{"name": "bolt", "qty": 10}, {"name": "nut", "qty": 20}],
             "empty": [], "nothing": None, "text": "abc"},
    "status": {"conditions": [{"type": "Progressing", "status": "False"}, {"type": "Ready", "status": "True"},
                              {"type": "Ready", "status": "Unknown"}]},
}

# (path, first match) — facts about kube-apiserver's column evaluation, restated for our dialect.
CASES = [
    (".spec.size", "large"),
    ("$.spec.replicas", 3),                                   # so is a leading $
    (".spec.items[0].name", "bolt"),
    (".spec.items[-1].name", "nut"),                          # negative indexes count from the end
    (".spec.items[2].name", MISSING),                         # out of range: an empty cell, not an error
    (".spec.items[-3].name", MISSING),
    (".spec.items[*].name", "bolt"),                          # several matches: only the first counts
    (".spec.items[1:].qty", 20),
    (".spec.items", [{"name": "bolt", "qty": 10}, {"name": "nut", "qty": 20}]),
    (".spec.empty[0]", MISSING),
    (".spec.nothing", None),
    (".spec.missing.deeper", MISSING),
    (".spec.size.deeper", MISSING),                           # a key into a string
    (".spec.text[0]", MISSING),                               # an index into a string
    (".spec[0]", MISSING),                                    # an index into a map
    (".spec.items.name", MISSING),                            # a key into an array
    (".metadata.labels['app.kubernetes.io/name']", "web"),
    ('.metadata.labels["app.kubernetes.io/name"]', "web"),
    (".metadata.annotations.example\\.com/owner", "team"),    # an escaped dot stays in the key
    ('.status.conditions[?(@.type=="Ready")].status', "True"),
    ('.status.conditions[?(@.type=="Missing")].status', MISSING),
    ('.status.conditions[?(@.status!="False")].type', "Ready"),
    ("..qty", 10),
    (".spec.items[?(@.qty > 15)].name", "nut"),
]


@pytest.mark.parametrize("path,expected", CASES)
def test_first_match(path: str, expected: Any) -> None:
    assert compile_path(path).first(OBJ) == expected


@pytest.mark.parametrize("path,kind", [
    (".spec.size", KeyWalk), (".spec.items[0].name", KeyWalk), (".metadata.labels['a.b/c']", KeyWalk),
    (".spec.items[*].name", NgPath), ('.status.conditions[?(@.type=="Ready")].status', NgPath),
    ("..qty", NgPath), (".spec.items[0:1]", NgPath),
])
def test_simple_paths_compile_to_a_walk(path: str, kind: type) -> None:
    assert isinstance(compile_path(path), kind)


@pytest.mark.parametrize("path", [".spec.items[", ".spec.items[abc]", ".spec..", "spec size", ".spec.[0]x"])
def test_paths_outside_the_dialect_are_refused(path: str) -> None:
    with pytest.raises(InvalidPath):
        compile_path(path)


# -- the walk and jsonpath-ng agree on every path both can evaluate -------------------------------

KEYS = st.sampled_from(["a", "b", "spec", "x.y", "k-1", "it's", 'q"t'])
SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=3)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                      max_leaves=12)
STEPS = st.lists(KEYS.map(lambda k: ("key", k)) | st.integers(-3, 3).map(lambda i: ("index", i)), min_size=1,
                 max_size=3)


def _expression(steps: list[tuple[str, Any]]) -> str:
    parts = []
    for kind, value in steps:
        if kind == "index":
            parts.append(f"[{value}]")
        elif "'" in value:
            parts.append(f'["{value}"]')
        else:
            parts.append(f"['{value}']")
    return "".join(parts)


@cache
def _reference(expression: str) -> NgPath:
    return NgPath(parse_steps(expression))  # jsonpath-ng compiles slowly; examples share paths


@settings(max_examples=200, deadline=None)
@given(steps=STEPS, doc=VALUES)
def test_walk_agrees_with_jsonpath_ng(steps: list[tuple[str, Any]], doc: Any) -> None:
    expression = _expression(steps)
    walk = compile_path(expression)
    assert isinstance(walk, KeyWalk)
    assert walk.first(doc) == _reference(expression).first(doc)
