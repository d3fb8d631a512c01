"""core/v1 defaulting: the SetDefaults_* functions of pkg/apis/core/v1/defaults.go.

Pure functions on decoded objects; a null spec is Go's zero value, defaulted like an absent one. The
pod spec's defaults are shared with every kind that holds a pod template (apps, batch).
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.registry.core.resource_requirements import aggregate

Obj = dict[str, Any]


def spec_of(obj: Obj) -> Obj:
    """The object's spec, made an empty one where the body left it out or sent null (Go's zero value)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


# -- pods and pod templates ----------------------------------------------------------------------

_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_PATH_PART = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
# distribution/reference's grammar: [domain[:port]/]path[:tag][@digest].
_IMAGE_REFERENCE = re.compile(
    rf"(?:(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?/)?"
    rf"{_PATH_PART}(?:/{_PATH_PART})*(?::(?P<tag>[\w][\w.-]{{0,127}}))?"
    r"(?P<digest>@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,})?")


_HEX_IDENTIFIER = re.compile(r"[a-f0-9]{64}")


def _normalized_image(image: str) -> str | None:
    """distribution/reference's ParseNormalizedNamed before its parse: docker.io/ and library/ added where
    the name has no domain (splitDockerDomain); None where it refuses first (a bare 64-hex identifier,
    an upper-case repository)."""
    if _HEX_IDENTIFIER.fullmatch(image):
        return None
    first, slash, rest = image.partition("/")
    if not slash or ("." not in first and ":" not in first and first != "localhost" and first.lower() == first):
        domain, remainder = "docker.io", image
    else:
        domain, remainder = first, rest
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in remainder:
        remainder = "library/" + remainder
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:
        return None
    return f"{domain}/{remainder}"


# go-digest's registered algorithms, each with the length of its lower-case hex encoding.
_DIGEST_HEX = {"sha256": 64, "sha384": 96, "sha512": 128}


def _valid_digest(digest: str) -> bool:
    """go-digest's Digest.Validate of a digest the grammar matched: a registered algorithm, then its encoding."""
    algorithm, _, encoded = digest.partition(":")
    return len(encoded) == _DIGEST_HEX.get(algorithm) and re.fullmatch(r"[a-f0-9]+", encoded) is not None


def _image_pull_policy(image: str) -> str:
    """Always for an image tagged latest or not tagged nor pinned; IfNotPresent otherwise, and for a reference
    parsers.ParseImageName cannot read (its error is ignored): one its grammar refuses, whose repository
    path, normalized (library/ added), is longer than 255 characters, or whose digest go-digest refuses."""
    normalized = _normalized_image(image)
    match = _IMAGE_REFERENCE.fullmatch(normalized) if normalized is not None else None
    if match is None:
        return "IfNotPresent"
    name_end = min((match.start(g) for g in ("tag", "digest") if match.start(g) >= 0), default=len(normalized))
    if match.group("tag"):
        name_end -= 1  # the colon before the tag
    if name_end - len(normalized.split("/", 1)[0]) - 1 > 255:  # the repository's path, without its domain
        return "IfNotPresent"
    if match.group("digest") and not _valid_digest(match.group("digest")[1:]):
        return "IfNotPresent"
    tag = match.group("tag") or ("" if match.group("digest") else "latest")
    return "Always" if tag == "latest" else "IfNotPresent"


def _probe(probe: Any) -> None:
    if isinstance(probe, dict):
        http_get = probe.get("httpGet")
        if isinstance(http_get, dict):
            http_get.setdefault("path", "/")
            http_get.setdefault("scheme", "HTTP")
        grpc = probe.get("grpc")
        if isinstance(grpc, dict) and grpc.get("service") is None:
            grpc["service"] = ""  # GRPCAction's +default=""
        probe.setdefault("timeoutSeconds", 1)
        probe.setdefault("periodSeconds", 10)
        probe.setdefault("successThreshold", 1)
        probe.setdefault("failureThreshold", 3)


def _container(c: Obj) -> None:
    # Go sets what is empty, not only what is absent.
    if not c.get("terminationMessagePath"):
        c["terminationMessagePath"] = "/dev/termination-log"
    if not c.get("terminationMessagePolicy"):
        c["terminationMessagePolicy"] = "File"
    if not c.get("imagePullPolicy"):
        c["imagePullPolicy"] = _image_pull_policy(str(c.get("image") or ""))
    for port in c.get("ports") or ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
    for env in c.get("env") or ():
        source = (env.get("valueFrom") or {}) if isinstance(env, dict) else {}
        _field_selector(source.get("fieldRef"))
        file_key_ref = source.get("fileKeyRef")  # FileKeySelector's +default=false
        if isinstance(file_key_ref, dict) and file_key_ref.get("optional") is None:
            file_key_ref["optional"] = False
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe(c.get(probe))


def _field_selector(ref: Any) -> None:
    """SetDefaults_ObjectFieldSelector: an empty apiVersion is v1's."""
    if isinstance(ref, dict) and not ref.get("apiVersion"):
        ref["apiVersion"] = "v1"


