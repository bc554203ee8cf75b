"""The coach of a first game in the terminal: each rule once a game at its moment (``elferraus.table.coach``),
in the page's words, closed with x, switched with c and remembered between runs in the settings file.

Every test here starts from a config folder of its own (``tests/conftest.py``); ``fresh`` empties it, as on a
first run.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Select
from textual.widgets._footer import FooterKey

from elferraus.i18n import Lang, tr
from elferraus.moves import DRAW
from elferraus.table.coach import MOMENTS
from elferraus.tui.app import ElferRausApp
from elferraus.tui.dialogs import HandoffScreen
from elferraus.tui.result_screen import ResultScreen
from elferraus.tui.settings import Settings, default_settings_path, read_settings, write_settings
from elferraus.tui.setup_screen import SetupScreen
from elferraus.tui.widgets import CoachPanel
from tests.support.tui_helpers import awaiting, run, until
from tests.tui.test_tui import choices, hand_over, my_turn, table_screen

TIPS = {"fits" if moment == "may_hold" else moment for moment in MOMENTS} | {"hold"}
LARGE = (120, 36)


@pytest.fixture
def fresh() -> Path:
    """A first run: no settings file yet (the coach is on until the first finished game)."""
    path = default_settings_path()
    path.unlink(missing_ok=True)
    return path


def alone_app(lang: Lang = "en", seed: int = 5) -> ElferRausApp:
    """You against three quick computers, seeded, straight to the table."""
    return ElferRausApp(choices("human", "greedy", "greedy", "greedy"), lang=lang, seed=seed, start=True)


def panel(app: ElferRausApp) -> CoachPanel:
    return table_screen(app).query_one("#coach", CoachPanel)


def shown(app: ElferRausApp) -> str | None:
    """The coach's note as shown (None while it is hidden)."""
    note = panel(app)
    return note.text if note.display else None


def words(tip: str, lang: Lang = "en") -> str:
    """The catalogue's words of a rule, as the terminal tells it."""
    return tr("coach_fits_terminal" if tip == "fits" else f"coach_{tip}", lang, draws=3)


def footer(app: ElferRausApp) -> dict[str, str]:
    """The footer's keys as shown: key -> word (the footer follows a change of the keys a frame later, so the
    tests wait for it, boundedly)."""
    return {key.key: key.description for key in app.screen.query(FooterKey)}


async def play_on(pilot: Pilot[None], app: ElferRausApp, pick: random.Random, notes: list[str]) -> None:
    """Play the person's turns with seeded random choices to the end of the round, noting each new rule shown."""
    for _ in range(3000):
        await until(pilot, lambda: isinstance(app.screen, ResultScreen) or awaiting(app), "a turn or the end")
        if isinstance(app.screen, ResultScreen):
            return
        screen = table_screen(app)
        text = shown(app)
        if screen.coach_tip is not None and (not notes or notes[-1] != screen.coach_tip):
            assert text == words(screen.coach_tip), screen.coach_tip
            notes.append(screen.coach_tip)
        legal = app.table.game.legal_moves()
        lays = [move for move in legal if move.card is not None]
        screen.play(pick.choice(lays) if lays and pick.random() < 0.5 else pick.choice(legal))
        await pilot.pause()
    raise AssertionError("the round did not end")


def test_the_rules_come_in_order_each_once_a_game(fresh: Path) -> None:
    """The red 11 first, then what fits, then each rule at its moment (every one of them in this deal); none twice,
    each shown in the page's words."""
    app = alone_app(seed=5)
    notes: list[str] = []

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        assert screen.coach_told[0][:2] == ["start", "fits"]
        await play_on(pilot, app, random.Random(3), notes)
        told = table_screen(app).coach_told[0]
        assert told == [
            "start",
            "fits",
            "more",
            "hold",
            "must_draw",  # a turn the table plays for the person still has its rule
            "drawn_not",
            "drawn_fits",
            "pile_empty",
        ]
        assert len(told) == len(set(told))
        assert set(told) <= TIPS
        assert [tip for tip in notes if tip != "start"] == [tip for tip in told if tip in notes and tip != "start"]

    run(app, script)


def test_x_closes_the_note_and_the_footer_names_x_while_it_shows(fresh: Path) -> None:
    app = alone_app()

    async def script(pilot: Pilot[None]) -> None:
        await my_turn(pilot, app)
        assert shown(app) == words("fits")
        await until(pilot, lambda: footer(app).get("x") == "got it", "the footer to name x")
        assert "h Show me a good move" in panel(app).render().plain  # the hint key, named where hints are given
        await pilot.press("x")
        assert shown(app) is None
        await until(pilot, lambda: "x" not in footer(app), "the footer to drop x")
        assert footer(app)["c"] == "coach"
        assert table_screen(app).coach_on  # closed, not off: the next rule comes at its moment
        await pilot.press("d")
        await until(pilot, lambda: shown(app) is not None, "the next rule")

    run(app, script)


