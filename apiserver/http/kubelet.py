"""The subresources kube-apiserver answers by reaching a kubelet or a pod: pods' log, exec, attach,
portforward and proxy, nodes/proxy and services/proxy.

A simulated node's kubelet is answered in this process (apiserver.http.simkubelet) while the fake
kubelets run. Nothing here can reach any other kubelet or a pod network. Each request is checked as upstream checks it (the
pod and its container, its node, the node's address, the service's endpoints) and answered as
kube-apiserver answers at the first step that fails; past all of them, with what it answers when the
connection is refused: a log stream `Get "<url>": dial tcp ...` (500), an upgrade `error dialing
backend: ...` (500), a proxied request `error trying to reach service: ...` (503). A pod with no node
has an empty log (204); exec, attach and portforward refuse it with 400 "pod ... does not have a host
assigned".
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from typing import Any, Mapping

import orjson

from apiserver import errors
from apiserver.errors import ApiError, FieldError
from apiserver.http.simkubelet import SimulatedKubelets
from apiserver.reply import Reply, StreamReply
from apiserver.simulated.annotations import is_simulated
from apiserver.storage.interface import Store

SUBRESOURCES = {"pods": ("log", "exec", "attach", "portforward", "proxy"), "nodes": ("proxy",),
                "services": ("proxy",)}
KUBELET_PORT = 10250
# kube-apiserver's default --kubelet-preferred-address-types.
_PREFERRED_ADDRESS_TYPES = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
# The PodLogOptions the kubelet URL carries, in url.Values.Encode's (sorted) order.
_LOG_PARAMETERS = ("follow", "limitBytes", "previous", "sinceSeconds", "sinceTime", "tailLines", "timestamps")

Obj = dict[str, Any]


def handles(resource: str, subresource: str | None) -> bool:
    return subresource is not None and subresource in SUBRESOURCES.get(resource, ())


def answer(store: Store, resource: str, namespace: str, name: str, subresource: str, query: Mapping[str, str],
           upgrade: bool, simulated: SimulatedKubelets | None = None, proxy_path: str = "") -> Reply | StreamReply:
    """What kube-apiserver answers to this request: a simulated node's kubelet's answer (while the fake
    kubelets run, `simulated`), else what it answers when no kubelet or pod answers."""
    if resource == "nodes":
        return _node_proxy(store, name, simulated, proxy_path, query)
    if resource == "services":
        return _service_proxy(store, namespace, name)
    if subresource == "proxy":
        return _pod_proxy(store, namespace, name)
    if subresource == "log":
        _check_log_options(name, query)
        return _log(store, _get(store, "pods", namespace, name), query, simulated)
    pod = _get(store, "pods", namespace, name)
    container = ""
    if subresource in ("exec", "attach"):
        container = _container(pod, query.get("container", ""))
    node_name = _map(pod.get("spec")).get("nodeName")
    if not node_name:
        raise errors.bad_request(f"pod {name} does not have a host assigned")
    node = _get(store, "nodes", "", node_name)
    host_port = _kubelet(node)
    if not upgrade:
        raise errors.bad_request("Upgrade request required")
    if simulated is not None and is_simulated(node):
        return simulated.refuse_stream(pod, subresource, container)
    raise _unknown(f"error dialing backend: {_dial_error(host_port)}")


def proxied_path(path: str, name: str) -> str:
    """The proxied request's path: what follows `<name>/proxy` in the request's."""
    _, _, rest = path.partition(f"/{name}/proxy")
    return rest or "/"


def _log(store: Store, pod: Obj, query: Mapping[str, str], simulated: SimulatedKubelets | None) -> Reply | StreamReply:
    meta = pod["metadata"]
    container = _container(pod, query.get("container", ""))
    node_name = _map(pod.get("spec")).get("nodeName")
    if not node_name:
        return Reply(204, b"", content_type="")  # a pod on no node has no log yet: an empty answer
    node = _get(store, "nodes", "", node_name)
    host_port = _kubelet(node)
    if simulated is not None and is_simulated(node):
        return simulated.log(pod, container, query)
    parameters = urllib.parse.urlencode([(k, query[k]) for k in _LOG_PARAMETERS if k in query])
    url = f"https://{host_port}/containerLogs/{meta['namespace']}/{meta['name']}/{container}"
    raise _unknown(f'Get "{url}{"?" + parameters if parameters else ""}": {_dial_error(host_port)}')


def _check_log_options(name: str, query: Mapping[str, str]) -> None:
    """PodLogOptions as the query decodes into them (400), then as ValidatePodLogOptions checks them (422)."""
    numbers: dict[str, int] = {}
    for key in ("tailLines", "limitBytes", "sinceSeconds"):
        if key in query:
            text = query[key]
            if not re.fullmatch(r"[+-]?[0-9]+", text) or not -(2**63) <= int(text) < 2**63:
                why = "value out of range" if re.fullmatch(r"[+-]?[0-9]+", text) else "invalid syntax"
                raise errors.bad_request(f'strconv.ParseInt: parsing "{text}": {why}')
            numbers[key] = int(text)
    problems = []
    if numbers.get("tailLines", 0) < 0:
        problems.append(FieldError("FieldValueInvalid", "tailLines",
                                   f"Invalid value: {numbers['tailLines']}: must be greater than or equal to 0"))
    if numbers.get("limitBytes", 1) < 1:
        problems.append(FieldError("FieldValueInvalid", "limitBytes",
                                   f"Invalid value: {numbers['limitBytes']}: must be greater than 0"))
    if "sinceSeconds" in numbers and query.get("sinceTime"):
        problems.append(FieldError("FieldValueForbidden", "",
                                   "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"))
    elif numbers.get("sinceSeconds", 1) < 1:
        problems.append(FieldError("FieldValueInvalid", "sinceSeconds",
                                   f"Invalid value: {numbers['sinceSeconds']}: must be greater than 0"))
    if problems:
        raise errors.invalid("PodLogOptions", "", name, problems)


def _container(pod: Obj, container: str) -> str:
    """The container a log, exec or attach is for: the one named, or the pod's only one."""
    spec = _map(pod.get("spec"))
    name = pod["metadata"]["name"]
    everything = [c.get("name", "") for key in ("initContainers", "containers", "ephemeralContainers")
                  for c in _items(spec.get(key))]
    if container:
        if container not in everything:
            raise errors.bad_request(f"container {container} is not valid for pod {name}")
        return container
    regular = _items(spec.get("containers"))
    if len(regular) == 1:
        return str(regular[0].get("name", ""))
    if not regular:
        raise errors.bad_request(f"a container name must be specified for pod {name}")
    raise errors.bad_request(f"a container name must be specified for pod {name}, choose one of: "
                             f"[{' '.join(everything)}]")


