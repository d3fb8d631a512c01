"""Printers for the core/v1 kinds other than Pods (see columns/pods.py); LimitRanges have none."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import (
    CONTAINERS_DESCRIPTION,
    IMAGES_DESCRIPTION,
    LabeledMeta,
    Meta,
    Named,
    age_column,
    column,
    name_column,
    printer,
    template_columns,
)
from columns.format import (
    NONE,
    PENDING,
    UNKNOWN,
    Container,
    canonical_quantity,
    container_cells,
    format_labels,
    join_more,
    since,
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
    # 1.36 shows the architecture after the kernel, after an unknown kernel too.
    kernel = info.kernelVersion or UNKNOWN
    if info.architecture:
        kernel = f"{kernel} ({info.architecture})"
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


# --- ReplicationController, PodTemplate -------------------------------------------------

class TemplateSpec(msgspec.Struct):
    containers: list[Container] = []


class Template(msgspec.Struct):
    metadata: LabeledMeta = msgspec.field(default_factory=LabeledMeta)
    spec: TemplateSpec = msgspec.field(default_factory=TemplateSpec)


class ControllerSpec(msgspec.Struct):
    replicas: int = 0
    selector: dict[str, str] = {}
    template: Template | None = None


class ControllerStatus(msgspec.Struct):
    replicas: int = 0
    readyReplicas: int = 0


class ReplicationController(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: ControllerSpec = msgspec.field(default_factory=ControllerSpec)
    status: ControllerStatus = msgspec.field(default_factory=ControllerStatus)


def replication_controller_row(rc: ReplicationController) -> Row:
    spec = rc.spec
    names, images = container_cells([] if spec.template is None else spec.template.spec.containers)
    return Row([rc.metadata.name, spec.replicas, rc.status.replicas, rc.status.readyReplicas,
                since(rc.metadata.creationTimestamp), names, images, format_labels(spec.selector)])


REPLICATION_CONTROLLERS = printer(
    [name_column(),
     column("Desired", "Replicas is the number of desired replicas. This is a pointer to distinguish between "
                       "explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/"
                       "workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", type="integer"),
     column("Current", "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/"
                       "docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
            type="integer"),
     column("Ready", "The number of ready replicas for this replication controller.", type="integer"),
     age_column(),
     *template_columns("Selector is a label query over pods that should match the Replicas count. If Selector is "
                       "empty, it is defaulted to the labels present on the Pod template. Label keys and values "
                       "that must match in order to be controlled by this replication controller, if empty "
                       "defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/"
                       "overview/working-with-objects/labels/#label-selectors")],
    ReplicationController,
    replication_controller_row,
)


class PodTemplate(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    template: Template = msgspec.field(default_factory=Template)


def pod_template_row(pt: PodTemplate) -> Row:
    names, images = container_cells(pt.template.spec.containers)
    return Row([pt.metadata.name, names, images, format_labels(pt.template.metadata.labels)])


POD_TEMPLATES = printer(
    [name_column(), column("Containers", CONTAINERS_DESCRIPTION), column("Images", IMAGES_DESCRIPTION),
     column("Pod Labels", "The labels for the pod template.")],
    PodTemplate,
    pod_template_row,
)


# --- ResourceQuota, ComponentStatus -----------------------------------------------------

class QuotaStatus(msgspec.Struct):
    hard: dict[str, str | int | float] = {}
    used: dict[str, str | int | float] = {}


class ResourceQuota(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    status: QuotaStatus = msgspec.field(default_factory=QuotaStatus)


def resource_quota_row(quota: ResourceQuota) -> Row:
    """Each enforced resource as "name: used/hard", sorted by name; `limits.*` in LIMIT, the rest in REQUEST."""
    requests: list[str] = []
    limits: list[str] = []
    status = quota.status
    for name in sorted(status.hard):
        used = canonical_quantity(str(status.used.get(name, 0)))
        entry = f"{name}: {used}/{canonical_quantity(str(status.hard[name]))}"
        prefix, dot, _ = name.partition(".")
        (limits if dot and prefix == "limits" else requests).append(entry)
    return Row([quota.metadata.name, ", ".join(requests), ", ".join(limits), since(quota.metadata.creationTimestamp)])


RESOURCE_QUOTAS = printer(
    [name_column(),
     column("Request", "Request represents a minimum amount of cpu/memory that a container may consume."),
     column("Limit", "Limits control the maximum amount of cpu/memory that a container may use independent of "
                     "contention on the node."),
     age_column()],
    ResourceQuota,
    resource_quota_row,
)


class ComponentCondition(msgspec.Struct):
    type: str = ""
    status: str = ""
    message: str = ""
    error: str = ""


class ComponentStatus(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    conditions: list[ComponentCondition] = []


def component_status_row(cs: ComponentStatus) -> Row:
    """The first Healthy condition's verdict, message and error; Unknown without one."""
    for condition in cs.conditions:
        if condition.type == "Healthy":
            verdict = "Healthy" if condition.status == "True" else "Unhealthy"
            return Row([cs.metadata.name, verdict, condition.message, condition.error])
    return Row([cs.metadata.name, "Unknown", "", ""])


COMPONENT_STATUSES = printer(
    [name_column(), column("Status", "Status of the component conditions"),
     column("Message", "Message of the component conditions"), column("Error", "Error of the component conditions")],
    ComponentStatus,
    component_status_row,
)
