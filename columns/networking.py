"""Printers for networking.k8s.io/v1 (Ingresses, IngressClasses, NetworkPolicies, ServiceCIDRs,
IPAddresses) and discovery.k8s.io/v1 EndpointSlices."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.core import LoadBalancerStatus, load_balancer_addresses
from columns.declare import Entry, Meta, age_column, column, name_column, printer
from columns.format import NONE, UNSET, LabelSelector, format_label_selector, join_more, since


class IngressRule(msgspec.Struct):
    host: str = ""


class IngressSpec(msgspec.Struct):
    ingressClassName: str | None = None
    rules: list[IngressRule] = []
    tls: list[Entry] = []


class IngressStatus(msgspec.Struct):
    loadBalancer: LoadBalancerStatus = msgspec.field(default_factory=LoadBalancerStatus)


class Ingress(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: IngressSpec = msgspec.field(default_factory=IngressSpec)
    status: IngressStatus = msgspec.field(default_factory=IngressStatus)


def format_hosts(rules: list[IngressRule]) -> str:
    """The hosts of the rules until three are found; `*` when no rule names a host."""
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == 3:
            more = True
            break
        if rule.host:
            hosts.append(rule.host)
    if not hosts:
        return "*"
    # Upstream counts the rules left out, hostless ones included.
    return f"{','.join(hosts)} + {len(rules) - 3} more..." if more else ",".join(hosts)


def ingress_row(ingress: Ingress) -> Row:
    spec = ingress.spec
    return Row([ingress.metadata.name, NONE if spec.ingressClassName is None else spec.ingressClassName,
                format_hosts(spec.rules), load_balancer_addresses(ingress.status.loadBalancer),
                "80, 443" if spec.tls else "80", since(ingress.metadata.creationTimestamp)])


INGRESSES = printer(
    [name_column(),
     column("Class", "The name of the IngressClass resource that should be used for additional configuration"),
     column("Hosts", "Hosts that incoming requests are matched against before the ingress rule"),
     column("Address", "Address is a list containing ingress points for the load-balancer"),
     column("Ports", "Ports of TLS configurations that open"),
     age_column()],
    Ingress,
    ingress_row,
)


class Parameters(msgspec.Struct):
    kind: str = ""
    apiGroup: str | None = None
    name: str = ""


class IngressClassSpec(msgspec.Struct):
    controller: str = ""
    parameters: Parameters | None = None


class IngressClass(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: IngressClassSpec = msgspec.field(default_factory=IngressClassSpec)


def ingress_class_row(ic: IngressClass) -> Row:
    parameters = NONE
    if (ref := ic.spec.parameters) is not None:
        group = "" if ref.apiGroup is None else "." + ref.apiGroup
        parameters = f"{ref.kind}{group}/{ref.name}"
    return Row([ic.metadata.name, ic.spec.controller, parameters, since(ic.metadata.creationTimestamp)])


INGRESS_CLASSES = printer(
    [name_column(), column("Controller", "Controller that is responsible for handling this class"),
     column("Parameters", "A reference to a resource with additional parameters"), age_column()],
    IngressClass,
    ingress_class_row,
)


class SlicePort(msgspec.Struct):
    port: int | None = None
    name: str | None = None


class SliceEndpoint(msgspec.Struct):
    addresses: list[str] = []


class EndpointSlice(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    addressType: str = ""
    ports: list[SlicePort] = []
    endpoints: list[SliceEndpoint] = []


def _with_more(items: list[str], count: int) -> str:
    """Three items then the rest counted; `<unset>` when there are none."""
    return join_more(items[:3], count) or UNSET


def endpoint_slice_row(es: EndpointSlice) -> Row:
    ports = [str(p.port) if p.port is not None else p.name if p.name is not None else "*" for p in es.ports]
    addresses = [address for endpoint in es.endpoints for address in endpoint.addresses]
    return Row([es.metadata.name, es.addressType, _with_more(ports, len(ports)),
                _with_more(addresses, len(addresses)), since(es.metadata.creationTimestamp)])


ENDPOINT_SLICES = printer(
    [name_column(),
     column("AddressType", "addressType specifies the type of address carried by this EndpointSlice. All "
                           "addresses in this slice must be the same type. This field is immutable after "
                           "creation. The following address types are currently supported: * IPv4: Represents "
                           "an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully "
                           "Qualified Domain Name. (Deprecated) The EndpointSlice controller only generates, and "
                           "kube-proxy only processes, slices of addressType \"IPv4\" and \"IPv6\". No semantics "
                           "are defined for the \"FQDN\" type."),
     column("Ports", "ports specifies the list of network ports exposed by each endpoint in this slice. Each port "
                     "must have a unique name. Each slice may include a maximum of 100 ports. Services always "
                     "have at least 1 port, so EndpointSlices generated by the EndpointSlice controller will "
                     "likewise always have at least 1 port. EndpointSlices used for other purposes may have an "
                     "empty ports list."),
     column("Endpoints", "endpoints is a list of unique endpoints in this slice. Each slice may include a "
                         "maximum of 1000 endpoints."),
     age_column()],
    EndpointSlice,
    endpoint_slice_row,
)


class NetworkPolicySpec(msgspec.Struct):
    podSelector: LabelSelector = msgspec.field(default_factory=LabelSelector)


class NetworkPolicy(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: NetworkPolicySpec = msgspec.field(default_factory=NetworkPolicySpec)


NETWORK_POLICIES = printer(
    [name_column(),
     column("Pod-Selector", "podSelector selects the pods to which this NetworkPolicy object applies. The array of "
                            "rules is applied to any pods selected by this field. An empty selector matches all "
                            "pods in the policy's namespace. Multiple network policies can select the same set of "
                            "pods. In this case, the ingress rules for each are combined additively. This field is "
                            "optional. If it is not specified, it defaults to an empty selector."),
     age_column()],
    NetworkPolicy,
    lambda np: Row([np.metadata.name, format_label_selector(np.spec.podSelector),
                    since(np.metadata.creationTimestamp)]),
)


class ServiceCIDRSpec(msgspec.Struct):
    cidrs: list[str] = []


class ServiceCIDR(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: ServiceCIDRSpec = msgspec.field(default_factory=ServiceCIDRSpec)


SERVICE_CIDRS = printer(
    [name_column(),
     column("CIDRs", "CIDRs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or \"2001:db8::/64\") "
                     "from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. "
                     "This field is immutable."),
     age_column()],
    ServiceCIDR,
    lambda cidr: Row([cidr.metadata.name, ",".join(cidr.spec.cidrs), since(cidr.metadata.creationTimestamp)]),
)


class ParentRef(msgspec.Struct):
    group: str = ""
    resource: str = ""
    namespace: str = ""
    name: str = ""


class IPAddressSpec(msgspec.Struct):
    parentRef: ParentRef | None = None


class IPAddress(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: IPAddressSpec = msgspec.field(default_factory=IPAddressSpec)


def parent_ref(ref: ParentRef | None) -> str:
    """"resource.group[/namespace]/name" in lower case, `<none>` without a parent."""
    if ref is None:
        return NONE
    resource = f"{ref.resource}.{ref.group}" if ref.group else ref.resource
    namespace = f"/{ref.namespace}" if ref.namespace else ""
    return f"{resource.lower()}{namespace}/{ref.name}"


# Upstream declares no Age column for IPAddresses but still writes the age as a third cell.
IP_ADDRESSES = printer(
    [name_column(),
     column("ParentRef", "ParentRef references the resource that an IPAddress is attached to. An IPAddress must "
                         "reference a parent object.")],
    IPAddress,
    lambda ip: Row([ip.metadata.name, parent_ref(ip.spec.parentRef), since(ip.metadata.creationTimestamp)]),
    undeclared=1,
)
