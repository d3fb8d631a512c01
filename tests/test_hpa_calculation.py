"""The autoscaler's arithmetic against upstream's own cases (pkg/controller/podautoscaler/
replica_calculator_test.go and horizontal_test.go): pods of two containers, each requesting the
resource, metrics per container in thousandths; then stabilization and rate limits."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.controllers.hpacalc import (
    DEFAULT_SCALE_DOWN,
    DEFAULT_SCALE_UP,
    Recommendations,
    Sample,
    Tolerances,
    limit_with_behavior,
    limit_without_behavior,
    resource_replicas,
)

NOW = 1_000_000.0
LONG_AGO = "1970-01-01T00:00:00Z"  # Go's zero time, as the upstream cases leave start and transition times


def pods(requests: list[str], readiness: list[str] | None = None, phases: list[str] | None = None,
         deleting: list[bool] | None = None) -> list[dict[str, Any]]:
    made = []
    for i, request in enumerate(requests):
        pod: dict[str, Any] = {
            "metadata": {"name": f"test-pod-{i}"},
            "spec": {"containers": [{"name": f"container{c}", "resources": {"requests": {"cpu": request}}}
                                    for c in (1, 2)]},
            "status": {"phase": (phases or [])[i] if phases else "Running", "startTime": LONG_AGO,
                       "conditions": [{"type": "Ready", "status": (readiness or [])[i] if readiness else "True",
                                       "lastTransitionTime": LONG_AGO}]}}
        if deleting and deleting[i]:
            pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        made.append(pod)
    return made


def samples(levels: list[list[int]], container: str = "") -> dict[str, Sample]:
    chosen = [1] if container == "container2" else [0, 1]
    return {f"test-pod-{i}": Sample(sum(level[c] for c in chosen), NOW, 60.0) for i, level in enumerate(levels)}


def same(*levels: int) -> list[list[int]]:
    return [[level, level] for level in levels]


@pytest.mark.parametrize("case, current, requests, levels, target, extra, expected", [
    ("ScaleUp", 3, ["1.0"] * 3, same(300, 500, 700), 30, {}, (5, 50, 1000)),
    ("ContainerScaleUp", 3, ["1.0"] * 3, [[1000, 300], [1000, 500], [1000, 700]], 30, {"container": "container2"},
     (5, 50, 500)),
    ("ScaleUpUnreadyLessScale", 3, ["1.0"] * 3, same(300, 500, 700), 30,
     {"readiness": ["False", "True", "True"]}, (4, 60, 1200)),
    ("ScaleUpIgnoresFailedPods", 2, ["1.0"] * 4, same(500, 700), 30,
     {"readiness": ["True", "True", "False", "False"], "phases": ["Running", "Running", "Failed", "Failed"]},
     (4, 60, 1200)),
    ("ScaleUpIgnoresDeletionPods", 2, ["1.0"] * 4, same(500, 700), 30,
     {"deleting": [False, False, True, True]}, (4, 60, 1200)),
    ("ScaleDown", 5, ["1.0"] * 5, same(100, 300, 500, 250, 250), 50, {}, (3, 28, 560)),
    ("ScaleDownExcludeUnreadyPods", 5, ["1.0"] * 5, same(100, 300, 500, 250, 250), 50,
     {"readiness": ["True", "True", "True", "False", "False"]}, (2, 30, 600)),
    ("Tolerance", 3, ["0.9", "1.0", "1.1"], same(1010, 1030, 1020), 100, {}, (3, 102, 2040)),
])
def test_replicas_from_utilization(case: str, current: int, requests: list[str], levels: list[list[int]], target: int,
                                   extra: dict[str, Any], expected: tuple[int, int, int]) -> None:
    container = extra.get("container", "")
    listed = pods(requests, extra.get("readiness"), extra.get("phases"), extra.get("deleting"))
    proposal = resource_replicas(current, listed, samples(levels, container), "cpu", target, None, Tolerances(),
                                 NOW, container)
    assert (proposal.replicas, proposal.utilization, proposal.raw_average) == expected, case


def test_stabilization_keeps_the_highest_recent_recommendation() -> None:
    history = Recommendations()
    history.record_initial(5, NOW)
    assert history.stabilize(2, NOW + 10) == 5  # within the 5-minute window
    assert history.stabilize(2, NOW + 400) == 2  # both older samples fell out of it


def test_rate_limits() -> None:
    # Without a behavior: at most doubling, at least 4.
    assert limit_without_behavior(1, 10, 1, 20) == (
        4, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")
    assert limit_without_behavior(10, 30, 1, 15)[:2] == (15, "TooManyReplicas")
    assert limit_without_behavior(3, 0, 2, 10)[:2] == (2, "TooFewReplicas")
    # The default behavior: scale up by max(4 pods, 100%) per 15 s, down by 100% per 15 s.
    history = Recommendations()
    assert limit_with_behavior(3, 20, 1, 50, DEFAULT_SCALE_UP, DEFAULT_SCALE_DOWN, history, NOW)[:2] == (
        7, "ScaleUpLimit")
    history.record_scale(3, 7, 15, NOW)
    # Within the same 15 s the period started at 3: 3 + max(4, 3) = 7 is all.
    assert limit_with_behavior(7, 20, 1, 50, DEFAULT_SCALE_UP, DEFAULT_SCALE_DOWN, history, NOW + 5)[0] == 7
    assert limit_with_behavior(7, 20, 1, 50, DEFAULT_SCALE_UP, DEFAULT_SCALE_DOWN, history, NOW + 20)[0] == 14
    one_pod = {"selectPolicy": "Max", "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}
    assert limit_with_behavior(5, 1, 1, 10, DEFAULT_SCALE_UP, one_pod, Recommendations(), NOW)[:2] == (
        4, "ScaleDownLimit")
