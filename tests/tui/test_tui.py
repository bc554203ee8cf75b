"""The terminal game (``elferraus.tui``), driven by key presses through Textual's pilot.

The tests are plain functions that run the app with ``asyncio.run``; computers
play at pace 0 and are fast ones, so a whole game takes a moment.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from textual.color import Color as Tone
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, RichLog, Select, Static
from textual.widgets._footer import FooterKey
from textual.widgets._select import SelectCurrent

from elferraus.bots import MasterBot
from elferraus.cards import Card, Color, parse_cards
from elferraus.cli.main import build_parser
from elferraus.cli.play import run_play
from elferraus.errors import IllegalMoveError
from elferraus.i18n import Lang, cards_in_words, explain, sentence, tr
from elferraus.moves import DRAW, PASS, Move
from elferraus.position import format_position
from elferraus.table.session import Seat, Table, TableSetup
from elferraus.table.words import log_line, row_lines
from elferraus.tui import load_saved, run_tui
from elferraus.tui.app import ElferRausApp
from elferraus.tui.dialogs import HandoffScreen, HelpScreen, QuitScreen
from elferraus.tui.result_screen import PLACE_WIDTH, ResultScreen, winner_line
from elferraus.tui.setup_screen import SetupChoices, SetupScreen
from elferraus.tui.table_screen import TableScreen
from elferraus.tui.theme import FOCUS, THEME, TONES
from elferraus.tui.widgets import HandView, header_content, row_content
from tests.support.engine_helpers import can_empty_hand
from tests.support.tui_helpers import awaiting, run, table_at, until

SMALL = (80, 24)
LARGE = (160, 50)
DRAWN_CARD = re.compile(r"\b(drew|zieht) [RYGB]\d{1,2}\b")


def choices(*levels: str, rules: str = "classic", pace: float = 0.0) -> SetupChoices:
    """New-game choices for these seats (``human`` = a person), computers instant by default."""
    return SetupChoices(players=len(levels), rules=rules, pace=pace, levels=[*levels] + ["greedy"] * (6 - len(levels)))


def table_screen(app: ElferRausApp) -> TableScreen:
    """The table, also while a dialog covers it."""
    return next(screen for screen in reversed(app.screen_stack) if isinstance(screen, TableScreen))


async def my_turn(pilot: Pilot[None], app: ElferRausApp) -> TableScreen:
    await until(pilot, lambda: awaiting(app), "the person's turn")
    return table_screen(app)


def status(app: ElferRausApp) -> Static:
    return table_screen(app).query_one("#status", Static)


def text_of(app: ElferRausApp, selector: str) -> str:
    return str(table_screen(app).query_one(selector, Static).content)


def log_lines(app: ElferRausApp) -> list[str]:
    return [strip.text.rstrip() for strip in table_screen(app).query_one("#log", RichLog).lines]


async def select_card(pilot: Pilot[None], hand: HandView, card: Card) -> None:
    """Move the cursor onto ``card`` with the arrow keys."""
    for _ in range(len(hand.cards)):
        if hand.selected == card:
            return
        await pilot.press("right")
    assert hand.selected == card


async def act(pilot: Pilot[None], app: ElferRausApp) -> None:
    """One action of the person to move, by keys: lay the first card that fits, else draw, else end the turn."""
    screen = table_screen(app)
    legal = app.table.game.legal_moves()
    lays = [move.card for move in legal if move.card is not None]
    if lays:
        await select_card(pilot, screen.query_one(HandView), lays[0])
        await pilot.press("enter")
    elif DRAW in legal:
        await pilot.press("d")
    else:
        await pilot.press("e")


def turn_over(app: ElferRausApp, seat: int, start: int) -> bool:
    """True once ``seat``'s turn that began at move ``start`` is over."""
    game = app.table.game
    return game.is_over() or game.turn != seat or any(mover != seat for mover, _move, _drawn in game.history()[start:])


async def play_turn(pilot: Pilot[None], app: ElferRausApp) -> None:
    """The person to move plays his whole turn by keys (the driver plays a forced move itself)."""
    game = app.table.game
    seat, start = game.turn, game.move_count
    while not turn_over(app, seat, start):
        await until(pilot, lambda: awaiting(app) or turn_over(app, seat, start), "the turn")
        if not turn_over(app, seat, start):
            await act(pilot, app)


async def hand_over(pilot: Pilot[None], app: ElferRausApp) -> HandoffScreen:
    """Wait for the hand-over screen and take over (Enter); returns the screen that was shown."""
    await until(pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-over")
    handoff = app.screen
    assert isinstance(handoff, HandoffScreen)
    await pilot.pause()
    await pilot.press("enter")
    await until(pilot, lambda: app.screen is not handoff, "the hand-over to end")
    return handoff


async def advance(pilot: Pilot[None], app: ElferRausApp, ready: Callable[[], bool], what: str) -> TableScreen:
    """Play by keys (handing over where needed) until a person's turn where ``ready()`` holds."""
    for _ in range(2000):
        await until(
            pilot,
            lambda: isinstance(app.screen, ResultScreen | HandoffScreen) or awaiting(app),
            "a person's turn or the end",
        )
        if isinstance(app.screen, ResultScreen):
            raise AssertionError(f"the game ended before {what}")
        if isinstance(app.screen, HandoffScreen):
            await hand_over(pilot, app)
        elif ready():
            return table_screen(app)
        else:
            await act(pilot, app)
    raise AssertionError(f"never got to {what}")


async def play_to_the_end(pilot: Pilot[None], app: ElferRausApp) -> None:
    """Play by keys (handing over where needed) until the result screen shows."""
    for _ in range(2000):
        await until(
            pilot,
            lambda: isinstance(app.screen, ResultScreen | HandoffScreen) or awaiting(app),
            "a person's turn or the end",
        )
        if isinstance(app.screen, ResultScreen):
            return
        if isinstance(app.screen, HandoffScreen):
            await hand_over(pilot, app)
        else:
            await act(pilot, app)
    raise AssertionError("the game did not end")


# -- a whole game ---------------------------------------------------------------------------------------------------


def test_a_whole_game_by_keys() -> None:
    app = ElferRausApp(choices("human", "greedy", "random"), seed=5, start=True)

    async def script(pilot: Pilot[None]) -> None:
        await play_to_the_end(pilot, app)
        await pilot.pause()
        game = app.table.game
        assert game.is_over()
        assert game.winner is not None
        result = app.screen
        assert isinstance(result, ResultScreen)
        assert app.table.match.scores == [game.penalties()]
        winner = str(result.query_one("#winner", Static).content)
        name = app.table.names[game.winner]
        you = app.table.is_person(game.winner)
        assert winner.splitlines()[0] == (
            "You went out first and won the game!" if you else f"{name} went out first and won the game."
        )
        rows = str(result.query_one("#round", Static).content).splitlines()
        assert rows[0].split() == ["Place", "Player", "Cards", "left", "Points"]
        assert len(rows) == 4  # a line for each player, whoever went out first
        assert rows[1].split()[:2] == ["★", "1."]  # the one who went out first, on top
        assert rows[1][PLACE_WIDTH:].startswith(name)
        points = game.penalties()
        for seat in range(3):
            line = next(row for row in rows[1:] if row[PLACE_WIDTH:].startswith(app.table.names[seat]))
            assert line.split()[-1] == str(points[seat])
            cards = [str(card) for card in game.hand(seat)] or ["went", "out"]
            assert line.split()[-1 - len(cards) : -1] == cards
        assert not result.query("#match")  # a single game has no match table
        assert str(result.query_one("#again", Button).label) == "Play again"  # a single game is over
        assert len(app.table.finished) == 1
        assert app.table.finished[0]["result"] is not None

    run(app, script)


def finished_table(levels: tuple[str | None, ...], seed: int, rounds: int = 1) -> Table:
    """A table whose game was played to the end through the model (people play seeded random moves)."""
    seats = tuple(Seat("You" if level is None else f"Computer {seat + 1}", level) for seat, level in enumerate(levels))
    table = Table(TableSetup(seats, rounds=rounds, seed=seed))
    game, rng = table.game, random.Random(seed)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()) if table.is_person(game.turn) else table.think())
    return table


