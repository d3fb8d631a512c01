"""Pod READY/STATUS/RESTARTS branches the goldens do not show, from upstream's printPod rules."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from columns.base import parse_time, render_cells
from columns.pods import FAILED, PODS, SUCCEEDED

T = "2027-01-15T08:00:00Z"
EARLIER = "2027-01-15T07:00:00Z"
NOW = (parse_time(T) or 0.0) + 3600  # an hour after T


def running(name: str, ready: bool = True, restarts: int = 0, finished: str | None = None,
            started: bool | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"name": name, "state": {"running": {"startedAt": EARLIER}}, "ready": ready,
                              "restartCount": restarts}
    if finished:
        status["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": finished}}
    if started is not None:
        status["started"] = started
    return status


def terminated(name: str, code: int = 0, reason: str = "", signal: int = 0) -> dict[str, Any]:
    state: dict[str, Any] = {"exitCode": code, "finishedAt": EARLIER}
    if reason:
        state["reason"] = reason
    if signal:
        state["signal"] = signal
    return {"name": name, "state": {"terminated": state}, "ready": False, "restartCount": 0}


def waiting(name: str, reason: str) -> dict[str, Any]:
    return {"name": name, "state": {"waiting": {"reason": reason}}, "ready": False, "restartCount": 0}


def pod(containers: list[str], statuses: list[dict[str, Any]], init: list[dict[str, Any]] | None = None,
        init_statuses: list[dict[str, Any]] | None = None, phase: str = "Running",
        conditions: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "metadata": {"name": "p", "creationTimestamp": "2027-01-15T06:00:00Z"},
        "spec": {"containers": [{"name": n, "image": "img"} for n in containers], "initContainers": init or []},
        "status": {"phase": phase, "conditions": conditions or [], "containerStatuses": statuses,
                   "initContainerStatuses": init_statuses or []},
    }
    for key, value in extra.items():
        section, _, field = key.partition("__")
        obj[section][field] = value
    return obj


def cells(obj: dict[str, Any]) -> list[Any]:
    return render_cells(PODS.row(orjson.dumps(obj)), NOW)


INITIALIZED = [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}]
SIDECAR = {"name": "mesh", "restartPolicy": "Always"}

CASES = {
    "sidecar started and ready counts as a ready container": (
        pod(["app"], [running("app")], init=[SIDECAR],
            init_statuses=[running("mesh", restarts=3, finished=T, started=True)], conditions=INITIALIZED),
        ["2/2", "Running", "3 (60m ago)"]),
    "sidecar not yet started keeps the pod initializing": (
        pod(["app"], [waiting("app", "PodInitializing")], init=[SIDECAR],
            init_statuses=[running("mesh", ready=False, started=False)], phase="Pending"),
        ["0/2", "Init:0/1", "0"]),
    "failed init container with a reason": (
        pod(["app"], [], init=[{"name": "setup"}], init_statuses=[terminated("setup", 1, "Error")]),
        ["0/1", "Init:Error", "0"]),
    "failed init container killed by a signal": (
        pod(["app"], [], init=[{"name": "setup"}], init_statuses=[terminated("setup", 137, signal=9)]),
        ["0/1", "Init:Signal:9", "0"]),
    "failed init container by exit code": (
        pod(["app"], [], init=[{"name": "setup"}], init_statuses=[terminated("setup", 2)]),
        ["0/1", "Init:ExitCode:2", "0"]),
    "init container waiting with a reason": (
        pod(["app"], [], init=[{"name": "a"}, {"name": "b"}],
            init_statuses=[terminated("a"), waiting("b", "CrashLoopBackOff")]),
        ["0/1", "Init:CrashLoopBackOff", "0"]),
    "init container waiting to initialize shows progress": (
        pod(["app"], [], init=[{"name": "a"}, {"name": "b"}],
            init_statuses=[terminated("a"), waiting("b", "PodInitializing")]),
        ["0/1", "Init:1/2", "0"]),
    "restarts of a failing init container are shown while initializing": (
        pod(["app"], [running("app", restarts=5)], init=[{"name": "a"}],
            init_statuses=[{**waiting("a", "CrashLoopBackOff"), "restartCount": 4,
                            "lastState": {"terminated": {"exitCode": 1, "finishedAt": T}}}]),
        ["0/1", "Init:CrashLoopBackOff", "4 (60m ago)"]),
    "container terminated without a reason, by exit code": (
        pod(["app"], [terminated("app", 137)], conditions=INITIALIZED),
        ["0/1", "ExitCode:137", "0"]),
    "container terminated without a reason, by signal": (
        pod(["app"], [terminated("app", 0, signal=15)], conditions=INITIALIZED),
        ["0/1", "Signal:15", "0"]),
    "completed container next to a running one, pod ready": (
        pod(["app", "job"], [running("app"), terminated("job", 0, "Completed")], conditions=INITIALIZED),
        ["1/2", "Running", "0"]),
    "completed container next to a running one, pod not ready": (
        pod(["app", "job"], [running("app"), terminated("job", 0, "Completed")],
            conditions=[{"type": "Ready", "status": "False"}]),
        ["1/2", "NotReady", "0"]),
    "the latest termination across containers dates the restarts": (
        pod(["a", "b"], [running("a", restarts=1, finished=EARLIER), running("b", restarts=2, finished=T)]),
        ["2/2", "Running", "3 (60m ago)"]),
    "unknown phase is printed as is": (
        pod(["app"], [], phase="Unknown"), ["0/1", "Unknown", "0"]),
    "scheduling gates win over the phase": (
        pod(["app"], [], phase="Pending",
            conditions=[{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]),
        ["0/1", "SchedulingGated", "0"]),
    "pod on a lost node being deleted is Unknown": (
        pod(["app"], [running("app")], metadata__deletionTimestamp=T, status__reason="NodeLost"),
        ["1/1", "Unknown", "0"]),
    "a finished pod being deleted keeps its final status": (
        pod(["app"], [terminated("app", 0, "Completed")], phase="Succeeded", metadata__deletionTimestamp=T),
        ["0/1", "Completed", "0"]),
}


@pytest.mark.parametrize("case", CASES)
def test_pod_status(case: str) -> None:
    obj, expected = CASES[case]
    assert cells(obj)[1:4] == expected


def test_readiness_gates_count_true_conditions() -> None:
    obj = pod(["app"], [running("app")], spec__readinessGates=[{"conditionType": "a"}, {"conditionType": "b"}],
              conditions=[{"type": "a", "status": "True"}, {"type": "b", "status": "False"}])
    assert cells(obj)[8] == "1/2"


def test_ip_falls_back_to_pod_ips() -> None:
    obj = pod(["app"], [], status__podIPs=[{"ip": "fd00::1"}, {"ip": "10.0.0.1"}])
    assert cells(obj)[5] == "fd00::1"


def test_finished_pods_carry_a_completed_row_condition() -> None:
    assert PODS.row(orjson.dumps(pod([], [], phase="Succeeded"))).conditions == SUCCEEDED
    assert PODS.row(orjson.dumps(pod([], [], phase="Failed"))).conditions == FAILED
    assert PODS.row(orjson.dumps(pod([], []))).conditions is None


def test_an_empty_pod_still_prints_every_column() -> None:
    assert render_cells(PODS.row(b"{}"), NOW) == ["", "0/0", "", "0", "<unknown>", "<none>", "<none>",
                                                    "<none>", "<none>"]
