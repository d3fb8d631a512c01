"""Protobuf request bodies: the decoder on bytes kubectl sent, and kubectl's imperative commands end to end."""

from __future__ import annotations

import base64
import itertools
import json
import os
from typing import Any

import pytest
import yaml
from google.protobuf import json_format
from support import ServerProcess, kubectl_path, run_kubectl, versioned_kubectl

from apiserver.errors import ApiError
from apiserver.wire import protobuf

# Once, on the embedded store: decoding request bodies happens before the store.
pytestmark = pytest.mark.store_once

PROTOBUF = "application/vnd.kubernetes.protobuf"

# Request bodies logged by kubectl 1.32 at -v=9, and the JSON bodies it sends for the same objects
# (--dry-run=client -o json).
CAPTURED = [
    ("kubectl create configmap foo --from-literal=a=b",
     ("6b3873000a0f0a0276311209436f6e6669674d6170121d0a130a03666f6f12001a0022002a0032003800420012060a0161120162"
      "1a002200"),
     {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "foo", "creationTimestamp": None},
      "data": {"a": "b"}}),
    ("kubectl create secret generic sx --from-literal=k=v --from-file=bin=<00 ff 'bin'> --type=Opaque",
     ("6b3873000a0c0a027631120653656372657412320a120a02737812001a0022002a00320038004200120c0a0362696e120500ff6269"
      "6e12060a016b1201761a064f70617175651a002200"),
     {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sx", "creationTimestamp": None},
      "data": {"bin": "AP9iaW4=", "k": "dg=="}, "type": "Opaque"}),
    ("kubectl create deployment dx --image=nginx:1.27 --replicas=0 --port=8080",
     ("6b3873000a150a07617070732f7631120a4465706c6f796d656e7412ba010a1d0a02647812001a0022002a003200380042005a090a"
      "0361707012026478128a010800120b0a090a03617070120264781a710a1b0a0012001a0022002a003200380042005a090a03617070"
      "12026478125212340a056e67696e78120a6e67696e783a312e32372a00320b0a00100018903f22002a0042006a0072008001008801"
      "00900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c080010001800200028"
      "0038001a002200"),
     {"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "dx", "creationTimestamp": None, "labels": {"app": "dx"}},
      "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "dx"}},
               "template": {"metadata": {"creationTimestamp": None, "labels": {"app": "dx"}},
                            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                                                     "ports": [{"containerPort": 8080}], "resources": {}}]}},
               "strategy": {}},
      "status": {}}),
    ("kubectl create service clusterip sx2 --tcp=443:https",
     ("6b3873000a0d0a02763112075365727669636512700a1f0a0373783212001a0022002a003200380042005a0a0a0361707012037378"
      "3212490a220a093434332d6874747073120354435018bb03220b080110001a0568747470732800120a0a0361707012037378321a0022"
      "09436c757374657249503a00420052005a00600068001a020a001a002200"),
     {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "sx2", "creationTimestamp": None,
                                                          "labels": {"app": "sx2"}},
      "spec": {"ports": [{"name": "443-https", "protocol": "TCP", "port": 443, "targetPort": "https"}],
               "selector": {"app": "sx2"}, "type": "ClusterIP"},
      "status": {"loadBalancer": {}}}),
]


@pytest.mark.parametrize("command,body,expected", CAPTURED, ids=[c[0].split()[2] for c in CAPTURED])
def test_kubectl_bodies_decode_to_what_kubectl_sends_as_json(command: str, body: str, expected: dict) -> None:
    assert protobuf.decode_protobuf(bytes.fromhex(body)) == expected


def wrap(api_version: str, kind: str, inner: bytes, content_encoding: str = "") -> bytes:
    """An encoded object framed as client-go frames it."""
    envelope: Any = json_format.ParseDict({"typeMeta": {"apiVersion": api_version, "kind": kind},
                                           "contentEncoding": content_encoding}, protobuf.ENVELOPE())
    envelope.raw = inner
    return protobuf.MAGIC + envelope.SerializeToString()


def encode(api_version: str, kind: str, obj: dict[str, Any], content_encoding: str = "") -> bytes:
    """A body as client-go sends it, the object given in the proto's own field names."""
    inner = json_format.ParseDict(obj, protobuf.message_class(api_version, kind)())
    return wrap(api_version, kind, inner.SerializeToString(), content_encoding)


