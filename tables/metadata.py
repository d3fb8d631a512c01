"""PartialObjectMetadata: an object's `metadata`, cut out of its stored bytes exactly as stored.

The cut is made once per stored version (msgspec skips everything but `metadata` and hands its
bytes back untouched) and then spliced into every answer, list item, Table row and watch event.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec
import orjson

from tables.cache import VersionCache

META_V1 = "meta.k8s.io/v1"
META_V1BETA1 = "meta.k8s.io/v1beta1"


class _Envelope(msgspec.Struct):
    metadata: msgspec.Raw = msgspec.Raw(b"{}")


_decode_envelope = msgspec.json.Decoder(_Envelope).decode
_decode_fields = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode


@dataclass(slots=True)
class _Cut:
    """What one stored version gives: its metadata bytes, and what was made of them so far."""

    full: bytes
    trimmed: bytes | None = None  # without managedFields, made on first request for it
    items: dict[tuple[bytes, bool], bytes] = field(default_factory=dict)  # (prefix, managedFields) -> POM


_CUTS: VersionCache[_Cut] = VersionCache()


# Annotations that upstream's v1 conversion writes from a spec field of the internal object: the
# metadata projection is made from the internal object, so they never appear in it (only in
# managedFields). Keyed by the prefix every stored object of that kind begins with.
_CONVERSION_ANNOTATIONS = {
    b'{"kind":"DaemonSet","apiVersion":"apps/v1",': "deprecated.daemonset.template.generation",
}


def _cut(data: bytes) -> _Cut:
    cut = _CUTS.get(data)
    if cut is None:
        cut = _CUTS.put(data, _Cut(_projected_metadata(data)))
    return cut


def _projected_metadata(data: bytes) -> bytes:
    metadata = bytes(_decode_envelope(data).metadata)
    for prefix, annotation in _CONVERSION_ANNOTATIONS.items():
        if data.startswith(prefix) and annotation.encode() in metadata:
            meta = orjson.loads(metadata)
            annotations = meta.get("annotations") or {}
            annotations.pop(annotation, None)
            if not annotations:
                meta.pop("annotations", None)
            return orjson.dumps(meta)
    return metadata


def _metadata(cut: _Cut, managed_fields: bool) -> bytes:
    """The version's `metadata`, byte for byte; without managedFields when asked."""
    if managed_fields:
        return cut.full
    if cut.trimmed is None:
        fields = _decode_fields(cut.full)
        if "managedFields" not in fields:
            cut.trimmed = cut.full
        else:
            # Every other field keeps its stored bytes; only the key text is written anew.
            cut.trimmed = b"{" + b",".join(orjson.dumps(name) + b":" + bytes(value)
                                          for name, value in fields.items() if name != "managedFields") + b"}"
    return cut.trimmed


# One bytes object per version, so a key holding it hashes and compares at once.
_PREFIXES = {version: b'{"kind":"PartialObjectMetadata","apiVersion":"' + version.encode() + b'","metadata":'
             for version in (META_V1, META_V1BETA1)}


def pom_prefix(api_version: str) -> bytes:
    """What precedes the metadata bytes in a PartialObjectMetadata of `api_version`."""
    return _PREFIXES[api_version]


def partial_object_metadata(prefix: bytes, data: bytes, managed_fields: bool = True) -> bytes:
    """The PartialObjectMetadata of a stored object, made once per version; `prefix` from `pom_prefix`."""
    cut = _cut(data)
    key = (prefix, managed_fields)
    item = cut.items.get(key)
    if item is None:
        item = cut.items[key] = prefix + _metadata(cut, managed_fields) + b"}"
    return item


def clear_cache() -> None:
    """Forgets every cut (benchmarks measure the cold path with it)."""
    _CUTS.clear()
