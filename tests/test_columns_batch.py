"""The batch printers against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

from columns_golden import cells

from columns import batch


def test_job_completions_status_and_duration() -> None:
    job = {"spec": {"parallelism": 3}, "status": {"succeeded": 1, "startTime": "2033-05-18T03:00:00Z",
                                                   "conditions": [{"type": "Suspended", "status": "True"}]}}
    assert cells(batch.JOBS, job)[1:4] == ["Suspended", "1/1 of 3", "33m"]
    done = {"metadata": {"deletionTimestamp": "2033-05-18T03:00:00Z"},
            "status": {"startTime": "2033-05-18T01:00:00Z", "completionTime": "2033-05-18T03:20:00Z",
                       "conditions": [{"type": "Complete", "status": "False"}]}}
    assert cells(batch.JOBS, done)[1:4] == ["Terminating", "0/1", "140m"]
    assert cells(batch.JOBS, {})[1:4] == ["Running", "0/1", ""]


def test_cron_job_without_suspend_or_schedule_time() -> None:
    assert cells(batch.CRON_JOBS, {})[1:6] == ["", "<none>", "<unset>", 0, "<none>"]