def _kubelet(node: Obj) -> str:
    """host:port of the node's kubelet, as upstream's NodeConnectionInfoGetter finds it."""
    status = _map(node.get("status"))
    addresses = _items(status.get("addresses"))
    host = next((str(a.get("address", "")) for kind in _PREFERRED_ADDRESS_TYPES for a in addresses if a.get("type") == kind),
                None)
    if host is None:
        known = " ".join(f"{{{a.get('type', '')} {a.get('address', '')}}}" for a in addresses)
        raise _unknown(f"no preferred addresses found; known addresses: [{known}]")
    port = _map(_map(status.get("daemonEndpoints")).get("kubeletEndpoint")).get("Port")
    return _join(host, str(port if isinstance(port, int) and port > 0 else KUBELET_PORT))


def _pod_proxy(store: Store, namespace: str, name: str) -> Reply:
    scheme, pod_name, port = _split_scheme_name_port(name, "pod")
    pod = _get(store, "pods", namespace, pod_name)
    if not port:
        port = next((str(ports[0].get("containerPort")) for c in _items(_map(pod.get("spec")).get("containers"))
                     for ports in [_items(c.get("ports"))] if ports), "")
    status = _map(pod.get("status"))
    ip = str(status.get("podIP") or next((p.get("ip") for p in _items(status.get("podIPs"))), ""))
    if not _global_unicast(ip):
        raise errors.bad_request("address not allowed")
    raise _unreachable(_join(ip, port or ("443" if scheme == "https" else "80")))


