"""The root CA publisher: every active namespace has the `kube-root-ca.crt` ConfigMap with the cluster CA."""

from __future__ import annotations

from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, is_active_namespace, namespace_key

NAME = "kube-root-ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
# Upstream's wording, so that `kubectl describe` reads as on any cluster.
DESCRIPTION = ("Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
               "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
               "distributions of Kubernetes clusters.")


class RootCAPublisher(Controller):
    name = "root-ca-certificate-publisher-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.configmaps_type = ctx.resource("", "v1", "configmaps")
        self.namespaces = ctx.informer("", "v1", "namespaces")
        self.configmaps = ctx.informer("", "v1", "configmaps")
        self.namespaces.add_handler(self._namespace_changed)
        self.configmaps.add_handler(self._configmap_changed)

    def _namespace_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None:
            self.queue.add(new["metadata"]["name"])

    def _configmap_changed(self, old: Obj | None, new: Obj | None) -> None:
        obj = either(old, new)
        if obj["metadata"]["name"] == NAME and (new is None or not self._published(new)):
            self.queue.add(namespace_key(obj))

    def _published(self, cm: Obj) -> bool:
        return (cm.get("data") == {"ca.crt": self.ctx.ca_pem}
                and (cm["metadata"].get("annotations") or {}).get(DESCRIPTION_ANNOTATION) == DESCRIPTION)

    async def sync(self, key: Hashable) -> None:
        namespace = str(key)
        if not is_active_namespace(self.namespaces.get("", namespace)):
            return
        current = self.configmaps.get(namespace, NAME)
        if current is None:
            try:
                await self.client.create(self.configmaps_type, namespace, {
                    "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": NAME, "namespace": namespace,
                                 "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
                    "data": {"ca.crt": self.ctx.ca_pem}})
            except errors.ApiError as exc:
                if exc.code != 409:
                    raise
            return
        if self._published(current):
            return
        # Someone changed it: put the CA back, keeping what else they added.
        meta = current["metadata"]
        meta.setdefault("annotations", {})[DESCRIPTION_ANNOTATION] = DESCRIPTION
        current["data"] = {"ca.crt": self.ctx.ca_pem}
        current.pop("binaryData", None)
        await self.client.update(self.configmaps_type, current)
