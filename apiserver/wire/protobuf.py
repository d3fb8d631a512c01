"""Protobuf request bodies (application/vnd.kubernetes.protobuf) into the values a JSON body gives.

A body is the magic `k8s\\x00` and a runtime.Unknown: the object's apiVersion and kind, and the object
encoded as the message of its kind. The protobuf library decodes the wire format, from descriptors built
out of protobuf_schema.json (derived from upstream's descriptors by tools/protobuf_schema.py); this
module knows the envelope and how Kubernetes renders its messages in JSON.

Go clients (gogo marshalling) write every plain-value field, zero or not, and Go pointer fields only when
set. So a zero plain scalar is dropped (Go treats it as unset, and JSON clients omit it), a zero pointer
scalar (`replicas: 0`, `optional: false`) is kept, and plain structs come out as `{}` as in Go's JSON.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from google.protobuf import descriptor_pb2, descriptor_pool, message, message_factory

from apiserver import errors

MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
MAGIC = b"k8s\x00"

_SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "protobuf_schema.json")
_PACKAGE = "fastkube.k8s"
_ENVELOPE = "runtime.Unknown"
_OPTIONS_KIND = "meta.k8s.io/v1/"
_SCALAR_TYPES = {
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "bytes": descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
    "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    "int32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
    "int64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    "double": descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE,
}


@dataclass(frozen=True)
class _Field:
    name: str
    type: str  # a scalar type, a message, or for maps the value's type
    keeps_zero: bool  # a Go pointer: a zero value was set on purpose
    inline: bool  # a Go struct embedded with `json:",inline"`


def _parse_field(spec: str) -> tuple[int, str, str, bool, _Field]:
    """`3 items core.v1.KeyToPath[]` -> number, proto name, type to declare, repeated, and the field."""
    number, name, kind, *json_name = spec.split(" ")
    repeated = kind.endswith("[]")
    kind = kind.removesuffix("[]")
    inline = kind.startswith("...")
    kind = kind.removeprefix("...")
    keeps_zero = kind.endswith("?")
    kind = kind.removesuffix("?")
    value = kind[kind.index(",") + 1:-1] if kind.startswith("map<") else kind
    return int(number), name, kind, repeated, _Field(json_name[0] if json_name else name, value, keeps_zero, inline)


def _message_name(short: str) -> str:
    return short.replace(".", "_")


def _declare(msg: descriptor_pb2.DescriptorProto, number: int, name: str, kind: str, repeated: bool) -> None:
    field = msg.field.add(name=name, number=number)
    field.label = (descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED if repeated
                   else descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    if kind.startswith("map<"):
        key, value = kind[4:-1].split(",")
        entry = msg.nested_type.add(name=name[0].upper() + name[1:] + "Entry")
        entry.options.map_entry = True
        _declare(entry, 1, "key", key, False)
        _declare(entry, 2, "value", value, False)
        field.label = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
        field.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
        field.type_name = f".{_PACKAGE}.{msg.name}.{entry.name}"
    elif kind in _SCALAR_TYPES:
        field.type = _SCALAR_TYPES[kind]
    else:
        field.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
        field.type_name = f".{_PACKAGE}.{_message_name(kind)}"


def _load_schema() -> tuple[dict[str, type[message.Message]], type[message.Message], dict[tuple[str, int], _Field]]:
    with open(_SCHEMA_PATH, "rb") as f:
        data = json.load(f)
    file = descriptor_pb2.FileDescriptorProto(name="fastkube/k8s.proto", package=_PACKAGE, syntax="proto2")
    fields: dict[tuple[str, int], _Field] = {}
    for short, specs in data["messages"].items():
        msg = file.message_type.add(name=_message_name(short))
        for spec in specs:
            number, name, kind, repeated, field = _parse_field(spec)
            _declare(msg, number, name, kind, repeated)
            fields[(f"{_PACKAGE}.{msg.name}", number)] = field
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)

    def cls(short: str) -> type[message.Message]:
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{_message_name(short)}"))

    return {key: cls(short) for key, short in data["kinds"].items()}, cls(_ENVELOPE), fields


_KINDS, ENVELOPE, _FIELDS = _load_schema()


def message_class(api_version: str, kind: str) -> type[message.Message]:
    """The message of a kind; the options kinds (DeleteOptions) are valid in every group version."""
    cls = _KINDS.get(f"{api_version}/{kind}") or _KINDS.get(_OPTIONS_KIND + kind)
    if cls is None:
        raise errors.bad_request(f'no kind "{kind}" is registered for version "{api_version}" '
                                 "in protobuf request bodies")
    return cls


def decode_protobuf(raw: bytes) -> dict[str, Any]:
    """A protobuf body as the JSON-shaped dict of the same object; 400 when it is not one."""
    if not raw.startswith(MAGIC):
        raise errors.bad_request("the protobuf body does not start with the Kubernetes prefix k8s\\x00")
    try:
        envelope: Any = ENVELOPE.FromString(raw[len(MAGIC):])
        if envelope.contentEncoding:
            raise errors.bad_request(f'unsupported protobuf content encoding "{envelope.contentEncoding}"')
        type_meta = envelope.typeMeta
        obj = _to_json(message_class(type_meta.apiVersion, type_meta.kind).FromString(envelope.raw))
    except (message.DecodeError, orjson.JSONDecodeError) as exc:
        raise errors.bad_request(f"the protobuf body could not be decoded: {exc}") from None
    return {"apiVersion": type_meta.apiVersion, "kind": type_meta.kind, **obj}


def _to_json(msg: message.Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    owner = msg.DESCRIPTOR.full_name
    for descriptor, value in msg.ListFields():
        field = _FIELDS[(owner, descriptor.number)]
        if descriptor.message_type is not None and descriptor.message_type.GetOptions().map_entry:
            out[field.name] = {key: _value(field, item) for key, item in value.items()}
        elif descriptor.is_repeated:
            out[field.name] = [_value(field, item) for item in value]
        elif field.inline:
            out.update(_to_json(value))
        elif descriptor.message_type is not None or field.keeps_zero or value:
            out[field.name] = _value(field, value)
    return out


def _value(field: _Field, value: Any) -> Any:
    if isinstance(value, message.Message):
        return _SPECIAL.get(field.type, _to_json)(value)
    if isinstance(value, bytes):
        # The library hands a proto2 string that is not UTF-8 over as bytes.
        if field.type != "bytes":
            raise errors.bad_request(f"the protobuf body has a {field.name} that is not UTF-8")
        return base64.b64encode(value).decode()
    if isinstance(value, float) and value.is_integer():
        return int(value)  # Go writes a whole float64 without a fraction, as JSON clients send it
    return value


def _time(value: Any, layout: str) -> str | None:
    # An empty message is Go's zero time, which JSON writes as null.
    if not value.seconds and not value.nanos:
        return None
    moment = datetime.fromtimestamp(value.seconds, UTC).replace(microsecond=value.nanos // 1000)
    return moment.strftime(layout)


def _raw_json(raw: bytes) -> Any:
    return orjson.loads(raw) if raw else None


def _schema_or(value: Any, alternative: Any) -> Any:
    """JSONSchemaPropsOr*: the alternative when set, else the schema (null when neither is)."""
    if alternative:
        return alternative
    return _to_json(value.schema) if value.HasField("schema") else None


# The message types Kubernetes writes in JSON as something other than an object of their fields.
_SPECIAL: dict[str, Any] = {
    "apis.meta.v1.Time": lambda v: _time(v, "%Y-%m-%dT%H:%M:%SZ"),
    "apis.meta.v1.MicroTime": lambda v: _time(v, "%Y-%m-%dT%H:%M:%S.%fZ"),
    "util.intstr.IntOrString": lambda v: v.strVal if v.type == 1 else v.intVal,
    "api.resource.Quantity": lambda v: v.string,
    "apis.meta.v1.FieldsV1": lambda v: _raw_json(v.Raw),
    "apiextensions.v1.JSON": lambda v: _raw_json(v.raw),
    "apiextensions.v1.JSONSchemaPropsOrArray": lambda v: _schema_or(v, [_to_json(s) for s in v.jSONSchemas]),
    "apiextensions.v1.JSONSchemaPropsOrStringArray": lambda v: _schema_or(v, list(v.property)),
    # Go writes a schema when there is one, else the boolean.
    "apiextensions.v1.JSONSchemaPropsOrBool": lambda v: _to_json(v.schema) if v.HasField("schema") else v.allows,
}
