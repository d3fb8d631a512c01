"""Cron schedules as kube-controller-manager reads them (robfig/cron's standard parser): five fields
(minute, hour, day of month, month, day of week) with `*`, `?`, ranges, steps, lists and names, the
`@hourly`-style macros, and an optional `CRON_TZ=`/`TZ=` prefix. Day of month and day of week match
either one when both are restricted, as cron does."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

_MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
           "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
_MONTHS = {name: i + 1 for i, name in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
                                                 "oct", "nov", "dec"))}
_DAYS = {name: i for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_NO_NAMES: dict[str, int] = {}
_FIELDS = ((0, 59, _NO_NAMES), (0, 23, _NO_NAMES), (1, 31, _NO_NAMES), (1, 12, _MONTHS), (0, 7, _DAYS))  # 7: Sunday
_SEARCH_YEARS = 5


class CronError(ValueError):
    pass


@dataclass(frozen=True)
class Schedule:
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    any_day: bool  # day of month was `*`
    any_weekday: bool

    def matches_day(self, when: datetime.datetime) -> bool:
        weekday = (when.weekday() + 1) % 7
        if self.any_day or self.any_weekday:
            return when.day in self.days and weekday in self.weekdays
        return when.day in self.days or weekday in self.weekdays

    def next_after(self, after: datetime.datetime) -> datetime.datetime | None:
        """The first matching minute strictly after `after` (in its time zone), or None within five years."""
        when = after.replace(second=0, microsecond=0) + datetime.timedelta(minutes=1)
        limit = when + datetime.timedelta(days=366 * _SEARCH_YEARS)
        while when < limit:
            if when.month not in self.months:
                when = (when.replace(day=1, hour=0, minute=0) + datetime.timedelta(days=32)).replace(day=1)
                continue
            if not self.matches_day(when):
                when = when.replace(hour=0, minute=0) + datetime.timedelta(days=1)
                continue
            if when.hour not in self.hours:
                when = when.replace(minute=0) + datetime.timedelta(hours=1)
                continue
            if when.minute not in self.minutes:
                when += datetime.timedelta(minutes=1)
                continue
            return when
        return None


def _field(text: str, low: int, high: int, names: dict[str, int]) -> tuple[frozenset[int], bool]:
    values: set[int] = set()
    star = False
    for part in text.split(","):
        base, _, step_text = part.partition("/")
        step = _number(step_text, {}) if step_text else 1
        if step <= 0:
            raise CronError(f"step of range should be a positive number: {part}")
        if base in ("*", "?"):
            start, end = low, high
            star = star or not step_text
        elif "-" in base:
            first, _, last = base.partition("-")
            start, end = _number(first, names), _number(last, names)
        else:
            start = _number(base, names)
            end = high if step_text else start
        if start < low or end > high or start > end:
            raise CronError(f"value out of range ({low} - {high}): {part}")
        values.update(range(start, end + 1, step))
    return frozenset(values), star


def _number(text: str, names: dict[str, int]) -> int:
    lowered = text.lower()
    if lowered in names:
        return names[lowered]
    if not text.isdigit():
        raise CronError(f"failed to parse int from {text}")
    return int(text)


def parse(text: str) -> tuple[Schedule, str | None]:
    """The schedule and the time zone its prefix names (or None)."""
    spec = text.strip()
    zone = None
    if spec.startswith(("CRON_TZ=", "TZ=")):
        prefix, _, spec = spec.partition(" ")
        zone = prefix.split("=", 1)[1]
        spec = spec.strip()
    spec = _MACROS.get(spec, spec)
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: {text}")
    parsed = [_field(f, low, high, names) for f, (low, high, names) in zip(fields, _FIELDS)]
    weekdays = set(parsed[4][0])
    if 7 in weekdays:
        weekdays.discard(7)
        weekdays.add(0)
    return Schedule(parsed[0][0], parsed[1][0], parsed[2][0], parsed[3][0], frozenset(weekdays),
                    parsed[2][1], parsed[4][1]), zone
