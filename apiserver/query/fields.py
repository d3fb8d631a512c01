"""Field selectors: which fields each kind can be selected by, and reading only those from stored bytes.

Every kind answers `metadata.name` and `metadata.namespace` (taken from the storage key, never
decoded). Kinds with more selectable fields declare them once below, each with the JSON paths its
value is computed from; a request decodes exactly the paths its selector names, through a msgspec
Struct that skips everything else in the object.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable

import msgspec

Path = tuple[str, ...]
META_FIELDS = ("metadata.name", "metadata.namespace")


class FieldSelectorError(ValueError):
    """The selector is not valid for this kind; the message is kube-apiserver's."""


@dataclass(frozen=True)
class SelectableField:
    paths: tuple[Path, ...]
    value: Callable[..., str]  # the decoded values at `paths` (None when absent) -> the compared string


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _bool(value: Any) -> str:
    return "true" if value else "false"


def _int(value: Any) -> str:
    return str(value or 0)


def _first_ip(ips: Any) -> str:
    return str(ips[0].get("ip", "")) if isinstance(ips, list) and ips and isinstance(ips[0], dict) else ""


def _plain(*path: str) -> SelectableField:
    return SelectableField((path,), _text)


def _event_source(component: Any, reporting: Any) -> str:
    return _text(component) or _text(reporting)


