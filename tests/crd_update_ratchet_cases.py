"""Updates of CRDs stored with what a create could not have: rules over the per-expression cost limit
(upstream's findVersionsWithUnchangedSchemas and suppressExpressionCostForUnchangedSchema), more
selectable fields than the limit (findTooManySelectableFieldsAllowed).

Such a CRD cannot be written through the API: the cases create each within the limits, then the caller
rewrites the stored object behind the server's back (`Rewrite`: in etcd for the reference, in the
embedded store for ours) to the form past them, as an older estimate or release might have let it in.
Each step is then a merge patch; its answer is recorded. The one rule (every item equal to every other)
costs about 8.1 times the per-expression limit under a list of 3000 short strings, within the schema's
total; under 10,000 its cost is over that total too.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

GROUP = "ratchet.example.com"
FIXTURE = "crd_update_ratchet.json"
Send = Callable[[str, str, Any, str], tuple[int, Any]]
Rewrite = Callable[[dict[str, list[dict[str, Any]]]], None]  # by CRD name, the versions to store
_MERGE = "application/merge-patch+json"
_CHEAP, _OVER_RULE, _OVER_TOTAL = 10, 3000, 10_000
_SELECTABLE_LIMIT = 8


def schema(max_items: int, description: str | None = None, fields: int = 0) -> dict[str, Any]:
    items = {
        "type": "array",
        "maxItems": max_items,
        "items": {"type": "string", "maxLength": 10},
        "x-kubernetes-validations": [{"rule": "self.all(x, self.all(y, x == y))"}],
    }
    if description is not None:
        items["description"] = description
    spec = {"type": "object", "properties": {"items": items, **{f"f{i}": {"type": "string"} for i in range(fields)}}}
    return {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}


def _version(name: str, schema_: dict[str, Any], storage: bool, selectable: list[int] | None = None
             ) -> dict[str, Any]:
    version = {"name": name, "served": True, "storage": storage, "schema": schema_}
    if selectable is not None:
        version["selectableFields"] = [{"jsonPath": f".spec.f{i}"} for i in selectable]
    return version


def _crd(plural: str, versions: list[dict[str, Any]]) -> dict[str, Any]:
    kind = plural[:-1].capitalize()
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": plural[:-1], "kind": kind, "listKind": kind + "List"},
            "versions": versions,
        },
    }


def _label(value: str) -> dict[str, Any]:
    return {"metadata": {"labels": {"touched": value}}}


def _versions(*versions: dict[str, Any]) -> dict[str, Any]:
    return {"spec": {"versions": list(versions)}}


_V1_OVER = _version("v1", schema(_OVER_RULE), True)
_V2_CHEAP = _version("v2", schema(_CHEAP, "v2"), False)
_NINE = _version("v1", schema(_CHEAP, None, 10), True, list(range(9)))
# Selectable fields of their own need a version's own schema.
_NINE_V2 = {**_NINE, "name": "v2", "storage": False, "schema": schema(_CHEAP, "v2", 10),
            "selectableFields": _NINE["selectableFields"][::-1]}

# name -> (plural, the versions as stored, the steps: (name, merge patch))
CASES: dict[str, tuple[str, list[dict[str, Any]], list[tuple[str, dict[str, Any]]]]] = {
    "over-rule-limit": ("singles", [_V1_OVER], [
        ("label", _label("a")),
        ("schema-changed", _versions(_version("v1", schema(_OVER_RULE, "changed"), True))),
    ]),
    "over-total-limit": ("totals", [_version("v1", schema(_OVER_TOTAL), True)], [
        ("label", _label("a")),
    ]),
    "per-version": ("pairs", [_V1_OVER, _V2_CHEAP], [
        ("other-version-changed", _versions(_V1_OVER, _version("v2", schema(_CHEAP, "changed"), False))),
        ("over-version-changed", _versions(
            _version("v1", schema(_OVER_RULE, "changed"), True), _version("v2", schema(_CHEAP, "changed"), False)
        )),
    ]),
    "too-many-selectable": ("selectables", [_NINE, _NINE_V2], [
        ("label", _label("a")),
        ("schema-changed", _versions(_NINE, {**_NINE_V2, "schema": schema(_CHEAP, "changed", 10)})),
        ("one-version-changed", _versions(
            {**_NINE, "selectableFields": _NINE["selectableFields"][1:] + [{"jsonPath": ".spec.f9"}]}, _NINE_V2)),
        ("down-to-the-limit", _versions({**_NINE, "selectableFields": _NINE["selectableFields"][:8]}, _NINE_V2)),
    ]),
    "shared-selectable": ("sharedselectables", [_NINE, {**_NINE, "name": "v2", "storage": False}], [
        ("label", _label("a")),
        ("fields-changed", _versions(*({**_NINE, "name": name, "storage": name == "v1",
                                        "selectableFields": _NINE["selectableFields"][::-1]} for name in ("v1", "v2")))),
    ]),
    "shared": ("shareds", [_V1_OVER, {**_V1_OVER, "name": "v2", "storage": False}], [
        ("label", _label("a")),
        ("version-added", _versions(
            _V1_OVER, {**_V1_OVER, "name": "v2", "storage": False}, {**_V1_OVER, "name": "v3", "storage": False}
        )),
        ("first-version-renamed", _versions(
            {**_V1_OVER, "name": "v0", "storage": False}, {**_V1_OVER, "name": "v1", "storage": True}
        )),
    ]),
}


def created(plural: str, stored: list[dict[str, Any]]) -> dict[str, Any]:
    """The CRD as the API accepts it: the stored versions with a cheap list, and selectable fields to the
    limit."""
    cheap = copy.deepcopy(stored)
    for version in cheap:
        version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["items"]["maxItems"] = _CHEAP
        if "selectableFields" in version:
            version["selectableFields"] = version["selectableFields"][:_SELECTABLE_LIMIT]
    return _crd(plural, cheap)


def _answer(code: int, body: Any) -> dict[str, Any]:
    if code < 300:
        return {"code": code}
    return {"code": code, "reason": body.get("reason"), "message": body.get("message"),
            "causes": (body.get("details") or {}).get("causes")}


def run(send: Send, rewrite: Rewrite) -> dict[str, dict[str, Any]]:
    """Creates every case's CRD, has `rewrite` store their over-budget forms, then takes the steps."""
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    answers: dict[str, dict[str, Any]] = {}
    for name, (plural, stored, _) in CASES.items():
        code, body = send("POST", path, created(plural, stored), "application/json")
        answers[f"{name}/create"] = _answer(code, body)
    rewrite({f"{plural}.{GROUP}": copy.deepcopy(stored) for plural, stored, _ in CASES.values()})
    for name, (plural, _, steps) in CASES.items():
        for step, patch in steps:
            code, body = send("PATCH", f"{path}/{plural}.{GROUP}", patch, _MERGE)
            answers[f"{name}/{step}"] = _answer(code, body)
    return answers


def cleanup(send: Send) -> None:
    for plural, _, _ in CASES.values():
        send("DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{plural}.{GROUP}", None, "")