def test_special_types_render_as_in_json() -> None:
    pod = {
        "metadata": {"name": "p", "creationTimestamp": {"seconds": 1700000000},
                     "managedFields": [{"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1",
                                        "time": {"seconds": 1700000001},
                                        "fieldsV1": {"Raw": "eyJmOnNwZWMiOnt9fQ=="}}]},
        "spec": {
            "terminationGracePeriodSeconds": 0,
            "volumes": [{"name": "cfg", "volumeSource": {"configMap": {
                "localObjectReference": {"name": "settings"}, "defaultMode": 420, "optional": False}}}],
            "containers": [{
                "name": "app", "image": "nginx", "workingDir": "",
                "ports": [{"containerPort": 80, "hostPort": 0}],
                "resources": {"limits": {"cpu": {"string": "200m"}, "memory": {"string": "1Gi"}}},
                "livenessProbe": {"handler": {"httpGet": {"path": "/", "port": {"type": 1, "strVal": "http"}}},
                                  "periodSeconds": 10},
                "readinessProbe": {"handler": {"tcpSocket": {"port": {"type": 0, "intVal": 8080}}}},
            }],
        },
    }
    assert protobuf.decode_protobuf(encode("v1", "Pod", pod)) == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "creationTimestamp": "2023-11-14T22:13:20Z",
                     "managedFields": [{"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1",
                                        "time": "2023-11-14T22:13:21Z", "fieldsV1": {"f:spec": {}}}]},
        "spec": {
            "terminationGracePeriodSeconds": 0,
            "volumes": [{"name": "cfg", "configMap": {"name": "settings", "defaultMode": 420, "optional": False}}],
            "containers": [{
                "name": "app", "image": "nginx",
                "ports": [{"containerPort": 80}],
                "resources": {"limits": {"cpu": "200m", "memory": "1Gi"}},
                "livenessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 10},
                "readinessProbe": {"tcpSocket": {"port": 8080}},
            }],
        },
    }


def test_micro_time_and_pointer_zeros() -> None:
    lease = {"metadata": {"name": "l"},
             "spec": {"holderIdentity": "", "leaseTransitions": 0,
                      "renewTime": {"seconds": 1700000000, "nanos": 123456789}}}
    assert protobuf.decode_protobuf(encode("coordination.k8s.io/v1", "Lease", lease)) == {
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"},
        "spec": {"holderIdentity": "", "leaseTransitions": 0, "renewTime": "2023-11-14T22:13:20.123456Z"}}


def test_delete_options_decode_in_any_group_version() -> None:
    options = {"gracePeriodSeconds": 0, "propagationPolicy": "Foreground", "preconditions": {"uid": "u-1"}}
    assert protobuf.decode_protobuf(encode("apps/v1", "DeleteOptions", options)) == {
        "apiVersion": "apps/v1", "kind": "DeleteOptions", **options}


@pytest.mark.parametrize("body,message", [
    (b'{"kind": "ConfigMap"}', "does not start with the Kubernetes prefix"),
    (protobuf.MAGIC + b"\x0a\xff\xff", "could not be decoded"),
    (bytes.fromhex(CAPTURED[0][1])[:-12], "could not be decoded"),
    (encode("v1", "ConfigMap", {}, content_encoding="gzip"), 'unsupported protobuf content encoding "gzip"'),
    (encode("v1", "ConfigMap", {})[:8] + b"\x07", "could not be decoded"),
    (wrap("v1", "ConfigMap", b"\x0a\x03\x0a\x01\xff"), "has a name that is not UTF-8"),
    (encode("v1", "Pod", {"metadata": {"managedFields": [{"fieldsV1": {"Raw": "e30s"}}]}}), "could not be decoded"),
])
def test_malformed_bodies_are_bad_requests(body: bytes, message: str) -> None:
    with pytest.raises(ApiError) as caught:
        protobuf.decode_protobuf(body)
    assert caught.value.code == 400
    assert message in caught.value.message


