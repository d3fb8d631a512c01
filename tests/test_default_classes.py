"""DefaultIngressClass and DefaultStorageClass admission: a claim or an Ingress that names no class gets the default."""

from __future__ import annotations

import time

import pytest
from support import ServerProcess, run_kubectl

from apiserver.errors import ApiError
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


def priority_class(name: str, value: int, global_default: bool = False, policy: str | None = None) -> dict:
    found: dict = {"metadata": {"name": name, "creationTimestamp": "2026-01-01T00:00:00Z"}, "value": value}
    if global_default:
        found["globalDefault"] = True
    if policy:
        found["preemptionPolicy"] = policy
    return found


def a_pod(**spec: object) -> dict:
    return {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "image": "i"}], **spec}}


CLASSES = [priority_class("system-cluster-critical", 2000000000),
           priority_class("batch", 100, policy="Never"),
           priority_class("low-default", 10, global_default=True),
           priority_class("high-default", 1000, global_default=True)]


@pytest.mark.parametrize("spec, classes, expected", [
    # No PriorityClass served at all: priority 0, whatever class the pod names.
    ({"priorityClassName": "system-cluster-critical"}, None,
     {"priorityClassName": "system-cluster-critical", "priority": 0, "preemptionPolicy": "PreemptLowerPriority"}),
    ({"priorityClassName": "system-cluster-critical"}, CLASSES,
     {"priorityClassName": "system-cluster-critical", "priority": 2000000000,
      "preemptionPolicy": "PreemptLowerPriority"}),
    ({"priorityClassName": "batch", "priority": 100}, CLASSES,
     {"priorityClassName": "batch", "priority": 100, "preemptionPolicy": "Never"}),
    # Several global defaults: the lowest value wins, and the pod is given its name.
    ({}, CLASSES, {"priorityClassName": "low-default", "priority": 10, "preemptionPolicy": "PreemptLowerPriority"}),
    ({}, [], {"priority": 0, "preemptionPolicy": "PreemptLowerPriority"}),
])
def test_priority_comes_from_the_priority_class(spec: dict, classes: list[dict] | None, expected: dict) -> None:
    pod = a_pod(**spec)
    admit_create("Pod", pod, lambda key: classes if key == "scheduling.k8s.io/priorityclasses" else [])
    assert {k: v for k, v in pod["spec"].items() if k != "containers"} == expected


@pytest.mark.parametrize("spec, message", [
    ({"priorityClassName": "missing"}, 'pods "web" is forbidden: no PriorityClass with name missing was found'),
    ({"priorityClassName": "batch", "priority": 5},
     'pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority '
     "admission controller computed 100 from the given PriorityClass name"),
    ({"priorityClassName": "batch", "preemptionPolicy": "PreemptLowerPriority"},
     'pods "web" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in '
     "pod spec; priority admission controller computed Never from the given PriorityClass name"),
])
def test_a_priority_the_class_contradicts_is_forbidden(spec: dict, message: str) -> None:
    with pytest.raises(ApiError) as refused:
        admit_create("Pod", a_pod(**spec), lambda key: CLASSES)
    assert (refused.value.code, refused.value.reason, refused.value.message) == (403, "Forbidden", message)
    assert refused.value.details == {"name": "web", "kind": "pods"}


def test_a_pod_stating_its_own_priority_without_classes_is_refused_over_http(shared_server: ServerProcess) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pushy"},
           "spec": {"priority": 7, "containers": [{"name": "c", "image": "nginx:1.27"}]}}
    status, refused = shared_server.json("POST", "/api/v1/namespaces/default/pods", pod)
    assert (status, refused["message"]) == (403, 'pods "pushy" is forbidden: the integer value of priority (7) must '
                                                 "not be provided in pod spec; priority admission controller computed "
                                                 "0 from the given PriorityClass name")
    assert shared_server.json("GET", "/api/v1/namespaces/default/pods/pushy")[0] == 404
