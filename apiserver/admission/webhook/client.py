"""Calling a webhook: where it is (a URL, or a Service resolved through its EndpointSlices), its TLS
trust (the caBundle, else the system's roots), one POST with the webhook's timeout, and the failures
described as Go's client describes them, since upstream's messages quote them.

aiohttp, chosen over httpx by `benches/micro/webhook_client_choice.py`: per loopback HTTPS POST it
spent about a quarter of httpx's CPU. Calls share one session (one connection pool); every call has
its own deadline, so a webhook that hangs holds only the requests that wait for it.

A Service is reached as upstream's endpoint routing reaches it (kube-apiserver's default, its ClusterIP,
needs kube-proxy, which this server has no use for): a ready endpoint of its EndpointSlices with the
port named like the Service's, the certificate checked against `<name>.<namespace>.svc`. An
ExternalName Service is reached at its external name.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import random
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson
import yaml  # type: ignore[import-untyped]
from cryptography import x509

from apiserver.admission.webhook.configurations import ClientConfig, ServiceReference
from apiserver.storage.interface import Store

_SLICES = "discovery.k8s.io/endpointslices"
_SERVICE_NAME_LABEL = "kubernetes.io/service-name"
_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, */*"}
_MAX_TEXT = 2048  # client-go's maxUnstructuredResponseTextBytes
# OpenSSL's verify codes for a certificate that names another host or address.
_NAME_MISMATCH = (62, 64)
_PEEK_SECONDS = 2  # reading the certificate again, only to word a failure
# A request on a reused connection the server has just closed is sent again (several pooled
# connections may all have gone stale), within the webhook's deadline.
_ATTEMPTS_ON_STALE_CONNECTIONS = 3
# apierrors.NewGenericServerResponse's messages for the codes it names (a POST, no resource).
_GENERIC_MESSAGES = {
    409: "the server reported a conflict",
    404: "the server could not find the requested resource",
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    405: "the server does not allow this method on the requested resource",
    422: "the server rejected our request due to an error in our request",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be processing the "
         "request",
    429: "the server has received too many requests and has asked us to try again later",
}
# The type client-go decodes an answer's apiVersion and kind into, as Go prints it.
_FIND_KIND = ('struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
              'Kind string "json:\\"kind,omitempty\\"" }')


class CallFailed(Exception):
    """The webhook could not be asked or did not answer usably: upstream's ErrCallingWebhook. `reason`
    is the text after `failed calling webhook "name": `."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Destination:
    """Where one call goes: `url` as Go's client names it in errors, `connect_url` what is dialled."""

    url: str
    connect_url: str
    server_hostname: str | None


