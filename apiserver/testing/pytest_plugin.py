"""The `fastkube` pytest plugin: a real API server for the test session, started only when a test asks.

Registered through the `pytest11` entry point, so a project that installs the package has it. Every
fixture is lazy: a run whose tests use none of them starts no server.

- `fastkube_server`: the session's server process (`url`, `kubeconfig`, `token`, `ca`, `request()`),
  on a temporary data directory with the embedded store; settings in `options.py`.
- `fastkube_kubeconfig`: the path of its admin kubeconfig, for kubectl, kopf, kr8s, lightkube...
- `fastkube_client`: a `kubernetes.client.ApiClient` configured from it (the `kubernetes` package).
- `fastkube_namespace`: a fresh namespace for one test, deleted after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from apiserver.testing.namespaces import create_namespace, delete_namespace
from apiserver.testing.options import add_options, server_options
from apiserver.testing.server import ServerOptions, ServerProcess

if TYPE_CHECKING:
    from kubernetes.client import ApiClient

_OPTIONS = pytest.StashKey[ServerOptions]()
_STARTED = pytest.StashKey[ServerProcess]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    # Read now, so that a bad setting stops the run at once rather than erroring every test that asks.
    config.stash[_OPTIONS] = server_options(config)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    server = config.stash.get(_STARTED, None)
    if server is not None:
        terminalreporter.write_line(f"fastkube: served {server.url}; kubeconfig {server.kubeconfig}; "
                                    f"log {server.log_path}")


@pytest.fixture(scope="session")
def fastkube_server(request: pytest.FixtureRequest,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(str(tmp_path_factory.mktemp("fastkube")), request.config.stash[_OPTIONS])
    server.start()
    request.config.stash[_STARTED] = server
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def fastkube_kubeconfig(fastkube_server: ServerProcess) -> str:
    return fastkube_server.kubeconfig


@pytest.fixture(scope="session")
def fastkube_client(fastkube_kubeconfig: str) -> Iterator[ApiClient]:
    try:
        from kubernetes import config
    except ImportError:
        pytest.fail("fastkube_client needs the `kubernetes` package (pip install kubernetes)")
    client = config.new_client_from_config(config_file=fastkube_kubeconfig)  # type: ignore[no-untyped-call]
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def fastkube_namespace(fastkube_server: ServerProcess, request: pytest.FixtureRequest) -> Iterator[str]:
    name = create_namespace(fastkube_server, request.node.name)
    try:
        yield name
    finally:
        delete_namespace(fastkube_server, name)
