"""cel-go's runtime cost of one evaluation, as kube-apiserver's cost tracker counts it and cancels on it.

A port of `cel-go/interpreter/runtimecost.go` (the CostTracker observing each evaluated step) with
Kubernetes' `library/cost.go` CallCost for its functions. cel-expr-python tracks no cost, so the
expression is replayed here over the checked AST of apiserver/cel/checkedexpr.py with the values a
request bound: the answer stays cel-expr-python's, this walk only counts. It follows cel-go's plan of
the expression where cost depends on it: `&&`, `||` and `?:` evaluate only what decides them, a
comprehension stops when its loop condition is false, an accumulator is initialised when first read,
literal lists and maps and conversions of literals are constants (upstream plans with OptOptimize, so
they cost nothing, nor does `in` a literal list of scalars), an attribute (`a.b[c]`) costs 1 plus 1
per qualifier and a `?:` branch that is one loses its base's 1, presence tests cost their operand.
Values of the common operators are computed here; any other call asks cel-expr-python for its value.
That makes the walk an evaluator too, which answers (`replay`) where cel-expr-python gives up: past
its runtime's 10,000 iterations, which cel-go allows as long as the cost stays within the limit.

A walk that meets what it cannot replay (optionals, the rewritten macros' helpers, messages) raises
Untraceable: the caller then charges nothing. Not ported: the costs cel-go's lists and sets extensions
declare for their own functions, and Kubernetes' for a format's `validate` (each charged 1).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from apiserver.cel import environment
from apiserver.cel.checkedexpr import Checked, Expr

LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
UNLIMITED = 2**64
STRING_TRAVERSAL = 0.1
REGEX_LENGTH = 0.25
LIST_CREATE, MAP_CREATE, STRUCT_CREATE = 10, 30, 40
AUTHZ_CHECK = 350_000
SELECTOR_REQUIREMENT_COST = LIST_CREATE + STRUCT_CREATE


class Untraceable(Exception):
    """The expression uses what this walk cannot replay."""


@dataclass(frozen=True)
class Traced:
    cost: int
    exceeded: bool  # the limit was passed: cel-go cancels the evaluation with LIMIT_EXCEEDED


class _Error:
    """A CEL error value: it flows through `&&`, `||` and calls as cel-go's does."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


NO_OVERLOAD = _Error("no such overload")


class _Stop(Exception):
    def __init__(self, cost: int) -> None:
        super().__init__(cost)
        self.cost = cost


class _Lazy:
    """An accumulator not yet read: cel-go evaluates its initial value on the first read."""

    __slots__ = ("init",)

    def __init__(self, init: Expr | None) -> None:
        self.init = init


_CONVERSIONS = frozenset({"int", "uint", "double", "string", "bytes", "bool", "duration", "timestamp", "dyn", "type"})
_UNTRACEABLE = frozenset({"_?._", "_[?_]", "optional.of", "optional.ofNonZeroValue", "optional.none", "hasValue",
                          "value", "orValue", "or", "__sortByIndices__", "__entriesToMap__", "__pairsToMap__",
                          "cel.@mapInsert", "cel.bind"})
_INFIX = {"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%", "_==_": "==", "_!=_": "!=", "_<_": "<",
          "_<=_": "<=", "_>_": ">", "_>=_": ">=", "@in": "in"}
_STRING_ORDER = frozenset({"less_string", "greater_string", "less_equals_string", "greater_equals_string",
                           "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes"})


def size(value: Any) -> int:
    """cel-go's actualSize: a string's code points, a sequence's or map's length, 1 for the rest."""
    if isinstance(value, (str, bytes, bytearray, list, dict)):
        return len(value)
    return 1


def _traversal(value: Any) -> int:
    """Kubernetes' traversalCost: what reading every byte of every string in the value costs."""
    if isinstance(value, str):
        return int(len(value.encode()) * STRING_TRAVERSAL)
    if isinstance(value, (bytes, bytearray)):
        return int(len(value) * STRING_TRAVERSAL)
    if isinstance(value, list):
        return sum(_traversal(item) for item in value)
    if isinstance(value, dict):
        return sum(_traversal(k) + _traversal(v) for k, v in value.items())
    return 1


def _ceil(count: float) -> int:
    return math.ceil(count)


