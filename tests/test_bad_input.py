"""The bad inputs the generated cases found, and the ones kube-apiserver itself gets wrong, pinned down."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from keepalive import Connection
from support import ServerProcess

from columns.registry import printer_for

CM_PATH = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def conn(shared_server: ServerProcess) -> Connection:
    return Connection(shared_server)


def revision(conn: Connection) -> str:
    return str(conn.json("GET", CM_PATH)[1]["metadata"]["resourceVersion"])


def test_watch_from_a_resource_version_that_is_no_number_is_400(conn: Connection) -> None:
    status, answer = conn.json("GET", CM_PATH + "?watch=1&resourceVersion=abc")
    assert status == 400
    assert answer["reason"] == "BadRequest"
    # In the storage versioner's words, as kube-apiserver 1.36.2 says them (it answers 500; a client's
    # mistake is a 400 here).
    assert answer["message"] == ('resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": '
                                 "invalid syntax")


@pytest.mark.parametrize("document, stored", [
    ("metadata: {name: keys}\ndata: {1: one, true: yes-key, 1.5: f}\n", {"1": "one", "true": "yes-key", "1.5": "f"}),
    ("metadata: {name: dates, labels: {day: 2001-12-14}}\ndata: {at: 2001-12-14t21:59:43.10-05:00}\n",
     {"at": "2001-12-14t21:59:43.10-05:00"}),
])
def test_yaml_is_read_as_json_would_hold_it(conn: Connection, document: str,
                                            stored: dict[str, object]) -> None:
    status, _, body = conn.request("POST", CM_PATH, document.encode(), {"Content-Type": "application/yaml"})
    assert status == 201, body
    assert json.loads(body)["data"] == stored


def test_a_yaml_integer_past_64_bits_is_read_as_a_float(conn: Connection) -> None:
    # As a JSON decoder reads it: here a float where ConfigMap data holds strings, so a 400 naming it.
    document = "metadata: {name: big}\ndata: {big: 123456789012345678901234567890}\n"
    status, _, body = conn.request("POST", CM_PATH, document.encode(), {"Content-Type": "application/yaml"})
    assert status == 400, body
    assert "cannot unmarshal number 1.2345678901234568e+29 into Go struct field" in json.loads(body)["message"]


BILLION_LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]\n"
    for previous, name in zip("abcdefgh", "bcdefghi"))


def _unrecognized(problem: str, document: str) -> str:
    """The create handler's words for a body it cannot read as a ConfigMap (its first bytes in hex)."""
    shown = document.encode()[:30].hex() + (" ..." if len(document) > 30 else "")
    return f"the object provided is unrecognized (must be of type ConfigMap): {problem} ({shown})"


LAUGHING = "a: &a [x, x, x, x, x, x, x, x, x]\n" + BILLION_LAUGHS
TOO_DEEP = "data: " + "[" * 3000 + "]" * 3000 + "\n"


@pytest.mark.parametrize("document, message", [
    ("data: {n: .nan}\n", _unrecognized("json: unsupported value: NaN", "data: {n: .nan}\n")),
    ("data: {~: none}\n", _unrecognized('unsupported map key of type: %!s(<nil>), key: <nil>, value: "none"',
                                        "data: {~: none}\n")),
    ("data: {[a]: list}\n", None),
    ("data: {b: !!binary 'not base64!'}\n", None),
    (LAUGHING, _unrecognized("yaml: document contains excessive aliasing", LAUGHING)),
    # upstream's go-yaml reads 3,000 levels; ours stops short of Python's recursion limit
    (TOO_DEEP, _unrecognized("the document is nested too deeply", TOO_DEEP)),
    ("metadata: {name: deep}\nspec: " + "[" * 600 + "]" * 600 + "\n", None),
])
def test_yaml_json_cannot_hold_is_400(conn: Connection, document: str, message: str | None) -> None:
    before = revision(conn)
    status, _, body = conn.request("POST", CM_PATH, document.encode(), {"Content-Type": "application/yaml"})
    answer = json.loads(body)
    assert (status, answer["reason"]) == (400, "BadRequest"), answer
    if message is not None:
        assert answer["message"] == message
    assert revision(conn) == before


@pytest.mark.parametrize("metadata, message", [
    ({"generateName": {}},
     "cannot unmarshal object into Go struct field ObjectMeta.metadata.generateName of type string"),
    ({"name": 5}, "cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"),
    ({"name": "x", "labels": ["a"]},
     "cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    ({"name": "x", "labels": {"a": 1}},
     "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    ({"name": "x", "finalizers": [True]},
     "cannot unmarshal bool into Go struct field ObjectMeta.metadata.finalizers of type string"),
    ({"name": "x", "generation": "1"},
     "cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64"),
])
def test_metadata_of_the_wrong_type_is_400_like_upstream(conn: Connection, metadata: dict[str, object],
                                                         message: str) -> None:
    before = revision(conn)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}
    status, answer = conn.json("POST", CM_PATH, body)
    assert (status, answer["reason"]) == (400, "BadRequest")
    assert answer["message"] == 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: ' + message
    assert revision(conn) == before


