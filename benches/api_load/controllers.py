"""The controllers under write load: after each write run, how long until they have caught up, and
whether any informer had to list its resource again.

Read from our server's /metrics: `apiserver_controller_queue_keys` (keys queued or being synced, per
controller), `apiserver_controller_informer_backlog` (changes handed to an informer and not yet seen,
per resource) and `apiserver_controller_relists_total`. A server without them (kube-apiserver, whose
controllers run in another process; ours with `--controllers=-*`; a checkout from before them) gets
no figures, and the run is measured as usual.
"""

from __future__ import annotations

import time
from typing import Any

from benches.api_load.client import Client

_UNFINISHED = ("apiserver_controller_queue_keys{", "apiserver_controller_informer_backlog{")
_RELISTS = "apiserver_controller_relists_total{"
DRAIN_LIMIT_S = 30.0
_POLL_S = 0.05


def backlog(client: Client) -> tuple[float, float] | None:
    """(work the controllers have not finished, relists so far), or None where /metrics does not say."""
    answer = client.call("GET", "/metrics", accept="text/plain")
    if answer.status != 200:
        return None
    unfinished = relists = 0.0
    seen = False
    for line in answer.body.decode().splitlines():
        if line.startswith(_UNFINISHED):
            unfinished += float(line.rsplit(" ", 1)[1])
            seen = True
        elif line.startswith(_RELISTS):
            relists += float(line.rsplit(" ", 1)[1])
    return (unfinished, relists) if seen else None


def drain(client: Client, relists_before: float) -> dict[str, Any] | None:
    """Waits (up to DRAIN_LIMIT_S) for the controllers to finish what a run just gave them: the work left
    when the load ended, the seconds until none was left (None if it never emptied), and the relists
    since `relists_before`."""
    start = time.monotonic()
    first = backlog(client)
    if first is None:
        return None
    unfinished, relists = first
    at_end = unfinished
    while unfinished > 0 and time.monotonic() - start < DRAIN_LIMIT_S:
        time.sleep(_POLL_S)
        now = backlog(client)
        if now is None:
            return None
        unfinished, relists = now
    return {"unfinished_at_end": int(at_end), "drain_s": time.monotonic() - start if unfinished == 0 else None,
            "relists": int(relists - relists_before)}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The worst of the runs: the longest drain (None if one never drained) and every relist."""
    drains = [r["drain_s"] for r in runs]
    return {"unfinished_at_end_max": max(r["unfinished_at_end"] for r in runs),
            "drain_s_max": None if None in drains else max(drains),
            "relists": sum(r["relists"] for r in runs)}