def test_kinds_without_a_schema_are_bad_requests() -> None:
    with pytest.raises(ApiError) as caught:
        protobuf.message_class("example.com/v1", "Widget")
    assert (caught.value.code, caught.value.message) == (
        400, 'no kind "Widget" is registered for version "example.com/v1" in protobuf request bodies')


# -- kubectl end to end ---------------------------------------------------------------------------------


def kubectl_binaries() -> list[str]:
    """kubectl sends protobuf from 1.32 on: the default one (1.32) and 1.33."""
    return ["default", "1.33"]


# (name, command after `create`, API path of the collection)
COMMANDS = [
    ("cm", ["configmap", "cm", "--from-literal=a=b", "--from-file=bin={binary}"], "api/v1/{ns}configmaps"),
    ("generic", ["secret", "generic", "generic", "--from-literal=k=v", "--from-file=bin={binary}"],
      "api/v1/{ns}secrets"),
    ("tls", ["secret", "tls", "tls", "--cert={cert}", "--key={key}"], "api/v1/{ns}secrets"),
    ("registry", ["secret", "docker-registry", "registry", "--docker-server=r.example", "--docker-username=u",
                  "--docker-password=p"], "api/v1/{ns}secrets"),
    ("deploy", ["deployment", "deploy", "--image=nginx:1.27", "--replicas=0", "--port=80", "--", "nginx", "-g"],
      "apis/apps/v1/{ns}deployments"),
    ("clusterip", ["service", "clusterip", "clusterip", "--tcp=443:https", "--tcp=80:8080"],
      "api/v1/{ns}services"),
    ("nodeport", ["service", "nodeport", "nodeport", "--tcp=80:8080", "--node-port={node_port}"],
      "api/v1/{ns}services"),
    ("external", ["service", "externalname", "external", "--external-name=db.example"], "api/v1/{ns}services"),
    ("sa", ["serviceaccount", "sa"], "api/v1/{ns}serviceaccounts"),
    ("ing", ["ingress", "ing", "--class=nginx", "--rule=foo.example/bar*=svc:80,tls=cert",
             "--default-backend=svc:http", "--annotation=a=b"], "apis/networking.k8s.io/v1/{ns}ingresses"),
    ("job", ["job", "job", "--image=busybox", "--", "echo", "hi"], "apis/batch/v1/{ns}jobs"),
    ("cron", ["cronjob", "cron", "--image=busybox", "--schedule=*/5 * * * *", "--restart=Never", "--", "date"],
      "apis/batch/v1/{ns}cronjobs"),
    ("namespace", ["namespace", "{ns_name}"], "api/v1/namespaces"),
]

SERVER_SET = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "namespace", "name", "generation")


_NODE_PORTS = itertools.count(30080)


def comparable(obj: dict[str, Any]) -> dict[str, Any]:
    # What the server allocates or derives from the uid (a Job's selector) differs between two creates.
    obj = json.loads(json.dumps(obj).replace(obj["metadata"]["uid"], "<uid>"))
    meta = {k: v for k, v in obj["metadata"].items() if k not in SERVER_SET}
    meta["labels"] = {k: v for k, v in meta.get("labels", {}).items() if k != "kubernetes.io/metadata.name"}
    spec = obj.get("spec")
    if obj["kind"] == "Service" and isinstance(spec, dict):
        spec.pop("clusterIP", None)
        spec.pop("clusterIPs", None)
        for port in spec.get("ports") or ():
            port.pop("nodePort", None)
    return {**obj, "metadata": meta}


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory, shared_server: ServerProcess) -> dict[str, str]:
    binary = tmp_path_factory.mktemp("files") / "bin.dat"
    binary.write_bytes(b"\x00\xffbinary")
    pki = os.path.join(shared_server.data_dir, "pki")
    return {"binary": str(binary), "cert": os.path.join(pki, "ca.crt"), "key": os.path.join(pki, "ca.key")}


