"""A namespace of its own for each test, named after the test so that a leftover object says whose it is."""

from __future__ import annotations

import re
import secrets

from apiserver.testing.server import ServerProcess

# A namespace name is a DNS label (63 characters); the test's part leaves room for a random suffix.
_TEST_PART = 50


def namespace_name(test_name: str) -> str:
    label = re.sub(r"[^a-z0-9]+", "-", test_name.lower()).strip("-")[:_TEST_PART].strip("-") or "test"
    return f"{label}-{secrets.token_hex(3)}"


def create_namespace(server: ServerProcess, test_name: str) -> str:
    name = namespace_name(test_name)
    status, answer = server.request("POST", "/api/v1/namespaces",
                                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    if status != 201:
        raise RuntimeError(f"could not create namespace {name}: {status} {answer}")
    return name


def delete_namespace(server: ServerProcess, name: str) -> None:
    """Asks for the namespace's deletion and does not wait: the next test has a namespace of its own."""
    status, answer = server.request("DELETE", f"/api/v1/namespaces/{name}")
    if status not in (200, 202, 404):
        raise RuntimeError(f"could not delete namespace {name}: {status} {answer}")
