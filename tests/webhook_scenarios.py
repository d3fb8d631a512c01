"""Admission webhook scenarios run the same way against the reference kube-apiserver (by
tools/capture_webhook_reference.py, which records their results as fixtures) and against this server
(by tests/test_webhooks_reference.py, which compares): each registers webhook configurations pointing
at a WebhookServer on loopback, makes requests over HTTP, and returns what a client saw and what each
webhook was sent, normalized so that two servers' runs compare equal.
"""

from __future__ import annotations

import base64
import json
import re
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable

from webhook_server import CLOSE, HANG, Certificates, WebhookServer, deny, json_patch

Obj = dict[str, Any]
JSON = "application/json"
_ADMISSION = "/apis/admissionregistration.k8s.io/v1"
# The names the webhook's certificate is valid for: loopback, and the Service of service_reference.
DNS_NAMES = ("localhost", "scenario-webhook.default.svc")
# One warning of a Warning header: kube-apiserver writes a header per warning, this server one header
# with all of them, comma-separated, which clients read alike (RFC 9110 lists).
_WARNING = re.compile(r'\d{3} \S+ "(?:[^"\\]|\\.)*"')


@dataclass
class Cluster:
    """An API server to run scenarios against, and the webhook server its webhooks call."""

    url: str
    token: str
    webhooks: WebhookServer
    certificates: Certificates
    other_ca_bundle: str  # a CA that did not sign the webhook's certificate
    # Set apart this run's namespaces and configurations from a previous run's (a deleted namespace
    # stays until a namespace controller empties it); taken out again by `normalized`.
    run: str = "r0"

    def request(self, method: str, path: str, body: Any = None, content_type: str = JSON) -> Obj:
        """What a client saw: code, Warning header, decoded body."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": content_type, "Accept": JSON,
            "User-Agent": "webhook-scenarios/1.0"})
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        try:
            with urllib.request.urlopen(request, context=context, timeout=60) as reply:
                code, headers, raw = reply.status, reply.headers, reply.read()
        except urllib.error.HTTPError as exc:
            code, headers, raw = exc.code, exc.headers, exc.read()
        warnings = [w for value in headers.get_all("Warning") or [] for w in _WARNING.findall(value)]
        return {"code": code, "warnings": warnings, "body": json.loads(raw) if raw else None}

    def hook(self, name: str, path: str, operations: tuple[str, ...] = ("CREATE",),
             resources: tuple[str, ...] = ("configmaps",), group: str = "", version: str = "v1",
             **extra: Any) -> Obj:
        webhook: Obj = {
            "name": name,
            "clientConfig": {"url": self.webhooks.url(path), "caBundle": self.certificates.ca_bundle},
            "rules": [{"operations": list(operations), "apiGroups": [group], "apiVersions": [version],
                       "resources": list(resources)}],
            "sideEffects": "None", "admissionReviewVersions": ["v1"], "timeoutSeconds": 5}
        for key, value in extra.items():
            if value is None:
                webhook.pop(key, None)
            else:
                webhook[key] = value
        return webhook


def _wait_applied(cluster: Cluster, namespace: str, path: str) -> None:
    """Writes probe ConfigMaps until the webhook at `path` sees one: configurations apply a moment
    after they are written upstream (an informer), and the scenario must not race that."""
    probe_path = f"/api/v1/namespaces/{namespace}/configmaps?dryRun=All"
    for attempt in range(200):
        before = len(cluster.webhooks.reviews(path))
        probe = {"metadata": {"name": f"probe-{attempt}", "labels": {"probe": "yes"}},
                 "data": {"key": "probe"}}
        cluster.request("POST", probe_path, probe)
        if len(cluster.webhooks.reviews(path)) > before:
            return
        time.sleep(0.1)
    raise AssertionError(f"the webhook at {path} was never called")


class Scenario:
    """One namespace, the configurations of one scenario, cleaned up after."""

    def __init__(self, cluster: Cluster, name: str) -> None:
        self.cluster = cluster
        self.name = name
        self.namespace = f"wh-{name}-{cluster.run}"
        self.paths: list[str] = []
        self.configurations: list[str] = []

    def __enter__(self) -> Scenario:
        self.cluster.request("POST", "/api/v1/namespaces", {"metadata": {"name": self.namespace,
                                                                          "labels": {"scenario": self.name}}})
        return self

    def __exit__(self, *_exc: object) -> None:
        for path in self.configurations:
            self.cluster.request("DELETE", path)
        self.cluster.request("DELETE", f"/api/v1/namespaces/{self.namespace}")

    def path(self, suffix: str) -> str:
        path = f"/{self.name}/{suffix}"
        self.paths.append(path)
        return path

    def configure(self, kind: str, webhooks: list[Obj], probe: str | None = None) -> None:
        """Registers a configuration whose webhooks see only this scenario's namespace (and probes,
        unless `probe` is None: then the first webhook's path is probed until it is applied)."""
        plural = "mutatingwebhookconfigurations" if kind == "Mutating" else "validatingwebhookconfigurations"
        for webhook in webhooks:
            webhook.setdefault("namespaceSelector", {"matchLabels": {"scenario": self.name}})
        name = f"{self.name}-{kind.lower()}-{len(self.configurations)}-{self.cluster.run}"
        answer = self.cluster.request("POST", f"{_ADMISSION}/{plural}", {
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": f"{kind}WebhookConfiguration",
            "metadata": {"name": name}, "webhooks": webhooks})
        assert answer["code"] == 201, answer
        self.configurations.append(f"{_ADMISSION}/{plural}/{name}")
        if probe is not None:
            _wait_applied(self.cluster, self.namespace, probe)

    def sent(self, path: str) -> list[Obj]:
        """The reviews `path` received, probes left out."""
        return [r for r in self.cluster.webhooks.reviews(path) if _labels(r).get("probe") != "yes"]

    def configmaps(self, suffix: str = "") -> str:
        return f"/api/v1/namespaces/{self.namespace}/configmaps{suffix}"


