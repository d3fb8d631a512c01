"""ValidatingAdmissionPolicy and its bindings against the real server, with kubectl and the Python client.

The policies (tests/cel_manifests/policies.yaml) are in the image of a platform team's, written for
these tests: a replica limit read from a ConfigMap param with a variable, a messageExpression, a
reason and a matchCondition; a label rule that only warns and audits; an image rule with the default
message. Messages and codes are upstream's (admission/plugin/policy/validating/dispatcher.go).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apply_configuration_steps
import cel_scenarios
import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException
from support import ServerProcess, run_kubectl, wait_for

# Once, on the embedded store: admission is decided before the store.
pytestmark = pytest.mark.store_once

POLICIES = Path(__file__).parent / "cel_manifests" / "policies.yaml"
STEPS: list[Any] = []
MUTATED: list[Any] = []


def _deployment(name: str, replicas: int) -> dict[str, Any]:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    run_kubectl(shared_server, "apply", "-f", str(POLICIES))
    # The policies are followed from the store: wait until the first one is enforced.
    wait_for("the policies enforced", lambda: run_kubectl(
        shared_server, "-n", "vap-prod", "create", "-f", "-", "--dry-run=server", check=False,
        stdin=json.dumps(_deployment("probe", 9))).returncode == 1)
    STEPS.extend(cel_scenarios.run_policy_steps(shared_server.kubeconfig))
    run_kubectl(shared_server, "apply", "-f", str(cel_scenarios.MUTATING))
    MUTATED.extend(cel_scenarios.run_mutating_steps(shared_server.kubeconfig))
    yield shared_server


def test_ours_equal_the_recorded_reference(server: ServerProcess) -> None:
    """The steps of tests/cel_scenarios.py, answered as kube-apiserver 1.36.2 answered them."""
    recorded = json.loads(cel_scenarios.POLICY_FIXTURE.read_text())
    assert [tuple(step) for step in recorded["steps"]] == [tuple(step) for step in STEPS]
    # MutatingAdmissionPolicy: JSON patches built in CEL, a variable, a matchCondition that opts out.
    assert [tuple(step) for step in recorded["mutating"]] == [tuple(step) for step in MUTATED]


def test_apply_configuration_mutations_equal_the_recorded_reference(server: ServerProcess) -> None:
    """MutatingAdmissionPolicy `patchType: ApplyConfiguration` (tests/cel_manifests/applyconfiguration.yaml):
    each Deployment merged, defaulted or refused as kube-apiserver 1.36.2 did it."""
    apply_configuration_steps.apply_manifest(server.kubeconfig)
    recorded = json.loads(apply_configuration_steps.FIXTURE.read_text())
    assert apply_configuration_steps.run_steps(server.kubeconfig) == recorded


@pytest.fixture(scope="module")
def apps(server: ServerProcess) -> client.AppsV1Api:
    return client.AppsV1Api(config.new_client_from_config(config_file=server.kubeconfig))


def test_a_deployment_over_the_param_limit_is_refused_with_upstreams_message(apps: client.AppsV1Api) -> None:
    with pytest.raises(ApiException) as refused:
        apps.create_namespaced_deployment("vap-prod", _deployment("too-many-client", 7))
    status = json.loads(refused.value.body)
    message = ("ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-production' denied request: "
               "replicas must be no greater than 5, got 7")
    assert refused.value.status == 403 and status["reason"] == "Forbidden"  # the rule's reason decides the code
    assert status["message"] == f'deployments.apps "too-many-client" is forbidden: {message}'
    assert status["details"] == {"name": "too-many-client", "group": "apps", "kind": "deployments",
                                 "causes": [{"message": message}]}


def test_within_the_limit_or_outside_the_selected_namespaces_is_admitted(server: ServerProcess,
                                                                         apps: client.AppsV1Api) -> None:
    created = apps.create_namespaced_deployment("vap-prod", _deployment("just-enough-client", 5))
    assert created.spec.replicas == 5
    # The binding selects production namespaces only: default is not one.
    assert apps.create_namespaced_deployment("default", _deployment("unbound-client", 9)).spec.replicas == 9
    # An update is matched too (operations: CREATE, UPDATE)...
    result = run_kubectl(server, "-n", "vap-prod", "patch", "deployment", "just-enough-client", "-p",
                         '{"spec":{"replicas":8}}', check=False)
    assert result.returncode == 1
    assert "replicas must be no greater than 5, got 8" in result.stderr
    # ...but not the scale subresource, which `resources: [deployments]` does not name.
    run_kubectl(server, "-n", "vap-prod", "scale", "deployment", "just-enough-client", "--replicas=8")


def test_the_param_is_read_when_the_request_comes(server: ServerProcess, apps: client.AppsV1Api) -> None:
    run_kubectl(server, "-n", "vap-prod", "patch", "configmap", "replica-limits", "-p", '{"data":{"maxReplicas":"10"}}')
    try:
        assert apps.create_namespaced_deployment("vap-prod", _deployment("raised", 8)).spec.replicas == 8
    finally:
        run_kubectl(server, "-n", "vap-prod", "patch", "configmap", "replica-limits", "-p",
                    '{"data":{"maxReplicas":"5"}}')


def test_warn_and_audit_actions_admit_with_a_warning(server: ServerProcess) -> None:
    result = run_kubectl(server, "-n", "vap-prod", "create", "configmap", "unlabelled-client", "--from-literal=a=b")
    assert ("Warning: Validation failed for ValidatingAdmissionPolicy 'team-label' with binding 'team-label-warn': "
            "every ConfigMap needs a team label") in result.stderr
    quiet = run_kubectl(server, "-n", "default", "create", "configmap", "elsewhere-client", "--from-literal=a=b")
    assert "Warning" not in quiet.stderr


def test_the_default_message_names_the_failed_expression(server: ServerProcess) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "floating-client"},
           "spec": {"containers": [{"name": "c", "image": "busybox:latest"}]}}
    result = run_kubectl(server, "-n", "default", "create", "-f", "-", check=False, stdin=json.dumps(pod))
    assert result.returncode == 1
    # kubectl words an Invalid status with causes so; the status's message is 'pods "floating" is forbidden: ...'.
    assert ('The pods "floating-client" is invalid: : '
            "ValidatingAdmissionPolicy 'no-latest-tag' with binding 'no-latest-tag' denied request: failed "
            "expression: object.spec.containers.all(c, !c.image.endsWith(':latest'))") in result.stderr


def test_a_policy_whose_expression_does_not_compile_is_refused(server: ServerProcess) -> None:
    policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
              "metadata": {"name": "broken-client"},
              "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                               "operations": ["CREATE"], "resources": ["pods"]}]},
                       "validations": [{"expression": "object.spec.replicas <"},
                                       {"expression": "'a string'"}]}}
    result = run_kubectl(server, "create", "-f", "-", check=False, stdin=json.dumps(policy))
    assert result.returncode == 1
    assert 'spec.validations[0].expression: Invalid value: "object.spec.replicas <": compilation failed: ERROR: ' \
           "<input>:1:23: Syntax error:" in result.stderr
    assert "spec.validations[1].expression: Invalid value: \"'a string'\": must evaluate to bool but got string" \
        in result.stderr


def test_policies_stored_before_a_restart_are_enforced_from_the_first_write(tmp_path: Path) -> None:
    restarted = ServerProcess(str(tmp_path))
    restarted.start()
    try:
        run_kubectl(restarted, "apply", "-f", str(POLICIES))
        restarted.stop()
        restarted.start()
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "after-restart"},
               "spec": {"containers": [{"name": "c", "image": "busybox:latest"}]}}
        result = run_kubectl(restarted, "-n", "default", "create", "-f", "-", check=False, stdin=json.dumps(pod))
        assert result.returncode == 1
        assert "ValidatingAdmissionPolicy 'no-latest-tag' with binding 'no-latest-tag' denied request" in result.stderr
    finally:
        restarted.stop()


def test_type_checking_warnings_are_written_to_the_status_as_kube_controller_manager_writes_them(
        tmp_path: Path) -> None:
    checking = ServerProcess(str(tmp_path), extra_args=["--controllers=validatingadmissionpolicy-status-controller"])
    checking.start()
    try:
        run_kubectl(checking, "apply", "-f", str(cel_scenarios.TYPECHECK))

        def status() -> Any:
            got = json.loads(run_kubectl(checking, "get", "validatingadmissionpolicy", "typo-check", "-o",
                                         "json").stdout).get("status") or {}
            return got if got.get("observedGeneration") else None
        recorded = json.loads(cel_scenarios.TYPECHECK_FIXTURE.read_text())["status"]
        assert wait_for("status.typeChecking", status) == recorded
        # variables typed by the kind, kinds in upstream's order, wildcards and subresources skipped
        run_kubectl(checking, "apply", "-f", str(cel_scenarios.TYPECHECK_SWEEP))
        statuses = wait_for("every status.typeChecking", lambda: cel_scenarios.typechecking_statuses(
            checking.kubeconfig))
        assert statuses == json.loads(cel_scenarios.TYPECHECK_SWEEP_FIXTURE.read_text())
    finally:
        checking.stop()
