"""The Kubernetes CEL libraries as cel-expr-python function declarations, each with its Python body.

Upstream's base environment (`k8s.io/apiserver/pkg/cel/environment/base.go`) adds to CEL's standard
library and cel-go's strings extension (v2, here cel-expr-python's own): url, regex (`find`,
`findAll`), lists (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`), quantity, semver
(apiserver/cel/semver.py), sets, ip, cidr, `jsonpatch.escapeKey`, and cel-go's lists extension
(`lists.range`, `flatten`, `distinct`, `reverse`, `slice`, `sort`; `sortBy` and two-variable
comprehensions are apiserver/cel/macros.py's). The format library is apiserver/cel/formats.py (its
optional results run through apiserver/cel/optionals.py), the authorizer library apiserver/cel/authz.py.
Not yet ported: the lists extension's `first`/`last` (optional results, which optionals.py could now
carry); and `string(cidr)`, because its runtime tells messages apart only as messages, so one `string`
overload for a message can exist (`string(ip)`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from apiserver.cel import netlib
from apiserver.cel import quantity as q
from apiserver.cel import semver as sv

T = cel.Type
QUANTITY = T("kubernetes.Quantity")
SEMVER = T("kubernetes.Semver")
URL = T("kubernetes.URL")
IP = T("net.IP")
CIDR = T("net.CIDR")
DYN_LIST = T.List(T.DYN)
STRINGS = T.List(T.STRING)


class ListError(ValueError):
    pass


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _find(text: str, pattern: str) -> str:
    found = _regex(pattern).search(text)
    return found.group(0) if found else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = [m.group(0) for m in _regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


def _is_sorted(items: list[Any]) -> bool:
    return all(a <= b for a, b in itertools.pairwise(items))


def _sum(items: list[Any]) -> Any:
    return sum(items[1:], items[0]) if items else 0


def _min(items: list[Any]) -> Any:
    if not items:
        raise ListError("min called on empty list")
    return min(items)


def _max(items: list[Any]) -> Any:
    if not items:
        raise ListError("max called on empty list")
    return max(items)


def _index_of(items: list[Any], value: Any) -> int:
    return next((i for i, item in enumerate(items) if item == value), -1)


def _last_index_of(items: list[Any], value: Any) -> int:
    return next((i for i in range(len(items) - 1, -1, -1) if items[i] == value), -1)


def _sets_contains(items: list[Any], others: list[Any]) -> bool:
    return all(other in items for other in others)


def _sets_equivalent(items: list[Any], others: list[Any]) -> bool:
    return _sets_contains(items, others) and _sets_contains(others, items)


def _sets_intersects(items: list[Any], others: list[Any]) -> bool:
    return any(other in items for other in others)


def _flatten(items: list[Any], depth: int = 1) -> list[Any]:
    if depth < 0:
        raise ListError("level must be non-negative")
    flat: list[Any] = []
    for item in items:
        flat.extend(_flatten(item, depth - 1) if isinstance(item, list) and depth > 0 else [item])
    return flat


def _distinct(items: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def _slice(items: list[Any], start: int, end: int) -> list[Any]:
    if start < 0 or end < 0:
        raise ListError(f"cannot slice(${start}, ${end}), negative indexes not supported")
    if start > end:
        raise ListError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(items):
        raise ListError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return items[start:end]


def _overload(name: str, ret: Any, params: list[Any], impl: Callable[..., Any], member: bool = False) -> Any:
    return cel.Overload(name, ret, params, is_member=member, impl=impl)


def _by_type(on_quantity: Callable[[Any, Any], Any], on_semver: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A comparison whose body picks the quantity's or the version's by the message it is given."""
    def compare(value: Any, other: Any) -> Any:
        semver = value.DESCRIPTOR.full_name == "kubernetes.Semver"
        return (on_semver if semver else on_quantity)(value, other)
    return compare




# Functions upstream declares global only, which a member call (`quantity(x).sign()`) does not find.
_NEVER = T.List(T.List(T.BYTES))  # what a probe's member overload takes: no operand of these functions is one
GLOBAL_ONLY = ("quantity", "isQuantity", "sign", "semver", "isSemver", "url", "isURL", "isIP", "cidr", "isCIDR",
                "jsonpatch.escapeKey")


