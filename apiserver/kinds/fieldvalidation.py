"""Server-side field validation (the `fieldValidation` query parameter): unknown and duplicate fields.

`Strict` refuses the request with upstream's strict-decoding message, `Warn` (the default) answers
with a Warning header per field, `Ignore` says nothing. Unknown means: not a property of the kind's
1.36 schema. Duplicates are found in the JSON text, which a decoded object no longer shows.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import orjson

from apiserver import errors
from apiserver.kinds import crschema, godecode, goshape, gotypes, schemas
from apiserver.kinds.resources import CustomVersion
from apiserver.registry.field import go_quote
from apiserver.warningtext import warning_line
from apiserver.wire import gonumbers, goprint

DIRECTIVES = ("Ignore", "Warn", "Strict")


def directive(query: Mapping[str, str]) -> str:
    value = query.get("fieldValidation") or "Warn"
    if value not in DIRECTIVES:
        raise errors.bad_request(f'fieldValidation: Unsupported value: "{value}": supported values: '
                                 + ", ".join(f'"{d}"' for d in DIRECTIVES))
    return value


class _Node:
    """What checking a value against one schema node (as written, a `$ref` or inline) takes, compiled once.

    `struct` is the Go struct a field of this node belongs to, as encoding/json names it in its errors
    (None: the enclosing one's); `closed` says whether a key outside `properties` is unknown."""

    __slots__ = ("schema", "resolved", "kinds", "fitting", "plain", "struct", "properties", "extra", "items",
                 "open", "closed", "omitted", "written", "definition", "format", "judged", "go_fields",
                 "_go_type", "_children")

    def __init__(self, schema: schemas.Schema, resolved: schemas.Schema) -> None:
        self.schema = schema  # held, so that the id this node is cached under is never reused
        self.resolved = resolved
        name = schemas.ref_name(schema)
        # RawExtension.UnmarshalJSON keeps any JSON value as it is; validation judges what it holds.
        self.kinds = set() if name == schemas.RAW_EXTENSION else schemas.types_of(resolved)
        self.struct = name.rsplit(".", 1)[-1] if name and "properties" in resolved else None
        properties = resolved.get("properties")
        self.properties: dict[str, Any] = properties or {}
        extra = resolved.get("additionalProperties")
        self.extra: schemas.Schema | None = extra if isinstance(extra, dict) else None
        items = resolved.get("items")
        self.items: schemas.Schema | None = items if isinstance(items, dict) else None
        self.open = bool(resolved.get("x-kubernetes-preserve-unknown-fields"))
        self.closed = properties is not None and self.extra is None
        self.definition = name
        self.format = resolved.get("format")
        self.judged = godecode.judges(name, self.format)
        # The Python types of the values whose JSON type fits here, whatever the value (a float fits an
        # integer only when whole, so it is judged one by one unless numbers fit): _fits decided once.
        self.fitting = frozenset(t for t, sample in _SAMPLES if _fits(sample, self.kinds))
        # Of those, the scalars the walks have nothing to do with here: no decoding to judge, nothing below.
        self.plain = frozenset() if self.judged else self.fitting & _SCALARS
        self.omitted = goshape.omitted_when_empty(name or "")
        self.written = goshape.scalars_written(name or "")
        self.go_fields = gotypes.fields(name) if self.properties else {}
        self._go_type: str | None = None
        self._children: dict[str | None, _Node | None] = {}

    def child(self, key: str | None) -> _Node | None:
        """A field's node (None: a list's items), or None where the schema says nothing of it."""
        try:
            return self._children[key]
        except KeyError:
            pass
        schema = self.items if key is None else self.properties.get(key, self.extra)
        node = self._children[key] = _compiled(schema)
        return node

    @property
    def zero(self) -> Any:
        """What Go decodes a null into here: a struct or scalar's zero value; a list or map stays nil."""
        if self.properties:
            return {}
        if len(self.kinds - {"null"}) != 1:
            return None  # int-or-string, quantities, untyped values
        kind = next(iter(self.kinds - {"null"}))
        return {"string": "", "integer": 0, "number": 0, "boolean": False}.get(kind)

    @property
    def go_type(self) -> str:
        """The Go type guessed from the schema, where upstream's Go types do not say (gotypes)."""
        if self._go_type is None:
            self._go_type = _go_type(self.schema)
        return self._go_type


_SAMPLES: tuple[tuple[type, Any], ...] = ((bool, True), (int, 1), (float, 0.5), (str, ""), (list, []), (dict, {}))
_SCALARS = frozenset({bool, int, float, str})
_NODES: dict[object, tuple[schemas.Schema, _Node | None]] = {}
# What Go's omitempty leaves out of a string, number or bool: decoded, it is the same as none. An empty
# list or map is kept (validation tells it from none), and left out as the object is written (shaping).
_EMPTY = ("", 0, False)


def _compiled(schema: schemas.Schema | None) -> _Node | None:
    return schemas.compiled(_NODES, schema, _built)


def _built(schema: schemas.Schema) -> _Node | None:
    resolved = schemas.resolve(schema)
    return None if resolved is None else _Node(schema, resolved)


def unknown_fields(obj: Any, schema: schemas.Schema | None, path: str = "", drop: bool = False) -> list[str]:
    """Paths of the fields the schema does not know, where it keeps a closed set of fields.

    With `drop`, obj is left as decoding it into upstream's Go structs and writing them back leaves it:
    unknown fields taken out, a struct's null fields unset, a null item or map value its type's zero
    value, and empty fields tagged omitempty left out."""
    found: list[str] = []
    _unknown(obj, _compiled(schema), path, found, drop)
    return found


def _unknown(obj: Any, node: _Node | None, path: str, found: list[str], drop: bool) -> None:
    if node is None or node.open:
        return
    if isinstance(obj, list):
        item = node.child(None)
        if item is not None:
            for i, v in enumerate(obj):
                if v is None and drop:
                    obj[i] = v = item.zero
                _unknown(v, item, f"{path}[{i}]", found, drop)
        return
    if not isinstance(obj, dict):
        return
    strangers = []
    for key, value in obj.items():
        where = f"{path}.{key}" if path else key
        child = node.child(key)
        if child is not None:
            if value is None and drop:
                if node.closed:
                    strangers.append(key)
                else:
                    obj[key] = child.zero
                continue
            if type(value) not in _SCALARS:
                _unknown(value, child, where, found, drop)
            if drop and key in node.omitted and value in _EMPTY:
                strangers.append(key)
        elif node.closed and key not in node.properties:
            found.append(where)
            strangers.append(key)
    if drop:
        for key in strangers:
            del obj[key]
        for key, zero in node.written:
            obj.setdefault(key, zero)


_JSON_KIND = {bool: "bool", int: "number", float: "number", str: "string", dict: "object", list: "array"}


def _go_type(schema: schemas.Schema | None) -> str:
    """The Go type upstream decodes a field into, as encoding/json names it in its errors."""
    name = schemas.ref_name(schema) if schema is not None else None
    resolved = schemas.resolve(schema) or {}
    if name is not None and "properties" in resolved:
        return ".".join(name.split(".")[-2:])
    kinds = schemas.types_of(resolved) - {"null"}
    if "array" in kinds:
        return "[]" + _go_type(schemas.child_schema(schema, None))
    if "object" in kinds:
        return "map[string]" + _go_type(schemas.child_schema(schema, "")) if isinstance(
            resolved.get("additionalProperties"), dict) else "map[string]interface {}"
    if "integer" in kinds:
        return str(resolved.get("format") or "int64")
    return {"boolean": "bool", "number": "float64"}.get(next(iter(kinds), ""), "string")


def _fits(value: Any, kinds: set[str], unstructured: bool = False) -> bool:
    if value is None or not kinds or len(kinds - {"null"}) > 1:
        return True  # null is every type's zero value; int-or-string and quantities take either
    if isinstance(value, bool):
        return "boolean" in kinds
    if isinstance(value, int):
        return bool(kinds & {"integer", "number"})
    if isinstance(value, float):
        # encoding/json takes no fraction or exponent for an integer (`1.0`, `1e3`: JSON bodies' floats
        # are such literals); converted from a map, a whole float64 fits an integer.
        return "number" in kinds or ("integer" in kinds and unstructured and value.is_integer())
    if isinstance(value, str):
        return "string" in kinds
    if isinstance(value, list):
        return "array" in kinds
    return "object" in kinds


def _number_text(number: float) -> str:
    """A refused float as encoding/json names it: its literal, when the body's spelling is known."""
    return str(number) if isinstance(number, gonumbers.Spelled) else goprint.json_number(number)


def spelled_type_error(problem: str, raw: bytes, ref: schemas.Schema | None) -> str:
    """A JSON body's refusal (type_error's `problem`) with its number named as the body spelled it
    (gonumbers: orjson read `1e3` as 1000.0); the problem as it was when the body holds no such number."""
    if gonumbers.may_hold_unusual_numbers(raw):
        return type_error(gonumbers.spelled(raw), ref) or problem
    return problem


def type_error(obj: Any, schema: schemas.Schema | None, unstructured: bool = False) -> str | None:
    """The first value of the wrong JSON type, in encoding/json's words, as upstream reports it, or
    that Go's decoding of its type refuses (`unstructured`: converting from a map, as patches do)."""
    node = _compiled(schema)
    found = _type_error(obj, node, "", "", None, unstructured)
    return found if found is None or unstructured else _stopping_error(obj, node) or found


def _stopping_error(obj: Any, node: _Node | None) -> str | None:
    """The first value whose own UnmarshalJSON refuses it (a time, a quantity), which a JSON body holding
    a mistyped value answers instead: encoding/json keeps the first mistyped value's error and decodes
    on, but an UnmarshalJSON's error stops it and is the one returned (the unstructured converter
    stops at the first of either)."""
    if node is None or (type(obj) not in node.fitting and not _fits(obj, node.kinds, False)):
        return None
    if node.judged:
        return _type_error(obj, node, "", "", None, False) if godecode.stops(node.definition) else None
    if isinstance(obj, list):
        item = node.child(None)
        return next((e for v in obj if (e := _stopping_error(v, item))), None) if item is not None else None
    if isinstance(obj, dict):
        return next((e for k, v in obj.items() if (e := _stopping_error(v, node.child(k)))), None)
    return None


def decode_problem(obj: dict[str, Any], url_type: tuple[str, str], unstructured: bool = False) -> str | None:
    """type_error of a built-in object (named by its kind and apiVersion, else the URL's)."""
    group, _, version = str(obj.get("apiVersion") or url_type[1]).rpartition("/")
    ref = schemas.kind_ref(group, version, str(obj.get("kind") or url_type[0]))
    return None if ref is None else type_error(obj, ref, unstructured)


def _type_error(obj: Any, node: _Node | None, owner: str, path: str, go_type: str | None,
                unstructured: bool) -> str | None:
    """`go_type`: the Go type upstream decodes obj into, as encoding/json names it (None: not known)."""
    if node is None:
        return None
    if type(obj) not in node.fitting and not _fits(obj, node.kinds, unstructured):
        kind = _JSON_KIND.get(type(obj), "value")
        shown = f"number {_number_text(obj)}" if isinstance(obj, float) else kind
        return (f"json: cannot unmarshal {shown} into Go struct field {owner}.{path} of type "
                f"{go_type or node.go_type}")
    if node.judged:
        if type(obj) is str:
            return _text_error(obj, node, unstructured)
        return godecode.value_error(obj, node.definition, node.format, go_type or node.go_type, f"{owner}.{path}",
                                    unstructured)
    if isinstance(obj, list):
        item = node.child(None)
        if item is not None:
            item_type = gotypes.element(go_type)
            for v in obj:
                found = _type_error(v, item, owner, path, item_type, unstructured)
                if found:
                    return found
        return None
    if isinstance(obj, dict):
        struct = node.struct or owner
        fields = node.go_fields
        value_type = None if fields else gotypes.element(go_type)
        for key, value in obj.items():
            child = node.child(key)
            if child is not None:
                # encoding/json's path names the embedded structs a field is reached through, and
                # no map key (sigs.k8s.io/json's object(): only a struct field joins the path).
                through, child_type = fields.get(key, gotypes.UNKNOWN) if fields else ("", value_type)
                where = path if not node.properties else f"{path}.{through}{key}" if path else through + key
                found = _type_error(value, child, struct, where, child_type, unstructured)
                if found:
                    return found
    return None


def _typed_and_known(obj: dict[str, Any], ref: schemas.Schema) -> tuple[str | None, list[str]]:
    """type_error(obj, ref) and, when there is none, unknown_fields(obj, resolve(ref), drop=True), in one
    walk. The first mistyped value is found in the same order; a value is judged before dropping
    changes it (a null, which no type refuses, becomes its zero value), and what is dropped lies below
    what has been judged, so dropping on the way leaves every judgment as the two walks make it."""
    node = _compiled(ref)
    # The walk of unknown fields starts from the resolved definition, whose node writes and omits
    # nothing of its own: only the root differs, as every child is compiled from the same schema.
    shape = _compiled(schemas.resolve(ref))
    if node is None or shape is None:
        return type_error(obj, ref), unknown_fields(obj, schemas.resolve(ref), drop=True)
    found: list[str] = []
    mistyped = _checked(obj, node, shape, "", "", None, "", found)
    return (mistyped if mistyped is None else _stopping_error(obj, node) or mistyped), found


def _checked(obj: Any, node: _Node, shape: _Node, owner: str, path: str, go_type: str | None, where: str,
             found: list[str]) -> str | None:
    """_type_error of obj (`owner`, `path`, `go_type` as there) and, while none is found, _unknown with
    drop (`where`: the path unknown fields are named by); `shape` is node but at the root."""
    if type(obj) not in node.fitting and not _fits(obj, node.kinds):
        return _type_error(obj, node, owner, path, go_type, False)
    if node.judged:
        mistyped = _type_error(obj, node, owner, path, go_type, False)
        if mistyped is None:
            _unknown(obj, shape, where, found, True)
        return mistyped
    if shape.open:
        return _type_error(obj, node, owner, path, go_type, False)
    if isinstance(obj, list):
        item = node.child(None)
        if item is None:
            return None
        item_type = gotypes.element(go_type)
        plain = item.plain
        for i, v in enumerate(obj):
            if type(v) in plain:
                continue
            if v is None:
                obj[i] = v = item.zero  # a null is no type's mistake
                _unknown(v, item, f"{where}[{i}]", found, True)
                continue
            mistyped = _checked(v, item, item, owner, path, item_type, f"{where}[{i}]", found)
            if mistyped:
                return mistyped
        return None
    if not isinstance(obj, dict):
        return None
    struct = node.struct or owner
    fields = node.go_fields
    value_type = None if fields else gotypes.element(go_type)
    properties = node.properties
    strangers = []
    for key, value in obj.items():
        child = node.child(key)
        if child is not None:
            if value is None:
                if shape.closed:
                    strangers.append(key)
                else:
                    obj[key] = child.zero
                continue
            if type(value) not in child.plain:
                through, child_type = fields.get(key, gotypes.UNKNOWN) if fields else ("", value_type)
                go_path = path if not properties else f"{path}.{through}{key}" if path else through + key
                mistyped = _checked(value, child, child, struct, go_path, child_type,
                                    f"{where}.{key}" if where else key, found)
                if mistyped:
                    return mistyped
            if key in shape.omitted and value in _EMPTY:
                strangers.append(key)
        elif shape.closed and key not in properties:
            found.append(f"{where}.{key}" if where else key)
            strangers.append(key)
    for key in strangers:
        del obj[key]
    for key, zero in shape.written:
        obj.setdefault(key, zero)
    return None


_TEXT_ERRORS: dict[tuple[str | None, str | None, str, bool], str | None] = {}
_TEXT_ERRORS_KEPT = 4096


def _text_error(text: str, node: _Node, unstructured: bool) -> str | None:
    """godecode.value_error of a string, whose answer names neither the field nor its Go type (only a
    number's does): remembered by the text, as a write meets the same times again and again (its
    object's creation, its managers' writes) and parsing one costs more than the rest of its walk."""
    key = (node.definition, node.format, text, unstructured)
    try:
        return _TEXT_ERRORS[key]
    except KeyError:
        pass
    if len(_TEXT_ERRORS) >= _TEXT_ERRORS_KEPT:
        _TEXT_ERRORS.clear()
    found = _TEXT_ERRORS[key] = godecode.value_error(text, node.definition, node.format, "", "", unstructured)
    return found


_WHITESPACE_AFTER_QUOTE = (b'" ', b'"\n', b'"\t', b'"\r')


def _key_count(value: Any) -> int:
    if isinstance(value, dict):
        count = len(value)
        for v in value.values():
            if isinstance(v, (dict, list)):
                count += _key_count(v)
        return count
    count = 0
    if isinstance(value, list):
        for v in value:
            if isinstance(v, (dict, list)):
                count += _key_count(v)
    return count


def _surely_unique(raw: bytes) -> bool:
    """Whether no JSON object in raw repeats a key, found without a second, Python-level parse where it can be.

    Every key ends with a quote followed by a colon or whitespace, so counting those (in C) bounds
    how many keys the text holds; the decoded objects hold one per distinct key. When the two
    counts meet, no key was given twice. (Quotes inside strings only raise the bound.)
    """
    try:
        decoded = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    bound = raw.count(b'":') + sum(raw.count(pair) for pair in _WHITESPACE_AFTER_QUOTE)
    return bound == _key_count(decoded)


def duplicate_fields(raw: bytes) -> list[str]:
    """Keys given twice in one JSON object, by their path."""
    if _surely_unique(raw):
        return []
    try:
        top = json.loads(raw, object_pairs_hook=_Pairs)
    except ValueError:
        return []
    found: list[str] = []

    def descend(value: Any, path: str) -> None:
        if isinstance(value, _Pairs):
            seen: set[str] = set()
            for key, child in value.items_:
                where = f"{path}.{key}" if path else key
                if key in seen:
                    found.append(where)
                seen.add(key)
                descend(child, where)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                descend(item, f"{path}[{i}]")

    descend(top, "")
    return found


class _Pairs:
    """A JSON object as decoded, with every key it had, repeated ones included."""

    def __init__(self, items: list[tuple[str, Any]]) -> None:
        self.items_ = items


def check(kind: str, api_version: str, how: str, unknown: list[str], duplicates: list[str]) -> dict[str, str]:
    """Raises under Strict; under Warn, the Warning header to answer with."""
    if how == "Ignore" or not (unknown or duplicates):
        return {}
    # Duplicates first: the JSON decoder meets them before the strict pass reports what it does not know.
    problems = [f"duplicate field {go_quote(p)}" for p in duplicates] + [f"unknown field {go_quote(p)}" for p in unknown]
    if how == "Strict":
        version = api_version.rpartition("/")[2]
        raise errors.bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: '
                                 f"strict decoding error: " + ", ".join(problems))
    return warning_header(problems)


