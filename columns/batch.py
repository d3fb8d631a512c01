"""Printers for batch/v1: Jobs and CronJobs."""

from __future__ import annotations

import msgspec

from columns.base import Row, Since
from columns.declare import Entry, Meta, age_column, column, name_column, printer, template_columns
from columns.format import (
    NONE,
    Container,
    LabelSelector,
    bool_text,
    container_cells,
    epoch,
    format_label_selector,
    human_duration,
    since,
    since_epoch,
)

_SELECTOR = ("A label query over pods that should match the pod count. Normally, the system sets this field "
             "for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
             "#label-selectors")


class PodSpec(msgspec.Struct):
    containers: list[Container] = []


class PodTemplate(msgspec.Struct):
    spec: PodSpec = msgspec.field(default_factory=PodSpec)


class JobSpec(msgspec.Struct):
    completions: int | None = None
    parallelism: int | None = None
    selector: LabelSelector | None = None
    template: PodTemplate = msgspec.field(default_factory=PodTemplate)


class JobCondition(msgspec.Struct):
    type: str = ""
    status: str = ""


class JobStatus(msgspec.Struct):
    succeeded: int = 0
    startTime: str | None = None
    completionTime: str | None = None
    conditions: list[JobCondition] = []


class Job(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: JobSpec = msgspec.field(default_factory=JobSpec)
    status: JobStatus = msgspec.field(default_factory=JobStatus)


def _has_condition(conditions: list[JobCondition], kind: str) -> bool:
    """Whether the first condition of this type is True."""
    return next((c.status == "True" for c in conditions if c.type == kind), False)


def job_status(job: Job) -> str:
    conditions = job.status.conditions
    if _has_condition(conditions, "Complete"):
        return "Complete"
    if _has_condition(conditions, "Failed"):
        return "Failed"
    if job.metadata.deletionTimestamp is not None:
        return "Terminating"
    if _has_condition(conditions, "Suspended"):
        return "Suspended"
    if _has_condition(conditions, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def job_row(job: Job) -> Row:
    spec, status = job.spec, job.status
    if spec.completions is not None:
        completions = f"{status.succeeded}/{spec.completions}"
    elif (spec.parallelism or 0) > 1:
        completions = f"{status.succeeded}/1 of {spec.parallelism}"
    else:
        completions = f"{status.succeeded}/1"
    # A finished job's duration is fixed; a running one's grows with the request time.
    started, completed = epoch(status.startTime), epoch(status.completionTime)
    duration: str | Since = ""
    if started is not None:
        duration = since_epoch(started) if completed is None else human_duration(completed - started)
    names, images = container_cells(spec.template.spec.containers)
    return Row([job.metadata.name, job_status(job), completions, duration, since(job.metadata.creationTimestamp),
                names, images, format_label_selector(spec.selector)])


JOBS = printer(
    [name_column(), column("Status", "Status of the job."),
     column("Completions", "The number of pods which reached phase Succeeded. The value increases "
                           "monotonically for a given spec. However, it may decrease in reaction to scale down "
                           "of elastic indexed jobs."),
     column("Duration", "Time required to complete the job."),
     age_column(), *template_columns(_SELECTOR)],
    Job,
    job_row,
)


class JobTemplate(msgspec.Struct):
    spec: JobSpec = msgspec.field(default_factory=JobSpec)


class CronJobSpec(msgspec.Struct):
    schedule: str = ""
    timeZone: str | None = None
    suspend: bool | None = None
    jobTemplate: JobTemplate = msgspec.field(default_factory=JobTemplate)


class CronJobStatus(msgspec.Struct):
    active: list[Entry] = []
    lastScheduleTime: str | None = None


class CronJob(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: CronJobSpec = msgspec.field(default_factory=CronJobSpec)
    status: CronJobStatus = msgspec.field(default_factory=CronJobStatus)


def cron_job_row(cj: CronJob) -> Row:
    spec = cj.spec
    last = NONE if cj.status.lastScheduleTime is None else since(cj.status.lastScheduleTime)
    names, images = container_cells(spec.jobTemplate.spec.template.spec.containers)
    return Row([cj.metadata.name, spec.schedule, NONE if spec.timeZone is None else spec.timeZone,
                bool_text(spec.suspend), len(cj.status.active), last, since(cj.metadata.creationTimestamp),
                names, images, format_label_selector(spec.jobTemplate.spec.selector)])


CRON_JOBS = printer(
    [name_column(),
     column("Schedule", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
     column("Timezone", "The time zone name for the given schedule, see "
                        "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this "
                        "will default to the time zone of the kube-controller-manager process. The set of valid "
                        "time zone names and the time zone offset is loaded from the system-wide time zone "
                        "database by the API server during CronJob validation and the controller manager during "
                        "execution. If no system-wide time zone database can be found a bundled version of the "
                        "database is used instead. If the time zone name becomes invalid during the lifetime of "
                        "a CronJob or due to a change in host configuration, the controller will stop creating "
                        "new new Jobs and will create a system event with the reason UnknownTimeZone. More "
                        "information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/"
                        "cron-jobs/#time-zones"),
     column("Suspend", "This flag tells the controller to suspend subsequent executions, it does not apply to "
                       "already started executions.  Defaults to false.", type="boolean"),
     column("Active", "A list of pointers to currently running jobs.", type="integer"),
     column("Last Schedule", "Information when was the last time the job was successfully scheduled."),
     age_column(), *template_columns(_SELECTOR)],
    CronJob,
    cron_job_row,
)
