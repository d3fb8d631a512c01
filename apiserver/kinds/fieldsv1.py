"""FieldsV1, the form managedFields entries hold their fields in: a tree of path elements, "." marking a
node that is itself owned. Sets of paths to and from it, in upstream's order, and questions answered on
the tree without expanding it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from apiserver.kinds.fieldnodes import Path


def to_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """The FieldsV1 tree of a set of paths, in the order _tidy gives.

    Built from the paths sorted once: each level's keys then arrive in order, and a path comes before
    the paths below it, so its mark goes first. Elements other than f:, k: and v: sort otherwise (_tidy)."""
    ordered = sorted(paths)
    root: dict[str, Any] = {}
    marked: list[dict[str, Any]] = []
    for path in ordered:
        node = root
        for element in path:
            child = node.get(element)
            if child is None:
                if element[:1] not in _PLAIN_ORDER:
                    return _tidy(_tree(ordered))
                child = node[element] = {}
            node = child
        if path and not node:
            node["."] = {}
            marked.append(node)
    for node in marked:
        if len(node) == 1:
            node.clear()  # a leaf needs no mark
    return root


def _tree(paths: Iterable[Path]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        for element in path:
            node = node.setdefault(element, {})
        if path:
            node.setdefault(".", {})
    return root


_PLAIN_ORDER = frozenset("fkv")


def _tidy(node: dict[str, Any]) -> dict[str, Any]:
    # "." marks a node that is itself owned; a leaf needs no mark. Fields, then keys, then values:
    # for the f:, k: and v: every writer here names, the plain order of the strings.
    children = {k: _tidy(v) for k, v in node.items() if k != "."}
    order = sorted(children)
    if not all(k[:1] in _PLAIN_ORDER for k in order):
        order.sort(key=lambda k: ({"f": 0, "k": 1, "v": 2}.get(k[0], 3), k))
    out: dict[str, Any] = {".": {}} if "." in node and children else {}
    out.update((k, children[k]) for k in order)
    return out


def from_fields_v1(fields: dict[str, Any], path: Path = ()) -> set[Path]:
    found: set[Path] = set()
    for key, child in fields.items():
        if key == ".":
            found.add(path)
            continue
        if not child:
            found.add(path + (key,))
        else:
            found |= from_fields_v1(child, path + (key,))
    return found


def node_at(fields: dict[str, Any], path: Path) -> dict[str, Any] | None:
    node: Any = fields
    for element in path:
        node = node.get(element) if isinstance(node, dict) else None
        if node is None:
            return None
    return node if isinstance(node, dict) else None


def owns(fields: dict[str, Any], path: Path) -> bool:
    """path in from_fields_v1(fields), without building the set."""
    node = node_at(fields, path)
    return node is not None and ("." in node or (not node and bool(path)))


_CANONICAL: dict[bytes, bool] = {}
_CANONICAL_KEPT = 4096


def canonical(fields: dict[str, Any]) -> bool:
    """Whether these fields are already as to_fields_v1 writes them (to_fields_v1(from_fields_v1(f)) == f).

    Remembered by their JSON: a manager's fields are mostly the ones it had on its last write."""
    try:
        text = orjson.dumps(fields)
    except TypeError:
        return False
    found = _CANONICAL.get(text)
    if found is None:
        if len(_CANONICAL) >= _CANONICAL_KEPT:
            _CANONICAL.clear()
        found = _CANONICAL[text] = _canonical(fields, True)
    return found


def _canonical(fields: dict[str, Any], root: bool) -> bool:
    keys = list(fields)
    marked = bool(keys) and keys[0] == "."
    children = keys[1:] if marked else keys
    if marked and (root or not children or fields["."] != {}):
        return False
    if any(not isinstance(fields[k], dict) or k == "." or not _canonical(fields[k], False) for k in children):
        return False
    return children == sorted(children) and all(k[:1] in _PLAIN_ORDER for k in children)
