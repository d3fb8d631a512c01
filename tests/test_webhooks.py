"""Admission webhooks driven as users drive them: configurations applied with kubectl (in the image of
an operator's: a Service in front of the webhook, its caBundle, a namespaceSelector), objects
written with kubectl and the official Python client, and real HTTPS webhooks on loopback.

What the reference answers for the same requests is checked in test_webhooks_reference.py; these
tests check what only this server can show (a Service resolved through its EndpointSlices), and that
webhooks never stall other requests.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException
from support import ServerProcess, run_kubectl, wait_for
from webhook_server import (
    CLOSE_WHEN_REUSED,
    HANG,
    Certificates,
    WebhookServer,
    deny,
    host_address,
    json_patch,
    make_certificates,
)

# The webhook's Service, as an operator's chart would name it; its certificate carries the name.
SERVICE_DNS = "policy-webhook.webhook-system.svc"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(str(tmp_path_factory.mktemp("certs")), ("localhost", SERVICE_DNS))


@pytest.fixture(scope="module")
def webhooks(certificates: Certificates) -> Iterator[WebhookServer]:
    server = WebhookServer(certificates).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def service_webhooks(certificates: Certificates) -> Iterator[WebhookServer]:
    """A webhook on this machine's own address: an EndpointSlice may not name a loopback one."""
    server = WebhookServer(certificates, host=host_address()).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(str(tmp_path_factory.mktemp("server")),
                           extra_args=["--controllers=deployment-controller,replicaset-controller"])
    server.start()
    yield server
    server.stop_all()


@pytest.fixture(scope="module")
def api(cluster: ServerProcess) -> client.CoreV1Api:
    return client.CoreV1Api(config.new_client_from_config(cluster.kubeconfig))


def _apply(cluster: ServerProcess, *documents: dict[str, Any]) -> None:
    run_kubectl(cluster, "apply", "-f", "-", stdin=yaml.safe_dump_all(documents))


def _namespace(cluster: ServerProcess, name: str) -> None:
    _apply(cluster, {"apiVersion": "v1", "kind": "Namespace",
                     "metadata": {"name": name, "labels": {"policy": name}}})


def _configuration(kind: str, name: str, namespace: str, client_config: dict[str, Any],
                   certificates: Certificates, **hook: Any) -> dict[str, Any]:
    """A configuration on configmaps and pods of one namespace, like an operator's."""
    webhook = {"name": f"{name}.policy.example.com", "admissionReviewVersions": ["v1"], "sideEffects": "None",
               "clientConfig": {**client_config, "caBundle": certificates.ca_bundle},
               "namespaceSelector": {"matchLabels": {"policy": namespace}},
               "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                          "resources": ["configmaps", "pods"], "scope": "Namespaced"}], **hook}
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": f"{kind}WebhookConfiguration",
            "metadata": {"name": name}, "webhooks": [webhook]}


def _endpoint_slice(address: str, port: int, ready: bool) -> dict[str, Any]:
    """The webhook's endpoint, as an EndpointSlice controller would list a pod's."""
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "policy-webhook-1", "namespace": "webhook-system",
                         "labels": {"kubernetes.io/service-name": "policy-webhook"}},
            "addressType": "IPv4", "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
            "endpoints": [{"addresses": [address], "conditions": {"ready": ready}}]}


