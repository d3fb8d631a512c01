"""Writes apiserver/data/openapi_parameters.json: the query parameters kube-apiserver 1.36's /openapi/v2
lists for each action on a resource, with their descriptions, types and order, and the path-level
`pretty` parameter. Read off a real kube-apiserver's document (the ConfigMap paths stand for every
kind: the query parameters of an action are the same for all resources upstream generates).

Usage: curl -sk -H "Authorization: Bearer $TOKEN" https://REFERENCE/openapi/v2 > v2.json
       python tools/openapi_parameters.py v2.json
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "apiserver", "data",
                    "openapi_parameters.json")
_COLLECTION = "/api/v1/namespaces/{namespace}/configmaps"
_ITEM = _COLLECTION + "/{name}"
_KEPT = ("name", "in", "description", "type", "uniqueItems")


def extract(document: dict[str, Any]) -> dict[str, Any]:
    shared = document["parameters"]

    def resolved(param: dict[str, Any]) -> dict[str, Any]:
        found = shared[param["$ref"].rsplit("/", 1)[1]] if "$ref" in param else param
        return {k: found[k] for k in _KEPT if k in found}

    actions: dict[str, list[dict[str, Any]]] = {}
    for path in (_COLLECTION, _ITEM):
        for method, op in document["paths"][path].items():
            if method == "parameters":
                continue
            actions[op["x-kubernetes-action"]] = [resolved(p) for p in op.get("parameters") or ()
                                                  if resolved(p)["in"] == "query"]
    pretty = next(resolved(p) for p in document["paths"][_COLLECTION]["parameters"]
                  if resolved(p)["name"] == "pretty")
    return {"actions": actions, "pretty": pretty}


def main() -> None:
    with open(sys.argv[1]) as f:
        facts = extract(json.load(f))
    with open(_OUT, "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
