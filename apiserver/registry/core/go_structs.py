"""The internal core types as upstream's messages print them: json.Marshal of a struct without json tags
(every field, Go names, declaration order), and diff.Diff (apimachinery/pkg/util/diff): a unified
diff, three lines of context, of two such structs indented by one space.

The struct facts are generated from upstream's sources by tools/go_internal_types.py.
"""

from __future__ import annotations

import difflib
import functools
import json
from importlib import resources
from typing import Any

from apiserver.kinds import quantity as quantities

Obj = dict[str, Any]

_INTS = frozenset({"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
                   "float32", "float64"})
_STRINGS = frozenset({"string", "types.UID", "metav1.Time", "metav1.MicroTime"})
# Types from outside core whose own json tags (with omitempty) decide what they write.
_TAGGED_OUTSIDE = ("metav1.", "intstr.")
# The metav1 structs with fields that are not omitempty: (json name, Go type, omitempty) in
# declaration order, as staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go tags them.
_METAV1_STRUCTS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "metav1.LabelSelector": (("matchLabels", "map[string]string", True),
                             ("matchExpressions", "[]metav1.LabelSelectorRequirement", True)),
    "metav1.LabelSelectorRequirement": (("key", "string", False), ("operator", "string", False),
                                        ("values", "[]string", True)),
}
# The v1 PodSpec fields the internal type keeps in its security context.
_POD_HOST_FIELDS = ("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "hostUsers")


@functools.cache
def _facts() -> dict[str, Any]:
    text = (resources.files("apiserver") / "data" / "core_internal_types.json").read_text()
    return json.loads(text)  # type: ignore[no-any-return]


def _underlying(go_type: str) -> str:
    named = _facts()["named"]
    seen = 0
    while go_type in named and seen < 8:
        go_type, seen = named[go_type], seen + 1
    return go_type


def _map_value_type(go_type: str) -> str:
    depth = 0
    for i, ch in enumerate(go_type[4:], start=4):
        depth += ch == "["
        if ch == "]":
            if depth == 0:
                return go_type[i + 1:]
            depth -= 1
    return "string"


def _without_empty(value: Any) -> Any:
    """A value of a tagged type (metav1's), as omitempty writes it."""
    if isinstance(value, dict):
        return {k: _without_empty(v) for k, v in value.items() if v not in (None, "", [], {}, False, 0)}
    if isinstance(value, list):
        return [_without_empty(v) for v in value]
    return value


def rendered(go_type: str, value: Any) -> Any:
    """The v1 value of a field of this Go type, as json.Marshal writes the internal field."""
    if go_type.startswith("*"):
        return None if value is None else rendered(go_type[1:], value)
    if go_type == "[]byte":
        return value or None
    if go_type.startswith("[]"):
        return None if value is None else [rendered(go_type[2:], v) for v in value]
    go_type = _underlying(go_type)
    if go_type.startswith("map["):
        if value is None:
            return None
        item = _map_value_type(go_type)
        return {k: rendered(item, value[k]) for k in sorted(value)}
    if go_type.startswith(("*", "[]")):
        return rendered(go_type, value)
    if go_type in _STRINGS:
        return value if value is not None else ("" if go_type in ("string", "types.UID") else None)
    if go_type in _INTS:
        return value or 0
    if go_type == "bool":
        return bool(value)
    if go_type == "resource.Quantity":
        try:
            return quantities.canonical(quantities.parse(value if value is not None else "0"))
        except quantities.QuantityError:
            return value
    if go_type in _METAV1_STRUCTS:
        return _tagged_struct(go_type, value if isinstance(value, dict) else {})
    if go_type.startswith(_TAGGED_OUTSIDE):
        return _without_empty(value) if value is not None else ({} if go_type.startswith("metav1.") else 0)
    if go_type in _facts()["structs"]:
        return struct(go_type, value if isinstance(value, dict) else {})
    return value


def _tagged_struct(name: str, value: Obj) -> Obj:
    """A metav1 struct as its json tags write it: empty omitempty fields left out, the others always."""
    out: Obj = {}
    for json_name, go_type, omitempty in _METAV1_STRUCTS[name]:
        field_value = value.get(json_name)
        if omitempty and field_value in (None, "", [], {}):
            continue
        out[json_name] = rendered(go_type, field_value)
    return out


def struct(name: str, value: Obj) -> Obj:
    """The internal struct `name` holding this v1 object, field by field."""
    out: Obj = {}
    for go_name, go_type, json_name, embedded in _facts()["structs"][name]:
        if embedded:
            inner = go_type.lstrip("*")
            if inner in _facts()["structs"]:
                out.update(struct(inner, value))
            continue
        out[go_name] = rendered(go_type, value.get(json_name))
    return out


def pod_spec(spec: Obj) -> Obj:
    """The internal core.PodSpec of a v1 pod's spec (Convert_v1_Pod_To_core_Pod), as json.Marshal writes it:
    the host namespace fields live in the security context, serviceAccount is an alias, and a negative
    grace period reads 1."""
    converted = dict(spec)
    context = dict(spec.get("securityContext") or {})
    for key in _POD_HOST_FIELDS:
        context[key] = spec.get(key)
    converted["securityContext"] = context
    if not spec.get("serviceAccountName"):
        converted["serviceAccountName"] = spec.get("serviceAccount")
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace < 0:
        converted["terminationGracePeriodSeconds"] = 1
    return struct("PodSpec", converted)


def semantic(value: Any) -> Any:
    """A rendered value as apiequality.Semantic.DeepEqual compares it: an empty slice or map is the same
    as a nil one, while a pointer to an empty struct (rendered with all its fields) is not a nil one."""
    if isinstance(value, dict):
        return {k: semantic(v) for k, v in value.items()} or None
    if isinstance(value, list):
        return [semantic(v) for v in value] or None
    return value


def marshal_indent(value: Any) -> str:
    """json.MarshalIndent(value, "", " "), with Go's HTML escaping."""
    text = json.dumps(value, indent=1, ensure_ascii=False, separators=(",", ": "))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def diff(old: Any, new: Any) -> str:
    """diff.Diff(old, new): go-difflib's unified diff of the two values' indented JSON."""
    a = marshal_indent(old).splitlines(keepends=True)
    b = marshal_indent(new).splitlines(keepends=True)
    # go-difflib's SplitLines ends the last line with a newline too.
    a[-1] = a[-1] if a[-1].endswith("\n") else a[-1] + "\n"
    b[-1] = b[-1] if b[-1].endswith("\n") else b[-1] + "\n"
    lines = list(difflib.unified_diff(a, b, n=3))
    return "".join(line for line in lines[2:])
