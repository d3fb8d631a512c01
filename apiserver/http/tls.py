"""TLS: the client certificate of a connection, handed to the app as ASGI's TLS extension, and the
client CAs the handshake names.

uvicorn verifies a presented certificate against the server's CA (the handshake fails otherwise) but
does not put it in the scope; this protocol reads it once per connection and adds
`scope["extensions"]["tls"]["client_cert_chain"]` (PEM) to every request on it.
"""

from __future__ import annotations

import _ssl
import asyncio
import ctypes
import logging
import os
import ssl
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger(__name__)


def client_certificate(scope: Any) -> str | None:
    """The PEM of the verified client certificate a request came with, if any."""
    tls = (scope.get("extensions") or {}).get("tls")
    chain = tls.get("client_cert_chain") if tls else None
    return chain[0] if chain else None


class ClientCertificateProtocol(HttpToolsProtocol):
    _tls: dict[object, object] | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        ssl_object = transport.get_extra_info("ssl_object")
        der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
        self._tls = {"client_cert_chain": [ssl.DER_cert_to_PEM_cert(der)]} if der else None

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._tls is not None:
            self.scope["extensions"] = {"tls": self._tls}


class ClientCaConfig(uvicorn.Config):
    """uvicorn's configuration, with the serving context naming the client CAs it accepts.

    kube-apiserver (Go's crypto/tls with ClientCAs) lists them in its CertificateRequest, so a client
    can pick the certificate that fits (`openssl s_client` shows "Acceptable client certificate CA
    names"). Python's ssl module verifies against the CA file but never lists it; OpenSSL does once
    told with SSL_CTX_set_client_CA_list, which is reached here through ctypes.
    """

    def load(self) -> None:
        super().load()
        if self.ssl is not None and self.ssl_ca_certs:
            name_client_cas(self.ssl, self.ssl_ca_certs)


def name_client_cas(context: ssl.SSLContext, ca_file: str | os.PathLike[str]) -> None:
    libssl = ctypes.CDLL(_ssl.__file__)  # its symbol lookup reaches the libssl the module is linked to
    load = libssl.SSL_load_client_CA_file
    load.restype, load.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    install = libssl.SSL_CTX_set_client_CA_list
    install.restype, install.argtypes = None, [ctypes.c_void_p, ctypes.c_void_p]
    names = load(os.fsencode(ca_file))
    if not names:
        log.warning("cannot read the client CA names of %s: the handshake will name none", ca_file)
        return
    # CPython's SSLContext object holds its SSL_CTX* right after the object header.
    ssl_ctx = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    install(ssl_ctx, names)
