"""A sweep of CRD `x-kubernetes-validations` through raw API requests: CRDs in the image of Gateway API's
HTTPRoute, cert-manager's Certificate, cluster-api's Cluster, Karpenter's NodePool and a Crossplane
composite resource (written for these tests), CRDs whose rules kube-apiserver refuses when they are
written, and custom resources created, patched, applied and dry-run against the rules.

Each step is replayed by tests/admission_replay.py; `answers` puts what the reference's Go maps leave
in random order (the causes of an invalid object, and the same errors in its message) in one order.
tools/capture_cel_crd_sweep.py records kube-apiserver 1.36.2's answers as tests/fixtures/cel_crd_sweep.json;
tests/test_cel_crd_sweep.py replays the steps against ours and compares.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

from admission_replay import call, run_step
from cel_crd_sweep_crds import BROKEN, CRDS, NAMESPACE

FIXTURE = Path(__file__).parent / "fixtures" / "cel_crd_sweep.json"
Step = dict[str, Any]
Obj = dict[str, Any]

_CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _served(crd: Obj) -> tuple[str, str, str, bool]:
    spec = crd["spec"]
    return spec["group"], spec["names"]["plural"], spec["names"]["kind"], spec["scope"] == "Namespaced"


def _collection(plural: str) -> str:
    for crd in CRDS:
        group, name, _, namespaced = _served(crd)
        if name == plural:
            return f"/apis/{group}/v1" + (f"/namespaces/{NAMESPACE}" if namespaced else "") + f"/{plural}"
    raise KeyError(plural)


def _kind(plural: str) -> tuple[str, str]:
    for crd in CRDS:
        group, name, kind, _ = _served(crd)
        if name == plural:
            return f"{group}/v1", kind
    raise KeyError(plural)


def setup_steps() -> list[Step]:
    """The namespace and the CRDs that are accepted, each waited for until its objects are served."""
    steps: list[Step] = [{"name": "namespace", "method": "POST", "path": "/api/v1/namespaces",
                          "body": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
                          "keep": ["metadata.name"]}]
    for crd in CRDS:
        steps.append({"name": f"crd {crd['metadata']['name']}", "method": "POST", "path": _CRD_PATH, "body": crd,
                      "keep": ["metadata.name"]})
    return steps


def wait_served(api: Any, setup: list[Obj], seconds: float = 60.0) -> None:
    """Until every CRD that was accepted has its objects served: before, the reference answers a bare
    404 page."""
    deadline = time.monotonic() + seconds
    accepted = {answer["step"] for answer in setup if answer["status"] == 201}
    for crd in CRDS:
        _, plural, kind, _ = _served(crd)
        if f"crd {crd['metadata']['name']}" not in accepted:
            continue
        while True:
            try:
                if call(api, {"method": "GET", "path": _collection(plural), "keep": ["kind"]})["body"].get(
                        "kind") == f"{kind}List":
                    break
            except ValueError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{plural} not served")
            time.sleep(0.5)


def broken_steps() -> list[Step]:
    """CRDs whose rules the reference refuses: each is sent and its refusal recorded."""
    return [{"name": f"refused {name}", "method": "POST", "path": _CRD_PATH, "body": crd, "keep": ["metadata.name"]}
            for name, crd in BROKEN]


def create(step: str, plural: str, name: str, spec: Obj, dry_run: bool = False, **extra: Any) -> Step:
    api_version, kind = _kind(plural)
    body = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, **extra.pop("metadata", {})},
            "spec": spec, **extra}
    return {"name": step, "method": "POST", "path": _collection(plural), "body": body,
            "query": {"dryRun": "All"} if dry_run else {}, "keep": ["spec", "status"]}


def merge(step: str, plural: str, name: str, patch: Obj, subresource: str = "", dry_run: bool = False) -> Step:
    return {"name": step, "method": "PATCH", "path": f"{_collection(plural)}/{name}{subresource}", "body": patch,
            "content_type": "application/merge-patch+json", "query": {"dryRun": "All"} if dry_run else {},
            "keep": ["spec", "status"]}


def json_patch(step: str, plural: str, name: str, ops: list[Obj], subresource: str = "") -> Step:
    return {"name": step, "method": "PATCH", "path": f"{_collection(plural)}/{name}{subresource}", "body": ops,
            "content_type": "application/json-patch+json", "keep": ["spec", "status"]}


def apply(step: str, plural: str, name: str, spec: Obj, manager: str = "sweep") -> Step:
    api_version, kind = _kind(plural)
    body = json.dumps({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": spec})
    return {"name": step, "method": "PATCH", "path": f"{_collection(plural)}/{name}", "body": body,
            "content_type": "application/apply-patch+yaml", "query": {"fieldManager": manager, "force": "true"},
            "keep": ["spec"]}


_CONTRIBUTED = "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"


def _ordered_causes(body: Obj) -> None:
    """Sorts an invalid object's causes, and its message's list of the same errors, into one order.
    Where a CRD's rules over the total budget name four contributors (upstream's most), which four of
    equal cost is Go's map order: those are left out."""
    details = body.get("details")
    causes = details.get("causes") if isinstance(details, dict) else None
    if not isinstance(causes, list) or len(causes) < 2:
        return
    message = str(body.get("message") or "")
    items = [f"{c['field']}: {c['message']}" if c.get("field") else str(c.get("message")) for c in causes]
    start = message.find(": [")
    inner = message[start + 3:-1] if start >= 0 and message.endswith("]") else None
    listed = inner is not None and len(inner) == len(", ".join(items)) and all(item in inner for item in items)
    if sum(c.get("message") == _CONTRIBUTED for c in causes) == 4:
        causes[:] = [c for c in causes if c.get("message") != _CONTRIBUTED]
        items = [item for item in items if not item.endswith(": " + _CONTRIBUTED)]
    causes.sort(key=lambda c: (c.get("field", ""), c.get("message", ""), c.get("reason", "")))
    if listed:
        body["message"] = message[:start + 3] + ", ".join(sorted(items)) + "]"