def _labels(review: Obj) -> Obj:
    return ((review["request"].get("object") or {}).get("metadata") or {}).get("labels") or {}


def _cm(name: str, **labels: str) -> Obj:
    # Labels only when there are some: this server keeps an empty map a client sends (kube-apiserver
    # drops it, omitempty), a difference of its decoding that these scenarios are not about.
    metadata: Obj = {"name": name, **({"labels": labels} if labels else {})}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"key": "value"}}


# -- the scenarios ---------------------------------------------------------------------------

def allowed_create(cluster: Cluster) -> Obj:
    with Scenario(cluster, "allowed") as s:
        path = s.path("allow")
        s.configure("Validating", [cluster.hook("allow.example.com", path)], probe=path)
        seen = cluster.request("POST", s.configmaps("?fieldManager=scenario"), _cm("one", app="web"))
        return {"client": seen, "sent": s.sent(f"/{s.name}/allow")}


def mutated_create(cluster: Cluster) -> Obj:
    with Scenario(cluster, "mutated") as s:
        mutate = s.path("mutate")
        cluster.webhooks.answers[mutate] = json_patch(
            [{"op": "add", "path": "/metadata/annotations", "value": {"mutated-by": "webhook"}},
             {"op": "replace", "path": "/data/key", "value": "changed"}],
            warnings=["the webhook changed your object"], auditAnnotations={"changed": "yes"})
        s.configure("Mutating", [cluster.hook("mutate.example.com", mutate)], probe=mutate)
        validate = s.path("validate")
        s.configure("Validating", [cluster.hook("check.example.com", validate)], probe=validate)
        seen = cluster.request("POST", s.configmaps(), _cm("one"))
        return {"client": seen, "mutating": s.sent(mutate), "validating": s.sent(validate)}


