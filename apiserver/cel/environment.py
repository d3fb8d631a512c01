"""Compiling and evaluating CEL as kube-apiserver does, on cel-expr-python (Google's C++ runtime).

The engine was chosen by measurement (benches/micro/test_cel_bench.py, `python -m pytest
benches/micro/test_cel_bench.py --benchmark-only --benchmark-columns=min,median,rounds`, minimum of the
rounds on the shared 2-core machine): evaluating `self.replicas <= self.maxReplicas` takes 5.2 µs on
cel-expr-python, 18.5 µs on common-expression-language (Rust) and 156 µs on cel-python (pure Python);
`self.items.all(x, x.name.startsWith('a'))` over 50 items 28 µs, 184 µs and 9.2 ms. Rust compiles
faster (7.7 µs against 21 µs), but compiling happens once per schema or policy version, evaluating on
every write. cel-expr-python is also the only one that type-checks, parses `.?field` and
`optional.*`, and has cel-go's strings extension; none exposes cel-go's cost estimator or tracker.

An expression is compiled twice, once per job. Checking uses an environment whose variables have their
declared types (messages built from a schema, apiserver/cel/declared.py): it finds what upstream
refuses when a CRD or policy is written ("undefined field", "no matching overload") and the output
type. Evaluation uses a program compiled unchecked against `dyn` variables, so it binds the plain
Python values a request decoded, never a message. Both are cached by (expression, declared types), so
each policy or schema version compiles each expression once. Messages are given cel-go's wording,
because that is what clients of kube-apiserver see.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_optional, ext_strings

from apiserver.cel import (
    authz,
    checkedexpr,
    cost,
    formats,
    goregexp,
    library,
    macroruntime,
    macros,
    optionals,
    substrings,
)
from apiserver.cel.opaque import POOL

_LOCK = threading.Lock()


class CompileError(Exception):
    """An expression upstream would refuse, with cel-go's text ("ERROR: <input>:1:5: ...")."""


@dataclass(frozen=True)
class Outcome:
    """A finished evaluation: a value, or an error with cel-go's message."""

    value: Any
    error: str | None


@dataclass(frozen=True)
class Program:
    source: str
    output: str  # the checked output type: "bool", "string", ...
    variables: frozenset[str]  # the variables it references
    executable: Any
    checked: Any = None  # the type-checked expression, for the cost estimate

    def returns(self, wanted: tuple[str, ...], output: str | None = None) -> bool:
        """Whether the output type (or `output`, as the caller spells it) is one of `wanted`: upstream
        compares types exactly, so `object.spec.flag` (dyn) is no bool. But `variables`, which upstream
        types field by field from each variable's expression, is declared dyn here, so an expression
        that reads it may answer dyn."""
        found = self.output if output is None else output
        return found in wanted or (found == "dyn" and "variables" in self.variables)

    def max_cost(self, sizer: Any) -> int:
        """cel-go's estimate of the most this expression can cost (apiserver/cel/cost.py)."""
        return cost.estimate(checkedexpr.parse(self.checked.serialize()), sizer)

    def _field_of_null(self, nulls: frozenset[str]) -> str | None:
        """The field of the first select, in the order the text reads, on a variable bound to null."""
        if not nulls or self.checked is None:
            return None
        return next((e.name for e in checkedexpr.walk(checkedexpr.parse(self.checked.serialize()).expr)
                     if e.kind == "select" and e.target is not None and e.target.kind == "ident"
                     and e.target.name in nulls), None)

    def evaluate(self, data: dict[str, Any] | Bound) -> Outcome:
        """Evaluates on `data` (variable name to value) or on an `activation` of it made once for several
        programs: binding the values is most of an evaluation's cost."""
        bound = activation(data) if isinstance(data, dict) else data
        try:
            result = self.executable.eval(bound.activation)
        except RuntimeError as error:
            if _ITERATION_BUDGET not in str(error):
                raise
            return self._replayed(bound)
        kind = result.type()
        if kind == cel.Type.ERROR:
            try:
                text = str(result.value())
            except TypeError:
                # An optional (its kind reads as ERROR): cel-expr-python cannot hand it to Python.
                return Outcome(None, "an optional value cannot leave the expression here")
            if _SELECT_ON_NULL in text and (field := self._field_of_null(bound.nulls)) is not None:
                return Outcome(None, f"no such key: {field}")
            return Outcome(None, runtime_message(text))
        return Outcome(result.plain_value() if kind in _COMPOSITE else result.value(), None)


    def _replayed(self, bound: Bound) -> Outcome:
        """The evaluation cel-expr-python gives up on past its runtime's iteration budget (10,000),
        which cel-go does not have (its limit is the cost, apiserver/cel/budget.py): computed by the
        cost tracker's walk of the expression instead."""
        from apiserver.cel import runtimecost  # it runs calls through this module

        try:
            value, error = runtimecost.replay(checkedexpr.parsed(self.checked.serialize()), bound.values)
        except runtimecost.Untraceable:
            return Outcome(None, "iteration budget exceeded")
        return Outcome(value, error)


