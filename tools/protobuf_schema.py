"""Derive apiserver/wire/protobuf_schema.json from the protobuf descriptors compiled into Go binaries.

Go binaries built with gogo protobuf embed, gzipped, the FileDescriptorProto of every generated.proto
they link, including the gogoproto options of the Go types. Those options carry what the .proto text
does not: whether a scalar field is a Go pointer (presence matters, so a zero value is kept) or a plain
value (zero means unset). kubectl 1.33 carries k8s.io/api and k8s.io/apimachinery; it does not link
apiextensions-apiserver, whose descriptors come from the Cloud SDK's anthoscli (an older release:
the fields added since are listed below from upstream's generated.proto).

    python -m tools.protobuf_schema /path/to/kubectl.1.33 /path/to/anthoscli > apiserver/wire/protobuf_schema.json

Only the messages reachable from the kinds the server decodes are kept. A field line reads
`number name type [json name]`: a type ending in `?` is a Go pointer, `[]` repeated, `...` inlined.
"""

from __future__ import annotations

import json
import re
import sys
import zlib

from google.protobuf import descriptor_pb2

from apiserver.kinds.resources import BUILTIN

_GZIP_HEADER = re.compile(rb"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")
# gogoproto.nullable (extension 65001) = false, as serialized: varint key, then 0.
_GOGO_NULLABLE_FALSE = b"\xc8\xde\x1f\x00"
# Go structs embedded with `json:",inline"`: their fields sit in the parent's JSON object. Neither the
# .proto nor the descriptors say so (a WeightedPodAffinityTerm's podAffinityTerm looks the same and is
# not inlined); listed from the Go types, as (proto field name, message).
_INLINE = {
    ("localObjectReference", "core.v1.LocalObjectReference"),
    ("volumeSource", "core.v1.VolumeSource"),
    ("persistentVolumeSource", "core.v1.PersistentVolumeSource"),
    ("handler", "core.v1.ProbeHandler"),
    ("ephemeralContainerCommon", "core.v1.EphemeralContainerCommon"),
    ("ingressRuleValue", "networking.v1.IngressRuleValue"),
}
_APIEXTENSIONS = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1"
_PREFIXES = ("k8s.io.api.", "k8s.io.apimachinery.pkg.", "k8s.io.apiextensions_apiserver.pkg.apis.")
_FIELD = descriptor_pb2.FieldDescriptorProto
# apiextensions v1 fields newer than anthoscli's descriptors: (message, number, name, type, Go pointer).
_NEWER_APIEXTENSIONS = (
    ("ValidationRule", 3, "messageExpression", _FIELD.TYPE_STRING, False),
    ("ValidationRule", 4, "reason", _FIELD.TYPE_STRING, True),
    ("ValidationRule", 5, "fieldPath", _FIELD.TYPE_STRING, False),
    ("ValidationRule", 6, "optionalOldSelf", _FIELD.TYPE_BOOL, True),
    ("SelectableField", 1, "jsonPath", _FIELD.TYPE_STRING, False),
    ("CustomResourceDefinitionVersion", 9, "selectableFields", f".{_APIEXTENSIONS}.SelectableField", False),
)
# JSON names that are not proto identifiers (JSONSchemaProps's `$ref`, `x-kubernetes-...`).
_JSON_NAMES = {"ref": "$ref", "schema": "$schema"}
_X_KUBERNETES = re.compile(r"^xKubernetes([A-Z].*)$")
_SCALARS = {
    descriptor_pb2.FieldDescriptorProto.TYPE_STRING: "string",
    descriptor_pb2.FieldDescriptorProto.TYPE_BYTES: "bytes",
    descriptor_pb2.FieldDescriptorProto.TYPE_BOOL: "bool",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT32: "int32",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64: "int64",
    descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE: "double",
}
# What every protobuf body is wrapped in.
_ENVELOPE = "k8s.io.apimachinery.pkg.runtime.Unknown"
# Sent by clients besides the stored kinds: the scale subresource, delete options, token requests.
_EXTRA_KINDS = {"autoscaling/v1/Scale": "k8s.io.api.autoscaling.v1.Scale",
                "meta.k8s.io/v1/DeleteOptions": "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
                "authentication.k8s.io/v1/TokenRequest": "k8s.io.api.authentication.v1.TokenRequest"}


def embedded_files(binary: bytes) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    found = {}
    for match in _GZIP_HEADER.finditer(binary):
        try:
            raw = zlib.decompressobj(31).decompress(binary[match.start():match.start() + (1 << 21)])
            fd = descriptor_pb2.FileDescriptorProto.FromString(raw)
        except (zlib.error, ValueError):
            continue
        if fd.name.startswith("k8s.io/"):
            found[fd.name] = fd
    return found


