"""Records kube-apiserver's answers to tests/validation_cases.py into tests/validation_answers.json.

Usage: python tools/capture_validation.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
The answers are what CI, which has no reference, holds our server to (tests/test_validation_answers.py).
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from email.message import Message
from typing import Any

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)

import validation_cases

Exchange = Callable[[str, str, "bytes | None", str], tuple[int, bytes, Message]]


def exchange(kubeconfig: str, headers: dict[str, str] | None = None) -> Exchange:
    """Sends one request to the server a kubeconfig names, with its bearer token: (status, body, headers).

    `headers` go with every request: Impersonate-User and the like, to be answered as another user."""
    with open(kubeconfig) as f:
        config = yaml.safe_load(f)
    server = config["clusters"][0]["cluster"]["server"]
    token = config["users"][0]["user"]["token"]
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE

    def send(method: str, path: str, data: bytes | None, content_type: str) -> tuple[int, bytes, Message]:
        request = urllib.request.Request(server + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if data is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as response:
                return response.status, response.read(), response.headers
        except urllib.error.HTTPError as err:
            return err.code, err.read(), err.headers
    return send


def as_users(kubeconfig: str, users: dict[str, dict[str, str]]) -> Callable[..., tuple[int, Any]]:
    """Sends as the kubeconfig's user, or as another it impersonates (`users`: name -> the
    Impersonate-* headers): send(method, path, body, content type, user name) -> (status, decoded body)."""
    exchanges = {user: exchange(kubeconfig, headers) for user, headers in users.items()}

    def send(method: str, path: str, body: Any, content_type: str, user: str = "admin") -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        status, raw, _ = exchanges[user](method, path, data, content_type)
        return status, json.loads(raw) if raw else None
    return send


def sender(kubeconfig: str) -> validation_cases.Send:
    send_raw = exchange(kubeconfig)

    def send(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
        # bytes go as they are: a value JSON cannot round-trip through Python (a spelled-out number)
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        status, raw, _ = send_raw(method, path, data, content_type)
        return status, json.loads(raw) if raw else None
    return send


def main(kubeconfig: str) -> None:
    send = sender(kubeconfig)
    validation_cases.prepare(send)
    answers = {name: validation_cases.run_case(send, name) for name in validation_cases.CASES}
    with open(os.path.join(TESTS, "validation_answers.json"), "w") as f:
        json.dump(answers, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(answers)} answers, {sum(1 for a in answers.values() if a.get('code') == 422)} refused as invalid")


if __name__ == "__main__":
    main(sys.argv[1])
