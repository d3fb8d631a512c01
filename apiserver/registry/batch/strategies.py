"""batch/v1's strategies: pkg/registry/batch/<kind>/strategy.go, one KindStrategy per kind served."""

from __future__ import annotations

from typing import Any

from apiserver.registry.apps import template_fields, warnings
from apiserver.registry.batch import cronjob_validation, defaults, job_status_validation, validation
from apiserver.registry.hooks import Cluster
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]

# Upstream's order: the legacy key, then the batch.kubernetes.io one.
_JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_JOB_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
_JOB_TEMPLATE = ("spec", "template")
_CRON_JOB_TEMPLATE = ("spec", "jobTemplate", "spec", "template")


def _job_written(obj: Obj, old: Obj | None, cluster: Cluster, now: str) -> None:
    """Every read decodes the stored job through its defaulting again, so a job stored without labels
    reads with its template's, the generated ones included: store what every read shows. Done after
    validation, which judged the job's labels as they were (upstream's PrepareForCreate adds the
    generated labels to the template alone)."""
    defaults.job(obj)
    _own_labels(obj)


def _job_status(new: Obj, old: Obj, now: str) -> None:
    """A job whose status write left it without labels reads with its template's, as every decode
    defaults them."""
    defaults.job(new)
    _own_labels(new)


def _own_labels(obj: Obj) -> None:
    """The job's labels apart from its template's, once the strategy is done adding to them."""
    labels = obj["metadata"].get("labels")
    if isinstance(labels, dict):
        obj["metadata"]["labels"] = dict(labels)


def _generate_selector(obj: Obj) -> None:
    """A job's pods are told apart by its uid, unless the user chose the selector (manualSelector).

    Labels the user already put on the template stay as written (validation judges them), and so does
    a selector the user gave: only its controller-uid match is added when missing."""
    spec = obj.setdefault("spec", {})
    if spec.get("manualSelector") is True:
        return
    meta = obj["metadata"]
    template = spec.setdefault("template", {})
    template_meta = template.setdefault("metadata", {})
    if not isinstance(template_meta.get("labels"), dict):
        template_meta["labels"] = {}
    labels = template_meta["labels"]
    for key in _JOB_NAME_LABELS:
        labels.setdefault(key, meta["name"])
    for key in _JOB_UID_LABELS:
        labels.setdefault(key, meta["uid"])
    if not isinstance(spec.get("selector"), dict):
        spec["selector"] = {}
    if not isinstance(spec["selector"].get("matchLabels"), dict):
        spec["selector"]["matchLabels"] = {}
    spec["selector"]["matchLabels"].setdefault("batch.kubernetes.io/controller-uid", meta["uid"])


def _job_create(obj: Obj) -> None:
    _generate_selector(obj)
    template_fields.drop_on_create(obj, _JOB_TEMPLATE)


def _job_update(new: Obj, old: Obj) -> None:
    template_fields.drop_on_update(new, old, _JOB_TEMPLATE)


def _cron_job_create(obj: Obj) -> None:
    template_fields.drop_on_create(obj, _CRON_JOB_TEMPLATE)


def _cron_job_update(new: Obj, old: Obj) -> None:
    template_fields.drop_on_update(new, old, _CRON_JOB_TEMPLATE)


def _delete_warnings(options: Obj) -> list[str]:
    """The job storage's warning: batch/v1 orphans a job's pods unless the delete says otherwise."""
    if options.get("propagationPolicy") is None and options.get("orphanDependents") is None:
        return [("child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to "
                 "remove them or set propagationPolicy=Orphan to suppress this warning")]
    return []


STRATEGIES: dict[str, Strategy] = {
    "Job": KindStrategy(default=defaults.job, prepare_for_create=_job_create, prepare_for_update=_job_update,
                        decorate=_job_written,
                        after_status_update=_job_status, validate=validation.job,
                        validate_update=validation.job_update, warnings_on_create=warnings.job_on_create,
                        warnings_on_update=warnings.job_on_update, warnings_on_delete=_delete_warnings,
                        orphans_by_default=True, validate_subresource_update=job_status_validation.job_status_update),
    "CronJob": KindStrategy(default=defaults.cron_job, prepare_for_create=_cron_job_create,
                            prepare_for_update=_cron_job_update, validate=cronjob_validation.cron_job,
                            validate_update=cronjob_validation.cron_job_update,
                            warnings_on_create=warnings.cron_job_on_create,
                            warnings_on_update=warnings.cron_job_on_update),
}
