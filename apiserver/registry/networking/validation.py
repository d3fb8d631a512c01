"""networking.k8s.io/v1 validation: pkg/apis/networking/validation/validation.go, every function, in its
order (NetworkPolicy, Ingress, IngressClass, IPAddress, ServiceCIDR).

Metadata is judged by the write path (`registry/meta.py`); these are the rest of each Validate*.
Feature gates at their 1.36 defaults: RelaxedServiceNameValidation (beta, on) judges a backend's
service name as a DNS label; StrictIPCIDRValidation (beta, on) is `ip_validation`'s strict mode.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import ip_validation as ip
from apiserver.kinds.validation import (
    dns1123_label,
    dns1123_subdomain,
    domain_prefixed_path,
    path_segment_name,
    port_name,
    port_number,
    wildcard_dns1123_subdomain,
)
from apiserver.registry import field
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

_PROTOCOLS = ("TCP", "UDP", "SCTP")
_POLICY_TYPES = ("Ingress", "Egress")
_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")  # sets.List(): sorted
_INVALID_PATH_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_INVALID_PATH_SUFFIXES = ("/..", "/.")
_SCOPES = ("Cluster", "Namespace")
_INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


# NetworkPolicy

def _network_policy_port(port: Obj, path: str) -> list[FieldError]:
    """ValidateNetworkPolicyPort."""
    found: list[FieldError] = []
    protocol = port.get("protocol")
    if protocol is not None and protocol not in _PROTOCOLS:
        found.append(field.not_supported(f"{path}.protocol", protocol, _PROTOCOLS))
    value, end = port.get("port"), port.get("endPort")
    if value is None:
        if end is not None:
            found.append(field.invalid(f"{path}.endPort", end, "may not be specified when `port` is not specified"))
    elif isinstance(value, int):
        found += [field.invalid(f"{path}.port", value, msg) for msg in port_number(value)]
        if end is not None:
            if end < value:
                found.append(field.invalid(f"{path}.endPort", value, "must be greater than or equal to `port`"))
            found += [field.invalid(f"{path}.endPort", end, msg) for msg in port_number(end)]
    else:
        if end is not None:
            found.append(field.invalid(f"{path}.endPort", end, "may not be specified when `port` is non-numeric"))
        found += [field.invalid(f"{path}.port", value, msg) for msg in port_name(_str(value))]
    return found


def _network_policy_peer(peer: Obj, path: str, allowed_cidrs: tuple[str, ...]) -> list[FieldError]:
    """ValidateNetworkPolicyPeer: exactly one kind of peer, or selectors without an ipBlock."""
    found: list[FieldError] = []
    peers = 0
    for name in ("podSelector", "namespaceSelector"):
        if peer.get(name) is not None:
            peers += 1
            found += label_selector(peer[name], f"{path}.{name}")
    if peer.get("ipBlock") is not None:
        peers += 1
        found += ip_block(_dict(peer["ipBlock"]), f"{path}.ipBlock", allowed_cidrs)
    if peers == 0:
        found.append(field.required(path, "must specify a peer"))
    elif peers > 1 and peer.get("ipBlock") is not None:
        found.append(field.forbidden(path, "may not specify both ipBlock and another peer"))
    return found


def ip_block(block: Obj, path: str, allowed_cidrs: tuple[str, ...]) -> list[FieldError]:
    """ValidateIPBlock: a CIDR and exceptions strictly inside it; the old object's CIDRs stand unjudged."""
    cidr = _str(block.get("cidr"))
    if not cidr:
        return [field.required(f"{path}.cidr")]
    found = ip.valid_cidr_for_legacy_field(f"{path}.cidr", cidr, allowed_cidrs)
    network = ip.parse_cidr_sloppy(cidr)
    if network is None:
        return found
    for i, except_cidr in enumerate(_list(block.get("except"))):
        at = f"{path}.except[{i}]"
        except_cidr = _str(except_cidr)
        found += ip.valid_cidr_for_legacy_field(at, except_cidr, allowed_cidrs)
        excepted = ip.parse_cidr_sloppy(except_cidr)
        if excepted is None:
            continue
        if not ip.contains(network[1], network[2], excepted[1]) or network[2] >= excepted[2]:
            found.append(field.invalid(at, except_cidr, "must be a strict subset of `cidr`"))
    return found


