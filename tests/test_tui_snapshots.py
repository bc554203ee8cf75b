"""What the terminal game looks like: SVG snapshots of its screens, in English and German.

Every screen is reached deterministically: a fixed seed, computers at pace 0,
and a wait until the table waits for the person. Update the snapshots with
``pytest tests/test_tui_snapshots.py --snapshot-update`` and look at them
before committing.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from elferraus.i18n import Lang
from elferraus.session import Seat, Table, TableSetup
from elferraus.tui.app import ElferRausApp
from elferraus.tui.dialogs import HandoffScreen, HelpScreen
from elferraus.tui.result_screen import ResultScreen
from elferraus.tui.setup_screen import SetupChoices, SetupScreen
from elferraus.tui.table_screen import TableScreen

SnapCompare = Callable[..., bool]
SIZE = (80, 24)
LANGS = pytest.mark.parametrize("lang", ["en", "de"])


def choices(*levels: str) -> SetupChoices:
    return SetupChoices(players=len(levels), pace=0.0, levels=[*levels] + ["greedy"] * (6 - len(levels)))


async def until(pilot: Pilot[Any], condition: Callable[[], bool], what: str, limit: float = 10.0) -> None:
    """Wait (boundedly) until ``condition()`` holds, then let the screen settle."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.005)
    await pilot.pause()


def your_turn(app: ElferRausApp) -> Callable[[Pilot[Any]], Any]:
    """``run_before``: wait until the table waits for the person."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.awaiting, "your turn")

    return run_before


def table_app(lang: Lang) -> ElferRausApp:
    """You against two computers, seeded, straight to the table."""
    return ElferRausApp(choices("human", "greedy", "random"), lang=lang, seed=5, start=True)


@LANGS
def test_new_game_screen(snap_compare: SnapCompare, lang: Lang) -> None:
    app = ElferRausApp(SetupChoices(players=3, pace=0.0), lang=lang, seed=1)

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the new-game screen")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@LANGS
def test_table_your_turn(snap_compare: SnapCompare, lang: Lang) -> None:
    app = table_app(lang)
    assert snap_compare(app, terminal_size=SIZE, run_before=your_turn(app))


def test_table_wide(snap_compare: SnapCompare) -> None:
    """The log beside the table from 112 columns on."""
    app = ElferRausApp(choices("human", "greedy", "random", "greedy"), seed=8, start=True)
    assert snap_compare(app, terminal_size=(160, 50), run_before=your_turn(app))


@LANGS
def test_help_screen(snap_compare: SnapCompare, lang: Lang) -> None:
    app = table_app(lang)

    async def run_before(pilot: Pilot[Any]) -> None:
        await your_turn(app)(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def finished_table(lang: Lang) -> Table:
    """A game played to the end through the model: you (seeded random moves) against two computers."""
    you = "Du" if lang == "de" else "You"
    seats = (Seat(you), Seat("Computer 2", "greedy"), Seat("Computer 3", "random"))
    table = Table(TableSetup(seats, rounds=3, seed=21))
    game, rng = table.game, random.Random(21)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()) if table.is_person(game.turn) else table.computer_move())
    return table


@LANGS
def test_result_screen(snap_compare: SnapCompare, lang: Lang) -> None:
    app = ElferRausApp(choices("human", "greedy", "random"), lang=lang, table=finished_table(lang))

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@LANGS
def test_handoff_screen(snap_compare: SnapCompare, lang: Lang) -> None:
    app = ElferRausApp(choices("human", "greedy", "human"), lang=lang, seed=7, start=True)

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-over")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