def test_play_again_deals_a_new_game() -> None:
    table = finished_table((None, "greedy"), seed=3)
    app = ElferRausApp(choices("human", "greedy"), table=table, seed=77)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
        assert table.match.is_over()
        await pilot.press("enter")  # enter on the result screen: play again
        await my_turn(pilot, app)
        assert app.table is not table
        assert app.table.setup.seed == 77  # the seed given for the first deal
        assert not app.table.game.is_over()
        assert app.table.match.scores == []
        assert app.table.finished == []

    run(app, script)


def test_next_round_of_a_match() -> None:
    table = finished_table((None, "greedy", "random"), seed=4, rounds=3)
    app = ElferRausApp(choices("human", "greedy", "random"), table=table)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
        result = app.screen
        assert "Round 1 is over" in str(result.query_one("#title", Static).content)
        assert "Round 1 is over" in str(result.query_one("#title", Static).content)
        match = str(result.query_one("#match", Static).content).splitlines()
        assert match[0].split() == ["Player", "Round", "1", "Total"]
        assert len(match) == 4
        assert result.query_one("#match").border_title == "The match after round 1 of 3"
        assert str(result.query_one("#then", Static).content).startswith("Next: round 2 of 3. Enter deals it")
        await pilot.click("#next")
        await my_turn(pilot, app)
        assert app.table is table
        assert len(table.match.scores) == 1
        assert table.game.metadata["round"] == 2
        assert "Round 2 of 3" in text_of(app, "#title")
        assert len(app.table.finished) == 1
        assert log_lines(app) == expected_log(app)  # the log starts anew

    run(app, script)


# -- the new-game screen --------------------------------------------------------------------------------------------


def test_new_game_screen_seats_the_table() -> None:
    app = ElferRausApp(SetupChoices(pace=0.0), seed=4)

    async def script(pilot: Pilot[None]) -> None:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        screen.query_one("#players", Select).value = 3
        await pilot.pause()
        assert [screen.query_one(f"#seat-{seat}").display for seat in range(6)] == [True] * 3 + [False] * 3
        screen.query_one("#rules", Select).value = "ravensburger"
        screen.query_one("#level-1", Select).value = "greedy"
        screen.query_one("#level-2", Select).value = "human"
        screen.query_one("#rounds", Select).value = 3
        await pilot.pause()
        # with two people nobody is "You": the placeholders say "Player N"
        assert screen.query_one("#name-0", Input).placeholder == "Player 1"
        assert screen.query_one("#name-2", Input).placeholder == "Player 3"
        screen.query_one("#name-0", Input).focus()
        await pilot.press(*"Anna")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, TableScreen | HandoffScreen), "the table")
        setup = app.table.setup
        assert setup.seats == (Seat("Anna"), Seat("Computer 2", "greedy"), Seat("Player 3"))
        assert setup.rules == "ravensburger"
        assert setup.rounds == 3
        assert setup.seed == 4
        assert app.table.game.rules.must_play
        assert app.table.people == (0, 2)

    run(app, script)


def test_new_game_screen_levels_by_keys_and_start_button() -> None:
    app = ElferRausApp(SetupChoices(players=2, pace=0.0), seed=2)

    async def script(pilot: Pilot[None]) -> None:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        level = screen.query_one("#level-1", Select)
        level.focus()
        await pilot.press("enter")  # open the list: human, easy, medium, ... -> the last one, random
        await pilot.press("end", "enter")
        await pilot.pause()
        assert level.value == "random"
        await pilot.click("#start")
        await my_turn(pilot, app)
        assert app.table.setup.seats == (Seat("You"), Seat("Computer 2", "random"))

    run(app, script)


@pytest.mark.parametrize(("lang", "label"), [("en", "master"), ("de", "Meister")])
def test_new_game_screen_seats_master_the_strongest_level(lang: Lang, label: str) -> None:
    """``master`` is offered last of the levels, before the two yardsticks; chosen, it plays its seat."""
    app = ElferRausApp(SetupChoices(players=2, pace=0.0), lang=lang, seed=5)

    async def script(pilot: Pilot[None]) -> None:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        level = screen.query_one("#level-1", Select)
        level.focus()
        await pilot.press("enter")  # open the list: ... expert, master, greedy (baseline), random (baseline)
        await pilot.press("end", "up", "up", "enter")
        await pilot.pause()
        assert level.value == "master"
        assert str(level.query_one(SelectCurrent).query_one("#label", Static).content) == label
        await pilot.click("#start")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        table = app.table
        assert table.setup.seats[1].level == "master"
        assert isinstance(table.bots[1], MasterBot)

        def master_moved() -> bool:
            return any(seat == 1 for seat, _move, _card in table.game.history())

        await advance(pilot, app, master_moved, "master's first move")

    run(app, script)


@pytest.mark.parametrize("size", [(70, 20), (80, 24)], ids=["70x20", "80x24"])
def test_new_game_screen_fits_a_small_terminal_with_six_seats(size: tuple[int, int]) -> None:
    """Every field and button of the form lies inside the terminal, above the footer; an open list's footer
    speaks the player's language, not Textual's."""
    app = ElferRausApp(SetupChoices(players=6, pace=0.0), lang="de", seed=1)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the new-game screen")
        await pilot.pause()
        width, height = size
        for widget in app.screen.query("#form Select, #form Input, #form Button"):
            region = widget.region
            assert region.width > 0, widget
            assert region.x >= 0, (widget, region)
            assert region.right <= width, (widget, region)
            assert region.y >= 0, (widget, region)
            assert region.bottom <= height - 1, (widget, region)  # the footer's row is last
        app.screen.query_one("#level-1", Select).focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.query_one("#level-1", Select).expanded, "the open list")
        await pilot.pause()
        assert "Liste schließen" in footer_words(app)
        assert not [word for word in footer_words(app) if "menu" in word.lower()]

    run(app, script, size=size)


def test_new_game_screen_speaks_german_after_choosing_it() -> None:
    app = ElferRausApp(SetupChoices(pace=0.0), seed=1)

    async def script(pilot: Pilot[None]) -> None:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        assert "New game" in str(screen.query_one("#heading", Static).content)
        screen.query_one("#players", Select).value = 5
        await pilot.pause()
        screen.query_one("#lang", Select).value = "de"
        await until(pilot, lambda: app.screen is not screen, "the German screen")
        await pilot.pause()
        german = app.screen
        assert isinstance(german, SetupScreen)
        assert app.lang == "de"
        assert str(german.query_one("#heading", Static).content) == "Elfer raus! · Neues Spiel"
        assert str(german.query_one("#start", Button).label) == "Los geht's"
        assert str(german.query_one("#quit", Button).label) == "Beenden"
        assert german.query_one("#players", Select).value == 5  # the choices are kept
        assert german.query_one("#name-0", Input).placeholder == "Du"
        await pilot.press("ctrl+s")
        await my_turn(pilot, app)
        assert app.table.names[:2] == ["Du", "Computer 2"]
        assert app.table.players == 5

    run(app, script)


# -- pass and play --------------------------------------------------------------------------------------------------


