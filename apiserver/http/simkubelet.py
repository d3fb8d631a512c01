"""The kubelet API of simulated nodes, answered in the API server's process instead of dialled.

A pod on a node annotated `fastkube.io/simulated: "true"` has no container anywhere, so its kubelet
answers as a real kubelet answers for a container its runtime does not have: logs from what the
container is simulated to write (apiserver.simulated.logs), followed until the container stops; exec,
attach and portforward refused with the kubelet's 500 `container not found ("web")`, which the API
server passes back unchanged for an SPDY upgrade (kubectl: `unable to upgrade connection: container not
found ("web")`) and writes on the error channel of a WebSocket one (apiserver.http.streams). nodes/proxy reaches the kubelet's `/healthz`, `/pods` and
`/containerLogs/...`; other paths are its 404.
"""

from __future__ import annotations

import datetime
from typing import Any, AsyncIterator, Mapping

import orjson

from apiserver import errors
from apiserver.errors import ApiError
from apiserver.http.endpoint import Endpoint
from apiserver.kinds.resources import Registry, ResourceType
from apiserver.reply import Reply, StreamReply
from apiserver.simulated.logs import LogOptions, LogUnavailable, Run, lines_of, render, run_of
from apiserver.storage.interface import Expired
from apiserver.watch.fanout import Watcher

Obj = dict[str, Any]
TEXT = "text/plain; charset=utf-8"
_FOLLOW_QUEUE_LIMIT = 10_000


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _refused(message: str) -> ApiError:
    """The kubelet's 400 as the API server turns it into a Status (GenericHttpResponseChecker)."""
    return errors.bad_request(message)


class SimulatedKubelets:
    """The kubelets of every simulated node; present only while the fake kubelets run."""

    def __init__(self, endpoint: Endpoint, registry: Registry) -> None:
        pods = registry.lookup("", "v1", "pods")
        assert pods is not None
        self._endpoint = endpoint
        self._pods: ResourceType = pods

    def log(self, pod: Obj, container: str, query: Mapping[str, str]) -> Reply | StreamReply:
        options = LogOptions.from_query(query, _now())
        try:
            run = run_of(pod, container, options.previous)
        except LogUnavailable as exc:
            raise _refused(str(exc)) from None
        lines = lines_of(pod, container)
        body = render([(run.started, text) for text in lines], options)
        if options.limit_bytes is not None:
            body = body[:options.limit_bytes]
        if not options.follow or not run.running or (options.limit_bytes is not None
                                                       and len(body) >= options.limit_bytes):
            return Reply(200, body, "text/plain")
        watcher = self._watch(pod)
        return StreamReply(self._followed(watcher, pod, container, run, len(lines), body, options),
                           "text/plain", closed=watcher.closed)

    def _watch(self, pod: Obj) -> Watcher:
        since = int(pod["metadata"]["resourceVersion"])
        try:
            return self._endpoint.follow(self._pods, since, _FOLLOW_QUEUE_LIMIT)
        except Expired:
            return self._endpoint.follow(self._pods, self._endpoint.store.revision, _FOLLOW_QUEUE_LIMIT)

    async def _followed(self, watcher: Watcher, pod: Obj, container: str, run: Run, written_lines: int,
                        first: bytes, options: LogOptions) -> AsyncIterator[bytes]:
        """The log so far, then each line the container writes until it stops (or the pod goes)."""
        key = ("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
        left = None if options.limit_bytes is None else options.limit_bytes - len(first)
        plain = LogOptions(timestamps=options.timestamps)
        try:
            if first:
                yield first
            while not watcher.closed.is_set():
                while watcher.queue:
                    change = watcher.queue.popleft().change
                    if change.key != key:
                        continue
                    if change.type == "DELETED":
                        return
                    now = orjson.loads(change.data)
                    try:
                        current = run_of(now, container, False)
                    except LogUnavailable:
                        return
                    if current.container_id != run.container_id:
                        return  # a new run: `kubectl logs -f` follows one run, as the kubelet's does
                    lines = lines_of(now, container)
                    chunk = render([(_now(), text) for text in lines[written_lines:]], plain)
                    written_lines = max(written_lines, len(lines))
                    if left is not None:
                        chunk, left = chunk[:left], left - len(chunk[:left])
                    if chunk:
                        yield chunk
                    if not current.running or left == 0:
                        return
                watcher.wakeup.clear()
                await watcher.wakeup.wait()
        finally:
            watcher.stop()

    def refuse_stream(self, pod: Obj, subresource: str, container: str) -> Reply:
        """exec, attach, portforward: the kubelet finds no such container (or pod) in its runtime."""
        meta = pod["metadata"]
        full_name = f"{meta['name']}_{meta.get('namespace', '')}"
        if subresource == "exec":
            message = f'container not found ("{container}")'
        elif subresource == "attach":
            message = f"container {container} not found in pod {full_name}"
        else:
            message = f'pod not found ("{full_name}")'
        return Reply(500, message.encode(), TEXT)

    def proxy(self, node: Obj, path: str, query: Mapping[str, str]) -> Reply | StreamReply:
        """A request to the kubelet's own port through nodes/proxy."""
        node_name = node["metadata"]["name"]
        store = self._endpoint.store
        if path in ("/healthz", "/healthz/"):
            return Reply(200, b"ok", TEXT)
        if path in ("/pods", "/pods/"):
            listed = (orjson.loads(stored.data) for _, stored in store.list(self._pods.storage_key, None)[1])
            items = [p for p in listed if (p.get("spec") or {}).get("nodeName") == node_name]
            return Reply(200, orjson.dumps({"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": items}),
                         "application/json")
        parts = path.strip("/").split("/")
        if len(parts) == 4 and parts[0] == "containerLogs":
            namespace, name, container = parts[1:]
            stored = store.get((self._pods.storage_key, namespace, name))
            pod = None if stored is None else orjson.loads(stored.data)
            if pod is None or (pod.get("spec") or {}).get("nodeName") != node_name:
                return Reply(404, f'pod "{name}" does not exist\n'.encode(), TEXT)
            if not any(c.get("name") == container for key in ("initContainers", "containers", "ephemeralContainers")
                       for c in (pod.get("spec") or {}).get(key) or ()):
                return Reply(404, f'container "{container}" not found in pod "{name}"\n'.encode(), TEXT)
            try:
                return self.log(pod, container, query)
            except ApiError as exc:
                return Reply(400, exc.message.encode(), TEXT)
        return Reply(404, b"404 page not found\n", TEXT)
