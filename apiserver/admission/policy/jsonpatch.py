"""RFC 6902 JSON Patch as a MutatingAdmissionPolicy applies it: gopkg.in/evanphx/json-patch.v4's Apply.

Its quirks are kept, since they decide what a policy's patch does: `replace` of a missing object key
adds it, `copy` and `move` from a missing key move a null, `test` of a missing key equals a null, a
negative array index counts from the end, and a path's first segment is never read (`a/b` is `/b`).
Errors carry the library's words ("error in remove for path: '/data/x': Unable to remove nonexistent
key: x: missing value"); a failed `test` is TestFailed, which leaves the object as it was.
"""

from __future__ import annotations

import copy
from typing import Any

_MISSING = "missing value"
_INVALID_INDEX = "invalid index referenced"


class PatchFailed(Exception):
    pass


class TestFailed(PatchFailed):
    pass


def _decode(key: str) -> str:
    return key.replace("~1", "/").replace("~0", "~")


def _index(key: str) -> int:
    """strconv.Atoi, with Go's error text."""
    text = key[1:] if key[:1] in "+-" else key
    if not text or not text.isascii() or not text.isdigit():
        raise PatchFailed(f'strconv.Atoi: parsing "{key}": invalid syntax')
    return int(key)


def _invalid(index: int) -> PatchFailed:
    return PatchFailed(f"Unable to access invalid index: {index}: {_INVALID_INDEX}")


def _get(container: Any, key: str) -> Any:
    """The value at `key`; an object's missing key is None, as partialDoc.get answers it."""
    if isinstance(container, dict):
        return container.get(key)
    index = _index(key)
    if index < 0:
        if index < -len(container):
            raise _invalid(index)
        index += len(container)
    if index >= len(container):
        raise _invalid(index)
    return container[index]


def _add(container: Any, key: str, value: Any) -> None:
    if isinstance(container, dict):
        container[key] = value
        return
    if key == "-":
        container.append(value)
        return
    try:
        index = _index(key)
    except PatchFailed as failed:
        raise PatchFailed(f"value was not a proper array index: '{key}': {failed}") from None
    size = len(container) + 1
    if index >= size or index < -size:
        raise _invalid(index)
    container.insert(index + size if index < 0 else index, value)


def _remove(container: Any, key: str) -> None:
    if isinstance(container, dict):
        if key not in container:
            raise PatchFailed(f"Unable to remove nonexistent key: {key}: {_MISSING}")
        del container[key]
        return
    index = _index(key)
    if index >= len(container) or index < -len(container):
        raise _invalid(index)
    del container[index]


def _find(doc: Any, path: str) -> tuple[Any, str] | None:
    """findObject: the container holding the path's last segment, and that segment decoded."""
    split = path.split("/")
    if len(split) < 2:
        return None
    for part in split[1:-1]:
        try:
            doc = _get(doc, _decode(part))
        except PatchFailed:
            return None
        if not isinstance(doc, (dict, list)):
            return None
    return doc, _decode(split[-1])


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return bool(a == b) and isinstance(a, (int, float)) == isinstance(b, (int, float))


def apply(doc: dict[str, Any], operations: list[dict[str, Any]]) -> dict[str, Any]:
    """`doc` patched (a copy); PatchFailed with the library's message, TestFailed for a failed test."""
    root: Any = copy.deepcopy(doc)
    for operation in operations:
        kind, path, value = operation.get("op", ""), operation.get("path", ""), operation.get("value")
        if kind == "add":
            found = _find(root, path)
            if found is None:
                raise PatchFailed(f'add operation does not apply: doc is missing path: "{path}": {_MISSING}')
            try:
                _add(*found, value)
            except PatchFailed as failed:
                raise PatchFailed(f"error in add for path: '{path}': {failed}") from None
        elif kind == "remove":
            found = _find(root, path)
            if found is None:
                raise PatchFailed(f'remove operation does not apply: doc is missing path: "{path}": {_MISSING}')
            try:
                _remove(*found)
            except PatchFailed as failed:
                raise PatchFailed(f"error in remove for path: '{path}': {failed}") from None
        elif kind == "replace":
            root = _replace(root, path, value)
        elif kind in ("move", "copy"):
            _move_or_copy(root, kind, operation, path)
        elif kind == "test":
            _test(root, path, value, "value" in operation)
        else:
            raise PatchFailed(f"Unexpected kind: {kind}")
    return dict(root)


def _replace(root: Any, path: str, value: Any) -> Any:
    if path == "":
        if not isinstance(value, (dict, list)):
            raise PatchFailed("replace operation value must be object or array: %!w(<nil>)")
        return copy.deepcopy(value)
    found = _find(root, path)
    if found is None:
        raise PatchFailed(f"replace operation does not apply: doc is missing path: {path}: {_MISSING}")
    container, key = found
    try:
        _get(container, key)
    except PatchFailed:
        raise PatchFailed(f"replace operation does not apply: doc is missing key: {path}: {_MISSING}") from None
    if isinstance(container, dict):
        container[key] = value
    else:
        index = _index(key)
        container[index + len(container) if index < 0 else index] = value
    return root


def _move_or_copy(root: Any, kind: str, operation: dict[str, Any], path: str) -> None:
    source = operation.get("from") or ""
    if not source:
        raise PatchFailed(f"{kind} operation failed to decode from: operation, missing from field: {_MISSING}")
    found = _find(root, source)
    if found is None:
        raise PatchFailed(f"{kind} operation does not apply: doc is missing from path: {source}: {_MISSING}")
    container, key = found
    try:
        value = _get(container, key)
        if kind == "move":
            _remove(container, key)
    except PatchFailed as failed:
        where = f"for path: '{key}'" if kind == "move" else f"for from: '{source}'"
        raise PatchFailed(f"error in {kind} {where}: {failed}") from None
    target = _find(root, path)
    if target is None:
        raise PatchFailed(f"{kind} operation does not apply: doc is missing destination path: {path}: {_MISSING}")
    try:
        _add(*target, copy.deepcopy(value))
    except PatchFailed as failed:
        if kind == "move":
            raise PatchFailed(f"error in move for path: '{path}': {failed}") from None
        raise PatchFailed(f"error while adding value during copy: {failed}") from None


def _test(root: Any, path: str, value: Any, given: bool) -> None:
    if path == "":
        if not _equal(root, value):
            raise TestFailed(f"testing value {path} failed: test failed")
        return
    found = _find(root, path)
    if found is None:
        raise PatchFailed(f"test operation does not apply: is missing path: {path}: {_MISSING}")
    try:
        current = _get(*found)
    except PatchFailed as failed:
        raise PatchFailed(f"error in test for path: '{path}': {failed}") from None
    if current is None and not given:
        return  # a missing (or null) value tests equal to an operation without one
    if current is None or not given or not _equal(current, value):
        raise TestFailed(f"testing value {path} failed: test failed")
