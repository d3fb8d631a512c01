"""An HTTPS admission webhook on 127.0.0.1 for tests and for recording the reference: it keeps every
AdmissionReview it is sent and answers each path as the test says.

Its certificate is made here with `cryptography`: a CA (what a configuration's caBundle names) and a
server certificate for 127.0.0.1, localhost and the in-cluster name of a Service `webhook.<ns>.svc`.
A path's answer is a function of the review (an AdmissionResponse's fields, to which the uid is
added), or one of the misbehaviours below: hang, garbage, close.
"""

from __future__ import annotations

import base64
import datetime
import http.server
import ipaddress
import json
import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Review = dict[str, Any]
# A path's answer: the AdmissionResponse fields (without uid), or a raw (status, body) pair.
Answer = Callable[[Review], "dict[str, Any] | tuple[int, bytes]"]
_HOUR, _TWO_DAYS = datetime.timedelta(hours=1), datetime.timedelta(days=2)
HANG = "hang"  # never answers (until the server stops)
CLOSE = "close"  # closes the connection without an answer
# Answers the first request of each connection and closes the connection on any later one, as a
# server whose keep-alive timeout ran out as the request arrived does.
CLOSE_WHEN_REUSED = "close-when-reused"


@dataclass
class Certificates:
    ca_pem: bytes
    cert_path: str
    key_path: str

    @property
    def ca_bundle(self) -> str:
        """The CA as a configuration's caBundle carries it."""
        return base64.b64encode(self.ca_pem).decode()


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_certificates(directory: str, dns_names: tuple[str, ...] = ("localhost",),
                      ca_name: str = "webhook-test-ca") -> Certificates:
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name(ca_name)).issuer_name(_name(ca_name))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - _HOUR).not_valid_after(now + _TWO_DAYS)
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    names += [x509.DNSName(name) for name in dns_names]
    cert = (x509.CertificateBuilder().subject_name(_name("webhook")).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - _HOUR).not_valid_after(now + _TWO_DAYS)
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .sign(ca_key, hashes.SHA256()))
    os.makedirs(directory, exist_ok=True)
    cert_path, key_path = os.path.join(directory, "webhook.crt"), os.path.join(directory, "webhook.key")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return Certificates(ca.public_bytes(serialization.Encoding.PEM), cert_path, key_path)


def allow(_review: Review) -> dict[str, Any]:
    return {"allowed": True}


def deny(message: str, code: int = 403) -> Answer:
    return lambda _review: {"allowed": False, "status": {"message": message, "code": code}}


def json_patch(operations: list[dict[str, Any]], **extra: Any) -> Answer:
    patch = base64.b64encode(json.dumps(operations).encode()).decode()
    return lambda _review: {"allowed": True, "patchType": "JSONPatch", "patch": patch, **extra}


def host_address() -> str:
    """This machine's address on the interface its default route leaves by (no packet is sent): where a
    webhook listens when an EndpointSlice must name it, as endpoints may not be loopback addresses."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))
        return str(probe.getsockname()[0])


@dataclass
class WebhookServer:
    """Serves HTTPS on 127.0.0.1:`port` from a thread; `answers` maps a path to its answer."""

    certificates: Certificates
    host: str = "127.0.0.1"
    answers: dict[str, Answer | str] = field(default_factory=dict)
    received: list[tuple[str, Review]] = field(default_factory=list)
    port: int = 0
    _server: http.server.ThreadingHTTPServer | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str) -> str:
        return f"https://{self.host}:{self.port}{path}"

    def reviews(self, path: str) -> list[Review]:
        return [review for p, review in self.received if p.split("?")[0] == path]

    def start(self) -> WebhookServer:
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed ACK

            def log_message(self, *_args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                review = json.loads(body)
                owner.received.append((self.path, review))
                answer = owner.answers.get(self.path.split("?")[0], allow)
                if answer == HANG:
                    owner._stopping.wait(120)
                    return
                served = getattr(self, "served", 0)
                self.served = served + 1
                if answer == CLOSE or (answer == CLOSE_WHEN_REUSED and served):
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if answer == CLOSE_WHEN_REUSED:
                    answer = allow
                assert callable(answer)
                result = answer(review)
                if isinstance(result, tuple):
                    status, raw = result
                else:
                    status = 200
                    response = {"uid": review["request"]["uid"], **result}
                    raw = json.dumps({"apiVersion": review.get("apiVersion"), "kind": "AdmissionReview",
                                      "response": response}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        server = http.server.ThreadingHTTPServer((self.host, self.port), Handler)
        server.daemon_threads = True
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.certificates.cert_path, self.certificates.key_path)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        self.port = server.server_address[1]
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True, name="webhook-server").start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def wait_until(probe: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not probe():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.05)
