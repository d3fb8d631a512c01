"""The component statuses kube-apiserver reports (deprecated upstream, still served): the health of
the controller manager and the scheduler, probed on their loopback ports as upstream probes them, and of
the store, which here is embedded in the server and so is healthy whenever the server answers.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from typing import Any

_TIMEOUT_SECONDS = 2.0


@dataclass(frozen=True)
class Component:
    name: str
    port: int  # 0: nothing to probe


# Upstream's componentstatus REST answers a missing name with NotFound of api.Resource("componentstatus").
RESOURCE_IN_ERRORS = "componentstatus"

COMPONENTS = (Component("controller-manager", 10257), Component("scheduler", 10259), Component("etcd-0", 0))


def _status(name: str, healthy: bool, message: str, error: str = "") -> dict[str, Any]:
    condition: dict[str, Any] = {"type": "Healthy", "status": "True" if healthy else "False", "message": message}
    if error:
        condition["error"] = error
    return {"kind": "ComponentStatus", "apiVersion": "v1", "metadata": {"name": name}, "conditions": [condition]}


async def probe(component: Component) -> dict[str, Any]:
    if not component.port:
        return _status(component.name, True, "ok")
    url = f"https://127.0.0.1:{component.port}/healthz"
    context = ssl.create_default_context()
    # Upstream's probe does not verify the components' self-signed certificates either.
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        async with asyncio.timeout(_TIMEOUT_SECONDS):
            reader, writer = await asyncio.open_connection("127.0.0.1", component.port, ssl=context)
            writer.write(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{component.port}\r\nConnection: close\r\n\r\n"
                         .encode())
            answer = await reader.read()
            writer.close()
    except ConnectionRefusedError:
        return _status(component.name, False,
                       f'Get "{url}": dial tcp 127.0.0.1:{component.port}: connect: connection refused')
    except (OSError, TimeoutError, ssl.SSLError) as exc:
        return _status(component.name, False, f'Get "{url}": {exc or type(exc).__name__}')
    head, _, body = answer.partition(b"\r\n\r\n")
    code = head.split(b" ", 2)[1:2]
    text = body.decode(errors="replace")
    if code == [b"200"]:
        return _status(component.name, True, text)
    return _status(component.name, False, text, f"unhealthy status code: {code[0].decode() if code else '?'}")
