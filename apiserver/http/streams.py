"""exec and attach over WebSocket (`v5.channel.k8s.io`), as kube-apiserver 1.36's stream translator
answers them when the kubelet refuses the stream.

kubectl 1.30 and later open exec and attach as a WebSocket and fall back to SPDY only when the upgrade
itself is refused. kube-apiserver accepts the WebSocket, then asks the kubelet over SPDY; when the
kubelet answers with an error instead of switching protocols, the translator writes it on the error
channel as an InternalError Status (`unable to upgrade connection: container not found ("web")`) and
closes. The request is answered here as the SPDY request it stands for; a simulated kubelet's refusal
(apiserver.http.simkubelet) goes out that way, frame for frame as the reference writes it. Anything
else (a refusal of the request itself, or a kubelet that cannot be reached) refuses the WebSocket, so
kubectl asks again over SPDY and reports that answer.
"""

from __future__ import annotations

import re
from typing import Any, Awaitable, Callable

import orjson
from starlette.types import Message, Receive, Scope, Send

V5_CHANNEL = "v5.channel.k8s.io"
_STREAM_PATH = re.compile(r"^/api/v1/namespaces/[^/]+/pods/[^/]+/(exec|attach)$")
_STDOUT, _ERROR = 1, 3

AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def handles(scope: Scope) -> bool:
    return scope["type"] == "websocket" and bool(_STREAM_PATH.match(scope["path"])) and \
        V5_CHANNEL in (scope.get("subprotocols") or ())


def _refusal_status(message: str) -> bytes:
    """apierrors.NewInternalError of the SPDY executor's error, as the translator writes it."""
    cause = f"unable to upgrade connection: {message}"
    return orjson.dumps({"metadata": {}, "status": "Failure", "message": f"Internal error occurred: {cause}",
                         "reason": "InternalError", "details": {"causes": [{"message": cause}]}, "code": 500})


async def translate(scope: Scope, receive: Receive, send: Send, api: AsgiApp) -> None:
    connect = await receive()
    if connect["type"] != "websocket.connect":
        return
    answer: dict[str, Any] = {"status": 0, "type": b"", "body": b""}

    async def no_body() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def capture(message: Message) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["type"] = dict(message.get("headers") or ()).get(b"content-type", b"")
        elif message["type"] == "http.response.body":
            answer["body"] += message.get("body", b"")

    await api({**scope, "type": "http", "method": "GET", "http_version": "1.1",
               "scheme": "https" if scope.get("scheme") == "wss" else "http"}, no_body, capture)
    if answer["status"] != 500 or not answer["type"].startswith(b"text/plain"):
        await send({"type": "websocket.close", "code": 1000})  # before accepting: the handshake is refused
        return
    await send({"type": "websocket.accept", "subprotocol": V5_CHANNEL})
    await send({"type": "websocket.send", "bytes": bytes([_STDOUT])})
    await send({"type": "websocket.send",
                "bytes": bytes([_ERROR]) + _refusal_status(answer["body"].decode(errors="replace"))})
    await send({"type": "websocket.close", "code": 1000})