def test_pass_and_play_hides_each_hand_until_the_next_person_takes_over() -> None:
    app = ElferRausApp(choices("human", "greedy", "human"), seed=7, start=True)

    async def script(pilot: Pilot[None]) -> None:
        game = app.table.game
        keyed = 0
        for _ in range(5):  # five people's turns: A, B, A, B, A
            await until(pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-over")
            await pilot.pause()
            screen = table_screen(app)
            hand = screen.query_one(HandView)
            person, start = game.turn, game.move_count
            handoff = app.screen
            assert isinstance(handoff, HandoffScreen)
            assert handoff.person == app.table.names[person]
            # under the hand-over nothing shows a card: no hand, nothing rendered
            assert screen.hidden
            assert hand.hidden_text == "(cards hidden)"
            assert hand.cards == ()
            rendered = str(hand.render())
            assert not any(str(card) in rendered for card in game.hand(person))
            await pilot.press("enter")
            await until(pilot, lambda p=person, s=start: awaiting(app) or turn_over(app, p, s), "the person's turn")
            assert screen.viewer == person
            if turn_over(app, person, start):
                continue  # a forced move (the opening 11): the table made it
            assert not screen.hidden
            assert hand.hidden_text is None
            assert hand.cards == tuple(game.hand(person))
            await play_turn(pilot, app)
            keyed += 1
            # his turn is over: his cards are covered at once
            assert screen.hidden
            assert hand.hidden_text is not None
            assert hand.cards == ()
        assert keyed >= 4
        drawn = [text for text in game.record_moves() if text.split()[1] == "draw"]
        assert drawn, "choose a seed with draws"
        lines = log_lines(app)
        assert len(lines) >= game.move_count
        assert not [line for line in lines if DRAWN_CARD.search(line)]
        assert any(line.endswith("drew a card") for line in lines)

    run(app, script)


@pytest.mark.parametrize("seed", [3, 7])
def test_pass_and_play_hands_over_only_to_a_person_who_then_chooses(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move the table makes for a person (the opening 11, draws when nothing fits) is made with his cards
    covered and no hand-over screen: the device is handed over only to a person who then has a choice, and no
    card he draws so is shown."""
    app = ElferRausApp(choices("human", "human", "greedy"), seed=seed, start=True)
    covered: list[str] = []  # the status lines shown while the hand is covered
    set_status = TableScreen._set_status

    def recording(screen: TableScreen, text: str, *, error: bool = False, made: bool = False) -> None:
        if screen.hidden:
            covered.append(text)
        set_status(screen, text, error=error, made=made)

    monkeypatch.setattr(TableScreen, "_set_status", recording)

    async def script(pilot: Pilot[None]) -> None:
        table = app.table
        for _ in range(8):
            await until(pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-over")
            handoff = app.screen
            assert isinstance(handoff, HandoffScreen)
            step = table.next_step()
            assert step.kind == "ask", (step, table.game.record_moves()[-3:])
            assert handoff.person == table.names[step.seat or 0]
            await pilot.press("enter")
            await my_turn(pilot, app)
            await play_turn(pilot, app)
        assert not [text for text in covered if re.search(r"[RYGB]\d", text)], covered  # no card of a covered hand
        assert table.game.moved(0)[0] in table.people, "choose a seed where a person opens"

    run(app, script)


def test_the_hand_over_screen_quits_as_the_table_does() -> None:
    app = ElferRausApp(choices("human", "greedy", "human"), seed=7, start=True)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-over")
        handoff = app.screen
        await pilot.pause()
        assert "quit" in footer_words(app)  # the way out is shown
        for key in ("q", "escape"):
            await pilot.press(key)
            await until(pilot, lambda: isinstance(app.screen, QuitScreen), f"the question after {key}")
            await pilot.press("n")  # carry on: back to the hand-over, nothing shown
            await until(pilot, lambda: app.screen is handoff, "the hand-over again")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, QuitScreen), "the question")
        await pilot.press("y")

    run(app, script)
    assert not app.is_running
    assert app.return_code == 0


# -- hint -----------------------------------------------------------------------------------------------------------


def going_out_table() -> Table:
    """A person (seat 0) who can lay all his cards this turn, with a choice to make."""
    table = Table(TableSetup((Seat("You"), Seat("Computer 2", "greedy")), seed=12))
    game, rng = table.game, random.Random(12)
    while not (table.person_to_move() and len(game.legal_moves()) > 1 and can_empty_hand(game)):
        game.push(rng.choice(game.legal_moves()) if table.is_person(game.turn) else table.think())
    assert game.hand(0) == [Card.parse("R19"), Card.parse("Y2")]
    return table


def test_hint_puts_the_cursor_on_the_hinted_card() -> None:
    table = going_out_table()
    app = ElferRausApp(choices("human", "greedy"), table=table)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        hand = screen.query_one(HandView)
        await select_card(pilot, hand, Card.parse("Y2"))
        count = table.game.move_count
        await pilot.press("h")
        await until(pilot, lambda: text_of(app, "#note").startswith("Hint:"), "the hint")
        assert text_of(app, "#note") == "Hint: R19 — you can lay all your cards this turn"
        assert hand.selected == Card.parse("R19")
        assert table.game.move_count == count  # a hint makes no move
        await pilot.press("enter")
        assert table.game.move_count == count + 1
        assert text_of(app, "#note") == ""

    run(app, script)


def test_hint_by_masters_search() -> None:
    app = ElferRausApp(choices("human", "greedy", "greedy"), seed=9, start=True)

    async def script(pilot: Pilot[None]) -> None:
        game = app.table.game

        def searched() -> bool:  # a real choice once the pile is empty: master searches
            return len(game.legal_moves()) >= 3 and not game.pile_size() and not can_empty_hand(game)

        while True:  # the person holds back while the pile lasts (d), so that it runs out before the end
            screen = await advance(pilot, app, lambda: searched() or DRAW in game.legal_moves(), "a real choice")
            if searched():
                break
            await pilot.press("d")
        hand = screen.query_one(HandView)
        screen.action_hint()  # what h and the Hint button do
        assert text_of(app, "#note") == "The master is thinking ..."
        await until(pilot, lambda: text_of(app, "#note").startswith("Hint:"), "the hint")
        note = text_of(app, "#note")
        found = re.fullmatch(
            r"Hint: ([RYGB]\d+|draw|end turn) — (.+) \(with this move you won \d+% of the games played out from here,"
            r" over \d+ ways the hidden cards may lie\)",
            note,
        )
        assert found, note
        word, why = found.group(1, 2)
        assert "%" not in why  # the reason in words; the win rate only after it
        legal = game.legal_moves()
        if word == "draw":
            assert DRAW in legal
        elif word == "end turn":
            assert PASS in legal
        else:
            assert Move.lay(word) in legal
            assert hand.selected == Card.parse(word)

    run(app, script)


def test_hint_is_only_for_the_persons_turn_and_space_skips_the_computers() -> None:
    app = ElferRausApp(choices("human", "greedy", "random"), seed=4, start=True)

    async def script(pilot: Pilot[None]) -> None:
        game = app.table.game
        screen = await advance(pilot, app, lambda: fresh_turn(app), "a turn with a choice after a lay")
        await select_card(pilot, screen.query_one(HandView), first_fitting(app))
        await pilot.press("enter")
        table_screen(app).pace = 30.0  # the computers take their time ...
        await pilot.press("e")
        count = game.move_count
        await pilot.pause()
        assert not screen.awaiting
        await pilot.press("h")  # ... and a hint is not for now
        await pilot.pause()
        assert text_of(app, "#note") == ""
        assert [n.message for n in app._notifications] == ["A hint is for your own turn."]
        assert game.move_count == count
        await pilot.press("space")  # skip ahead to your next turn
        await my_turn(pilot, app)
        assert game.move_count > count

    run(app, script)


def footer_words(app: ElferRausApp) -> list[str]:
    """The actions the footer offers now."""
    return [key.description for key in app.screen.query(FooterKey)]


def test_space_skips_the_computers_and_never_lays_a_card() -> None:
    app = ElferRausApp(choices("human", "greedy", "random"), seed=4, start=True)

    async def script(pilot: Pilot[None]) -> None:
        game = app.table.game
        screen = await advance(pilot, app, lambda: fresh_turn(app), "a turn with a choice after a lay")
        await pilot.pause()
        assert "lay" in footer_words(app)
        assert "skip" not in footer_words(app)
        await select_card(pilot, screen.query_one(HandView), first_fitting(app))
        await pilot.press("enter")
        table_screen(app).pace = 30.0  # the computers take their time ...
        await pilot.press("e")
        await pilot.pause()
        assert not screen.awaiting
        assert "skip" in footer_words(app)  # ... skipping them is an action of its own, shown while they play
        count = game.move_count
        await pilot.press("enter")  # a lay key before the person's turn lays nothing
        assert game.move_count == count
        await pilot.press("space")  # skip ahead to your next turn ...
        await my_turn(pilot, app)
        count, hand = game.move_count, list(game.hand(0))
        await pilot.press("space")  # ... a second Space, now on your turn, must not lay the selected card
        await pilot.pause()
        assert (game.move_count, game.turn, game.hand(0)) == (count, 0, hand)
        assert "skip" not in footer_words(app)

    run(app, script)


def footer_state(app: ElferRausApp) -> dict[str, bool]:
    """The footer's words, each with whether it is enabled (a disabled one is shown dimmed)."""
    return {key.description: not key.has_class("-disabled") for key in app.screen.query(FooterKey)}


def test_the_footer_follows_the_buttons_and_a_disabled_key_says_why() -> None:
    """Drawing, ending the turn and the hint are shown disabled exactly when their buttons are; their keys
    then say why instead of doing nothing."""
    app = ElferRausApp(choices("human", "greedy", "random"), seed=4, start=True)

    def drawn_fits() -> bool:  # a drawn card that fits: no further draw is allowed
        view = app.table.game.view(0)
        return bool(view.draws) and DRAW not in view.legal

    async def script(pilot: Pilot[None]) -> None:
        screen = await advance(pilot, app, drawn_fits, "a drawn card that fits")
        await pilot.pause()
        state = footer_state(app)
        buttons = {"draw": "#draw", "end turn": "#end", "hint": "#hint"}
        for word, button in buttons.items():
            assert state[word] is not screen.query_one(button, Button).disabled, word
        assert (state["draw"], state["end turn"], state["hint"]) == (False, True, True)
        count = app.table.game.move_count
        await pilot.press("d")  # refused, with the reason in the status line
        await pilot.pause()
        assert app.table.game.move_count == count
        assert status(app).has_class("error")
        assert "fits" in text_of(app, "#status")
        table_screen(app).pace = 30.0  # the computers take their time: the hint is for the person's own turn
        await pilot.press("e")
        await until(pilot, lambda: not screen.awaiting, "the computers' turn")
        await pilot.pause()
        state = footer_state(app)
        assert state["hint"] is False
        assert screen.query_one("#hint", Button).disabled
        assert "draw" not in state
        assert "end turn" not in state
        await pilot.press("h")
        await pilot.pause()
        assert [n.message for n in app._notifications][-1] == "A hint is for your own turn."

    run(app, script)


# -- undo -----------------------------------------------------------------------------------------------------------


def first_fitting(app: ElferRausApp) -> Card:
    """The first card of the hand that fits now."""
    return next(move.card for move in app.table.game.legal_moves() if move.card is not None)


def fresh_turn(app: ElferRausApp) -> bool:
    """The person has done nothing yet this turn and has an earlier turn to take back; laying the first card
    that fits leaves him a choice (no forced pass the table would make for him)."""
    game = app.table.game
    view = game.view(game.turn)
    if view.laid or view.draws or app.table.undo_target(game.turn) is None or not any(m.card for m in view.legal):
        return False
    trial = game.copy()
    trial.push(Move.lay(first_fitting(app)))
    return not trial.is_over() and trial.turn == game.turn and len(trial.legal_moves()) > 1


def expected_log(app: ElferRausApp) -> list[str]:
    """The move log of a lone person, from the game."""
    table = app.table
    return [
        cards_in_words(log_line(text, table.names, app.lang, you=0, show_draws=True), app.lang)
        for text in table.game.public_moves(0)
    ]


UNDONE_TWO = "Your last turn is taken back, and with it the 2 computer turns after it."
UNDONE_ONE_DE = "Dein letzter Zug ist zurückgenommen, und mit ihm der eine Computerzug danach."
UNDONE_ALONE = "Your last turn is taken back."


@pytest.mark.parametrize(
    ("levels", "lang", "pace", "seed", "note"),
    [
        (("human", "greedy", "random"), "en", 0.0, 9, UNDONE_TWO),
        (("human", "greedy"), "de", 0.0, 14, UNDONE_ONE_DE),
        (("human", "greedy", "random"), "en", 30.0, 4, UNDONE_ALONE),
    ],
    ids=["after-the-computers", "after-one-computer-de", "while-they-play"],
)
def test_undo_takes_back_the_last_turn(levels: tuple[str, ...], lang: Lang, pace: float, seed: int, note: str) -> None:
    app = ElferRausApp(choices(*levels), lang=lang, seed=seed, start=True)

    async def script(pilot: Pilot[None]) -> None:
        game = app.table.game
        screen = await advance(pilot, app, lambda: fresh_turn(app), "a turn to take back")
        start, position = game.move_count, format_position(game)
        await select_card(pilot, screen.query_one(HandView), first_fitting(app))
        await pilot.press("enter")  # lay a card that fits ...
        assert game.move_count == start + 1
        table_screen(app).pace = pace
        await pilot.press("e")  # ... and end the turn
        assert game.record_moves()[start + 1] == "0 pass"
        if pace:
            assert not screen.awaiting  # the computers take their time: undo while they play
        else:
            await my_turn(pilot, app)
            assert game.move_count > start + 2
            assert app.table.undo_target(0) == start, (
                "choose a seed without a forced turn of the person's, nor a draw, in between"
            )
        await pilot.press("u")
        await my_turn(pilot, app)
        assert game.move_count == start
        assert format_position(game) == position
        assert text_of(app, "#note") == note  # what was taken back, in words, never a count of actions
        await pilot.pause()
        assert log_lines(app) == expected_log(app)  # rebuilt from the game

    run(app, script)


def test_undo_with_nothing_to_take_back_is_shown_disabled_and_says_so() -> None:
    app = ElferRausApp(choices("human", "greedy", "random"), seed=5, start=True)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)  # the first turn: nothing of the person's to take back yet
        await pilot.pause()
        assert app.table.undo_target(0) is None
        assert screen.query_one("#undo", Button).disabled
        assert footer_state(app)["undo"] is False
        count = app.table.game.move_count
        await pilot.press("u")
        await pilot.pause()
        assert app.table.game.move_count == count
        assert [n.message for n in app._notifications] == ["There is no turn of yours to take back."]

    run(app, script)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_undo_never_shows_the_pile(lang: Lang) -> None:
    """Draw (a card that fits: the turn goes on), then "u": the card drawn stays drawn, so the next draw shows a card
    nobody has seen, and the person is told why."""
    table = table_at("R10-12", "R13Y3Y5G2G4B3B6R1R3", "Y11G11B11Y12Y10", "R9G20Y1")
    app = ElferRausApp(choices("human", "greedy"), table=table, lang=lang)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        game = table.game
        await pilot.press("z" if lang == "de" else "d")
        await until(pilot, lambda: awaiting(app), "the choice after the draw")
        assert game.record_moves() == ["0 draw R9"]
        pile = game.pile()
        await pilot.pause()
        assert screen.query_one("#undo", Button).disabled
        await pilot.press("u")
        await pilot.pause()
        assert game.record_moves() == ["0 draw R9"]
        assert game.pile() == pile
        assert [n.message for n in app._notifications] == [tr("undo_drawn", lang)]

    run(app, script)


def test_undo_is_refused_with_two_people() -> None:
    table = Table(TableSetup((Seat("Anna"), Seat("Computer 2", "greedy"), Seat("Ben")), seed=7))
    game, rng = table.game, random.Random(7)
    while not (game.move_count > 12 and table.person_to_move() and len(game.legal_moves()) > 1):
        game.push(rng.choice(game.legal_moves()) if table.is_person(game.turn) else table.think())
    app = ElferRausApp(choices("human", "greedy", "human"), table=table)

    async def script(pilot: Pilot[None]) -> None:
        handoff = await hand_over(pilot, app)  # two people: the table starts covered
        assert handoff.person == table.names[game.turn]
        screen = await my_turn(pilot, app)
        count = game.move_count
        await pilot.pause()
        # never offered at this table: no button, no footer key (an action offered would then be refused)
        assert not screen.query_one("#undo", Button).display
        assert not [key for key in app.screen.query(FooterKey) if key.action in ("undo", "press")]
        await pilot.press("u")  # the key still says why
        await pilot.pause()
        assert game.move_count == count
        assert [n.message for n in app._notifications] == ["Taking back is only for games against computers."]

    run(app, script)


# -- illegal actions ------------------------------------------------------------------------------------------------


def why_not(app: ElferRausApp, move: Move) -> str:
    """The explanation the engine gives for ``move`` now, in the app's language, as the status line begins it."""
    trial = app.table.game.copy()
    with pytest.raises(IllegalMoveError) as error:
        trial.push(move)
    return sentence(explain(error.value.reason, error.value.details, app.lang))


def test_illegal_actions_are_explained_and_change_nothing() -> None:
    app = ElferRausApp(choices("human", "greedy", "greedy"), seed=11, start=True)

    async def script(pilot: Pilot[None]) -> None:
        game = app.table.game

        def ready() -> bool:
            view = game.view(0)
            fitting = {move.card for move in view.legal if move.card is not None}
            return bool(fitting) and DRAW in view.legal and len(view.hand) > len(fitting) + 1

        screen = await advance(pilot, app, ready, "a turn with a card that does not fit")
        hand = screen.query_one(HandView)
        # enter on a card that does not fit
        wrong = next(card for card in hand.cards if card not in hand.fitting)
        expected = why_not(app, Move.lay(wrong))
        count, position = game.move_count, format_position(game)
        await select_card(pilot, hand, wrong)
        await pilot.press("enter")
        await pilot.pause()
        assert str(status(app).content) == expected
        assert status(app).has_class("error")
        assert (game.move_count, format_position(game)) == (count, position)
        assert awaiting(app)
        # lay a card that fits, then try to draw
        await pilot.press("down")  # the next card that fits
        assert hand.selected in hand.fitting
        await pilot.press("enter")
        assert game.move_count == count + 1
        assert game.turn == 0
        assert not status(app).has_class("error")
        expected = why_not(app, DRAW)
        assert screen.query_one("#draw", Button).disabled
        await pilot.press("d")
        await pilot.pause()
        assert str(status(app).content) == expected
        assert status(app).has_class("error")
        assert game.move_count == count + 1
        await pilot.press("e")
        assert game.record_moves()[count + 1] == "0 pass"

    run(app, script)


# -- save and resume ------------------------------------------------------------------------------------------------


def test_save_quit_and_resume_at_the_same_position(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    app = ElferRausApp(choices("human", "greedy", "random"), seed=15, start=True, save_path=str(path))
    saved: dict[str, object] = {}

    async def first(pilot: Pilot[None]) -> None:
        screen = await advance(pilot, app, lambda: fresh_turn(app), "a turn with a choice after a lay")
        await select_card(pilot, screen.query_one(HandView), first_fitting(app))
        await pilot.press("enter")  # the turn is under way when saving
        assert awaiting(app)
        saved["position"] = format_position(app.table.game)
        saved["moves"] = app.table.game.record_moves()
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("enter")  # the save dialog offers the game's own file
        await pilot.pause()
        assert path.exists()
        assert [n.message for n in app._notifications][-1].endswith(str(path))
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("y")

    run(app, first)
    assert not app.is_running
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1

    table = load_saved(str(path))
    assert table.finished == []
    assert format_position(table.game) == saved["position"]
    resumed = ElferRausApp(choices("human", "medium"), table=table, save_path=str(path))

    async def second(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, resumed)
        assert resumed.table is table
        assert format_position(table.game) == saved["position"]  # the person is still to move
        assert screen.query_one(HandView).cards == tuple(table.game.hand(0))
        assert table.names == ["You", "Computer 2", "Computer 3"]
        assert [bot.name for bot in table.bots.values()] == ["greedy", "random"]
        count = table.game.move_count
        await act(pilot, resumed)
        assert table.game.move_count > count
        await pilot.press("s", "enter")  # saving again replaces the game's own file without asking
        await pilot.pause()

    run(resumed, second)
    again = load_saved(str(path))
    assert again.game.record_moves()[: len(saved["moves"])] == saved["moves"]
    assert again.game.move_count > len(saved["moves"])


def test_save_and_quit_button(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "saved.jsonl"
    app = ElferRausApp(choices("human", "greedy"), seed=2, start=True, save_path=str(path))

    async def script(pilot: Pilot[None]) -> None:
        await my_turn(pilot, app)
        await pilot.press("q")
        await pilot.pause()
        # the question names the game's own file in the command that continues it, and shows its own keys
        assert str(app.screen.query_one("#command", Static).content) == f"elferraus play --resume {path}"
        shown = {key: active.binding.description for key, active in app.screen.active_bindings.items()}
        assert {"y": "quit", "s": "save and quit", "escape": "cancel"}.items() <= shown.items()
        assert footer_words(app) == ["cancel", "quit", "save and quit"]
        await pilot.click("#save")
        await pilot.pause()
        await pilot.press("enter")  # the save dialog offers the game's own file

    run(app, script)
    assert not app.is_running
    table = load_saved(str(path))
    assert format_position(table.game) == format_position(app.table.game)
    # the last words in the shell (wrapped to its width): where the game is and the command that continues it
    words = " ".join(capsys.readouterr().err.split())
    assert words == f"Game saved to {path} It continues with: elferraus play --resume {path}"


RESUME_REFUSED = {
    "missing": (None, "there is no such file", "diese Datei gibt es nicht"),
    "empty": ("", "there is no game in it", "darin ist kein Spiel"),
    "blank": ("\n\n", "there is no game in it", "darin ist kein Spiel"),
    "cut-off": (
        '{"format": "elferraus/1"\n',
        "line 1 ends too early, at column 25: is it cut off?",
        "Zeile 1 endet zu früh, bei Spalte 25: ist sie abgeschnitten?",
    ),
    "not-json": ("{format}\n", "line 1 is not JSON at column 2", "Zeile 1 ist bei Spalte 2 kein JSON"),
    "not-an-object": (
        "[1, 2]\n",
        "line 1 is not a game record (a JSON object)",
        "Zeile 1 ist keine Spielaufzeichnung (ein JSON-Objekt)",
    ),
    "broken-record": ('{"format": "elferraus/1"}\n', "line 1: ", "das Spiel darin ist fehlerhaft: line 1: "),
}
"""A save file that cannot be resumed: its content (None: no file), and the reason in English and German."""


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("case", list(RESUME_REFUSED))
def test_resume_refuses_a_bad_file_in_the_players_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, lang: Lang
) -> None:
    content, english, german = RESUME_REFUSED[case]
    path = tmp_path / "saved.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    for plain in (False, True):  # the full game and the plain prompt say the same
        parser = build_parser()
        args = parser.parse_args(["play", "--resume", str(path), "--lang", lang, *(["--plain"] if plain else [])])
        assert (run_play if plain else run_tui)(args, parser) == 2
        out, err = capsys.readouterr()
        assert out == ""
        start = f"cannot resume {path}: " if lang == "en" else f"{path} lässt sich nicht fortsetzen: "
        reason = english if lang == "en" else german
        assert err.startswith(f"elferraus play: {start}{reason}"), err
        assert err.count("\n") == 1


def test_resume_a_finished_round_of_a_match(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    table = Table(TableSetup((Seat("You"), Seat("Computer 2", "greedy")), rounds=3, seed=5))
    game, rng = table.game, random.Random(5)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()) if table.is_person(game.turn) else table.think())
    path.write_text(json.dumps(table.record()) + "\n", encoding="utf-8")
    resumed = load_saved(str(path))
    assert len(resumed.finished) == 1
    assert resumed.match.scores == [game.penalties()]
    assert resumed.game.metadata["round"] == 2


# -- quitting -------------------------------------------------------------------------------------------------------


def test_quit_asks_first() -> None:
    app = ElferRausApp(choices("human", "greedy"), seed=3, start=True)

    async def script(pilot: Pilot[None]) -> None:
        await my_turn(pilot, app)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("n")
        await pilot.pause()
        assert awaiting(app)
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert awaiting(app)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.click("#cancel")
        await pilot.pause()
        assert app.is_running
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")

    run(app, script)
    assert not app.is_running
    assert app.return_code == 0


# -- layout ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "narrow"), [(SMALL, True), (LARGE, False)], ids=["80x24", "160x50"])
def test_the_table_lays_out_at_both_sizes(size: tuple[int, int], narrow: bool) -> None:
    app = ElferRausApp(choices("human", "greedy", "random", "greedy", "greedy", "random"), seed=2, start=True)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        await pilot.pause()
        assert screen.has_class("narrow") is narrow
        main = screen.query_one("#main").region
        log = screen.query_one("#log").region
        width, height = size
        if narrow:  # the log below the table
            assert log.y >= main.bottom
            assert log.width == width
        else:  # beside it
            assert log.x >= main.right
            assert log.y == main.y
        for selector in ("#title", "#opponents", "#rows", "#status", "#hand", "#actions", "#log"):
            region = screen.query_one(selector).region
            assert region.width > 0, selector
            assert region.right <= width, selector
            assert region.bottom <= height, selector
        assert screen.query_one("#opponents").region.height == 5
        footer = {
            key: active.binding.description for key, active in screen.active_bindings.items() if active.binding.show
        }
        assert (footer["d"], footer["e"], footer["h"], footer["q"]) == ("draw", "end turn", "hint", "quit")
        assert "z" not in footer
        await act(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)

    run(app, script, size)


def focus_cue(widget: Widget) -> tuple[object, ...]:
    """What shows a widget's focus: its (or, for a Select, its current value's) colours, style, border, outline."""
    shown = widget.query_one(SelectCurrent) if isinstance(widget, Select) else widget
    style = shown.rich_style
    return (style.bgcolor, style.reverse, style.bold, shown.styles.border, shown.styles.outline)


def plainly_different(unfocused: tuple[object, ...], focused: tuple[object, ...]) -> bool:
    """A clear change: another border or outline, reversed or bold text, or a background far from the old one."""
    if unfocused[1:] != focused[1:]:
        return True
    before, after = (Tone.from_rich_color(colour) for colour in (unfocused[0], focused[0]))  # type: ignore[arg-type]
    return max(abs(before.r - after.r), abs(before.g - after.g), abs(before.b - after.b)) >= 48


async def check_focus_shows(pilot: Pilot[None], screen: Screen[object]) -> int:
    """Every widget Tab can reach on ``screen`` looks plainly different when focused; returns how many there are."""
    chain = list(screen.focus_chain)
    for widget in chain:
        for _ in range(100):  # a screen that has just come up may still give its first widget the focus once
            screen.set_focus(None)
            await pilot.pause()
            if not widget.has_pseudo_class("focus"):
                break
        assert not widget.has_pseudo_class("focus"), f"{widget!r} keeps the focus"
        unfocused = focus_cue(widget)
        screen.set_focus(widget)
        await pilot.pause()
        await until(pilot, lambda w=widget: w.has_pseudo_class("focus"), f"{widget!r} to take the focus")
        assert plainly_different(unfocused, focus_cue(widget)), f"focus on {widget!r} is hard to see"
    return len(chain)


def test_focus_is_plain_to_see_on_every_screen() -> None:
    app = ElferRausApp(choices("human", "greedy", "human"), seed=7)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the new-game screen")
        assert await check_focus_shows(pilot, app.screen) >= 10  # the Selects, the names, the buttons
        app.choices = choices("human", "greedy", "human")
        app.start_table(app.choices)
        await until(pilot, lambda: isinstance(app.screen, HandoffScreen), "the hand-over")
        await until(pilot, lambda: app.screen.focused is not None, "the hand-over's own focus")  # mounted and focused
        assert await check_focus_shows(pilot, app.screen) >= 1
        screen = await advance(pilot, app, lambda: True, "a person's turn")
        assert await check_focus_shows(pilot, screen) >= 2  # the hand, the log, the buttons that are enabled
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await check_focus_shows(pilot, app.screen)
        await pilot.press("escape")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, QuitScreen), "the question")
        assert await check_focus_shows(pilot, app.screen) >= 3
        await pilot.press("escape")
        finished = finished_table((None, "greedy"), seed=3)
        finished.finish_round()
        app.push_screen(ResultScreen(finished, "en"))
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
        await pilot.pause()
        assert await check_focus_shows(pilot, app.screen) >= 4

    run(app, script)


