"""CRD x-kubernetes-validations through kubectl: rules compiled when the CRD is written, run on writes.

The CRDs (tests/cel_manifests) are in the image of Gateway API's, cert-manager's and cluster-api's,
written for these tests. The steps are tests/cel_scenarios.py's; where the reference's answers were
recorded (tests/fixtures/cel_crd_rules.json, by tools/capture_cel_fixtures.py), ours must equal them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import cel_scenarios
import pytest
from support import ServerProcess, kubectl_path, run_kubectl, wait_for

# Once, on the embedded store: validation is decided before the store.
pytestmark = pytest.mark.store_once

ANSWERS: dict[str, tuple[int, list[str]]] = {}


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    kubectl_path()
    crds = cel_scenarios.apply_crds(shared_server.kubeconfig)
    ANSWERS.update({name: (code, lines) for name, code, lines in crds})
    for plural in ("gateways", "certificates", "machinedeployments"):
        wait_for(f"{plural} served", lambda p=plural: run_kubectl(shared_server, "get", p, check=False).returncode == 0)
    ANSWERS.update({name: (code, lines) for name, code, lines in cel_scenarios.run_steps(shared_server.kubeconfig)})
    yield shared_server


def answer(name: str) -> tuple[int, list[str]]:
    return ANSWERS[name]


def test_ours_equal_the_recorded_reference(server: ServerProcess) -> None:
    assert cel_scenarios.FIXTURE.exists(), "record the reference's answers: tools/capture_cel_fixtures.py"
    recorded = json.loads(cel_scenarios.FIXTURE.read_text())
    for name, code, lines in [*recorded["crds"], *recorded["steps"]]:
        assert answer(name) == (code, lines), name


def test_good_objects_are_accepted(server: ServerProcess) -> None:
    for name in ("gateway-good", "gateway-unchanged-ok", "certificate-good", "machinedeployment-good"):
        assert answer(name) == (0, []), name


def test_rules_at_every_level_report_their_messages(server: ServerProcess) -> None:
    code, lines = answer("gateway-bad-create")
    assert code == 1
    assert 'The Gateway "gw-bad" is invalid:' in lines
    assert "spec.listeners: Invalid value: port and protocol must be unique among listeners" in lines
    assert "spec.listeners[2]: Invalid value: hostname must not be set for the TCP listener c" in lines
    assert "spec.listeners[0].tls: Required value: tls must be set for HTTPS listeners" in lines  # reason, fieldPath
    assert "spec.listeners[0].port: Invalid value: 0: port must be between 1 and 65535" in lines
    assert "spec.listeners[1].port: Invalid value: 0: port must be between 1 and 65535" in lines


def test_transition_rules_run_only_against_a_correlated_old_value(server: ServerProcess) -> None:
    code, lines = answer("gateway-transition")
    assert code == 1
    assert "spec.gatewayClassName: Forbidden: gatewayClassName is immutable" in lines
    assert "spec.listeners[1]: Invalid value: a TCP listener's port cannot change" in lines
    code, lines = answer("certificate-immutable")
    assert "spec.secretName: Invalid value: \"other-tls\": secretName is immutable" in lines
    # optionalOldSelf: revoked is refused on create only.
    assert not any("created revoked" in line for line in lines)
    code, lines = answer("machinedeployment-cluster-immutable")
    assert "spec.clusterName: Invalid value: \"staging\": clusterName is immutable" in lines


def test_status_writes_are_checked_too(server: ServerProcess) -> None:
    code, lines = answer("gateway-status-bad")
    assert code == 1 and "status.addresses[1].value: Invalid value: \"Not A Host!\": must be an IP address or a hostname" \
        in lines
    code, lines = answer("machinedeployment-status-bad")
    assert "status.readyReplicas: Invalid value: -1: readyReplicas must not be negative" in lines


def test_kubernetes_libraries_and_formats(server: ServerProcess) -> None:
    code, lines = answer("certificate-bad-create")
    assert code == 1
    assert "<nil>: Invalid value: certificate names must start with cert-" in lines
    assert "spec.renewBefore: Invalid value: renewBefore must be shorter than duration" in lines
    assert "spec: Invalid value: issuerURL http://ca.example.com must use https" in lines
    assert "spec: Invalid value: a certificate cannot be created revoked" in lines
    assert "spec: Invalid value: keySize must be at least 2Ki" in lines
    assert "spec.dnsNames: Duplicate value" in lines
    code, lines = answer("certificate-bad-quantity")
    assert any("quantities must match the regular expression" in line and "evaluating rule: keySize must be at "
               "least 2Ki" in line for line in lines), lines
    code, lines = answer("machinedeployment-bad-create")
    assert "spec: Invalid value: minReplicas must not exceed maxReplicas" in lines
    assert "spec.replicas: Invalid value: replicas must not exceed maxReplicas in cluster prod" in lines
    assert "spec.version: Invalid value: \"1.36\": version must look like v1.2.3" in lines
    assert "spec.podCIDR: Invalid value: \"10.244.0.0/28\": podCIDR must be a CIDR of /24 or larger" in lines
    assert "spec.labels[tier]: Invalid value: \"\": label values must not be empty" in lines
    assert "spec.cpuRatio: Invalid value: 2: cpuRatio must be between 0 and 1" in lines  # double against int


def test_a_crd_with_rules_that_do_not_compile_is_refused(server: ServerProcess) -> None:
    for name in cel_scenarios.CRDS:
        assert answer(name)[0] == 0, answer(name)
    code, lines = answer("broken.yaml")
    assert code == 1
    text = "\n".join(lines)
    at = "spec.validation.openAPIV3Schema" if "spec.validation" in text else "spec.versions[0].schema.openAPIV3Schema"
    rules = f"{at}.properties[spec].x-kubernetes-validations"
    assert f"{rules}[0].rule: Invalid value:" in text
    assert "compilation failed: ERROR: <input>:1:11: found no matching overload for '_>_' applied to '(string, int)'" \
        in text
    assert "cel expression must evaluate to a bool" in text
    assert "messageExpression must evaluate to a string" in text
    assert f"{rules}[3].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule" in text
    assert "oldSelf cannot be used on the uncorrelatable portion of the schema within" in text
