"""pod-template-hash equals kube-controller-manager's ComputeHash.

The printer is proven on hashes real clusters gave for well-known templates (`kubectl create
deployment nginx --image=nginx`, the docs' nginx-deployment), each with the Go types of the release
that made it: the 1.36 table minus the fields added later (and, before 1.25, with ObjectMeta's
ClusterName). The 1.36 table itself is held to the 1.36 OpenAPI schema field by field.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Iterator

import pytest

from apiserver.controllers import gotypes
from apiserver.controllers.podtemplatehash import compute_hash, fnv32a, safe_encode, spew

PS, C, RR, PSC = "v1.PodSpec", "v1.Container", "v1.ResourceRequirements", "v1.PodSecurityContext"
# Fields of the 1.36 table that the named release did not have yet.
ADDED_AFTER = {
    "1.29": {PS: {"SchedulingGroup", "HostnameOverride", "Resources"}, C: {"RestartPolicyRules"},
             PSC: {"SELinuxChangePolicy", "SupplementalGroupsPolicy", "AppArmorProfile"}},
    "1.26": {PS: {"SchedulingGroup", "HostnameOverride", "Resources"},
             C: {"RestartPolicyRules", "RestartPolicy", "ResizePolicy"},
             PSC: {"SELinuxChangePolicy", "SupplementalGroupsPolicy", "AppArmorProfile"}},
    "1.22": {PS: {"SchedulingGroup", "HostnameOverride", "Resources", "SchedulingGates", "ResourceClaims",
                  "HostUsers", "OS"},
             C: {"RestartPolicyRules", "RestartPolicy", "ResizePolicy"}, RR: {"Claims"},
             PSC: {"SELinuxChangePolicy", "SupplementalGroupsPolicy", "AppArmorProfile"}},
}


@pytest.fixture
def release(request: pytest.FixtureRequest) -> Iterator[None]:
    version = request.param
    saved = copy.deepcopy(gotypes.STRUCTS)
    for type_name, names in ADDED_AFTER[version].items():
        gotypes.STRUCTS[type_name] = [f for f in gotypes.STRUCTS[type_name] if f[0] not in names]
    if version == "1.22":  # ObjectMeta.ClusterName, removed in 1.25
        meta = gotypes.STRUCTS["v1.ObjectMeta"]
        meta.insert(len(meta) - 1, ("ClusterName", "clusterName", "string"))
    try:
        yield
    finally:
        gotypes.STRUCTS.clear()
        gotypes.STRUCTS.update(saved)


def template(image: str, pull: str, labels: dict[str, str], ports: list[dict[str, Any]] | None = None) -> Any:
    """A pod template as the API server stores it after defaulting."""
    container: dict[str, Any] = {"name": "nginx", "image": image}
    if ports:
        container["ports"] = ports
    container.update({"resources": {}, "terminationMessagePath": "/dev/termination-log",
                      "terminationMessagePolicy": "File", "imagePullPolicy": pull})
    return {"metadata": {"creationTimestamp": None, "labels": labels},
            "spec": {"containers": [container], "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                     "dnsPolicy": "ClusterFirst", "securityContext": {}, "schedulerName": "default-scheduler"}}


CREATE_DEPLOYMENT = template("nginx", "Always", {"app": "nginx"})  # kubectl create deployment nginx --image=nginx
DOCS_EXAMPLE = template("nginx:1.14.2", "IfNotPresent", {"app": "nginx"}, [{"containerPort": 80, "protocol": "TCP"}])


@pytest.mark.parametrize("release, manifest, expected", [
    ("1.29", CREATE_DEPLOYMENT, "7854ff8877"),
    ("1.26", CREATE_DEPLOYMENT, "748c667d99"),
    ("1.22", CREATE_DEPLOYMENT, "6799fc88d8"),
    ("1.29", DOCS_EXAMPLE, "86dcfdf4c6"),
    ("1.22", DOCS_EXAMPLE, "66b6c48dd5"),
], indirect=["release"])
def test_hashes_real_clusters_gave(release: None, manifest: Any, expected: str) -> None:
    assert compute_hash(manifest, None) == expected


def test_the_1_36_hash_of_kubectl_create_deployment() -> None:
    # Reasoned out from the 1.36 types (no 1.36 cluster was at hand): the 1.29 hash above, proven on a
    # real cluster, with the fields added since in their places.
    assert compute_hash(CREATE_DEPLOYMENT, None) == "7f8fbb96d"
    assert compute_hash(CREATE_DEPLOYMENT, 1) != compute_hash(CREATE_DEPLOYMENT, None)


def test_spew_prints_go_values() -> None:
    assert spew("*int64", None, True) == "(*int64)<nil>"
    assert spew("*int64", 30, True) == "(*int64)30"
    assert spew("map[string]string", {"b": "2", "a": "1"}, True) == "(map[string]string)map[a:1 b:2]"
    assert spew("[]string", [], True) == "([]string)[]"
    assert spew("intstr.IntOrString", "http", True) == "(intstr.IntOrString){Type:(intstr.Type)1 IntVal:(int32)0 " \
                                                         "StrVal:(string)http}"
    assert spew("v1.ResourceList", {"cpu": "100m", "memory": "128Mi"}, True) == (
        "(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)100 scale:(resource.Scale)-3} "
        "d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)100m Format:(resource.Format)DecimalSI} "
        "memory:{i:(resource.int64Amount){value:(int64)134217728 scale:(resource.Scale)0} "
        "d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string) Format:(resource.Format)BinarySI}]")


def test_templates_with_affinity_are_printed_not_skipped() -> None:
    with_affinity = copy.deepcopy(CREATE_DEPLOYMENT)
    with_affinity["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "nginx"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    printed = spew("v1.PodTemplateSpec", with_affinity, True)
    assert ("Affinity:(*v1.Affinity){NodeAffinity:(*v1.NodeAffinity)<nil> PodAffinity:(*v1.PodAffinity)<nil> "
            "PodAntiAffinity:(*v1.PodAntiAffinity){RequiredDuringSchedulingIgnoredDuringExecution:"
            "([]v1.PodAffinityTerm)[{LabelSelector:(*v1.LabelSelector){MatchLabels:(map[string]string)"
            "map[app:nginx] MatchExpressions:([]v1.LabelSelectorRequirement)<nil>} Namespaces:([]string)<nil> "
            "TopologyKey:(string)kubernetes.io/hostname NamespaceSelector:(*v1.LabelSelector)<nil> "
            "MatchLabelKeys:([]string)<nil> MismatchLabelKeys:([]string)<nil>}] "
            "PreferredDuringSchedulingIgnoredDuringExecution:([]v1.WeightedPodAffinityTerm)<nil>}}") in printed


def test_fnv_and_the_safe_alphabet() -> None:
    assert fnv32a(b"") == 0x811C9DC5 and fnv32a(b"a") == 0xE40C292C
    assert safe_encode("0123456789") == "456789bcdf"


def _schema_definitions() -> dict[str, Any]:
    import kubernetes_validate  # type: ignore[import-untyped]

    path = os.path.join(os.path.dirname(kubernetes_validate.__file__), "kubernetes-json-schema", "v1.36.0-local",
                        "_definitions.json")
    with open(path) as f:
        return json.load(f)["$defs"]  # type: ignore[no-any-return]


def _json_names(type_name: str) -> set[str]:
    names = set()
    for _, json_name, go_type in gotypes.STRUCTS[type_name]:
        names |= _json_names(go_type) if json_name == "" else {json_name}
    return names


# ProbeHandler and VolumeSource are inline only, checked through Probe and Volume.
@pytest.mark.parametrize("type_name", sorted(set(gotypes.STRUCTS) - {"v1.ProbeHandler", "v1.VolumeSource"}))
def test_every_struct_has_the_1_36_fields(type_name: str) -> None:
    meta = type_name in ("v1.ObjectMeta", "v1.LabelSelector", "v1.LabelSelectorRequirement")
    package = "io.k8s.apimachinery.pkg.apis.meta.v1." if meta else "io.k8s.api.core.v1."
    definition = _schema_definitions()[package + type_name.removeprefix("v1.")]
    assert _json_names(type_name) == set(definition["properties"])
