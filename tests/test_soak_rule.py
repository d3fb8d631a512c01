"""The soak's verdict on memory (benches/soak.py): which growth fails a run of which length."""

from __future__ import annotations

from typing import Any

import pytest

from benches.soak import failures

# The bench tooling, whichever store: once is enough.
pytestmark = pytest.mark.store_once


def _report(seconds: float, second_half: float, from_ten_minutes_percent: float | None) -> dict[str, Any]:
    """A clean run's report (no 5xx, every watcher consistent) with these memory figures."""
    return {"seconds": seconds, "server_errors": 0, "watchers": 100, "watchers_consistent": 100,
            "server_log_tracebacks": 0, "rss_growth_second_half": second_half,
            "rss_mib_at_10_minutes": None if from_ten_minutes_percent is None else 180.0,
            "rss_growth_from_10_minutes_percent": from_ten_minutes_percent}


@pytest.mark.parametrize(("seconds", "second_half", "from_ten", "failed"), [
    (60, 0.099, None, False),  # a short run: up to 10% across its second half
    (60, 0.117, None, True),
    (600, 0.042, None, False),  # exactly 10 minutes is still a short run: no later sample to compare
    (600, 0.11, None, True),
    (3600, 0.05, 4.9, False),  # a long run: within 5% of its 10-minute memory
    (3600, 0.05, 7.66, True),  # the asyncio soak of benches/README.md
    (3600, 0.12, 3.0, False),  # a long run is judged from 10 minutes on, not across its second half
    (1200, 0.01, 5.1, True),
])
def test_memory_rule_by_length(seconds: float, second_half: float, from_ten: float | None, failed: bool) -> None:
    problems = failures(_report(seconds, second_half, from_ten))
    assert bool(problems) is failed, problems
    assert all("memory" in p for p in problems)