def test_json_nested_deeper_than_can_be_stored_is_400(conn: Connection) -> None:
    before = revision(conn)
    body = b'{"metadata":{"name":"deep"},"data":' + b"[" * 300 + b"]" * 300 + b"}"
    status, _, answer = conn.request("POST", CM_PATH, body)
    assert (status, json.loads(answer)["reason"]) == (400, "BadRequest")
    assert revision(conn) == before


def test_a_field_of_the_wrong_type_is_400_and_writes_nothing(conn: Connection) -> None:
    before = revision(conn)
    status, answer = conn.json("POST", CM_PATH, {"metadata": {"name": "odd-binary"}, "binaryData": {"x": True}})
    assert (status, answer["reason"]) == (400, "BadRequest")
    assert "cannot unmarshal bool into Go struct field" in answer["message"]
    assert revision(conn) == before


def test_a_stored_field_of_the_wrong_type_does_not_fail_its_row() -> None:
    # Data written before field types were checked on write must not fail every Table list of its
    # resource: the row names the object and keeps the empty object's placeholders.
    printer = printer_for("", "ConfigMap")
    row = printer.row(b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"odd-binary"},'
                      b'"binaryData":{"x":true}}')
    assert row.cells[0] == "odd-binary"
    assert len(row.cells) == len(printer.definitions)


RBAC = "rbac.authorization.k8s.io/v1"


@pytest.mark.parametrize("path, body, message", [
    ("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
     {"apiVersion": RBAC, "kind": "RoleBinding", "metadata": {"name": "no-role"},
      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ""},
      "subjects": [{"kind": "User", "name": "jane"}]},
     'RoleBinding.rbac.authorization.k8s.io "no-role" is invalid: roleRef.name: Required value'),
    ("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
     {"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": "sa-without-namespace"},
      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
      "subjects": [{"kind": "ServiceAccount", "name": "builder"}]},
     'ClusterRoleBinding.rbac.authorization.k8s.io "sa-without-namespace" is invalid: '
     "subjects[0].namespace: Required value"),
    ("/apis/rbac.authorization.k8s.io/v1/clusterroles",
     {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "a/b"}},
     'ClusterRole.rbac.authorization.k8s.io "a/b" is invalid: metadata.name: Invalid value: "a/b": may not contain \'/\''),
    ("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
     {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "inverted"},
      "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
               "minReplicas": 5, "maxReplicas": 2}},
     'HorizontalPodAutoscaler.autoscaling "inverted" is invalid: spec.maxReplicas: Invalid value: 2: '
     "must be greater than or equal to `minReplicas`"),
    ("/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers",
     {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "no-target"},
      "spec": {"scaleTargetRef": {"kind": "Deployment", "name": ""}, "maxReplicas": 3}},
     # kube-apiserver 1.36.2 also requires the target's API group (autoscaling's ValidateAPIVersion).
     ('HorizontalPodAutoscaler.autoscaling "no-target" is invalid: [spec.scaleTargetRef.name: Required value, '
      'spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group]')),
    ("/apis/policy/v1/namespaces/default/poddisruptionbudgets",
     {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "too-much"},
      "spec": {"minAvailable": "150%", "selector": {"matchLabels": {"app": "web"}}}},
     'PodDisruptionBudget.policy "too-much" is invalid: spec.minAvailable: Invalid value: "150%": '
     "must not be greater than 100%"),
    ("/api/v1/namespaces/default/replicationcontrollers",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "mismatch"},
      "spec": {"selector": {"app": "a"}, "template": {"metadata": {"labels": {"app": "b"}},
                                                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}},
     'ReplicationController "mismatch" is invalid: spec.template.metadata.labels: Invalid value: '
     '{"app":"b"}: `selector` does not match template `labels`'),
    ("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
     {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
      "metadata": {"name": "old-chart"},
      "webhooks": [{"name": "sidecar-injector", "clientConfig": {"url": "https://injector.example.com/inject"}}]},
     'MutatingWebhookConfiguration.admissionregistration.k8s.io "old-chart" is invalid: [webhooks[0].name: '
     'Invalid value: "sidecar-injector": should be a domain with at least three segments separated by dots, '
     "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, "
     "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]"),
    ("/apis/networking.k8s.io/v1/ipaddresses",
     {"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress", "metadata": {"name": "2001:db8:0::1"},
      "spec": {"parentRef": {"resource": "services", "namespace": "default", "name": "web"}}},
     'IPAddress.networking.k8s.io "2001:db8:0::1" is invalid: metadata.name: Invalid value: "2001:db8:0::1": '
     'must be in canonical form ("2001:db8::1")'),
])
def test_common_mistakes_with_the_newer_kinds_are_422_and_write_nothing(conn: Connection, path: str,
                                                                       body: dict[str, object], message: str) -> None:
    before = revision(conn)
    status, answer = conn.json("POST", path, body)
    assert (status, answer["kind"], answer["reason"]) == (422, "Status", "Invalid"), answer
    assert answer["message"] == message
    assert revision(conn) == before


