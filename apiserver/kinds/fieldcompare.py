"""What a write changed, as structured-merge-diff's compareWalker finds it: the paths added or changed and
the paths removed going from an old object to a new one, walked along the schema's nodes (fieldnodes).
"""

from __future__ import annotations

from typing import Any

from apiserver.kinds import schemas
from apiserver.kinds.fieldnodes import Node, Path, item_element, root

# A side of a comparison where the field is not there at all (not even null).
ABSENT = object()


def compare(old: Any, new: Any, field: schemas.Schema | None, path: Path = ()) -> tuple[set[Path], set[Path]]:
    """(paths added or changed, paths removed) going from old to new."""
    changed: set[Path] = set()
    removed: set[Path] = set()
    _walk(old, new, root(field), path, changed, removed)
    return changed, removed


def compared_sides(old: Any, new: Any, node: Node | None) -> tuple[Any, Any, Any]:
    """(the value whose form both sides take, old's items, new's items) for compareWalker; the value is
    None where the two are compared as a leaf (a scalar, an atomic object or list). A null (or absent)
    side takes the form of the other (deduceAtom's wildcard)."""
    value = new if isinstance(new, (dict, list)) else old
    if isinstance(value, dict):
        if node is not None and node.atomic:
            return None, None, None
        # inside an open object: maps key by key
        return value, old if isinstance(old, dict) else {}, new if isinstance(new, dict) else {}
    if isinstance(value, list) and node is not None and node.list_kind != "atomic":  # and lists whole
        return value, old if isinstance(old, list) else [], new if isinstance(new, list) else []
    return None, None, None


def _walk(old: Any, new: Any, node: Node | None, path: Path, changed: set[Path], removed: set[Path]) -> None:
    """structured-merge-diff's compareWalker: a side that is absent adds or removes the path; a null list
    or map is an empty one, and two empty (or null) ones are compared as a leaf, so that null and empty
    stay apart; an atomic value is a leaf; a granular one is compared item by item."""
    if old is ABSENT:
        _added(new, node, path, changed)
        return
    if new is ABSENT:
        removed.add(path)
    elif old == new:
        return  # compared in C: an update leaves most of an object as it was
    value, olds, news = compared_sides(old, new, node)
    if value is None:
        if new is not ABSENT and old != new:
            changed.add(path)
        return
    if not olds and not news:
        # Both empty or null: a leaf, which keeps an empty value apart from a null one.
        if new is not ABSENT and old != new:
            changed.add(path)
        return
    if isinstance(value, dict):
        # Keys whose values are equal are passed over before their schema is looked up.
        for key in olds.keys() | news.keys():
            o = olds.get(key, ABSENT)
            n = news.get(key, ABSENT)
            if o is ABSENT or n is ABSENT or o != n:
                _walk(o, n, None if node is None else node.child(key), path + ("f:" + key,), changed, removed)
        return
    assert node is not None
    _walk_items(olds, news, node, path, changed, removed)


def _added(new: Any, node: Node | None, path: Path, changed: set[Path]) -> None:
    """_walk of a value where there was none (all of a create): the path, and every granular one below."""
    changed.add(path)
    if isinstance(new, dict):
        if not new or (node is not None and node.atomic):
            return
        for key, n in new.items():
            _added(n, None if node is None else node.child(key), path + ("f:" + key,), changed)
    elif isinstance(new, list) and new and node is not None and node.list_kind != "atomic":
        _walk_items([], new, node, path, changed, set())


def items_by_name(elements: list[Any], node: Node) -> dict[str, list[Any]]:
    """A granular list's items under the path elements that name them, each name's in their order."""
    item_node = node.child(None)
    item = None if item_node is None else item_node.schema
    found: dict[str, list[Any]] = {}
    for element in elements:
        found.setdefault(item_element(element, node.list_kind, node.keys, item), []).append(element)
    return found


def _walk_items(olds: list[Any], news: list[Any], node: Node, path: Path,
                changed: set[Path], removed: set[Path]) -> None:
    """A granular list item by item (visitListItems); an item named twice is compared as a whole."""
    item_node = node.child(None)
    old_items, new_items = items_by_name(olds, node), items_by_name(news, node)
    for name in old_items.keys() | new_items.keys():
        lefts, rights = old_items.get(name, []), new_items.get(name, [])
        here = path + (name,)
        if len(lefts) <= 1 and len(rights) <= 1:
            _walk(lefts[0] if lefts else ABSENT, rights[0] if rights else ABSENT, item_node, here, changed,
                  removed)
        elif len(lefts) >= 2 and len(rights) >= 2:
            if lefts != rights:
                changed.add(here)
        elif len(lefts) >= 2:
            if rights:
                _walk(ABSENT, rights[0], item_node, here, changed, removed)
            removed.add(here)
        else:
            if lefts:
                _walk(lefts[0], ABSENT, item_node, here, changed, removed)
            changed.add(here)
