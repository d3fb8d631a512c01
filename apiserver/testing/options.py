"""The plugin's settings: each a command-line option over an ini key of the same name, over a default.

`--fastkube-controllers` / `fastkube_controllers` (default `*`, every controller, as a cluster runs;
`-*` is the bare API server), `--fastkube-simulate-nodes` / `fastkube_simulate_nodes` (default 0) and
`--fastkube-server-args` / `fastkube_server_args` (any other flags of `python -m apiserver`, split as a
shell splits them).
"""

from __future__ import annotations

import shlex

import pytest

from apiserver.testing.server import ServerOptions

_SETTINGS = {
    "controllers": ("controllers to run, as kube-controller-manager's --controllers ('*': all, '-*': none)",
                    "*"),
    "simulate_nodes": ("simulated nodes (node-1..node-N) whose fake kubelets run the pods bound to them",
                       "0"),
    "server_args": ("further flags for `python -m apiserver`, split as a shell splits them", ""),
}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("fastkube", "a fastkube-apiserver for the test session")
    for name, (help_text, default) in _SETTINGS.items():
        group.addoption(f"--fastkube-{name.replace('_', '-')}", dest=f"fastkube_{name}", default=None,
                        help=f"{help_text} (ini: fastkube_{name}; default {default!r})")
        parser.addini(f"fastkube_{name}", help_text, default=default)


def _setting(config: pytest.Config, name: str) -> str:
    given = config.getoption(f"fastkube_{name}")
    return str(given) if given is not None else str(config.getini(f"fastkube_{name}"))


def server_options(config: pytest.Config) -> ServerOptions:
    nodes = _setting(config, "simulate_nodes")
    if not nodes.strip().isdigit():
        raise pytest.UsageError(f"fastkube_simulate_nodes must be a whole number, not {nodes!r}")
    return ServerOptions(controllers=_setting(config, "controllers").strip(), simulate_nodes=int(nodes),
                         extra_args=tuple(shlex.split(_setting(config, "server_args"))))
