"""Derive apiserver/protobuf_schema.json from the protobuf descriptors compiled into a kubectl binary.

kubectl (1.33 and older) embeds, gzipped, the FileDescriptorProto of every k8s.io/api and
k8s.io/apimachinery generated.proto it was built from, including the gogoproto options of the Go
types. Those options carry what the .proto text does not: whether a scalar field is a Go pointer
(presence matters, so a zero value is kept) or a plain value (zero means unset).

    python tools/protobuf_schema.py /path/to/kubectl.1.33 > apiserver/protobuf_schema.json

Only the messages reachable from the kinds the server decodes are kept.
"""

from __future__ import annotations

import json
import re
import sys
import zlib

from google.protobuf import descriptor_pb2

from apiserver.resources import BUILTIN

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
_PREFIXES = ("k8s.io.api.", "k8s.io.apimachinery.pkg.")
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
# Sent by clients besides the stored kinds: the scale subresource and delete options.
_EXTRA_KINDS = {"autoscaling/v1/Scale": "k8s.io.api.autoscaling.v1.Scale",
                "meta.k8s.io/v1/DeleteOptions": "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions"}


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


def main(kubectl: str) -> None:
    with open(kubectl, "rb") as f:
        files = embedded_files(f.read())
    messages: dict[str, descriptor_pb2.DescriptorProto] = {}
    for fd in files.values():
        for msg in fd.message_type:
            messages[f"{fd.package}.{msg.name}"] = msg
            for nested in msg.nested_type:
                messages[f"{fd.package}.{msg.name}.{nested.name}"] = nested
    kinds = dict(_EXTRA_KINDS)
    for rt in BUILTIN:
        full = f"k8s.io.api.{rt.group.split('.')[0] or 'core'}.{rt.version}.{rt.kind}"
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
            fields.append(f"{field.number} {field.name} {describe(field, messages, pending)}")
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
    main(sys.argv[1])