def test_the_log_moves_when_the_terminal_grows() -> None:
    app = ElferRausApp(choices("human", "greedy"), seed=2, start=True)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        assert screen.has_class("narrow")
        await pilot.resize_terminal(*LARGE)
        await pilot.pause()
        assert not screen.has_class("narrow")
        assert screen.query_one("#log").region.x >= screen.query_one("#main").region.right
        await pilot.resize_terminal(111, 40)
        await pilot.pause()
        assert screen.has_class("narrow")
        await pilot.resize_terminal(112, 40)
        await pilot.pause()
        assert not screen.has_class("narrow")

    run(app, script)


# -- German ---------------------------------------------------------------------------------------------------------


def test_the_table_speaks_german() -> None:
    app = ElferRausApp(choices("human", "greedy", "random"), lang="de", seed=5, start=True)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        labels = [str(button.label) for button in screen.query(Button)]
        assert labels == ["Ziehen (z)", "Zug beenden (b)", "Tipp (h)", "Zurück (u)"]
        assert str(status(app).content).startswith("Du bist dran")
        footer = {
            key: active.binding.description for key, active in screen.active_bindings.items() if active.binding.show
        }
        assert footer["enter"] == "anlegen"
        assert footer["z"] == "ziehen"  # German players see the German keys
        assert footer["b"] == "Zug beenden"
        assert "d" not in footer
        assert "e" not in footer
        assert (footer["h"], footer["u"], footer["q"]) == ("Tipp", "zurück", "beenden")
        assert app.table.names == ["Du", "Computer 2", "Computer 3"]
        await act(pilot, app)
        await pilot.pause()
        assert log_lines(app) == expected_log(app)
        assert log_lines(app)[-1].startswith("Du ")
        await pilot.press("q")
        await pilot.pause()
        quit_screen = app.screen
        assert isinstance(quit_screen, QuitScreen)
        assert [str(b.label) for b in quit_screen.query(Button)] == ["Beenden", "Speichern und beenden", "Abbrechen"]
        await pilot.press("j")  # ja

    run(app, script)
    assert not app.is_running


