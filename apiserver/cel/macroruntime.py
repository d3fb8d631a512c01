"""The functions apiserver/cel/macros.py's expansions call, as cel-go's behave, in Python: the
`cel.@mapInsert` of two-variable transforms (cel-expr-python's runtime lacks it), the collecting of a
transformMap's entries into a map once, and `sortBy`'s order; with their declarations for checking
(typed as upstream's `@sortByAssociatedKeys`, so an unsortable key is refused) and for running.
"""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings

from apiserver.cel import gosort

ENTRIES_TO_MAP, PAIRS_TO_MAP, SORT_INDICES = "__entriesToMap__", "__pairsToMap__", "__sortByIndices__"
UPSTREAM_SORT = "@sortByAssociatedKeys"


def _go_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _map_insert(target: dict[Any, Any], key: Any, value: Any) -> dict[Any, Any]:
    """cel-go's types.InsertMapKeyValue, as `cel.@mapInsert(map, key, value)` steps transformMap."""
    if key in target:
        raise ValueError(f"insert failed: key {_go_text(key)} already exists")
    out = dict(target)
    out[key] = value
    return out


def _map_merge(target: dict[Any, Any], update: dict[Any, Any]) -> dict[Any, Any]:
    """`cel.@mapInsert(map, map)`, as transformMapEntry steps."""
    out = dict(target)
    for key, value in update.items():
        if key in out:
            raise ValueError(f"insert failed: key {_go_text(key)} already exists")
        out[key] = value
    return out


def _pairs_to_map(pairs: list[list[Any]]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"insert failed: key {_go_text(key)} already exists")
        out[key] = value
    return out


def _entries_to_map(entries: list[dict[Any, Any]]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for entry in entries:
        out = _map_merge(out, entry) if out else dict(entry)
    return out


def _sorted_indices(items: list[Any], keys: list[Any]) -> list[int]:
    """The order cel-go's sortListByAssociatedKeys puts `items` in, as indices into them."""
    if len(items) != len(keys):
        raise ValueError(f"{UPSTREAM_SORT}() expected a list of the same size as the associated keys list, but "
                         f"got {len(items)} and {len(keys)} elements respectively")
    if keys and any(type(key) is not type(keys[0]) for key in keys):
        raise ValueError("list elements must have the same type")
    return gosort.sorted_slice(list(range(len(keys))), lambda i, j: keys[i] < keys[j])


_T = cel.Type
_DYN_MAP = _T.Map(_T.DYN, _T.DYN)
_DYN_LIST = _T.List(_T.DYN)
_COMPARABLE = {"int": _T.INT, "uint": _T.UINT, "double": _T.DOUBLE, "bool": _T.BOOL, "duration": _T.DURATION,
               "timestamp": _T.TIMESTAMP, "string": _T.STRING, "bytes": _T.BYTES}


def _sort_declaration(typed: bool) -> Any:
    if not typed:
        return cel.FunctionDecl(SORT_INDICES, [cel.Overload(
            "list_sort_indices", _T.List(_T.INT), [_DYN_LIST, _DYN_LIST], is_member=True, impl=_sorted_indices)])
    return cel.FunctionDecl(SORT_INDICES, [
        cel.Overload(f"list_{name}_sortByAssociatedKeys", _T.List(_T.INT), [_DYN_LIST, _T.List(kind)],
                     is_member=True, impl=_sorted_indices) for name, kind in _COMPARABLE.items()])


def extensions(checking: bool) -> list[Any]:
    """What a rewritten text needs: cel.bind and the sort's indices; and, to run, `cel.@mapInsert`."""
    if checking:
        return [ext_bindings.ExtBindings(), cel.CelExtension("k8s_sortby", [_sort_declaration(True)])]
    insert = cel.FunctionDecl("cel.@mapInsert", [
        cel.Overload("@mapInsert_map_key_value", _DYN_MAP, [_DYN_MAP, _T.DYN, _T.DYN], impl=_map_insert),
        cel.Overload("@mapInsert_map_map", _DYN_MAP, [_DYN_MAP, _DYN_MAP], impl=_map_merge)])
    collect = [cel.FunctionDecl(name, [cel.Overload(name.strip("_"), _DYN_MAP, [_DYN_LIST], impl=impl)])
               for name, impl in ((PAIRS_TO_MAP, _pairs_to_map), (ENTRIES_TO_MAP, _entries_to_map))]
    return [ext_bindings.ExtBindings(), cel.CelExtension("k8s_macros", [insert, _sort_declaration(False), *collect])]
