"""Printers for the core/v1 kinds other than Pods (see columns/pods.py)."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import (
    AnnotatedMeta,
    LabeledMeta,
    Meta,
    Named,
    age_column,
    column,
    name_column,
    printer,
)
from columns.format import (
    NONE,
    PENDING,
    UNKNOWN,
    UNSET,
    access_modes,
    canonical_quantity,
    epoch,
    format_labels,
    join_more,
    since,
    since_epoch,
)

# --- Namespace, ConfigMap, Secret, ServiceAccount ---------------------------------------

class NamespaceStatus(msgspec.Struct):
    phase: str = ""


class Namespace(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    status: NamespaceStatus = msgspec.field(default_factory=NamespaceStatus)


NAMESPACES = printer(
    [name_column(), column("Status", "The status of the namespace"), age_column()],
    Namespace,
    lambda ns: Row([ns.metadata.name, ns.status.phase, since(ns.metadata.creationTimestamp)]),
)


class ConfigMap(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    data: dict[str, str] = {}
    binaryData: dict[str, str] = {}


CONFIG_MAPS = printer(
    [name_column(),
     column("Data", "Data contains the configuration data. Each key must consist of alphanumeric characters, "
                    "'-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The "
                    "keys stored in Data must not overlap with the keys in the BinaryData field, this is "
                    "enforced during validation process."),
     age_column()],
    ConfigMap,
    lambda cm: Row([cm.metadata.name, len(cm.data) + len(cm.binaryData), since(cm.metadata.creationTimestamp)]),
)


class Secret(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    type: str = ""
    data: dict[str, str] = {}


SECRETS = printer(
    [name_column(),
     column("Type", "Used to facilitate programmatic handling of secret data. More info: "
                    "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
     column("Data", "Data contains the secret data. Each key must consist of alphanumeric characters, '-', "
                    "'_' or '.'. The serialized form of the secret data is a base64 encoded string, "
                    "representing the arbitrary (possibly non-string) data value here. Described in "
                    "https://tools.ietf.org/html/rfc4648#section-4"),
     age_column()],
    Secret,
    lambda s: Row([s.metadata.name, s.type, len(s.data), since(s.metadata.creationTimestamp)]),
)

SERVICE_ACCOUNTS = printer(
    [name_column(), age_column()],
    Named,
    lambda sa: Row([sa.metadata.name, since(sa.metadata.creationTimestamp)]),
)


# --- Service ----------------------------------------------------------------------------

class ServicePort(msgspec.Struct):
    port: int = 0
    nodePort: int = 0
    protocol: str = ""


class ServiceSpec(msgspec.Struct):
    type: str = ""
    clusterIP: str = ""
    clusterIPs: list[str] = []
    externalIPs: list[str] = []
    externalName: str = ""
    ports: list[ServicePort] = []
    selector: dict[str, str] = {}


class LoadBalancerIngress(msgspec.Struct):
    ip: str = ""
    hostname: str = ""


class LoadBalancerStatus(msgspec.Struct):
    ingress: list[LoadBalancerIngress] = []


class ServiceStatus(msgspec.Struct):
    loadBalancer: LoadBalancerStatus = msgspec.field(default_factory=LoadBalancerStatus)


class Service(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: ServiceSpec = msgspec.field(default_factory=ServiceSpec)
    status: ServiceStatus = msgspec.field(default_factory=ServiceStatus)


def load_balancer_addresses(status: LoadBalancerStatus) -> str:
    """Each ingress point's IP (or else hostname), sorted and once; never clipped, tables are wide."""
    return ",".join(sorted({i.ip or i.hostname for i in status.ingress if i.ip or i.hostname}))


def external_ip(service: Service) -> str:
    spec = service.spec
    if spec.type in ("ClusterIP", "NodePort"):
        return ",".join(spec.externalIPs) or NONE
    if spec.type == "LoadBalancer":
        balancer = load_balancer_addresses(service.status.loadBalancer)
        if spec.externalIPs:
            return ",".join(([balancer] if balancer else []) + spec.externalIPs)
        return balancer or PENDING
    if spec.type == "ExternalName":
        return spec.externalName
    return UNKNOWN


