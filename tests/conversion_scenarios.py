"""CRD conversion webhook scenarios, run the same way against the reference kube-apiserver (by
tools/capture_conversion_reference.py, which records their results as fixtures) and against this
server (by tests/test_conversion_webhooks.py, which compares).

The CRD is in the image of real projects' conversion webhooks (kubebuilder's hub-and-spoke): a
`Cache` served as v1alpha1, whose `spec.size` became v1's `spec.replicas`, stored as v1. The webhook
(`convert`) is an HTTPS server on loopback written here; each step records what a client saw and the
ConversionReviews the webhook was sent while it ran. Servers differ in how many reviews a request
causes (kube-apiserver's watch cache converts every object it caches, each in a review of its own),
so a step's reviews are compared as the set of distinct requests sent, each object in it alone.
"""

from __future__ import annotations

import copy
import json
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Self

from webhook_scenarios import JSON, Cluster, normalized
from webhook_server import HANG

Obj = dict[str, Any]
_CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
_MERGE = "application/merge-patch+json"


def convert(obj: Obj, desired: str) -> Obj:
    """The conversion a project writes: v1alpha1's spec.size is v1's spec.replicas; the rest moves as it is."""
    out = copy.deepcopy(obj)
    spec = out.get("spec") or {}
    if desired.endswith("/v1") and "size" in spec:
        spec["replicas"] = spec.pop("size")
    if desired.endswith("/v1alpha1") and "replicas" in spec:
        spec["size"] = spec.pop("replicas")
    out["apiVersion"] = desired
    return out


def review_answer(change: Callable[[Obj, Obj], None] | None = None) -> Callable[[Obj], tuple[int, bytes]]:
    """The webhook's answer to a ConversionReview: every object converted, then `change(review, response)`."""
    def answer(review: Obj) -> tuple[int, bytes]:
        request = review["request"]
        response: Obj = {"uid": request["uid"], "result": {"status": "Success"},
                         "convertedObjects": [convert(o, request["desiredAPIVersion"]) for o in request["objects"]]}
        if change is not None:
            change(review, response)
        return 200, json.dumps({"apiVersion": review["apiVersion"], "kind": "ConversionReview",
                                "response": response}).encode()
    return answer


def crd(cluster: Cluster, group: str, path: str, review_versions: tuple[str, ...] = ("v1", "v1beta1"),
        subresources: bool = False) -> Obj:
    status = {"type": "object", "properties": {"ready": {"type": "integer"}}}
    schema_alpha = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "size": {"type": "integer"}, "engine": {"type": "string"}}}, "status": status}}
    schema_v1 = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "replicas": {"type": "integer"}, "engine": {"type": "string"}}}, "status": status}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"caches.{group}"},
        "spec": {
            "group": group, "scope": "Namespaced",
            "names": {"plural": "caches", "singular": "cache", "kind": "Cache", "listKind": "CacheList"},
            "versions": [
                {"name": "v1alpha1", "served": True, "storage": False,
                 "schema": {"openAPIV3Schema": schema_alpha},
                 **({"subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.size",
                                                             "statusReplicasPath": ".status.ready"}}}
                    if subresources else {})},
                {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema_v1},
                 **({"subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                             "statusReplicasPath": ".status.ready"}}}
                    if subresources else {})}],
            "conversion": {"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": list(review_versions),
                "clientConfig": {"url": cluster.webhooks.url(path), "caBundle": cluster.certificates.ca_bundle}}}}}


