"""Ages as kube-apiserver writes them: apimachinery's HumanDuration ("45s", "3m20s", "16h", "2d5h", "3y")."""

from __future__ import annotations

import math


def human_duration(seconds: float | None) -> str:
    """The age of something `seconds` old; `<unknown>` without a timestamp, `<invalid>` well in the future."""
    if seconds is None:
        return "<unknown>"
    # Go truncates durations toward zero; up to two seconds of clock skew still reads as now.
    whole = math.trunc(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if rest == 0 else f"{hours // 24 // 365}y{rest}d"
    return f"{hours // 24 // 365}y"