def denied(cluster: Cluster) -> Obj:
    with Scenario(cluster, "denied") as s:
        paths = {key: s.path(key) for key in ("message", "reason", "nothing", "warned")}
        cluster.webhooks.answers[paths["message"]] = deny("names must start with team-", 403)
        cluster.webhooks.answers[paths["reason"]] = lambda _r: {"allowed": False,
                                                                "status": {"reason": "Forbidden"}}
        cluster.webhooks.answers[paths["nothing"]] = lambda _r: {"allowed": False}
        cluster.webhooks.answers[paths["warned"]] = lambda _r: {
            "allowed": False, "warnings": ["first warning", "second \"quoted\" warning"],
            "status": {"message": "no", "code": 422, "reason": "Invalid", "details": {"name": "x"}}}
        seen = {}
        for key, path in paths.items():
            s.configure("Validating", [cluster.hook(f"{key}.example.com", path,
                                                    objectSelector={"matchLabels": {"case": key}})])
            _wait_for_refusal(cluster, s, key)
            seen[key] = cluster.request("POST", s.configmaps(), _cm(f"cm-{key}", case=key))
            cluster.request("DELETE", s.configurations.pop())
        return seen


def _wait_for_refusal(cluster: Cluster, s: Scenario, case: str) -> None:
    for attempt in range(200):
        probe = cluster.request("POST", s.configmaps("?dryRun=All"), _cm(f"probe-{attempt}", case=case))
        if probe["code"] != 201:
            return
        time.sleep(0.1)
    raise AssertionError(f"the webhook for {case} never refused")


def updates_and_deletes(cluster: Cluster) -> Obj:
    with Scenario(cluster, "writes") as s:
        hook = s.path("all")
        created = cluster.request("POST", s.configmaps(), _cm("one"))
        s.configure("Validating", [cluster.hook("all.example.com", hook, operations=("*",))], probe=hook)
        replaced = dict(created["body"])
        replaced["data"] = {"key": "replaced"}
        seen = {"put": cluster.request("PUT", s.configmaps("/one"), replaced),
                "patch": cluster.request("PATCH", s.configmaps("/one?fieldManager=patcher"),
                                         {"data": {"key": "patched"}}, "application/merge-patch+json"),
                "apply": cluster.request("PATCH", s.configmaps("/one?fieldManager=applier&force=true"),
                                         _cm("one"), "application/apply-patch+yaml"),
                "delete": cluster.request("DELETE", s.configmaps("/one"), {"gracePeriodSeconds": 0,
                                                                         "propagationPolicy": "Background"})}
        return {"client": seen, "sent": s.sent(hook)}


def dry_run(cluster: Cluster) -> Obj:
    with Scenario(cluster, "dryrun") as s:
        safe, unsafe = s.path("safe"), s.path("unsafe")
        # admissionregistration.k8s.io/v1 allows only these two: "Some" and "Unknown" were v1beta1's.
        s.configure("Validating", [cluster.hook("safe.example.com", safe, sideEffects="NoneOnDryRun"),
                                   cluster.hook("none.example.com", unsafe, sideEffects="None")], probe=safe)
        seen = {"dry": cluster.request("POST", s.configmaps("?dryRun=All"), _cm("one")),
                "real": cluster.request("POST", s.configmaps(), _cm("three"))}
        refused = cluster.request("POST", f"{_ADMISSION}/validatingwebhookconfigurations", {
            "metadata": {"name": f"refused-{cluster.run}"},
            "webhooks": [cluster.hook("some.example.com", unsafe, sideEffects="Some")]})
        return {"client": seen, "sent": s.sent(safe), "none_sent": s.sent(unsafe), "some_refused": refused}


def failures(cluster: Cluster) -> Obj:
    """Each way a call can fail, under failurePolicy Fail and then Ignore."""
    with Scenario(cluster, "failures") as s:
        answers: dict[str, Any] = {
            "hang": HANG, "close": CLOSE, "garbage": lambda _r: (200, b"garbage"),
            "server-error": lambda _r: (500, b"something broke"),
            "wrong-uid": lambda r: {"uid": "not-the-uid", "allowed": True},
            "no-response": lambda _r: (200, b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}'),
            "wrong-kind": lambda r: (200, json.dumps({
                "apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview",
                "response": {"uid": r["request"]["uid"], "allowed": True}}).encode()),
        }
        seen: Obj = {}
        for case in (*answers, "refused", "unknown-authority", "plain-http"):
            path = s.path(case)
            if case in answers:
                cluster.webhooks.answers[path] = answers[case]
            for policy in ("Fail", "Ignore"):
                hook = cluster.hook(f"{case}.example.com", path, failurePolicy=policy, timeoutSeconds=1,
                                    objectSelector={"matchLabels": {"case": case}})
                if case == "refused":
                    hook["clientConfig"]["url"] = f"https://127.0.0.1:{_closed_port()}/refused"
                if case == "unknown-authority":
                    hook["clientConfig"]["caBundle"] = cluster.other_ca_bundle
                if case == "plain-http":
                    hook["clientConfig"]["url"] = f"https://127.0.0.1:{_plain_http_port()}/plain"
                s.configure("Validating", [hook])
                seen[f"{case}/{policy}"] = _until_configured(cluster, s, case, policy)
                cluster.request("DELETE", s.configurations.pop())
        return seen