@pytest.mark.parametrize(("rounds", "lines"), [(1, 1), (2, 2)])
def test_the_winner_line_speaks_of_a_match_only_in_a_match(rounds: int, lines: int) -> None:
    table = finished_table((None, "greedy"), seed=5, rounds=rounds)
    table.finish_round()
    while not table.match.is_over():
        table.next_round()
        game = table.game
        while not game.is_over():
            game.push(game.legal_moves()[0] if table.is_person(game.turn) else table.think())
        table.finish_round()
    assert len(winner_line(table, "en").splitlines()) == lines


@pytest.mark.parametrize(
    ("rounds", "lang", "title"),
    [
        (1, "en", "Elfer raus! · The game is over"),
        (1, "de", "Elfer raus! · Das Spiel ist vorbei"),
        (3, "en", "Elfer raus! · Round 1 is over"),
        (3, "de", "Elfer raus! · Runde 1 ist vorbei"),
    ],
)
def test_the_result_speaks_of_a_round_only_in_a_match(rounds: int, lang: Lang, title: str) -> None:
    table = finished_table((None, "greedy"), seed=3, rounds=rounds)
    app = ElferRausApp(choices("human", "greedy"), lang=lang, table=table)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), "the result")
        await pilot.pause()
        assert str(app.screen.query_one("#title", Static).content) == title

    run(app, script)