class Scenario:
    """A namespace and a CRD whose webhook answers at `/conversion/<name>`; both deleted after."""

    def __init__(self, cluster: Cluster, name: str, review_versions: tuple[str, ...] = ("v1", "v1beta1"),
                 subresources: bool = False) -> None:
        self.cluster = cluster
        self.name = name
        self.path = f"/conversion/{name}"
        self.namespace = f"conv-{name}-{cluster.run}"
        # Each scenario and run its own group: a deleted CRD's name stays taken until its objects are gone.
        self.group = f"{name}-{cluster.run}.example.com"
        self.review_versions = review_versions
        self.subresources = subresources

    def __enter__(self) -> Self:
        self.cluster.webhooks.answers[self.path] = review_answer()
        self.cluster.request("POST", "/api/v1/namespaces", {"metadata": {"name": self.namespace}})
        made = self.cluster.request("POST", _CRDS, crd(self.cluster, self.group, self.path, self.review_versions,
                                                        self.subresources))
        assert made["code"] == 201, made
        self._wait_served()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.cluster.request("DELETE", f"{_CRDS}/caches.{self.group}")
        self.cluster.request("DELETE", f"/api/v1/namespaces/{self.namespace}")

    def _wait_served(self) -> None:
        for _ in range(300):
            listed = self.cluster.request("GET", self.url("v1alpha1"))
            if listed["code"] == 200:
                return
            time.sleep(0.1)
        raise AssertionError("the CRD was never served")

    def url(self, version: str, suffix: str = "") -> str:
        return f"/apis/{self.group}/{version}/namespaces/{self.namespace}/caches{suffix}"

    def step(self, method: str, path: str, body: Any = None, content_type: str = JSON) -> Obj:
        """A request's answer, and the distinct ConversionReview requests the webhook got meanwhile."""
        before = len(self.cluster.webhooks.reviews(self.path))
        seen = self.cluster.request(method, path, body, content_type)
        return {"client": seen, "sent": self.sent_since(before)}

    def sent_since(self, before: int) -> list[Obj]:
        distinct: dict[str, Obj] = {}
        for review in self.cluster.webhooks.reviews(self.path)[before:]:
            request = review.get("request") or {}
            for obj in request.get("objects") or ():
                one = {"apiVersion": review.get("apiVersion"), "kind": review.get("kind"),
                       "desiredAPIVersion": request.get("desiredAPIVersion"), "object": _stable(obj),
                       "uid_set": bool(request.get("uid"))}
                distinct[json.dumps(one, sort_keys=True)] = one
        return [distinct[k] for k in sorted(distinct)]

    def wait_answer(self, case: str, accept: Callable[[Obj], bool]) -> Obj:
        """A get in v1alpha1 repeated until its answer is what `accept` looks for (a CRD change is in force)."""
        for _ in range(300):
            seen = self.cluster.request("GET", self.url("v1alpha1", "/stored"))
            if accept(seen):
                return seen
            time.sleep(0.1)
        raise AssertionError(f"{case}: the change never took effect")


def _stable(obj: Obj) -> Obj:
    """An object as sent, without what only says when it was written (resourceVersion is normalized
    later, managedFields' times and the generation a server bumps on conversion differ per run)."""
    meta = dict(obj.get("metadata") or {})
    meta.pop("managedFields", None)
    return {**obj, "metadata": meta}


def cache(group: str, version: str, name: str, count: int) -> Obj:
    field = "size" if version == "v1alpha1" else "replicas"
    return {"apiVersion": f"{group}/{version}", "kind": "Cache",
            "metadata": {"name": name, "labels": {"app": "web"}}, "spec": {field: count, "engine": "redis"}}


def _watched(cluster: Cluster, path: str) -> Obj:
    """The events of a watch that ends by itself (timeoutSeconds), as a client reads them."""
    request = urllib.request.Request(cluster.url + path, headers={
        "Authorization": f"Bearer {cluster.token}", "Accept": JSON})
    import ssl
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(request, context=context, timeout=60) as reply:
            lines = reply.read().splitlines()
            return {"code": reply.status, "events": [json.loads(line) for line in lines if line.strip()]}
    except urllib.error.HTTPError as exc:
        return {"code": exc.code, "body": json.loads(exc.read() or b"null")}


# -- the scenarios ---------------------------------------------------------------------------

