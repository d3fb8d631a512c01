"""DefaultIngressClass and DefaultStorageClass admission: a claim or an Ingress that names no class gets the default."""

from __future__ import annotations

import time

import pytest
from support import ServerProcess, run_kubectl

from apiserver.kinds.admission import admit_create


def meta(name: str, created: str, default: str | None = None, key: str = "") -> dict:
    found: dict = {"name": name, "creationTimestamp": created}
    if default is not None:
        found["annotations"] = {key: default}
    return {"metadata": found}


INGRESS_DEFAULT = "ingressclass.kubernetes.io/is-default-class"
STORAGE_DEFAULT = "storageclass.kubernetes.io/is-default-class"
BETA_STORAGE_DEFAULT = "storageclass.beta.kubernetes.io/is-default-class"


def lister(classes: list[dict]) -> object:
    return lambda storage_key: classes


@pytest.mark.parametrize("classes, chosen", [
    ([], None),
    ([meta("a", "2026-01-01T00:00:00Z", "false", INGRESS_DEFAULT)], None),
    ([meta("a", "2026-01-01T00:00:00Z", "true", INGRESS_DEFAULT), meta("b", "2026-01-01T00:00:00Z")], "a"),
    # Several defaults: the newest, and among those created in the same second the first name.
    ([meta("old", "2025-06-01T00:00:00Z", "true", INGRESS_DEFAULT),
      meta("new", "2026-01-01T00:00:00Z", "true", INGRESS_DEFAULT)], "new"),
    ([meta("zeta", "2026-01-01T00:00:00Z", "true", INGRESS_DEFAULT),
      meta("alpha", "2026-01-01T00:00:00Z", "true", INGRESS_DEFAULT)], "alpha"),
])
def test_the_default_ingress_class_is_upstreams_choice(classes: list[dict], chosen: str | None) -> None:
    ingress: dict = {"metadata": {"name": "web"}, "spec": {}}
    admit_create("Ingress", ingress, lister(classes))  # type: ignore[arg-type]
    assert ingress["spec"].get("ingressClassName") == chosen


@pytest.mark.parametrize("ingress", [
    {"metadata": {"name": "web"}, "spec": {"ingressClassName": "mine"}},
    {"metadata": {"name": "web", "annotations": {"kubernetes.io/ingress.class": "nginx"}}, "spec": {}},
])
def test_an_ingress_that_names_a_class_keeps_it(ingress: dict) -> None:
    before = repr(ingress)
    admit_create("Ingress", ingress, lister([meta("d", "2026-01-01T00:00:00Z", "true", INGRESS_DEFAULT)]))  # type: ignore[arg-type]
    assert repr(ingress) == before


@pytest.mark.parametrize("claim, chosen", [
    ({"metadata": {"name": "c"}, "spec": {}}, "beta"),
    ({"metadata": {"name": "c"}, "spec": {"storageClassName": None}}, "beta"),
    ({"metadata": {"name": "c"}, "spec": {"storageClassName": ""}}, ""),  # "" asks for no class
    ({"metadata": {"name": "c", "annotations": {"volume.beta.kubernetes.io/storage-class": "x"}}, "spec": {}}, None),
])
def test_the_default_storage_class_honours_both_annotations(claim: dict, chosen: str | None) -> None:
    classes = [meta("ga", "2025-01-01T00:00:00Z", "true", STORAGE_DEFAULT),
               meta("beta", "2026-01-01T00:00:00Z", "true", BETA_STORAGE_DEFAULT)]
    admit_create("PersistentVolumeClaim", claim, lister(classes))  # type: ignore[arg-type]
    assert claim["spec"].get("storageClassName") == chosen


def test_an_ingress_without_a_class_gets_the_default_one(shared_server: ServerProcess) -> None:
    run_kubectl(shared_server, "apply", "-f", "-", stdin="""\
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: contour
spec:
  controller: projectcontour.io/contour
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: storefront
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service: {name: storefront, port: {number: 80}}
""")
    status, ingress = shared_server.json("GET", "/apis/networking.k8s.io/v1/namespaces/default/ingresses/storefront")
    assert status == 200 and ingress["spec"]["ingressClassName"] == "nginx"
    printed = run_kubectl(shared_server, "get", "ingress", "storefront", "--no-headers").stdout.split()
    assert printed[:2] == ["storefront", "nginx"]
    # A class named by the client stays, and an update does not default anything.
    status, named = shared_server.json("POST", "/apis/networking.k8s.io/v1/namespaces/default/ingresses", {
        "apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "named"},
        "spec": {"ingressClassName": "contour", "defaultBackend": {"service": {"name": "s", "port": {"number": 80}}}}})
    assert status == 201 and named["spec"]["ingressClassName"] == "contour"
    status, cleared = shared_server.json("PUT", "/apis/networking.k8s.io/v1/namespaces/default/ingresses/named", {
        **named, "spec": {"defaultBackend": named["spec"]["defaultBackend"]}})
    assert status == 200 and "ingressClassName" not in cleared["spec"]


def test_a_claim_without_a_class_gets_the_newest_default(shared_server: ServerProcess) -> None:
    def storage_class(name: str) -> dict:
        return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "example.com/disk",
                "metadata": {"name": name, "annotations": {STORAGE_DEFAULT: "true"}}}

    assert shared_server.json("POST", "/apis/storage.k8s.io/v1/storageclasses", storage_class("standard"))[0] == 201
    time.sleep(1.1)  # creation timestamps have second precision
    assert shared_server.json("POST", "/apis/storage.k8s.io/v1/storageclasses", storage_class("premium"))[0] == 201
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    status, created = shared_server.json("POST", "/api/v1/namespaces/default/persistentvolumeclaims", claim)
    assert status == 201 and created["spec"]["storageClassName"] == "premium"
    status, dry = shared_server.json("POST", "/api/v1/namespaces/default/persistentvolumeclaims?dryRun=All", {
        **claim, "metadata": {"name": "none"}, "spec": {**claim["spec"], "storageClassName": ""}})
    assert status == 201 and dry["spec"]["storageClassName"] == ""