def short(full_name: str) -> str:
    name = full_name.lstrip(".")
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def nullable(field: descriptor_pb2.FieldDescriptorProto) -> bool:
    """A Go pointer field: the gogoproto.nullable option (65001) is not set to false."""
    options = descriptor_pb2.FieldOptions.FromString(field.options.SerializeToString())
    return _GOGO_NULLABLE_FALSE not in options.SerializeToString()


def add_newer_apiextensions(messages: dict[str, descriptor_pb2.DescriptorProto]) -> None:
    for owner, number, name, kind, pointer in _NEWER_APIEXTENSIONS:
        msg = messages.setdefault(f"{_APIEXTENSIONS}.{owner}", descriptor_pb2.DescriptorProto(name=owner))
        if any(f.number == number for f in msg.field):
            continue
        field = msg.field.add(name=name, number=number, label=_FIELD.LABEL_OPTIONAL)
        if isinstance(kind, str):
            field.type, field.type_name, field.label = _FIELD.TYPE_MESSAGE, kind, _FIELD.LABEL_REPEATED
        else:
            field.type = kind
        if not pointer:
            field.options.MergeFromString(_GOGO_NULLABLE_FALSE)


def json_name(owner: str, field: str) -> str:
    if not owner.endswith(".JSONSchemaProps"):
        return field
    x_kubernetes = _X_KUBERNETES.match(field)
    if x_kubernetes:
        return "x-kubernetes-" + re.sub(r"(?<!^)([A-Z])", r"-\1", x_kubernetes.group(1)).lower()
    return _JSON_NAMES.get(field, field)


def main(kubectl: str, apiextensions_binary: str) -> None:
    messages: dict[str, descriptor_pb2.DescriptorProto] = {}
    for path, wanted in ((kubectl, ("k8s.io.api.", "k8s.io.apimachinery.")), (apiextensions_binary, (_APIEXTENSIONS,))):
        with open(path, "rb") as f:
            files = embedded_files(f.read())
        for fd in files.values():
            if not fd.package.startswith(wanted):
                continue
            for msg in fd.message_type:
                messages[f"{fd.package}.{msg.name}"] = msg
                for nested in msg.nested_type:
                    messages[f"{fd.package}.{msg.name}.{nested.name}"] = nested
    add_newer_apiextensions(messages)
    kinds = dict(_EXTRA_KINDS)
    for rt in BUILTIN:
        package = _APIEXTENSIONS.removesuffix(".v1") if rt.group == "apiextensions.k8s.io" \
            else f"k8s.io.api.{rt.group.split('.')[0] or 'core'}"
        full = f"{package}.{rt.version}.{rt.kind}"
        if full in messages:
            kinds[f"{rt.group_version}/{rt.kind}"] = full
        else:
            print(f"no protobuf schema for {rt.group_version}/{rt.kind}", file=sys.stderr)

    out: dict[str, list[str]] = {}
    pending = [*kinds.values(), _ENVELOPE]
    while pending:
        full = pending.pop()
        if short(full) in out:
            continue
        fields = []
        for field in messages[full].field:
            line = f"{field.number} {field.name} {describe(field, messages, pending)}"
            name = json_name(full, field.name)
            fields.append(line if name == field.name else f"{line} {name}")
        out[short(full)] = fields
    lines = [f"  {json.dumps(name)}: {json.dumps(fields)}" for name, fields in sorted(out.items())]
    kind_lines = [f"  {json.dumps(key)}: {json.dumps(short(full))}" for key, full in sorted(kinds.items())]
    print('{"kinds": {\n' + ",\n".join(kind_lines) + '\n},\n"messages": {\n' + ",\n".join(lines) + "\n}}")


def describe(field: descriptor_pb2.FieldDescriptorProto, messages: dict[str, descriptor_pb2.DescriptorProto],
             pending: list[str]) -> str:
    if field.type == descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE:
        target = field.type_name.lstrip(".")
        entry = messages[target]
        if entry.options.map_entry:
            key, value = (_SCALARS.get(f.type) or short(f.type_name) for f in entry.field)
            if value not in _SCALARS.values():
                pending.append(entry.field[1].type_name.lstrip("."))
            return f"map<{key},{value}>"
        pending.append(target)
        kind = ("..." if (field.name, short(target)) in _INLINE else "") + short(target)
    else:
        kind = _SCALARS[field.type]
        if nullable(field) and field.label != descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED:
            kind += "?"
    if field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED:
        kind += "[]"
    return kind


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