def test_a_binding_keeps_its_role(conn: Connection) -> None:
    path = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings"
    body = {"apiVersion": RBAC, "kind": "RoleBinding", "metadata": {"name": "fixed-role"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
            "subjects": [{"kind": "User", "name": "jane"}]}
    assert conn.json("POST", path, body)[0] == 201
    before = revision(conn)
    changed = {**body, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "writer"}}
    status, answer = conn.json("PUT", path + "/fixed-role", changed)
    assert status == 422
    assert answer["message"] == ('RoleBinding.rbac.authorization.k8s.io "fixed-role" is invalid: roleRef: Invalid value: '
                                 '{"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"writer"}: '
                                 "cannot change roleRef")
    assert revision(conn) == before


@pytest.mark.parametrize("path", [
    "/api/v1/componentstatuses", "/api/v1/componentstatuses/etcd-0",
])
def test_componentstatuses_are_read_only(conn: Connection, path: str) -> None:
    status, _, answer = conn.request("DELETE", path)
    assert status == 405 and json.loads(answer)["kind"] == "Status"
    status, got = conn.json("GET", "/api/v1/componentstatuses/etcd-0")
    assert status == 200 and got["conditions"] == [{"type": "Healthy", "status": "True", "message": "ok"}]


def test_a_csi_driver_keeps_how_it_attaches(conn: Connection) -> None:
    path = "/apis/storage.k8s.io/v1/csidrivers"
    body = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "fixed.csi.example.com"},
            "spec": {"attachRequired": True}}
    status, created = conn.json("POST", path, body)
    assert status == 201
    before = revision(conn)
    # A CSIDriver takes no unconditional update: the change names the version it changes.
    changed = {**body, "metadata": {**body["metadata"], "resourceVersion": created["metadata"]["resourceVersion"]},
               "spec": {"attachRequired": False}}
    status, answer = conn.json("PUT", f"{path}/fixed.csi.example.com", changed)
    # upstream's path says "attachedRequired" (validation.go's field.NewPath), so kube-apiserver does too
    assert (status, answer["message"]) == (422, 'CSIDriver.storage.k8s.io "fixed.csi.example.com" is invalid: '
                                                "spec.attachedRequired: Invalid value: false: field is immutable")
    assert revision(conn) == before


def _signed_request(common_name: str) -> str:
    """A CSR's spec.request: a PEM certificate request with a valid signature, as validation demands."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode()


def test_a_csr_update_changes_only_its_metadata(conn: Connection) -> None:
    path = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
    body = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": "kept-request"},
            "spec": {"request": _signed_request("someone"), "signerName": "example.com/signer",
                     "usages": ["client auth"], "username": "someone-else"}}
    status, created = conn.json("POST", path, body)
    assert status == 201 and created["spec"]["username"] == "admin"
    changed = {**created, "metadata": {**created["metadata"], "labels": {"a": "b"}},
               "spec": {**created["spec"], "signerName": "example.com/other"}}
    status, updated = conn.json("PUT", f"{path}/kept-request", changed)
    assert status == 200 and updated["metadata"]["labels"] == {"a": "b"}
    assert updated["spec"] == created["spec"]
    # /approval takes the conditions and the metadata, never the spec (kube-apiserver 1.36.2 answers alike).
    approval = {"metadata": {"labels": {"approved-by": "test"}}, "spec": {"signerName": "example.com/third"},
                "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "Checked"}]}}
    status, approved = conn.json("PATCH", f"{path}/kept-request/approval", approval,
                                 headers={"Content-Type": "application/merge-patch+json"})
    assert status == 200 and approved["metadata"]["labels"] == {"a": "b", "approved-by": "test"}
    assert approved["spec"] == created["spec"]
    assert [(c["type"], c["reason"]) for c in approved["status"]["conditions"]] == [("Approved", "Checked")]
