"""cel-go's static cost estimate of a checked expression, which kube-apiserver holds rules to.

A port of `cel-go/checker/cost.go` over the AST of apiserver/cel/checkedexpr.py: identifiers and
selections cost 1 (presence tests 0, as Kubernetes configures it), calls 1 plus their arguments
unless the overload scales with its operands (string concatenation, comparison, matches, contains,
startsWith, `in`), comprehensions their range's size times their loop. Sizes come from the schema
(`maxLength`, `maxItems`, `maxProperties`, else what a 3 MiB request could hold, as upstream's
`SchemaDeclType` estimates them); a value of unknown size (a function's string result) is unbounded,
which is why `'x' + string(self.n)` is refused as costing "more than 100x" the budget.
Kubernetes' own library functions are estimated as its CostEstimator does where that matters (the
format library's `validate`, the authorizer's `check` and selectors, equality of its opaque types),
the rest at the default (1 plus arguments).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from apiserver.cel import macroruntime, macros
from apiserver.cel.checkedexpr import Checked, Expr
from apiserver.cel.declared import escape

MAX = 2**64 - 1
MAX_REQUEST_BYTES = 3 * 1024 * 1024
STRING_TRAVERSAL = 0.1
REGEX_LENGTH = 0.25
Schema = dict[str, Any]


@dataclass(frozen=True)
class Size:
    min: int
    max: int

    def add(self, other: Size) -> Size:
        return Size(_add(self.min, other.min), _add(self.max, other.max))

    def union(self, other: Size) -> Size:
        return Size(min(self.min, other.min), max(self.max, other.max))

    def times(self, factor: float) -> Cost:
        return Cost(_factor(self.min, factor), _factor(self.max, factor))

    def times_cost(self, cost: Cost) -> Cost:
        return Cost(_mul(self.min, cost.min), _mul(self.max, cost.max))


@dataclass(frozen=True)
class Cost:
    min: int
    max: int

    def add(self, other: Cost) -> Cost:
        return Cost(_add(self.min, other.min), _add(self.max, other.max))

    def union(self, other: Cost) -> Cost:
        return Cost(min(self.min, other.min), max(self.max, other.max))

    def times(self, other: Cost) -> Cost:
        return Cost(_mul(self.min, other.min), _mul(self.max, other.max))


UNKNOWN = Size(0, MAX)
ZERO = Cost(0, 0)
ONE = Cost(1, 1)


def _add(x: int, y: int) -> int:
    return min(x + y, MAX)


def _mul(x: int, y: int) -> int:
    return min(x * y, MAX)


def _factor(x: int, factor: float) -> int:
    if x >= MAX:
        return MAX
    product = math.ceil(x * factor)
    return MAX if product >= MAX else int(product)


def max_elements(schema: Schema) -> int:
    """How many characters, items or properties a value of `schema` can have in one request: its
    declared type's MaxElements (upstream's SchemaDeclType), 0 for objects and scalars."""
    kind = schema.get("type")
    if schema.get("x-kubernetes-int-or-string"):
        return int(schema["maxLength"]) * 4 if "maxLength" in schema else MAX_REQUEST_BYTES - 2
    if kind == "string":
        formatted = {"duration": 32, "date": 12, "date-time": 32}.get(schema.get("format", ""))
        if formatted is not None:
            return formatted
        if "maxLength" in schema:
            # maxLength counts code points and sizes count bytes: upstream allows 4 bytes for each.
            return int(schema["maxLength"]) * (1 if schema.get("format") == "byte" else 4)
        if schema.get("enum"):
            return max(len(str(v)) for v in schema["enum"])
        return MAX_REQUEST_BYTES - 2
    if kind == "array":
        if "maxItems" in schema:
            return int(schema["maxItems"])
        items = schema.get("items")
        return (MAX_REQUEST_BYTES - 2) // (min_serialized_size(items if isinstance(items, dict) else {}) + 1)
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        if "maxProperties" in schema:
            return int(schema["maxProperties"])
        return (MAX_REQUEST_BYTES - 2) // (min_serialized_size(schema["additionalProperties"]) + 6)
    return 0


def min_serialized_size(schema: Schema) -> int:
    kind = schema.get("type")
    if schema.get("x-kubernetes-int-or-string"):
        return 1
    if kind == "string":
        return {"duration": 3, "date": 12, "date-time": 21}.get(schema.get("format", ""), 2) \
            + int(schema.get("minLength", 0))
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return 4
    return 2


_KEYS: Schema = {"type": "string", "maxLength": 0}  # a map's key type, StringType: MaxElements 0


def _child(schema: Schema, step: str) -> Schema | None:
    """One step of upstream's sizeEstimator down the declared types: a list's or map's element, a map's
    keys, or an object's field by its CEL name."""
    extra = schema.get("additionalProperties")
    is_map = schema.get("type") == "object" and isinstance(extra, dict)
    # A loop over a list checked with dyn variables (apiserver/cel/environment.py's second check of
    # cross-type numeric comparisons) walks "@keys": the schema says it is the list's items.
    if step in ("@items", "@values") or (step == "@keys" and schema.get("type") == "array"):
        element = schema.get("items") if schema.get("type") == "array" else extra if is_map else None
        return element if isinstance(element, dict) else None
    if step == "@keys":
        return _KEYS if is_map else None
    properties = schema.get("properties") or {}
    if step in ("apiVersion", "kind") and not properties.get(step):
        return {"type": "string"}
    for name, found in properties.items():
        if isinstance(found, dict) and escape(name) == step:
            return found
    return None