def round_trip(cluster: Cluster) -> Obj:
    """Create in one version, read and change in the other; lists, watches, deletes."""
    with Scenario(cluster, "roundtrip") as s:
        seen: Obj = {}
        seen["create_v1alpha1"] = s.step("POST", s.url("v1alpha1"), cache(s.group, "v1alpha1", "small", 3))
        seen["create_dry_run_v1alpha1"] = s.step("POST", s.url("v1alpha1", "?dryRun=All"),
                                                 cache(s.group, "v1alpha1", "ghost", 8))
        seen["get_v1"] = s.step("GET", s.url("v1", "/small"))
        seen["get_v1alpha1"] = s.step("GET", s.url("v1alpha1", "/small"))
        seen["create_v1"] = s.step("POST", s.url("v1"), cache(s.group, "v1", "large", 5))
        since = seen["create_v1"]["client"]["body"]["metadata"]["resourceVersion"]
        seen["get_large_v1alpha1"] = s.step("GET", s.url("v1alpha1", "/large"))
        seen["list_v1alpha1"] = s.step("GET", s.url("v1alpha1"))
        seen["list_v1"] = s.step("GET", s.url("v1"))
        seen["patch_v1alpha1"] = s.step("PATCH", s.url("v1alpha1", "/small?fieldManager=scaler"),
                                        {"spec": {"size": 4}}, _MERGE)
        current = s.step("GET", s.url("v1alpha1", "/large"))["client"]["body"]
        current["spec"]["size"] = 6
        seen["put_v1alpha1"] = s.step("PUT", s.url("v1alpha1", "/large"), current)
        seen["apply_v1alpha1"] = s.step(
            "PATCH", s.url("v1alpha1", "/applied?fieldManager=applier"),
            {**cache(s.group, "v1alpha1", "applied", 2), "metadata": {"name": "applied"}},
            "application/apply-patch+yaml")
        seen["get_applied_v1"] = s.step("GET", s.url("v1", "/applied"))
        before = len(cluster.webhooks.reviews(s.path))
        seen["watch_v1alpha1"] = {"client": _watched(cluster, s.url("v1alpha1", f"?watch=1&resourceVersion={since}"
                                                                                 "&timeoutSeconds=2")),
                                  "sent": s.sent_since(before)}
        seen["delete_v1alpha1"] = s.step("DELETE", s.url("v1alpha1", "/small"))
        seen["get_deleted_v1"] = s.step("GET", s.url("v1", "/small"))
        return seen


def subresources(cluster: Cluster) -> Obj:
    """Scale and status in the version that is not stored, and a deletecollection's answer."""
    with Scenario(cluster, "subresources", subresources=True) as s:
        seen: Obj = {}
        seen["create_v1"] = s.step("POST", s.url("v1"), cache(s.group, "v1", "web", 2))
        seen["get_scale_v1alpha1"] = s.step("GET", s.url("v1alpha1", "/web/scale"))
        seen["patch_scale_v1alpha1"] = s.step("PATCH", s.url("v1alpha1", "/web/scale"), {"spec": {"replicas": 5}},
                                              _MERGE)
        seen["patch_status_v1alpha1"] = s.step("PATCH", s.url("v1alpha1", "/web/status"), {"status": {"ready": 3}},
                                               _MERGE)
        seen["get_v1"] = s.step("GET", s.url("v1", "/web"))
        seen["create_v1alpha1"] = s.step("POST", s.url("v1alpha1"), cache(s.group, "v1alpha1", "worker", 1))
        seen["deletecollection_v1alpha1"] = s.step("DELETE", s.url("v1alpha1"))
        return seen


def review_v1beta1(cluster: Cluster) -> Obj:
    """A webhook that accepts only v1beta1 ConversionReviews."""
    with Scenario(cluster, "beta", review_versions=("v1beta1",)) as s:
        seen = {"create_v1alpha1": s.step("POST", s.url("v1alpha1"), cache(s.group, "v1alpha1", "small", 3)),
                "get_v1": s.step("GET", s.url("v1", "/small"))}
        return seen


