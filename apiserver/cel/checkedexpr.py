"""The type-checked AST of an expression, read from cel-expr-python's serialized `cel.expr.CheckedExpr`.

The cost estimator (apiserver/cel/cost.py) and the cost tracker (apiserver/cel/runtimecost.py) walk it
as cel-go's do. Only what they read is decoded, straight from the protobuf wire format (no generated
classes exist for these messages here): each expression's kind, operands and literal values, the
overloads the checker chose, and a coarse type.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

Fields = dict[int, list[Any]]


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def fields(data: bytes) -> Fields:
    """A message's fields by number: ints for varints and fixed-width values, bytes for the rest."""
    out: Fields = {}
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = int.from_bytes(data[at:at + 8], "little"), at + 8
        elif wire == 2:
            length, at = _varint(data, at)
            value, at = data[at:at + length], at + length
        elif wire == 5:
            value, at = int.from_bytes(data[at:at + 4], "little"), at + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _one(message: Fields, number: int, default: Any = None) -> Any:
    values = message.get(number)
    return values[-1] if values else default


@dataclass
class Expr:
    id: int
    kind: str  # literal, ident, select, call, list, map, struct, comprehension
    name: str = ""  # ident name, selected field, called function
    test_only: bool = False
    target: Expr | None = None
    args: list[Expr] = field(default_factory=list)  # call args, list elements, map keys and values
    literal: Any = None
    value: Any = None  # a literal's own value (`literal` is only what its size is read from)
    iter_var: str = ""
    iter_var2: str = ""
    accu_var: str = ""
    iter_range: Expr | None = None
    accu_init: Expr | None = None
    loop_condition: Expr | None = None
    loop_step: Expr | None = None
    result: Expr | None = None


def _literal(constant: Fields) -> Any:
    if 6 in constant:
        return bytes(constant[6][-1]).decode()
    if 7 in constant:
        return bytes(constant[7][-1])
    return 1  # numbers, bools, null, durations and timestamps all count as size 1


def _value(constant: Fields) -> Any:
    """A literal's value as the runtime binds it: null, bool, int (int64 and uint64), float, str, bytes."""
    if 2 in constant:
        return bool(constant[2][-1])
    if 3 in constant:
        number = int(constant[3][-1])
        return number - 2**64 if number >= 2**63 else number
    if 4 in constant:
        return int(constant[4][-1])
    if 5 in constant:
        return struct.unpack("<d", int(constant[5][-1]).to_bytes(8, "little"))[0]
    if 6 in constant:
        return bytes(constant[6][-1]).decode()
    if 7 in constant:
        return bytes(constant[7][-1])
    return None


def expression(data: bytes) -> Expr:
    message = fields(data)
    node = Expr(int(_one(message, 2, 0)), "literal")
    if 3 in message:
        constant = fields(_one(message, 3))
        node.literal, node.value = _literal(constant), _value(constant)
    elif 4 in message:
        node.kind, node.name = "ident", bytes(_one(fields(_one(message, 4)), 1, b"")).decode()
    elif 5 in message:
        select = fields(_one(message, 5))
        node.kind = "select"
        node.target = expression(_one(select, 1, b""))
        node.name = bytes(_one(select, 2, b"")).decode()
        node.test_only = bool(_one(select, 3, 0))
    elif 6 in message:
        call = fields(_one(message, 6))
        node.kind, node.name = "call", bytes(_one(call, 2, b"")).decode()
        node.target = expression(_one(call, 1)) if 1 in call else None
        node.args = [expression(arg) for arg in call.get(3, [])]
    elif 7 in message:
        node.kind, node.args = "list", [expression(e) for e in fields(_one(message, 7)).get(1, [])]
    elif 8 in message:
        struct = fields(_one(message, 8))
        node.kind = "map" if not _one(struct, 1) else "struct"
        for entry in struct.get(2, []):
            parts = fields(entry)
            if 3 in parts:
                node.args.append(expression(_one(parts, 3)))
            node.args.append(expression(_one(parts, 4, b"")))
    elif 9 in message:
        comp = fields(_one(message, 9))
        node.kind = "comprehension"
        node.iter_var = bytes(_one(comp, 1, b"")).decode()
        node.iter_var2 = bytes(_one(comp, 8, b"")).decode()
        node.accu_var = bytes(_one(comp, 3, b"")).decode()
        node.iter_range, node.accu_init = expression(_one(comp, 2, b"")), expression(_one(comp, 4, b""))
        node.loop_condition, node.loop_step = expression(_one(comp, 5, b"")), expression(_one(comp, 6, b""))
        node.result = expression(_one(comp, 7, b""))
    return node


