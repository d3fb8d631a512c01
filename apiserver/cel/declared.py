"""A structural schema as CEL sees it: a protobuf message to type-check against, and the value to bind.

Upstream declares each schema level as a CEL object type (`apiserver/pkg/cel/common/schemas.go`,
`SchemaDeclType`): properties become fields (names escaped as `cel.Escape` does), `additionalProperties`
a map, `items` a list, `int-or-string` and free-form objects `dyn`; strings with format `byte`,
`duration`, `date`/`date-time` become bytes, durations and timestamps; a resource's root (or an
embedded resource) also declares `apiVersion`, `kind` and `metadata.{name,generateName}` only.
cel-expr-python type-checks against protobuf messages, so the declared type is a message built from the
schema into the shared pool (proto2, so `has()` means presence); lists and maps nested directly in a
list or map, which a message cannot hold, become `google.protobuf.Value` (dyn), as does `dyn` itself.
Numbers are doubles, as upstream declares them (`self.ratio == 1` does not compile); cel-go also
checks `self.ratio >= 0` with Kubernetes' cross-type numeric comparisons, which cel-expr-python's
checker does not offer, so apiserver/cel/environment.py checks such an expression again with dyn
variables.
Evaluation binds plain Python values (the runtime reads maps as objects); `bind` converts only what
the declared type changes (numbers declared `number`, formatted strings, escaped names), and is `None`
when the whole subtree needs nothing.
"""

from __future__ import annotations

import base64
import datetime
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, duration_pb2, timestamp_pb2

from apiserver.cel.opaque import POOL, add_file, unique_file_name
from apiserver.crd import durations

Schema = dict[str, Any]
Binder = Callable[[Any], Any]
F = descriptor_pb2.FieldDescriptorProto