def _failed_result(message: str) -> Callable[[Obj, Obj], None]:
    def change(_review: Obj, response: Obj) -> None:
        response["result"] = {"status": "Failure", "message": message}
        response.pop("convertedObjects")
    return change


def _first(change: Callable[[Obj], None]) -> Callable[[Obj, Obj], None]:
    def apply(_review: Obj, response: Obj) -> None:
        for obj in response["convertedObjects"]:
            change(obj)
    return apply


def _raw(body: bytes, status: int = 200) -> Callable[[Obj], tuple[int, bytes]]:
    return lambda _review: (status, body)


# What a misbehaving webhook answers, by case: each is answered to a get of a v1 object in v1alpha1
# and to a create in v1alpha1.
FAILURES: dict[str, Callable[[Obj], tuple[int, bytes]]] = {
    "garbage": _raw(b"garbage"),
    "server_error": _raw(b"something broke", 500),
    "empty_object": _raw(b"{}"),
    "wrong_uid": review_answer(lambda _r, response: response.update(uid="not-the-uid")),
    "no_response": _raw(b'{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}'),
    "wrong_review_kind": review_answer(lambda review, _r: review.update(apiVersion="apiextensions.k8s.io/v1beta1")),
    "failed": review_answer(_failed_result("spec.size must not be negative")),
    "failed_silently": review_answer(lambda _r, response: response.update(result={"status": "Failure"})),
    "no_objects": review_answer(lambda _r, response: response.update(convertedObjects=[])),
    "changed_name": review_answer(_first(lambda o: o["metadata"].update(name="renamed"))),
    "changed_uid": review_answer(_first(lambda o: o["metadata"].update(uid="00000000-0000-0000-0000-000000000000"))),
    "changed_namespace": review_answer(_first(lambda o: o["metadata"].update(namespace="elsewhere"))),
    "wrong_version": review_answer(_first(lambda o: o.update(apiVersion="other.example.com/v2"))),
    "wrong_kind": review_answer(_first(lambda o: o.update(kind="Other"))),
    "bad_label": review_answer(_first(lambda o: o["metadata"].update(labels={"app": "not a label!"}))),
    "labels_changed": review_answer(_first(lambda o: o["metadata"].update(labels={"converted": "yes"},
                                                                          generation=99))),
}


def failures(cluster: Cluster) -> Obj:
    """Each way a webhook's answer can be wrong, seen by a get and by a create in v1alpha1."""
    with Scenario(cluster, "failures") as s:
        made = s.step("POST", s.url("v1"), cache(s.group, "v1", "stored", 1))
        assert made["client"]["code"] == 201, made
        seen: Obj = {}
        for case, answer in FAILURES.items():
            cluster.webhooks.answers[s.path] = answer
            get = s.step("GET", s.url("v1alpha1", "/stored"))
            create = s.step("POST", s.url("v1alpha1"), cache(s.group, "v1alpha1", case.replace("_", "-"), 2))
            dry_run = s.step("POST", s.url("v1alpha1", "?dryRun=All"), cache(s.group, "v1alpha1", "dry-run", 2))
            seen[case] = {"get": get["client"], "create": create["client"], "dry_run": dry_run["client"]}
            cluster.webhooks.answers[s.path] = review_answer()
        return seen


