"""Prints docs/storage.md's table of where each stored resource lives in etcd, generated from the registry.

Usage: python tools/etcd_keys.py [PREFIX]   (tests/test_etcd_store.py holds docs/storage.md to it)
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from apiserver.kinds.resources import builtin_registry
from apiserver.server import etcd_layout


def table(prefix: str = "/registry") -> str:
    registry = builtin_registry()
    layout = etcd_layout(registry, prefix)
    rows = ["| resource | etcd key |", "| --- | --- |"]
    for rt in sorted(registry.types, key=lambda rt: (rt.group, rt.plural)):
        if rt.synthetic:
            continue
        example = layout.key((rt.storage_key, "<namespace>" if rt.namespaced else "", "<name>")).decode()
        rows.append(f"| {rt.qualified_name} | `{example}` |")
    rows.append(f"| custom resources (`<plural>.<group>`) | "
                f"`{layout.key(('<group>/<plural>', '<namespace>', '<name>')).decode()}` (cluster-scoped: "
                "no namespace) |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table(*sys.argv[1:]))
