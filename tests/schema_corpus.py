"""Objects of every built-in kind the suite has, to hold a compiled schema walk equal to its plain one.

The fixtures and manifests as clients send them, kube-apiserver 1.36.2's own answers for them (the
goldens), and all of them again with every object's keys reversed.
"""

from __future__ import annotations

import copy
import glob
import json
import os
import random
from typing import Any

import yaml
from golden_objects import fixture_objects
from support import GOLDEN

from apiserver.kinds import schemas


def _reversed_keys(value: Any) -> Any:
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    if isinstance(value, dict):
        return {k: _reversed_keys(value[k]) for k in reversed(list(value))}
    return value


def _documents(pattern: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted(glob.glob(pattern, recursive=True)):
        with open(path) as f:
            found += [doc for doc in yaml.safe_load_all(f) if isinstance(doc, dict) and "kind" in doc]
    return found


def objects() -> list[dict[str, Any]]:
    found = [doc for doc in fixture_objects() if isinstance(doc, dict)]
    found += _documents(os.path.join(GOLDEN, "surface", "fixtures", "**", "*.yaml"))
    found += _documents(os.path.join(os.path.dirname(__file__), "manifests", "**", "*.yaml"))
    answers = os.path.join(GOLDEN, "kube-1.36.2", "table", "*.includeObject-Object.json")
    for path in sorted(glob.glob(answers)):
        with open(path) as f:
            rows = json.load(f).get("rows") or ()
        found += [row["object"] for row in rows if isinstance(row.get("object"), dict)]
    return found + [_reversed_keys(obj) for obj in found]


def ref(obj: dict[str, Any]) -> schemas.Schema | None:
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return schemas.kind_ref(group, version, str(obj.get("kind") or ""))




def _places(value: Any, found: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in the value, depth first."""
    if isinstance(value, dict):
        for key in list(value):
            found.append((value, key))
            _places(value[key], found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.append((value, index))
            _places(item, found)
    return found


def mutated(obj: dict[str, Any], seed: int, wrong: tuple[Any, ...], replaced: int, unknown: int) -> dict[str, Any]:
    """A copy of obj with `replaced` values swapped for one of `wrong` and `unknown` objects given a field
    nobody declared, at places the seed picks (apiVersion and kind left as they are)."""
    rng = random.Random(seed)
    out = copy.deepcopy(obj)
    places = _places(out, [])
    for container, key in rng.sample(places, min(replaced, len(places))):
        if not (container is out and key in ("apiVersion", "kind")):
            container[key] = copy.deepcopy(rng.choice(wrong))
    dicts = [c for c, _ in _places(out, []) if isinstance(c, dict)] + [out]
    for target in rng.sample(dicts, min(unknown, len(dicts))):
        target[f"unknownField{rng.randrange(100)}"] = "x"
    return out
