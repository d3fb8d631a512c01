"""Kubernetes' CEL `format` and `authorizer` libraries through kubectl, against kube-apiserver 1.36.2's
recorded answers (tests/fixtures/cel_library.json, by tools/capture_cel_library.py).

Formats: CRD rules naming every format upstream has, with valid and invalid values, upstream's
format_test.go expressions rendered as messages, and rules the reference refuses to compile. Authorizer:
ValidatingAdmissionPolicies that render authorizer decisions for users RBAC grants different things
(impersonated with `kubectl --as`), and one that denies a write by what the requesting user may do.
Ratcheting: an unchanged value's failure under a stricter CRD rule is a warning, a changed one an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import cel_library_scenarios as scenarios
import pytest
from support import ServerProcess, kubectl_path, run_kubectl, wait_for

# Once, on the embedded store: what is checked is decided before the store.
pytestmark = pytest.mark.store_once

ANSWERS: dict[str, tuple[int, list[str]]] = {}


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    kubectl_path()
    kubeconfig = shared_server.kubeconfig
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.create_format_crds(kubeconfig)})
    for plural in ("formatprobes", "expressionprobes"):
        wait_for(f"{plural} served", lambda p=plural: run_kubectl(shared_server, "get", p, check=False).returncode == 0)
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.run_format_steps(kubeconfig)})
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.create_authz_objects(kubeconfig)})
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.run_authz_steps(kubeconfig)})
    ANSWERS.update({name: (code, lines) for name, code, lines in scenarios.run_ratchet_steps(kubeconfig)})
    yield shared_server


def recorded(part: str) -> list[Any]:
    assert scenarios.FIXTURE.exists(), "record the reference's answers: tools/capture_cel_library.py"
    return list(json.loads(scenarios.FIXTURE.read_text())[part])


@pytest.mark.parametrize("part", ["crds", "formats", "created", "authz", "ratchet"])
def test_ours_equal_the_recorded_reference(server: ServerProcess, part: str) -> None:
    differing = [(name, (code, lines), ANSWERS.get(name)) for name, code, lines in recorded(part)
                 if ANSWERS.get(name) != (code, lines)]
    assert not differing, differing


def test_a_policy_denies_by_what_the_requesting_user_may_do(server: ServerProcess) -> None:
    code, lines = ANSWERS["guarded-as-alice"]
    assert code == 1
    assert lines == [('Error from server (Forbidden): error when creating "STDIN": configmaps "guarded-a" is forbidden: '
                      "ValidatingAdmissionPolicy 'guarded' with binding 'guarded' denied request: alice may not delete "
                      "pods")]
    assert ANSWERS["guarded-as-bob"] == (0, [])


def test_format_errors_are_upstreams(server: ServerProcess) -> None:
    code, lines = ANSWERS["formats"]
    index = {f"{fmt}:{value}": i for i, (fmt, value) in enumerate(scenarios.FORMAT_CASES)}
    assert code == 1
    assert f"spec.items[{index['dns1123Label:a.b']}]: Invalid value: must not contain dots" in lines
    assert (f'spec.items[{index["uri:example.com"]}]: Invalid value: parse "example.com": invalid URI for request'
            in lines)
    assert f"spec.items[{index['nope:anything']}]: Invalid value: unknown format" in lines
    assert not any(line.startswith(f"spec.items[{index['date:2020-02-29']}]:") for line in lines)


def test_a_ratcheted_rule_failure_is_a_warning(server: ServerProcess) -> None:
    assert ANSWERS["ratchet-unchanged"] == (0, ["Warning: spec.x: Invalid value: 5: x must exceed 10"])
    assert ANSWERS["ratchet-changed"] == (1, ['The Ratchet "probe" is invalid:',
                                              "spec.x: Invalid value: 6: x must exceed 10"])


def test_webhook_match_conditions_ask_the_authorizer(server: ServerProcess) -> None:
    # alice may not delete pods: the condition is false and the unreachable webhook is never called.
    assert ANSWERS["hooked-as-alice"] == (0, [])
    assert ANSWERS["hooked-as-bob"][0] == 1