_PLAIN: list[int] = []


def _plain_http_port() -> int:
    """A port answering plain HTTP (once started, for the rest of the run)."""
    if not _PLAIN:
        import http.server
        import threading
        class Quiet(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        _PLAIN.append(server.server_address[1])
    return _PLAIN[0]


def _closed_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _until_configured(cluster: Cluster, s: Scenario, case: str, policy: str) -> Obj:
    """The answer to a create once the configuration is in force: under Fail the first refusal;
    under Ignore, a create made after the webhook was called (or, when it cannot be, after a pause)."""
    for attempt in range(100):
        seen = cluster.request("POST", s.configmaps("?dryRun=All"), _cm(f"{case}-{attempt}", case=case))
        if policy == "Fail" and seen["code"] != 201:
            return seen
        if policy == "Ignore" and (s.sent(f"/{s.name}/{case}") or attempt == 20):
            return cluster.request("POST", s.configmaps("?dryRun=All"), _cm(f"{case}-final", case=case))
        time.sleep(0.1)
    raise AssertionError(f"{case} under {policy} never took effect")


def review_v1beta1(cluster: Cluster) -> Obj:
    with Scenario(cluster, "v1beta1") as s:
        path = s.path("beta")
        cluster.webhooks.answers[path] = json_patch([{"op": "add", "path": "/metadata/labels/beta",
                                                      "value": "yes"}])
        hook = cluster.hook("beta.example.com", path, admissionReviewVersions=["v1beta1", "v1"])
        s.configure("Mutating", [hook], probe=path)
        seen = cluster.request("POST", s.configmaps(), _cm("one", app="x"))
        return {"client": seen, "sent": s.sent(path)}


def reinvocation(cluster: Cluster) -> Obj:
    """The first webhook (IfNeeded) is called again after the second changed the object; the second
    (Never) is not, though the first's second call changes the object again."""
    with Scenario(cluster, "reinvoke") as s:
        first, second = s.path("first"), s.path("second")

        def add_label(key: str) -> Callable[[Obj], Obj]:
            def answer(review: Obj) -> Obj:
                labels = _labels(review)
                if key in labels:
                    return {"allowed": True}
                count = str(len(cluster.webhooks.reviews(f"/{s.name}/{key}")))
                operation = {"op": "add", "path": f"/metadata/labels/{key}", "value": count}
                if not labels:
                    operation = {"op": "add", "path": "/metadata/labels", "value": {key: count}}
                return json_patch([operation])(review)
            return answer
        cluster.webhooks.answers[first] = add_label("first")
        cluster.webhooks.answers[second] = add_label("second")
        s.configure("Mutating", [cluster.hook("first.example.com", first, reinvocationPolicy="IfNeeded",
                                              objectSelector={"matchLabels": {"app": "x"}}),
                                 cluster.hook("second.example.com", second,
                                              objectSelector={"matchLabels": {"app": "x"}})])
        for attempt in range(100):
            seen = cluster.request("POST", s.configmaps("?dryRun=All"), _cm(f"probe-{attempt}", app="x"))
            if "second" in seen["body"]["metadata"].get("labels", {}):
                break
            time.sleep(0.1)
        cluster.webhooks.received.clear()
        seen = cluster.request("POST", s.configmaps(), _cm("one", app="x"))
        return {"client": seen, "first": s.sent(first), "second": s.sent(second)}


def subresources(cluster: Cluster) -> Obj:
    """Scale and status writes, each shown as the subresource's kind."""
    with Scenario(cluster, "subresources") as s:
        path = s.path("sub")
        apps = f"/apis/apps/v1/namespaces/{s.namespace}/deployments"
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                      "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                               "template": {"metadata": {"labels": {"app": "web"}},
                                            "spec": {"containers": [{"name": "web",
                                                                     "image": "nginx:1.27"}]}}}}
        cluster.request("POST", apps, deployment)
        s.configure("Validating", [cluster.hook("sub.example.com", path, operations=("UPDATE",), group="apps",
                                                resources=("deployments/scale", "deployments/status"))])
        seen = {}
        for attempt in range(100):
            seen["scale"] = cluster.request("PATCH", f"{apps}/web/scale", {"spec": {"replicas": 2 + attempt}},
                                            "application/merge-patch+json")
            if s.sent(path):
                break
            time.sleep(0.1)
        cluster.webhooks.received.clear()
        seen["scale"] = cluster.request("PUT", f"{apps}/web/scale", {
            "apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": "web", "namespace": s.namespace},
            "spec": {"replicas": 3}})
        seen["status"] = cluster.request("PATCH", f"{apps}/web/status", {"status": {"observedGeneration": 1}},
                                         "application/merge-patch+json")
        seen["main"] = cluster.request("PATCH", f"{apps}/web", {"metadata": {"labels": {"a": "b"}}},
                                       "application/merge-patch+json")
        return {"client": {k: {"code": v["code"]} for k, v in seen.items()}, "sent": s.sent(path)}


