"""A Job's metadata and defaulted spec as kube-apiserver 1.36 stores and reads it, through kubectl.

Upstream's SetDefaults_Job gives a job without labels its template's labels (the very map, so the labels
the create strategy then adds to the template show on the job too), and runs again on every read from
etcd: a job stored with no labels at all reads with the generated ones. The create strategy adds the
four generated labels to the template unless they are there, and the controller-uid match to the
selector, unless manualSelector is set.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import ServerProcess, run_kubectl


def _job(name: str, labels: dict[str, str] | None = None, template_labels: dict[str, str] | None = None,
         **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if labels is not None:
        meta["labels"] = labels
    template: dict[str, Any] = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1"}]}}
    if template_labels is not None:
        template["metadata"] = {"labels": template_labels}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": {**spec, "template": template}}


def _generated(job: dict[str, Any]) -> dict[str, str]:
    uid, name = job["metadata"]["uid"], job["metadata"]["name"]
    return {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name,
            "controller-uid": uid, "job-name": name}


def _create_and_get(server: ServerProcess, manifest: dict[str, Any]) -> dict[str, Any]:
    run_kubectl(server, "create", "-f", "-", stdin=json.dumps(manifest))
    name = manifest["metadata"]["name"]
    return json.loads(run_kubectl(server, "get", "job", name, "-o", "json").stdout)  # type: ignore[no-any-return]


def test_a_job_without_labels_reads_with_the_generated_ones(shared_server: ServerProcess) -> None:
    job = _create_and_get(shared_server, _job("bare"))
    assert job["metadata"]["labels"] == _generated(job)
    assert job["spec"]["template"]["metadata"]["labels"] == _generated(job)
    assert job["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": job["metadata"]["uid"]}}
    assert job["metadata"]["generation"] == 1
    assert "annotations" not in job["metadata"]


def test_a_job_labelled_only_through_its_template_shares_the_generated_labels(shared_server: ServerProcess) -> None:
    job = _create_and_get(shared_server, _job("templated", template_labels={"app": "batch"}))
    assert job["metadata"]["labels"] == {"app": "batch", **_generated(job)}
    assert job["spec"]["template"]["metadata"]["labels"] == {"app": "batch", **_generated(job)}


def test_a_job_with_its_own_labels_keeps_them(shared_server: ServerProcess) -> None:
    job = _create_and_get(shared_server, _job("own", labels={"team": "a"}, template_labels={"app": "batch"}))
    assert job["metadata"]["labels"] == {"team": "a"}
    assert job["spec"]["template"]["metadata"]["labels"] == {"app": "batch", **_generated(job)}


def test_an_empty_labels_map_counts_as_none(shared_server: ServerProcess) -> None:
    job = _create_and_get(shared_server, _job("empty", labels={}, template_labels={"app": "e"}))
    assert job["metadata"]["labels"] == {"app": "e", **_generated(job)}


def test_a_manual_selector_is_left_as_written(shared_server: ServerProcess) -> None:
    manifest = _job("manual", template_labels={"pick": "me"}, manualSelector=True,
                    selector={"matchLabels": {"pick": "me"}})
    job = _create_and_get(shared_server, manifest)
    assert job["metadata"]["labels"] == {"pick": "me"}
    assert job["spec"]["template"]["metadata"]["labels"] == {"pick": "me"}
    assert job["spec"]["selector"] == {"matchLabels": {"pick": "me"}}
    assert job["spec"]["manualSelector"] is True


def test_a_selector_given_without_manual_selector_gains_the_uid_match(shared_server: ServerProcess) -> None:
    job = _create_and_get(shared_server, _job("given", template_labels={"app": "g"},
                                              selector={"matchLabels": {"job-name": "given"}}))
    assert job["spec"]["selector"] == {"matchLabels": {"job-name": "given",
                                                       "batch.kubernetes.io/controller-uid": job["metadata"]["uid"]}}
    assert job["spec"]["template"]["metadata"]["labels"] == {"app": "g", **_generated(job)}


def test_a_pod_failure_policy_replaces_failed_pods_only_and_matches_true_conditions(
        shared_server: ServerProcess) -> None:
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    job = _create_and_get(shared_server, _job("policy", podFailurePolicy=policy))
    assert job["spec"]["podReplacementPolicy"] == "Failed"
    assert job["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"] == [
        {"type": "DisruptionTarget", "status": "True"}]


def test_a_backoff_limit_per_index_lifts_the_global_limit(shared_server: ServerProcess) -> None:
    job = _create_and_get(shared_server, _job("per-index", completionMode="Indexed", completions=2,
                                              backoffLimitPerIndex=1))
    spec = job["spec"]
    assert (spec["backoffLimit"], spec["parallelism"], spec["completionMode"], spec["suspend"],
            spec["podReplacementPolicy"]) == (2147483647, 1, "Indexed", False, "TerminatingOrFailed")


@pytest.mark.parametrize("sent, expected", [
    ({"completions": None, "parallelism": None}, (1, 1)),
    ({"completions": None, "parallelism": 4}, (None, 4)),
])
def test_null_counts_are_defaulted_as_missing_ones(shared_server: ServerProcess, sent: dict[str, Any],
                                                   expected: tuple[Any, Any]) -> None:
    body = _job(f"null-{expected[1]}", **sent)
    status, created = shared_server.json("POST", "/apis/batch/v1/namespaces/default/jobs", body)
    assert status == 201, created
    assert (created["spec"].get("completions"), created["spec"]["parallelism"]) == expected


def test_labelling_keeps_the_generation_and_a_spec_change_bumps_it(shared_server: ServerProcess) -> None:
    _create_and_get(shared_server, _job("gen", suspend=True))
    run_kubectl(shared_server, "label", "job", "gen", "extra=1")
    job = json.loads(run_kubectl(shared_server, "get", "job", "gen", "-o", "json").stdout)
    assert job["metadata"]["generation"] == 1
    assert job["metadata"]["labels"] == {"extra": "1", **_generated(job)}
    run_kubectl(shared_server, "patch", "job", "gen", "-p", '{"spec":{"suspend":false}}')
    job = json.loads(run_kubectl(shared_server, "get", "job", "gen", "-o", "json").stdout)
    assert job["metadata"]["generation"] == 2


def test_a_status_write_without_labels_leaves_the_template_labels_showing(shared_server: ServerProcess) -> None:
    job = _create_and_get(shared_server, _job("status-write", labels={"team": "s"}, template_labels={"app": "s"}))
    del job["metadata"]["labels"]
    job["status"] = {"active": 1}
    path = "/apis/batch/v1/namespaces/default/jobs/status-write/status"
    status, written = shared_server.json("PUT", path, job)
    assert status == 200, written
    job = json.loads(run_kubectl(shared_server, "get", "job", "status-write", "-o", "json").stdout)
    assert job["metadata"]["labels"] == {"app": "s", **_generated(job)}
    assert job["status"]["active"] == 1


def test_a_cron_jobs_pod_failure_policy_patterns_match_true_conditions(shared_server: ServerProcess) -> None:
    job_spec = _job("unused", podFailurePolicy={"rules": [{"action": "Ignore",
                                                            "onPodConditions": [{"type": "DisruptionTarget"}]}]})["spec"]
    body = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
            "spec": {"schedule": "0 1 * * *", "jobTemplate": {"spec": job_spec}}}
    status, created = shared_server.json("POST", "/apis/batch/v1/namespaces/default/cronjobs?dryRun=All", body)
    assert status == 201, created
    template = created["spec"]["jobTemplate"]["spec"]
    assert template["podFailurePolicy"]["rules"][0]["onPodConditions"] == [{"type": "DisruptionTarget", "status": "True"}]
    # SetDefaults_Job is the Job's alone: a CronJob's job template keeps what it was given.
    assert "podReplacementPolicy" not in template and "completionMode" not in template


@pytest.mark.parametrize("spec, field, message", [
    ({"backoffLimitPerIndex": 1}, "spec.backoffLimitPerIndex",
     "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"),
    ({"completionMode": "Indexed", "completions": 2, "maxFailedIndexes": 1}, "spec.backoffLimitPerIndex",
     "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"),
    ({"completionMode": "Indexed", "completions": 2, "backoffLimitPerIndex": 1, "maxFailedIndexes": 3},
     "spec.maxFailedIndexes", "spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions"),
    ({"completionMode": "Indexed", "parallelism": 2}, "spec.completions",
     "spec.completions: Required value: when completion mode is Indexed"),
])
def test_per_index_backoff_rules(shared_server: ServerProcess, spec: dict[str, Any], field: str, message: str) -> None:
    status, answer = shared_server.json("POST", "/apis/batch/v1/namespaces/default/jobs", _job("bad", **spec))
    assert status == 422, answer
    assert field in [cause["field"] for cause in answer["details"]["causes"]]
    assert message in answer["message"]
    assert shared_server.json("GET", "/apis/batch/v1/namespaces/default/jobs/bad")[0] == 404


@pytest.mark.parametrize("restart, extra, message", [
    (None, {}, 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'),
    ("Always", {}, 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'),
    ("OnFailure", {"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "X"}]}]}},
     'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy '
     'is specified'),
])
def test_restart_policy_rules(shared_server: ServerProcess, restart: str | None, extra: dict[str, Any],
                              message: str) -> None:
    body = _job("restart", **extra)
    pod = body["spec"]["template"]["spec"]
    pod.pop("restartPolicy")
    if restart is not None:
        pod["restartPolicy"] = restart
    status, answer = shared_server.json("POST", "/apis/batch/v1/namespaces/default/jobs", body)
    assert status == 422, answer
    assert message in answer["message"]


@pytest.mark.parametrize("spec, messages", [
    ({"manualSelector": True}, ["spec.selector: Required value",
                                "spec.template.metadata.labels: Invalid value: {\"app\":\"m\"}: "
                                "`selector` does not match template `labels`"]),
    ({"manualSelector": True, "selector": {"matchLabels": {"app": "other"}}},
     ["spec.template.metadata.labels: Invalid value: {\"app\":\"m\"}: "
      "`selector` does not match template `labels`"]),
])
def test_a_manual_selector_must_pick_the_template(shared_server: ServerProcess, spec: dict[str, Any],
                                                  messages: list[str]) -> None:
    status, answer = shared_server.json("POST", "/apis/batch/v1/namespaces/default/jobs",
                                        _job("manual-bad", template_labels={"app": "m"}, **spec))
    assert status == 422, answer
    assert all(m in answer["message"] for m in messages), answer["message"]


def test_a_generated_selector_may_only_pick_by_the_generated_labels(shared_server: ServerProcess) -> None:
    body = _job("picky", template_labels={"app": "p"}, selector={"matchLabels": {"app": "p", "controller-uid": "x"}})
    status, answer = shared_server.json("POST", "/apis/batch/v1/namespaces/default/jobs", body)
    assert status == 422, answer
    # kube-apiserver 1.36 shows the selector as its JSON.
    assert 'spec.selector: Invalid value: {"matchLabels":{"app":"p",' in answer["message"]
    assert "`selector` not auto-generated" in answer["message"]


def test_an_update_dropping_the_generated_template_labels_names_what_they_must_be(shared_server: ServerProcess) -> None:
    """ValidateHasLabel's detail for a missing label is the value it must have, as the reference words it."""
    job = _create_and_get(shared_server, _job("unlabelled"))
    uid = job["metadata"]["uid"]
    job["spec"]["template"]["metadata"]["labels"] = {}
    status, answer = shared_server.json("PUT", "/apis/batch/v1/namespaces/default/jobs/unlabelled", job)
    assert status == 422, answer
    for key, value in (("controller-uid", uid), ("job-name", "unlabelled"),
                       ("batch.kubernetes.io/controller-uid", uid), ("batch.kubernetes.io/job-name", "unlabelled")):
        assert f"spec.template.metadata.labels[{key}]: Required value: must be '{value}'" in answer["message"]