def unreachable(cluster: Cluster) -> Obj:
    """A webhook that cannot be reached: refused, a CA that did not sign it, plain HTTP, no answer."""
    from webhook_scenarios import _closed_port, _plain_http_port
    with Scenario(cluster, "unreachable") as s:
        s.step("POST", s.url("v1"), cache(s.group, "v1", "stored", 1))
        name = f"{_CRDS}/caches.{s.group}"
        seen: Obj = {}
        configs: dict[str, Obj] = {
            "refused": {"url": f"https://127.0.0.1:{_closed_port()}/refused",
                        "caBundle": cluster.certificates.ca_bundle},
            "unknown_authority": {"url": cluster.webhooks.url(s.path), "caBundle": cluster.other_ca_bundle},
            "plain_http": {"url": f"https://127.0.0.1:{_plain_http_port()}/plain",
                           "caBundle": cluster.certificates.ca_bundle},
        }
        for case, client_config in configs.items():
            patched = cluster.request("PATCH", name, {"spec": {"conversion": {"webhook": {
                "clientConfig": client_config}}}}, _MERGE)
            assert patched["code"] == 200, patched
            seen[case] = s.wait_answer(case, lambda answer: answer["code"] != 200)
        return seen


def hanging(cluster: Cluster) -> Obj:
    """A webhook that never answers: the call gives up after 30 seconds, client-go's webhook timeout."""
    with Scenario(cluster, "hanging") as s:
        s.step("POST", s.url("v1"), cache(s.group, "v1", "stored", 1))
        cluster.webhooks.answers[s.path] = HANG
        return {"get": s.step("GET", s.url("v1alpha1", "/stored"))["client"]}


def service_reference(cluster: Cluster) -> Obj:
    """A webhook named by a Service (ExternalName localhost), its certificate checked for the Service's name."""
    with Scenario(cluster, "service") as s:
        service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "scenario-webhook"},
                   "spec": {"type": "ExternalName", "externalName": "localhost"}}
        cluster.request("POST", "/api/v1/namespaces/default/services", service)
        try:
            s.step("POST", s.url("v1"), cache(s.group, "v1", "stored", 1))
            through = f"{s.path}/service"
            cluster.webhooks.answers[through] = review_answer()
            patched = cluster.request("PATCH", f"{_CRDS}/caches.{s.group}", {"spec": {"conversion": {"webhook": {
                "clientConfig": {"url": None, "service": {"namespace": "default", "name": "scenario-webhook",
                                                          "path": through, "port": cluster.webhooks.port}}}}}},
                _MERGE)
            seen = s.wait_answer("service", lambda _answer: bool(cluster.webhooks.reviews(through)))
            conversion = patched["body"]["spec"]["conversion"]
            client = conversion["webhook"]["clientConfig"]
            client.pop("caBundle")  # made for each run, as the webhook's port is
            client["service"]["port"] = "<port>"
            return {"crd": conversion, "get": seen}
        finally:
            cluster.request("DELETE", "/api/v1/namespaces/default/services/scenario-webhook")