_COMPOSITE = (cel.Type.LIST, cel.Type.MAP)
_ITERATION_BUDGET = "Iteration budget exceeded"
# cel-cpp's error for a select on null, which names no field; cel-go's names it ("no such key: data").
_SELECT_ON_NULL = "Applying SELECT to non-message type"


def _extensions(as_written: bool, checking: bool, probing: bool = False) -> list[Any]:
    functions = library.declarations(checking, probing) + formats.declarations(as_written) + \
        authz.declarations(checking)
    # what macros.py's and substrings.py's rewrites call
    rewritten = [] if as_written else [*macroruntime.extensions(checking), substrings.declaration()]
    # the strings extension at version 2, as upstream's base environment has it (no string reverse())
    return [ext_optional.ExtOptional(), ext_strings.ExtStrings(2), cel.CelExtension("k8s", functions), *rewritten]


@lru_cache(maxsize=64)
def _checking_env(variables: tuple[tuple[str, str], ...], as_written: bool = True, probing: bool = False) -> Any:
    with _LOCK:
        return cel.NewEnv(POOL, config=macros.config(), variables={name: _type(sig) for name, sig in variables},
                          extensions=_extensions(as_written, True, probing))


_TYPES: dict[str, Any] = {}


def _type(signature: str) -> Any:
    return _TYPES[signature]


def type_key(cel_type: Any) -> str:
    """A hashable name for a declared type, remembered so the checking environment can be rebuilt."""
    name = str(cel_type.name())
    _TYPES.setdefault(name, cel_type)
    return name


_EVAL_ENV = cel.NewEnv(POOL, extensions=_extensions(False, False))
# Two-variable comprehensions are parsed where cel-expr-python declares their `cel.@mapInsert` and run in
# _EVAL_ENV, where it is apiserver/cel/macros.py's; texts as written are parsed without them, to find
# the macro calls upstream refuses.
_MACRO_PARSE_ENV = cel.NewEnv(POOL, config=macros.config(), extensions=_extensions(False, True))
_PARSE_ENV = cel.NewEnv(extensions=[ext_optional.ExtOptional(), ext_strings.ExtStrings()])


@dataclass(frozen=True)
class Bound:
    """Values bound once for any number of evaluations, and which of them are null (to name the field a
    select on one fails at, as cel-go does and cel-cpp does not)."""

    activation: Any
    nulls: frozenset[str]
    values: dict[str, Any]  # as bound, for what the runtime cannot evaluate (Program._replayed)


def activation(data: dict[str, Any]) -> Bound:
    """The values bound once for any number of evaluations. cel-expr-python converts them when the
    activation is made: `eval(data=...)` took 92 µs on a ConfigMap update's variables where making an
    activation took 8 and evaluating on it 5."""
    return Bound(_EVAL_ENV.Activation(data), frozenset(name for name, value in data.items() if value is None), data)


def _parsed(env: Any, source: str) -> bytes | None:
    """The serialized parse of `source`, or None when it does not parse (checking it reports why)."""
    with _LOCK:
        try:
            serialized: bytes = env.compile(source, disable_check=True).serialize()
            return serialized
        except RuntimeError:
            return None