@pytest.mark.parametrize("version", kubectl_binaries())
@pytest.mark.parametrize("name,args,collection", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_imperative_create_stores_what_yaml_would(shared_server: ServerProcess, tls_files: dict[str, str],
                                                   version: str, name: str, args: list[str], collection: str) -> None:
    binary = kubectl_path() if version == "default" else versioned_kubectl(version)
    found = {}
    for way in ("pb", "yaml"):
        ns = f"{way}-{version.replace('.', '-')}"
        shared_server.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                           "metadata": {"name": ns}})
        # A node port can be held by one service only, so each create asks for its own.
        filled = [a.format(ns_name=f"{ns}-{name}", node_port=next(_NODE_PORTS), **tls_files) for a in args]
        if way == "pb":
            sent = run_kubectl(shared_server, "-v=8", "-n", ns, "create", "-o", "json", *filled, binary=binary)
            assert f"Content-Type: {PROTOBUF}" in sent.stderr
            # kubectl accepts protobuf or JSON back and decodes the JSON the server answers with.
            answered = json.loads(sent.stdout)
        else:
            manifest = run_kubectl(shared_server, "-n", ns, "create", "--dry-run=client", "-o", "yaml", *filled,
                                   binary=binary).stdout
            assert yaml.safe_load(manifest)["kind"]
            run_kubectl(shared_server, "-n", ns, "create", "--validate=false", "-f", "-", stdin=manifest,
                        binary=binary)
        obj_name = filled[2] if args[0] in ("secret", "service") else filled[1]
        path = "/" + collection.format(ns="" if args[0] == "namespace" else f"namespaces/{ns}/") + "/" + obj_name
        status, found[way] = shared_server.json("GET", path)
        assert status == 200, found[way]
    assert answered["metadata"]["uid"] == found["pb"]["metadata"]["uid"]
    assert comparable(found["pb"]) == comparable(found["yaml"])


# -- other verbs over HTTP --------------------------------------------------------------------------------


def deployment(server: ServerProcess, name: str) -> dict[str, Any]:
    status, created = server.json("POST", "/apis/apps/v1/namespaces/default/deployments", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    assert status == 201, created
    return created


def test_update_and_scale_take_protobuf_bodies(shared_server: ServerProcess) -> None:
    current = deployment(shared_server, "pb-put")
    path = "/apis/apps/v1/namespaces/default/deployments/pb-put"
    replaced = {"metadata": {"name": "pb-put", "resourceVersion": current["metadata"]["resourceVersion"]},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "pb-put"}},
                         "template": {"metadata": {"labels": {"app": "pb-put"}},
                                      "spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}}}
    status, raw = shared_server.request("PUT", path, encode("apps/v1", "Deployment", replaced), content_type=PROTOBUF)
    assert status == 200, raw
    status, scale = shared_server.request("PUT", path + "/scale",
                                          encode("autoscaling/v1", "Scale", {"metadata": {"name": "pb-put"},
                                                                             "spec": {"replicas": 5}}),
                                          content_type=PROTOBUF)
    assert status == 200, scale
    stored = shared_server.json("GET", path)[1]
    assert stored["spec"]["replicas"] == 5
    assert stored["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"


def test_delete_takes_protobuf_delete_options(shared_server: ServerProcess) -> None:
    deployment(shared_server, "pb-delete")
    path = "/apis/apps/v1/namespaces/default/deployments/pb-delete"
    stale = encode("apps/v1", "DeleteOptions", {"preconditions": {"uid": "not-the-uid"}})
    status, body = shared_server.json("DELETE", path, stale, content_type=PROTOBUF)
    assert (status, body["reason"]) == (409, "Conflict")
    # rest.BeforeDelete's words, as kube-apiserver 1.36.2 answers (tests/fixtures/request_options.json)
    assert "the UID in the precondition (not-the-uid) does not match the UID in record" in body["message"]
    now = encode("apps/v1", "DeleteOptions", {"gracePeriodSeconds": 0, "propagationPolicy": "Background"})
    assert shared_server.request("DELETE", path, now, content_type=PROTOBUF)[0] == 200
    assert shared_server.request("GET", path)[0] == 404


@pytest.mark.parametrize("body,message", [
    (b"\x0a\x02v1", "the protobuf body does not start with the Kubernetes prefix"),
    (protobuf.MAGIC + b"\x12\x7f", "the protobuf body could not be decoded"),
    # kube-apiserver 1.36.2's words for it (checked): the Secret decodes, then cannot convert
    (encode("v1", "Secret", {"metadata": {"name": "s"}}),
     'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): '
     "unknown conversion"),
])
def test_malformed_protobuf_bodies_are_400(shared_server: ServerProcess, body: bytes, message: str) -> None:
    status, answer = shared_server.json("POST", "/api/v1/namespaces/default/configmaps", body,
                                        content_type=PROTOBUF)
    assert (status, answer["reason"]) == (400, "BadRequest")
    assert message in answer["message"]


def raw(value: Any) -> dict[str, str]:
    """An apiextensions JSON message in ParseDict's form: its raw bytes, base64."""
    return {"raw": base64.b64encode(json.dumps(value).encode()).decode()}


CRD_PROTO = {
    "metadata": {"name": "widgets.pb.example.com"},
    "spec": {
        "group": "pb.example.com", "scope": "Namespaced", "preserveUnknownFields": False,
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList",
                  "shortNames": ["wd"]},
        "versions": [{
            "name": "v1", "served": True, "storage": True, "deprecated": False,
            "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.size",
                                                     "statusReplicasPath": ".status.size"}},
            "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
            "selectableFields": [{"jsonPath": ".spec.color"}],
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {
                        "type": "object", "required": ["size"],
                        # optionalOldSelf is refused on a rule that does not use oldSelf, even false.
                        "xKubernetesValidations": [{"rule": "self.size == oldSelf.size || self.size >= 0",
                                                    "messageExpression": "'bad size'", "optionalOldSelf": False}],
                        "properties": {
                            "size": {"type": "integer", "minimum": 0, "maximum": 10, "default": raw(3)},
                            "color": {"type": "string", "enum": [raw("red"), raw("blue")]},
                            "tags": {"type": "array", "items": {"schema": {"type": "string"}},
                                     "xKubernetesListType": "set"},
                            "labels": {"type": "object", "additionalProperties": {"schema": {"type": "string"}}},
                            "extra": {"type": "object", "xKubernetesPreserveUnknownFields": True},
                            "port": {"xKubernetesIntOrString": True,
                                     "anyOf": [{"type": "integer"}, {"type": "string"}]},
                        },
                    },
                    "status": {"type": "object", "additionalProperties": {"allows": False}},
                },
            }},
        }],
    },
}