def _network_policy_spec(spec: Obj, allowed_cidrs: tuple[str, ...]) -> list[FieldError]:
    """ValidateNetworkPolicySpec."""
    found = label_selector(spec.get("podSelector"), "spec.podSelector")
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(_list(spec.get(direction))):
            at = f"spec.{direction}[{i}]"
            rule = _dict(rule)
            for j, port in enumerate(_list(rule.get("ports"))):
                found += _network_policy_port(_dict(port), f"{at}.ports[{j}]")
            for j, peer in enumerate(_list(rule.get(peers))):
                found += _network_policy_peer(_dict(peer), f"{at}.{peers}[{j}]", allowed_cidrs)
    policy_types = _list(spec.get("policyTypes"))
    if len(policy_types) > len(_POLICY_TYPES):
        return found + [field.invalid("spec.policyTypes", policy_types, "may not specify more than two policyTypes")]
    for i, policy_type in enumerate(policy_types):
        if policy_type not in _POLICY_TYPES:
            found.append(field.not_supported(f"spec.policyTypes[{i}]", policy_type, _POLICY_TYPES))
    return found


def network_policy(obj: Obj) -> list[FieldError]:
    return _network_policy_spec(_dict(obj.get("spec")), ())


def _policy_cidrs(obj: Obj) -> tuple[str, ...]:
    """Every CIDR the old policy holds: an update may keep them even where they are no longer valid."""
    cidrs: list[str] = []
    spec = _dict(obj.get("spec"))
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for rule in _list(spec.get(direction)):
            for peer in _list(_dict(rule).get(peers)):
                block = _dict(peer).get("ipBlock")
                if isinstance(block, dict):
                    cidrs.append(_str(block.get("cidr")))
                    cidrs += [_str(c) for c in _list(block.get("except"))]
    return tuple(cidrs)


def network_policy_update(new: Obj, old: Obj) -> list[FieldError]:
    return _network_policy_spec(_dict(new.get("spec")), _policy_cidrs(old))


def network_policy_warnings(obj: Obj) -> list[str]:
    """networkPolicyWarnings: CIDRs written in a form the strict parser would not take."""
    warnings: list[str] = []
    spec = _dict(obj.get("spec"))
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(_list(spec.get(direction))):
            for j, peer in enumerate(_list(_dict(rule).get(peers))):
                block = _dict(peer).get("ipBlock")
                if not isinstance(block, dict):
                    continue
                at = f"spec.{direction}[{i}].{peers}[{j}].ipBlock"
                warnings += ip.cidr_warnings(f"{at}.cidr", _str(block.get("cidr")))
                for k, except_cidr in enumerate(_list(block.get("except"))):
                    warnings += ip.cidr_warnings(f"{at}.except[{k}]", _str(except_cidr))
    return warnings


# Ingress

def _typed_local_object_reference(ref: Any, path: str) -> list[FieldError]:
    """validateIngressTypedLocalObjectReference."""
    if not isinstance(ref, dict):
        return []
    found: list[FieldError] = []
    if ref.get("apiGroup") is not None:
        found += [field.invalid(f"{path}.apiGroup", ref["apiGroup"], msg)
                  for msg in dns1123_subdomain(_str(ref["apiGroup"]))]
    for name in ("kind", "name"):
        value = _str(ref.get(name))
        if not value:
            found.append(field.required(f"{path}.{name}"))
        else:
            found += [field.invalid(f"{path}.{name}", value, msg) for msg in path_segment_name(value)]
    return found


def _ingress_backend(backend: Obj, path: str) -> list[FieldError]:
    """validateIngressBackend: a resource or a service, the service by name and one kind of port."""
    resource, service = backend.get("resource"), backend.get("service")
    if resource is not None and service is not None:
        return [field.invalid(path, "", "cannot set both resource and service backends")]
    if resource is not None:
        return _typed_local_object_reference(resource, f"{path}.resource")
    if service is None:
        return [field.invalid(path, "", "resource or service backend is required")]
    service = _dict(service)
    found: list[FieldError] = []
    name = _str(service.get("name"))
    if not name:
        found.append(field.required(f"{path}.service.name"))
    else:
        found += [field.invalid(f"{path}.service.name", name, msg) for msg in dns1123_label(name)]
    port = _dict(service.get("port"))
    port_name_value, number = _str(port.get("name")), port.get("number") or 0
    if port_name_value and number:
        found.append(field.invalid(path, "", "cannot set both port name & port number"))
    elif port_name_value:
        found += [field.invalid(f"{path}.service.port.name", port_name_value, msg)
                  for msg in port_name(port_name_value)]
    elif number:
        found += [field.invalid(f"{path}.service.port.number", number, msg) for msg in port_number(number)]
    else:
        found.append(field.required(path, "port name or number is required"))
    return found