def warning_header(problems: list[str]) -> dict[str, str]:
    """The Warning header naming each strict decoding problem, as upstream's recorder writes them."""
    return {"Warning": ", ".join(warning_line(p) for p in problems)}


def _pruned(original: Any, kept: Any, path: str = "") -> list[str]:
    """Paths of the fields pruning took out of original, leaving kept."""
    if isinstance(original, dict) and isinstance(kept, dict):
        found: list[str] = []
        for key, value in original.items():
            where = f"{path}.{key}" if path else key
            found.extend([where] if key not in kept else _pruned(value, kept[key], where))
        return found
    if isinstance(original, list) and isinstance(kept, list):
        return [p for i, (a, b) in enumerate(zip(original, kept)) for p in _pruned(a, b, f"{path}[{i}]")]
    return []


def _custom_unknown(obj: dict[str, Any], custom: CustomVersion) -> list[str]:
    """A custom object's unknown fields: what its CRD's schema prunes, strangers in its metadata, and
    strangers in the metadata of the resources it embeds (upstream's Coerce names them last, sorted)."""
    kept = orjson.loads(orjson.dumps(obj))
    crschema.prune(kept, custom.schema)
    meta = schemas.kind_ref("meta.k8s.io", "v1", "ObjectMeta") or {
        "$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    found = _pruned(obj, kept) + unknown_fields(obj.get("metadata"), schemas.resolve(meta), "metadata", drop=True)
    return found + custom.embedded_unknown_fields(kept)


def validate(obj: dict[str, Any], raw: bytes | None, query: Mapping[str, str],
             custom: CustomVersion | None = None, url_type: tuple[str, str] = ("", ""),
             json_body: bool = True) -> dict[str, str]:
    """The fields of a create or update body, checked as asked (a patch's: apiserver/patching/patch.py).

    A value of the wrong type is refused whatever the directive, as decoding it fails upstream; a
    custom object's types are its CRD validation's to check. A body that names no kind or apiVersion
    is decoded as the (kind, apiVersion) of the request's URL, `url_type`, as upstream defaults them.
    A number refused in a `json_body` is named as the body spelled it (YAML's are re-encoded first).
    """
    how = directive(query)
    kind = str(obj.get("kind") or url_type[0])
    api_version = str(obj.get("apiVersion") or url_type[1])
    if custom is not None:
        return check(kind, api_version, how, _custom_unknown(obj, custom), duplicate_fields(raw) if raw else [])
    group, _, version = api_version.rpartition("/")
    ref = schemas.kind_ref(group, version, kind)
    if ref is None:
        return {}
    mistyped, unknown = _typed_and_known(obj, ref)
    if mistyped is not None:
        if json_body and raw:
            mistyped = spelled_type_error(mistyped, raw, ref)
        raise errors.bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: {mistyped}')
    return check(kind, api_version, how, unknown, duplicate_fields(raw) if raw else [])


def unknown_paths(obj: dict[str, Any], custom: CustomVersion | None, url_type: tuple[str, str]) -> list[str]:
    """The fields of a decoded object its type does not know (a custom object's: what its schema prunes),
    taken out as decoding it into the type takes them out. `url_type` names the type when obj does not."""
    if custom is not None:
        return _custom_unknown(obj, custom)
    api_version = str(obj.get("apiVersion") or url_type[1])
    group, _, version = api_version.rpartition("/")
    ref = schemas.kind_ref(group, version, str(obj.get("kind") or url_type[0]))
    return [] if ref is None else unknown_fields(obj, schemas.resolve(ref), drop=True)