@pytest.mark.parametrize(("lang", "option", "faster"), [("de", "0,6 s pro Zug", "0,4"), ("en", "0.6 s a move", "0.4")])
def test_paces_are_written_as_the_reader_writes_numbers(lang: Lang, option: str, faster: str) -> None:
    app = ElferRausApp(SetupChoices(players=2, pace=0.6, levels=["human"] + ["greedy"] * 5), lang=lang, seed=3)

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the new-game screen")
        await pilot.pause()
        pace = app.screen.query_one("#pace", Select)
        assert option in [str(prompt) for prompt, _value in pace._options]
        assert str(pace.query_one(SelectCurrent).query_one("#label", Static).content) == option
        app.start_table(app.choices)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        table_screen(app).action_pace(-1)  # what "-" does
        await pilot.pause()
        assert [n.message for n in app._notifications][-1].split()[-4] == faster

    run(app, script)


def test_ctrl_q_asks_before_quitting() -> None:
    app = ElferRausApp(choices("human", "greedy"), seed=9, start=True)

    async def script(pilot: Pilot[None]) -> None:
        await my_turn(pilot, app)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, QuitScreen), "the quit question")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")

    run(app, script)


def test_a_click_on_a_card_lays_it() -> None:
    app = ElferRausApp(choices("human", "greedy", "random"), seed=5, start=True)

    async def script(pilot: Pilot[None]) -> None:
        for _ in range(40):
            await my_turn(pilot, app)
            screen = app.screen
            assert isinstance(screen, TableScreen)
            hand = screen.query_one("#hand", HandView)
            fitting = [card for card in hand.cards if card in hand.fitting]
            if fitting:
                break
            await pilot.press("d" if DRAW in app.table.game.legal_moves() else "e")
        else:
            raise AssertionError("no card fitted in 40 turns")
        card = fitting[-1]
        cell = next(cell for cell in hand.layout_cells(hand.content_size.width) if cell.card == card)
        before = app.table.game.move_count
        # The hand has one column of padding on the left.
        await pilot.click("#hand", offset=(cell.column + 1, cell.line))
        await until(pilot, lambda: app.table.game.move_count > before, "the lay")
        assert app.table.game.history()[before][1] == Move.lay(card)

    run(app, script)


