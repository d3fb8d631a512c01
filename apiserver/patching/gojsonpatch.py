"""JSON Patch as kube-apiserver applies a mutating webhook's answer: gopkg.in/evanphx/json-patch.v4,
its leniencies and its error texts (which the client sees inside an internal error).

Where v4 departs from RFC 6902: `replace` of a key an object lacks adds it; negative array indexes
count from the end; an operation without `value` writes null. Texts are Go's, wrapped errors joined
with ": " as `fmt.Errorf("...: %w")` joins them.
"""

from __future__ import annotations

import copy
from typing import Any

_MISSING = "missing value"
_INVALID_INDEX = "invalid index referenced"
_TEST_FAILED = "test failed"


class PatchError(Exception):
    """A patch that cannot be decoded or applied; the message is Go's."""


class TestFailed(PatchError):
    """A `test` operation that failed (Go's ErrTestFailed): a MutatingAdmissionPolicy's patch is then
    dropped, where any other failure refuses the request."""


def decode(raw: Any) -> list[dict[str, Any]]:
    """The operations of a decoded JSON patch (DecodePatch's json.Unmarshal into []Operation)."""
    if not isinstance(raw, list):
        raise PatchError(f"json: cannot unmarshal {_json_type(raw)} into Go value of type jsonpatch.Patch")
    for operation in raw:
        if not isinstance(operation, dict) and operation is not None:
            raise PatchError(f"json: cannot unmarshal {_json_type(operation)} into Go value of type "
                             "jsonpatch.Operation")
    return [operation or {} for operation in raw]


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


_NO_PATH = "operation missing path field: " + _MISSING
_NO_FROM = "operation, missing from field: " + _MISSING


def _string_field(operation: dict[str, Any], name: str, prefix: str, cause_kept: bool = True) -> str:
    """Operation.Path()/From(); a failure reads `prefix: cause`, where some of Go's callers drop the
    cause for ErrMissing alone."""
    value = operation.get(name)
    if isinstance(value, str):
        return value
    if value is None:
        cause = (_NO_PATH if name == "path" else _NO_FROM) if cause_kept else _MISSING
    else:
        cause = f"json: cannot unmarshal {_json_type(value)} into Go value of type string" if cause_kept \
            else _MISSING
    raise PatchError(f"{prefix}: {cause}")


