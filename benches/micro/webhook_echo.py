"""An admission webhook that allows everything, served by uvicorn for the webhook benches: the
cheapest answer a webhook can give, so that what is measured is the API server's side of a call."""

from __future__ import annotations

from typing import Any

import orjson


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    review = orjson.loads(body)
    answer = orjson.dumps({"apiVersion": review.get("apiVersion"), "kind": "AdmissionReview",
                           "response": {"uid": review["request"]["uid"], "allowed": True}})
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": answer})