@pytest.mark.parametrize("row", [None, (11, 11), (10, 12), (1, 20), (4, 13)], ids=str)
def test_the_rows_read_as_the_text_front_ends_write_them(row: tuple[int, int] | None) -> None:
    rows = {} if row is None else {Color.RED: row}
    header, line = row_lines(rows, "R", "en")
    assert header_content().plain == header
    assert row_content("R", row, "en").plain == line


# -- moves made for the person --------------------------------------------------------------------------------------


MADE_FOR_YOU = {
    "a key draws, the table draws on": (
        {"rows": "R10-12", "hand": "R13Y3Y5G2G4B3B6R1R3", "others": "R9Y11G11B11Y12Y10", "pile_top": "G20Y1B1"},
        True,
        {
            "en": [
                "You draw G20 …",
                "G20 does not fit: you draw Y1 (2 of 3)",
                "Y1 does not fit: you draw B1 (3 of 3)",
                "B1 does not fit, and you may draw no more: your turn ends",
            ],
            "de": [
                "Du ziehst Gr20 …",
                "Gr20 passt nicht: du ziehst Ge1 (2 von 3)",
                "Ge1 passt nicht: du ziehst B1 (3 von 3)",
                "B1 passt nicht, und du darfst nicht mehr ziehen: dein Zug endet",
            ],
        },
    ),
    "nothing fits": (
        {"rows": "R10-12", "hand": "R8Y3Y5G2G4B3B6R1R3", "others": "R9Y11G11B11Y12Y10", "pile_top": "G20Y1B1"},
        False,
        {
            "en": [
                "Your turn: nothing fits …",
                "Nothing fits: you draw G20",
                "G20 does not fit: you draw Y1 (2 of 3)",
                "Y1 does not fit: you draw B1 (3 of 3)",
                "B1 does not fit, and you may draw no more: your turn ends",
            ],
            "de": [
                "Du bist dran: nichts passt …",
                "Nichts passt: du ziehst Gr20",
                "Gr20 passt nicht: du ziehst Ge1 (2 von 3)",
                "Ge1 passt nicht: du ziehst B1 (3 von 3)",
                "B1 passt nicht, und du darfst nicht mehr ziehen: dein Zug endet",
            ],
        },
    ),
}
"""Hand-dealt positions where you (seat 0) draw G20, Y1 and B1, none of which fits: whether you draw the
first card yourself (with one key), and the status lines shown meanwhile, in order."""


class HeldPauses:
    """The table screen's pauses, each held until the test lets it end: what the screen shows during one is
    read without a race against the clock (a loaded machine may take longer than any pace to answer a key)."""

    def __init__(self) -> None:
        self.waiting = False
        self.taken = 0
        self._go = asyncio.Event()

    async def pause(self, screen: TableScreen, seconds: float) -> None:
        if seconds <= 0 or screen._skip.is_set():
            return
        self.waiting = True
        try:
            await self._go.wait()
        finally:
            self._go.clear()
            self.waiting = False
            self.taken += 1

    async def next(self, pilot: Pilot[None], app: ElferRausApp) -> None:
        """End the pause the screen is in, and wait until it is in the next one or waits for the person."""
        taken = self.taken
        self._go.set()
        await until(pilot, lambda: self.taken > taken and (self.waiting or awaiting(app)), "the next pause")


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("scenario", list(MADE_FOR_YOU))
def test_moves_made_for_the_person_are_shown_one_by_one_and_take_no_key(
    scenario: str, lang: Lang, monkeypatch: pytest.MonkeyPatch
) -> None:
    position, by_key, lines = MADE_FOR_YOU[scenario]
    shown: list[str] = []  # every status line of a move made for the person, as it is set
    set_status = TableScreen._set_status

    def recording(screen: TableScreen, text: str, *, error: bool = False, made: bool = False) -> None:
        text = sentence(cards_in_words(text, lang))  # as the status line shows it
        if made and (not shown or shown[-1] != text):
            shown.append(text)
        set_status(screen, text, error=error, made=made)

    held = HeldPauses()

    async def holding(screen: TableScreen, seconds: float) -> None:
        await held.pause(screen, seconds)

    monkeypatch.setattr(TableScreen, "_set_status", recording)
    monkeypatch.setattr(TableScreen, "_pause", holding)
    table = table_at(**position)
    kept = list(table.game.hand(0))
    app = ElferRausApp(choices("human", "greedy", pace=1.0), lang=lang, table=table)
    draw_key = "z" if lang == "de" else "d"
    your_turn_words = "Your turn: lay a card" if lang == "en" else "Du bist dran: lege an"

    async def script(pilot: Pilot[None]) -> None:
        game = table.game
        if by_key:
            await my_turn(pilot, app)
            assert str(status(app).content).startswith(your_turn_words)
            await pilot.press(draw_key)  # one key, one card: the next one waits for a pause
            await until(pilot, lambda: held.waiting, "the pause after the drawn card")
            assert game.record_moves() == ["0 draw G20"]
            assert str(status(app).content) == lines[lang][0]
        else:
            await until(pilot, lambda: held.waiting, "the first pause")
        seen: list[str] = []
        pressed = False
        while held.waiting:  # each move the table makes for you, and the end of your turn, shown for a pause
            text = str(status(app).content)
            seen.append(text)
            assert status(app).has_class("auto"), text
            assert not text.startswith(your_turn_words), text
            assert not awaiting(app)
            if game.move_count == 2:
                await pilot.press(draw_key, "enter", "e", "b", "h")  # pressed during a pause: never acted on
                pressed = True
            if text == lines[lang][-1]:  # the end of the turn, said while it is still his, for a pause of its own
                assert game.turn == 0
                break
            await held.next(pilot, app)
        assert [line for line in shown if line in lines[lang]] == lines[lang], shown
        assert set(seen) <= set(shown), (seen, shown)
        assert seen[-1] == lines[lang][-1]
        table_screen(app).pace = 0.0
        await held.next(pilot, app)
        assert game.record_moves()[:4] == ["0 draw G20", "0 draw Y1", "0 draw B1", "0 pass"]
        await pilot.press("space")
        await my_turn(pilot, app)  # the computer played, and you have a choice again
        assert [text for text in game.record_moves()[4:] if text.startswith("0 ")] == [], "a key acted later"
        assert game.hand(0) == sorted([*kept, *parse_cards("G20Y1B1")], key=lambda card: card.index)
        assert pressed

    run(app, script)


# -- the look -------------------------------------------------------------------------------------------------------


