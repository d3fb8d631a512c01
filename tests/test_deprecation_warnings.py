"""Deprecated kinds answer every request with upstream's Warning header, and kubectl prints it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from accounts import add_token
from support import ServerProcess, run_kubectl

ENDPOINTS_WARNING = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"'


def warnings_of(server: ServerProcess, method: str, path: str, body: object = None) -> tuple[int, list[str]]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.url + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {server.token}")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, context=server.ssl_context(), timeout=30) as resp:
            return resp.status, resp.headers.get_all("Warning") or []
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get_all("Warning") or []


def endpoints(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name},
            "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}]}]}


def test_every_endpoints_verb_carries_the_deprecation_warning(shared_server: ServerProcess) -> None:
    base = "/api/v1/namespaces/default/endpoints"
    assert warnings_of(shared_server, "POST", base, endpoints("web")) == (201, [ENDPOINTS_WARNING])
    assert warnings_of(shared_server, "GET", base + "/web") == (200, [ENDPOINTS_WARNING])
    assert warnings_of(shared_server, "GET", base) == (200, [ENDPOINTS_WARNING])
    assert warnings_of(shared_server, "GET", "/api/v1/endpoints") == (200, [ENDPOINTS_WARNING])
    assert warnings_of(shared_server, "PUT", base + "/web", endpoints("web")) == (200, [ENDPOINTS_WARNING])
    # Refusals carry it too: upstream records the warning before the handler runs.
    assert warnings_of(shared_server, "GET", base + "/missing") == (404, [ENDPOINTS_WARNING])
    assert warnings_of(shared_server, "POST", base, endpoints("web")) == (409, [ENDPOINTS_WARNING])
    assert warnings_of(shared_server, "DELETE", base + "/web") == (200, [ENDPOINTS_WARNING])


def test_a_watch_of_endpoints_carries_the_warning(shared_server: ServerProcess) -> None:
    req = urllib.request.Request(shared_server.url + "/api/v1/namespaces/default/endpoints?watch=1&timeoutSeconds=1")
    req.add_header("Authorization", f"Bearer {shared_server.token}")
    with urllib.request.urlopen(req, context=shared_server.ssl_context(), timeout=30) as resp:
        assert resp.headers.get_all("Warning") == [ENDPOINTS_WARNING]
        resp.read()


def test_kinds_that_are_not_deprecated_carry_no_warning(shared_server: ServerProcess) -> None:
    assert warnings_of(shared_server, "GET", "/api/v1/namespaces/default/configmaps") == (200, [])
    assert warnings_of(shared_server, "GET", "/apis/discovery.k8s.io/v1/endpointslices") == (200, [])


def test_kubectl_prints_the_warning(shared_server: ServerProcess) -> None:
    created = run_kubectl(shared_server, "create", "-f", "-", stdin=json.dumps(endpoints("printed")))
    assert ("Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"
            in created.stderr.splitlines())
    listed = run_kubectl(shared_server, "get", "endpoints", "printed")
    assert listed.stderr.splitlines() == [
        "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"]
    assert listed.stdout.splitlines()[0].split() == ["NAME", "ENDPOINTS", "AGE"]


def test_component_status_has_upstreams_text_without_a_replacement() -> None:
    from apiserver.kinds.deprecation import warning_header, warning_text
    from apiserver.kinds.resources import ResourceType

    rt = ResourceType("", "v1", "ComponentStatus", "componentstatuses", "componentstatus", False)
    assert warning_text(rt) == "v1 ComponentStatus is deprecated in v1.19+"
    assert warning_header(warning_text(rt) or "") == '299 - "v1 ComponentStatus is deprecated in v1.19+"'


def test_what_upstream_refuses_before_the_handler_carries_no_warning(shared_server: ServerProcess) -> None:
    _, token = add_token(shared_server, "reader", "view")
    req = urllib.request.Request(shared_server.url + "/api/v1/namespaces/default/endpoints",
                                 data=json.dumps(endpoints("refused")).encode(), method="POST")
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("Content-Type", "application/json")
    with pytest.raises(urllib.error.HTTPError) as forbidden:
        urllib.request.urlopen(req, context=shared_server.ssl_context(), timeout=30)
    assert forbidden.value.code == 403 and forbidden.value.headers.get_all("Warning") is None
    req = urllib.request.Request(shared_server.url + "/api/v1/namespaces/default/endpoints")
    req.add_header("Authorization", "Bearer not-a-token")
    with pytest.raises(urllib.error.HTTPError) as unauthorized:
        urllib.request.urlopen(req, context=shared_server.ssl_context(), timeout=30)
    assert unauthorized.value.code == 401 and unauthorized.value.headers.get_all("Warning") is None


def _crd(name: str, versions: list[dict]) -> dict:
    plural = name.split(".")[0]
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": name},
            "spec": {"group": "deprecating.example.com", "scope": "Namespaced",
                     "names": {"plural": plural, "kind": plural.capitalize()[:-1]},
                     "versions": [{"served": True, "storage": False, **v, "schema": {"openAPIV3Schema": {
                         "type": "object", "x-kubernetes-preserve-unknown-fields": True}}} for v in versions]}}


def test_a_deprecated_crd_version_warns_with_upstreams_default_text(shared_server: ServerProcess) -> None:
    crd = _crd("gadgets.deprecating.example.com", [
        {"name": "v1", "storage": True}, {"name": "v1beta1", "deprecated": True},
        {"name": "v2alpha1"}, {"name": "v1alpha1", "deprecated": True, "served": False}])
    run_kubectl(shared_server, "create", "-f", "-", stdin=json.dumps(crd))
    path = "/apis/deprecating.example.com/v1beta1/namespaces/default/gadgets"
    wait = run_kubectl(shared_server, "wait", "--for=condition=Established", "crd/gadgets.deprecating.example.com")
    assert wait.returncode == 0
    out = run_kubectl(shared_server, "get", "gadgets.v1beta1.deprecating.example.com")
    assert "Warning: deprecating.example.com/v1beta1 Gadget is deprecated; use deprecating.example.com/v1 Gadget" \
        in out.stderr
    refused = run_kubectl(shared_server, "get", "gadgets.v1beta1.deprecating.example.com", "--warnings-as-errors",
                          check=False)
    assert refused.returncode == 1 and "1 warning received" in refused.stderr
    assert warnings_of(shared_server, "GET", path + "/absent") == (
        404, ['299 - "deprecating.example.com/v1beta1 Gadget is deprecated; use deprecating.example.com/v1 Gadget"'])
    assert warnings_of(shared_server, "GET", "/apis/deprecating.example.com/v1/namespaces/default/gadgets") == (200, [])


def test_a_crd_version_with_its_own_deprecation_warning(shared_server: ServerProcess) -> None:
    crd = _crd("widgets.deprecating.example.com", [
        {"name": "v1beta1", "storage": True, "deprecated": True, "deprecationWarning": 'widgets "v1beta1" go away'}])
    run_kubectl(shared_server, "create", "-f", "-", stdin=json.dumps(crd))
    run_kubectl(shared_server, "wait", "--for=condition=Established", "crd/widgets.deprecating.example.com")
    status, warnings = warnings_of(shared_server, "GET",
                                   "/apis/deprecating.example.com/v1beta1/namespaces/default/widgets")
    assert (status, warnings) == (200, ['299 - "widgets \\"v1beta1\\" go away"'])