def _type_kind(data: bytes) -> str:
    """A checked type, coarsely: the kinds the estimator tells apart."""
    message = fields(data)
    primitive = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
    if 3 in message:
        return primitive.get(int(_one(message, 3)), "dyn")
    if 5 in message:
        return {2: "timestamp", 3: "duration"}.get(int(_one(message, 5)), "dyn")
    if 6 in message:
        return "list"
    if 7 in message:
        return "map"
    if 9 in message:
        return "struct:" + bytes(_one(message, 9)).decode()
    if 10 in message:
        return "type_param"
    if 14 in message:
        abstract = fields(_one(message, 14))
        name = bytes(_one(abstract, 1, b"")).decode()
        if name == "optional_type" and abstract.get(2):
            return "optional:" + _type_kind(abstract[2][0])
        return "opaque"
    return "dyn"


def _element_kind(data: bytes) -> str | None:
    """A list type's element kind, which the estimator weighs by (strings cost their traversal)."""
    message = fields(data)
    if 6 not in message:
        return None
    element = fields(_one(message, 6)).get(1)
    return _type_kind(element[0]) if element else "dyn"


@dataclass
class Checked:
    expr: Expr
    overloads: dict[int, list[str]]
    types: dict[int, str]
    elements: dict[int, str]  # the element kind of each list-typed expression


def _map_entries(values: list[bytes]) -> list[tuple[int, bytes]]:
    out = []
    for entry in values:
        parts = fields(entry)
        out.append((int(_one(parts, 1, 0)), bytes(_one(parts, 2, b""))))
    return out


@lru_cache(maxsize=1024)
def parsed(serialized: bytes) -> Checked:
    """`parse`, once per expression: the cost tracker's walks and their memo key on the tree."""
    return parse(serialized)


def parse(serialized: bytes) -> Checked:
    """The AST of `Expression.serialize()`: a google.protobuf.Any holding a cel.expr.CheckedExpr."""
    checked = fields(bytes(_one(fields(serialized), 2, b"")))
    overloads = {}
    for key, reference in _map_entries(checked.get(2, [])):
        overloads[key] = [bytes(o).decode() for o in fields(reference).get(3, [])]
    entries = _map_entries(checked.get(3, []))
    types = {key: _type_kind(kind) for key, kind in entries}
    elements = {key: element for key, kind in entries if (element := _element_kind(kind)) is not None}
    return Checked(expression(bytes(_one(checked, 4, b""))), overloads, types, elements)


def walk(e: Expr | None) -> Iterator[Expr]:
    """Every expression in the tree, the root first."""
    if e is None:
        return
    yield e
    for child in (e.target, *e.args, e.iter_range, e.accu_init, e.loop_condition, e.loop_step, e.result):
        yield from walk(child)


def parsed_with_positions(parsed: bytes) -> tuple[Expr, dict[int, int]]:
    """The tree of a serialized google.protobuf.Any holding a cel.expr.ParsedExpr, and each of its
    expressions' offset in the text."""
    expression_message = fields(bytes(_one(fields(parsed), 2, b"")))
    found = {}
    for entry in fields(bytes(_one(expression_message, 3, b""))).get(4, []):
        parts = fields(entry)
        found[int(_one(parts, 1, 0))] = int(_one(parts, 2, 0))
    return expression(bytes(_one(expression_message, 2, b""))), found
