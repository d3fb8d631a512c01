"""metadata.managedFields for Update operations (create, update, patch), as kube-apiserver records them.

A manager owns the fields its writes added or changed; a write takes the fields it changes away from
every other manager, and fields a write removes leave everyone. Fields are named as FieldsV1 does:
`f:<field>`, `k:<keys as JSON>` for an element of a keyed list, `v:<value>` for one of a set, and "."
for a node that itself came into being. The comparison (fieldcompare) is made as Go sees the objects: on
create, against the kind's zero value (zerovalues), whose value-typed fields exist from the start; the
schema says how each field is compared (fieldnodes), and entries hold their fields as FieldsV1 (fieldsv1).
"""

from __future__ import annotations

from typing import Any

from apiserver.kinds import schemas
from apiserver.kinds.fieldcompare import compare
from apiserver.kinds.fieldnodes import Path
from apiserver.kinds.fieldsv1 import canonical, from_fields_v1, node_at, owns, to_fields_v1
from apiserver.kinds.zerovalues import zero

# The field manager kube-apiserver 1.36.2's own writers (bootstrap, controllers) are recorded as.
KUBE_APISERVER = "kube-apiserver-go1264"

SERVER_OWNED: frozenset[Path] = frozenset({
    ("f:apiVersion",), ("f:kind",), ("f:metadata",), ("f:metadata", "f:name"), ("f:metadata", "f:namespace"),
    ("f:metadata", "f:creationTimestamp"), ("f:metadata", "f:selfLink"), ("f:metadata", "f:uid"),
    ("f:metadata", "f:generation"), ("f:metadata", "f:managedFields"), ("f:metadata", "f:resourceVersion"),
    ("f:metadata", "f:deletionTimestamp"), ("f:metadata", "f:deletionGracePeriodSeconds"),
})


def _untouched(fields: dict[str, Any], changed: set[Path], removed: set[Path]) -> bool:
    """Whether a write that changed `changed` and removed `removed` leaves these fields' owner as it was:
    it took none of them, and removed nothing at or above any of them."""
    return not any(owns(fields, p) for p in changed) and not any(node_at(fields, p) is not None for p in removed)


def _written(old: Any, new: dict[str, Any], schema: schemas.Schema,
             ignored: tuple[Path, ...]) -> tuple[set[Path], set[Path]]:
    """(paths the write set or changed, paths it removed), leaving out those it cannot own."""
    changed, removed = compare(zero(schema) if old is None else old, new, schema)
    changed -= SERVER_OWNED
    if ignored:
        changed = without_prefixes(changed, ignored)
    return changed, removed


def without_prefixes(paths: set[Path], prefixes: tuple[Path, ...]) -> set[Path]:
    """The paths at none of the prefixes or below them: each path's heads of the prefixes' lengths
    looked up in a set, rather than each prefix compared with each path."""
    heads = set(prefixes)
    lengths = {len(prefix) for prefix in prefixes}
    if len(lengths) == 1:
        (length,) = lengths
        return {p for p in paths if p[:length] not in heads}
    return {p for p in paths if not any(p[:length] in heads for length in lengths)}


def _released(entry: dict[str, Any], changed: set[Path], removed: set[Path]) -> list[dict[str, Any]]:
    """Another manager's entry once a write took `changed` and `removed` from it (none, if nothing is left)."""
    fields = entry.get("fieldsV1") or {}
    if isinstance(fields, dict) and fields and _untouched(fields, changed, removed):
        return [entry]  # the common case, found without expanding the entry into its paths
    owned = from_fields_v1(entry.get("fieldsV1") or {})
    # A removed node takes everything below it out of every manager's set.
    kept = {p for p in owned - changed if not any(p[:i] in removed for i in range(len(p) + 1))}
    if kept != owned:
        entry = {**entry, "fieldsV1": to_fields_v1(kept)}
    return [entry] if kept else []


def release(entries: list[dict[str, Any]], old: Any, new: dict[str, Any], schema: schemas.Schema,
            ignored: tuple[Path, ...]) -> list[dict[str, Any]]:
    """Entries recorded through another API version than a write's, with what the write changed, seen
    in their version, taken from them (structured-merge-diff compares each version's managers in theirs)."""
    changed, removed = _written(old, new, schema, ignored)
    return [kept for entry in entries for kept in _released(entry, changed, removed)]


def update(entries: list[dict[str, Any]], old: Any, new: dict[str, Any], schema: schemas.Schema,
           manager: str, api_version: str, subresource: str | None, now: str,
           ignored: tuple[Path, ...]) -> list[dict[str, Any]]:
    """The managedFields after `manager` turned old (None on create) into new.

    `ignored` are the paths the write cannot set, so never owns: with a status subresource, a write to
    the main resource owns no status, and one to /status no spec.
    """
    changed, removed = _written(old, new, schema, ignored)
    out: list[dict[str, Any]] = []
    mine: dict[str, Any] | None = None
    for entry in entries:
        is_mine = (entry.get("manager", "") == manager and entry.get("operation") == "Update"
                   and entry.get("subresource") == subresource)
        if is_mine:
            mine = entry
            continue
        out += _released(entry, changed, removed)
    mine_fields = mine.get("fieldsV1") if mine is not None else None
    kept = (isinstance(mine_fields, dict) and bool(mine_fields) and all(owns(mine_fields, p) for p in changed)
            and not any(owns(mine_fields, p) for p in removed))
    if kept:
        # The write changed only what this manager owned already (the common update): found without
        # expanding the entry into its paths, and its fields kept as they are when already in the
        # form to_fields_v1 gives.
        assert mine is not None and isinstance(mine_fields, dict)
        owned = set() if canonical(mine_fields) else from_fields_v1(mine_fields)
        unchanged = True
    else:
        before = from_fields_v1(mine_fields or {})
        owned = (before - removed) | changed
        unchanged = owned == before
    if kept or owned:
        # An entry recorded without a time (an update through /scale) keeps none while unchanged.
        time = mine.get("time") if mine is not None and unchanged else now
        out.append(update_entry(manager, api_version, time, to_fields_v1(owned) if owned else mine_fields,
                                subresource))
    return sorted(out, key=lambda e: (e.get("operation", ""), e.get("time", ""), e.get("manager", ""),
                                      e.get("apiVersion", ""), e.get("subresource", "")))


def update_entry(manager: str, api_version: str, time: str | None, fields: Any,
                 subresource: str | None) -> dict[str, Any]:
    """A managedFields entry of an Update, its keys in upstream's order."""
    # A client without fieldManager or User-Agent is an unnamed manager; the name is then omitted.
    entry: dict[str, Any] = {"manager": manager} if manager else {}
    entry.update({"operation": "Update", "apiVersion": api_version})
    if time:
        entry["time"] = time
    entry.update({"fieldsType": "FieldsV1", "fieldsV1": fields})
    if subresource:
        entry["subresource"] = subresource
    return entry
