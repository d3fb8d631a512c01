"""The descriptor pool CEL type-checks against, and Kubernetes' opaque CEL types as messages in it.

cel-expr-python runs Python functions whose values must be CEL values; it has no opaque Python types
at run time ("Unimplemented type"), but it does carry protobuf messages. So each of Kubernetes' opaque
types (`kubernetes.Quantity`, `kubernetes.URL`, `kubernetes.NamedFormat`, `kubernetes.Semver`, `net.IP`,
`net.CIDR`) is a one-field message under the
same full name upstream gives it, so `type(quantity('1'))` prints as it does there, and the declared
schemas of custom resources (apiserver/cel/declared.py) are added to the same pool.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    message_factory,
    struct_pb2,
    timestamp_pb2,
)

POOL = descriptor_pool.DescriptorPool()
_LOCK = threading.Lock()
_FILES = itertools.count()

for _well_known in (struct_pb2, timestamp_pb2, duration_pb2):
    _proto = descriptor_pb2.FileDescriptorProto()
    _well_known.DESCRIPTOR.CopyToProto(_proto)
    POOL.Add(_proto)

# One string field holds what the value is: a quantity's exact amount as a fraction "p/q" (so equal
# amounts are equal messages), a URL's text, an address's or prefix's canonical text, a format's name, a
# version's text.
_OPAQUE = {"kubernetes": ("Quantity", "URL", "NamedFormat", "Semver"), "net": ("IP", "CIDR")}


def add_file(proto: descriptor_pb2.FileDescriptorProto) -> None:
    with _LOCK:
        POOL.Add(proto)


def unique_file_name(stem: str) -> str:
    return f"{stem}{next(_FILES)}.proto"


for _package, _names in _OPAQUE.items():
    _file = descriptor_pb2.FileDescriptorProto(name=f"k8s_{_package}_opaque.proto", package=_package,
                                               syntax="proto3")
    for _name in _names:
        _message = _file.message_type.add(name=_name)
        _message.field.add(name="value", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                           label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    add_file(_file)


# A MutatingAdmissionPolicy's JSON Patch operation, built in CEL as `JSONPatch{op: ..., path: ..., value: ...}`;
# `value` is any JSON value.
_patch_file = descriptor_pb2.FileDescriptorProto(name="k8s_jsonpatch.proto", syntax="proto3",
                                                 dependency=["google/protobuf/struct.proto"])
_patch = _patch_file.message_type.add(name="JSONPatch")
for _number, _field in enumerate(("op", "path", "from"), start=1):
    _patch.field.add(name=_field, number=_number, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                     label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
_patch.field.add(name="value", number=4, type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
                 type_name=".google.protobuf.Value", label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
add_file(_patch_file)


def _message_class(full_name: str) -> Any:
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(full_name))


Quantity = _message_class("kubernetes.Quantity")
URL = _message_class("kubernetes.URL")
NamedFormat = _message_class("kubernetes.NamedFormat")
Semver = _message_class("kubernetes.Semver")
IP = _message_class("net.IP")
CIDR = _message_class("net.CIDR")
JSONPatch = _message_class("JSONPatch")
