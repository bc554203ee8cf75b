"""A moment (``tui.motion.Moment``): one timer a widget shows something by, where a new start ends the old.

No latency is asserted: each check waits (boundedly) for a later timer, by which an earlier one would have come."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.app import App

from elferraus.tui.motion import Moment


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_moment_started_again_ends_the_one_under_way_and_a_stopped_one_never_comes() -> None:
    calls: list[str] = []

    async def main() -> None:
        app: App[None] = App()
        async with app.run_test():
            moment, probe = Moment(app), Moment(app)
            moment.after(0.02, lambda: calls.append("first"))
            moment.after(0.02, lambda: calls.append("second"))
            probe.after(0.1, lambda: calls.append("probe"))
            await until(lambda: "probe" in calls, "the probe")
            assert calls == ["second", "probe"]  # the first, due before both, never came

            calls.clear()
            moment.after(0.02, lambda: calls.append("stopped"))
            moment.stop()
            moment.stop()  # stopping twice is nothing
            probe.after(0.1, lambda: calls.append("probe"))
            await until(lambda: "probe" in calls, "the probe")
            assert calls == ["probe"]

            ticks: list[int] = []
            moment.every(0.02, lambda: ticks.append(len(ticks)))
            await until(lambda: len(ticks) >= 3, "three ticks")
            moment.after(0.02, lambda: calls.append("after the ticks"))  # ends the ticking
            seen = len(ticks)
            probe.after(0.2, lambda: calls.append("last probe"))
            await until(lambda: "last probe" in calls, "the last probe")
            assert len(ticks) == seen
            assert calls == ["probe", "after the ticks", "last probe"]

    asyncio.run(main())