@lru_cache(maxsize=4096)
def _prepared(source: str) -> macros.Prepared | None:
    """`source` with apiserver/cel/macros.py's rewrites, or None when it needs none."""
    if not any(marker in source for marker in macros.MARKERS):
        return None
    parsed = _parsed(_PARSE_ENV, source)
    if parsed is None:
        return None
    try:
        return macros.prepare(source, parsed)
    except macros.MacroError as error:
        raise CompileError(str(error)) from None


def _written(source: str) -> str:
    prepared = _prepared(source)
    return source if prepared is None else prepared.text


@lru_cache(maxsize=4096)
def _runnable(source: str) -> str:
    """The text that is run: `source` with the macros rewritten (apiserver/cel/macros.py), the
    library's optional-answering calls (apiserver/cel/optionals.py) and substring in cel-go's words
    (apiserver/cel/substrings.py)."""
    source = _written(source)
    if any(marker in source for marker in optionals.MARKERS):
        parsed = _parsed(_MACRO_PARSE_ENV, source)
        source = source if parsed is None else optionals.rewrite(source, parsed) or source
    if substrings.MARKER in source:
        parsed = _parsed(_MACRO_PARSE_ENV, source)
        source = source if parsed is None else substrings.rewrite(source, parsed) or source
    return source


@lru_cache(maxsize=4096)
def _executable(source: str) -> Any:
    runnable = _runnable(source)
    with _LOCK:
        if "transformMap" in runnable:
            parsed = _PARSE_ENV.compile(runnable, disable_check=True).serialize()
            runnable = macros.evaluation_text(runnable, parsed) or runnable
        if not any(marker in runnable for marker in macros.MARKERS):
            return _EVAL_ENV.compile(runnable, disable_check=True)
        return _EVAL_ENV.deserialize(_MACRO_PARSE_ENV.compile(runnable, disable_check=True).serialize())


def executable(source: str) -> Any:
    """`source` compiled to run unchecked on `dyn` variables, as every program here runs."""
    return _executable(source)


def compile_checked(source: str, variables: dict[str, Any]) -> Program:
    """Type-checks `source` against `variables` (name to cel.Type) and returns its program."""
    return _compile(source, tuple(sorted((name, type_key(t)) for name, t in variables.items())))


@lru_cache(maxsize=4096)
def _compile(source: str, variables: tuple[tuple[str, str], ...]) -> Program:
    prepared = _prepared(source)
    written = source if prepared is None else prepared.text
    env = _checking_env(variables, prepared is None or not prepared.rewritten)
    try:
        checked = env.compile(written)
    except RuntimeError as error:
        as_written = prepared is None or not prepared.rewritten
        message = compile_message(_member_call_error(written, variables, as_written, str(error)))
        if prepared is not None:
            message = by_location(macros.restore_positions(message, prepared))
        if not source:
            # cel-go places the end of an empty expression at column 0, cel-cpp at column 1.
            message = message.replace("<input>:1:1:", "<input>:1:0:", 1)
        dyn = type_key(cel.Type.DYN)
        if _only_numeric_comparisons(message) and any(kind != dyn for _, kind in variables):
            # cel-go, as Kubernetes configures it, compares int, uint and double across types; this
            # checker does not, so such an expression is checked again with its variables dyn.
            return _compile(source, tuple((name, dyn) for name, _ in variables))
        raise CompileError(_without_numeric_comparisons(message)) from None
    runnable = _runnable(source)
    if runnable != written:  # checked again as it runs, for the optional types the text as written hides
        try:
            checked = _checking_env(variables, False).compile(runnable)
        except RuntimeError as error:
            raise CompileError(compile_message(str(error))) from None
    output = _type_name(checked.return_type())
    used = frozenset(name for name, _ in variables if re.search(rf"\b{re.escape(name)}\b", source))
    return Program(source, output, used, _executable(source), checked)


