"""apiserver.patching.gojsonpatch against what gopkg.in/evanphx/json-patch.v4 does: an object and a
patch in, the object or Go's error text out. The texts clients see of the first three were recorded
on kube-apiserver 1.36.2 (tests/fixtures/webhooks/mutation_errors.json); the rest follow the v4 source."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.patching import gojsonpatch

DOC = {"metadata": {"name": "x", "labels": {"a": "1"}}, "data": {"key": "value"}, "items": [1, 2, 3]}

CASES: list[tuple[str, list[dict[str, Any]], Any]] = [
    ("replace under a missing parent", [{"op": "replace", "path": "/nothing/here", "value": "x"}],
     "replace operation does not apply: doc is missing path: /nothing/here: missing value"),
    ("remove a missing key", [{"op": "remove", "path": "/data/absent"}],
     "error in remove for path: '/data/absent': Unable to remove nonexistent key: absent: missing value"),
    ("a failed test", [{"op": "test", "path": "/data/key", "value": "other"}],
     "testing value /data/key failed: test failed"),
    ("replace adds a key a map lacks", [{"op": "replace", "path": "/data/absent", "value": "x"}],
     {**DOC, "data": {"key": "value", "absent": "x"}}),
    ("add to a missing parent", [{"op": "add", "path": "/spec/replicas", "value": 1}],
     'add operation does not apply: doc is missing path: "/spec/replicas": missing value'),
    ("a negative index counts from the end", [{"op": "remove", "path": "/items/-1"}],
     {**DOC, "items": [1, 2]}),
    ("append", [{"op": "add", "path": "/items/-", "value": 4}], {**DOC, "items": [1, 2, 3, 4]}),
    ("an index past the end", [{"op": "add", "path": "/items/9", "value": 4}],
     "error in add for path: '/items/9': Unable to access invalid index: 9: invalid index referenced"),
    ("escaped keys", [{"op": "add", "path": "/metadata/labels/example.com~1team", "value": "b"}],
     {**DOC, "metadata": {"name": "x", "labels": {"a": "1", "example.com/team": "b"}}}),
    ("move", [{"op": "move", "from": "/data/key", "path": "/data/moved"}],
     {**DOC, "data": {"moved": "value"}}),
    ("copy", [{"op": "copy", "from": "/metadata/name", "path": "/data/name"}],
     {**DOC, "data": {"key": "value", "name": "x"}}),
    ("an unknown op", [{"op": "merge", "path": "/data"}], "Unexpected kind: merge"),
    ("no path", [{"op": "add", "value": 1}], "add operation failed to decode path: missing value"),
    ("no value writes null", [{"op": "add", "path": "/data/empty"}],
     {**DOC, "data": {"key": "value", "empty": None}}),
]


@pytest.mark.parametrize(("patch", "expected"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_a_patch_applies_or_fails_as_go_s_json_patch_v4(patch: list[dict[str, Any]], expected: Any) -> None:
    if isinstance(expected, str):
        with pytest.raises(gojsonpatch.PatchError) as failure:
            gojsonpatch.apply(DOC, gojsonpatch.decode(patch))
        assert str(failure.value) == expected
    else:
        assert gojsonpatch.apply(DOC, gojsonpatch.decode(patch)) == expected
        assert DOC["data"] == {"key": "value"}  # the original is left alone


@pytest.mark.parametrize(("raw", "expected"), [
    ({"op": "add"}, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
    ([1], "json: cannot unmarshal number into Go value of type jsonpatch.Operation"),
])
def test_a_patch_that_is_not_a_list_of_operations_is_undecodable(raw: Any, expected: str) -> None:
    with pytest.raises(gojsonpatch.PatchError) as failure:
        gojsonpatch.decode(raw)
    assert str(failure.value) == expected
