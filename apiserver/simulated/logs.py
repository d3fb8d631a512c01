"""What a simulated container has written: its log lines and the kubelet's reading of them.

A container's lines are its pod's `fastkube.io/simulated-logs-<container>` annotation, else its
`fastkube.io/simulated-logs` annotation, else one line saying where it runs and how to choose its lines.
Each run of a container (a restart is a new run) writes them when it starts. The kubelet picks the run
as upstream's `validateContainerLogStatus` does (the current one, or with `previous` the last one that
ended), refusing in its words when there is none, then applies the PodLogOptions in its order: since,
tail, timestamps, and a byte limit on what is written.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, Mapping

from apiserver.simulated.annotations import LOGS

Obj = dict[str, Any]
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})  # strconv.ParseBool's spellings of true


class LogUnavailable(Exception):
    """The kubelet's refusal (a 400 through the API server), in its words."""


@dataclass(frozen=True)
class LogOptions:
    follow: bool = False
    previous: bool = False
    timestamps: bool = False
    tail_lines: int | None = None
    since: datetime.datetime | None = None
    limit_bytes: int | None = None

    @classmethod
    def from_query(cls, query: Mapping[str, str], now: datetime.datetime) -> LogOptions:
        """Options already checked by the API server (apiserver.http.kubelet) as PodLogOptions."""
        since = None
        if "sinceSeconds" in query:
            since = now - datetime.timedelta(seconds=int(query["sinceSeconds"]))
        elif query.get("sinceTime"):
            since = parse_time(query["sinceTime"])
        return cls(query.get("follow", "") in _TRUE, query.get("previous", "") in _TRUE,
                   query.get("timestamps", "") in _TRUE,
                   int(query["tailLines"]) if "tailLines" in query else None, since,
                   int(query["limitBytes"]) if "limitBytes" in query else None)


@dataclass(frozen=True)
class Run:
    """One run of a container: when it started, and whether it still runs (a follow waits for more)."""

    container_id: str
    started: datetime.datetime
    running: bool


def parse_time(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def lines_of(pod: Obj, container: str) -> list[str]:
    annotations = pod["metadata"].get("annotations") or {}
    text = annotations.get(f"{LOGS}-{container}", annotations.get(LOGS))
    if text is None:
        meta = pod["metadata"]
        node = (pod.get("spec") or {}).get("nodeName", "")
        return [(f"fastkube: container {container} of pod {meta.get('namespace')}/{meta['name']} runs on the "
                 f"simulated node {node}; set the pod's {LOGS} annotation to choose its log lines")]
    return str(text).splitlines()


def run_of(pod: Obj, container: str, previous: bool) -> Run:
    """The run whose log is read, as the kubelet's validateContainerLogStatus picks it."""
    status = pod.get("status") or {}
    name = pod["metadata"]["name"]
    found = next((s for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
                  for s in status.get(key) or () if s.get("name") == container), None)
    if found is None:
        raise LogUnavailable(f'container "{container}" in pod "{name}" is not available')
    state, last = found.get("state") or {}, (found.get("lastState") or {}).get("terminated")
    if previous:
        if not last or not last.get("containerID"):
            raise LogUnavailable(f'previous terminated container "{container}" in pod "{name}" not found')
        return _run(last, False)
    if "running" in state:
        return _run({**state["running"], "containerID": found.get("containerID", "")}, True)
    terminated = state.get("terminated")
    if terminated is not None:
        if terminated.get("containerID"):
            return _run(terminated, False)
        if last and last.get("containerID"):
            return _run(last, False)
        raise LogUnavailable(f'container "{container}" in pod "{name}" is terminated')
    if last is not None:
        if not last.get("containerID"):
            raise LogUnavailable(f'container "{container}" in pod "{name}" is terminated')
        return _run(last, False)
    waiting = state.get("waiting")
    if waiting is not None:
        reason = waiting.get("reason", "")
        why = {"ErrImagePull": "image can't be pulled",
               "ImagePullBackOff": "trying and failing to pull image"}.get(reason, reason)
        raise LogUnavailable(f'container "{container}" in pod "{name}" is waiting to start: {why}')
    raise LogUnavailable(f'container "{container}" in pod "{name}" is waiting to start - no logs yet')


def _run(state: Obj, running: bool) -> Run:
    started = state.get("startedAt")
    when = parse_time(started) if started else datetime.datetime.now(datetime.timezone.utc)
    return Run(str(state.get("containerID", "")), when, running)


def timestamp(moment: datetime.datetime) -> str:
    """The kubelet's RFC3339Nano with a fixed nine digits."""
    utc = moment.astimezone(datetime.timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond * 1000:09d}Z"


def render(lines: list[tuple[datetime.datetime, str]], options: LogOptions) -> bytes:
    """The lines the options select, as the kubelet writes them (before any byte limit)."""
    if options.since is not None:
        since = options.since
        lines = [(moment, text) for moment, text in lines if moment >= since]
    if options.tail_lines is not None:
        lines = lines[max(0, len(lines) - options.tail_lines):] if options.tail_lines else []
    if options.timestamps:
        return b"".join(f"{timestamp(moment)} {text}\n".encode() for moment, text in lines)
    return b"".join(f"{text}\n".encode() for _, text in lines)