def equivalent(cluster: Cluster) -> Obj:
    """matchPolicy Equivalent: a rule on autoscaling/v1 sees a v2 write in v1; Exact does not see it."""
    with Scenario(cluster, "equivalent") as s:
        v1, exact = s.path("v1"), s.path("exact")
        common = {"operations": ("CREATE",), "group": "autoscaling", "version": "v1",
                  "resources": ("horizontalpodautoscalers",)}
        s.configure("Validating", [cluster.hook("v1.example.com", v1, **common),
                                   cluster.hook("exact.example.com", exact, matchPolicy="Exact", **common)])
        hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
               "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                        "minReplicas": 1, "maxReplicas": 4,
                        "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                            "type": "Utilization", "averageUtilization": 60}}}]}}
        path = f"/apis/autoscaling/v2/namespaces/{s.namespace}/horizontalpodautoscalers"
        for attempt in range(100):
            cluster.request("POST", path + "?dryRun=All", {**hpa, "metadata": {"name": f"probe-{attempt}"}})
            if s.sent(v1):
                break
            time.sleep(0.1)
        cluster.webhooks.received.clear()
        seen = cluster.request("POST", path, {**hpa, "metadata": {"name": "web"}})
        return {"client": seen, "v1": s.sent(v1), "exact_calls": len(s.sent(exact))}


def mutation_errors(cluster: Cluster) -> Obj:
    """Patches that cannot be applied, a patch on a delete, a patch of an unknown type."""
    with Scenario(cluster, "mutation-errors") as s:
        cases: dict[str, Any] = {
            "missing-path": json_patch([{"op": "replace", "path": "/nothing/here", "value": "x"}]),
            "remove-missing": json_patch([{"op": "remove", "path": "/data/absent"}]),
            "test-fails": json_patch([{"op": "test", "path": "/data/key", "value": "other"}]),
            "delete": json_patch([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]),
            "type": lambda r: {"allowed": True, "patchType": "MergePatch",
                               "patch": base64.b64encode(b'{"data":{"a":"b"}}').decode()},
            "untyped": lambda r: {"allowed": True, "patch": base64.b64encode(b"[]").decode()},
            "undecodable": lambda r: {"allowed": True, "patchType": "JSONPatch",
                                      "patch": base64.b64encode(b'{"op":"add"}').decode()},
        }
        seen: Obj = {}
        for case, answer in cases.items():
            path = s.path(case)
            cluster.webhooks.answers[path] = answer
            operations = ("DELETE",) if case == "delete" else ("CREATE",)
            s.configure("Mutating", [cluster.hook(f"{case}.example.com", path, operations=operations,
                                                  objectSelector={"matchLabels": {"case": case}})])
            if case == "delete":
                created = cluster.request("POST", s.configmaps(), _cm("to-delete", case=case))
                assert created["code"] == 201, created
                for _ in range(100):
                    seen[case] = cluster.request("DELETE", s.configmaps("/to-delete?dryRun=All"))
                    if seen[case]["code"] != 200:
                        break
                    time.sleep(0.1)
            else:
                seen[case] = _until_configured(cluster, s, case, "Fail")
            cluster.request("DELETE", s.configurations.pop())
        seen["replace-missing-key"] = _replace_missing_key(cluster, s)
        return seen