def _kubernetes(function: str, overload: str, args: list[Any], result: Any) -> int | None:
    """Kubernetes' CallCost (library/cost.go): its own functions' costs, None for the rest."""
    if function == "check":
        return AUTHZ_CHECK
    if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
        return _traversal(args[0]) if args else 0
    if function in ("url", "lowerAscii", "upperAscii", "substring", "trim", "jsonpatch.escapeKey",
                    "cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver") and args:
        return _ceil(size(args[0]) * STRING_TRAVERSAL)
    if function in ("replace", "split") and args:
        return _ceil(size(args[0]) * 2 * STRING_TRAVERSAL)
    if function == "join" and args:
        return _ceil(size(result) * 2 * STRING_TRAVERSAL)
    if function in ("find", "findAll") and len(args) >= 2:
        return _ceil((1.0 + size(args[0])) * STRING_TRAVERSAL) * _ceil(size(args[1]) * REGEX_LENGTH)
    if function == "ip" and args:
        return 1 if overload == "cidr_ip" else _ceil(size(args[0]) * STRING_TRAVERSAL)
    if function == "ip.isCanonical" and args:
        return _ceil(size(args[0]) * 2 * STRING_TRAVERSAL)
    if function in ("containsIP", "containsCIDR") and len(args) >= 2:
        cidr = size(args[0])
        cost = _ceil((cidr + cidr) * STRING_TRAVERSAL)
        if function == "containsCIDR":
            cost += _ceil(cidr * STRING_TRAVERSAL) + 1
        if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost += _ceil(size(args[1]) * STRING_TRAVERSAL)
        return cost
    if function in ("fieldSelector", "labelSelector") and len(args) >= 2:
        length = size(args[1])
        requirements = math.ceil(length * 0.5)
        return LIST_CREATE + _ceil(length * STRING_TRAVERSAL) + math.ceil(requirements * SELECTOR_REQUIREMENT_COST)
    return None


_KUBERNETES = frozenset({"check", "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "url", "lowerAscii",
                         "upperAscii", "substring", "trim", "jsonpatch.escapeKey", "cidr", "isIP", "isCIDR", "quantity",
                         "isQuantity", "semver", "isSemver", "replace", "split", "join", "find", "findAll", "ip",
                         "ip.isCanonical", "containsIP", "containsCIDR", "fieldSelector", "labelSelector"})


def call_cost(function: str, overload: str, args: list[Any], result: Any) -> int:
    """What one call costs (runtimecost.go's costCall): Kubernetes' estimator first, then cel-go's
    standard functions by overload, 1 for everything else. `args` hold the target first."""
    if function in _KUBERNETES and (found := _kubernetes(function, overload, args, result)) is not None:
        return found
    if overload == "equals" or overload == "not_equals":
        return _ceil(min(size(args[0]), size(args[1])) * STRING_TRAVERSAL)
    if overload in ("starts_with_string", "ends_with_string", "string_to_bytes", "bytes_to_string", "strings_quote",
                    "string_format"):
        return _ceil(size(args[0]) * STRING_TRAVERSAL)
    if overload == "in_list":
        return size(args[1])
    if overload in _STRING_ORDER or overload in ("equals", "not_equals"):
        return _ceil(min(size(args[0]), size(args[1])) * STRING_TRAVERSAL)
    if overload in ("add_string", "add_bytes"):
        return _ceil((size(args[0]) + size(args[1])) * STRING_TRAVERSAL)
    if overload == "matches_string":
        return _ceil((1.0 + size(args[0])) * STRING_TRAVERSAL) * _ceil(size(args[1]) * REGEX_LENGTH)
    if overload == "contains_string":
        return _ceil(size(args[0]) * STRING_TRAVERSAL) * _ceil(size(args[1]) * STRING_TRAVERSAL)
    return 1


def _first_error(values: list[Any]) -> _Error | None:
    for value in values:
        if type(value) is _Error:
            return value
    return None


def _failure(value: Any) -> _Error:
    """The error a value that is not of the operand's type makes: its own, if it is one."""
    return value if isinstance(value, _Error) else NO_OVERLOAD


def _constant(e: Expr) -> bool:
    """Whether cel-go's optimizing planner makes `e` a constant: a literal, a list or map of constants,
    a conversion of a constant."""
    if e.kind == "literal":
        return True
    if e.kind in ("list", "map"):
        return all(_constant(arg) for arg in e.args)
    if e.kind == "call" and e.target is None and e.name in _CONVERSIONS and len(e.args) == 1:
        return _constant(e.args[0])
    return False