def _go_duration(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}m{rest}s" if minutes else f"{rest}s"


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class WebhookClient:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._session: aiohttp.ClientSession | None = None
        self._contexts: dict[bytes, ssl.SSLContext] = {}

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _tls(self, ca_bundle: bytes) -> ssl.SSLContext:
        context = self._contexts.get(ca_bundle)
        if context is None:
            context = ssl.create_default_context()
            if ca_bundle:
                try:
                    context.load_verify_locations(cadata=ca_bundle.decode("ascii", "replace"))
                except ssl.SSLError:
                    pass  # Go skips what it cannot parse: the handshake then fails as unknown authority
            self._contexts[ca_bundle] = context
        return context

    def destination(self, config: ClientConfig, timeout_seconds: int) -> Destination:
        """Where a call goes. A Service's endpoint is looked up here, and an error in that is reported as
        Go's dialer reports it, within the POST's error (`Post "https://name.ns.svc:443/...": ...`)."""
        query = f"?timeout={_go_duration(timeout_seconds)}"
        if config.service is not None:
            service = config.service
            server_name = f"{service.name}.{service.namespace}.svc"
            url = f"https://{_host_port(server_name, service.port)}{service.path}{query}"
            try:
                host, port = self._resolve(service)
            except CallFailed as exc:
                raise CallFailed(f'failed to call webhook: Post "{url}": {exc.reason}') from None
            return Destination(url, f"https://{_host_port(host, port)}{service.path}{query}", server_name)
        if not config.url:
            raise CallFailed("webhook configuration must have either service or URL")
        parts = urlsplit(config.url)
        url = f"{parts.scheme}://{parts.netloc}{parts.path}{query}"
        return Destination(url, url, None)

    def _resolve(self, ref: ServiceReference) -> tuple[str, int]:
        """A ready endpoint's address and port (upstream's ResolveEndpoint), or an ExternalName."""
        stored = self._store.latest(("services", ref.namespace, ref.name))
        if stored is None:
            raise CallFailed(f'service "{ref.name}" not found')
        service = orjson.loads(stored.data)
        spec = service.get("spec") or {}
        kind = spec.get("type") or "ClusterIP"
        if kind == "ExternalName":
            return str(spec.get("externalName") or ""), ref.port
        if kind not in ("ClusterIP", "LoadBalancer", "NodePort"):
            raise CallFailed(f'unsupported service type "{kind}"')
        port = next((p for p in spec.get("ports") or () if p.get("port") == ref.port), None)
        if port is None:
            raise CallFailed(f'no service port {ref.port} found for service "{ref.name}"')
        for _, stored_slice in self._store.list(_SLICES, ref.namespace)[1]:
            endpoint_slice: dict[str, Any] = orjson.loads(stored_slice.data)
            if (endpoint_slice["metadata"].get("labels") or {}).get(_SERVICE_NAME_LABEL) != ref.name:
                continue
            for slice_port in endpoint_slice.get("ports") or ():
                named_alike = (slice_port.get("name") or "") == (port.get("name") or "")
                if not named_alike or slice_port.get("port") is None:
                    continue
                endpoints = list(endpoint_slice.get("endpoints") or ())
                random.shuffle(endpoints)
                for endpoint in endpoints:
                    if (endpoint.get("conditions") or {}).get("ready", True) is not False:
                        return str(endpoint["addresses"][0]), int(slice_port["port"])
        raise CallFailed(f'no endpoints available for service "{ref.name}"')

    async def _name_mismatch(self, destination: Destination) -> str:
        parts = urlsplit(destination.connect_url)
        host = destination.server_hostname or parts.hostname or ""
        try:
            async with asyncio.timeout(_PEEK_SECONDS):
                der = await _peer_certificate(parts.hostname or "", parts.port or 443, host)
        except (OSError, TimeoutError, ssl.SSLError):
            return "tls: failed to verify certificate: x509: certificate is not valid for the requested name"
        return "tls: failed to verify certificate: " + _hostname_error(der, host)

    async def post(self, destination: Destination, ca_bundle: bytes, body: bytes,
                   timeout_seconds: int) -> Any:
        """The decoded JSON answer of a 2xx response; CallFailed with Go's description otherwise."""
        if self._session is None:
            reuse = aiohttp.TraceConfig()
            reuse.on_connection_reuseconn.append(_note_reuse)
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                                  skip_auto_headers=("User-Agent",), trace_configs=[reuse])
        prefix = f'failed to call webhook: Post "{destination.url}": '
        try:
            async with asyncio.timeout(timeout_seconds):
                for attempt in range(_ATTEMPTS_ON_STALE_CONNECTIONS):
                    trace = {"reused": False}
                    try:
                        async with self._session.post(
                                destination.connect_url, data=body, ssl=self._tls(ca_bundle),
                                server_hostname=destination.server_hostname, headers=_HEADERS,
                                trace_request_ctx=trace) as reply:
                            raw = await reply.read()
                            status = reply.status
                            content_type = reply.headers.get("Content-Type", "")
                        break
                    except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError):
                        # A kept-alive connection the webhook closed as the request went out: Go's
                        # transport sends it again on a new connection, and so does this client.
                        if not trace["reused"] or attempt + 1 == _ATTEMPTS_ON_STALE_CONNECTIONS:
                            raise
        except TimeoutError:
            raise CallFailed(prefix + "context deadline exceeded") from None
        except aiohttp.ClientConnectorCertificateError as exc:
            text = _certificate_error(exc.certificate_error)
            if getattr(exc.certificate_error, "verify_code", None) in _NAME_MISMATCH:
                text = await self._name_mismatch(destination)
            raise CallFailed(prefix + text) from None
        except aiohttp.ClientSSLError as exc:
            raise CallFailed(prefix + _handshake_error(exc)) from None
        except aiohttp.ClientConnectorError as exc:
            raise CallFailed(prefix + _dial_error(destination, exc)) from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError):
            raise CallFailed(prefix + "EOF") from None
        except (aiohttp.ClientError, OSError) as exc:
            raise CallFailed(prefix + str(exc)) from None
        if not 200 <= status <= 206:
            raise CallFailed("failed to call webhook: " + _status_error(status, content_type, raw))
        return decode_answer(raw)