def admission_equivalent(cluster: Cluster) -> Obj:
    """Admission webhooks that ask for v1 (matchPolicy Equivalent) shown a v1alpha1 write converted into v1,
    and a mutating one's JSONPatch to v1's fields converted back."""
    from webhook_server import json_patch
    with Scenario(cluster, "equivalent") as s:
        validate, mutate = f"{s.path}/validate", f"{s.path}/mutate"
        cluster.webhooks.answers[mutate] = json_patch([{"op": "replace", "path": "/spec/replicas", "value": 7}])
        configurations = []
        for kind, path in (("Mutating", mutate), ("Validating", validate)):
            hook = cluster.hook(f"{kind.lower()}.equivalent.example.com", path, operations=("CREATE", "UPDATE"),
                                resources=("caches",), group=s.group, version="v1", matchPolicy="Equivalent",
                                namespaceSelector={"matchLabels": {"kubernetes.io/metadata.name": s.namespace}})
            plural = f"{kind.lower()}webhookconfigurations"
            made = cluster.request("POST", f"/apis/admissionregistration.k8s.io/v1/{plural}", {
                "metadata": {"name": f"{s.group}-{kind.lower()}"}, "webhooks": [hook]})
            assert made["code"] == 201, made
            configurations.append(f"/apis/admissionregistration.k8s.io/v1/{plural}/{s.group}-{kind.lower()}")
        try:
            for attempt in range(300):  # configurations apply a moment after they are written upstream
                cluster.request("POST", s.url("v1alpha1", "?dryRun=All"), cache(s.group, "v1alpha1", f"probe-{attempt}", 1))
                if cluster.webhooks.reviews(validate):
                    break
                time.sleep(0.1)
            before = {path: len(cluster.webhooks.reviews(path)) for path in (validate, mutate)}
            seen: Obj = {"create_v1alpha1": s.step("POST", s.url("v1alpha1"), cache(s.group, "v1alpha1", "web", 2))}
            seen["patch_v1alpha1"] = s.step("PATCH", s.url("v1alpha1", "/web"), {"spec": {"engine": "memcached"}},
                                            _MERGE)
            for name, path in (("mutating", mutate), ("validating", validate)):
                seen[name] = [{"kind": r["request"]["kind"], "requestKind": r["request"].get("requestKind"),
                               "operation": r["request"]["operation"], "object": _stable(r["request"]["object"]),
                               "oldObject": _stable(r["request"]["oldObject"]) if r["request"].get("oldObject")
                               else None}
                              for r in cluster.webhooks.reviews(path)[before[path]:]]
            return seen
        finally:
            for configuration in configurations:
                cluster.request("DELETE", configuration)


_URL = {"url": "https://webhook.example.com/convert"}
# spec.conversion as a CRD is written with it, each refused or defaulted as validateCustomResourceConversion
# and the v1 defaults say.
CONVERSION_SPECS: dict[str, Obj] = {
    "no_webhook": {"strategy": "Webhook"},
    "no_client": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"]}},
    "both": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {
        **_URL, "service": {"name": "s", "namespace": "n"}}}},
    "neither": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {}}},
    "http_url": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {
        "url": "http://user@webhook.example.com/x?q=1#f"}}},
    "no_host": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {
        "url": "https:///convert"}}},
    "bad_service": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {
        "service": {"name": "", "namespace": "Bad_NS", "path": "noslash//Bad_Segment/", "port": 70000}}}},
    "no_versions": {"strategy": "Webhook", "webhook": {"clientConfig": _URL}},
    "bad_versions": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v3", "v3", "Bad_V"],
                                                        "clientConfig": _URL}},
    "none_with_webhook": {"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": _URL}},
    "unknown_strategy": {"strategy": "Magic"},
    "service_defaults": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1beta1", "v1"],
                                                            "clientConfig": {"service": {"name": "s", "namespace": "n"}}}},
}


def conversion_specs(cluster: Cluster) -> Obj:
    """What a CRD's create (a dry run) answers for each spec.conversion: refused, or defaulted."""
    seen: Obj = {}
    for case, conversion in CONVERSION_SPECS.items():
        made = crd(cluster, f"specs-{cluster.run}.example.com", "/unused")
        made["spec"]["conversion"] = conversion
        answer = cluster.request("POST", f"{_CRDS}?dryRun=All", made)
        body = answer["body"]
        seen[case] = {"code": answer["code"], "message": body.get("message"),
                      "causes": (body.get("details") or {}).get("causes"),
                      "conversion": body["spec"]["conversion"] if answer["code"] == 201 else None}
    return seen


SCENARIOS: dict[str, Callable[[Cluster], Obj]] = {
    "conversion_specs": conversion_specs,
    "service_reference": service_reference,
    "admission_equivalent": admission_equivalent,
    "round_trip": round_trip,
    "review_v1beta1": review_v1beta1,
    "subresources": subresources,
    "failures": failures,
    "unreachable": unreachable,
    "hanging": hanging,
}


def compared(value: Any, run: str) -> Any:
    """A scenario's result with what differs between runs replaced (webhook_scenarios.normalized)."""
    return normalized(json.loads(json.dumps(value)), run)
