"""MutatingAdmissionPolicy's `patchType: ApplyConfiguration` (upstream: admission/plugin/policy/mutating/
patch/smd.go): the expression builds an apply configuration out of `Object` literals
(`Object{spec: Object.spec{replicas: 3}}`), which is merged into the object by the kind's schema, as
structured-merge-diff merges (keyed lists by key, granular maps by field), owning nothing.

Upstream's `Object` types are dynamic (apiserver/pkg/cel/mutation/dynamic): any field is accepted and
the type names are checked after evaluation against the field path they sit at. The CEL engine here
has no dynamic message types, so each `Object...{` literal is rewritten, before compiling, into a map
literal that carries its type name under `TYPE_KEY`; after evaluation the names are checked as
upstream checks them (CheckTypeNamesMatchFieldPathNames) and taken out again.
"""

from __future__ import annotations

import json
import re
from typing import Any

from apiserver.kinds import fieldnodes, schemas, structuredmerge

TYPE_KEY = "@type"  # no Kubernetes field is named so
_TOKEN = re.compile(r'''
    (?P<string>[rRbB]{0,2}(?:"""(?:\\.|[^\\])*?"""|\'\'\'(?:\\.|[^\\])*?\'\'\'|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
  | (?P<comment>//[^\n]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<space>\s+)
  | (?P<other>.)
''', re.VERBOSE | re.DOTALL)


class ApplyConfigurationError(Exception):
    """An apply configuration that cannot be merged; the text is upstream's."""


def rewrite(source: str) -> str:
    """`source` with each `Object[.field...]{name: value, ...}` literal as a map literal naming its type."""
    tokens = [(m.lastgroup or "", m.group()) for m in _TOKEN.finditer(source)]
    out: list[str] = []
    frames: list[bool] = []  # per open bracket: whether it is an Object literal's brace
    expect_field = False
    index = 0
    while index < len(tokens):
        kind, text = tokens[index]
        if kind == "ident" and text == "Object" and _previous(tokens, index) != ".":
            name, after = _type_name(tokens, index)
            if after < len(tokens) and tokens[after][1] == "{":
                empty = _next(tokens, after + 1) == "}"
                out.append("{" + json.dumps(TYPE_KEY) + ": " + json.dumps(name) + ("" if empty else ", "))
                frames.append(True)
                expect_field = True
                index = after + 1
                continue
        if kind == "ident" and expect_field and frames and frames[-1] and _next(tokens, index + 1) == ":":
            out.append(json.dumps(text))
            expect_field = False
            index += 1
            continue
        if kind == "other" and text in "{([":
            frames.append(False)
        elif kind == "other" and text in "})]" and frames:
            frames.pop()
        elif kind == "other" and text == "," and frames and frames[-1]:
            expect_field = True
        if kind not in ("space", "comment"):
            expect_field = expect_field and text == ","
        out.append(text)
        index += 1
    return "".join(out)


def _significant(tokens: list[tuple[str, str]], index: int, step: int) -> str:
    while 0 <= index < len(tokens):
        if tokens[index][0] not in ("space", "comment"):
            return tokens[index][1]
        index += step
    return ""


def _previous(tokens: list[tuple[str, str]], index: int) -> str:
    return _significant(tokens, index - 1, -1)


def _next(tokens: list[tuple[str, str]], index: int) -> str:
    return _significant(tokens, index, 1)


def _type_name(tokens: list[tuple[str, str]], index: int) -> tuple[str, int]:
    """The dotted name starting at `index`, and the index of the first significant token after it."""
    parts = [tokens[index][1]]
    index += 1
    while True:
        probe = index
        while probe < len(tokens) and tokens[probe][0] in ("space", "comment"):
            probe += 1
        if probe + 1 < len(tokens) and tokens[probe][1] == "." and tokens[probe + 1][0] == "ident":
            parts.append(tokens[probe + 1][1])
            index = probe + 2
            continue
        return ".".join(parts), probe


def configuration(value: Any) -> dict[str, Any]:
    """The evaluated expression as an apply configuration, its type names checked and taken out."""
    if not isinstance(value, dict) or TYPE_KEY not in value:
        raise ApplyConfigurationError(f"unsupported return type from ApplyConfiguration expression: {type(value).__name__}")
    problems: list[str] = []
    out = _checked(value, [str(value[TYPE_KEY])], problems)
    if problems:
        raise ApplyConfigurationError("type mismatch: " + "\n".join(problems))
    assert isinstance(out, dict)
    return out


def _checked(value: Any, path: list[str], problems: list[str]) -> Any:
    """typeCheck: an object's type name must be its field path from the root Object type."""
    if isinstance(value, dict) and TYPE_KEY in value:
        expected = ".".join(path)
        if value[TYPE_KEY] != expected:
            problems.append(f"unexpected type name {json.dumps(value[TYPE_KEY])}, expected {json.dumps(expected)}, "
                            "which matches field name path from root Object type")
        return {k: _checked(v, [*path, k], problems) for k, v in value.items() if k != TYPE_KEY}
    if isinstance(value, list):
        return [_checked(v, path, problems) for v in value]
    if isinstance(value, dict):
        return {k: _checked(v, path, problems) for k, v in value.items()}
    return value


def merged(live: dict[str, Any], patch: dict[str, Any], schema: schemas.Schema | None) -> dict[str, Any]:
    """ApplyStructuredMergeDiff: refuses a configuration that sets anything atomic, else merges it."""
    atomics = _atomics("", schema, patch)
    if atomics:
        raise ApplyConfigurationError("error applying patch: invalid ApplyConfiguration: may not mutate atomic "
                                      "arrays, maps or structs: " + ", ".join(atomics))
    out = structuredmerge.merge(live, patch, schema)
    assert isinstance(out, dict)
    return out


def _atomics(path: str, field: schemas.Schema | None, value: Any) -> list[str]:
    """findAtomics: the paths of atomic maps, structs and lists the configuration sets."""
    resolved = schemas.resolve(field)
    if resolved is None:
        return []
    found: list[str] = []
    if isinstance(value, dict) and ("properties" in resolved or "additionalProperties" in resolved
                                    or resolved.get("type") == "object"):
        if not fieldnodes.granular(value, field):
            found.append(path)
        properties = resolved.get("properties") or {}
        for key, item in value.items():
            if key in properties:
                found += _atomics(f"{path}.{key}", schemas.child_schema(field, key), item)
    if isinstance(value, list) and ("items" in resolved or resolved.get("type") == "array"):
        if fieldnodes.list_keys(field)[0] == "atomic":
            found.append(path)
        element = schemas.child_schema(field, None)
        for index, item in enumerate(value):
            found += _atomics(f"{path}[{index}]", element, item)
    return found