def test_a_webhook_behind_a_service_is_reached_through_its_endpoint_slices(
        cluster: ServerProcess, service_webhooks: WebhookServer, certificates: Certificates) -> None:
    webhooks = service_webhooks
    _namespace(cluster, "webhook-system")
    _namespace(cluster, "team-a")
    webhooks.answers["/validate-team-a"] = deny("configmaps in team-a need an owner label", 403)
    _apply(cluster, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "policy-webhook",
                                                                        "namespace": "webhook-system"},
                     "spec": {"ports": [{"name": "https", "port": 443, "targetPort": "webhook"}]}},
           _endpoint_slice(webhooks.host, webhooks.port, ready=True),
           _configuration("Validating", "team-a-policy", "team-a",
                          {"service": {"namespace": "webhook-system", "name": "policy-webhook",
                                       "path": "/validate-team-a"}}, certificates))
    refused = run_kubectl(cluster, "create", "configmap", "settings", "-n", "team-a", "--from-literal=a=b",
                          check=False)
    assert refused.returncode == 1
    assert refused.stderr.strip() == ('error: failed to create configmap: admission webhook '
                                      '"team-a-policy.policy.example.com" denied the request: configmaps in '
                                      'team-a need an owner label')
    review = webhooks.reviews("/validate-team-a")[-1]
    assert review["request"]["userInfo"]["username"] == "admin"
    assert review["request"]["object"]["data"] == {"a": "b"}
    # Only ready endpoints are called; with none, the call fails as upstream's resolver says.
    _apply(cluster, _endpoint_slice(webhooks.host, webhooks.port, ready=False))
    unreachable = run_kubectl(cluster, "create", "configmap", "settings", "-n", "team-a", check=False)
    assert ('failed calling webhook "team-a-policy.policy.example.com": failed to call webhook: Post '
            '"https://policy-webhook.webhook-system.svc:443/validate-team-a?timeout=10s": no endpoints '
            'available for service "policy-webhook"') in unreachable.stderr
    run_kubectl(cluster, "delete", "validatingwebhookconfiguration", "team-a-policy")
    # Applied as the store changes: the very next write is not sent anywhere.
    run_kubectl(cluster, "create", "configmap", "settings", "-n", "team-a")


def test_a_mutating_webhook_changes_what_the_python_client_creates_and_kubectl_shows_its_warning(
        cluster: ServerProcess, webhooks: WebhookServer, certificates: Certificates,
        api: client.CoreV1Api) -> None:
    _namespace(cluster, "team-b")
    webhooks.answers["/mutate-team-b"] = json_patch(
        [{"op": "add", "path": "/metadata/annotations", "value": {"policy.example.com/checked": "true"}}],
        warnings=["mode strict is deprecated, use enforce"])
    _apply(cluster, _configuration("Mutating", "team-b-defaults", "team-b",
                                   {"url": webhooks.url("/mutate-team-b")}, certificates))
    created = api.create_namespaced_config_map("team-b", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="from-python"), data={"mode": "strict"}))
    assert created.metadata.annotations == {"policy.example.com/checked": "true"}
    shown = run_kubectl(cluster, "create", "configmap", "from-kubectl", "-n", "team-b",
                        "--from-literal=mode=strict")
    assert "Warning: mode strict is deprecated, use enforce" in shown.stderr
    stored = json.loads(run_kubectl(cluster, "get", "configmap", "from-kubectl", "-n", "team-b",
                                    "-o", "json").stdout)
    assert stored["metadata"]["annotations"] == {"policy.example.com/checked": "true"}
    # A server-side dry run is sent as one (sideEffects None) and stores nothing.
    run_kubectl(cluster, "create", "configmap", "dry", "-n", "team-b", "--dry-run=server")
    assert webhooks.reviews("/mutate-team-b")[-1]["request"]["dryRun"] is True
    with pytest.raises(ApiException) as missing:
        api.read_namespaced_config_map("dry", "team-b")
    assert missing.value.status == 404


def test_a_hanging_webhook_holds_only_the_requests_it_was_asked_about(
        cluster: ServerProcess, webhooks: WebhookServer, certificates: Certificates,
        api: client.CoreV1Api) -> None:
    _namespace(cluster, "team-c")
    _namespace(cluster, "team-d")
    webhooks.answers["/hang"] = HANG
    _apply(cluster, _configuration("Validating", "team-c-slow", "team-c", {"url": webhooks.url("/hang")},
                                   certificates, timeoutSeconds=6))
    outcome: dict[str, Any] = {}

    def hanging_create() -> None:
        outcome["result"] = run_kubectl(cluster, "create", "configmap", "held", "-n", "team-c", check=False)

    held = threading.Thread(target=hanging_create)
    held.start()
    wait_for("the webhook to be called", lambda: webhooks.reviews("/hang"))
    for i in range(20):
        api.create_namespaced_config_map("team-d",
                                         client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f"cm-{i}")))
        api.list_namespaced_config_map("team-d")
    assert held.is_alive()  # every other request was answered while the webhook still held its own
    held.join(30)
    assert outcome["result"].returncode == 1
    assert ('failed calling webhook "team-c-slow.policy.example.com": failed to call webhook: Post '
            f'"https://127.0.0.1:{webhooks.port}/hang?timeout=6s": context deadline exceeded'
            ) in outcome["result"].stderr


