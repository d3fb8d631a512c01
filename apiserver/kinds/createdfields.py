"""What a create owns, as FieldsV1, in one walk over the created object.

A create's Update entry owns every path where the object differs from its kind's zero value, less the
paths the server owns and those below the prefixes the write cannot set (managedfields.update with no
prior entries). Found as that comparison's set of paths, then sorted and built into a tree, a create
walked its object and then its paths twice more; here the same comparison (fieldcompare._walk,
branch for branch, but for a list's items: a zero value holds none) answers each node's FieldsV1
subtree directly, its keys sorted as to_fields_v1 sorts them: every element a create names starts
with f:, k: or v:, whose plain order is FieldsV1's.
"""

from __future__ import annotations

from typing import Any

from apiserver.kinds import fieldcompare, fieldnodes, managedfields, schemas, zerovalues
from apiserver.kinds.fieldcompare import ABSENT
from apiserver.kinds.fieldnodes import Node, Path

Fields = dict[str, Any]


class _Exclusions:
    """Below one path: the children a create does not own themselves (`member`, the server's fields),
    those it owns nothing at or below (`subtree`, what the write cannot set), and the exclusions further down."""

    __slots__ = ("member", "subtree", "below")

    def __init__(self) -> None:
        self.member: set[str] = set()
        self.subtree: set[str] = set()
        self.below: dict[str, _Exclusions] = {}


_EXCLUSIONS: dict[tuple[Path, ...], _Exclusions] = {}


def _exclusions(ignored: tuple[Path, ...]) -> _Exclusions:
    found = _EXCLUSIONS.get(ignored)
    if found is None:
        found = _EXCLUSIONS[ignored] = _Exclusions()
        for paths, kind in ((managedfields.SERVER_OWNED, "member"), (ignored, "subtree")):
            for path in paths:
                node = found
                for element in path[:-1]:
                    node = node.below.setdefault(element, _Exclusions())
                getattr(node, kind).add(path[-1])
    return found


def created_fields(new: dict[str, Any], schema: schemas.Schema,
                   ignored: tuple[Path, ...]) -> tuple[bool, Fields]:
    """(whether the object itself counts as set, the FieldsV1 of what it set), going from the kind's
    zero value to `new`: to_fields_v1 of managedfields.update's owned paths on create."""
    if () in ignored:
        return False, {}
    member, fields = _changes(zerovalues.zero(schema), new, fieldnodes.root(schema), _exclusions(ignored))
    return member, fields


def _put(children: Fields, name: str, member: bool, below: Fields) -> None:
    """A child's subtree as to_fields_v1 writes it: marked first when owned and holding more."""
    if below:
        children[name] = {".": {}, **below} if member else below
    elif member:
        children[name] = {}


def _changes(old: Any, new: Any, node: Node | None, excluded: _Exclusions | None) -> tuple[bool, Fields]:
    """fieldcompare._walk of one node: (its path changed, the subtree of changed paths below it)."""
    if old is ABSENT:
        return True, _added(new, node, excluded)
    if new is ABSENT or old == new:
        return False, {}  # a removal changes nothing a create owns
    value, olds, news = fieldcompare.compared_sides(old, new, node)
    if value is None:
        return True, {}  # old != new: a changed leaf
    if not olds and not news:
        return True, {}
    if isinstance(value, list):
        assert node is not None and not olds, "a zero value holds no list items"
        return False, _items(news, node, excluded)
    children: Fields = {}
    for key in sorted(olds.keys() | news.keys()):
        o = olds.get(key, ABSENT)
        n = news.get(key, ABSENT)
        if o is ABSENT or n is ABSENT or o != n:
            _child(children, "f:" + key, o, n, None if node is None else node.child(key), excluded)
    return False, children


def _child(children: Fields, name: str, old: Any, new: Any, node: Node | None,
           excluded: _Exclusions | None) -> None:
    if excluded is None:
        member, below = _changes(old, new, node, None)
        _put(children, name, member, below)
    elif name not in excluded.subtree:
        member, below = _changes(old, new, node, excluded.below.get(name))
        _put(children, name, member and name not in excluded.member, below)


def _added(new: Any, node: Node | None, excluded: _Exclusions | None) -> Fields:
    """fieldcompare._added: the subtree below a value where there was none."""
    if isinstance(new, dict):
        if not new or (node is not None and node.atomic):
            return {}
        children: Fields = {}
        for key in sorted(new):
            value = new[key]
            if excluded is not None:
                _child(children, "f:" + key, ABSENT, value, None if node is None else node.child(key), excluded)
            elif isinstance(value, (dict, list)):
                below = _added(value, None if node is None else node.child(key), None)
                children["f:" + key] = {".": {}, **below} if below else {}
            else:
                children["f:" + key] = {}  # an added scalar: owned, a leaf
        return children
    if isinstance(new, list) and new and node is not None and node.list_kind != "atomic":
        return _items(new, node, excluded)
    return {}


def _items(news: list[Any], node: Node, excluded: _Exclusions | None) -> Fields:
    """fieldcompare._walk_items of a list whose items were all added, as a zero value holds none: an
    item named twice is owned whole, as a leaf."""
    item_node = node.child(None)
    new_items = fieldcompare.items_by_name(news, node)
    children: Fields = {}
    for name in sorted(new_items):
        rights = new_items[name]
        if len(rights) == 1:
            _child(children, name, ABSENT, rights[0], item_node, excluded)
        else:
            _child(children, name, ABSENT, None, None, excluded)
    return children