def _http_ingress_path(item: Obj, path: str) -> list[FieldError]:
    """validateHTTPIngressPath."""
    path_type = item.get("pathType")
    if path_type is None:
        return [field.required(f"{path}.pathType", "pathType must be specified")]
    found: list[FieldError] = []
    value = _str(item.get("path"))
    if path_type in ("Exact", "Prefix"):
        if not value.startswith("/"):
            found.append(field.invalid(f"{path}.path", value, "must be an absolute path"))
        if value:
            found += [field.invalid(f"{path}.path", value, f"must not contain '{bad}'")
                      for bad in _INVALID_PATH_SEQUENCES if bad in value]
            found += [field.invalid(f"{path}.path", value, f"cannot end with '{bad}'")
                      for bad in _INVALID_PATH_SUFFIXES if value.endswith(bad)]
    elif path_type == "ImplementationSpecific":
        if value and not value.startswith("/"):
            found.append(field.invalid(f"{path}.path", value, "must be an absolute path"))
    else:
        found.append(field.not_supported(f"{path}.pathType", path_type, _PATH_TYPES))
    return found + _ingress_backend(_dict(item.get("backend")), f"{path}.backend")


def _ingress_rule_value(rule: Obj, path: str) -> list[FieldError]:
    """validateIngressRuleValue and validateHTTPIngressRuleValue."""
    http = rule.get("http")
    if http is None:
        return []
    paths = _list(_dict(http).get("paths"))
    found = [] if paths else [field.required(f"{path}.http.paths")]
    for i, item in enumerate(paths):
        found += _http_ingress_path(_dict(item), f"{path}.http.paths[{i}]")
    return found


def _ingress_rules(rules: list[Any], allow_invalid_wildcard_rules: bool) -> list[FieldError]:
    found: list[FieldError] = []
    for i, rule in enumerate(rules):
        rule = _dict(rule)
        at = f"spec.rules[{i}]"
        host = _str(rule.get("host"))
        wildcard = False
        if host:
            if ip.parse_ip_sloppy(host) is not None:
                found.append(field.invalid(f"{at}.host", host, "must be a DNS name, not an IP address"))
            if "*" in host:
                found += [field.invalid(f"{at}.host", host, msg) for msg in wildcard_dns1123_subdomain(host)]
                wildcard = True
            else:
                found += [field.invalid(f"{at}.host", host, msg) for msg in dns1123_subdomain(host)]
        if not wildcard or not allow_invalid_wildcard_rules:
            found += _ingress_rule_value(rule, at)
    return found


def _tls_secret_name(name: str) -> list[str]:
    return list(dns1123_subdomain(name)) if name else []


def _ingress_tls(items: list[Any], allow_invalid_secret_name: bool) -> list[FieldError]:
    found: list[FieldError] = []
    for i, tls in enumerate(items):
        tls = _dict(tls)
        for j, host in enumerate(_list(tls.get("hosts"))):
            host = _str(host)
            check = wildcard_dns1123_subdomain if "*" in host else dns1123_subdomain
            found += [field.invalid(f"spec.tls[{i}].hosts[{j}]", host, msg) for msg in check(host)]
        if not allow_invalid_secret_name:
            secret = _str(tls.get("secretName"))
            found += [field.invalid(f"spec.tls[{i}].secretName", secret, msg) for msg in _tls_secret_name(secret)]
    return found


def _ingress_spec(spec: Obj, old: Obj | None) -> list[FieldError]:
    """ValidateIngressSpec, with the options an update takes from what the old object already held."""
    found: list[FieldError] = []
    rules = spec.get("rules")
    if not rules and spec.get("defaultBackend") is None:
        found.append(field.invalid("spec", rules, "either `defaultBackend` or `rules` must be specified"))
    if spec.get("defaultBackend") is not None:
        found += _ingress_backend(_dict(spec["defaultBackend"]), "spec.defaultBackend")
    if rules:
        found += _ingress_rules(_list(rules), old is not None and _has_invalid_wildcard_rule(old))
    if spec.get("tls"):
        found += _ingress_tls(_list(spec["tls"]), old is not None and _has_invalid_secret_name(old))
    class_name = spec.get("ingressClassName")
    if class_name is not None:
        found += [field.invalid("spec.ingressClassName", class_name, msg)
                  for msg in dns1123_subdomain(_str(class_name))]
    return found