def _member_call_error(source: str, variables: tuple[tuple[str, str], ...], as_written: bool, error: str) -> str:
    """cel-cpp finds no such function where a global-only one is called as a member; cel-go names the
    overload that does not match and its operands: the check is made again with such calls probed."""
    if not any(f"undeclared reference to '{name}'" in error for name in library.GLOBAL_ONLY):
        return error
    try:
        _checking_env(variables, as_written, True).compile(source)
    except RuntimeError as probed:
        return str(probed)
    return error


def _type_name(cel_type: Any) -> str:
    name = str(cel_type.name())
    if "optional_type<" in name:
        # cel-go's spelling, as "must evaluate to bool but got optional_type(list(string))" shows it: type
        # parameters in parentheses, CEL's own type names in lower case, messages' as declared.
        name = re.sub(r"\b[A-Z_]+\b", lambda found: found.group(0).lower(), name)
        return name.replace("<", "(").replace(">", ")")
    name = name.lower()
    return {"list<dyn>": "list(dyn)"}.get(name, name)


_PREFIX = re.compile(r"^[A-Z_]+: ")
_SUFFIX = re.compile(r" \[[A-Z_]+\]$")
_UNDEFINED_FIELD = re.compile(r"undefined field '([^']*)' not found in struct '[^']*'")
_NO_SELECTION = re.compile(r"expression of type '([^']*)' cannot be the operand of a select operation")
# cel-go names the well-known timestamp and duration types as CEL does in an overload's operands
_WELL_KNOWN_OPERANDS = re.compile(r"applied to '[^'\n]*'")


_NO_OVERLOAD = re.compile(r"^ERROR: <input>:\d+:(\d+): found no matching overload for '([^']*)' applied to '\((.*)\)'$")


_NUMERIC = {"int", "uint", "double"}


def _only_numeric_comparisons(message: str) -> bool:
    errors = [line for line in message.split("\n") if line.startswith("ERROR: ")]
    for line in errors:
        found = _NO_OVERLOAD.match(line)
        if found is None or found.group(2) not in ("_<_", "_<=_", "_>_", "_>=_"):
            return False
        if not set(_split_types(found.group(3))) <= _NUMERIC:
            return False
    return bool(errors)


def _without_numeric_comparisons(message: str) -> str:
    """The errors cel-go would report: not the cross-type numeric comparisons it allows."""
    kept: list[str] = []
    dropping = False
    for line in message.split("\n"):
        if line.startswith("ERROR: "):
            dropping = _only_numeric_comparisons(line)
        if not dropping:
            kept.append(line)
    return "\n".join(kept) if kept else message


