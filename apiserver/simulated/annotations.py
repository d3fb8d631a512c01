"""The annotations that steer what simulated nodes do, read by the fake kubelets, the simulated kubelet
API and the simulated metrics alike."""

from __future__ import annotations

from typing import Any

SIMULATED = "fastkube.io/simulated"  # on a Node: its kubelet is simulated by this server
EXIT_CODE = "fastkube.io/simulated-exit-code"
RUN_SECONDS = "fastkube.io/simulated-run-seconds"
TERMINATION_SECONDS = "fastkube.io/simulated-termination-seconds"
# A pod's log lines, one a line: for every container, or (`...-logs-<container>`) for one.
LOGS = "fastkube.io/simulated-logs"
# A pod's resource usage as metrics-server would report it, `cpu=250m,memory=64Mi`: the whole pod's,
# shared among its containers.
USAGE = "fastkube.io/simulated-usage"


def is_simulated(node: dict[str, Any] | None) -> bool:
    return node is not None and (node["metadata"].get("annotations") or {}).get(SIMULATED) == "true"