def _replace_missing_key(cluster: Cluster, s: Scenario) -> Obj:
    """Go's JSON patch (evanphx v4) lets `replace` add a key its map lacks."""
    path = s.path("replace-missing-key")
    cluster.webhooks.answers[path] = json_patch([{"op": "replace", "path": "/data/absent", "value": "x"}])
    s.configure("Mutating", [cluster.hook("replace.example.com", path,
                                          objectSelector={"matchLabels": {"case": "replace"}})])
    try:
        for attempt in range(100):
            probe = _cm(f"replace-{attempt}", case="replace")
            seen = cluster.request("POST", s.configmaps("?dryRun=All"), probe)
            if seen["code"] != 201 or s.sent(path):
                return seen
            time.sleep(0.1)
        raise AssertionError("the replace webhook was never called")
    finally:
        cluster.request("DELETE", s.configurations.pop())


def service_reference(cluster: Cluster) -> Obj:
    """A webhook named by a Service (ExternalName localhost), its certificate checked for the
    Service's name."""
    with Scenario(cluster, "service") as s:
        path = s.path("svc")
        service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "scenario-webhook"},
                   "spec": {"type": "ExternalName", "externalName": "localhost"}}
        made = cluster.request("POST", "/api/v1/namespaces/default/services", service)
        try:
            hook = cluster.hook("svc.example.com", path)
            hook["clientConfig"] = {"service": {"namespace": "default", "name": "scenario-webhook",
                                                "path": path, "port": cluster.webhooks.port},
                                    "caBundle": cluster.certificates.ca_bundle}
            s.configure("Validating", [hook], probe=path)
            seen = cluster.request("POST", s.configmaps(), _cm("one"))
            # A Service whose name the certificate does not carry.
            cluster.request("POST", "/api/v1/namespaces/default/services",
                            {**service, "metadata": {"name": "wrong-name"}})
            hook = {**hook, "name": "wrong.example.com",
                    "clientConfig": {**hook["clientConfig"],
                                     "service": {**hook["clientConfig"]["service"], "name": "wrong-name"}},
                    "objectSelector": {"matchLabels": {"case": "wrong"}}}
            s.configure("Validating", [hook])
            wrong = _until_configured(cluster, s, "wrong", "Fail")
            return {"service": made["code"], "client": seen, "sent": s.sent(path), "wrong_name": wrong}
        finally:
            cluster.request("DELETE", "/api/v1/namespaces/default/services/scenario-webhook")
            cluster.request("DELETE", "/api/v1/namespaces/default/services/wrong-name")


def warnings_of_a_failed_write(cluster: Cluster) -> Obj:
    """A mutating webhook's warning still reaches the client when a later webhook, or the object's own
    validation, refuses the write."""
    with Scenario(cluster, "warned") as s:
        warn, refuse = s.path("warn"), s.path("refuse")
        cluster.webhooks.answers[warn] = lambda _r: {"allowed": True,
                                                   "warnings": ["seen by the mutating webhook"]}
        cluster.webhooks.answers[refuse] = lambda _r: {"allowed": False, "warnings": ["refusing"],
                                                      "status": {"message": "not today"}}
        s.configure("Mutating", [cluster.hook("warn.example.com", warn)], probe=warn)
        seen = {"invalid": cluster.request("POST", s.configmaps(), _cm("Not_A_Valid_Name"))}
        s.configure("Validating", [cluster.hook("refuse.example.com", refuse,
                                                objectSelector={"matchLabels": {"case": "refuse"}})])
        _wait_for_refusal(cluster, s, "refuse")
        seen["refused"] = cluster.request("POST", s.configmaps(), _cm("refused", case="refuse"))
        return seen