def decode_answer(raw: bytes) -> Any:
    """A 2xx answer's JSON, or CallFailed as client-go's decoder words the failure (it reads YAML too,
    so plain text is a YAML string there)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise CallFailed(f"failed to call webhook: error converting YAML to JSON: yaml: {exc}") from None
    if isinstance(value, dict):
        return value
    go_type = "bool" if isinstance(value, bool) else "number" if isinstance(value, (int, float)) else \
        "array" if isinstance(value, list) else "string"
    raise CallFailed("failed to call webhook: couldn't get version/kind; json parse error: json: cannot "
                     f"unmarshal {go_type} into Go value of type {_FIND_KIND}")


async def _note_reuse(_session: aiohttp.ClientSession, context: Any, _params: object) -> None:
    context.trace_request_ctx["reused"] = True


async def _peer_certificate(host: str, port: int, server_hostname: str) -> bytes:
    """The certificate a server presents, read without checking it (to say why checking failed)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    _, writer = await asyncio.open_connection(host, port, ssl=context, server_hostname=server_hostname)
    try:
        der = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
    finally:
        writer.close()
    return bytes(der or b"")


def _hostname_error(der: bytes, host: str) -> str:
    """Go's x509.HostnameError text for a certificate that does not name `host`."""
    try:
        names = x509.load_der_x509_certificate(der).extensions.get_extension_for_class(
            x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        return f"x509: certificate is not valid for any names, but wanted to match {host}"
    try:
        ipaddress.ip_address(host)
    except ValueError:
        valid = ", ".join(names.get_values_for_type(x509.DNSName))
    else:
        addresses = names.get_values_for_type(x509.IPAddress)
        if not addresses:
            return f"x509: cannot validate certificate for {host} because it doesn't contain any IP SANs"
        valid = ", ".join(str(a) for a in addresses)
    if not valid:
        return f"x509: certificate is not valid for any names, but wanted to match {host}"
    return f"x509: certificate is valid for {valid}, not {host}"


def _certificate_error(exc: BaseException) -> str:
    text = str(exc)
    if "unable to get local issuer certificate" in text or "self-signed certificate" in text:
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    return f"tls: failed to verify certificate: {text}"


def _handshake_error(exc: aiohttp.ClientSSLError) -> str:
    text = str(exc)
    if "WRONG_VERSION_NUMBER" in text or "wrong version number" in text or "record layer failure" in text:
        # The peer answered the ClientHello with something else, as a plain HTTP server does.
        return "tls: first record does not look like a TLS handshake"
    return f"remote error: tls: {text}"


def _dial_error(destination: Destination, exc: aiohttp.ClientConnectorError) -> str:
    address = urlsplit(destination.connect_url).netloc
    if isinstance(exc.os_error, ConnectionRefusedError):
        return f"dial tcp {address}: connect: connection refused"
    return f"dial tcp {address}: {exc.os_error.strerror or exc.os_error}"


def _status_error(status: int, content_type: str, raw: bytes) -> str:
    """The message of the error client-go makes of an answer outside 200-206: the Status it carries
    (a Failure), else NewGenericServerResponse's text for the code, quoting a text body."""
    try:
        decoded = orjson.loads(raw)
    except orjson.JSONDecodeError:
        decoded = None
    if isinstance(decoded, dict) and decoded.get("kind") == "Status" and decoded.get("status") == "Failure":
        return str(decoded.get("message") or "")
    media = content_type.partition(";")[0].strip().lower()
    textual = not media or media.startswith("text/")
    server_message = raw[:_MAX_TEXT].decode("utf-8", "replace").strip() if textual else "unknown"
    fixed = _GENERIC_MESSAGES.get(status)
    if fixed is not None:
        return fixed
    if status in (403, 415) or (status == 406 and server_message not in ("", "unknown")):
        return server_message
    if status == 406:
        return "the server was unable to respond with a content type that the client supports"
    if status >= 500:
        return (f"an error on the server ({_go_quote(server_message)}) has prevented the request from "
                "succeeding")
    return f"the server responded with the status code {status} but did not return more information"


def _go_quote(text: str) -> str:
    """Go's %q of a string, for the texts a webhook may answer with."""
    return json.dumps(text, ensure_ascii=False)