def _has_invalid_secret_name(old: Obj) -> bool:
    return any(_tls_secret_name(_str(_dict(tls).get("secretName")))
               for tls in _list(_dict(old.get("spec")).get("tls")))


def _has_invalid_wildcard_rule(old: Obj) -> bool:
    return any("*" in _str(_dict(rule).get("host")) and _ingress_rule_value(_dict(rule), "")
               for rule in _list(_dict(old.get("spec")).get("rules")))


def ingress(obj: Obj) -> list[FieldError]:
    """ValidateIngressCreate: the spec, and a class annotation agreeing with ingressClassName."""
    spec = _dict(obj.get("spec"))
    found = _ingress_spec(spec, None)
    annotations = _dict(_dict(obj.get("metadata")).get("annotations"))
    class_name = spec.get("ingressClassName")
    if _INGRESS_CLASS_ANNOTATION in annotations and class_name is not None \
            and annotations[_INGRESS_CLASS_ANNOTATION] != class_name:
        found.append(field.invalid(f"annotations.{_INGRESS_CLASS_ANNOTATION}", annotations[_INGRESS_CLASS_ANNOTATION],
                                   "must match `ingressClassName` when both are specified"))
    return found


def ingress_update(new: Obj, old: Obj) -> list[FieldError]:
    return _ingress_spec(_dict(new.get("spec")), old)


def ingress_status_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateIngressLoadBalancerStatus: addresses the old status already held stand unjudged."""
    old_ips = tuple(_str(_dict(i).get("ip")) for i in _list(_dict(_dict(old.get("status")).get("loadBalancer"))
                                                             .get("ingress")) if _dict(i).get("ip"))
    found: list[FieldError] = []
    entries = _list(_dict(_dict(new.get("status")).get("loadBalancer")).get("ingress"))
    for i, entry in enumerate(entries):
        entry = _dict(entry)
        at = f"status.loadBalancer.ingress[{i}]"
        if entry.get("ip"):
            found += ip.valid_ip_for_legacy_field(f"{at}.ip", _str(entry["ip"]), old_ips)
        hostname = _str(entry.get("hostname"))
        if hostname:
            found += [field.invalid(f"{at}.hostname", hostname, msg) for msg in dns1123_subdomain(hostname)]
            if ip.parse_ip_sloppy(hostname) is not None:
                found.append(field.invalid(f"{at}.hostname", hostname, "must be a DNS name, not an IP address"))
    return found


# IngressClass

def _ingress_class_parameters(params: Any) -> list[FieldError]:
    """validateIngressClassParametersReference."""
    if not isinstance(params, dict):
        return []
    path = "spec.parameters"
    found = _typed_local_object_reference(params, path)
    scope = params.get("scope")
    if scope is None:
        return found + [field.required(f"{path}.scope")]
    if scope not in _SCOPES:
        return found + [field.not_supported(f"{path}.scope", scope, _SCOPES)]
    namespace = params.get("namespace")
    if scope == "Namespace":
        if namespace is None:
            found.append(field.required(f"{path}.namespace", "`parameters.scope` is set to 'Namespace'"))
        else:
            found += [field.invalid(f"{path}.namespace", namespace, msg) for msg in dns1123_label(_str(namespace))]
    elif namespace is not None:
        found.append(field.forbidden(f"{path}.namespace", "`parameters.scope` is set to 'Cluster'"))
    return found


def ingress_class(obj: Obj) -> list[FieldError]:
    """validateIngressClassSpec."""
    spec = _dict(obj.get("spec"))
    controller = _str(spec.get("controller"))
    found = [field.too_long("spec.controller", 250)] if len(controller) > 250 else []
    found += domain_prefixed_path("spec.controller", controller)
    return found + _ingress_class_parameters(spec.get("parameters"))


def ingress_class_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateIngressClassUpdate: the controller is fixed, then the class is judged as on create."""
    controller = _str(_dict(new.get("spec")).get("controller"))
    found = field.immutable("spec.controller", controller, _str(_dict(old.get("spec")).get("controller")))
    return found + ingress_class(new)


# IPAddress

def ip_address_name(name: str, prefix: bool) -> list[str]:
    """ValidateIPAddressName: the name is the address, written canonically; a prefix is judged whole,
    as IPAddresses never generate names."""
    return ip.valid_ip_messages(name)