def _key(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _find(doc: Any, path: str) -> tuple[Any, str] | None:
    """findObject: the container holding the path's last part, and that part; None when missing."""
    parts = path.split("/")
    if len(parts) < 2:
        return None
    for part in parts[1:-1]:
        try:
            doc = _get(doc, _key(part))
        except PatchError:
            return None
        if not isinstance(doc, (dict, list)):
            return None
    return doc, _key(parts[-1])


def _index(key: str) -> int:
    try:
        return int(key, 10)
    except ValueError:
        raise PatchError(f'strconv.Atoi: parsing "{key}": invalid syntax') from None


def _get(container: Any, key: str) -> Any:
    if isinstance(container, dict):
        return container.get(key)
    index = _index(key)
    if index < -len(container) or index >= len(container):
        raise PatchError(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")
    return container[index]


def _add(container: Any, key: str, value: Any) -> None:
    if isinstance(container, dict):
        container[key] = value
        return
    if key == "-":
        container.append(value)
        return
    try:
        index = int(key, 10)
    except ValueError:
        raise PatchError(f"value was not a proper array index: '{key}': strconv.Atoi: parsing \"{key}\": "
                         "invalid syntax") from None
    size = len(container) + 1
    if index >= size or index < -size:
        raise PatchError(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")
    container.insert(index + size if index < 0 else index, value)


def _remove(container: Any, key: str) -> Any:
    if isinstance(container, dict):
        if key not in container:
            raise PatchError(f"Unable to remove nonexistent key: {key}: {_MISSING}")
        return container.pop(key)
    index = _index(key)
    if index >= len(container) or index < -len(container):
        raise PatchError(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")
    return container.pop(index)


def apply(doc: dict[str, Any], operations: list[dict[str, Any]]) -> Any:
    """`doc` after the operations (a new object; `doc` is left alone)."""
    root: Any = copy.deepcopy(doc)
    for operation in operations:
        kind = operation.get("op")
        kind = kind if isinstance(kind, str) else "unknown"
        if kind == "replace" and operation.get("path") == "":
            value = operation.get("value")
            if not isinstance(value, (dict, list)):
                raise PatchError(f"replace operation value must be object or array: {_MISSING}")
            root = copy.deepcopy(value)
            continue
        step = _STEPS.get(kind)
        if step is None:
            raise PatchError(f"Unexpected kind: {kind}")
        step(root, operation)
    return root


def _add_step(root: Any, operation: dict[str, Any]) -> None:
    path = _string_field(operation, "path", "add operation failed to decode path", False)
    found = _find(root, path)
    if found is None:
        raise PatchError(f'add operation does not apply: doc is missing path: "{path}": {_MISSING}')
    try:
        _add(*found, copy.deepcopy(operation.get("value")))
    except PatchError as exc:
        raise PatchError(f"error in add for path: '{path}': {exc}") from None


def _remove_step(root: Any, operation: dict[str, Any]) -> None:
    path = _string_field(operation, "path", "remove operation failed to decode path", False)
    found = _find(root, path)
    if found is None:
        raise PatchError(f'remove operation does not apply: doc is missing path: "{path}": {_MISSING}')
    try:
        _remove(*found)
    except PatchError as exc:
        raise PatchError(f"error in remove for path: '{path}': {exc}") from None


def _replace_step(root: Any, operation: dict[str, Any]) -> None:
    path = _string_field(operation, "path", "replace operation failed to decode path")
    found = _find(root, path)
    if found is None:
        raise PatchError(f"replace operation does not apply: doc is missing path: {path}: {_MISSING}")
    container, key = found
    try:
        _get(container, key)
    except PatchError:
        raise PatchError(f"replace operation does not apply: doc is missing key: {path}: "
                         f"{_MISSING}") from None
    value = copy.deepcopy(operation.get("value"))
    if isinstance(container, dict):
        container[key] = value
    else:
        container[_index(key)] = value


def _move_step(root: Any, operation: dict[str, Any]) -> None:
    source = _string_field(operation, "from", "move operation failed to decode from")
    found = _find(root, source)
    if found is None:
        raise PatchError(f"move operation does not apply: doc is missing from path: {source}: {_MISSING}")
    container, key = found
    try:
        _get(container, key)
        value = _remove(container, key)
    except PatchError as exc:
        raise PatchError(f"error in move for path: '{key}': {exc}") from None
    path = _string_field(operation, "path", "move operation failed to decode path")
    found = _find(root, path)
    if found is None:
        raise PatchError(f"move operation does not apply: doc is missing destination path: {path}: "
                         f"{_MISSING}")
    try:
        _add(*found, value)
    except PatchError as exc:
        raise PatchError(f"error in move for path: '{path}': {exc}") from None


def _test_step(root: Any, operation: dict[str, Any]) -> None:
    path = _string_field(operation, "path", "test operation failed to decode path")
    expected = operation.get("value")
    if path == "":
        if root != expected:
            raise TestFailed(f"testing value {path} failed: {_TEST_FAILED}")
        return
    found = _find(root, path)
    if found is None:
        raise PatchError(f"test operation does not apply: is missing path: {path}: {_MISSING}")
    try:
        actual = _get(*found)
    except PatchError as exc:
        raise PatchError(f"error in test for path: '{path}': {exc}") from None
    if actual != expected or (isinstance(actual, bool) != isinstance(expected, bool)):
        raise TestFailed(f"testing value {path} failed: {_TEST_FAILED}")


def _copy_step(root: Any, operation: dict[str, Any]) -> None:
    source = _string_field(operation, "from", "copy operation failed to decode from")
    found = _find(root, source)
    if found is None:
        raise PatchError(f"copy operation does not apply: doc is missing from path: {source}: {_MISSING}")
    try:
        value = _get(*found)
    except PatchError as exc:
        raise PatchError(f"error in copy for from: '{source}': {exc}") from None
    path = _string_field(operation, "path", "copy operation failed to decode path", False)
    found = _find(root, path)
    if found is None:
        raise PatchError(f"copy operation does not apply: doc is missing destination path: {path}: "
                         f"{_MISSING}")
    try:
        _add(*found, copy.deepcopy(value))
    except PatchError as exc:
        raise PatchError(f"error while adding value during copy: {exc}") from None


_STEPS = {"add": _add_step, "remove": _remove_step, "replace": _replace_step, "move": _move_step,
          "test": _test_step, "copy": _copy_step}
