"""The serviceaccount controller: every active namespace has a `default` ServiceAccount."""

from __future__ import annotations

from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, is_active_namespace, namespace_key

DEFAULT = "default"


class ServiceAccountController(Controller):
    name = "serviceaccount-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.accounts_type = ctx.resource("", "v1", "serviceaccounts")
        self.namespaces = ctx.informer("", "v1", "namespaces")
        self.accounts = ctx.informer("", "v1", "serviceaccounts")
        self.namespaces.add_handler(self._namespace_changed)
        self.accounts.add_handler(self._account_changed)

    def _namespace_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None:
            self.queue.add(new["metadata"]["name"])

    def _account_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is None and either(old, new)["metadata"]["name"] == DEFAULT:
            self.queue.add(namespace_key(either(old, new)))

    async def sync(self, key: Hashable) -> None:
        namespace = str(key)
        if not is_active_namespace(self.namespaces.get("", namespace)) or self.accounts.get(namespace, DEFAULT):
            return
        try:
            await self.client.create(self.accounts_type, namespace, {
                "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": DEFAULT, "namespace": namespace}})
        except errors.ApiError as exc:
            if exc.code != 409:  # 409: made since the informer last heard, which is what was wanted
                raise