_RESERVED = {"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
             "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}
_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
_ESCAPABLE = re.compile(r"[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*")
_TO_ESCAPE = re.compile(r"__|[./-]")
# reserved words that still parse after a dot (`self.namespace`), unlike `in`, `true`, `false`, `null`
_KEYWORD_FIELD = re.compile(r"(?!(?:in|true|false|null)$)[a-z]+")
_SCALARS = {"integer": (F.TYPE_INT64, cel.Type.INT), "number": (F.TYPE_DOUBLE, cel.Type.DOUBLE),
            "boolean": (F.TYPE_BOOL, cel.Type.BOOL), "string": (F.TYPE_STRING, cel.Type.STRING)}
_FORMATTED = {"byte": (F.TYPE_BYTES, None, cel.Type.BYTES),
              "duration": (F.TYPE_MESSAGE, ".google.protobuf.Duration", cel.Type.DURATION),
              "date": (F.TYPE_MESSAGE, ".google.protobuf.Timestamp", cel.Type.TIMESTAMP),
              "date-time": (F.TYPE_MESSAGE, ".google.protobuf.Timestamp", cel.Type.TIMESTAMP)}
_DYN = ".google.protobuf.Value"
_packages = itertools.count()


def escape(name: str) -> str | None:
    """The CEL field name of a property, or None when it has none (upstream's `cel.Escape`)."""
    if not name or name[0].isdigit() or not _ESCAPABLE.fullmatch(name):
        return None
    if name in _RESERVED:
        return f"__{name}__"
    return _TO_ESCAPE.sub(lambda m: _ESCAPES[m.group(0)], name)


@dataclass(frozen=True)
class Declared:
    cel_type: Any  # cel.Type
    bind: Binder | None


def _kind(schema: Schema) -> str:
    if schema.get("x-kubernetes-int-or-string"):
        return "dyn"
    kind = schema.get("type")
    if kind == "object" or schema.get("x-kubernetes-embedded-resource"):
        if schema.get("properties") or schema.get("x-kubernetes-embedded-resource"):
            return "object"
        if isinstance(schema.get("additionalProperties"), dict):
            return "map"
        # SchemaDeclType ignores x-kubernetes-preserve-unknown-fields: an object without properties
        # declares no fields, so a rule naming an unknown one does not compile.
        return "object"
    if kind == "array":
        return "list" if isinstance(schema.get("items"), dict) else "dyn"
    return kind if kind in _SCALARS else "dyn"


class _Builder:
    def __init__(self) -> None:
        self.package = f"k8s.schema{next(_packages)}"
        self.file = descriptor_pb2.FileDescriptorProto(
            name=unique_file_name("k8s_schema"), package=self.package, syntax="proto2",
            dependency=["google/protobuf/struct.proto", "google/protobuf/timestamp.proto",
                        "google/protobuf/duration.proto"])
        self.names = itertools.count()

    def declare(self, schema: Schema, root: bool) -> Declared:
        kind = _kind(schema)
        if kind == "object":
            name = self.message(schema, root)
            return Declared(cel.Type(name), _object_binder(schema))
        if kind == "map":
            value = self.declare(schema["additionalProperties"], False)
            element = value.cel_type if _kind(schema["additionalProperties"]) not in ("list", "map") else cel.Type.DYN
            return Declared(cel.Type.Map(cel.Type.STRING, element), _map_binder(value.bind))
        if kind == "list":
            item = self.declare(schema["items"], bool(schema["items"].get("x-kubernetes-embedded-resource")))
            element = item.cel_type if _kind(schema["items"]) not in ("list", "map") else cel.Type.DYN
            return Declared(cel.Type.List(element), _list_binder(item.bind))
        if kind == "dyn":
            return Declared(cel.Type.DYN, None)
        formatted = _FORMATTED.get(schema.get("format", "")) if kind == "string" else None
        if formatted is not None:
            return Declared(formatted[2], _FORMAT_BINDERS[schema["format"]])
        if kind == "number":
            return Declared(cel.Type.DOUBLE, _to_float)
        return Declared(_SCALARS[kind][1], None)

    def message(self, schema: Schema, root: bool) -> str:
        """Adds a message for an object schema (nested ones first) and returns its full name."""
        message = self.file.message_type.add(name=f"Object{next(self.names)}")
        properties = dict(schema.get("properties") or {})
        if root or schema.get("x-kubernetes-embedded-resource"):
            properties.setdefault("apiVersion", {"type": "string"})
            properties.setdefault("kind", {"type": "string"})
            properties["metadata"] = {"type": "object", "properties": {
                "name": {"type": "string"}, "generateName": {"type": "string"}}}
        for number, (key, sub) in enumerate(properties.items(), start=1):
            field_name = escape(key)
            if field_name is None or not isinstance(sub, dict):
                continue
            self.field(message, field_name, number, sub)
            if _KEYWORD_FIELD.fullmatch(key) and key in _RESERVED:
                # upstream's type provider finds `self.namespace` as `self.__namespace__` too
                # (recognizeKeywordAsFieldName); numbered past every property's own
                self.field(message, key, len(properties) + number, sub)
        return f"{self.package}.{message.name}"

    def field(self, message: Any, name: str, number: int, schema: Schema) -> None:
        kind = _kind(schema)
        label = F.LABEL_OPTIONAL
        if kind == "list":
            label, schema = F.LABEL_REPEATED, schema["items"]
            kind = _kind(schema)
            if kind in ("list", "map"):
                kind = "dyn"
        if kind == "map":
            entry = message.nested_type.add(name=_map_entry_name(name))
            entry.options.map_entry = True
            entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
            value = schema["additionalProperties"]
            self.field(entry, "value", 2, value if _kind(value) not in ("list", "map") else {})
            message.field.add(name=name, number=number, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                              type_name=f".{self.package}.{message.name}.{entry.name}")
            return
        if kind == "object":
            message.field.add(name=name, number=number, type=F.TYPE_MESSAGE, label=label,
                              type_name="." + self.message(schema, False))
        elif kind == "dyn":
            message.field.add(name=name, number=number, type=F.TYPE_MESSAGE, label=label, type_name=_DYN)
        else:
            formatted = _FORMATTED.get(schema.get("format", "")) if kind == "string" else None
            if formatted is not None:
                added = message.field.add(name=name, number=number, type=formatted[0], label=label)
                if formatted[1]:
                    added.type_name = formatted[1]
            else:
                message.field.add(name=name, number=number, type=_SCALARS[kind][0], label=label)


def _map_entry_name(field_name: str) -> str:
    """protobuf's required name for a map field's entry message: the field's name in CamelCase."""
    name, upper = "", True
    for char in field_name:
        if char == "_":
            upper = True
        else:
            name, upper = name + (char.upper() if upper else char), False
    return name + "Entry"


def declare(schema: Schema, root: bool) -> Declared:
    """The CEL type of values of `schema` (a message added to the pool for objects) and their binder.

    A schema protobuf cannot express is declared `dyn`: its rules are still evaluated, only unchecked.
    The same schema is declared once: a CRD checked when written and served afterwards, or written
    again unchanged, reuses its types (and so its compiled rules), and the pool does not grow.
    """
    return _declare(json.dumps(schema, sort_keys=True), root)


@lru_cache(maxsize=1024)
def _declare(text: str, root: bool) -> Declared:
    schema = json.loads(text)
    builder = _Builder()
    declared = builder.declare(schema, root)
    if builder.file.message_type:
        try:
            add_file(builder.file)
            POOL.FindMessageTypeByName(f"{builder.package}.{builder.file.message_type[0].name}")
        except (TypeError, KeyError):
            return Declared(cel.Type.DYN, declared.bind)
    return declared


def _to_float(value: Any) -> Any:
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _to_bytes(value: Any) -> Any:
    return base64.b64decode(value) if isinstance(value, str) else value


def _to_timestamp(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return value
    # The runtime takes timestamps and durations as their well-known messages, not datetime values.
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC))
    return stamp