def test_a_kept_alive_connection_the_webhook_closed_is_not_a_failure(
        cluster: ServerProcess, webhooks: WebhookServer, certificates: Certificates) -> None:
    """Go's transport sends a request again when the reused connection it went out on was closed; a
    webhook that closes idle connections (uvicorn after 5 s) must not fail writes now and then."""
    _namespace(cluster, "team-g")
    webhooks.answers["/closing"] = CLOSE_WHEN_REUSED
    _apply(cluster, _configuration("Validating", "team-g-closing", "team-g",
                                   {"url": webhooks.url("/closing")}, certificates))
    wait_for("the webhook to be called", lambda: run_kubectl(
        cluster, "create", "configmap", "probe", "-n", "team-g", "--dry-run=server")
        and webhooks.reviews("/closing"))
    for i in range(5):
        run_kubectl(cluster, "create", "configmap", f"cm-{i}", "-n", "team-g")
    created = [r for r in webhooks.reviews("/closing") if r["request"]["name"].startswith("cm-")]
    assert len(created) > 5  # some went out on a connection the webhook then closed, and were sent again


def test_the_controllers_writes_reach_webhooks_as_the_controller_manager(
        cluster: ServerProcess, webhooks: WebhookServer, certificates: Certificates) -> None:
    _namespace(cluster, "team-e")
    _apply(cluster, _configuration("Validating", "team-e-pods", "team-e", {"url": webhooks.url("/pods")},
                                   certificates))
    webhooks.answers["/pods"] = deny("pods need a team label")
    run_kubectl(cluster, "create", "deployment", "web", "-n", "team-e", "--image=nginx:1.27")
    reviews = wait_for("the ReplicaSet controller's pod create", lambda: [
        r for r in webhooks.reviews("/pods") if r["request"]["kind"]["kind"] == "Pod"])
    assert reviews[0]["request"]["userInfo"]["username"] == "system:kube-controller-manager"
    assert reviews[0]["request"]["operation"] == "CREATE"
    pods = json.loads(run_kubectl(cluster, "get", "pods", "-n", "team-e", "-o", "json").stdout)
    assert pods["items"] == []  # refused, as a cluster's webhook refuses the controller


def test_what_webhooks_add_to_the_audit_record(tmp_path: Any, webhooks: WebhookServer,
                                               certificates: Certificates) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--audit-log-path", str(tmp_path / "audit.log")])
    server.start()
    try:
        _namespace(server, "team-f")
        webhooks.answers["/audited"] = json_patch(
            [{"op": "add", "path": "/metadata/labels", "value": {"audited": "yes"}}],
            auditAnnotations={"decision": "labelled"})
        _apply(server, _configuration("Mutating", "team-f-label", "team-f",
                                      {"url": webhooks.url("/audited")}, certificates),
               _configuration("Validating", "team-f-gone", "team-f", {"url": "https://127.0.0.1:1/gone"},
                              certificates, failurePolicy="Ignore"))
        run_kubectl(server, "create", "configmap", "recorded", "-n", "team-f")
        with open(tmp_path / "audit.log") as f:
            events = [json.loads(line) for line in f]
        done = [e for e in events if e["stage"] == "ResponseComplete" and e["verb"] == "create"
                and e.get("objectRef", {}).get("name") == "recorded"]
        assert done[0]["annotations"] == {
            "failed-open.validating.webhook.admission.k8s.io/round_0_index_0":
                "team-f-gone.policy.example.com",
            "mutation.webhook.admission.k8s.io/round_0_index_0":
                '{"configuration":"team-f-label","webhook":"team-f-label.policy.example.com","mutated":true}',
            "team-f-label.policy.example.com/decision": "labelled"}
        assert list(done[0])[-1] == "annotations"  # after stageTimestamp, as Go writes the Event
    finally:
        server.stop_all()