def _node_proxy(store: Store, name: str, simulated: SimulatedKubelets | None, path: str,
                query: Mapping[str, str]) -> Reply | StreamReply:
    scheme, node_name, port = _split_scheme_name_port(name, "node")
    node = _get(store, "nodes", "", node_name)
    kubelet = _kubelet(node)
    host = kubelet.rsplit(":", 1)[0].strip("[]")
    if not _proxyable(host):
        raise errors.bad_request("address not allowed")
    if simulated is not None and is_simulated(node) and (not port or _join(host, port) == kubelet):
        return simulated.proxy(node, path, query)
    raise _unreachable(kubelet if not port else _join(host, port))


def _service_proxy(store: Store, namespace: str, name: str) -> Reply:
    _, service_name, port = _split_scheme_name_port(name, "service")
    if port.isdigit():
        service = _get(store, "services", namespace, service_name)
        named = next((p.get("name", "") for p in _items(_map(service.get("spec")).get("ports"))
                      if p.get("port") == int(port)), None)
        if named is None:
            raise _unavailable(f'no service port {int(port)} found for service "{service_name}"')
        port = named
    endpoints = _get(store, "endpoints", namespace, service_name)
    subsets = _items(endpoints.get("subsets"))
    if not subsets:
        raise _unavailable(f'no endpoints available for service "{service_name}"')
    for subset in subsets:
        for endpoint_port in _items(subset.get("ports")):
            if endpoint_port.get("name", "") != port:
                continue
            for address in _items(subset.get("addresses")):
                if _backed_by_its_pod(store, namespace, address):
                    raise _unreachable(_join(str(address.get("ip")), str(endpoint_port.get("port"))))
    raise _unavailable(f'no endpoints available for service "{name}"')


def _backed_by_its_pod(store: Store, namespace: str, address: Obj) -> bool:
    # Upstream proxies only to an address whose target pod still holds that IP.
    ref = _map(address.get("targetRef"))
    if ref.get("kind", "Pod") != "Pod" or ref.get("namespace") != namespace or not ref.get("name"):
        return False
    stored = store.get(("pods", namespace, str(ref["name"])))
    if stored is None:
        return False
    ips = _items(_map(orjson.loads(stored.data).get("status")).get("podIPs"))
    return any(p.get("ip") == address.get("ip") for p in ips)


def _split_scheme_name_port(text: str, what: str) -> tuple[str, str, str]:
    """utilnet.SplitSchemeNamePort: "name", "name:port" or "scheme:name:port", scheme http or https."""
    parts = text.split(":")
    if len(parts) == 1:
        scheme, name, port = "", parts[0], ""
    elif len(parts) == 2:
        scheme, name, port = "", parts[0], parts[1]
    elif len(parts) == 3:
        scheme, name, port = parts
    else:
        scheme, name, port = "", "", ""
    if not name or scheme not in ("", "http", "https"):
        raise errors.bad_request(f'invalid {what} request "{text}"')
    return scheme, name, port


def _get(store: Store, resource: str, namespace: str, name: str) -> Obj:
    stored = store.get((resource, namespace, name))
    if stored is None:
        raise errors.not_found(resource, "", name)
    return orjson.loads(stored.data)  # type: ignore[no-any-return]


def _map(value: Any) -> Obj:
    """A part of a stored object as Go would have decoded it: a map, else empty."""
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[Obj]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _join(host: str, port: str) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _global_unicast(text: str) -> bool:
    ip = _ip(text)
    return ip is not None and not (ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_unspecified
                                   or (ip.version == 4 and int(ip) == 0xFFFFFFFF))


def _proxyable(host: str) -> bool:
    ip = _ip(host)
    return ip is None or not (ip.is_loopback or ip.is_link_local or ip.is_multicast)


def _dial_error(host_port: str) -> str:
    host = host_port.rsplit(":", 1)[0].strip("[]")
    if _ip(host) is None:
        return f"dial tcp: lookup {host}: no such host"
    return f"dial tcp {host_port}: connect: connection refused"


def _unknown(message: str) -> ApiError:
    # An error upstream's storage did not turn into a Status: 500 with no reason.
    return ApiError(500, "", message)


def _unavailable(message: str) -> ApiError:
    return ApiError(503, "ServiceUnavailable", message)


def _unreachable(host_port: str) -> ApiError:
    return _unavailable(f"error trying to reach service: {_dial_error(host_port)}")
