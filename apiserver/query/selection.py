"""Which objects a list or watch returns: namespace, label selector and field selector, parsed once.

Matching reads the storage key first (namespace, name) and decodes from the stored bytes only the
paths the selectors name: `metadata.labels` for a label selector, the named fields for a field
selector, nothing at all when neither needs the object.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from apiserver import errors
from apiserver.kinds.resources import ResourceType
from apiserver.query.fields import (
    LABELS,
    FieldSelectorError,
    FieldTerm,
    Path,
    Projection,
    kind_field,
    parse_field_selector,
    projection,
    read_path,
)
from apiserver.query.labels import EVERYTHING, LabelSelector, SelectorError, parse_label_selector
from apiserver.storage.interface import Key


@dataclass(frozen=True)
class _Compare:
    """A field term on decoded values: the paths to read and how they make the compared string."""

    term: FieldTerm
    paths: tuple[Path, ...]
    value: Any

    def matches(self, decoded: Any) -> bool:
        actual: str = self.value(*(read_path(decoded, p) for p in self.paths))
        return (actual == self.term.value) == self.term.equal


@dataclass(frozen=True)
class Selection:
    namespace: str | None  # None: all namespaces (or a cluster-scoped resource)
    labels: LabelSelector = EVERYTHING
    key_terms: tuple[FieldTerm, ...] = ()  # metadata.name / metadata.namespace: answered from the key
    compares: tuple[_Compare, ...] = ()
    _decode: Projection | None = field(default=None, compare=False)

    @property
    def filtered(self) -> bool:
        """Whether anything beyond the namespace narrows the result (upstream omits remainingItemCount then)."""
        return not self.labels.empty or bool(self.key_terms) or bool(self.compares)

    @property
    def decodes(self) -> bool:
        """Whether matching reads the object, not just its key."""
        return self._decode is not None

    def matches_key(self, key: Key) -> bool:
        if self.namespace is not None and key[1] != self.namespace:
            return False
        for term in self.key_terms:
            actual = key[2] if term.field == "metadata.name" else key[1]
            if (actual == term.value) != term.equal:
                return False
        return True

    def matches(self, key: Key, data: bytes) -> bool:
        if not self.matches_key(key):
            return False
        if self._decode is None:
            return True
        decoded = self._decode(data)
        if not self.labels.empty and not self.labels.matches(read_path(decoded, LABELS)):
            return False
        return all(c.matches(decoded) for c in self.compares)


@functools.lru_cache(maxsize=1024)  # informers and controllers repeat their selectors on every list
def selection_for(rt: ResourceType, namespace: str | None, label_text: str, field_text: str) -> Selection:
    """Parses both selectors once; a 400 with kube-apiserver's message when either is invalid."""
    try:
        labels = parse_label_selector(label_text) if label_text else EVERYTHING
        terms = parse_field_selector(field_text, rt.group, rt.kind) if field_text else ()
    except (SelectorError, FieldSelectorError) as exc:
        raise errors.bad_request(str(exc)) from None
    key_terms = tuple(t for t in terms if t.field.startswith("metadata."))
    compares = tuple(_compare(rt, t) for t in terms if not t.field.startswith("metadata."))
    paths = {p for c in compares for p in c.paths}
    if not labels.empty:
        paths.add(LABELS)
    decode = projection(frozenset(paths)) if paths else None
    return Selection(namespace, labels, key_terms, compares, decode)


def _compare(rt: ResourceType, term: FieldTerm) -> _Compare:
    spec = kind_field(rt.group, rt.kind, term.field)
    return _Compare(term, spec.paths, spec.value)