CRD_JSON = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.pb.example.com"},
    "spec": {
        "group": "pb.example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList",
                  "shortNames": ["wd"]},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.size",
                                                     "statusReplicasPath": ".status.size"}},
            "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
            "selectableFields": [{"jsonPath": ".spec.color"}],
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {
                        "type": "object", "required": ["size"],
                        "x-kubernetes-validations": [{"rule": "self.size == oldSelf.size || self.size >= 0",
                                                      "messageExpression": "'bad size'", "optionalOldSelf": False}],
                        "properties": {
                            "size": {"type": "integer", "minimum": 0, "maximum": 10, "default": 3},
                            "color": {"type": "string", "enum": ["red", "blue"]},
                            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                            "port": {"x-kubernetes-int-or-string": True,
                                     "anyOf": [{"type": "integer"}, {"type": "string"}]},
                        },
                    },
                    "status": {"type": "object", "additionalProperties": False},
                },
            }},
        }],
    },
}


def test_crd_schemas_render_as_in_json() -> None:
    body = encode("apiextensions.k8s.io/v1", "CustomResourceDefinition", CRD_PROTO)
    decoded = protobuf.decode_protobuf(body)
    assert decoded == CRD_JSON
    size = decoded["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]
    assert json.dumps([size["minimum"], size["maximum"]]) == "[0, 10]"  # whole doubles as Go writes them


def test_a_protobuf_crd_is_stored_as_its_json_twin(shared_server: ServerProcess) -> None:
    body = encode("apiextensions.k8s.io/v1", "CustomResourceDefinition", CRD_PROTO)
    status, created = shared_server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body,
                                         content_type=PROTOBUF)
    assert status == 201, created
    twin = json.loads(json.dumps(CRD_JSON).replace("pb.example.com", "json.example.com"))
    status, stored = shared_server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", twin)
    assert status == 201, stored
    assert json.loads(json.dumps(created["spec"]).replace("pb.example.com", "json.example.com")) == stored["spec"]