def _split_types(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += char in "(<" and 1 or char in ")>" and -1 or 0
        if char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _member_calls(lines: list[str]) -> list[str]:
    """cel-go names a member call's operand types 'int.(string)', cel-cpp '(int, string)': the source line
    under the error tells which it was (a '.' before the function's name)."""
    out = list(lines)
    for i, line in enumerate(lines):
        found = _NO_OVERLOAD.match(line)
        if found is None or i + 1 >= len(lines) or not lines[i + 1].startswith(" | "):
            continue
        column, function, types = int(found.group(1)), found.group(2), _split_types(found.group(3))
        source = lines[i + 1][3:]
        before = column - 1 - len(function) - 1
        if types and 0 <= before < len(source) and source[before] == "." and \
                source[before + 1:column - 1] == function:
            member = f"{types[0]}.({', '.join(types[1:])})"
            out[i] = line[:line.rindex(" applied to ")] + f" applied to '{member}'"
    return out


_QUALIFIED_REFERENCE = re.compile(r"^ERROR: <input>:(\d+):(\d+): undeclared reference to '(\w+)((?:\.\w+)+)'")


def _qualified_references(lines: list[str]) -> list[str]:
    """cel-cpp reports `a.b.c` with `a` undeclared as the whole name, at its last dot; cel-go as `a`, where
    it starts (the caret line below follows)."""
    out = list(lines)
    for i, line in enumerate(out):
        if (found := _QUALIFIED_REFERENCE.match(line)) is None:
            continue
        row, column, head, rest = found.group(1), int(found.group(2)), found.group(3), found.group(4)
        start = column - len(head) - len(rest) + len(rest.rsplit(".", 1)[1]) + 1
        if start < 1:
            continue
        out[i] = (f"ERROR: <input>:{row}:{start}: undeclared reference to '{head}'"
                  + line[found.end():])
        if i + 2 < len(out) and out[i + 2].lstrip().startswith("| ") and out[i + 2].rstrip().endswith("^"):
            out[i + 2] = out[i + 2][:out[i + 2].index("| ") + 2] + "." * (start - 1) + "^"
    return out


_LOCATION = re.compile(r"^[A-Z]+: <input>:(\d+):(\d+): ")


def by_location(message: str) -> str:
    """The errors in the order cel-go's Errors.ToDisplayString gives them: by line, then column."""
    blocks: list[list[str]] = []
    for line in message.split("\n"):
        if blocks and not _LOCATION.match(line):
            blocks[-1].append(line)  # an error's source line and caret
        else:
            blocks.append([line])

    def location(block: list[str]) -> tuple[int, int]:
        found = _LOCATION.match(block[0])
        return (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    return "\n".join(line for block in sorted(blocks, key=location) for line in block)


def compile_message(text: str) -> str:
    """cel-cpp's compile error in cel-go's words."""
    text = _SUFFIX.sub("", _PREFIX.sub("", text.strip()))
    text = _UNDEFINED_FIELD.sub(r"undefined field '\1'", text)
    text = _NO_SELECTION.sub(r"type '\1' does not support field selection", text)
    text = _WELL_KNOWN_OPERANDS.sub(lambda found: found.group(0).replace("google.protobuf.Timestamp", "timestamp")
                                    .replace("google.protobuf.Duration", "duration"), text)
    return by_location("\n".join(_qualified_references(_member_calls(text.split("\n")))))


# cel-cpp quotes a string key with double quotes, or single ones when it holds a double quote.
_KEY_NOT_FOUND = re.compile(r"""Key not found in map : (?:"(.*)"|'(.*)'|(.*))$""", re.DOTALL)


def runtime_message(text: str) -> str:
    """cel-cpp's evaluation error in cel-go's words (what a rule's failure message quotes)."""
    text = _SUFFIX.sub("", _PREFIX.sub("", text.strip()))
    if (missing := _KEY_NOT_FOUND.search(text)) is not None:
        return "no such key: " + next(group for group in missing.groups() if group is not None)
    if text.startswith("No matching overloads found"):
        return "no such overload"
    if text == "divide by zero":
        return "division by zero"
    if (index := _INDEX_ERROR.fullmatch(text)) is not None:
        return f"index out of bounds: {index.group(1)}"
    if (conversion := _CONVERSION_ERROR.fullmatch(text)) is not None:
        return f"type conversion error from '{conversion.group(1)}' to '{conversion.group(2)}'"
    if (regex := _REGEX_ERROR.fullmatch(text)) is not None:
        return goregexp.go_error(goregexp.RE2_TO_GO.get(regex.group(1), regex.group(1)), regex.group(2) or "")
    return _CONVERSIONS.get(text, text)


# cel-cpp's list index error, and cel-go's for an index of a variable's list (its attribute's).
_INDEX_ERROR = re.compile(r"Index error: index=(-?\d+) size=\d+")
_CONVERSION_ERROR = re.compile(r"cannot convert (string|int|uint|double|bytes) to (int|uint|double|string|bytes)")
# cel-cpp's words for a regular expression that does not parse: RE2's, which goregexp puts in Go's.
_REGEX_ERROR = re.compile(r"invalid regular expression: ([^:]+)(?:: (.*))?", re.DOTALL)

# cel-cpp's words for a string that is no duration or timestamp, and cel-go's.
_CONVERSIONS = {"String to Duration conversion failed": "type conversion error from 'string' to "
                                                        "'google.protobuf.Duration'",
                "String to Timestamp conversion failed": "type conversion error from 'string' to "
                                                         "'google.protobuf.Timestamp'"}
