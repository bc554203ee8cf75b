"""What the terminal game looks like: SVG snapshots of its screens, in English and German.

Every screen is reached deterministically: a fixed seed, computers at pace 0,
and a wait until the table waits for the person. Update the snapshots with
``pytest tests/tui/test_snapshots.py --snapshot-update`` and look at them
before committing.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import RichLog, Select, Static

from elferraus.bots import Advice
from elferraus.i18n import Lang
from elferraus.moves import DRAW, Move
from elferraus.table.session import Seat, Table, TableSetup
from elferraus.tui.app import ElferRausApp
from elferraus.tui.dialogs import HandoffScreen, HelpScreen, QuitScreen
from elferraus.tui.result_screen import ResultScreen
from elferraus.tui.save_dialog import SaveDialog
from elferraus.tui.settings import default_settings_path
from elferraus.tui.setup_screen import SetupChoices, SetupScreen
from elferraus.tui.table_screen import TableScreen
from tests.support.tui_helpers import table_at

SnapCompare = Callable[..., bool]
SIZE = (80, 24)
LANGS = pytest.mark.parametrize("lang", ["en", "de"])


def choices(*levels: str, pace: float = 0.0) -> SetupChoices:
    return SetupChoices(players=len(levels), pace=pace, levels=[*levels] + ["greedy"] * (6 - len(levels)))


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
        log = app.screen.query_one("#log", RichLog)
        # the log follows its last line once it is laid out: the picture waits for that, whatever ran before
        await until(pilot, lambda: log.scroll_y >= log.max_scroll_y, "the log at its last line")

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


@LANGS
@pytest.mark.parametrize("size", [(100, 30), (160, 50)], ids=["100x30", "160x50"])
def test_table_centred_on_a_larger_terminal(snap_compare: SnapCompare, lang: Lang, size: tuple[int, int]) -> None:
    """Centred like the dialogs; the log beside the table from 112 columns on."""
    app = ElferRausApp(choices("human", "greedy", "random", "greedy"), lang=lang, seed=8, start=True)
    assert snap_compare(app, terminal_size=size, run_before=your_turn(app))


@LANGS
def test_small_terminal_notice(snap_compare: SnapCompare, lang: Lang) -> None:
    """Below 80x24 a notice says so instead of a table cut off."""
    app = table_app(lang)

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.too_small, "the notice")

    assert snap_compare(app, terminal_size=(70, 20), run_before=run_before)


def r13_app(lang: Lang, pace: float = 0.0) -> ElferRausApp:
    """You to move first against a greedy computer, red 10-12 on the table: R13 fits (and holding it back
    blocks his R14), nothing else does, and the three cards on top of the pile fit nowhere."""
    you = "Du" if lang == "de" else "You"
    table = table_at("R10-12", "R13Y3Y5G2G4B3B6R1R3", "R9Y11G11B11Y12Y10", "G20Y1B1", you=you)
    return ElferRausApp(choices("human", "greedy", pace=pace), lang=lang, table=table)


def g12_app(lang: Lang) -> ElferRausApp:
    """The R13 table, but you hold G12 for G4: the computer opens green, so your next turn has a choice with no
    draw before it (a drawn card is never taken back)."""
    you = "Du" if lang == "de" else "You"
    table = table_at("R10-12", "R13Y3Y5G2G12B3B6R1R3", "R9Y11G11B11Y12Y10", "G20Y1B1", you=you)
    return ElferRausApp(choices("human", "greedy"), lang=lang, table=table)


def made_for_you_app(lang: Lang) -> ElferRausApp:
    """You draw a card that does not fit; the next draw is made for you, after a long pause."""
    return r13_app(lang, pace=600.0)


@LANGS
def test_table_during_a_move_made_for_you(snap_compare: SnapCompare, lang: Lang) -> None:
    app = made_for_you_app(lang)

    async def run_before(pilot: Pilot[Any]) -> None:
        await your_turn(app)(pilot)
        await pilot.press("z" if lang == "de" else "d")
        await until(pilot, lambda: app.table.game.move_count == 1 and not app.screen.awaiting, "the pause")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


HINT = Advice(DRAW, "search", ((DRAW, 0.93), (Move.lay("R13"), 0.41)), 24)
"""master's advice at the R13 table, as its search gives it: the picture shows how a hint is drawn, not what
the search of the day advises (tests/table checks that the hint is master's)."""


@LANGS
def test_table_with_a_hint(snap_compare: SnapCompare, lang: Lang, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hint says why in words: here, holding R13 back blocks R14 for the computer."""
    app = r13_app(lang)
    monkeypatch.setattr(app.table, "hint", lambda seed=None: HINT)

    async def run_before(pilot: Pilot[Any]) -> None:
        await your_turn(app)(pilot)
        await pilot.press("h")
        note = app.screen.query_one("#note", Static)
        await until(pilot, lambda: str(note.content).startswith(("Hint:", "Tipp:")), "the hint", limit=120)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def opened_on_your_turn(app: ElferRausApp, key: str, screen: type[Screen[Any]]) -> Callable[[Pilot[Any]], Any]:
    """``run_before``: on the person's turn, press ``key`` and wait for the ``screen`` it opens."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await your_turn(app)(pilot)
        await pilot.press(key)
        await until(pilot, lambda: isinstance(app.screen, screen), screen.__name__)

    return run_before


@LANGS
def test_help_screen(snap_compare: SnapCompare, lang: Lang) -> None:
    app = table_app(lang)
    assert snap_compare(app, terminal_size=SIZE, run_before=opened_on_your_turn(app, "question_mark", HelpScreen))


def finished_table(lang: Lang, rounds: int, played: int = 1) -> Table:
    """``played`` rounds played to the end through the model: you (seeded random moves) against three computers."""
    you = "Du" if lang == "de" else "You"
    seats = (Seat(you), Seat("Computer 2", "greedy"), Seat("Computer 3", "random"), Seat("Computer 4", "medium"))
    table = Table(TableSetup(seats, rounds=rounds, seed=21))
    rng = random.Random(21)
    for number in range(played):
        if number:
            table.finish_round()
            table.next_round()
        game = table.game
        while not game.is_over():
            game.push(rng.choice(game.legal_moves()) if table.is_person(game.turn) else table.think())
    return table


@LANGS
@pytest.mark.parametrize(("rounds", "played"), [(1, 1), (5, 3)], ids=["single-game", "match-round-3-of-5"])
def test_result_screen(snap_compare: SnapCompare, lang: Lang, rounds: int, played: int) -> None:
    table = finished_table(lang, rounds, played)
    app = ElferRausApp(choices("human", "greedy", "random", "medium"), lang=lang, table=table)

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@LANGS
def test_handoff_screen(snap_compare: SnapCompare, lang: Lang) -> None:
    app = ElferRausApp(choices("human", "greedy", "human"), lang=lang, seed=7, start=True)

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-over")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


OWN_FILE = "/home/anna/.local/share/elferraus/games/elferraus-20261201-201500.jsonl"
"""The game's own save file in the dialogs' snapshots (only shown, never written)."""


@LANGS
def test_save_dialog(snap_compare: SnapCompare, lang: Lang) -> None:
    """Asks where, offering the game's own file; its keys in the dialog's own footer."""
    app = ElferRausApp(choices("human", "greedy", "random"), lang=lang, seed=5, start=True, save_path=OWN_FILE)
    assert snap_compare(app, terminal_size=SIZE, run_before=opened_on_your_turn(app, "s", SaveDialog))


@LANGS
def test_quit_dialog(snap_compare: SnapCompare, lang: Lang) -> None:
    """Asks first, names the command that continues the saved game, and shows its own keys."""
    app = ElferRausApp(choices("human", "greedy", "random"), lang=lang, seed=5, start=True, save_path=OWN_FILE)
    assert snap_compare(app, terminal_size=SIZE, run_before=opened_on_your_turn(app, "q", QuitScreen))


@LANGS
def test_new_game_screen_on_a_small_terminal_with_a_list_open(snap_compare: SnapCompare, lang: Lang) -> None:
    """At 70x20 the form closes up to fit, buttons included; an open list's Esc is in the player's words."""
    app = ElferRausApp(SetupChoices(players=6, pace=0.0), lang=lang, seed=1)

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the new-game screen")
        app.screen.query_one("#level-1", Select).focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.query_one("#level-1", Select).expanded, "the open list")

    assert snap_compare(app, terminal_size=(70, 20), run_before=run_before)


@LANGS
def test_table_in_pass_and_play(snap_compare: SnapCompare, lang: Lang) -> None:
    """Two persons at one screen: the hand shown is the one who took over; undo is not offered."""
    app = ElferRausApp(choices("human", "greedy", "human"), lang=lang, seed=7, start=True)

    def choosing() -> bool:
        return isinstance(app.screen, TableScreen) and app.screen.awaiting

    async def run_before(pilot: Pilot[Any]) -> None:
        while not choosing():  # hand the device over until a person has a choice
            await until(pilot, lambda: choosing() or isinstance(app.screen, HandoffScreen), "a hand-over or a turn")
            if isinstance(app.screen, HandoffScreen):
                await pilot.press("enter")
                await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@LANGS
def test_table_after_taking_back(snap_compare: SnapCompare, lang: Lang) -> None:
    """The note says in words what was taken back: your turn and the computer's after it."""
    app = g12_app(lang)

    async def run_before(pilot: Pilot[Any]) -> None:
        await your_turn(app)(pilot)
        await pilot.press("enter")  # R13, the only card that fits; the end of the turn is made for you
        await until(pilot, lambda: app.table.game.move_count > 2 and app.screen.awaiting, "your next turn")
        await pilot.press("u")
        note = app.screen.query_one("#note", Static)
        await until(pilot, lambda: bool(str(note.content)), "the note")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@LANGS
@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_table_with_the_coach(snap_compare: SnapCompare, lang: Lang, size: tuple[int, int]) -> None:
    """A first run: the coach's note under the hand (what fits, with the hint key), the hand and rows in full;
    on a narrow screen the footer names x, and the note names c."""
    default_settings_path().unlink()
    app = ElferRausApp(choices("human", "greedy", "random", "greedy"), lang=lang, seed=8, start=True)
    assert snap_compare(app, terminal_size=size, run_before=your_turn(app))
