"""The OpenAPI documents kubectl downloads before an apply: /openapi/v3 and /openapi/v2."""

from __future__ import annotations

import json
import urllib.request

from support import FIXTURES, ServerProcess, run_kubectl, versioned_kubectl


def test_v3_index_names_a_document_per_group_version_by_hash(shared_server: ServerProcess) -> None:
    status, index = shared_server.json("GET", "/openapi/v3")
    assert status == 200
    assert {"api/v1", "apis/apps/v1", "apis/batch/v1", "apis/networking.k8s.io/v1"} <= set(index["paths"])
    url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
    assert url.startswith("/openapi/v3/apis/apps/v1?hash=")
    status, doc = shared_server.json("GET", url)
    assert status == 200
    schemas = doc["components"]["schemas"]
    containers = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["items"] == {"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert "fieldValidation" in [p["name"] for p in patch["parameters"]]


def test_unknown_group_version_document_is_404(shared_server: ServerProcess) -> None:
    assert shared_server.request("GET", "/openapi/v3/apis/nope.example.com/v1")[0] == 404


def test_v2_is_json_or_protobuf_by_accept(shared_server: ServerProcess) -> None:
    status, doc = shared_server.json("GET", "/openapi/v2")
    assert status == 200
    assert doc["swagger"] == "2.0"
    assert "io.k8s.api.apps.v1.Deployment" in doc["definitions"]
    status, raw = shared_server.request(
        "GET", "/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
    assert status == 200
    assert raw.startswith(b"\n\x032.0") and b"io.k8s.api.apps.v1.Deployment" in raw


def test_kubectl_apply_with_default_validation_leaves_it_to_the_server(shared_server: ServerProcess) -> None:
    for version in ("1.27", "1.33"):
        binary = versioned_kubectl(version)
        manifest = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "openapi-" + version.replace(".", "-"), "namespace": "default"}})
        out = run_kubectl(shared_server, "apply", "-f", "-", "-v=6", binary=binary, stdin=manifest)
        assert "/openapi/v3/api/v1?hash=" in out.stderr
        assert "fieldValidation=Strict" in out.stderr


_BAD_DEPLOYMENT = (b'{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME"},'
                   b'"spec":{"replicas":1,"replicas":2,"selector":{"matchLabels":{"app":"x"}},"template":{'
                   b'"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"a","image":"a",'
                   b'"ports":[{"containerPort":80,"containerPortZ":81}]}]}},"paused2":true}}')


def test_strict_refuses_unknown_and_duplicate_fields(shared_server: ServerProcess) -> None:
    status, body = shared_server.json("POST", "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict",
                                      _BAD_DEPLOYMENT.replace(b"NAME", b"strict"))
    assert status == 400
    assert body["reason"] == "BadRequest"
    assert body["message"] == (  # kube-apiserver 1.36.2's answer to this body (checked)
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
        'duplicate field "spec.replicas", '
        'unknown field "spec.template.spec.containers[0].ports[0].containerPortZ", unknown field "spec.paused2"')


def test_warn_creates_and_says_why_in_a_warning_header(shared_server: ServerProcess) -> None:
    for query in ("?fieldValidation=Warn", ""):
        name = b"warn" + query[-4:].lower().encode()
        req = urllib.request.Request(shared_server.url + "/apis/apps/v1/namespaces/default/deployments" + query,
                                     data=_BAD_DEPLOYMENT.replace(b"NAME", name), method="POST",
                                     headers={"Authorization": f"Bearer {shared_server.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=shared_server.ssl_context()) as resp:
            assert resp.status == 201
            # one Warning header each, duplicates first, as kube-apiserver 1.36.2 sends them (checked)
            assert resp.headers.get_all("Warning") == [
                '299 - "duplicate field \\"spec.replicas\\""',
                '299 - "unknown field \\"spec.template.spec.containers[0].ports[0].containerPortZ\\""',
                '299 - "unknown field \\"spec.paused2\\""']


def test_kubectl_apply_shows_the_servers_verdict(shared_server: ServerProcess) -> None:
    manifest = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "typo"},
                           "data": {"a": "b"}, "dataa": {"c": "d"}})
    refused = run_kubectl(shared_server, "-n", "default", "apply", "-f", "-", stdin=manifest, check=False)
    assert refused.returncode == 1
    assert ('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
            'unknown field "dataa"') in refused.stderr
    warned = run_kubectl(shared_server, "-n", "default", "apply", "--validate=warn", "-f", "-", stdin=manifest)
    assert 'Warning: unknown field "dataa"' in warned.stderr
    assert "configmap/typo created" in warned.stdout