def test_c_switches_the_coach_and_it_is_remembered_across_runs(fresh: Path) -> None:
    def turn_and(press: str | None, expect_on: bool) -> None:
        app = alone_app()

        async def script(pilot: Pilot[None]) -> None:
            screen = await my_turn(pilot, app)
            if press:
                await pilot.press(press)
            assert screen.coach_on is expect_on
            assert (shown(app) is not None) is expect_on

        run(app, script, size=LARGE)

    turn_and(None, True)  # a first run: on
    turn_and("c", False)
    assert read_settings(fresh) == Settings(coach=False)
    turn_and(None, False)  # the next run remembers
    turn_and("c", True)  # and c turns it on again, at once
    assert read_settings(fresh).coach is True
    turn_and(None, True)


def test_the_coach_is_on_until_the_first_finished_game(fresh: Path) -> None:
    app = alone_app(seed=2)

    async def script(pilot: Pilot[None]) -> None:
        assert (await my_turn(pilot, app)).coach_on
        await play_on(pilot, app, random.Random(1), [])

    run(app, script)
    assert read_settings(fresh) == Settings(played=True)
    app = ElferRausApp(choices("human", "greedy"), seed=1)

    async def then(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the new-game screen")
        assert app.screen.query_one("#coach", Select).value is False  # offered in the menu, off by now
        await pilot.press("ctrl+s")
        assert not (await my_turn(pilot, app)).coach_on

    run(app, then)


def test_the_new_game_screen_switches_the_coach(fresh: Path) -> None:
    app = ElferRausApp(choices("human", "greedy"), seed=1)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the new-game screen")
        select = app.screen.query_one("#coach", Select)
        assert select.value is True  # on for the first game
        select.value = False
        await pilot.pause()
        assert read_settings(fresh).coach is False
        await pilot.press("ctrl+s")
        assert not (await my_turn(pilot, app)).coach_on
        assert shown(app) is None

    run(app, script, size=LARGE)


@pytest.mark.parametrize(
    "content",
    [b"coach = [", b"\xff\xfe\x00garbage", b"coach = 'yes'\nplayed = 3\n", b"[coach]\non = true\n", None],
    ids=["broken-toml", "not-text", "wrong-types", "wrong-shape", "a-folder"],
)
def test_a_broken_or_unwritable_settings_file_falls_back_to_the_defaults(fresh: Path, content: bytes | None) -> None:
    if content is None:
        fresh.mkdir()  # neither readable nor writable as a file
    else:
        fresh.write_bytes(content)
    assert read_settings(fresh) == Settings()
    app = alone_app()

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        assert screen.coach_on
        assert shown(app) == words("fits")
        await pilot.press("c")  # written if it can be; never a crash
        assert not screen.coach_on

    run(app, script)


def test_an_unwritable_config_folder_changes_nothing_but_this_run(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert write_settings(blocker / "elferraus" / "settings.toml", Settings(coach=True)) is False
    assert read_settings(blocker / "elferraus" / "settings.toml") == Settings()


def test_the_coach_speaks_german(fresh: Path) -> None:
    app = alone_app("de")

    async def script(pilot: Pilot[None]) -> None:
        await my_turn(pilot, app)
        assert shown(app) == words("fits", "de")
        assert shown(app).startswith("Deine Karten, die passen, sind mit * markiert")  # type: ignore[union-attr]
        text = panel(app).render().plain
        assert text.startswith("Spielhilfe: ")
        assert "h Zeig mir einen guten Zug · x Verstanden · c Spielhilfe aus" in text
        await until(pilot, lambda: footer(app).get("x") == "verstanden", "the footer to name x")
        await pilot.press("x")
        await until(pilot, lambda: footer(app).get("c") == "Spielhilfe", "the footer to name c")
        await pilot.press("c")
        assert tr("coach_now_off", "de") == "Die Spielhilfe ist aus: mit c schaltest du sie wieder an."

    run(app, script)


def test_in_pass_and_play_the_coach_speaks_to_the_person_to_move_and_never_hints(fresh: Path) -> None:
    app = ElferRausApp(choices("human", "human", "greedy"), seed=4, start=True)

    async def script(pilot: Pilot[None]) -> None:
        for _ in range(2):
            await until(pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-over")
            assert shown(app) is None  # nothing is told over covered cards
            await hand_over(pilot, app)
            screen = await my_turn(pilot, app)
            seat = screen.viewer
            assert app.table.game.turn == seat
            assert screen.coach_told[seat] == ["start"]  # how the game starts, at the person's first turn
            assert screen.coach_tip == "start"
            assert shown(app) == words(screen.coach_tip or "")
            assert " h " not in f" {panel(app).render().plain}"  # hints are for a person alone with computers
            legal = app.table.game.legal_moves()
            screen.play(DRAW if DRAW in legal else legal[0])
            while awaiting(app) and app.table.game.turn == seat:
                screen.play(app.table.game.legal_moves()[-1])
                await pilot.pause()
        assert set(table_screen(app).coach_told) == {0, 1}  # each person is told the rules

    run(app, script, size=LARGE)
