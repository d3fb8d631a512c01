"""The OpenAPI `duration` format as kube-apiserver reads it (kube-openapi's strfmt.ParseDuration): Go's
time.ParseDuration ("1h30m", "-1.5s"), else every "<digits> <unit>" it finds, units by name or prefix
("90 days", "2 weeks", "3 hrs"). One parser serves both the format check of a custom resource and
the value its CEL rules see.
"""

from __future__ import annotations

import re

_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_GO_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?(ns|us|µs|μs|ms|s|m|h)")
# strfmt's timeUnits: the last spelling of each matches as a prefix ("days" by "day").
_NAMED_UNITS: list[tuple[tuple[str, ...], float]] = [
    (("ns", "nano"), 1e-9), (("us", "µs", "micro"), 1e-6), (("ms", "milli"), 1e-3), (("s", "sec"), 1.0),
    (("m", "min"), 60.0), (("h", "hr", "hour"), 3600.0), (("d", "day"), 86400.0), (("w", "wk", "week"), 604800.0)]
# Go's \d and \s are ASCII: [0-9] and [\t\n\f\r ].
_NAMED_PART = re.compile(r"([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+)")
_MAX_SECONDS = (1 << 63) / 1e9  # a time.Duration counts nanoseconds in an int64


def _go_duration(text: str) -> float | None:
    """time.ParseDuration, in seconds."""
    rest = text.removeprefix("-").removeprefix("+")
    negative = text.startswith("-")
    if rest == "0":
        return 0.0
    if not rest:
        return None
    total, position = 0.0, 0
    while position < len(rest):
        found = _GO_PART.match(rest, position)
        if found is None or (not found.group(1) and not found.group(2)):
            return None
        whole, fraction, unit = found.group(1), found.group(2), found.group(3)
        total += float(f"{whole or 0}.{fraction or 0}") * _GO_UNITS[unit]
        position = found.end()
    if total > _MAX_SECONDS:
        return None
    return -total if negative else total


def parse_duration(text: str) -> float | None:
    """The duration in seconds, or None where kube-apiserver refuses the text as a duration."""
    go = _go_duration(text)
    if go is not None:
        return go
    total, matched = 0.0, False
    for digits, unit_text in _NAMED_PART.findall(text):
        significant = digits.lstrip("0")
        if len(significant) > 19 or (len(significant) == 19 and int(significant) >= 1 << 63):
            return None  # strconv.Atoi's range error
        unit = unit_text.strip().lower()
        for variants, seconds in _NAMED_UNITS:
            for i, variant in enumerate(variants):
                if (i == len(variants) - 1 and unit.startswith(variant)) or variant.lower() == unit:
                    matched = True
                    total += int(digits) * seconds
    return total if matched else None