def test_kubectl_explain_reads_the_served_schemas(shared_server: ServerProcess) -> None:
    out = run_kubectl(shared_server, "explain", "deployment.spec.strategy").stdout
    assert "FIELD: strategy <DeploymentStrategy>" in out
    assert "The deployment strategy to use to replace existing pods with new ones." in out
    assert "rollingUpdate\t<RollingUpdateDeployment>" in out


def test_an_unknown_validation_directive_is_an_invalid_create_option(shared_server: ServerProcess) -> None:
    # As kube-apiserver 1.36.2 answers (tests/fixtures/request_options.json: ValidateCreateOptions).
    status, body = shared_server.json("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Loud",
                                      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "loud"}})
    assert (status, body["reason"]) == (422, "Invalid")
    assert body["message"] == ('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": '
                               'supported values: "", "Ignore", "Strict", "Warn"')


def test_a_value_of_the_wrong_type_is_refused_whatever_the_directive(shared_server: ServerProcess) -> None:
    # YAML 1.1, which kubectl reads manifests with, takes a bare y for true.
    manifest = ("apiVersion: v1\nkind: Pod\nmetadata: {name: yes-pod, namespace: default}\n"
                "spec: {containers: [{name: c, image: c, args: [y]}]}\n")
    for validate in ("--validate=true", "--validate=false"):
        out = run_kubectl(shared_server, "apply", validate, "-f", "-", stdin=manifest, check=False)
        assert out.returncode == 1
        assert ('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field '
                "Container.spec.containers.args of type string") in out.stderr


def test_a_custom_objects_unknown_fields_are_what_its_schema_prunes(shared_server: ServerProcess) -> None:
    run_kubectl(shared_server, "apply", "-f", f"{FIXTURES}/00-namespaces.yaml")
    run_kubectl(shared_server, "apply", "-f", f"{FIXTURES}/01-crds.yaml")
    run_kubectl(shared_server, "wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s")
    manifest = ("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w-typo, namespace: golden}\n"
                "spec: {size: small, colour: red}\n")
    refused = run_kubectl(shared_server, "apply", "-f", "-", stdin=manifest, check=False)
    assert refused.returncode == 1
    assert ('Widget in version "v1" cannot be handled as a Widget: strict decoding error: '
            'unknown field "spec.colour"') in refused.stderr
    warned = run_kubectl(shared_server, "apply", "--validate=warn", "-f", "-", stdin=manifest)
    assert 'Warning: unknown field "spec.colour"' in warned.stderr
    status, stored = shared_server.json("GET", "/apis/example.com/v1/namespaces/golden/widgets/w-typo")
    assert status == 200 and "colour" not in stored["spec"]


def test_custom_resources_get_a_document_while_their_crd_is_served(shared_server: ServerProcess) -> None:
    run_kubectl(shared_server, "apply", "-f", f"{FIXTURES}/01-crds.yaml")
    run_kubectl(shared_server, "wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s")
    status, index = shared_server.json("GET", "/openapi/v3")
    assert status == 200
    status, doc = shared_server.json("GET", index["paths"]["apis/example.com/v1"]["serverRelativeURL"])
    assert status == 200
    widget = doc["components"]["schemas"]["com.example.v1.Widget"]
    assert widget["x-kubernetes-group-version-kind"] == [{"group": "example.com", "version": "v1", "kind": "Widget"}]
    assert "replicas" in widget["properties"]["spec"]["properties"]
    out = run_kubectl(shared_server, "explain", "widgets.spec").stdout
    assert "KIND:       Widget" in out and "replicas\t<integer>" in out
    run_kubectl(shared_server, "delete", "crd", "gadgets.example.com")
    assert "apis/example.com/v1" in shared_server.json("GET", "/openapi/v3")[1]["paths"]


def test_v2_parameters_carry_upstreams_descriptions(shared_server: ServerProcess) -> None:
    """kubectl's test/cmd greps them; the table is read off kube-apiserver 1.36.2 (tools/openapi_parameters.py)."""
    status, doc = shared_server.json("GET", "/openapi/v2")
    assert status == 200
    listing = doc["paths"]["/api/v1/namespaces/{namespace}/services"]
    described = {p["name"]: p["description"] for p in listing["get"]["parameters"]}
    assert described["labelSelector"] == ("A selector to restrict the list of returned objects by their labels. "
                                          "Defaults to everything.")
    assert described["watch"].startswith("Watch for changes to the described resources")
    assert [p["name"] for p in listing["parameters"]] == ["pretty"]
    assert {p["name"] for p in listing["delete"]["parameters"]} >= {"propagationPolicy", "dryRun", "labelSelector"}
    assert doc["definitions"]["io.k8s.api.core.v1.ServiceList"]["properties"]["items"]["description"] == \
        "List of services"
    patch = doc["paths"]["/api/v1/namespaces/{namespace}/services/{name}"]["patch"]
    assert [p["name"] for p in patch["parameters"]] == ["dryRun", "fieldManager", "fieldValidation", "force"]