def answers(recorded: list[Obj]) -> list[Obj]:
    out = copy.deepcopy(recorded)
    for answer in out:
        if isinstance(answer.get("body"), dict):
            _ordered_causes(answer["body"])
    return out


def run(api: Any, steps: list[Step]) -> list[Obj]:
    """Each step's answer, its causes in one order (no step here generates names)."""
    return answers([{"step": step["name"], **run_step(api, step)} for step in steps])


_LISTENER_PARENT = {"name": "edge", "sectionName": "https"}
_ROUTE = {"parentRefs": [_LISTENER_PARENT], "hostnames": ["shop.example.com"],
          "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/cart"}}],
                     "backendRefs": [{"name": "cart", "port": 8080}]}]}


def _route(**rules: Any) -> Obj:
    return {"parentRefs": [_LISTENER_PARENT], "rules": [{"backendRefs": [{"name": "cart", "port": 8080}], **rules}]}


ROUTE_STEPS: list[Step] = [
    create("route good", "httproutes", "shop", _ROUTE),
    create("route defaults fill matches", "httproutes", "defaults", {"rules": [{"backendRefs": [{"name": "a",
                                                                                                 "port": 80}]}]}),
    create("route path type only", "httproutes", "exact-root", _route(matches=[{"path": {"type": "Exact"}}])),
    create("route duplicate parents", "httproutes", "dup-parents", {"parentRefs": [{"name": "edge"}, {"name": "edge"}]}),
    create("route parents differ by section", "httproutes", "sections", {
        "parentRefs": [{"name": "edge", "sectionName": "http"}, {"name": "edge", "sectionName": "https"}]}),
    create("route bad hostnames", "httproutes", "hosts", {"hostnames": ["Shop.example.com", "*.example.com",
                                                                        "*.*.example.com", "a..b"]}),
    create("route duplicate hostnames", "httproutes", "dup-hosts", {"hostnames": ["a.example.com", "a.example.com"]}),
    create("route relative path", "httproutes", "relative", _route(matches=[{"path": {"type": "Exact",
                                                                                      "value": "cart"}}])),
    create("route double slash", "httproutes", "slashes", _route(matches=[{"path": {"value": "/a//b"}}])),
    create("route regex path", "httproutes", "regex", _route(matches=[{"path": {"type": "RegularExpression",
                                                                                "value": "/"}}])),
    create("route bad path type", "httproutes", "bad-type", _route(matches=[{"path": {"type": "Glob",
                                                                                      "value": "/x"}}])),
    create("route backend timeout too long", "httproutes", "timeouts", _route(timeouts={"request": "5s",
                                                                                       "backendRequest": "10s"})),
    create("route unparsable timeout", "httproutes", "bad-timeout", _route(timeouts={"request": "5 seconds",
                                                                                    "backendRequest": "1s"})),
    create("route two rewrites", "httproutes", "rewrites", _route(filters=[
        {"type": "URLRewrite", "urlRewrite": {"hostname": "a"}}, {"type": "URLRewrite"}])),
    create("route redirect without config", "httproutes", "redirect", {"rules": [{"filters": [
        {"type": "RequestRedirect"}, {"type": "URLRewrite", "requestRedirect": {"scheme": "https"}}]}]}),
    create("route redirect with backends", "httproutes", "redirect-backends", _route(filters=[
        {"type": "RequestRedirect", "requestRedirect": {"scheme": "https"}}])),
    create("route zero weights", "httproutes", "weights", {"rules": [{"backendRefs": [
        {"name": "a", "port": 80, "weight": 0}, {"name": "b", "port": 80, "weight": 0}]}]}),
    create("route service without port", "httproutes", "no-port", {"rules": [{"backendRefs": [{"name": "a"},
                                                                                             {"name": "b", "kind": "Bucket", "group": "s3.example.io"}]}]}),
    create("route duplicate header matches", "httproutes", "headers", _route(matches=[{"headers": [
        {"name": "x-env", "value": "a"}, {"name": "x-env", "value": "b"}]}])),
    create("route long name", "httproutes", "a-route-name-that-is-longer-than-forty-characters", _ROUTE),
    create("route dry-run refused", "httproutes", "dry", {"hostnames": ["UPPER.example.com"]}, dry_run=True),
    create("route dry-run accepted", "httproutes", "dry", _ROUTE, dry_run=True),
    merge("route merge bad hostname", "httproutes", "shop", {"spec": {"hostnames": ["shop.example.com", "Bad"]}}),
    merge("route merge good", "httproutes", "shop", {"spec": {"hostnames": ["shop.example.com", "*.shop.example.com"]}}),
    json_patch("route json patch adds duplicate parent", "httproutes", "shop", [
        {"op": "add", "path": "/spec/parentRefs/-", "value": _LISTENER_PARENT}]),
    json_patch("route json patch removes port", "httproutes", "shop", [
        {"op": "remove", "path": "/spec/rules/0/backendRefs/0/port"}]),
    apply("route apply bad timeout", "httproutes", "applied", _route(timeouts={"request": "1s",
                                                                             "backendRequest": "2s"})),
    apply("route apply good", "httproutes", "applied", _route(timeouts={"request": "2s", "backendRequest": "1s"})),
]

