"""The very app `python -m apiserver` serves, built for granian (`--factory`), to measure that server.

`benches.api_load --http-server granian` starts granian on `make_app` with the server's options in
FASTKUBE_SERVE_OPTIONS (JSON of apiserver.server.ServeOptions' plain fields).
"""

from __future__ import annotations

import json
import os

from starlette.applications import Starlette

from apiserver import server


def make_app() -> Starlette:
    options = server.ServeOptions(**json.loads(os.environ["FASTKUBE_SERVE_OPTIONS"]))
    app, _ = server.build(options)
    return app
