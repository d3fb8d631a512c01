"""The pure rules behind LimitRanger, ResourceQuota and PodSecurity, table-driven: an object (and the
stored state) in, upstream's decision out. The expected values are those of upstream's own unit tests
(resource.Quantity's String, pod-security-admission's policy and check tests, the quota evaluators')."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.admissionplugins import (
    admissionconfig,
    limitranger,
    podsecurity,
    podsecurity_checks,
    quotausage,
)
from apiserver.admissionplugins.podsecurity import LevelVersion, Policy, policy_for
from apiserver.admissionplugins.request import Request
from apiserver.admissionplugins.resourcequota import charge
from apiserver.errors import ApiError, aggregate
from apiserver.kinds import quantity


@pytest.mark.parametrize("written, shown", [
    ("500m", "500m"), ("0.5", "500m"), ("1Gi", "1Gi"), ("2048Mi", "2Gi"), ("1536Mi", "1536Mi"), ("1500", "1500"),
    ("2000", "2k"), ("1e3", "1e3"), ("1.2Ki", "1228800m"), ("512", "512"), ("0", "0"), ("5E", "5E"),
    ("0.0000000001", "1n"), ("100Ki", "100Ki"), ("1.5", "1500m"),
])
def test_quantities_print_as_go_does(written: str, shown: str) -> None:
    assert str(quantity.parse(written)) == shown


def test_a_sum_takes_the_format_of_its_first_nonzero_term() -> None:
    assert str(quantity.parse("0") + quantity.parse("512Mi")) == "512Mi"
    assert str(quantity.parse("1Gi") + quantity.parse("512Mi")) == "1536Mi"
    assert str(quantity.parse("100m") + quantity.parse("900m")) == "1"


def test_an_aggregate_of_one_message_or_of_repeats_has_no_brackets() -> None:
    assert aggregate(["a"]) == "a"
    assert aggregate(["a", "a"]) == "a"
    assert aggregate(["a", "b", "a"]) == "[a, b]"


def _pod_request(pod: dict[str, Any], operation: str = "CREATE", old: dict[str, Any] | None = None,
                 subresource: str = "") -> Request:
    return Request(operation, "", "pods", subresource, "ns", "", pod, old)  # type: ignore[arg-type]


def test_limit_ranger_leaves_pod_updates_and_subresources_alone() -> None:
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    assert limitranger.applies(_pod_request(pod))
    assert not limitranger.applies(_pod_request(pod, "UPDATE", pod))
    assert limitranger.applies(_pod_request(pod, "UPDATE", pod, "resize"))
    assert not limitranger.applies(_pod_request(pod, subresource="status"))


def test_pod_totals_count_sidecars_and_the_largest_init_container() -> None:
    spec = {"containers": [{"resources": {"requests": {"cpu": "100m"}}}],
            "initContainers": [{"restartPolicy": "Always", "resources": {"requests": {"cpu": "200m"}}},
                               {"resources": {"requests": {"cpu": "1"}}}]}
    # the sidecar runs beside the app (300m); the plain init container ran beside the sidecar (1200m)
    assert str(limitranger.pod_totals(spec, "requests")["cpu"]) == "1200m"
    spec["resources"] = {"requests": {"cpu": "2"}}
    assert str(limitranger.pod_totals(spec, "requests")["cpu"]) == "2"


@pytest.mark.parametrize("pod, best_effort", [
    ({"spec": {"containers": [{}]}}, True),
    ({"spec": {"containers": [{"resources": {"requests": {"cpu": "0"}}}]}}, True),
    ({"spec": {"containers": [{"resources": {"limits": {"memory": "1Mi"}}}]}}, False),
    ({"spec": {"containers": [{}], "initContainers": [{"resources": {"requests": {"cpu": "1m"}}}]}}, False),
    ({"spec": {"containers": [{"resources": {"requests": {"example.com/gpu": "1"}}}]}}, True),
])
def test_best_effort_is_the_pods_qos_class(pod: dict[str, Any], best_effort: bool) -> None:
    assert quotausage.is_best_effort(pod) is best_effort


@pytest.mark.parametrize("selector, priority_class, matches", [
    ({"scopeName": "PriorityClass", "operator": "Exists"}, "high", True),
    ({"scopeName": "PriorityClass", "operator": "Exists"}, "", False),
    ({"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}, "high", True),
    ({"scopeName": "PriorityClass", "operator": "NotIn", "values": ["high"]}, "", True),
    ({"scopeName": "PriorityClass", "operator": "DoesNotExist"}, "low", False),
])
def test_priority_class_scopes_match_as_label_selectors(selector: dict[str, Any], priority_class: str,
                                                       matches: bool) -> None:
    pod = {"spec": {"priorityClassName": priority_class}}
    assert quotausage.pod_in_scope(selector, pod) is matches


def test_a_finished_pod_uses_only_its_count() -> None:
    pod = {"spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}, "status": {"phase": "Succeeded"}}
    assert quotausage.render(quotausage.pod_usage(pod)) == {"count/pods": "1"}


def test_a_pod_past_its_deletion_grace_period_uses_only_its_count() -> None:
    pod = {"metadata": {"deletionTimestamp": "2020-01-01T00:00:00Z", "deletionGracePeriodSeconds": 30},
           "spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}}
    assert quotausage.render(quotausage.pod_usage(pod)) == {"count/pods": "1"}
    pod["metadata"]["deletionTimestamp"] = "2999-01-01T00:00:00Z"
    assert quotausage.render(quotausage.pod_usage(pod))["requests.cpu"] == "1"


def test_a_claims_storage_is_rounded_up_to_whole_bytes() -> None:
    usage = quotausage.claim_usage({"spec": {"storageClassName": "fast", "resources": {"requests": {"storage": "1.5"}}}})
    assert quotausage.render(usage)["requests.storage"] == "2"
    assert quotausage.render(usage)["fast.storageclass.storage.k8s.io/persistentvolumeclaims"] == "1"


def _quota(hard: dict[str, str], used: dict[str, str] | None, **spec: Any) -> dict[str, Any]:
    status: dict[str, Any] = {"hard": hard}
    if used is not None:
        status["used"] = used
    return {"metadata": {"name": "q", "namespace": "ns", "resourceVersion": "7"}, "spec": {"hard": hard, **spec},
            "status": status}


def test_a_quota_without_usage_refuses_what_it_limits() -> None:
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    with pytest.raises(ApiError) as refused:
        charge(_pod_request(pod), [_quota({"pods": "1"}, None)])
    assert refused.value.message == 'pods "p" is forbidden: status unknown for quota: q, resources: pods'


def test_a_quota_the_controller_has_not_seen_limits_nothing() -> None:
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    unseen = {"metadata": {"name": "q", "namespace": "ns"}, "spec": {"hard": {"pods": "0"}}}
    assert charge(_pod_request(pod), [unseen]) == []


def test_an_update_is_charged_only_its_growth() -> None:
    old = {"metadata": {"name": "c", "resourceVersion": "3"},
           "spec": {"resources": {"requests": {"storage": "1Gi"}}}}
    new = {"metadata": {"name": "c", "resourceVersion": "3"},
           "spec": {"resources": {"requests": {"storage": "3Gi"}}}}
    request = Request("UPDATE", "", "persistentvolumeclaims", "", "ns", "c", new, old)
    charged = charge(request, [_quota({"requests.storage": "5Gi"}, {"requests.storage": "1Gi"})])
    assert charged[0]["status"]["used"] == {"requests.storage": "3Gi"}


@pytest.mark.parametrize("labels, policy, problems", [
    ({}, Policy(), 0),
    ({"pod-security.kubernetes.io/enforce": "baseline"},
     Policy(LevelVersion("baseline", None), LevelVersion("privileged", None), LevelVersion("baseline", None)), 0),
    # warn follows a stricter enforce level, with its version unless warn names its own
    ({"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "v1.25",
      "pod-security.kubernetes.io/warn-version": "v1.20"},
     Policy(LevelVersion("restricted", (1, 25)), LevelVersion("privileged", None),
            LevelVersion("restricted", (1, 20))), 0),
    # a bad enforce level fails closed, a bad warn level open
    ({"pod-security.kubernetes.io/enforce": "strict", "pod-security.kubernetes.io/warn": "strict"},
     Policy(LevelVersion("restricted", None), LevelVersion("privileged", None), LevelVersion("privileged", None)), 2),
    ({"pod-security.kubernetes.io/audit-version": "v2.0"}, Policy(), 1),
])
def test_namespace_labels_choose_the_policy(labels: dict[str, str], policy: Policy, problems: int) -> None:
    chosen, found = policy_for(labels, Policy())
    assert chosen == policy
    assert len(found) == problems


def test_restricted_checks_replace_the_baseline_checks_they_override() -> None:
    ids = [c.__name__ for c in podsecurity_checks.checks_for("restricted", None)]
    assert "_host_path_volumes" not in ids and "_restricted_volumes" in ids
    assert "_capabilities_baseline" not in ids


def test_checks_apply_from_their_minimum_version() -> None:
    spec = {"containers": [{"name": "c", "livenessProbe": {"httpGet": {"port": 80, "host": "1.2.3.4"}}}]}
    assert podsecurity_checks.evaluate("baseline", (1, 33), {}, spec) == []
    assert podsecurity_checks.evaluate("baseline", (1, 34), {}, spec) == [
        ("probe or lifecycle host", 'container "c" uses probe or lifecycle host "1.2.3.4"')]


def test_sysctls_allowed_grow_with_the_version() -> None:
    spec = {"containers": [{"name": "c"}], "securityContext": {"sysctls": [{"name": "net.ipv4.tcp_rmem"}]}}
    assert podsecurity_checks.evaluate("baseline", (1, 31), {}, spec) == [("forbidden sysctls", "net.ipv4.tcp_rmem")]
    assert podsecurity_checks.evaluate("baseline", None, {}, spec) == []


def test_user_namespaced_pods_may_run_as_root_from_1_35() -> None:
    context = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
               "seccompProfile": {"type": "RuntimeDefault"}, "runAsUser": 0}
    spec = {"hostUsers": False, "containers": [{"name": "c", "securityContext": context}]}
    assert podsecurity_checks.evaluate("restricted", None, {}, spec) == []
    assert [r for r, _ in podsecurity_checks.evaluate("restricted", (1, 34), {}, spec)] == [
        "runAsNonRoot != true", "runAsUser=0"]


class _Namespaces:
    def __init__(self, labels: dict[str, str]) -> None:
        self.labels = labels

    def objects(self, storage_key: str, namespace: str) -> list[dict[str, Any]]:
        return []

    def namespace(self, name: str) -> dict[str, Any] | None:
        return {"metadata": {"name": name, "labels": self.labels}}


_HOST_NETWORK_POD = {"metadata": {"name": "p"}, "spec": {"hostNetwork": True, "containers": [{"name": "c"}]}}


def test_exempt_users_runtime_classes_and_namespaces_skip_the_checks(tmp_path: Any) -> None:
    path = tmp_path / "admission.yaml"
    path.write_text("""\
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: baseline}
    exemptions: {usernames: [ci-bot], runtimeClasses: [kata], namespaces: [tools]}
