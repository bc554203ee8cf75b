"""The end of a round: the winner celebrated with a banner that sparkles for a moment (not without motion), the
standings with a place column, the winner first.

Every test of the suite runs without motion (``tests/conftest.py``); the sparkle's test turns it on for its app
(``brief`` makes it short).
"""

from __future__ import annotations

import random

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from elferraus.i18n import Lang
from elferraus.table.session import Seat, Table, TableSetup
from elferraus.tui import result_screen
from elferraus.tui.app import ElferRausApp
from elferraus.tui.result_screen import PLACE_WIDTH, ResultScreen, standings
from elferraus.tui.setup_screen import SetupChoices
from tests.support.tui_helpers import run, until


@pytest.fixture
def brief(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sparkle made short: the test waits for it to stop, not for long."""
    monkeypatch.setattr(result_screen, "SPARKLE_SECONDS", 0.5)
    monkeypatch.setattr(result_screen, "SPARKLE_STEP", 0.1)


def choices(*levels: str) -> SetupChoices:
    return SetupChoices(players=len(levels), pace=0.0, levels=[*levels] + ["greedy"] * (6 - len(levels)))


def finished(names: tuple[str, ...], seed: int) -> Table:
    """A game played to its end through the model: the first seat a person (random moves), the others greedy."""
    seats = (Seat(names[0]), *(Seat(name, "greedy") for name in names[1:]))
    table = Table(TableSetup(seats, seed=seed))
    rng = random.Random(seed)
    game = table.game
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()) if table.is_person(game.turn) else table.think())
    return table


@pytest.mark.usefixtures("brief")
@pytest.mark.parametrize(("lang", "wins"), [("en", "★ {name} wins! ★"), ("de", "★ {name} gewinnt! ★")])
def test_the_result_celebrates_the_winner_and_puts_him_first(
    lang: Lang, wins: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every banner drawn, with the sparkle's step then: on a loaded machine the sparkle may be over before the
    # test first looks, so what it showed while it lasted is kept, not read off the screen at one moment
    drawn: list[tuple[int | None, str]] = []
    draw_banner = ResultScreen._draw_banner

    def recording(screen: ResultScreen) -> None:
        draw_banner(screen)
        drawn.append((screen.sparkle, str(screen.query_one("#banner", Static).content)))

    monkeypatch.setattr(ResultScreen, "_draw_banner", recording)
    table = finished(("Anna", "Ben", "Carla"), seed=11)
    winner = table.game.winner
    assert winner is not None
    app = ElferRausApp(choices("human", "greedy", "greedy"), lang=lang, table=table)
    app.animation_level = "full"

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
        screen = app.screen
        assert isinstance(screen, ResultScreen)
        await pilot.pause()
        banner = screen.query_one("#banner", Static)
        banner_words = "★ You win! ★" if lang == "en" else "★ Du gewinnst! ★"
        expected = banner_words if winner == 0 else wins.format(name=table.names[winner])
        await until(pilot, lambda: screen.sparkle is None, "the sparkle to stop")
        sparkling = [content for step, content in drawn if step is not None]
        assert sparkling  # it sparkles ...
        assert all(expected in content and content != expected for content in sparkling)
        assert str(banner.content) == expected  # ... and then stands still
        rows = str(screen.query_one("#round", Static).content).splitlines()
        assert rows[0].split()[0] == ("Place" if lang == "en" else "Platz")
        assert rows[1].startswith("★ 1.")
        assert rows[1][PLACE_WIDTH:].startswith(table.names[winner])
        places = [int(row.split(".")[0].lstrip("★ ")) for row in rows[1:]]
        assert places == sorted(places)
        assert places[0] == 1
        points = [int(row.split()[-1]) for row in rows[1:]]
        assert points[0] == 0
        assert points[1:] == sorted(points[1:])

    run(app, script)


def test_without_motion_the_result_does_not_sparkle() -> None:
    table = finished(("Anna", "Ben"), seed=3)
    app = ElferRausApp(choices("human", "greedy"), table=table)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
        screen = app.screen
        assert isinstance(screen, ResultScreen)
        await pilot.pause()
        assert screen.sparkle is None
        assert str(screen.query_one("#banner", Static).content).startswith("★ ")

    run(app, script)


def test_players_with_the_same_points_share_a_place_after_the_winner() -> None:
    table = finished(("Anna", "Ben", "Carla", "Dora"), seed=2)
    points = table.game.penalties()
    places = standings(table)
    assert places[0] == (1, table.game.winner)
    assert places[1][0] == 2
    for index in range(2, len(places)):
        (place, seat), (before, previous) = places[index], places[index - 1]
        assert points[seat] >= points[previous]
        assert place == (before if points[seat] == points[previous] else index + 1)