def _to_duration(value: Any) -> Any:
    seconds = durations.parse_duration(value) if isinstance(value, str) else None
    if seconds is None:
        return value
    duration = duration_pb2.Duration()
    duration.FromTimedelta(datetime.timedelta(seconds=seconds))
    return duration


_FORMAT_BINDERS: dict[str, Binder] = {"byte": _to_bytes, "duration": _to_duration, "date": _to_timestamp,
                                      "date-time": _to_timestamp}


def _object_binder(schema: Schema) -> Binder | None:
    fields: dict[str, tuple[str, Binder | None]] = {}
    for key, sub in (schema.get("properties") or {}).items():
        name = escape(key)
        if name is None or not isinstance(sub, dict):
            continue
        fields[key] = (name, declare_binder(sub))
    # A nullable property set to null is absent to CEL (`has()` is false), as upstream's object values
    # answer IsSet for null.
    nullable = frozenset(key for key, sub in (schema.get("properties") or {}).items()
                         if isinstance(sub, dict) and sub.get("nullable") is True)
    if not nullable and all(name == key and bind is None for key, (name, bind) in fields.items()):
        return None

    def bind(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        bound = {}
        for key, item in value.items():
            if item is None and key in nullable:
                continue
            name, inner = fields.get(key, (key, None))
            bound[name] = inner(item) if inner is not None and item is not None else item
            if name != key and key in _RESERVED:
                bound[key] = bound[name]
        return bound
    return bind


def _map_binder(inner: Binder | None) -> Binder | None:
    if inner is None:
        return None
    return lambda value: {k: inner(v) for k, v in value.items()} if isinstance(value, dict) else value


def _list_binder(inner: Binder | None) -> Binder | None:
    if inner is None:
        return None
    return lambda value: [inner(v) for v in value] if isinstance(value, list) else value


def declare_binder(schema: Schema) -> Binder | None:
    """Only the binder of `schema`: what `declare` would bind, without adding types to the pool."""
    kind = _kind(schema)
    if kind == "object":
        return _object_binder(schema)
    if kind == "map":
        return _map_binder(declare_binder(schema["additionalProperties"]))
    if kind == "list":
        return _list_binder(declare_binder(schema["items"]))
    if kind == "string" and schema.get("format") in _FORMAT_BINDERS:
        return _FORMAT_BINDERS[schema["format"]]
    return _to_float if kind == "number" else None