# (group, kind) -> fields besides metadata.*, as kube-apiserver's field label conversions declare them.
_KIND_FIELDS: dict[tuple[str, str], dict[str, SelectableField]] = {
    ("", "Pod"): {
        "spec.nodeName": _plain("spec", "nodeName"),
        "spec.restartPolicy": _plain("spec", "restartPolicy"),
        "spec.schedulerName": _plain("spec", "schedulerName"),
        "spec.serviceAccountName": _plain("spec", "serviceAccountName"),
        "spec.hostNetwork": SelectableField((("spec", "hostNetwork"),), _bool),
        "status.phase": _plain("status", "phase"),
        "status.podIP": SelectableField((("status", "podIPs"),), _first_ip),
        # accepted but not among the pod's selectable fields upstream, so it only ever equals ""
        "status.podIPs": SelectableField((), lambda: ""),
        "status.nominatedNodeName": _plain("status", "nominatedNodeName"),
        # older clients' name for spec.nodeName
        "spec.host": _plain("spec", "nodeName"),
    },
    ("", "Node"): {"spec.unschedulable": SelectableField((("spec", "unschedulable"),), _bool)},
    ("", "ReplicationController"): {"status.replicas": SelectableField((("status", "replicas"),), _int)},
    ("", "Event"): {
        **{f"involvedObject.{name}": _plain("involvedObject", name)
           for name in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
        "reason": _plain("reason"),
        "reportingComponent": _plain("reportingComponent"),
        "source": SelectableField((("source", "component"), ("reportingComponent",)), _event_source),
        "type": _plain("type"),
    },
    ("", "Namespace"): {"status.phase": _plain("status", "phase")},
    ("", "Secret"): {"type": _plain("type")},
    ("", "Service"): {"spec.clusterIP": _plain("spec", "clusterIP"), "spec.type": _plain("spec", "type")},
    ("apps", "ReplicaSet"): {"status.replicas": SelectableField((("status", "replicas"),), _int)},
    ("batch", "Job"): {"status.successful": SelectableField((("status", "succeeded"),), _int)},
    ("certificates.k8s.io", "CertificateSigningRequest"): {"spec.signerName": _plain("spec", "signerName")},
    ("resource.k8s.io", "ResourceSlice"): {"spec.nodeName": _plain("spec", "nodeName"),
                                           "spec.driver": _plain("spec", "driver")},
}
# Kinds whose conversion leaves out metadata.namespace (cluster-scoped ones that declare their own).
_NO_NAMESPACE_FIELD = frozenset({("", "Node"), ("", "Namespace"), ("certificates.k8s.io", "CertificateSigningRequest")})


@dataclass(frozen=True, slots=True)
class FieldTerm:
    field: str
    value: str
    equal: bool


def supported(group: str, kind: str) -> tuple[str, ...]:
    """The field names a kind can be selected by."""
    meta = ("metadata.name",) if (group, kind) in _NO_NAMESPACE_FIELD else META_FIELDS
    return meta + tuple(_KIND_FIELDS.get((group, kind), {}))


def parse_field_selector(text: str, group: str, kind: str) -> tuple[FieldTerm, ...]:
    """Parses like fields.ParseSelector, then checks each field the way the kind's conversion does."""
    terms = parse_field_terms(text)
    known = supported(group, kind)
    for term in terms:
        if term.field not in known:
            if (group, kind) in _KIND_FIELDS:
                raise FieldSelectorError(f"field label not supported: {term.field}")
            raise FieldSelectorError(f'"{term.field}" is not a known field selector: only '
                                     + ", ".join(f'"{f}"' for f in known))
    return terms


def parse_field_terms(text: str) -> tuple[FieldTerm, ...]:
    """fields.ParseSelector: terms split at unescaped commas and sorted, each at its first operator."""
    terms: list[FieldTerm] = []
    for part in sorted(_split_unescaped(text, ",")):
        if not part:
            continue
        for i in range(len(part)):
            op = next((o for o in ("!=", "==", "=") if part.startswith(o, i)), None)
            if op is not None:
                field, value = part[:i], _unescape(part[i + len(op):])
                break
        else:
            raise FieldSelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        if not field and not value:
            continue  # upstream turns `==` into "everything"
        terms.append(FieldTerm(field, value, op != "!="))
    return tuple(terms)


def kind_field(group: str, kind: str, name: str) -> SelectableField:
    return _KIND_FIELDS[(group, kind)][name]


def _split_unescaped(text: str, sep: str) -> list[str]:
    parts, current, escaped = [], [], False
    for ch in text:
        if escaped:
            current.append("\\" + ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if escaped:
        current.append("\\")
    parts.append("".join(current))
    return parts


def _unescape(value: str) -> str:
    if "\\" not in value and "=" not in value and "," not in value:
        return value
    out, i = [], 0
    while i < len(value):
        ch = value[i]
        if ch == "\\":
            nxt = value[i + 1:i + 2]
            if nxt not in ("\\", ",", "="):
                raise FieldSelectorError(f"invalid field selector: invalid escape sequence: \\{nxt}")
            out.append(nxt)
            i += 2
            continue
        if ch in ",=":
            raise FieldSelectorError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        out.append(ch)
        i += 1
    return "".join(out)


# -- partial decoding --------------------------------------------------------------------------

Projection = Callable[[bytes], Any]
LABELS: Path = ("metadata", "labels")


# Projections already made, per (path set, stored version): a selector list or watch reads the
# same unchanged objects again and again. Stored bytes objects are shared and cache their hash,
# so a hit costs a dict lookup. Bounded: when full, it starts over.
_MEMO_LIMIT = 100_000
_memo: dict[tuple[frozenset[Path], bytes], Any] = {}


@lru_cache(maxsize=256)
def projection(paths: frozenset[Path]) -> Projection:
    """A decoder of only `paths` (leaves decoded as plain values); the rest of the object is skipped.

    Cached by path set: building a Struct type costs far more than a request, and selectors repeat.
    The decoded values are shared between callers and must not be changed.
    """
    decode: Callable[[bytes], Any] = msgspec.json.Decoder(_struct(_tree(paths), "Projection")).decode

    def project(data: bytes) -> Any:
        key = (paths, data)
        found = _memo.get(key)
        if found is None:
            if len(_memo) >= _MEMO_LIMIT:
                _memo.clear()
            found = _memo[key] = decode(data)
        return found

    return project


def read_path(decoded: Any, path: Path) -> Any:
    for name in path:
        if decoded is None:
            return None
        decoded = getattr(decoded, name)
    return decoded


def _tree(paths: Iterable[Path]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path in paths:
        node = tree
        for name in path[:-1]:
            node = node.setdefault(name, {})
        node[path[-1]] = None
    return tree


def _struct(tree: dict[str, Any], name: str) -> type:
    fields: list[tuple[str, Any, Any]] = []
    for key, sub in sorted(tree.items()):
        kind: Any = Any if sub is None else _struct(sub, name + "_" + key) | None
        fields.append((key, kind, None))
    return msgspec.defstruct(name, fields, kw_only=True)