def warnings_in_order(cluster: Cluster) -> Obj:
    """A Pod's warnings from decoding (an unknown field), a mutating webhook, the Pod strategy (a deprecated
    node label) and a validating webhook come in the order they were collected, allowed or refused."""
    with Scenario(cluster, "ordered") as s:
        warn, check = s.path("warn"), s.path("check")
        cluster.webhooks.answers[warn] = lambda _r: {"allowed": True, "warnings": ["from the mutating webhook"]}
        cluster.webhooks.answers[check] = lambda review: {
            "allowed": _labels(review).get("case") != "refuse", "warnings": ["from the validating webhook"],
            "status": {"message": "not today"}}
        both = ("configmaps", "pods")
        s.configure("Mutating", [cluster.hook("warn.example.com", warn, resources=both)], probe=warn)
        s.configure("Validating", [cluster.hook("check.example.com", check, resources=both)], probe=check)

        def pod(name: str, **labels: str) -> Obj:
            return {"apiVersion": "v1", "kind": "Pod", "unknownField": 1,
                    "metadata": {"name": name, **({"labels": labels} if labels else {})},
                    "spec": {"nodeSelector": {"beta.kubernetes.io/os": "linux"},
                             "containers": [{"name": "c", "image": "busybox"}]}}
        pods = f"/api/v1/namespaces/{s.namespace}/pods?dryRun=All"
        return {"allowed": cluster.request("POST", pods, pod("allowed")),
                "refused": cluster.request("POST", pods, pod("refused", case="refuse"))}


def mutated_update(cluster: Cluster) -> Obj:
    """What a mutating webhook is shown of an update (a PUT and a patch) and what its patch makes of it."""
    with Scenario(cluster, "mutated-update") as s:
        path = s.path("update")
        cluster.webhooks.answers[path] = json_patch([{"op": "add", "path": "/data/stamped", "value": "yes"}])
        created = cluster.request("POST", s.configmaps("?fieldManager=creator"), _cm("one", app="web"))
        s.configure("Mutating", [cluster.hook("update.example.com", path, operations=("UPDATE",),
                                              objectSelector={"matchLabels": {"app": "web"}})])
        replaced = dict(created["body"])
        replaced["data"] = {"key": "replaced"}
        for _ in range(100):
            seen = {"put": cluster.request("PUT", s.configmaps("/one?fieldManager=replacer"), replaced)}
            if s.sent(path):
                break
            replaced = dict(seen["put"]["body"])
            replaced["data"] = {"key": "replaced"}
            time.sleep(0.1)
        cluster.webhooks.received.clear()
        replaced = {**seen["put"]["body"], "data": {"key": "again"}}
        seen["put"] = cluster.request("PUT", s.configmaps("/one?fieldManager=replacer"), replaced)
        seen["patch"] = cluster.request("PATCH", s.configmaps("/one?fieldManager=patcher"),
                                        {"data": {"key": "patched"}}, "application/merge-patch+json")
        return {"client": seen, "sent": s.sent(path)}


def connect(cluster: Cluster) -> Obj:
    """exec, attach and portforward are admitted as CONNECT, their options as the object, before any
    kubelet is looked for."""
    with Scenario(cluster, "connect") as s:
        path = s.path("connect")
        cluster.webhooks.answers[path] = deny("no shells in production", 403)
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
               "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}
        cluster.request("POST", f"/api/v1/namespaces/{s.namespace}/pods", pod)
        s.configure("Validating", [cluster.hook("connect.example.com", path, operations=("CONNECT",),
                                                resources=("pods/exec", "pods/attach", "pods/portforward"))])
        pods = f"/api/v1/namespaces/{s.namespace}/pods/web"
        queries = {"exec": "exec?command=ls&command=-l&container=web&stdin=true&stdout=1&stderr=false&tty=0",
                   "attach": "attach?container=web&stdout=true",
                   "portforward": "portforward?ports=8080&ports=9090"}
        seen: Obj = {}
        for _ in range(100):
            seen["exec"] = cluster.request("POST", f"{pods}/{queries['exec']}")
            if s.sent(path):
                break
            time.sleep(0.1)
        cluster.webhooks.received.clear()
        for key, query in queries.items():
            seen[key] = cluster.request("POST", f"{pods}/{query}")
        return {"client": seen, "sent": s.sent(path)}


