"""The move log (``elferraus.tui.widgets.MoveLog``) keeps its last line in view, also when it is made smaller."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets import Static

from elferraus.tui.widgets import MoveLog


class NoteOverLog(App[None]):
    """A note over the log, as the coach's note sits over the log on a narrow terminal."""

    CSS = "#note { height: auto; } #log { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield Static("", id="note")
        yield MoveLog(id="log", auto_scroll=True)


def test_the_log_keeps_its_last_line_in_view_when_a_note_takes_room_from_it() -> None:
    async def main() -> None:
        app = NoteOverLog()
        async with app.run_test(size=(60, 20)) as pilot:
            log = app.query_one(MoveLog)
            for turn in range(60):
                log.write(f"turn {turn}")
            await pilot.pause()
            await pilot.pause()
            assert log.max_scroll_y > 0
            assert log.scroll_y == log.max_scroll_y
            app.query_one("#note", Static).update("\n".join(f"a rule, line {line}" for line in range(8)))
            for _ in range(4):
                await pilot.pause()
            assert log.size.height < 19, "the note took no room"
            assert log.scroll_y == log.max_scroll_y, "the last line of the log went out of view"
            app.query_one("#note", Static).update("")
            for _ in range(4):
                await pilot.pause()
            assert log.scroll_y == log.max_scroll_y

    asyncio.run(main())