def _downward_items(source: Any) -> None:
    for item in (source.get("items") or ()) if isinstance(source, dict) else ():
        if isinstance(item, dict):
            _field_selector(item.get("fieldRef"))


def _pod_volume_source(v: Obj) -> None:
    """What only a pod's volume holds: the downward API's field selectors, a projected token's lifetime
    (SetDefaults_ServiceAccountTokenProjection: an hour) and an ephemeral claim's volume mode."""
    _downward_items(v.get("downwardAPI"))
    projected = v.get("projected")
    for source in (projected.get("sources") or ()) if isinstance(projected, dict) else ():
        if isinstance(source, dict):
            _downward_items(source.get("downwardAPI"))
            token = source.get("serviceAccountToken")
            if isinstance(token, dict) and token.get("expirationSeconds") is None:
                token["expirationSeconds"] = 3600
    template = v.get("ephemeral").get("volumeClaimTemplate") if isinstance(v.get("ephemeral"), dict) else None
    if isinstance(template, dict):
        if not isinstance(template.get("spec"), dict):
            template["spec"] = {}
        template["spec"].setdefault("volumeMode", "Filesystem")


def volume_source(v: Obj) -> None:
    """A volume's (or a PersistentVolume spec's) source: file modes and hostPath types."""
    for source in ("configMap", "secret", "downwardAPI", "projected"):
        if isinstance(v.get(source), dict):
            v[source].setdefault("defaultMode", 420)
    if isinstance(v.get("hostPath"), dict):
        v["hostPath"].setdefault("type", "")
    # zz_generated.defaults.go: the +default markers of the v1 sources (an empty string counts as unset
    # but for an Azure disk's, which are pointers).
    for source, values in _SOURCE_DEFAULTS:
        if isinstance(v.get(source), dict):
            for key, value in values:
                if v[source].get(key) is None or (v[source][key] == "" and source != "azureDisk"):
                    v[source][key] = value


