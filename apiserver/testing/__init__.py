"""Running this server in other projects' tests: a server process to start and stop, and a pytest plugin.

`ServerProcess` is the seam: it starts `python -m apiserver` on a data directory and a free loopback
port, waits until the API answers, and stops it. The pytest plugin (`pytest_plugin.py`, registered as
the `fastkube` entry point of `pytest11`) holds one for the test session and hands out its kubeconfig,
a client and a namespace per test.
"""

from apiserver.testing.server import ServerOptions, ServerProcess, StartFailed

__all__ = ["ServerOptions", "ServerProcess", "StartFailed"]
