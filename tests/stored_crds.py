"""Writing CRDs into a stopped server's embedded store: how tests give a server an old CRD holding what
a create or update through the API would now refuse, as an older server could have stored it."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any

from support import ServerProcess

from apiserver.storage.embedded import EmbeddedStore, StoreOptions

_CRDS = "apiextensions.k8s.io/customresourcedefinitions"


def rewriter(server: ServerProcess, change: Callable[[dict[str, Any], Any], None]) -> Callable[[dict[str, Any]], None]:
    """A function that stops the server, applies `change(crd, value)` to each stored CRD named in its
    argument (name to value), and starts the server again."""
    def rewrite(values_by_name: dict[str, Any]) -> None:
        server.stop()

        async def write() -> None:
            store = EmbeddedStore(StoreOptions(os.path.join(server.data_dir, "store")))
            try:
                for name, value in values_by_name.items():
                    stored = store.latest((_CRDS, "", name))
                    assert stored is not None, name
                    crd = json.loads(stored.data)
                    change(crd, value)
                    await store.submit((_CRDS, "", name), crd, stored)
            finally:
                await store.close()

        asyncio.run(write())
        server.start()
    return rewrite