""")
    config = admissionconfig.load(str(path))
    unlabelled = _Namespaces({})
    with pytest.raises(ApiError) as refused:
        podsecurity.validate(_pod_request(_HOST_NETWORK_POD), unlabelled, config)
    assert 'violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)' in refused.value.message
    as_bot = Request("CREATE", "", "pods", "", "ns", "", _HOST_NETWORK_POD, None, "ci-bot")
    assert podsecurity.validate(as_bot, unlabelled, config).warnings == ()
    in_tools = Request("CREATE", "", "pods", "", "tools", "", _HOST_NETWORK_POD, None)
    assert podsecurity.validate(in_tools, unlabelled, config).annotations == (
        ("pod-security.kubernetes.io/exempt", "namespace"),)
    kata = {**_HOST_NETWORK_POD, "spec": {**_HOST_NETWORK_POD["spec"], "runtimeClassName": "kata"}}
    assert podsecurity.validate(_pod_request(kata), unlabelled, config).annotations == (
        ("pod-security.kubernetes.io/exempt", "runtimeClass"),)


def test_labelling_an_exempt_namespace_warns_that_it_is_ignored() -> None:
    config = podsecurity.Exemptions(namespaces=("tools",))
    old = {"metadata": {"name": "tools", "labels": {}}}
    new = {"metadata": {"name": "tools", "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}}
    request = Request("UPDATE", "", "namespaces", "", "", "tools", new, old)
    assert podsecurity.validate(request, _Namespaces({}), config).warnings == (
        'namespace "tools" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored',)


def test_creating_an_exempt_namespace_with_labels_warns_too() -> None:
    config = podsecurity.Exemptions(namespaces=("tools",))
    new = {"metadata": {"name": "tools", "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}}
    request = Request("CREATE", "", "namespaces", "", "", "tools", new, None)
    assert podsecurity.validate(request, _Namespaces({}), config).warnings == (
        'namespace "tools" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored',)


def test_the_audit_level_is_told_in_audit_annotations_only() -> None:
    labels = {"pod-security.kubernetes.io/audit": "baseline"}
    decision = podsecurity.validate(_pod_request(_HOST_NETWORK_POD), _Namespaces(labels), podsecurity.Exemptions())
    assert decision.warnings == ()
    assert decision.annotations == (
        ("pod-security.kubernetes.io/enforce-policy", "privileged:latest"),
        ("pod-security.kubernetes.io/audit-violations",
         'would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)'))
