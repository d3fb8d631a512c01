"""Label selectors: kube-apiserver's grammar and error messages, matched against a labels mapping.

`x in (a,b),y,!z,w!=v` parses once per request into requirements; matching needs only the object's
`metadata.labels`, which the caller decodes without touching the rest of the object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping

from apiserver.kinds.validation import label_value, qualified_name

Operator = Literal["in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"]

_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_SYMBOLS = {")": "CLOSE", ",": "COMMA", "!": "NOT", "==": "DEQ", "=": "EQ", ">": "GT", "<": "LT", "!=": "NEQ",
            "(": "OPEN"}
_KEYWORDS = {"in": "IN", "notin": "NOTIN"}
_BINARY = "in, notin, =, ==, !=, gt, lt"

class SelectorError(ValueError):
    """The selector text is not valid; the message is kube-apiserver's."""


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    operator: Operator
    values: frozenset[str]

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        value = labels.get(self.key)
        if op in ("=", "==", "in"):
            return value is not None and value in self.values
        if op in ("!=", "notin"):
            return value is None or value not in self.values
        if op == "exists":
            return self.key in labels
        if op == "!":
            return self.key not in labels
        if value is None:
            return False
        try:
            actual = int(value)
        except ValueError:
            return False
        bound = int(next(iter(self.values)))
        return actual > bound if op == "gt" else actual < bound


@dataclass(frozen=True, slots=True)
class LabelSelector:
    requirements: tuple[Requirement, ...]

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        labels = labels or {}
        return all(r.matches(labels) for r in self.requirements)


EVERYTHING = LabelSelector(())


def parse_label_selector(text: str) -> LabelSelector:
    """Parses `text` the way apimachinery's labels.Parse does, raising SelectorError with its message."""
    tokens = _lex(text)
    pos = 0
    requirements: list[Requirement] = []

    def peek() -> tuple[str, str]:
        tok, lit = tokens[pos]
        return ("ID" if tok in ("IN", "NOTIN") else tok), lit

    def take(values_context: bool = True) -> tuple[str, str]:
        nonlocal pos
        tok, lit = tokens[pos]
        pos += 1
        if values_context and tok in ("IN", "NOTIN"):
            tok = "ID"
        return tok, lit

    def requirement() -> Requirement:
        tok, key = take()
        negated = tok == "NOT"
        if negated:
            tok, key = take()
        if tok != "ID":
            raise SelectorError(f"found '{key}', expected: identifier")
        _check_key(key, "<nil>")
        if negated or peek()[0] in ("END", "COMMA"):
            return _requirement(key, "!" if negated else "exists", [])
        tok, lit = take(values_context=False)
        operator: Operator
        if tok in ("IN", "NOTIN"):
            operator = "in" if tok == "IN" else "notin"
            return _requirement(key, operator, sorted(value_set()))
        named: dict[str, Operator] = {"EQ": "=", "DEQ": "==", "NEQ": "!=", "GT": "gt", "LT": "lt"}
        if tok not in named:
            raise SelectorError(f"found '{lit}', expected: {_BINARY}")
        if peek()[0] in ("END", "COMMA"):
            return _requirement(key, named[tok], [""])
        tok2, lit2 = take()
        if tok2 != "ID":
            raise SelectorError(f"found '{lit2}', expected: identifier")
        return _requirement(key, named[tok], [lit2])

    def value_set() -> set[str]:
        tok, lit = take()
        if tok != "OPEN":
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = peek()
        if tok == "CLOSE":
            take()
            return {""}
        if tok not in ("ID", "COMMA"):
            raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")
        values = identifiers()
        if take()[0] != "CLOSE":
            raise SelectorError(f"found '{lit}', expected: ')'")
        return values

    def identifiers() -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = take()
            if tok == "ID":
                values.add(lit)
                tok2, lit2 = peek()
                if tok2 == "COMMA":
                    continue
                if tok2 == "CLOSE":
                    return values
                raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            if tok == "COMMA":
                # `(,`, `,,` and `,)` each stand for an empty value
                if not values:
                    values.add("")
                tok2 = peek()[0]
                if tok2 == "CLOSE":
                    values.add("")
                    return values
                if tok2 == "COMMA":
                    take()
                    values.add("")
                continue
            raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    while True:
        tok, lit = peek()
        if tok == "END":
            break
        if tok not in ("ID", "NOT"):
            raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")
        try:
            requirements.append(requirement())
        except SelectorError as exc:
            raise SelectorError(f"unable to parse requirement: {exc}") from None
        tok, lit = take()
        if tok == "END":
            break
        if tok != "COMMA":
            raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
        tok2, lit2 = peek()
        if tok2 not in ("ID", "NOT"):
            raise SelectorError(f"found '{lit2}', expected: identifier after ','")
    return LabelSelector(tuple(sorted(requirements, key=lambda r: r.key)))