def declarations(checking: bool = True, probing: bool = False) -> list[Any]:
    """Every function the libraries add, ready for `cel.NewEnv(functions=...)`. The runtime tells
    messages apart only as messages, so where a quantity's and a version's overloads share a name, the
    environment that runs unchecked programs has one overload whose body picks by the message."""
    S, I, B, D = T.STRING, T.INT, T.BOOL, T.DOUBLE

    def semver_twin(overload: Any) -> list[Any]:
        return [overload] if checking else []

    def _function(name: str, *overloads: Any) -> Any:
        # Probing, a member call of a global-only function finds an overload that never matches, so that
        # the checker names the call's operand types as cel-go's "no matching overload" does.
        probe = [_overload(f"{name}_member_probe", T.BOOL, [_NEVER], lambda _: False, True)] \
            if probing and name in GLOBAL_ONLY else []
        return cel.FunctionDecl(name, [*overloads, *probe])
    return [
        _function("find", _overload("string_find_string", S, [S, S], _find, True)),
        _function("findAll", _overload("string_find_all_string", STRINGS, [S, S], _find_all, True),
                  _overload("string_find_all_string_int", STRINGS, [S, S, I], _find_all, True)),
        _function("isSorted", _overload("list_is_sorted", B, [DYN_LIST], _is_sorted, True)),
        _function("sum", _overload("list_sum", T.DYN, [DYN_LIST], _sum, True)),
        _function("min", _overload("list_min", T.DYN, [DYN_LIST], _min, True)),
        _function("max", _overload("list_max", T.DYN, [DYN_LIST], _max, True)),
        _function("indexOf", _overload("list_index_of", I, [DYN_LIST, T.DYN], _index_of, True)),
        _function("lastIndexOf", _overload("list_last_index_of", I, [DYN_LIST, T.DYN], _last_index_of, True)),
        _function("sets.contains", _overload("list_sets_contains_list", B, [DYN_LIST, DYN_LIST], _sets_contains)),
        _function("sets.equivalent",
                  _overload("list_sets_equivalent_list", B, [DYN_LIST, DYN_LIST], _sets_equivalent)),
        _function("sets.intersects",
                  _overload("list_sets_intersects_list", B, [DYN_LIST, DYN_LIST], _sets_intersects)),
        _function("lists.range", _overload("lists_range", T.List(I), [I], lambda n: list(range(n)))),
        _function("flatten", _overload("list_flatten", DYN_LIST, [DYN_LIST], _flatten, True),
                  _overload("list_flatten_int", DYN_LIST, [DYN_LIST, I], _flatten, True)),
        _function("distinct", _overload("list_distinct", DYN_LIST, [DYN_LIST], _distinct, True)),
        _function("reverse", _overload("list_reverse", DYN_LIST, [DYN_LIST], lambda xs: xs[::-1], True)),
        _function("slice", _overload("list_slice", DYN_LIST, [DYN_LIST, I, I], _slice, True)),
        _function("sort", _overload("list_sort", DYN_LIST, [DYN_LIST], sorted, True)),
        _function("jsonpatch.escapeKey", _overload("string_jsonpatch_escape_key", S, [S],
                                                   lambda key: key.replace("~", "~0").replace("/", "~1"))),
        _function("quantity", _overload("string_to_quantity", QUANTITY, [S], q.quantity)),
        _function("isQuantity", _overload("is_quantity_string", B, [S], q.is_quantity)),
        _function("sign", _overload("quantity_sign", I, [QUANTITY], q.sign)),  # a global function upstream
        _function("isInteger", _overload("quantity_is_integer", B, [QUANTITY], q.is_integer, True)),
        _function("asInteger", _overload("quantity_get_integer", I, [QUANTITY], q.as_integer, True)),
        _function("asApproximateFloat",
                  _overload("quantity_get_float", D, [QUANTITY], q.as_approximate_float, True)),
        _function("add", _overload("quantity_add", QUANTITY, [QUANTITY, QUANTITY], q.add, True),
                  _overload("quantity_add_int", QUANTITY, [QUANTITY, I], q.add, True)),
        _function("sub", _overload("quantity_sub", QUANTITY, [QUANTITY, QUANTITY], q.sub, True),
                  _overload("quantity_sub_int", QUANTITY, [QUANTITY, I], q.sub, True)),
        _function("compareTo", _overload("quantity_compare_to", I, [QUANTITY, QUANTITY],
                                         _by_type(q.compare_to, sv.compare_to), True),
                  *semver_twin(_overload("semver_compare_to", I, [SEMVER, SEMVER], sv.compare_to, True))),
        _function("isGreaterThan",
                  _overload("quantity_is_greater_than", B, [QUANTITY, QUANTITY],
                            _by_type(q.is_greater_than, sv.is_greater_than), True),
                  *semver_twin(_overload("semver_is_greater_than", B, [SEMVER, SEMVER], sv.is_greater_than, True))),
        _function("isLessThan",
                  _overload("quantity_is_less_than", B, [QUANTITY, QUANTITY],
                            _by_type(q.is_less_than, sv.is_less_than), True),
                  *semver_twin(_overload("semver_is_less_than", B, [SEMVER, SEMVER], sv.is_less_than, True))),
        _function("semver", _overload("string_to_semver", SEMVER, [S], sv.semver),
                  _overload("string_bool_to_semver", SEMVER, [S, B], sv.semver)),
        _function("isSemver", _overload("is_semver_string", B, [S], sv.is_semver),
                  _overload("is_semver_string_bool", B, [S, B], sv.is_semver)),
        _function("major", _overload("semver_major", I, [SEMVER], sv.major, True)),
        _function("minor", _overload("semver_minor", I, [SEMVER], sv.minor, True)),
        _function("patch", _overload("semver_patch", I, [SEMVER], sv.patch, True)),
        _function("url", _overload("string_to_url", URL, [S], netlib.url)),
        _function("isURL", _overload("is_url_string", B, [S], netlib.is_url)),
        _function("getScheme", _overload("url_get_scheme", S, [URL], netlib.get_scheme, True)),
        _function("getHost", _overload("url_get_host", S, [URL], netlib.get_host, True)),
        _function("getHostname", _overload("url_get_hostname", S, [URL], netlib.get_hostname, True)),
        _function("getPort", _overload("url_get_port", S, [URL], netlib.get_port, True)),
        _function("getEscapedPath", _overload("url_get_escaped_path", S, [URL], netlib.get_escaped_path, True)),
        _function("getQuery", _overload("url_get_query", T.Map(S, STRINGS), [URL], netlib.get_query, True)),
        _function("ip", _overload("string_to_ip", IP, [S], netlib.ip),
                  _overload("cidr_ip", IP, [CIDR], netlib.cidr_ip, True)),
        _function("isIP", _overload("is_ip", B, [S], netlib.is_ip)),
        _function("ip.isCanonical", _overload("ip_is_canonical", B, [S], netlib.ip_is_canonical)),
        _function("family", _overload("ip_family", I, [IP], netlib.family, True)),
        _function("isUnspecified", _overload("ip_is_unspecified", B, [IP], netlib.is_unspecified, True)),
        _function("isLoopback", _overload("ip_is_loopback", B, [IP], netlib.is_loopback, True)),
        _function("isLinkLocalMulticast",
                  _overload("ip_is_link_local_multicast", B, [IP], netlib.is_link_local_multicast, True)),
        _function("isLinkLocalUnicast",
                  _overload("ip_is_link_local_unicast", B, [IP], netlib.is_link_local_unicast, True)),
        _function("isGlobalUnicast",
                  _overload("ip_is_global_unicast", B, [IP], netlib.is_global_unicast, True)),
        _function("cidr", _overload("string_to_cidr", CIDR, [S], netlib.cidr)),
        _function("isCIDR", _overload("is_cidr", B, [S], netlib.is_cidr)),
        _function("containsIP", _overload("cidr_contains_ip_string", B, [CIDR, S], netlib.contains_ip, True),
                  _overload("cidr_contains_ip_ip", B, [CIDR, IP], netlib.contains_ip, True)),
        _function("containsCIDR",
                  _overload("cidr_contains_cidr_string", B, [CIDR, S], netlib.contains_cidr, True),
                  _overload("cidr_contains_cidr", B, [CIDR, CIDR], netlib.contains_cidr, True)),
        _function("masked", _overload("cidr_masked", CIDR, [CIDR], netlib.masked, True)),
        _function("prefixLength", _overload("cidr_prefix_length", I, [CIDR], netlib.prefix_length, True)),
        _function("string", _overload("ip_to_string", S, [IP], netlib.to_string)),
    ]
