"""Replays admission scenarios through the official `kubernetes` Python client and records what a server
answered: the status code, the Warning headers, and the parts of the answer a scenario keeps.

The same replay records kube-apiserver's answers into fixtures (tools/capture_admission_plugins.py)
and checks this server's against them (tests/test_admission_plugins.py).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from kubernetes import client, config

Answer = dict[str, Any]
_WARNING = re.compile(r'\d{3} \S+ "((?:[^"\\]|\\.)*)"')
# how long a step that waits for a controller polls before it records what it last saw
_WAIT_SECONDS = 30.0


def api_client(kubeconfig: str) -> client.ApiClient:
    configuration = client.Configuration()
    config.load_kube_config(config_file=kubeconfig, client_configuration=configuration)
    return client.ApiClient(configuration)


def _warnings(headers: Any) -> list[str]:
    if headers is None:
        return []
    values = headers.getlist("Warning") if hasattr(headers, "getlist") else [headers.get("Warning") or ""]
    return [json.loads(f'"{m}"') for value in values for m in _WARNING.findall(value or "")]


def _at(obj: Any, path: str) -> Any:
    """The value at a dotted path ("spec.containers.0.resources"); None where it is missing."""
    for part in path.split("."):
        if isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        elif isinstance(obj, dict):
            obj = obj.get(part)
        else:
            return None
    return obj


def call(api: client.ApiClient, step: dict[str, Any]) -> Answer:
    query = list((step.get("query") or {}).items())
    headers = {"Content-Type": step.get("content_type", "application/json"), "Accept": "application/json",
               **(step.get("headers") or {})}
    request = api.param_serialize(step["method"], step["path"], query_params=query, header_params=headers,
                                  body=step.get("body"), auth_settings=["BearerToken"])
    response = api.call_api(*request)
    status, raw, got = response.status, response.read(), response.headers
    body = json.loads(raw) if raw else None
    answer: Answer = {"status": status, "warnings": _warnings(got)}
    if isinstance(body, dict) and body.get("kind") == "Status":
        answer["body"] = {k: body.get(k) for k in ("reason", "message", "code", "details") if k in body}
        if isinstance(answer["body"].get("details"), dict):
            # a deleted object's uid, which each server makes anew
            answer["body"]["details"].pop("uid", None)
    else:
        answer["body"] = {path: _at(body, path) for path in step.get("keep", ())}
    return answer


def run_step(api: client.ApiClient, step: dict[str, Any]) -> Answer:
    """One step; a step with `until` (dotted path -> wanted value) is retried until the answer shows it."""
    deadline = time.monotonic() + _WAIT_SECONDS
    while True:
        answer = call(api, step)
        until = step.get("until") or {}
        if all(_seen(answer, path) == wanted for path, wanted in until.items()) or time.monotonic() > deadline:
            return answer
        time.sleep(0.5)


def _seen(answer: Answer, path: str) -> Any:
    """A kept path of the body, or "@refused" (an error status) and "@warned" (any Warning): a step after
    an admission policy is written waits for the policy to be enforced."""
    if path == "@refused":
        return answer["status"] >= 400
    if path == "@warned":
        return bool(answer["warnings"])
    body = answer["body"]
    if path in body:
        return body[path]
    # Inside a kept value ("spec.containers.1.name" under a kept "spec.containers"): list items by index.
    kept = next((k for k in body if path.startswith(k + ".")), None)
    if kept is None:
        return None
    found = body[kept]
    for part in path[len(kept) + 1:].split("."):
        if isinstance(found, list) and part.isdigit() and int(part) < len(found):
            found = found[int(part)]
        elif isinstance(found, dict):
            found = found.get(part)
        else:
            return None
    return found


def _without_generated_suffix(answer: Answer, step: dict[str, Any]) -> Answer:
    """A generated name's random five characters as "xxxxx", so that answers can be compared."""
    body = step.get("body")
    prefix = ((body.get("metadata") or {}).get("generateName") or "") if isinstance(body, dict) else ""
    if not prefix:
        return answer
    pattern = re.compile(re.escape(prefix) + "[a-z0-9]{5}")
    return json.loads(pattern.sub(prefix + "xxxxx", json.dumps(answer)))


def run(api: client.ApiClient, steps: list[dict[str, Any]]) -> list[Answer]:
    return [{"step": step["name"], **_without_generated_suffix(run_step(api, step), step)} for step in steps]