def _attribute(e: Expr) -> bool:
    """Whether cel-go plans `e` as an attribute: a name qualified by fields and indexes."""
    while True:
        if e.kind == "ident":
            return True
        if e.kind == "select" and not e.test_only and e.target is not None:
            e = e.target
        elif e.kind == "call" and e.name == "_[_]" and e.target is None and len(e.args) == 2:
            e = e.args[0]
        else:
            return False


def _plain(a: Any, b: Any) -> bool:
    """Both strings, or both integers (no bools): Python answers CEL's operators on them alike."""
    return (type(a) is str and type(b) is str) or (type(a) is int and type(b) is int)


_INT64 = (-2**63, 2**63 - 1)
_PLAIN, _LOGIC, _CONDITIONAL, _INDEX, _FOLDED, _SET_MEMBERSHIP, _UNTRACEABLE_STEP = (
    "plain", "logic", "conditional", "index", "folded", "set", "untraceable")


class _Tracer:
    def __init__(self, checked: Checked, data: dict[str, Any], limit: int) -> None:
        self.overloads = checked.overloads
        self.data = data
        self.limit = limit
        self.cost = 0
        self.locals: dict[str, list[Any]] = {}
        self.plans: dict[int, tuple[str, str]] = {}  # by the call's node

    def charge(self, amount: int) -> None:
        self.cost += amount
        if self.cost > self.limit:
            raise _Stop(self.cost)

    def lookup(self, name: str) -> Any:
        stack = self.locals.get(name)
        if stack:
            value = stack[-1]
            if isinstance(value, _Lazy):
                value = stack[-1] = self.outer(name, value)
            return value
        if name in self.data:
            return self.data[name]
        return _Error(f"no such attribute(s): {name}")

    def outer(self, name: str, lazy: _Lazy) -> Any:
        """An accumulator's initial value, evaluated where the comprehension is (without its own names)."""
        stack = self.locals[name]
        stack.pop()
        try:
            return self.eval(lazy.init)
        finally:
            stack.append(lazy)

    def eval(self, e: Expr | None) -> Any:
        if e is None:
            raise Untraceable("a missing expression")
        kind = e.kind
        if kind == "literal":
            return e.value
        if kind == "ident":
            self.charge(1)
            return self.lookup(e.name)
        if kind == "select":
            return self.select(e)
        if kind == "call":
            return self.call(e)
        if kind == "list":
            if _constant(e):
                return self.folded(e)
            values = [self.eval(arg) for arg in e.args]
            self.charge(LIST_CREATE)
            return _first_error(values) or values
        if kind == "map":
            if _constant(e):
                return self.folded(e)
            values = [self.eval(arg) for arg in e.args]
            self.charge(MAP_CREATE)
            if (failed := _first_error(values)) is not None:
                return failed
            return dict(zip(values[0::2], values[1::2], strict=True))
        if kind == "struct":
            raise Untraceable(kind)
        return self.comprehension(e)

    def folded(self, e: Expr) -> Any:
        """A constant's value, computed when cel-go plans the expression: no cost."""
        if e.kind == "literal":
            return e.value
        values = [self.folded(arg) for arg in e.args]
        if (failed := _first_error(values)) is not None:
            return failed
        if e.kind == "list":
            return values
        if e.kind == "map":
            keys = values[0::2]
            if not all(isinstance(k, (str, int, bool)) for k in keys):
                raise Untraceable("a map literal's keys")
            return dict(zip(keys, values[1::2], strict=True))
        return self.computed(e, values)

    def select(self, e: Expr) -> Any:
        assert e.target is not None
        target = self.eval(e.target)
        if not _attribute(e.target):
            self.charge(1)  # cel-go's relative attribute over a computed value
        if e.test_only:  # Kubernetes: a presence test costs its operand only (PresenceTestHasCost false)
            return e.name in target if isinstance(target, dict) else _failure(target)
        self.charge(1)
        if isinstance(target, dict):
            return target[e.name] if e.name in target else _Error(f"no such key: {e.name}")
        if target is None or isinstance(target, (str, int, float, bool, list, bytes, _Error)):
            return _failure(target)
        raise Untraceable("a select on a message")

    def comprehension(self, e: Expr) -> Any:
        target = self.eval(e.iter_range)
        if isinstance(target, _Error):
            return target
        if isinstance(target, dict):
            entries: Any = list(target.items()) if e.iter_var2 else [(k, None) for k in target]
        elif isinstance(target, list):
            entries = list(enumerate(target)) if e.iter_var2 else [(v, None) for v in target]
        else:
            raise Untraceable("a comprehension over a message")
        accu = self.locals.setdefault(e.accu_var, [])
        accu.append(_Lazy(e.accu_init))
        first = self.locals.setdefault(e.iter_var, [])
        second = self.locals.setdefault(e.iter_var2, []) if e.iter_var2 else None
        try:
            for one, two in entries:
                first.append(one)
                if second is not None:
                    second.append(two)
                try:
                    condition = self.eval(e.loop_condition)
                    if condition is not True and isinstance(condition, bool):
                        break
                    accu[-1] = self.eval(e.loop_step)
                finally:
                    first.pop()
                    if second is not None:
                        second.pop()
            return self.eval(e.result)
        finally:
            accu.pop()

    def call(self, e: Expr) -> Any:
        plan = self.plans.get(id(e))
        if plan is None:
            plan = self.plans[id(e)] = self.plan(e)
        step, overload = plan
        args = e.args
        if step == _PLAIN:
            values = [self.eval(e.target)] if e.target is not None else []
            for arg in args:
                values.append(self.eval(arg))
            result = self.computed(e, values)
            self.charge(call_cost(e.name, overload, values, result))
            return result
        if step == _LOGIC:
            decisive = e.name == "_||_"
            answer: Any = not decisive
            for arg in args:
                value = self.eval(arg)
                if value is decisive:
                    return decisive
                if not isinstance(value, bool) and not isinstance(answer, _Error):
                    answer = _failure(value)
            return answer
        if step == _CONDITIONAL:
            condition = self.eval(args[0])
            if not isinstance(condition, bool):
                return _failure(condition)
            branch = args[1] if condition else args[2]
            if _attribute(branch):
                self.cost -= 1  # cel-go's conditional attribute resolves the branch's qualifiers only
            return self.eval(branch)
        if step == _INDEX:
            return self.index(args)
        if step == _FOLDED:
            return self.folded(e)
        if step == _SET_MEMBERSHIP:  # a literal set: membership in a hash set, uncharged
            return self.computed(e, [self.eval(args[0]), self.folded(args[1])])
        raise Untraceable(e.name)

    def plan(self, e: Expr) -> tuple[str, str]:
        """How cel-go's planner runs a call, and the overload its cost is looked up by (none when the
        checker left several)."""
        name, args = e.name, e.args
        overloads = self.overloads.get(e.id, [])
        overload = overloads[0] if len(overloads) == 1 else ""
        if name in _UNTRACEABLE:
            return _UNTRACEABLE_STEP, overload
        if name in ("_&&_", "_||_"):
            return _LOGIC, overload
        if name == "_?_:_":
            return _CONDITIONAL, overload
        if name == "_[_]" and e.target is None and len(args) == 2:
            return _INDEX, overload
        if e.target is None and name in _CONVERSIONS and len(args) == 1 and _constant(args[0]):
            return _FOLDED, overload
        if overload == "in_list" and len(args) == 2 and args[1].kind == "list" and _constant(args[1]) \
                and all(arg.kind == "literal" and not isinstance(arg.value, bytes) for arg in args[1].args):
            return _SET_MEMBERSHIP, overload
        return _PLAIN, overload

    def index(self, args: list[Expr]) -> Any:
        target = self.eval(args[0])
        key = self.eval(args[1])
        if not _attribute(args[0]):
            self.charge(1)
        self.charge(1)
        if isinstance(target, list) and type(key) is int:
            return target[key] if 0 <= key < len(target) else _Error(f"index out of bounds: {key}")
        if isinstance(target, dict) and type(key) is str:
            return target[key] if key in target else _Error(f"no such key: {key}")
        if isinstance(target, _Error):
            return target
        if isinstance(key, _Error):
            return key
        return _engine("_[_]", False, 2)(target, key)

    def computed(self, e: Expr, values: list[Any]) -> Any:
        """The call's value: Python's for the hot operators on plain values, cel-expr-python's otherwise."""
        if (failed := _first_error(values)) is not None:
            return failed
        name = e.name
        if name == "@not_strictly_false":
            return values[0] if isinstance(values[0], bool) else True
        if len(values) == 2:
            a, b = values
            if name == "_==_" and (_plain(a, b) or (type(a) is bool and type(b) is bool)):
                return a == b
            if name == "_!=_" and (_plain(a, b) or (type(a) is bool and type(b) is bool)):
                return a != b
            if _plain(a, b):
                if name == "_<_":
                    return a < b
                if name == "_<=_":
                    return a <= b
                if name == "_>_":
                    return a > b
                if name == "_>=_":
                    return a >= b
                if name == "_+_":
                    total = a + b
                    if type(total) is str or _INT64[0] <= total <= _INT64[1]:
                        return total
            if name == "_+_" and type(a) is list and type(b) is list:
                return a + b
            if name == "@in" and type(b) is list and all(_plain(a, item) for item in b):
                return a in b
            if type(a) is str and type(b) is str:
                if name == "contains":
                    return b in a
                if name == "startsWith":
                    return a.startswith(b)
                if name == "endsWith":
                    return a.endswith(b)
        elif len(values) == 1:
            value = values[0]
            if name == "size" and isinstance(value, (list, dict, str, bytes)):
                return len(value)
            if name == "!_" and type(value) is bool:
                return not value
        return _engine(name, e.target is not None, len(values))(*values)