def _parent_reference(ref: Any) -> list[FieldError]:
    """validateIPAddressParentReference."""
    path = "spec.parentRef"
    if not isinstance(ref, dict):
        return [field.required(path)]
    found: list[FieldError] = []
    group = _str(ref.get("group"))
    if group:
        found += [field.invalid(f"{path}.group", group, msg) for msg in dns1123_subdomain(group)]
    for name in ("resource", "name"):
        value = _str(ref.get(name))
        if not value:
            found.append(field.required(f"{path}.{name}"))
        else:
            found += [field.invalid(f"{path}.{name}", value, msg) for msg in path_segment_name(value)]
    namespace = _str(ref.get("namespace"))
    if namespace:
        found += [field.invalid(f"{path}.namespace", namespace, msg) for msg in path_segment_name(namespace)]
    return found


def ip_address(obj: Obj) -> list[FieldError]:
    return _parent_reference(_dict(obj.get("spec")).get("parentRef"))


def _parent_reference_json(ref: Any) -> str:
    # The internal ParentReference has no json tags: Go's field names, every field written.
    if not isinstance(ref, dict):
        return "null"
    return field.go_json({name.capitalize(): _str(ref.get(name)) for name in ("group", "resource", "namespace", "name")})


def ip_address_update(new: Obj, old: Obj) -> list[FieldError]:
    """The IPAddress judged as on create, then its parent reference fixed."""
    found = ip_address(new)
    ref, old_ref = _dict(new.get("spec")).get("parentRef"), _dict(old.get("spec")).get("parentRef")
    if _parent_reference_json(ref) != _parent_reference_json(old_ref):
        found.append(field.invalid_shown("spec.parentRef", _parent_reference_json(ref), "field is immutable"))
    return found


# ServiceCIDR

def _service_cidr_spec(cidrs: list[Any]) -> list[FieldError]:
    """validateServiceCIDRSpec: one or two canonical CIDRs, of different families."""
    path = "spec.cidrs"
    if not cidrs:
        return [field.required(path, "at least one CIDR required")]
    if len(cidrs) > 2:
        return [field.invalid_shown(path, field.go_json({"CIDRs": cidrs}), "may only hold up to 2 values")]
    found: list[FieldError] = []
    for i, cidr in enumerate(cidrs):
        found += ip.valid_cidr(f"{path}[{i}]", _str(cidr))
    if len(cidrs) == 2:
        first, second = ip.family_of_cidr(_str(cidrs[0])), ip.family_of_cidr(_str(cidrs[1]))
        if first == second and first:
            found.append(field.invalid(path, cidrs, "may specify no more than one IP for each IP family, i.e "
                                                    "192.168.0.0/24 and 2001:db8::/64"))
    return found


def service_cidr(obj: Obj) -> list[FieldError]:
    return _service_cidr_spec(_list(_dict(obj.get("spec")).get("cidrs")))


def service_cidr_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateServiceCIDRUpdate: the CIDRs are fixed, but a single-stack range may gain a second family."""
    cidrs, old_cidrs = _list(_dict(new.get("spec")).get("cidrs")), _list(_dict(old.get("spec")).get("cidrs"))
    if len(cidrs) == len(old_cidrs):
        return [field.invalid(f"spec.cidrs[{i}]", cidrs[i], "field is immutable")
                for i, cidr in enumerate(old_cidrs) if cidr != cidrs[i]]
    if len(old_cidrs) == 1 and len(cidrs) == 2:
        found = [] if cidrs[0] == old_cidrs[0] else [field.invalid("spec.cidrs[0]", cidrs[0], "field is immutable")]
        return found + _service_cidr_spec(cidrs)
    # Shown as the request holds it: an absent list is Go's nil slice.
    return [field.invalid("spec.cidrs", _dict(new.get("spec")).get("cidrs"), "field is immutable")]


def ingress_warnings(obj: Obj) -> list[str]:
    """ingressStrategy.WarningsOnCreate: the class annotation is deprecated for ingressClassName."""
    annotations = _dict(_dict(obj.get("metadata")).get("annotations"))
    if _INGRESS_CLASS_ANNOTATION in annotations and _dict(obj.get("spec")).get("ingressClassName") is None:
        return [(f'annotation "{_INGRESS_CLASS_ANNOTATION}" is deprecated, please use '
                 "'spec.ingressClassName' instead")]
    return []
