"""Cron schedules as kube-controller-manager reads them: the next time a schedule names."""

from __future__ import annotations

import datetime

import pytest

from apiserver.controllers.cron import CronError, parse

SATURDAY_NOON = datetime.datetime(2026, 11, 28, 12, 0, tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize("schedule, expected", [
    ("*/15 9-17 * * mon-fri", datetime.datetime(2026, 11, 30, 9, 0)),
    ("@hourly", datetime.datetime(2026, 11, 28, 13, 0)),
    ("0 0 29 2 *", datetime.datetime(2028, 2, 29, 0, 0)),
    ("5 4 1,15 * 7", datetime.datetime(2026, 11, 29, 4, 5)),  # day of month or Sunday
    ("30 12 * * *", datetime.datetime(2026, 11, 28, 12, 30)),
    ("0 12 * * 6", datetime.datetime(2026, 12, 5, 12, 0)),  # strictly after: not this very minute
    ("CRON_TZ=UTC 0 0 1 jan ?", datetime.datetime(2027, 1, 1, 0, 0)),
])
def test_next_time(schedule: str, expected: datetime.datetime) -> None:
    parsed, _ = parse(schedule)
    assert parsed.next_after(SATURDAY_NOON) == expected.replace(tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize("schedule", ["* * * *", "61 * * * *", "* * * * funday", "*/0 * * * *"])
def test_bad_schedules(schedule: str) -> None:
    with pytest.raises(CronError):
        parse(schedule)