@lru_cache(maxsize=512)
def _engine(function: str, member: bool, count: int) -> Callable[..., Any]:
    """A call of `function` on bound values, run by cel-expr-python."""
    names = [f"__a{i}" for i in range(count)]
    if function in _INFIX and count == 2:
        text = f"{names[0]} {_INFIX[function]} {names[1]}"
    elif function == "_[_]":
        text = f"{names[0]}[{names[1]}]"
    elif function == "!_":
        text = f"!{names[0]}"
    elif function == "-_":
        text = f"-{names[0]}"
    elif member:
        text = f"{names[0]}.{function}({', '.join(names[1:])})"
    else:
        text = f"{function}({', '.join(names)})"
    program = environment.executable(text)

    def run(*values: Any) -> Any:
        try:
            bound = environment.activation(dict(zip(names, values, strict=True)))
            result = program.eval(bound.activation)
        except (RuntimeError, TypeError, ValueError) as error:  # a value the runtime cannot take back
            raise Untraceable(str(error)) from None
        kind = result.type()
        if kind == cel.Type.ERROR:
            return _Error(environment.runtime_message(str(result.value())))
        if kind in (cel.Type.LIST, cel.Type.MAP):
            return result.plain_value()
        try:
            return result.value()
        except TypeError:
            raise Untraceable("an optional value") from None
    return run