_CERT = {"secretName": "shop-tls", "duration": "2160h", "renewBefore": "360h", "issuerRef": {"name": "letsencrypt"},
         "usages": ["digital signature", "key encipherment", "server auth"], "ipAddresses": ["10.0.0.1"],
         "uris": ["spiffe://cluster.local/ns/shop/sa/cart"], "csr": "LS0tLS1CRUdJTg==",
         "privateKey": {"algorithm": "ECDSA", "size": 256}}
_CONDITION_READY = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Issued"}

CERT_STEPS: list[Step] = [
    create("certificate good", "certificates", "shop", _CERT),
    create("certificate durations", "certificates", "short", {**_CERT, "duration": "30m", "renewBefore": "45m"}),
    create("certificate unparsable duration", "certificates", "bad-duration", {**_CERT, "duration": "90 days"}),
    create("certificate validity", "certificates", "validity", {**_CERT, "notBefore": "2026-01-01T00:00:00Z",
                                                               "notAfter": "2028-01-01T00:00:00Z"}),
    create("certificate not after before not before", "certificates", "backwards", {
        **_CERT, "notBefore": "2026-01-01T00:00:00Z", "notAfter": "2025-12-31T23:59:59Z"}),
    create("certificate bad date-time", "certificates", "bad-time", {**_CERT, "notBefore": "yesterday"}),
    create("certificate short csr", "certificates", "short-csr", {**_CERT, "csr": "YWI="}),
    create("certificate csr not base64", "certificates", "bad-csr", {**_CERT, "csr": "not base64!"}),
    create("certificate usages", "certificates", "usages", {**_CERT, "usages": ["server auth", "client auth"]}),
    create("certificate duplicate usages", "certificates", "dup-usages", {**_CERT, "usages": [
        "digital signature", "digital signature"]}),
    create("certificate ca for servers", "certificates", "ca", {**_CERT, "isCA": True}),
    create("certificate addresses", "certificates", "addresses", {**_CERT, "ipAddresses": [
        "10.0.0.1", "2001:db8::1", "2001:DB8::1", "10.0.0.01", "not-an-ip"]}),
    create("certificate uris", "certificates", "uris", {**_CERT, "uris": ["http://example.com", "spiffe://td/x",
                                                                          "::not a url"]}),
    create("certificate cluster issuer group", "certificates", "issuer", {
        **_CERT, "issuerRef": {"name": "ca", "kind": "ClusterIssuer", "group": "other.example.io"}}),
    create("certificate rsa size", "certificates", "rsa", {**_CERT, "privateKey": {"size": 1024}}),
    create("certificate ed25519 size", "certificates", "ed", {**_CERT, "privateKey": {"algorithm": "Ed25519",
                                                                                      "size": 256}}),
    create("certificate ecdsa without size", "certificates", "ecdsa", {**_CERT, "privateKey": {"algorithm": "ECDSA"}}),
    create("certificate missing issuer", "certificates", "no-issuer", {"secretName": "x", "duration": "1m"}),
    merge("certificate secret name changes", "certificates", "shop", {"spec": {"secretName": "other-tls"}}),
    merge("certificate dry-run change", "certificates", "shop", {"spec": {"secretName": "dry-tls"}}, dry_run=True),
    merge("certificate status condition", "certificates", "shop", {"status": {"conditions": [_CONDITION_READY],
                                                                              "revision": 2}}, "/status"),
    merge("certificate status flips without time", "certificates", "shop", {"status": {"conditions": [
        {**_CONDITION_READY, "status": "False"}]}}, "/status"),
    merge("certificate status flips with time", "certificates", "shop", {"status": {"conditions": [
        {**_CONDITION_READY, "status": "False", "lastTransitionTime": "2026-02-01T00:00:00Z"}]}}, "/status"),
    merge("certificate revision decreases", "certificates", "shop", {"status": {"revision": 1}}, "/status"),
    merge("certificate status on main resource", "certificates", "shop", {"status": {"revision": 0}}),
    merge("certificate status bad time", "certificates", "shop", {"status": {"notAfter": "soon"}}, "/status"),
]

