"""The client certificate of a TLS connection, handed to the app as ASGI's TLS extension.

uvicorn verifies a presented certificate against the server's CA (the handshake fails otherwise) but
does not put it in the scope; this protocol reads it once per connection and adds
`scope["extensions"]["tls"]["client_cert_chain"]` (PEM) to every request on it.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


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
