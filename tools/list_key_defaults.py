"""Writes apiserver/data/list_key_defaults.json: the defaults kube-apiserver 1.36's OpenAPI v3 gives the key
fields of keyed lists' items, per item definition (`io.k8s.api.core.v1.LocalObjectReference`: `name: ""`).

Server-side apply names an item of a keyed list by its keys, and an item that leaves a key out is named
by that key's default (structured-merge-diff's keyedAssociativeListItemToPathElement): an image pull
secret `{}` is `k:{"name":""}`, a container port without protocol is `protocol: TCP`. The field manager
reads those defaults off the OpenAPI v3 definitions the server publishes; the definitions this server
validates with leave defaults out, so they are read off a real kube-apiserver's /openapi/v3 here.

Usage: python tools/list_key_defaults.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from tools.differential.client import Client

_OUT = os.path.join(os.path.dirname(HERE), "apiserver", "data", "list_key_defaults.json")


def _definitions(client: Client) -> dict[str, Any]:
    paths = json.loads(client.request("GET", "/openapi/v3").body)["paths"]
    found: dict[str, Any] = {}
    for path in sorted(paths):
        document = json.loads(client.request("GET", "/openapi/v3/" + path).body)
        found.update(document.get("components", {}).get("schemas", {}))
    return found


def _item_name(field: dict[str, Any]) -> str | None:
    items = field.get("items") or {}
    ref = items.get("$ref") or next((s.get("$ref") for s in items.get("allOf") or ()), None)
    return ref.rsplit("/", 1)[1] if isinstance(ref, str) else None


def extract(definitions: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{item definition: {key field: default}} for every keyed list whose item defaults a key."""
    out: dict[str, dict[str, Any]] = {}
    for definition in definitions.values():
        for field in (definition.get("properties") or {}).values():
            keys = field.get("x-kubernetes-list-map-keys") or (
                [field["x-kubernetes-patch-merge-key"]] if field.get("x-kubernetes-patch-merge-key") else [])
            name = _item_name(field)
            if not keys or name is None or name not in definitions:
                continue
            properties = definitions[name].get("properties") or {}
            for key in keys:
                if "default" in (properties.get(key) or {}):
                    out.setdefault(name, {})[key] = properties[key]["default"]
    return {name: dict(sorted(fields.items())) for name, fields in sorted(out.items())}


def main(kubeconfig: str) -> None:
    facts = extract(_definitions(Client.from_kubeconfig(kubeconfig)))
    with open(_OUT, "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(facts)} item definitions -> {_OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