def test_the_game_wears_its_own_theme_and_16_colours_keep_the_colours_apart() -> None:
    app = ElferRausApp(choices("human", "greedy"), seed=2, start=True)

    async def script(pilot: Pilot[None]) -> None:
        await my_turn(pilot, app)
        assert app.theme == THEME.name
        assert app.current_theme.accent == FOCUS

    run(app, script)
    standard = {letter: RichColor.parse(tone).downgrade(ColorSystem.STANDARD).number for letter, tone in TONES.items()}
    assert standard == {"R": 9, "Y": 11, "G": 10, "B": 12}  # bright red, yellow, green, blue: one each
    assert RichColor.parse(FOCUS).downgrade(ColorSystem.STANDARD).number == 13  # focus is magenta, no card's colour


@pytest.mark.parametrize(
    ("lang", "notice"),
    [
        ("en", "The table needs at least 80x24 characters; this terminal is 70x20."),
        ("de", "Der Tisch braucht mindestens 80x24 Zeichen; dieses Terminal hat 70x20."),
    ],
)
def test_a_small_terminal_shows_a_notice_until_it_grows(lang: Lang, notice: str) -> None:
    app = ElferRausApp(choices("human", "greedy"), lang=lang, seed=2, start=True)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        await pilot.resize_terminal(70, 20)
        await pilot.pause()
        assert screen.too_small
        assert not screen.query_one("#body").display
        assert str(screen.query_one("#too-small", Static).content).splitlines()[0] == notice
        count = app.table.game.move_count
        await pilot.press("enter", "d", "z")  # nothing is played on a table nobody sees
        await pilot.pause()
        assert app.table.game.move_count == count
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not screen.too_small
        assert screen.query_one("#body").display
        assert not screen.query_one("#too-small").display
        for selector in ("#rows", "#hand", "#status"):
            assert screen.query_one(selector).region.right <= 80

    run(app, script, (80, 24))


@pytest.mark.parametrize("size", [(100, 30), (160, 50)], ids=["100x30", "160x50"])
def test_the_table_is_centred_on_a_larger_terminal(size: tuple[int, int]) -> None:
    app = ElferRausApp(choices("human", "greedy", "random"), seed=5, start=True)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        await pilot.pause()
        body = screen.query_one("#body").region
        width, height = size
        assert abs(body.x - (width - body.right)) <= 1  # as much room on the left as on the right
        assert abs(body.y - (height - 1 - body.bottom)) <= 1  # and above as below (the footer aside)
        assert body.x > 0

    run(app, script, size)


# -- what the footer, the status line and the dialogs say while others play ------------------------------------------


def footer_keys(app: ElferRausApp) -> list[tuple[str, str]]:
    """The footer's keys as shown: (key, word)."""
    return [(key.key_display, key.description) for key in app.screen.query(FooterKey)]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_footers_enter_says_what_enter_does_on_the_focused_control(lang: Lang) -> None:
    """Tab to a button: the footer's ⏎ names that button's action (never "lay"), and Enter does exactly that."""
    table = table_at("R10-12", "R13Y3Y5G2G4B3B6R1R3", "R9Y11G11B11Y12Y10", "G20Y1B1")
    app = ElferRausApp(choices("human", "greedy"), table=table, lang=lang)
    lay, draw = tr("key_lay", lang), tr("key_draw", lang)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        await pilot.pause()
        assert ("⏎", lay) in footer_keys(app)
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is screen.query_one("#draw", Button)
        assert [word for key, word in footer_keys(app) if key == "⏎"] == [draw]
        await pilot.press("shift+tab")
        await pilot.pause()
        assert isinstance(app.focused, HandView)
        assert [word for key, word in footer_keys(app) if key == "⏎"] == [lay]
        await pilot.press("tab", "enter")
        await until(pilot, lambda: table.game.move_count > 0, "the draw")
        assert table.game.record_moves()[0] == "0 draw G20"

    run(app, script)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_line_of_the_persons_turn_stays_while_a_computer_plays(lang: Lang, monkeypatch: pytest.MonkeyPatch) -> None:
    """The line that says why the person's turn ends is shown while it is still his turn; once a computer is to
    move, the status line speaks of that computer and the note is empty."""
    held = HeldPauses()

    async def holding(screen: TableScreen, seconds: float) -> None:
        await held.pause(screen, seconds)

    monkeypatch.setattr(TableScreen, "_pause", holding)
    table = table_at("R10-12", "R8Y3Y5G2G4B3B6R1R3", "R9Y11G11B11Y12Y10", "G20Y1B1")  # nothing fits: all made for you
    app = ElferRausApp(choices("human", "greedy", pace=1.0), lang=lang, table=table)
    ends = tr("made_pass_draws", lang, drawn="B1")

    async def script(pilot: Pilot[None]) -> None:
        game = table.game
        await until(pilot, lambda: held.waiting, "the first pause")
        shown: list[str] = []
        while held.waiting and len(shown) < 12:
            text = str(status(app).content)
            shown.append(text)
            if game.turn != 0 and not game.is_over():
                assert not status(app).has_class("auto"), text
                assert table.names[game.turn] in text, text
                assert text_of(app, "#note") == ""
            await held.next(pilot, app)
        assert ends in shown  # said, while it was still his turn
        assert game.record_moves()[:4] == ["0 draw G20", "0 draw Y1", "0 draw B1", "0 pass"]

    run(app, script)


@pytest.mark.parametrize("key", ["question_mark", "s", "q"], ids=["help", "save", "quit"])
def test_the_computers_wait_while_a_dialog_is_open(key: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Help, save or quit opened during the computers' turns: no move is made behind it; closed, play goes on."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    held = HeldPauses()

    async def holding(screen: TableScreen, seconds: float) -> None:
        await held.pause(screen, seconds)

    monkeypatch.setattr(TableScreen, "_pause", holding)
    table = table_at("R10-12", "R13Y3Y5G2G4B3B6R1R3", "R9Y11G11B11Y12Y10", "G20Y1B1")
    app = ElferRausApp(choices("human", "greedy", pace=1.0), table=table)

    async def script(pilot: Pilot[None]) -> None:
        game = table.game
        await my_turn(pilot, app)
        await pilot.press("enter")  # R13; the end of the turn is made for you, then the computer plays
        for _ in range(5):
            await until(pilot, lambda: held.waiting, "a pause")
            if game.turn == 1:
                break
            await held.next(pilot, app)
        assert held.waiting
        assert game.turn == 1
        await pilot.press(key)
        await until(pilot, lambda: app.screen is not table_screen(app), "the dialog")
        dialog = app.screen
        count = game.move_count
        held._go.set()  # the pause ends: still no move behind the dialog
        await until(pilot, lambda: table_screen(app).waiting_for_dialog or game.move_count > count, "the driver")
        assert game.move_count == count
        assert app.screen is dialog
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is table_screen(app), "the dialog to close")
        await until(pilot, lambda: game.move_count > count, "the computer's move")

    run(app, script, size=(120, 36))


def test_german_cards_use_german_colour_letters_everywhere_on_the_table() -> None:
    """In German a card reads R, Ge, Gr or B and its number (G would read as Gelb): in the rows, the hand, the
    status line, the other players' lines, the log and the help; the symbols stay as the colour-free cue."""
    app = ElferRausApp(choices("human", "greedy", "greedy"), lang="de", seed=3, start=True)
    notation = re.compile(r"(?<![A-Za-z0-9])[YG]\d")  # a yellow or green card in the record's letters

    async def script(pilot: Pilot[None]) -> None:
        table = app.table
        screen = await advance(
            pilot, app, lambda: len(table.game.rows()) >= 3 and table.game.move_count > 8, "three rows open"
        )
        await pilot.pause()
        texts = {
            "status": text_of(app, "#status"),
            "log": "\n".join(log_lines(app)),
            "hand": str(screen.query_one(HandView).render()),
            "rows": str(screen.query_one("#rows").render()),
            "others": str(screen.query_one("#opponents").render()),
        }
        for where, text in texts.items():
            assert not notation.search(text), (where, text)
        assert re.search(r"(?<![A-Za-z])(Ge|Gr)\d", texts["hand"] + texts["log"])
        assert "▲ Ge" in texts["rows"] or "■ Gr" in texts["rows"]
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        help_text = "\n".join(str(widget.render()) for widget in app.screen.query(Static))
        assert "Ge ▲ Gelb" in help_text
        assert "Gr ■ Grün" in help_text

    run(app, script)
