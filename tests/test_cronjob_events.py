"""The CronJob controller's warnings about schedules it cannot run, as `kubectl events` shows them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for


@pytest.fixture(scope="module")
def cronjobs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("cron")), extra_args=["--controllers=cronjob-controller"]) as proc:
        yield proc


def test_a_schedule_no_date_matches_is_an_invalid_schedule_event(cronjobs: ServerProcess) -> None:
    # February 31st: parseable, but robfig/cron finds no time, which upstream reports as InvalidSchedule
    run_kubectl(cronjobs, "create", "cronjob", "pi", "--schedule=59 23 31 2 *", "--image=registry.example/perl:5",
                "--", "perl", "-e", "1")
    events = wait_for("the InvalidSchedule event", lambda: (out := run_kubectl(
        cronjobs, "events", "--for=CronJob/pi").stdout) and "InvalidSchedule" in out and out, 30)
    assert ("invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second"
            in events)
    assert "CronJob/pi" in run_kubectl(cronjobs, "events", "-A").stdout
    assert run_kubectl(cronjobs, "get", "jobs", "-o", "name").stdout == ""


def test_a_suspended_cronjob_says_nothing(cronjobs: ServerProcess) -> None:
    quiet = run_kubectl(cronjobs, "create", "cronjob", "quiet", "--schedule=59 23 31 2 *",
                        "--image=registry.example/a:1", "--dry-run=client", "-o", "json").stdout
    run_kubectl(cronjobs, "create", "-f", "-", stdin=quiet.replace('"spec": {', '"spec": {"suspend": true,', 1))
    run_kubectl(cronjobs, "create", "cronjob", "marker", "--schedule=0 0 30 2 *", "--image=registry.example/a:1")
    wait_for("the marker's event", lambda: "CronJob/marker" in run_kubectl(cronjobs, "events").stdout, 30)
    assert "CronJob/quiet" not in run_kubectl(cronjobs, "events").stdout
