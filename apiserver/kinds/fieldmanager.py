"""Field ownership: the one seam through which every write records metadata.managedFields.

Two calls cross it. `record_update` credits an Update operation (create, update, any patch, a
subresource write, a controller's write) with what it changed. `apply` lays a server-side apply
configuration over the live object and answers the merged object with the managedFields after it, or
raises upstream's 409 listing each conflicting field and manager. Both keep managedFields bounded
as upstream does (capmanagers) and in upstream's order. Callers pass decoded objects and a schema;
nothing here reads the store or HTTP.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from apiserver import errors
from apiserver.kinds import createdfields, fieldcompare, fieldnodes, fieldsv1, managedfields, schemas
from apiserver.kinds import structuredmerge as sm
from apiserver.wire import goprint

Path = fieldnodes.Path
Entry = dict[str, Any]

# Update entries past this many are merged, oldest first, into one per API version (DefaultMaxUpdateManagers).
MAX_UPDATE_MANAGERS = 10
ANCIENT_CHANGES = "ancient-changes"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# kubectl's server-side manager: the server keeps its client-side annotation in step with what it applies.
KUBECTL = "kubectl"
KUBECTL_CLIENT_SIDE = "kubectl-client-side-apply"
BEFORE_FIRST_APPLY = "before-first-apply"


@dataclass(frozen=True)
class Request:
    """Who writes, through which API version and subresource, and when."""

    manager: str
    api_version: str
    subresource: str | None
    now: str


def sorted_entries(entries: list[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (e.get("operation", ""), e.get("time", ""), e.get("manager", ""),
                                          e.get("apiVersion", ""), e.get("subresource", "")))


def _identity(entry: Entry) -> tuple[str, str, str, str]:
    # An applier is the same manager whatever version it applied through (BuildManagerIdentifier).
    operation = entry.get("operation", "")
    version = "" if operation == "Apply" else entry.get("apiVersion", "")
    return entry.get("manager", ""), operation, version, entry.get("subresource", "")


def _owned(entry: Entry) -> set[Path]:
    return fieldsv1.from_fields_v1(entry.get("fieldsV1") or {})


def _with_fields(entry: Entry, owned: set[Path]) -> Entry:
    return {**entry, "fieldsV1": fieldsv1.to_fields_v1(owned)}


def _describe(entry: Entry) -> str:
    """A manager as conflict messages name it (printManager)."""
    text = json.dumps(entry.get("manager", ""))
    if entry.get("subresource"):
        text += f" with subresource {json.dumps(entry['subresource'])}"
    if entry.get("operation") == "Update":
        text += f" using {entry.get('apiVersion', '')}"
    return text


# -- Update operations -----------------------------------------------------------------------------

def decodable(entries: Any) -> bool:
    """Whether managedFields a client sent can stand as the record; upstream falls back to the live ones."""
    if not isinstance(entries, list) or not entries:
        return False
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("operation") not in ("Apply", "Update") \
                or entry.get("fieldsType") != "FieldsV1" or not _fields_tree(entry.get("fieldsV1")):
            return False
        if any(not isinstance(entry.get(k, ""), str) for k in ("manager", "apiVersion", "time", "subresource")):
            return False
    return True


def _fields_tree(node: Any) -> bool:
    return isinstance(node, dict) and all(isinstance(k, str) and _fields_tree(v) for k, v in node.items())


def record_update(entries: list[Entry], old: Any, new: dict[str, Any], schema: schemas.Schema, request: Request,
                  ignored: tuple[Path, ...]) -> list[Entry]:
    """The managedFields after request.manager turned old (None: created) into new by an Update."""
    if old is None and not entries:
        # A create, whose entry is found in one walk (createdfields) instead of as a set of paths.
        member, fields = createdfields.created_fields(new, schema, ignored)
        if not (member or fields):
            return []
        return [managedfields.update_entry(request.manager, request.api_version, request.now, fields,
                                           request.subresource)]
    updated = managedfields.update(entries, old, new, schema, request.manager, request.api_version,
                                   request.subresource, request.now, ignored)
    return cap(updated)


def cap(entries: list[Entry]) -> list[Entry]:
    """Past MAX_UPDATE_MANAGERS Update entries, the oldest are merged into one per API version."""
    updates = [e for e in entries if e.get("operation") == "Update"]
    if len(updates) <= MAX_UPDATE_MANAGERS:
        return entries
    oldest_first = sorted(updates, key=lambda e: (e.get("time", ""), json.dumps(_identity(e))))
    out = [e for e in entries if e.get("operation") != "Update"]
    remaining = len(updates)
    buckets: dict[str, Entry] = {}
    kept: list[Entry] = []
    for entry in oldest_first:
        version = entry.get("apiVersion", "")
        if remaining <= MAX_UPDATE_MANAGERS:
            kept.append(entry)
            continue
        bucket = buckets.get(version)
        if bucket is None:
            buckets[version] = entry  # the first of a version stays itself unless a second joins it
            kept.append(entry)
            continue
        merged = _owned(bucket) | _owned(entry)
        joined = {"manager": ANCIENT_CHANGES, "operation": "Update", "apiVersion": version}
        if entry.get("time"):
            joined["time"] = entry["time"]
        joined = _with_fields({**joined, "fieldsType": "FieldsV1"}, merged)
        kept = [joined if k is bucket else k for k in kept]
        buckets[version] = joined
        remaining -= 1
    return sorted_entries(out + kept)


# -- Apply ---------------------------------------------------------------------------------------

def typed_config_error(config: dict[str, Any], schema: schemas.Schema | None, group_version: str,
                       kind: str) -> errors.ApiError | None:
    """Upstream's "failed to create typed patch object", answered 422: the configuration is the client's."""
    problem = sm.typed_errors(config, schema)
    if problem is None:
        return None
    meta = config.get("metadata") or {}
    gvk = f"{group_version if '/' in group_version else '/' + group_version}, Kind={kind}"
    name = f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"
    return errors.ApiError(422, "Invalid", f"failed to create typed patch object ({name}; {gvk}): {problem}")


def apply(entries: list[Entry], live: dict[str, Any], config: dict[str, Any], schema: schemas.Schema,
          request: Request, force: bool, ignored: tuple[Path, ...],
          custom: bool = False) -> tuple[dict[str, Any], list[Entry]]:
    """The live object with the configuration applied by request.manager, and the managedFields after.

    `live` is the object as stored, without managedFields (an empty object of the kind on create);
    `ignored` are the paths this write may not set (status on the main resource, spec on /status).
    A null in a built-in kind's configuration leaves the field unset, as Go decodes it; a custom
    resource keeps it for its schema's defaulting.
    """
    if not entries:
        # An object without managedFields gets them before its first apply: what it holds is recorded as
        # an update by "before-first-apply" (upstream's skipNonAppliedManager), which the apply then
        # takes fields from, or conflicts with.
        before = Request(BEFORE_FIRST_APPLY, request.api_version, request.subresource, request.now)
        entries = record_update([], None, live, schema, before, ignored)
    mine_id = _identity({"manager": request.manager, "operation": "Apply", "subresource": request.subresource or ""})
    previous = next((e for e in entries if _identity(e) == mine_id), None)
    others = [e for e in entries if _identity(e) != mine_id]
    last = _owned(previous) if previous is not None else set()
    unowned = set(ignored)

    claimed = {p for p in sm.field_set(config, schema) if not sm.under_any(p, unowned)}
    merged = sm.merge(live, config, schema)
    if last - claimed:
        # What this manager applied before and nobody, itself included, claims now, goes.
        owned = set(claimed)
        for entry in others:
            owned |= _owned(entry)
        if last - owned:
            gone = sm.with_named_parents(last, schema) - sm.with_named_parents(owned, schema)
            merged = sm.remove(merged, gone, schema)
    changed, removed = fieldcompare.compare(live, merged, schema)
    changed = {p for p in changed if not sm.under_any(p, unowned)}
    conflicts: list[tuple[Entry, Path]] = []
    kept: list[Entry] = []
    for entry in others:
        owned_by = _owned(entry)
        clash = owned_by & changed
        conflicts.extend((entry, p) for p in clash)
        rest = {p for p in owned_by - clash if not sm.under_any(p, removed)}
        if rest:
            kept.append(entry if rest == owned_by else _with_fields(entry, rest))
    if conflicts and not force and request.manager == KUBECTL:
        # kubectl's server-side apply may take over what its client-side apply set (lastappliedmanager).
        allowed = allowed_by_last_applied(live, schema)
        conflicts = [(entry, path) for entry, path in conflicts if path not in allowed]
        force = not conflicts
    if conflicts and not force:
        raise conflict_error(sorted(conflicts, key=lambda c: (_describe(c[0]), _path_order(c[1]))))

    mine = claimed - managedfields.SERVER_OWNED
    if mine:
        entry = {"manager": request.manager, "operation": "Apply", "apiVersion": request.api_version}
        # The time moves only when the object does (a change of ownership alone keeps it, or has none).
        # Compared as merged, nulls and all, as structured-merge-diff compares the typed values.
        time = request.now if merged != live else (previous or {}).get("time")
        if time:
            entry["time"] = time
        entry.update({"fieldsType": "FieldsV1", "fieldsV1": fieldsv1.to_fields_v1(mine)})
        if request.subresource:
            entry["subresource"] = request.subresource
        kept.append(entry)
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    if request.manager == KUBECTL and LAST_APPLIED in annotations:
        # Kept in step so that a later client-side apply starts from what was applied (lastappliedupdater).
        meta = merged["metadata"]
        merged["metadata"] = {**meta, "annotations": {**(meta.get("annotations") or {}),
                                                      LAST_APPLIED: last_applied(config)}}
    if not custom:
        merged = sm.without_nulls(merged)
    return merged, cap(sorted_entries(kept))


def same_but_times(entries: list[Entry], before: list[Entry]) -> bool:
    """Whether two managedFields differ in their times alone (IgnoreManagedFieldsTimestampsTransformer).

    A write whose object and ownership stay as they were then keeps the old record, and so changes
    nothing: an atomic list restated without its defaulted fields, a Secret's stringData.
    """
    def untimed(entries: list[Entry]) -> list[Entry]:
        return [{k: v for k, v in e.items() if k != "time"} for e in entries]
    return len(entries) == len(before) and untimed(entries) == untimed(before)


def _path_order(path: Path) -> tuple[tuple[int, int, str], ...]:
    # fieldpath.Set's iteration: at each level the members ending there, then the deeper paths.
    last = len(path) - 1
    return tuple((0 if i == last else 1, {"f": 0, "k": 1, "v": 2}.get(e[0], 3), e) for i, e in enumerate(path))


def conflict_error(conflicts: list[tuple[Entry, Path]]) -> errors.ApiError:
    """409 Conflict in upstream's words: one line per field, grouped by manager when there are several."""
    causes = [{"reason": "FieldManagerConflict", "message": f"conflict with {_describe(entry)}",
               "field": sm.path_string(path)} for entry, path in conflicts]
    if len(conflicts) == 1:
        entry, path = conflicts[0]
        message = f"Apply failed with 1 conflict: conflict with {_describe(entry)}: {sm.path_string(path)}"
    else:
        by_manager: dict[str, list[str]] = {}
        for entry, path in conflicts:
            by_manager.setdefault(_describe(entry), []).append(sm.path_string(path))
        lines = []
        for manager in sorted(by_manager):
            lines.append(f"conflicts with {manager}:")
            lines.extend(f"- {p}" for p in by_manager[manager])
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return errors.ApiError(409, "Conflict", message, {"causes": causes})


def last_applied(config: dict[str, Any]) -> str:
    """kubectl's client-side record of a configuration, as the server writes it for kubectl's applies."""
    copy = json.loads(json.dumps(config))
    annotations = (copy.get("metadata") or {}).get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
    return json.dumps(goprint.sorted_keys(copy), separators=(",", ":")) + "\n"


def allowed_by_last_applied(live: dict[str, Any], schema: schemas.Schema) -> set[Path]:
    """Fields kubectl's client-side apply set to what they still are: kubectl's server-side apply may take them."""
    text = ((live.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    try:
        recorded = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return set()
    if not isinstance(recorded, dict) or recorded.get("apiVersion") != live.get("apiVersion"):
        return set()
    changed, _ = fieldcompare.compare(recorded, live, schema)
    return sm.field_set(recorded, schema) - changed
