"""The type of an admission policy's `variables` when its expressions are checked: an object whose
fields are typed by each variable's expression, as upstream's composition compiler declares them
(`admission/plugin/cel/composition.go`: CompileAndStoreVariable adds each variable, once compiled, as a
field of `kubernetes.variables`; one that does not compile is dyn).

So `variables.name` reading `object.metadata.name` is dyn (no bool), and `variables.count + 'x'`
reading `size(...)` does not compile. The object is declared through the CRD schemas' seam
(apiserver/cel/declared.py): each variable's type is spelled as the schema that declares it.
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.cel import declared

_DYN: dict[str, Any] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
_SCALARS: dict[str, dict[str, Any]] = {
    "bool": {"type": "boolean"}, "int": {"type": "integer"}, "string": {"type": "string"},
    "bytes": {"type": "string", "format": "byte"}, "duration": {"type": "string", "format": "duration"},
    "timestamp": {"type": "string", "format": "date-time"}}
_GENERIC = re.compile(r"^(list|map)[<(](.*)[>)]$")


def _arguments(text: str) -> list[str]:
    """`a, map<b, c>` split at its top-level commas."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        elif char == "," and depth == 0:
            found.append(text[start:i].strip())
            start = i + 1
    found.append(text[start:].strip())
    return found


def schema_of(output: str) -> dict[str, Any]:
    """The schema declaring a checked output type ("list<string>", "map(string, int)", "dyn", ...)."""
    if output in _SCALARS:
        return _SCALARS[output]
    generic = _GENERIC.match(output)
    if generic is not None:
        arguments = _arguments(generic.group(2))
        if generic.group(1) == "list" and len(arguments) == 1:
            return {"type": "array", "items": schema_of(arguments[0])}
        if generic.group(1) == "map" and len(arguments) == 2 and arguments[0] == "string":
            return {"type": "object", "additionalProperties": schema_of(arguments[1])}
    return _DYN  # dyn, double (declared dyn for cross-type comparisons), messages and the rest


def variables_type(outputs: list[tuple[str, str]]) -> Any:
    """The CEL type of `variables` holding these (name, output type) fields."""
    schema = {"type": "object", "properties": {name: schema_of(output) for name, output in outputs}}
    return declared.declare(schema, False).cel_type