def match_conditions(cluster: Cluster) -> Obj:
    """matchConditions: a false one skips the webhook; one that fails refuses the request under Fail
    and skips the webhook under Ignore."""
    with Scenario(cluster, "conditions") as s:
        cases = {
            "labelled": ("has(object.metadata.labels) && 'team' in object.metadata.labels && "
                         "request.operation == 'CREATE' && request.kind.kind == 'ConfigMap'", "Fail"),
            "erroring": ("object.data.missing == 'x'", "Fail"),
            "ignored": ("object.data.missing == 'x'", "Ignore"),
        }
        seen: Obj = {}
        for case, (expression, policy) in cases.items():
            path = s.path(case)
            cluster.webhooks.answers[path] = deny(f"{case} webhook says no")
            s.configure("Validating", [cluster.hook(
                f"{case}.example.com", path, failurePolicy=policy,
                objectSelector={"matchLabels": {"case": case}},
                matchConditions=[{"name": "not-probes", "expression": "object.metadata.name != 'never'"},
                                 {"name": case, "expression": expression}])])
            if case == "labelled":
                for attempt in range(100):
                    probe = cluster.request("POST", s.configmaps("?dryRun=All"),
                                            _cm(f"probe-{attempt}", case=case, team="a"))
                    if probe["code"] != 201:
                        break
                    time.sleep(0.1)
                seen["unlabelled"] = cluster.request("POST", s.configmaps(), _cm("unlabelled", case=case))
                labelled = _cm("labelled", case=case, team="a")
                seen["labelled"] = cluster.request("POST", s.configmaps(), labelled)
            elif case == "erroring":
                seen[case] = _until_configured(cluster, s, case, "Fail")
            else:
                time.sleep(2)
                seen[case] = cluster.request("POST", s.configmaps(), _cm("ignored", case=case))
            cluster.request("DELETE", s.configurations.pop())
        return {"client": seen, "sent": {case: len(s.sent(f"/{s.name}/{case}")) for case in cases}}


SCENARIOS: dict[str, Callable[[Cluster], Obj]] = {
    "match_conditions": match_conditions,
    "connect": connect,
    "mutated_update": mutated_update,
    "warnings_of_a_failed_write": warnings_of_a_failed_write,
    "warnings_in_order": warnings_in_order,
    "reinvocation": reinvocation,
    "subresources": subresources,
    "equivalent": equivalent,
    "mutation_errors": mutation_errors,
    "service_reference": service_reference,
    "allowed_create": allowed_create,
    "mutated_create": mutated_create,
    "denied": denied,
    "updates_and_deletes": updates_and_deletes,
    "dry_run": dry_run,
    "failures": failures,
    "review_v1beta1": review_v1beta1,
}


# -- comparing two servers' runs -------------------------------------------------------------

_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_PORT = re.compile(r"(127\.0\.0\.1|\.svc):\d+")


def normalized(value: Any, run: str, key: str = "") -> Any:
    """What may differ between two runs replaced by placeholders: uids, times, resource versions,
    ports, the user, the run's suffix."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("resourceVersion",) and isinstance(v, str) and v:
                out[k] = "<rv>"
            elif k == "userInfo":
                out[k] = "<user>"
            elif k == "managedFields" and isinstance(v, list):
                # Ordered by time to the second, then manager: two runs' writes may straddle a second.
                # Times are left out: kube-apiserver writes none on a /scale entry, this server does.
                entries = [{f: x for f, x in e.items() if f != "time"} for e in normalized(v, run, k)]
                out[k] = sorted(entries, key=lambda e: (e.get("operation"), e.get("manager"),
                                                        e.get("subresource", "")))
            elif k == "patch" and isinstance(v, str):
                out[k] = json.loads(base64.b64decode(v))
            else:
                out[k] = normalized(v, run, k)
        return out
    if isinstance(value, list):
        return [normalized(v, run, key) for v in value]
    if isinstance(value, str):
        value = value.replace(f"-{run}", "")
        value = _UID.sub("<uid>", value)
        value = _TIME.sub("<time>", value)
        return _PORT.sub(r"\1:<port>", value)
    return value