_SOURCE_DEFAULTS: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = (
    ("rbd", (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring"))),
    ("iscsi", (("iscsiInterface", "default"),)),
    ("azureDisk", (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False), ("kind", "Shared"))),
    ("scaleIO", (("storageMode", "ThinProvisioned"), ("fsType", "xfs"))),
)


# Every volume source a pod's volume may name; one naming none is an emptyDir (SetDefaults_Volume).
_VOLUME_SOURCES = frozenset({
    "hostPath", "emptyDir", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "downwardAPI", "fc", "azureFile",
    "vsphereVolume", "quobyte", "azureDisk", "configMap", "projected", "portworxVolume", "scaleIO", "storageos",
    "csi", "ephemeral", "image", "photonPersistentDisk", "flexVolume"})


def _volume(v: Obj) -> None:
    """SetDefaults_Volume: a volume naming no source is an emptyDir, and an image volume's pull policy is its
    reference's, as a container's is (ImageVolume, on in 1.36)."""
    if not any(v.get(source) is not None for source in _VOLUME_SOURCES):
        v["emptyDir"] = {}
    image = v.get("image")
    if isinstance(image, dict) and not image.get("pullPolicy"):
        image["pullPolicy"] = _image_pull_policy(str(image.get("reference") or ""))


def pod_spec(spec: Obj) -> None:
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            if isinstance(c, dict):
                _container(c)
    for v in spec.get("volumes") or ():
        if isinstance(v, dict):
            _volume(v)
            volume_source(v)
            _pod_volume_source(v)
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    # serviceAccount is the deprecated alias of serviceAccountName, which wins when both are set: decoding
    # keeps one internal field (Convert_v1_PodSpec_To_core_PodSpec), encoding writes it to both.
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if account:
        spec["serviceAccountName"] = spec["serviceAccount"] = account


def template_of(owner: Obj) -> None:
    """The pod template under an owner's spec (a workload's)."""
    template = (owner.get("spec") or {}).get("template")
    if isinstance(template, dict):
        # A null pod spec decodes as Go's zero PodSpec, which defaulting then fills.
        if template.get("spec") is None:
            template["spec"] = {}
        if isinstance(template["spec"], dict):
            pod_spec(template["spec"])


def pod(obj: Obj) -> None:
    """SetDefaults_Pod: only a pod (not a template) has its requests defaulted from its limits, then the
    pod-level ones (PodLevelResources is on at 1.36), and with the host's network its host ports."""
    spec = spec_of(obj)
    pod_spec(spec)
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or ():
            resources = c.get("resources") if isinstance(c, dict) else None
            if isinstance(resources, dict) and isinstance(resources.get("limits"), dict):
                requests = resources.get("requests")
                requests = resources["requests"] = requests if isinstance(requests, dict) else {}
                for name, amount in resources["limits"].items():
                    requests.setdefault(name, amount)
    resources = spec.get("resources")
    if isinstance(resources, dict):
        _huge_page_pod_limits(spec, resources)
        _pod_requests(spec, resources)
    spec.setdefault("enableServiceLinks", True)
    if spec.get("hostNetwork"):
        for key in ("containers", "initContainers"):
            for c in spec.get(key) or ():
                for port in (c.get("ports") or ()) if isinstance(c, dict) else ():
                    if isinstance(port, dict) and not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort")


def _pod_level(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _huge_page_pod_limits(spec: Obj, resources: Obj) -> None:
    """defaultHugePagePodLimits: a pod-level huge page limit defaults to its containers' sum, unless the pod
    requests that size."""
    limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
    if not limits and not requests:
        return
    for name, amount in aggregate(spec, "limits").items():
        if name.startswith("hugepages-") and name not in requests and name not in limits:
            limits[name] = str(amount)
    if limits:
        resources["limits"] = limits


def _pod_requests(spec: Obj, resources: Obj) -> None:
    """defaultPodRequests: pod-level requests default to the containers' effective requests (of resources
    that may be overcommitted), then to the pod-level limits."""
    limits = resources.get("limits") or {}
    if not limits:
        return
    requests = resources.get("requests") or {}
    for name, amount in aggregate(spec, "requests").items():
        if name not in requests and _pod_level(name) and not name.startswith("hugepages-"):
            requests[name] = str(amount)
    for name, amount in limits.items():
        if name not in requests and _pod_level(name):
            requests[name] = amount
    if requests:
        resources["requests"] = requests


def pod_template(obj: Obj) -> None:
    """SetObjectDefaults_PodTemplate: the template and its spec are structs, not pointers, so a template left
    out, null or without a spec is Go's zero value, whose spec defaulting fills all the same."""
    if obj.get("template") is None:
        obj["template"] = {}
    template = obj["template"]
    if isinstance(template, dict):
        if template.get("spec") is None:
            template["spec"] = {}
        if isinstance(template["spec"], dict):
            pod_spec(template["spec"])


def replication_controller(obj: Obj) -> None:
    spec = spec_of(obj)
    template = spec.get("template")
    labels = ((template or {}).get("metadata") or {}).get("labels") if isinstance(template, dict) else None
    if labels:
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        if not obj["metadata"].get("labels"):
            obj["metadata"]["labels"] = dict(labels)
    spec.setdefault("replicas", 1)
    template_of(obj)


# -- services, storage, the rest -----------------------------------------------------------------

def service(obj: Obj) -> None:
    """SetDefaults_Service."""
    spec = spec_of(obj)
    affinity = spec.setdefault("sessionAffinity", "None")
    if affinity == "None":
        spec.pop("sessionAffinityConfig", None)
    elif affinity == "ClientIP":
        timeout = ((spec.get("sessionAffinityConfig") or {}).get("clientIP") or {}).get("timeoutSeconds")
        if timeout is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}
    kind = spec.setdefault("type", "ClusterIP")
    for port in spec.get("ports") or ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
            if port.get("targetPort") in (None, 0, ""):
                port["targetPort"] = port.get("port")
    externally_accessible = kind in ("NodePort", "LoadBalancer") or \
        (kind == "ClusterIP" and bool(spec.get("externalIPs")))
    if externally_accessible and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and kind in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if kind == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)
        status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
        for point in (status.get("loadBalancer") or {}).get("ingress") or ():
            if isinstance(point, dict) and point.get("ip") and point.get("ipMode") is None:
                point["ipMode"] = "VIP"


def persistent_volume_claim(obj: Obj) -> None:
    spec_of(obj).setdefault("volumeMode", "Filesystem")
    obj.setdefault("status", {}).setdefault("phase", "Pending")


def persistent_volume(obj: Obj) -> None:
    spec = spec_of(obj)
    spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
    spec.setdefault("volumeMode", "Filesystem")
    volume_source(spec)
    obj.setdefault("status", {}).setdefault("phase", "Pending")


def namespace(obj: Obj) -> None:
    # A namespace can always be selected by its name; one named by generateName gets the label from its
    # create strategy, once named (so its creator's managedFields do not own it).
    name = obj["metadata"].get("name")
    if name:
        obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name
    obj.setdefault("status", {}).setdefault("phase", "Active")


def secret(obj: Obj) -> None:
    # SetDefaults_Secret sets an empty type too.
    if not obj.get("type"):
        obj["type"] = "Opaque"


def endpoints(obj: Obj) -> None:
    for subset in obj.get("subsets") or ():
        for port in (subset or {}).get("ports") or ():
            if isinstance(port, dict) and not port.get("protocol"):
                port["protocol"] = "TCP"


def limit_range(obj: Obj) -> None:
    """A container's default limit is the max, its default request the default limit, else the min."""
    for item in spec_of(obj).get("limits") or ():
        if not isinstance(item, dict) or item.get("type") != "Container":
            continue
        limit = dict(item.get("default") or {})
        request = dict(item.get("defaultRequest") or {})
        for key, value in (item.get("max") or {}).items():
            limit.setdefault(key, value)
        for source in (limit, item.get("min") or {}):
            for key, value in source.items():
                request.setdefault(key, value)
        if limit:
            item["default"] = dict(sorted(limit.items()))
        if request:
            item["defaultRequest"] = dict(sorted(request.items()))
