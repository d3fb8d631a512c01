"""The floor of our stack for a write: a bare starlette app that reads a request's body whole and answers
precomputed bytes, and does nothing else.

Every NAME.body in $BODY_DIR, with its HTTP status in NAME.status, answers POST, PUT and PATCH at /NAME
and at any path below it (a patch's or an update's target), as application/json; GET too, so that its
readiness is polled as the read floor's is. It runs beside the read
floor (shared/bench/floor_app.py, which answers GET only) on the same uvicorn, loop, parser and
certificate: what a write of that size costs before a server does any work of its own.
"""

import os

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

ANSWERS: dict[str, tuple[bytes, int]] = {}
for file_name in os.listdir(os.environ["BODY_DIR"]):
    if file_name.endswith(".body"):
        name = file_name[: -len(".body")]
        with open(os.path.join(os.environ["BODY_DIR"], file_name), "rb") as f:
            body = f.read()
        with open(os.path.join(os.environ["BODY_DIR"], name + ".status")) as f:
            ANSWERS[name] = (body, int(f.read()))


async def serve(request: Request) -> Response:
    await request.body()  # a server reads the whole body before it can decode it
    body, status = ANSWERS[request.path_params["name"]]
    return Response(body, status_code=200 if request.method == "GET" else status, media_type="application/json")


METHODS = ["POST", "PUT", "PATCH", "GET"]
app = Starlette(routes=[Route("/{name}", serve, methods=METHODS), Route("/{name}/{rest:path}", serve, methods=METHODS)])