# The last costly walks to completion, by expression and values (held, so their ids stay theirs): a rule
# the budget traced and the runtime then could not evaluate (or the reverse) is walked once. Only walks
# that cost enough to be worth it are kept, and so only the values of the few requests that make them.
_DONE: dict[tuple[int, int], tuple[Checked, dict[str, Any], int, Any]] = {}
_DONE_KEPT = 128
_DONE_COST = 10_000
_DONE_LOCK = threading.Lock()


def _walked(checked: Checked, data: dict[str, Any], limit: int) -> tuple[int, Any]:
    """The cost and value of a whole walk (raises _Stop past `limit`, Untraceable)."""
    key = (id(checked), id(data))
    with _DONE_LOCK:
        found = _DONE.get(key)
    if found is not None and found[0] is checked and found[1] is data and found[2] <= limit:
        return found[2], found[3]
    tracer = _Tracer(checked, data, limit)
    value = tracer.eval(checked.expr)
    if tracer.cost >= _DONE_COST:
        with _DONE_LOCK:
            if len(_DONE) >= _DONE_KEPT:
                _DONE.pop(next(iter(_DONE)))
            _DONE[key] = (checked, data, tracer.cost, value)
    return tracer.cost, value


def replay(checked: Checked, data: dict[str, Any]) -> tuple[Any, str | None]:
    """The value of `checked` on `data`, or its error, computed by this walk: for what cel-expr-python
    cannot evaluate (more iterations than its runtime allows, where cel-go's limit is the cost).
    Raises Untraceable."""
    _, value = _walked(checked, data, UNLIMITED)
    if isinstance(value, _Error):
        return None, value.message
    return value, None


def trace(checked: Checked, data: dict[str, Any], limit: int) -> Traced | None:
    """The cost of evaluating `checked` on `data` (variable name to the value bound), stopping as cel-go
    does once it exceeds `limit`; None when the walk cannot replay the expression."""
    try:
        cost, _ = _walked(checked, data, limit)
    except _Stop as stop:
        return Traced(stop.cost, True)
    except (Untraceable, RecursionError):
        return None
    return Traced(cost, False)