_CLUSTER = {"clusterNetwork": {"pods": {"cidrBlocks": ["192.168.0.0/16"]}, "services": {"cidrBlocks": ["10.128.0.0/12"]}},
            "controlPlaneEndpoint": {"host": "api.prod.example.com", "port": 6443},
            "topology": {"class": "quick-start", "version": "v1.36.2", "workers": {"machineDeployments": [
                {"name": "md-0", "class": "default-worker", "replicas": 3, "maxSurge": "25%"}]}},
            "infrastructureRef": {"apiVersion": "infrastructure.example.io/v1", "kind": "DockerCluster",
                                  "metadata": {"name": "prod"}, "spec": {"loadBalancer": {}}},
            "labels": {"env": "prod"}}

CLUSTER_STEPS: list[Step] = [
    create("cluster good", "clusters", "prod", _CLUSTER),
    create("cluster pod cidrs", "clusters", "cidrs", {"clusterNetwork": {"pods": {"cidrBlocks": [
        "192.168.0.0/28", "300.0.0.0/8"]}}}),
    create("cluster overlapping cidrs", "clusters", "overlap", {"clusterNetwork": {
        "pods": {"cidrBlocks": ["10.0.0.0/8"]}, "services": {"cidrBlocks": ["10.96.0.0/12"]}}}),
    create("cluster endpoint without port", "clusters", "endpoint", {"controlPlaneEndpoint": {"host": "api"}}),
    create("cluster versions", "clusters", "versions", {"topology": {"class": "c", "version": "v2.0.0"}}),
    create("cluster version not semver", "clusters", "not-semver", {"topology": {"class": "c", "version": "latest"}}),
    create("cluster short version", "clusters", "short-version", {"topology": {"class": "c", "version": "v1.36"}}),
    create("cluster max surge", "clusters", "surge", {"topology": {"class": "c", "version": "1.36.0", "workers": {
        "machineDeployments": [{"name": "a", "class": "w", "maxSurge": -1}, {"name": "b", "class": "w",
                                                                            "maxSurge": "25"},
                               {"name": "c", "class": "w", "maxSurge": "50%"}]}}}),
    create("cluster infrastructure ref", "clusters", "infra", {"infrastructureRef": {
        "apiVersion": "controlplane.example.io/v1", "kind": "KubeadmControlPlane", "metadata": {"name": "x" * 70}}}),
    create("cluster infrastructure ref without kind", "clusters", "infra-kind", {"infrastructureRef": {
        "apiVersion": "infrastructure.example.io/v1"}}),
    create("cluster labels", "clusters", "labels", {"labels": {"cluster.x-k8s.io/owned": "yes", "env": ""}}),
    create("cluster paused with topology", "clusters", "paused", {"paused": True, "topology": {"class": "c",
                                                                                             "version": "v1.30.0"}}),
    create("cluster name starts with digit", "clusters", "1prod", {}),
    create("cluster missing topology version", "clusters", "no-version", {"topology": {"class": "c"}}),
    merge("cluster downgrade", "clusters", "prod", {"spec": {"topology": {"version": "v1.35.0"}}}),
    merge("cluster upgrade", "clusters", "prod", {"spec": {"topology": {"version": "v1.36.3"}}}),
    merge("cluster endpoint change", "clusters", "prod", {"spec": {"controlPlaneEndpoint": {"port": 443}}}),
    json_patch("cluster machine deployment class change", "clusters", "prod", [
        {"op": "replace", "path": "/spec/topology/workers/machineDeployments/0/class", "value": "big-worker"},
        {"op": "add", "path": "/spec/topology/workers/machineDeployments/-",
         "value": {"name": "md-1", "class": "gpu-worker", "maxSurge": 1}}]),
    merge("cluster status provisioned", "clusters", "prod", {"status": {"phase": "Provisioned", "replicas": 3,
                                                                        "failureDomains": {
                                                                            "a": {"controlPlane": True}}}}, "/status"),
    merge("cluster status back to pending", "clusters", "prod", {"status": {"phase": "Pending"}}, "/status"),
    merge("cluster status without control plane domain", "clusters", "prod", {"status": {"failureDomains": {
        "a": {"controlPlane": False}, "b": {"attributes": {"zone": "b"}}}}}, "/status"),
    merge("cluster scale", "clusters", "prod", {"spec": {"replicas": 2}}, "/scale"),
    merge("cluster dry-run status", "clusters", "prod", {"status": {"phase": "Failed"}}, "/status", dry_run=True),
]