def _lex(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        if i >= n:
            tokens.append(("END", ""))
            return tokens
        if text[i] in _SPECIAL:
            # the longest run of symbols that still forms an operator, as the upstream lexer scans
            best: tuple[str, str] | None = None
            j = i
            while j < n and text[j] in _SPECIAL:
                candidate = text[i:j + 1]
                if candidate in _SYMBOLS:
                    best = (_SYMBOLS[candidate], candidate)
                elif best is not None:
                    break
                j += 1
            if best is None:
                tokens.append(("ERROR", f"error expected: keyword found '{text[i:j]}'"))
                i = j
            else:
                tokens.append(best)
                i += len(best[1])
            continue
        j = i
        while j < n and text[j] not in _SPECIAL and text[j] not in _WHITESPACE:
            j += 1
        word = text[i:j]
        tokens.append((_KEYWORDS.get(word, "ID"), word))
        i = j


def _requirement(key: str, operator: Operator, values: list[str]) -> Requirement:
    problems: list[str] = []
    if operator in ("gt", "lt"):
        for i, value in enumerate(values):
            if not _is_int64(value):
                problems.append(f'values[{i}]: Invalid value: "{value}": for \'Gt\', \'Lt\' operators, the value must '
                                "be an integer")
    for i, value in enumerate(values):
        for problem in label_value(value):
            problems.append(f'values[{i}][{key}]: Invalid value: "{value}": {problem}')
    if len(problems) == 1:
        raise SelectorError(problems[0])
    if problems:
        raise SelectorError("[" + ", ".join(problems) + "]")
    return Requirement(key, operator, frozenset(values))


def _is_int64(value: str) -> bool:
    try:
        return -(2 ** 63) <= int(value, 10) < 2 ** 63 and value.strip() == value and "_" not in value
    except ValueError:
        return False


def _check_key(key: str, path: str) -> None:
    problems = qualified_name(key)
    if problems:
        raise SelectorError(f'{path}: Invalid value: "{key}": ' + "; ".join(problems))


_EXPRESSION_OPERATORS: dict[str, Operator] = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


def from_label_selector(selector: object) -> LabelSelector | None:
    """A metav1.LabelSelector object as a selector, as LabelSelectorAsSelector reads it.

    None when it selects nothing: an absent selector or one it cannot read. An empty one selects everything.
    """
    if not isinstance(selector, dict):
        return None
    requirements: list[Requirement] = []
    try:
        for key, value in sorted((selector.get("matchLabels") or {}).items()):
            _check_key(str(key), "key")
            requirements.append(_requirement(str(key), "=", [str(value)]))
        for expression in selector.get("matchExpressions") or ():
            operator = _EXPRESSION_OPERATORS.get(str(expression.get("operator")))
            values = [str(v) for v in expression.get("values") or ()]
            if operator is None or (operator in ("in", "notin")) != bool(values):
                return None
            _check_key(str(expression.get("key")), "key")
            requirements.append(_requirement(str(expression.get("key")), operator, values))
    except (SelectorError, AttributeError):
        return None
    return LabelSelector(tuple(requirements))
