"""The request bound kept by one sweep: in time, past it, and a cancellation that is not ours."""

from __future__ import annotations

import asyncio

import pytest

from apiserver.http.deadlines import Deadlines


async def _sleep_then(seconds: float, value: str) -> str:
    await asyncio.sleep(seconds)
    return value


def test_work_within_the_bound_gives_its_result_and_leaves_nothing_running() -> None:
    async def main() -> None:
        deadlines = Deadlines(5.0)
        assert await deadlines.within(_sleep_then(0.01, "done")) == "done"
        assert not deadlines._running and not deadlines._expired

    asyncio.run(main())


def test_work_past_the_bound_is_cut_with_timeout_error_and_the_task_goes_on() -> None:
    async def main() -> None:
        deadlines = Deadlines(0.2)
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(TimeoutError):
            await deadlines.within(_sleep_then(30, "never"))
        assert loop.time() - started >= 0.2  # never before the deadline
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0
        # The cut is taken back: the request's task may still write its 504.
        assert await _sleep_then(0.01, "after") == "after"
        assert not deadlines._running and not deadlines._expired

    asyncio.run(main())


def test_requests_are_cut_each_at_its_own_deadline() -> None:
    async def main() -> list[str]:
        deadlines = Deadlines(0.3)

        async def request(seconds: float) -> str:
            try:
                return await deadlines.within(_sleep_then(seconds, "answered"))
            except TimeoutError:
                return "cut"

        return list(await asyncio.gather(request(0.05), request(30), request(0.1)))

    assert asyncio.run(main()) == ["answered", "cut", "answered"]


def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    async def main() -> None:
        deadlines = Deadlines(30.0)
        task = asyncio.create_task(deadlines.within(_sleep_then(30, "never")))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not deadlines._running and not deadlines._expired

    asyncio.run(main())


def test_work_that_swallows_the_cut_still_ends_uncancelled() -> None:
    async def stubborn() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "kept going"
        return "never"

    async def main() -> None:
        deadlines = Deadlines(0.1)
        assert await deadlines.within(stubborn()) == "kept going"
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0

    asyncio.run(main())