_POOL = {"weight": 10, "limits": {"cpu": "1000", "memory": "1000Gi"},
         "disruption": {"budgets": [{"nodes": "10%"}, {"nodes": "0", "schedule": "0 9 * * mon-fri",
                                                       "duration": "8h"}]},
         "template": {"metadata": {"labels": {"team": "search"}},
                      "spec": {"requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                                                {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt",
                                                 "values": ["4"]}],
                               "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                "name": "default"}}}}
_NODE_CLASS = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}


def _pool(**spec: Any) -> Obj:
    return {"template": {"spec": {"nodeClassRef": _NODE_CLASS, **spec}}}


POOL_STEPS: list[Step] = [
    create("nodepool good", "nodepools", "general", _POOL),
    create("nodepool requirements", "nodepools", "requirements", _pool(requirements=[
        {"key": "topology.kubernetes.io/zone", "operator": "In"},
        {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["4", "8"]},
        {"key": "kubernetes.io/hostname", "operator": "Exists"},
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"], "minValues": 2}])),
    create("nodepool gt not a number", "nodepools", "gt-text", _pool(requirements=[
        {"key": "karpenter.k8s.aws/instance-memory", "operator": "Lt", "values": ["lots"]}])),
    create("nodepool limits keys", "nodepools", "limits", {**_pool(), "limits": {"cpu": 0, "gpu": "1"}}),
    create("nodepool limit not a quantity", "nodepools", "limit-text", {**_pool(), "limits": {"cpu": "many"}}),
    create("nodepool budget schedule without duration", "nodepools", "budgets", {**_pool(), "disruption": {
        "budgets": [{"nodes": "20%", "schedule": "@daily"}, {"duration": "1h"}]}}),
    create("nodepool consolidate after", "nodepools", "consolidate", {**_pool(), "disruption": {
        "consolidateAfter": "1000h"}}),
    create("nodepool consolidate after never", "nodepools", "never", {**_pool(), "disruption": {
        "consolidateAfter": "Never"}}),
    create("nodepool consolidate after unparsable", "nodepools", "unparsable", {**_pool(), "disruption": {
        "consolidateAfter": "soon"}}),
    create("nodepool when empty reasons", "nodepools", "when-empty", {**_pool(), "disruption": {
        "consolidationPolicy": "WhenEmpty", "budgets": [{"reasons": ["Empty", "Underutilized"]}]}}),
    create("nodepool restricted labels", "nodepools", "labels", {"template": {
        "metadata": {"labels": {"karpenter.sh/nodepool": "x", "a/b/c": "y"}}, "spec": {"nodeClassRef": _NODE_CLASS}}}),
    create("nodepool missing node class", "nodepools", "no-class", {"template": {"spec": {}}}),
    create("nodepool weight out of range", "nodepools", "weight", {**_pool(), "weight": 0}),
    merge("nodepool node class kind change", "nodepools", "general", {"spec": {"template": {"spec": {
        "nodeClassRef": {"kind": "AzureNodeClass"}}}}}),
    merge("nodepool node class name change", "nodepools", "general", {"spec": {"template": {"spec": {
        "nodeClassRef": {"name": "other"}}}}}),
    apply("nodepool apply requirements", "nodepools", "general", {**_POOL, "template": {**_POOL["template"], "spec": {
        **_POOL["template"]["spec"], "requirements": [{"key": "kubernetes.io/zone", "operator": "In",
                                                       "values": ["a"]}]}}}),
]

_XPG = {"parameters": {"storageGB": 20, "region": "us-east-1", "version": "16", "tier": "gold"},
        "compositionRef": {"name": "aws-postgres"}, "writeConnectionSecretToRef": {"name": "pg-conn"},
        "resourceRefs": [{"apiVersion": "rds.example.io/v1", "kind": "Instance", "name": "pg"}],
        "tags": {"owner": "payments", "cost-center": "42"}}

XPG_STEPS: list[Step] = [
    create("composite good", "xpostgresinstances", "pg", _XPG),
    create("composite bad region on create", "xpostgresinstances", "region", {**_XPG, "parameters": {
        "storageGB": 20, "region": "Frankfurt"}}),
    create("composite orphaned without secret", "xpostgresinstances", "orphan", {
        "compositionRef": {"name": "x"}, "deletionPolicy": "Orphan"}),
    create("composite secret in kube-system", "xpostgresinstances", "kube-system", {**_XPG,
                                                                                   "writeConnectionSecretToRef": {
                                                                                       "name": "pg",
                                                                                       "namespace": "kube-system"}}),
    create("composite null secret ref", "xpostgresinstances", "null-ref", {**_XPG, "writeConnectionSecretToRef": None,
                                                                          "deletionPolicy": "Orphan"}),
    create("composite null description", "xpostgresinstances", "null-desc", {**_XPG, "description": None}),
    create("composite short description", "xpostgresinstances", "short-desc", {**_XPG, "description": "pg"}),
    create("composite tag keys", "xpostgresinstances", "tags", {**_XPG, "tags": {"Owner": "x", "cost_center": "1"}}),
    create("composite empty secret name", "xpostgresinstances", "empty-secret", {**_XPG,
                                                                                "writeConnectionSecretToRef": {
                                                                                    "name": ""}}),
    merge("composite storage shrinks", "xpostgresinstances", "pg", {"spec": {"parameters": {"storageGB": 10}}}),
    merge("composite region changes", "xpostgresinstances", "pg", {"spec": {"parameters": {"region": "eu-west-1"}}}),
    merge("composite unknown parameter changes", "xpostgresinstances", "pg", {"spec": {"parameters": {
        "tier": "silver", "storageGB": 40}}}),
    merge("composite composition changes", "xpostgresinstances", "pg", {"spec": {"compositionRef": {"name": "gcp"}}}),
    json_patch("composite resource ref removed", "xpostgresinstances", "pg", [
        {"op": "remove", "path": "/spec/resourceRefs/0"}]),
    merge("composite owner tag removed", "xpostgresinstances", "pg", {"spec": {"tags": {"owner": None}}}),
    merge("composite status endpoint", "xpostgresinstances", "pg", {"status": {"ready": True,
                                                                               "endpoint": "postgres:5432"}},
          "/status"),
    merge("composite status good endpoint", "xpostgresinstances", "pg", {"status": {
        "endpoint": "postgres://pg.example.com:5432"}}, "/status"),
]

PROBE_STEPS: list[Step] = [
    create("probe good", "probes", "good", {"at": "2026-03-04T05:06:07Z", "day": "2026-03-04", "window": "90m",
                                            "memory": "2Gi", "endpoint": "https://a.example.com:8443/x",
                                            "image": "registry.example.com/shop/cart:1.4", "ports": [80, 443],
                                            "names": ["cart", "web"], "ratio": 0.25, "mode": "ro", "counter": 1,
                                            "sizes": {"small": 2}, "labels": {"team": "a"}}),
    create("probe timestamps", "probes", "times", {"at": "2019-12-31T23:59:59Z", "day": "2026-03-01",
                                                   "window": "36h"}),
    create("probe far future", "probes", "future", {"at": "2100-01-01T00:00:00Z"}),
    create("probe quantities", "probes", "quantities", {"memory": "128Gi"}),
    create("probe negative quantity", "probes", "negative", {"memory": "-1Gi"}),
    create("probe not a quantity", "probes", "not-quantity", {"memory": "2 GB"}),
    create("probe privileged port", "probes", "port", {"endpoint": "http://a.example.com:80/"}),
    create("probe url without port", "probes", "no-port", {"endpoint": "http://a.example.com/"}),
    create("probe not a url", "probes", "not-url", {"endpoint": "a b"}),
    create("probe images", "probes", "images", {"image": "a/b/c/d"}),
    create("probe ports", "probes", "ports", {"ports": [443, 22, 70000]}),
    create("probe names", "probes", "names", {"names": ["Web", "tmp-x", "tmp-y"]}),
    create("probe ratio", "probes", "ratio", {"ratio": 1.5}),
    create("probe ratio integer", "probes", "ratio-int", {"ratio": 2}),
    create("probe mode", "probes", "mode", {"mode": "rw-x"}),
    create("probe odd sizes", "probes", "sizes", {"sizes": {"a": 3, "b": 4, "c": 5}}),
    create("probe labels without team", "probes", "labels", {"labels": {"app": "x"}}),
    create("probe blob with ratio", "probes", "blob", {"blob": {"anything": [1, {"x": None}]}, "ratio": 0.75}),
    create("probe bad date", "probes", "bad-date", {"day": "2026-02-30"}),
    create("probe bad duration", "probes", "bad-window", {"window": "a while"}),
    merge("probe counter goes back", "probes", "good", {"spec": {"counter": 0}}),
    merge("probe counter goes up", "probes", "good", {"spec": {"counter": 5}}),
]

_PROBES_CRD = f"{_CRD_PATH}/probes.lab.sweep.example.io"
_COUNTER_RULES = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/counter/x-kubernetes-validations"

MORE_PROBE_STEPS: list[Step] = [
    create("probe release not semver", "probes", "release", {"release": "latest"}),
    create("probe release short", "probes", "release-short", {"release": "v0.9"}),
    create("probe duplicate tags", "probes", "tags", {"tags": ["a", "b", "a"]}),
    create("probe quota message expression fails", "probes", "quota", {"quota": {"limit": 1, "used": 2}}),
    create("probe quota message expression", "probes", "quota-unit", {"quota": {"limit": 1, "used": 2, "unit": "GiB"}}),
    create("probe empty message expression", "probes", "quota-empty", {"quota": {"limit": 1, "used": -1}}),
    create("probe message expression with line break", "probes", "quota-lines", {"quota": {"limit": 5000}}),
    create("probe field path into map", "probes", "size-a", {"sizes": {"a": 200}}),
    create("probe embedded-free generate name", "probes", "", {"mode": "RO"}, metadata={"generateName": "probe-"}),
    create("ratchet base", "probes", "ratchet", {"counter": 50, "mode": "ro"}),
    {"name": "crd gains a stricter rule", "method": "PATCH", "path": _PROBES_CRD,
     "content_type": "application/json-patch+json", "keep": ["metadata.name"],
     "body": [{"op": "add", "path": f"{_COUNTER_RULES}/-", "value": {"rule": "self <= 10",
                                                                     "message": "counter must be at most 10"}}]},
    {**create("stricter rule in force", "probes", "strict", {"counter": 20}, dry_run=True), "until": {"code": 422}},
    merge("ratchet unchanged value", "probes", "ratchet", {"spec": {"mode": "rw"}}),
    merge("ratchet changed value", "probes", "ratchet", {"spec": {"counter": 60}}),
    {"name": "crd gains a rule that does not compile", "method": "PATCH", "path": _PROBES_CRD,
     "content_type": "application/json-patch+json", "keep": ["metadata.name"],
     "body": [{"op": "add", "path": f"{_COUNTER_RULES}/-", "value": {"rule": "self.nope"}}]},
]

_EMBEDDED = {"apiVersion": "infrastructure.example.io/v1", "kind": "DockerCluster"}

MORE_CLUSTER_STEPS: list[Step] = [
    create("embedded api version", "clusters", "embedded-version", {"infrastructureRef": {
        **_EMBEDDED, "apiVersion": "a/b/c"}}),
    create("embedded kind", "clusters", "embedded-kind", {"infrastructureRef": {**_EMBEDDED, "kind": "Docker_Cluster"}}),
    create("embedded empty kind", "clusters", "embedded-empty", {"infrastructureRef": {**_EMBEDDED, "kind": ""}}),
    create("embedded kind not a string", "clusters", "embedded-number", {"infrastructureRef": {**_EMBEDDED,
                                                                                             "kind": 5}}),
    create("embedded metadata", "clusters", "embedded-meta", {"infrastructureRef": {**_EMBEDDED, "metadata": {
        "name": "a/b", "labels": {"bad key!": "x"}, "namespace": "Not_A_Namespace"}}}),
]

EDGE_STEPS: list[Step] = [
    create("edge many rules fail", "edges", "many", {"divisor": 7, "factor": 0, "ports": [80, 443, 8080],
                                          "ratio": "0.5", "pattern": "^a", "at": "2026-03-04T05:06:07Z",
                                          "word": "hello", "words": ["alpha", "beta"], "nested": {"inner": {
                                              "value": "ok"}}, "flags": {"required": True, "optional-x": False},
                                          "levels": {"a": 1}}),
    create("edge division by zero", "edges", "div", {"divisor": 0}),
    create("edge quotient", "edges", "quotient", {"divisor": 200}),
    create("edge overflow", "edges", "overflow", {"factor": 4}),
    create("edge index out of range", "edges", "index", {"ports": [80, 443]}),
    create("edge min of empty list", "edges", "empty", {"ports": []}),
    create("edge error absorbed by or", "edges", "absorbed", {"ports": [0, 1, 2, 3]}),
    create("edge error not absorbed", "edges", "not-absorbed", {"ports": [0, 1, 2]}),
    create("edge error absorbed by and", "edges", "and", {"ports": [1, 0, 5]}),
    create("edge double conversion", "edges", "double", {"ratio": "half"}),
    create("edge uint conversion", "edges", "uint", {"ratio": "-1"}),
    create("edge bad regex", "edges", "regex", {"pattern": "a("}),
    create("edge regex no match", "edges", "regex-miss", {"pattern": "^b"}),
    create("edge time zones", "edges", "zones", {"at": "2026-01-01T01:30:00Z"}),
    create("edge late in new york", "edges", "late", {"at": "2026-06-01T23:30:00Z"}),
    create("edge strings", "edges", "strings", {"word": "xbzcq"}),
    create("edge short word", "edges", "short", {"word": "a"}),
    create("edge empty word", "edges", "empty-word", {"word": ""}),
    create("edge words", "edges", "words", {"words": ["stop", "stop", "a-very-long-word", "b"]}),
    create("edge nested optional", "edges", "nested", {"nested": {"inner": {"value": "bad"}}}),
    create("edge nested empty inner", "edges", "inner", {"nested": {"inner": {}}}),
    create("edge flags", "edges", "flags", {"flags": {"debug": False, "optional-y": False}}),
    create("edge levels base", "edges", "levels", {"levels": {"a": 5, "b": 5}}),
    merge("edge levels go down", "edges", "levels", {"spec": {"levels": {"a": 4, "c": 1}}}),
    merge("edge levels removed and added", "edges", "levels", {"spec": {"levels": {"a": None, "d": 0}}}),
    create("edge runtime cost within limit", "edges", "grid-small", {"grid": list(range(10))}),
    create("edge runtime cost limit", "edges", "grid-large", {"grid": list(range(400))}),
]

_CANARY = {"canary": {"steps": [{"setWeight": 20}, {"pause": {"duration": "1h"}}]}}

ROLLOUT_STEPS: list[Step] = [
    create("rollout good", "rollouts", "web", {"replicas": 0, "strategy": _CANARY, "ports": [
        {"name": "http", "containerPort": 80}, {"name": "dns", "containerPort": 53, "protocol": "UDP"}]}),
    create("rollout both strategies", "rollouts", "both", {"strategy": {**_CANARY, "blueGreen": {
        "activeService": "a"}}}),
    create("rollout no strategy", "rollouts", "none", {"strategy": {}}),
    create("rollout weight too high", "rollouts", "weight", {"strategy": {"canary": {"steps": [{"setWeight": 150}]}}}),
    create("rollout same services", "rollouts", "services", {"strategy": {"blueGreen": {
        "activeService": "a", "previewService": "a"}}}),
    create("rollout duplicate ports", "rollouts", "ports", {"ports": [{"name": "a", "containerPort": 80},
                                                                     {"name": "b", "containerPort": 80,
                                                                      "protocol": "TCP"}]}),
    create("rollout null notes", "rollouts", "null-notes", {"notes": None}),
    create("rollout empty notes", "rollouts", "empty-notes", {"notes": ""}),
    create("rollout long banner", "rollouts", "banner", {"banner": "b" * 6000}),
    create("rollout banner with a line break", "rollouts", "banner-lines", {"banner": "first line\nsecond"}),
    create("rollout banner shown", "rollouts", "banner-shown", {"banner": "a short but failing one"}),
    json_patch("rollout port renamed", "rollouts", "web", [
        {"op": "replace", "path": "/spec/ports/0/name", "value": "web"}]),
    json_patch("rollout port protocol changed", "rollouts", "web", [
        {"op": "replace", "path": "/spec/ports/1/protocol", "value": "TCP"},
        {"op": "replace", "path": "/spec/ports/1/name", "value": "dns-tcp"}]),
    merge("rollout degraded without replicas", "rollouts", "web", {"status": {"phase": "Degraded"}}, "/status"),
    merge("rollout healthy", "rollouts", "web", {"status": {"phase": "Healthy"}}, "/status"),
    merge("rollout status on main resource", "rollouts", "web", {"status": {"phase": "Degraded"},
                                                                 "spec": {"replicas": 0}}),
    {"name": "rollout crd gains a replicas rule", "method": "PATCH",
     "path": f"{_CRD_PATH}/rollouts.rollouts.sweep.example.io", "content_type": "application/json-patch+json",
     "keep": ["metadata.name"],
     "body": [{"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/replicas/"
                                    "x-kubernetes-validations",
               "value": [{"rule": "self > 0", "message": "replicas must be positive"}]}]},
    {**create("rollout replicas rule in force", "rollouts", "strict", {"replicas": 0, "strategy": _CANARY},
              dry_run=True), "until": {"code": 422}},
    merge("rollout status write ratchets the spec", "rollouts", "web", {"status": {"phase": "Paused"}}, "/status"),
    merge("rollout dry-run spec write ratchets", "rollouts", "web", {"spec": {"notes": "paused"}}, dry_run=True),
    merge("rollout replicas stay invalid", "rollouts", "web", {"spec": {"replicas": 0, "notes": "again"}}),
]

def _issuer(version: str, name: str, spec: Obj) -> Step:
    body = {"apiVersion": f"issuers.sweep.example.io/{version}", "kind": "Issuer", "metadata": {"name": name},
            "spec": spec}
    return {"name": f"issuer {version} {name}", "method": "POST",
            "path": f"/apis/issuers.sweep.example.io/{version}/namespaces/{NAMESPACE}/issuers", "body": body,
            "keep": ["apiVersion", "spec"]}


_ACME = {"server": "https://acme.example.com/directory", "email": "ops@example.com"}

ISSUER_STEPS: list[Step] = [
    _issuer("v1", "acme", {"acme": _ACME}),
    _issuer("v1", "both", {"acme": _ACME, "ca": {"secretName": "ca"}}),
    _issuer("v1", "http", {"acme": {**_ACME, "server": "http://acme.example.com"}}),
    _issuer("v1beta1", "both", {"acme": _ACME, "ca": {"secretName": "ca"}}),
    _issuer("v1beta1", "email", {"acme": {**_ACME, "email": "ops"}}),
    _issuer("v1beta1", "http", {"acme": {**_ACME, "server": "http://acme.example.com"}}),
]

STEPS: list[Step] = [*ROUTE_STEPS, *CERT_STEPS, *CLUSTER_STEPS, *POOL_STEPS, *XPG_STEPS, *PROBE_STEPS,
                     *MORE_CLUSTER_STEPS, *MORE_PROBE_STEPS, *EDGE_STEPS, *ROLLOUT_STEPS,
                     *ISSUER_STEPS]