def port_string(ports: list[ServicePort]) -> str:
    return ",".join(f"{p.port}:{p.nodePort}/{p.protocol}" if p.nodePort > 0 else f"{p.port}/{p.protocol}"
                    for p in ports)


def service_row(service: Service) -> Row:
    spec = service.spec
    # Upstream stores clusterIPs filled from a lone clusterIP and prints its first entry.
    cluster_ip = spec.clusterIPs[0] if spec.clusterIPs else spec.clusterIP
    return Row([service.metadata.name, spec.type, cluster_ip or NONE, external_ip(service),
                port_string(spec.ports) or NONE, since(service.metadata.creationTimestamp),
                format_labels(spec.selector)])


SERVICES = printer(
    [name_column(),
     column("Type", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are "
                    "ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a "
                    "cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by "
                    "the selector or if that is not specified, by manual construction of an Endpoints object "
                    "or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the "
                    "endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" "
                    "builds on ClusterIP and allocates a port on every node which routes to the same endpoints "
                    "as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external "
                    "load-balancer (if supported in the current cloud) which routes to the same endpoints as "
                    "the clusterIP. \"ExternalName\" aliases this service to the specified externalName. "
                    "Several other fields do not apply to ExternalName services. More info: "
                    "https://kubernetes.io/docs/concepts/services-networking/service/"
                    "#publishing-services-service-types"),
     column("Cluster-IP", "clusterIP is the IP address of the service and is usually assigned randomly. If an "
                          "address is specified manually, is in-range (as per system configuration), and is not "
                          "in use, it will be allocated to the service; otherwise creation of the service will "
                          "fail. This field may not be changed through updates unless the type field is also "
                          "being changed to ExternalName (which requires this field to be blank) or the type "
                          "field is being changed from ExternalName (in which case this field may optionally be "
                          "specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a "
                          "valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual "
                          "IP), which is useful when direct endpoint connections are preferred and proxying is "
                          "not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this "
                          "field is specified when creating a Service of type ExternalName, creation will fail. "
                          "This field will be wiped when updating a Service to type ExternalName. More info: "
                          "https://kubernetes.io/docs/concepts/services-networking/service/"
                          "#virtual-ips-and-service-proxies"),
     column("External-IP", "externalIPs is a list of IP addresses for which nodes in the cluster will also "
                           "accept traffic for this service.  These IPs are not managed by Kubernetes.  The user "
                           "is responsible for ensuring that traffic arrives at a node with this IP.  A common "
                           "example is external load-balancers that are not part of the Kubernetes system."),
     column("Port(s)", "The list of ports that are exposed by this service. More info: "
                       "https://kubernetes.io/docs/concepts/services-networking/service/"
                       "#virtual-ips-and-service-proxies"),
     age_column(),
     column("Selector", "Route service traffic to pods with label keys and values matching this selector. If "
                        "empty or not present, the service is assumed to have an external process managing its "
                        "endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, "
                        "and LoadBalancer. Ignored if type is ExternalName. More info: "
                        "https://kubernetes.io/docs/concepts/services-networking/service/", priority=1)],
    Service,
    service_row,
)


# --- Endpoints --------------------------------------------------------------------------

class EndpointAddress(msgspec.Struct):
    ip: str = ""


class EndpointPort(msgspec.Struct):
    port: int = 0


class EndpointSubset(msgspec.Struct):
    addresses: list[EndpointAddress] = []
    ports: list[EndpointPort] = []