def schema_sizer(roots: dict[str, Schema]) -> Callable[[Sequence[str]], Size | None]:
    """Sizes of values along a path of fields, `@items`, `@values`, `@keys`, as upstream's CRD
    sizeEstimator finds them: it starts every path at the rule's own level whatever its first name
    (`oldSelf`, a type such as `int`, a loop over a literal list), so each of those is sized as `self`."""
    root = next(iter(roots.values()))

    def size(path: Sequence[str]) -> Size | None:
        if not path:
            return None
        schema: Schema = root
        for step in path[1:]:
            found = _child(schema, step)
            if found is None:
                return None
            schema = found
        return Size(0, max_elements(schema))
    return size


class _Coster:
    def __init__(self, checked: Checked, sizer: Callable[[Sequence[str]], Size | None]) -> None:
        self.checked = checked
        self.sizer = sizer
        self.paths: dict[int, list[str]] = {}
        self.sizes: dict[int, Size] = {}
        self.locals: dict[str, list[tuple[list[str], Size | None]]] = {}
        self.entry_sizes: dict[int, Size] = {}

    def type_of(self, e: Expr) -> str:
        return self.checked.types.get(e.id, "dyn")

    def path(self, e: Expr) -> list[str]:
        if e.kind == "ident" and self.locals.get(e.name):
            return list(self.locals[e.name][-1][0])
        return list(self.paths.get(e.id, []))

    def size(self, e: Expr) -> Size | None:
        if e.id in self.sizes:
            return self.sizes[e.id]
        if e.kind == "literal":
            return Size(len(e.literal), len(e.literal)) if isinstance(e.literal, (str, bytes)) else Size(1, 1)
        if e.kind in ("list", "map"):
            count = len(e.args) if e.kind == "list" else len(e.args) // 2
            return Size(count, count)
        path = self.path(e)
        if path:
            found = self.sizer(path)
            if found is not None:
                return found
        if self.type_of(e).removeprefix("optional:") in ("bool", "double", "duration", "int", "timestamp", "uint"):
            return Size(1, 1)
        if e.kind == "ident" and self.locals.get(e.name):
            return self.locals[e.name][-1][1]
        return None

    def size_or_unknown(self, e: Expr) -> Size:
        return self.size(e) or UNKNOWN

    def cost(self, e: Expr | None) -> Cost:
        if e is None or e.kind == "literal":
            return ZERO
        if e.kind == "ident":
            self.paths[e.id] = self.path(e) if self.locals.get(e.name) else [e.name]
            return ONE
        if e.kind == "select":
            assert e.target is not None
            if e.test_only:
                return self.cost(e.target)  # Kubernetes: presence tests cost nothing
            total = self.cost(e.target)
            if self.type_of(e.target).partition(":")[0] in ("map", "struct", "type_param"):
                total = total.add(ONE)
            self.paths[e.id] = self.path(e.target) + [e.name]
            return total
        if e.kind == "call":
            return self.call(e)
        if e.kind == "list":
            total = ZERO
            for element in e.args:
                total = total.add(self.cost(element))
            sizes = [size for size in (self.size(element) for element in e.args) if size is not None]
            if sizes and len(sizes) == len(e.args):  # cel-go remembers a literal's entry sizes
                self.entry_sizes[e.id] = functools.reduce(Size.union, sizes)
            return total.add(Cost(10, 10))
        if e.kind == "map":
            total = ZERO
            for part in e.args:
                total = total.add(self.cost(part))
            return total.add(Cost(30, 30))
        if e.kind == "struct":
            total = ZERO
            for part in e.args:
                total = total.add(self.cost(part))
            return total.add(Cost(40, 40))
        return self.comprehension(e)

    def comprehension(self, e: Expr) -> Cost:
        assert e.iter_range is not None
        if e.accu_var == macros.SORT_INPUT:
            return self.bind(e)
        if e.iter_var == macros.SORT_INDEX:  # picks the sorted elements: no part of upstream's expansion
            cost = self.cost(e.iter_range)
            if (size := self.size(e.iter_range)) is not None:
                self.sizes[e.id] = size
            return cost
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        range_path = self.path(e.iter_range)
        is_list = self.type_of(e.iter_range) == "list"
        self.locals.setdefault(e.accu_var, []).append((self.path(e.accu_init) if e.accu_init else [],
                                                       self.size(e.accu_init) if e.accu_init else None))
        # cel-go's pushIterSingle, pushIterKey and pushIterValue: the range's path and what its entries are
        if e.iter_var2:  # a two-variable comprehension: indices or keys, then items or values
            self.locals.setdefault(e.iter_var, []).append((range_path + ["@indices" if is_list else "@keys"], None))
            self.locals.setdefault(e.iter_var2, []).append(
                (range_path + ["@items" if is_list else "@values"],
                 self.entry_sizes.get(e.iter_range.id) if is_list else None))
        else:
            self.locals.setdefault(e.iter_var, []).append((range_path + ["@items" if is_list else "@keys"],
                                                           self.entry_sizes.get(e.iter_range.id)))
        loop = self.cost(e.loop_condition).add(self.cost(e.loop_step))
        self.locals[e.iter_var].pop()
        if e.iter_var2:
            self.locals[e.iter_var2].pop()
        total = total.add(self.cost(e.result))
        self.locals[e.accu_var].pop()
        count = self.size_or_unknown(e.iter_range)
        if e.accu_init is not None and e.accu_init.kind in ("list", "map"):
            self.sizes[e.id] = count
        return total.add(count.times_cost(loop))

    def bind(self, e: Expr) -> Cost:
        """cel-go's costBind: the binding (sortBy's target) sized as its expression, the result's size."""
        assert e.iter_range is not None and e.accu_init is not None and e.result is not None
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        self.locals.setdefault(e.accu_var, []).append((self.path(e.accu_init), self.size(e.accu_init)))
        total = total.add(self.cost(e.result))
        self.locals[e.accu_var].pop()
        if (size := self.size(e.result)) is not None:
            self.sizes[e.id] = size
        return total

    def sort_keys_cost(self, keys: Expr) -> tuple[Cost, Size]:
        """ext.Lists' estimateListSortBy: n² comparisons of the keys (strings' and bytes' traversed), a
        call and a list creation; and n² as the result's size, as upstream's estimate has it."""
        count = self.size_or_unknown(keys)
        squared = Size(_mul(count.min, count.min), _mul(count.max, count.max))
        step = keys.loop_step
        key = step.args[1].args[0] if step is not None and len(step.args) == 2 and step.args[1].args else None
        factor = 2.0 + (STRING_TRAVERSAL if key is not None and self.type_of(key) in ("string", "bytes") else 0)
        return squared.times(factor).add(Cost(1 + LIST_CREATE, 1 + LIST_CREATE)), squared

    def call(self, e: Expr) -> Cost:
        if e.name == "dyn" and len(e.args) == 1:
            cost = ONE.add(self.cost(e.args[0]))
            if (size := self.size(e.args[0])) is not None:
                self.sizes[e.id] = size
            return cost
        arg_costs = [self.cost(arg) for arg in e.args]
        overloads = self.checked.overloads.get(e.id, [])
        if not overloads:
            return ZERO
        total = self.cost(e.target) if e.target is not None else ZERO
        function = Cost(MAX, 0)
        result: Size | None = None
        for overload in overloads:
            cost, size = self.function(e, overload, arg_costs)
            function = function.union(cost)
            if size is not None:
                result = size if result is None else result.union(size)
            if overload in ("index_list", "index_map") and e.args:
                self.paths[e.id] = self.path(e.args[0]) + ["@items" if overload == "index_list" else "@values"]
        if result is not None:
            self.sizes[e.id] = result
        return total.add(function)

    def function(self, e: Expr, overload: str, arg_costs: list[Cost]) -> tuple[Cost, Size | None]:
        args_sum = ZERO
        for cost in arg_costs:
            args_sum = args_sum.add(cost)
        target, args = e.target, e.args
        if e.name == macroruntime.SORT_INDICES and target is not None and len(args) == 1:
            cost, size = self.sort_keys_cost(args[0])
            return cost.add(args_sum), size
        kubernetes = self.kubernetes_function(e, overload)
        if kubernetes is not None:
            return kubernetes[0].add(args_sum), kubernetes[1]
        if overload in ("string_to_bytes", "bytes_to_string", "strings_quote") and len(args) == 1:
            size = self.size_or_unknown(args[0])
            result = {"string_to_bytes": Size(size.min, _mul(size.max, 4)),
                      "bytes_to_string": Size(size.min // 4, size.max),
                      "strings_quote": Size(_add(size.min, 2), _add(_mul(size.max, 2), 2))}[overload]
            return size.times(STRING_TRAVERSAL).add(args_sum), result
        if overload == "string_format" and target is not None:
            return self.size_or_unknown(target).times(STRING_TRAVERSAL).add(args_sum), None
        if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return self.size_or_unknown(args[0]).times(STRING_TRAVERSAL).add(args_sum), None
        if overload == "in_list" and len(args) == 2:
            return self.size_or_unknown(args[1]).times(1).add(args_sum), None
        if overload in ("matches_string", "matches") and target is not None and len(args) == 1:
            text = self.size_or_unknown(target).add(Size(1, 1)).times(STRING_TRAVERSAL)
            regex = self.size_or_unknown(args[0]).times(REGEX_LENGTH)
            return text.times(regex).add(args_sum), None
        if overload == "contains_string" and target is not None and len(args) == 1:
            text = self.size_or_unknown(target).times(STRING_TRAVERSAL)
            return text.times(self.size_or_unknown(args[0]).times(STRING_TRAVERSAL)).add(args_sum), None
        if overload in ("logical_or", "logical_and") and len(arg_costs) == 2:
            return Cost(arg_costs[0].min, arg_costs[0].add(arg_costs[1]).max), None
        if overload == "conditional" and len(args) == 3:
            size = self.size_or_unknown(args[1]).union(self.size_or_unknown(args[2]))
            return arg_costs[0].add(arg_costs[1].union(arg_costs[2])), size
        if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            size = self.size_or_unknown(args[0]).add(self.size_or_unknown(args[1]))
            if overload == "add_list":
                return ONE.add(args_sum), size
            return size.times(STRING_TRAVERSAL).add(args_sum), size
        if overload in ("less_string", "greater_string", "less_equals_string", "greater_equals_string",
                        "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes",
                        "equals", "not_equals") and len(args) == 2:
            smallest = min(self.size_or_unknown(args[0]).max, self.size_or_unknown(args[1]).max)
            return Size(1 if smallest > 0 else 0, smallest).times(STRING_TRAVERSAL).add(args_sum), None
        return ONE.add(args_sum), None


    def element_size(self, target: Expr) -> Size:
        """listElementNode's size: the schema's items where the list has a path, else unknown."""
        path = self.path(target)
        return (self.sizer([*path, "@items"]) if path else None) or UNKNOWN

    def kubernetes_function(self, e: Expr, overload: str) -> tuple[Cost, Size | None] | None:
        """Kubernetes' own estimates (its library's CostEstimator.EstimateCallCost), before the
        arguments' costs, with the result's size where it gives one."""
        args, target, name = e.args, e.target, e.name
        fixed = (ONE, None)
        if name == "check":
            return Cost(AUTHZ_CHECK, AUTHZ_CHECK), None
        if name in _NOMINAL:
            return fixed
        if name in ("fieldSelector", "labelSelector") and len(args) == 1:
            size = self.size_or_unknown(args[0])
            requirements = _cost_factor(size.times(SELECTOR_REQUIREMENTS), SELECTOR_REQUIREMENT_COST)
            return Cost(LIST_CREATE, LIST_CREATE).add(size.times(STRING_TRAVERSAL)).add(requirements), None
        if name in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf") and target is not None:
            element = self.checked.elements.get(target.id)
            if element is None:  # a string's indexOf
                return self.size_or_unknown(target).times(STRING_TRAVERSAL), None
            each = ONE
            if element in ("string", "bytes"):
                each = each.add(self.element_size(target).times(STRING_TRAVERSAL))
            return self.size_or_unknown(target).times_cost(each), None
        if name in ("url", "jsonpatch.escapeKey") and len(args) == 1:
            size = self.size_or_unknown(args[0])
            return size.times(STRING_TRAVERSAL), size
        if name in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            size = self.size_or_unknown(target)
            return size.times(STRING_TRAVERSAL), size
        if name == "replace" and target is not None and len(args) >= 2:
            return self.replaced(target, args)
        if name == "split" and target is not None:
            size = self.size_or_unknown(target)
            most = size.max
            if len(args) > 1 and args[1].kind == "literal" and isinstance(args[1].literal, int):
                most = args[1].literal
            return size.times(2 * STRING_TRAVERSAL), Size(0, most)
        if name == "join" and target is not None:
            return self.joined(target, args)
        if name in ("find", "findAll") and target is not None and args:
            size = self.size_or_unknown(target)
            text = size.add(Size(1, 1)).times(STRING_TRAVERSAL)
            return text.times(self.size_or_unknown(args[0]).times(REGEX_LENGTH)), Size(0, size.max)
        if name in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver") and args:
            return self.size_or_unknown(args[0]).times(STRING_TRAVERSAL), None
        if name == "ip":
            if overload == "cidr_ip":
                return fixed
            if args:
                return self.size_or_unknown(args[0]).times(STRING_TRAVERSAL), None
        if name == "ip.isCanonical" and args:
            return self.size_or_unknown(args[0]).times(2 * STRING_TRAVERSAL), None
        if name in ("containsIP", "containsCIDR") and args:
            address = Size(4, 16)
            compared = address.add(address).times(STRING_TRAVERSAL)
            if name == "containsCIDR":
                compared = compared.add(address.times(STRING_TRAVERSAL)).add(ONE)
            if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
                compared = compared.add(self.size_or_unknown(args[0]).times(STRING_TRAVERSAL))
            return compared, None
        if name == "validate" and args:
            return _cost_factor(self.size_or_unknown(args[0]).times(STRING_TRAVERSAL), FORMAT_REGEX * REGEX_LENGTH), None
        if name == "_?._" and len(args) == 2 and args[0].kind == "call" and args[0].name in CARRIERS:
            return ZERO, None  # the select apiserver/cel/optionals.py adds: no part of the expression as written
        if name == "_==_" and len(args) == 2:
            kind = self.type_of(args[0])
            if kind == self.type_of(args[1]) and kind.startswith("struct:"):
                if kind.removeprefix("struct:") in UNIT_EQUALITY:
                    return fixed
                if kind == "struct:kubernetes.NamedFormat":
                    return Cost(1, _factor(MAX_FORMAT_NAME, STRING_TRAVERSAL)), None
        return None

    def replaced(self, target: Expr, args: list[Expr]) -> tuple[Cost, Size]:
        """replace: the traversal and the result's construction; the result as long as the most and
        fewest replacements make it."""
        size, old, new = self.size_or_unknown(target), self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
        if old.min == 0:
            count_max, kept_max = (size.max + 1 if size.max < MAX else size.max), size.max
        elif new.max <= old.min:
            count_max, kept_max = 0, size.max
        else:
            count_max, kept_max = math.ceil(size.max / old.min), 0
        if old.max == 0:
            count_min, kept_min = (size.min + 1 if size.min < MAX else size.min), size.min
        elif old.max <= new.min:
            count_min, kept_min = 0, size.min
        else:
            count_min, kept_min = math.ceil(size.min / old.max), 0
        result = Size(_mul(count_min, new.min), _mul(count_max, new.max)).add(Size(kept_min, kept_max))
        return size.times(2 * STRING_TRAVERSAL), result

    def joined(self, target: Expr, args: list[Expr]) -> tuple[Cost, Size]:
        """join: the list's size times its elements' (unknown unless the list is the schema's), plus a
        separator between each two."""
        count = self.size_or_unknown(target)
        size = Size(0, 0)
        if target.id in self.checked.elements:
            element = self.element_size(target)
            size = Size(_mul(count.min, element.min), _mul(count.max, element.max))
        if args:
            separator = self.size_or_unknown(args[0])
            size = size.add(Size(_mul(separator.min, max(count.min - 1, 0)), _mul(separator.max, max(count.max - 1, 0))))
        return size.times(STRING_TRAVERSAL), size


def _cost_factor(cost: Cost, factor: float) -> Cost:
    return Cost(_factor(cost.min, factor), _factor(cost.max, factor))


AUTHZ_CHECK = 350_000  # "set to allow for only two authorization checks per expression"
LIST_CREATE, STRUCT_CREATE = 10, 40
SELECTOR_REQUIREMENTS = 0.5  # the shortest repeatable requirement ("k,") is two characters
SELECTOR_REQUIREMENT_COST = LIST_CREATE + STRUCT_CREATE
FORMAT_REGEX = 128  # cel.MaxNameFormatRegexSize
MAX_FORMAT_NAME = 64  # cel.MaxFormatSize
CARRIERS = ("validate", "format.named")
# Functions Kubernetes' estimator charges 1: authorizer builders and accessors, quantity, semver,
# URL, IP and CIDR accessors, and format.named.
_NOMINAL = frozenset({
    "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error",
    "errored", "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
    "isLinkLocalUnicast", "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger", "asApproximateFloat",
    "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch", "getScheme", "getHostname",
    "getHost", "getPort", "getEscapedPath", "getQuery"})
UNIT_EQUALITY = frozenset({
    "kubernetes.Quantity", "kubernetes.Semver", "kubernetes.URL", "net.IP", "net.CIDR", "kubernetes.authorization.Authorizer",
    "kubernetes.authorization.PathCheck", "kubernetes.authorization.GroupCheck",
    "kubernetes.authorization.ResourceCheck", "kubernetes.authorization.Decision"})


def estimate(checked: Checked, sizer: Callable[[Sequence[str]], Size | None]) -> int:
    """The most an expression can cost, in cel-go's units."""
    return _Coster(checked, sizer).cost(checked.expr).max
