"""The footer of keys (``elferraus.tui.footer``): built anew for a change the player can see, and only then."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from elferraus.tui.footer import KeyFooter


class Counted(KeyFooter):
    """A footer that counts how often it is built."""

    builds = 0

    def compose(self) -> ComposeResult:
        Counted.builds += 1
        yield from super().compose()


class Keys(App[None]):
    """A screen with two keys: draw (enabled or not) and lay (shown or not)."""

    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("d", "draw", "draw"), Binding("l", "lay", "lay")]

    def __init__(self) -> None:
        super().__init__()
        self.can_draw = True
        self.show_lay = True

    def compose(self) -> ComposeResult:
        yield Static("table")
        yield Counted()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "draw":
            return True if self.can_draw else None  # None: shown, dimmed
        if action == "lay":
            return self.show_lay  # False: not shown
        return True


def shown(widgets: Iterable[Widget]) -> dict[str, bool]:
    return {key.description: not key.has_class("-disabled") for key in widgets if isinstance(key, FooterKey)}


@pytest.mark.parametrize("change", ["none", "disable-draw", "hide-lay", "relabel"])
def test_the_footer_is_built_anew_exactly_when_what_it_shows_changes(change: str) -> None:
    async def main() -> None:
        app = Keys()
        async with app.run_test() as pilot:
            await pilot.pause()
            footer = app.query_one(Counted)
            assert shown(footer.query(FooterKey)) == {"draw": True, "lay": True}
            before = Counted.builds
            for _ in range(5):  # what a turn of a computer does: the keys may have changed, but did not
                app.refresh_bindings()
                await pilot.pause()
            assert Counted.builds == before, "the footer was built again though its keys stayed the same"
            if change == "disable-draw":
                app.can_draw = False
            elif change == "hide-lay":
                app.show_lay = False
            elif change == "relabel":
                bindings = app._bindings.key_to_bindings
                bindings["d"] = [Binding("d", "draw", "ziehen")]
            app.refresh_bindings()
            await pilot.pause()
            await pilot.pause()
            expected = {
                "none": {"draw": True, "lay": True},
                "disable-draw": {"draw": False, "lay": True},
                "hide-lay": {"draw": True},
                "relabel": {"ziehen": True, "lay": True},
            }[change]
            assert shown(footer.query(FooterKey)) == expected
            assert Counted.builds == before + (change != "none")

    asyncio.run(main())