class Endpoints(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    subsets: list[EndpointSubset] = []


def host_port(ip: str, port: int) -> str:
    """net.JoinHostPort: IPv6 addresses go in brackets."""
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def format_endpoints(subsets: list[EndpointSubset]) -> str:
    """Ready addresses (with each port), the first three shown."""
    if not subsets:
        return NONE
    shown: list[str] = []
    count = 0
    for subset in subsets:
        if not subset.ports:  # headless services may have addresses without ports
            count += len(subset.addresses)
            shown += [address.ip for address in subset.addresses[:max(0, 3 - len(shown))]]
        for port in subset.ports:
            count += len(subset.addresses)
            shown += [host_port(address.ip, port.port) for address in subset.addresses[:max(0, 3 - len(shown))]]
    return join_more(shown, count)


ENDPOINTS = printer(
    [name_column(),
     column("Endpoints", "The set of all endpoints is the union of all subsets. Addresses are placed into "
                         "subsets according to the IPs they share. A single address with multiple ports, some "
                         "of which are ready and some of which are not (because they come from different "
                         "containers) will result in the address being displayed in different subsets for the "
                         "different ports. No address will appear in both Addresses and NotReadyAddresses in the "
                         "same subset. Sets of addresses and ports that comprise a service."),
     age_column()],
    Endpoints,
    lambda ep: Row([ep.metadata.name, format_endpoints(ep.subsets), since(ep.metadata.creationTimestamp)]),
)


# --- Node -------------------------------------------------------------------------------

class NodeCondition(msgspec.Struct):
    type: str = ""
    status: str = ""


class NodeAddress(msgspec.Struct):
    type: str = ""
    address: str = ""


class NodeInfo(msgspec.Struct):
    kubeletVersion: str = ""
    osImage: str = ""
    kernelVersion: str = ""
    containerRuntimeVersion: str = ""
    architecture: str = ""


class NodeStatus(msgspec.Struct):
    conditions: list[NodeCondition] = []
    addresses: list[NodeAddress] = []
    nodeInfo: NodeInfo = msgspec.field(default_factory=NodeInfo)


class NodeSpec(msgspec.Struct):
    unschedulable: bool = False


class Node(msgspec.Struct):
    metadata: LabeledMeta = msgspec.field(default_factory=LabeledMeta)
    spec: NodeSpec = msgspec.field(default_factory=NodeSpec)
    status: NodeStatus = msgspec.field(default_factory=NodeStatus)


ROLE_PREFIX = "node-role.kubernetes.io/"


def node_roles(labels: dict[str, str]) -> str:
    """Roles from node-role.kubernetes.io/<role> label keys and the kubernetes.io/role value."""
    roles = {key[len(ROLE_PREFIX):] for key in labels if key.startswith(ROLE_PREFIX) and key != ROLE_PREFIX}
    if labels.get("kubernetes.io/role"):
        roles.add(labels["kubernetes.io/role"])
    return ",".join(sorted(roles)) or NONE


def node_row(node: Node) -> Row:
    status = node.status
    # Only the Ready condition counts; the last one of that type wins, as in upstream's map.
    ready = [c.status for c in status.conditions if c.type == "Ready"]
    states = [("Ready" if ready[-1] == "True" else "NotReady") if ready else "Unknown"]
    if node.spec.unschedulable:
        states.append("SchedulingDisabled")
    info = status.nodeInfo
    kernel = info.kernelVersion or UNKNOWN
    if info.kernelVersion and info.architecture:
        kernel = f"{info.kernelVersion} ({info.architecture})"
    return Row([node.metadata.name, ",".join(states), node_roles(node.metadata.labels),
                since(node.metadata.creationTimestamp), info.kubeletVersion,
                next((a.address for a in status.addresses if a.type == "InternalIP"), NONE),
                next((a.address for a in status.addresses if a.type == "ExternalIP"), NONE),
                info.osImage or UNKNOWN, kernel, info.containerRuntimeVersion or UNKNOWN])


_ADDRESSES = ("List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
              "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as "
              "mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it "
              "is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for "
              "an example. Consumers should assume that addresses can change during the lifetime of a Node. "
              "However, there are some exceptions where this may not be possible, such as Pods that inherit a "
              "Node's address in its own status or consumers of the downward API (status.hostIP).")

NODES = printer(
    [name_column(), column("Status", "The status of the node"), column("Roles", "The roles of the node"),
     age_column(), column("Version", "Kubelet Version reported by the node."),
     column("Internal-IP", _ADDRESSES, priority=1), column("External-IP", _ADDRESSES, priority=1),
     column("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 "
                        "(wheezy)).", priority=1),
     column("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. "
                              "3.16.0-0.bpo.4-amd64).", priority=1),
     column("Container-Runtime", "ContainerRuntime Version reported by the node through runtime remote API "
                                 "(e.g. containerd://1.4.2).", priority=1)],
    Node,
    node_row,
)


# --- Event (core/v1 and events.k8s.io/v1 share the stored core/v1 objects) --------------

class ObjectReference(msgspec.Struct):
    kind: str = ""
    name: str = ""
    fieldPath: str = ""


class EventSource(msgspec.Struct):
    component: str = ""
    host: str = ""


class EventSeries(msgspec.Struct):
    count: int = 0
    lastObservedTime: str | None = None


class Event(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    involvedObject: ObjectReference = msgspec.field(default_factory=ObjectReference)
    reason: str = ""
    message: str = ""
    type: str = ""
    source: EventSource = msgspec.field(default_factory=EventSource)
    reportingComponent: str = ""
    reportingInstance: str = ""
    firstTimestamp: str | None = None
    lastTimestamp: str | None = None
    eventTime: str | None = None
    count: int = 0
    series: EventSeries | None = None


def event_row(event: Event) -> Row:
    first = epoch(event.firstTimestamp)
    if first is None:
        first = epoch(event.eventTime)
    last = epoch(event.lastTimestamp)
    if last is None:
        last = first
    count = event.count or 1  # singleton events of the new API leave count unset
    if event.series is not None:
        last, count = epoch(event.series.lastObservedTime), event.series.count
    target = event.involvedObject.kind.lower()
    if event.involvedObject.name:
        target += "/" + event.involvedObject.name
    component = event.source.component or event.reportingComponent
    instance = event.source.host or event.reportingInstance
    return Row([since_epoch(last), event.type, event.reason, target, event.involvedObject.fieldPath,
                f"{component}, {instance}" if instance else component, event.message.strip(),
                since_epoch(first), count, event.metadata.name])



_EVENT_TYPE = "Type of this event (Normal, Warning), new types could be added in the future"

EVENTS = printer(
    [column("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
     column("Type", _EVENT_TYPE),
     column("Reason", "This should be a short, machine understandable string that gives the reason for the "
                      "transition into the object's current status."),
     column("Object", "The object that this event is about."),
     column("Subobject", "If referring to a piece of an object instead of an entire object, this string "
                         "should contain a valid JSON/Go field access statement, such as "
                         "desiredState.manifest.containers[2]. For example, if the object reference is to a "
                         "container within a pod, this would take on a value like: \"spec.containers{name}\" "
                         "(where \"name\" refers to the name of the container that triggered the event) or if "
                         "no container name is specified \"spec.containers[2]\" (container with index 2 in this "
                         "pod). This syntax is chosen only to have some well-defined way of referencing a part "
                         "of an object.", priority=1),
     column("Source", "The component reporting this event. Should be a short machine understandable string.",
            priority=1),
     column("Message", "A human-readable description of the status of this operation."),
     column("First Seen", "The time at which the event was first recorded. (Time of server receipt is in "
                          "TypeMeta.)", priority=1),
     column("Count", "The number of times this event has occurred.", priority=1),
     name_column(priority=1)],
    Event,
    event_row,
)


# --- PersistentVolume and PersistentVolumeClaim ------------------------------------------

BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


class ClaimRef(msgspec.Struct):
    namespace: str = ""
    name: str = ""


class VolumeSpec(msgspec.Struct):
    capacity: dict[str, str | int | float] = {}
    accessModes: list[str] = []
    persistentVolumeReclaimPolicy: str = ""
    claimRef: ClaimRef | None = None
    storageClassName: str = ""
    volumeAttributesClassName: str | None = None
    volumeMode: str | None = None


class VolumeStatus(msgspec.Struct):
    phase: str = ""
    reason: str = ""


class PersistentVolume(msgspec.Struct):
    metadata: AnnotatedMeta = msgspec.field(default_factory=AnnotatedMeta)
    spec: VolumeSpec = msgspec.field(default_factory=VolumeSpec)
    status: VolumeStatus = msgspec.field(default_factory=VolumeStatus)


def volume_row(pv: PersistentVolume) -> Row:
    spec, meta = pv.spec, pv.metadata
    claim = f"{spec.claimRef.namespace}/{spec.claimRef.name}" if spec.claimRef is not None else ""
    phase = "Terminating" if meta.deletionTimestamp is not None else pv.status.phase
    storage_class = meta.annotations.get(BETA_STORAGE_CLASS, spec.storageClassName)
    return Row([meta.name, canonical_quantity(str(spec.capacity.get("storage", 0))), access_modes(spec.accessModes),
                spec.persistentVolumeReclaimPolicy, phase, claim, storage_class,
                UNSET if spec.volumeAttributesClassName is None else spec.volumeAttributesClassName,
                pv.status.reason, since(meta.creationTimestamp),
                UNSET if spec.volumeMode is None else spec.volumeMode])


PERSISTENT_VOLUMES = printer(
    [name_column(),
     column("Capacity", "capacity is the description of the persistent volume's resources and capacity. More "
                        "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
     column("Access Modes", "accessModes contains all ways the volume can be mounted. More info: "
                            "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"),
     column("Reclaim Policy", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when "
                              "released from its claim. Valid options are Retain (default for manually created "
                              "PersistentVolumes), Delete (default for dynamically provisioned "
                              "PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the "
                              "volume plugin underlying this PersistentVolume. More info: "
                              "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"),
     column("Status", "phase indicates if a volume is available, bound to a claim, or released by a claim. "
                      "More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"),
     column("Claim", "claimRef is part of a bi-directional binding between PersistentVolume and "
                     "PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the "
                     "authoritative bind between PV and PVC. More info: "
                     "https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"),
     column("StorageClass", "StorageClass of the pv"),
     column("VolumeAttributesClass", "VolumeAttributesClass of the pv"),
     column("Reason", "reason is a brief CamelCase string that describes any failure and is meant for machine "
                      "parsing and tidy display in the CLI."),
     age_column(),
     column("VolumeMode", "volumeMode defines if a volume is intended to be used with a formatted filesystem "
                          "or to remain in raw block state. Value of Filesystem is implied when not included in "
                          "spec.", priority=1)],
    PersistentVolume,
    volume_row,
)


class ClaimSpec(msgspec.Struct):
    volumeName: str = ""
    storageClassName: str | None = None
    volumeAttributesClassName: str | None = None
    volumeMode: str | None = None


class ClaimStatus(msgspec.Struct):
    phase: str = ""
    accessModes: list[str] = []
    capacity: dict[str, str | int | float] = {}


class PersistentVolumeClaim(msgspec.Struct):
    metadata: AnnotatedMeta = msgspec.field(default_factory=AnnotatedMeta)
    spec: ClaimSpec = msgspec.field(default_factory=ClaimSpec)
    status: ClaimStatus = msgspec.field(default_factory=ClaimStatus)


def claim_row(pvc: PersistentVolumeClaim) -> Row:
    spec, meta = pvc.spec, pvc.metadata
    phase = "Terminating" if meta.deletionTimestamp is not None else pvc.status.phase
    capacity = modes = ""
    # Capacity and access modes are the bound volume's, so only shown once bound.
    if spec.volumeName:
        modes = access_modes(pvc.status.accessModes)
        capacity = canonical_quantity(str(pvc.status.capacity.get("storage", 0)))
    storage_class = meta.annotations.get(BETA_STORAGE_CLASS, spec.storageClassName or "")
    return Row([meta.name, phase, spec.volumeName, capacity, modes, storage_class,
                UNSET if spec.volumeAttributesClassName is None else spec.volumeAttributesClassName,
                since(meta.creationTimestamp), UNSET if spec.volumeMode is None else spec.volumeMode])


PERSISTENT_VOLUME_CLAIMS = printer(
    [name_column(),
     column("Status", "phase represents the current phase of PersistentVolumeClaim."),
     column("Volume", "volumeName is the binding reference to the PersistentVolume backing this claim."),
     column("Capacity", "capacity represents the actual resources of the underlying volume."),
     column("Access Modes", "accessModes contains the actual access modes the volume backing the PVC has. More "
                            "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes"
                            "#access-modes-1"),
     column("StorageClass", "StorageClass of the pvc"),
     column("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
     age_column(),
     column("VolumeMode", "volumeMode defines what type of volume is required by the claim. Value of "
                          "Filesystem is implied when not included in claim spec.", priority=1)],
    PersistentVolumeClaim,
    claim_row,
)
