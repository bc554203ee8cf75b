"""The terminal game as a card table: the others' fans, the felt and the pile, the hand as chips, and the motion of
a deal, a lay and a draw (the end of a round: ``test_celebration.py``).

Every test of the suite runs without motion (``tests/conftest.py``); the tests of the motion here turn it on for
their app and wait for it, boundedly, never for a time of their own (``brief`` makes its moments short).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from textual.content import Content
from textual.pilot import Pilot

from elferraus.cards import Card
from elferraus.i18n import Lang
from elferraus.tui import table_screen
from elferraus.tui.app import ElferRausApp
from elferraus.tui.setup_screen import SetupChoices
from elferraus.tui.table_screen import TableScreen
from elferraus.tui.theme import CARD_BACK, CHIP, FELT, FELT_RIM, FOCUS, INK, TONES
from elferraus.tui.widgets import (
    FAN_BACK,
    FAN_MAX,
    STACK,
    HandView,
    OpponentsView,
    RowsView,
    SeatLine,
    opponents_content,
    pile_content,
)
from tests.support.tui_helpers import run, table_at, until


@pytest.fixture
def brief(monkeypatch: pytest.MonkeyPatch) -> None:
    """The moments of the motion made short: a test waits for a flash or a mark to end, not for long."""
    monkeypatch.setattr(table_screen, "FLASH_SECONDS", 0.3)
    monkeypatch.setattr(table_screen, "NEW_SECONDS", 0.5)


def choices(*levels: str, pace: float = 0.0) -> SetupChoices:
    return SetupChoices(players=len(levels), pace=pace, levels=[*levels] + ["greedy"] * (6 - len(levels)))


async def watch(act: Awaitable[None], look: Callable[[], object], limit: float = 10.0) -> list[object]:
    """What ``look()`` gives while ``act`` runs and after, each time it changes, until it is as before again (a moment
    passed). The moment's length is the app's; the test only watches it (boundedly)."""
    rest = look()
    seen = [rest]
    acting = asyncio.ensure_future(act)
    deadline = time.monotonic() + limit
    while len(seen) < 2 or seen[-1] != rest:
        if time.monotonic() > deadline:
            raise AssertionError(f"the moment never passed: {seen}")
        await asyncio.sleep(0.005)
        now = look()
        if now != seen[-1]:
            seen.append(now)
    await acting
    return seen


async def my_turn(pilot: Pilot[None], app: ElferRausApp) -> TableScreen:
    await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.awaiting, "the person's turn")
    screen = app.screen
    assert isinstance(screen, TableScreen)
    await pilot.pause()
    return screen


def r13_app(lang: Lang = "en", pace: float = 0.0) -> ElferRausApp:
    """You to move against a greedy computer, red 10-12 laid: R13 fits, nothing else; G20, Y1, B1 top the pile."""
    table = table_at(
        "R10-12", "R13Y3Y5G2G4B3B6R1R3", "R9Y11G11B11Y12Y10", "G20Y1B1", you="Du" if lang == "de" else "You"
    )
    return ElferRausApp(choices("human", "greedy", pace=pace), lang=lang, table=table)


def styled_runs(content: Content) -> list[tuple[str, str]]:
    """Each styled piece of ``content``: its text and its style (as written)."""
    return [(content.plain[span.start : span.end], str(span.style)) for span in content.spans]


def style_at(content: Content, text: str) -> str:
    """The style of the piece of ``content`` that is exactly ``text`` (there must be one)."""
    styles = [style for piece, style in styled_runs(content) if piece == text]
    assert styles, (text, styled_runs(content))
    return styles[0]


# -- 1. the others ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "de"])
def test_each_other_player_shows_a_fan_of_his_cards_in_turn_order(lang: Lang) -> None:
    app = ElferRausApp(choices("human", "greedy", "random", "medium", "greedy"), lang=lang, seed=4, start=True)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        game = app.table.game
        lines = str(screen.query_one(OpponentsView).render()).splitlines()
        assert len(lines) == 4
        word = {"en": "cards", "de": "Karten"}[lang]
        starts = []
        for seat, line in zip(range(1, 5), lines, strict=True):
            count = len(game.hand(seat))
            fan = re.search(rf"(?<= )({FAN_BACK}+)(\+?) +(\d+) ", line)
            assert fan is not None, line
            assert len(fan.group(1)) == min(count, FAN_MAX)
            assert fan.group(2) == ("+" if count > FAN_MAX else "")
            assert int(fan.group(3)) == count
            assert f"{count} {word}" in line or count == 1
            assert line.startswith("  ")
            assert app.table.names[seat] in line
            starts.append(fan.start())
        assert len(set(starts)) == 1  # the fans stand in one column
        level = {"en": "(greedy)", "de": "(gierig)"}[lang]
        assert level in lines[0]

    run(app, script)


def test_the_player_to_move_is_marked_and_his_fan_is_in_the_accent() -> None:
    lines = [SeatLine("Ben", "greedy", 15, "drew 3", True), SeatLine("Carla", None, 3, "laid R12 G11", False)]
    shown = opponents_content(lines, "en")
    ben, carla = shown.plain.splitlines()
    assert ben == f"▶ Ben (greedy)  {FAN_BACK * FAN_MAX}+ 15 cards · drew 3"
    assert carla == f"  Carla{' ' * 9}{FAN_BACK * 3}{' ' * (FAN_MAX - 2)} 3 cards · laid R12 G11"  # in columns
    assert FOCUS in style_at(shown, FAN_BACK * FAN_MAX)  # the colour repeats what ▶ says
    assert CARD_BACK in style_at(shown, FAN_BACK * 3)
    assert "bold" in style_at(shown, "Ben")
    dealing = opponents_content(lines, "en", dealt=2).plain.splitlines()
    assert [line.count(FAN_BACK) for line in dealing] == [2, 2]  # the deal fills the fans
    assert "15 cards" in dealing[0]


# -- 2. the felt and the pile ----------------------------------------------------------------------------------------


def test_the_rows_lie_on_felt_and_the_pile_is_a_stack_with_its_count() -> None:
    app = r13_app(pace=600.0)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        rows = screen.query_one(RowsView)
        assert rows.styles.background.hex == FELT
        assert rows.styles.border_top[1].hex == FELT_RIM
        pile = app.table.game.pile_size()
        title = Content.from_markup(rows.border_title or "").plain
        assert title == f"{STACK[-1] * 2} pile: {pile} cards"  # the pile as the deal left it: full
        await pilot.press("d")  # G20 from the pile
        await until(pilot, lambda: app.table.game.pile_size() == pile - 1, "the draw")
        await pilot.pause()
        assert Content.from_markup(rows.border_title or "").plain.endswith(f"pile: {pile - 1} cards")

    run(app, script)


def test_the_pile_sinks_as_it_empties_and_the_felt_keeps_every_colour_readable() -> None:
    heights = [pile_content("pile", count, 40).plain[0] for count in (40, 30, 20, 10, 1)]
    assert heights == ["█", "▆", "▄", "▂", "▁"]
    assert pile_content("pile: empty", 0, 40).plain == "   pile: empty"
    assert CARD_BACK in str(pile_content("pile", 5, 40).spans[0].style)

    def luminance(tone: str) -> float:
        red, green, blue = (int(tone[i : i + 2], 16) / 255 for i in (1, 3, 5))
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    def contrast(one: str, other: str) -> float:
        light, dark = sorted((luminance(one), luminance(other)), reverse=True)
        return (light + 0.05) / (dark + 0.05)

    for tone in TONES.values():  # DESIGN: text on card (and on the felt, and a chip) at least 4.5 : 1
        assert contrast(tone, FELT) >= 4.5
        assert contrast(tone, CHIP) >= 4.5
        assert contrast(INK, tone) >= 4.5

    def standard(tone: str) -> int | None:
        return RichColor.parse(tone).downgrade(ColorSystem.STANDARD).number

    # on 16 colours the felt is black, its rim green, a chip black: the bright tones stay apart from all three
    assert (standard(FELT), standard(FELT_RIM), standard(CHIP)) == (0, 2, 0)


# -- 3. the hand as chips --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "fits", "others"), [("en", "R13", "Y3"), ("de", "R13", "Ge3")])
def test_the_hand_is_card_chips_and_only_what_fits_is_raised(lang: Lang, fits: str, others: str) -> None:
    app = r13_app(lang)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        hand = screen.query_one(HandView)
        rendered = hand.render()
        assert isinstance(rendered, Content)
        text = rendered.plain
        assert f"{fits}*" in text
        assert text.count("*") == 1
        assert " │ " in text  # the colours apart
        red = TONES["R"]
        assert style_at(rendered, f"{fits}*").startswith(f"bold {INK} on {red}")  # raised: ink on its tone
        assert style_at(rendered, others) == f"{TONES['Y']} on {CHIP}"  # the rest: its tone on a dark chip
        # the selection (on the card that fits) is framed in the accent on the blanks either side, and underlined
        assert hand.selected == Card.parse("R13")
        assert "underline" in style_at(rendered, f"{fits}*")
        start = text.index(f"{fits}*")
        around = [
            str(span.style)
            for span in rendered.spans
            if span.start in (start - 1, start + 4) and span.end - span.start == 1
        ]
        assert around == [f"on {FOCUS}", f"on {FOCUS}"]
        await pilot.press("right")  # the keys still move the selection, and Enter still lays
        assert hand.selected != Card.parse("R13")
        await pilot.press("up")
        assert hand.selected == Card.parse("R13")

    run(app, script)


# -- 4. motion -------------------------------------------------------------------------------------------------------


def shown_cards(hand: HandView) -> int:
    """How many of the hand's cards are drawn now."""
    return len(hand.cards) if hand.dealt is None else min(hand.dealt, len(hand.cards))


def test_without_motion_the_hand_is_there_at_once() -> None:
    app = ElferRausApp(choices("human", "greedy", "random", pace=600.0), seed=5, start=True)
    assert app.animation_level == "none"

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        screen = app.screen
        await pilot.pause()
        hand = screen.query_one(HandView)
        assert hand.dealt is None
        assert len(hand.cards) == len(app.table.game.hand(0))
        assert all(card.__str__() in str(hand.render()) for card in hand.cards)
        assert screen.query_one(OpponentsView).dealt is None

    run(app, script)


def test_with_motion_the_hand_is_dealt_card_by_card_and_the_fans_grow() -> None:
    app = ElferRausApp(choices("human", "greedy", "random", pace=600.0), seed=5, start=True)
    app.animation_level = "full"

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        screen = app.screen
        hand, others = screen.query_one(HandView), screen.query_one(OpponentsView)
        seen, fans = set(), set()
        deadline = time.monotonic() + 10
        while hand.dealt is not None or others.dealt is not None:
            assert time.monotonic() < deadline, "the deal never ended"
            seen.add(shown_cards(hand))
            fans.add(others.dealt)
            await pilot.pause(0.005)
        assert len(seen) >= 4
        assert min(seen) < len(hand.cards) / 2
        assert len([dealt for dealt in fans if dealt is not None]) >= 3
        assert shown_cards(hand) == len(app.table.game.hand(0))  # and ends with the whole hand

    run(app, script)


def test_a_key_during_the_deal_shows_the_whole_hand() -> None:
    app = ElferRausApp(choices("human", "greedy", "random", pace=600.0), seed=5, start=True)
    app.animation_level = "full"

    async def script(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        hand = app.screen.query_one(HandView)
        hand.deal(60.0)  # a deal that would last: a key does not wait for it
        await pilot.press("right")
        assert hand.dealt is None

    run(app, script)


@pytest.mark.usefixtures("brief")
@pytest.mark.parametrize(("lang", "tag"), [("en", "G20 new"), ("de", "Gr20 neu")])
def test_a_drawn_card_comes_from_the_pile_marked_new_for_a_moment(lang: Lang, tag: str) -> None:
    app = r13_app(lang, pace=600.0)  # G20 does not fit: the next draw, made for you, waits the long pause
    app.animation_level = "full"

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        hand, rows = screen.query_one(HandView), screen.query_one(RowsView)
        await until(pilot, lambda: hand.dealt is None, "the deal")
        key = "z" if lang == "de" else "d"
        seen = await watch(pilot.press(key), lambda: (hand.new_card, tag in str(hand.render()), rows.pile_flashing))
        assert (Card.parse("G20"), True, True) in seen  # it came from the pile, and it is new
        assert seen[-1] == (None, False, False)  # for a moment
        assert "G20" in str(hand.cards)

    run(app, script)


def test_without_motion_a_drawn_card_stays_marked_until_the_next_move() -> None:
    app = r13_app(pace=600.0)

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        hand, rows = screen.query_one(HandView), screen.query_one(RowsView)
        await pilot.press("d")  # G20 does not fit: the next draw is made for you, after the long pause
        await until(pilot, lambda: app.table.game.move_count == 1, "the draw")
        await pilot.pause()
        assert hand.new_card == Card.parse("G20")
        assert "G20 new" in str(hand.render())
        assert not rows.pile_flashing  # nothing flashes
        await pilot.press("space")  # skip the pause: the next draws are made, and the turn ends
        await until(pilot, lambda: app.table.game.move_count >= 2, "the next draw")
        await pilot.pause()
        assert hand.new_card != Card.parse("G20")  # the mark went with the next move
        assert "G20 new" not in str(hand.render())

    run(app, script)


@pytest.mark.usefixtures("brief")
def test_a_laid_card_stands_out_in_its_slot_for_a_moment() -> None:
    app = r13_app(pace=600.0)
    app.animation_level = "full"

    async def script(pilot: Pilot[None]) -> None:
        screen = await my_turn(pilot, app)
        rows = screen.query_one(RowsView)
        seen = await watch(pilot.press("enter"), lambda: (rows.flashing, f"on {FOCUS}" in str(rows.render().spans)))
        assert (Card.parse("R13"), True) in seen  # R13 laid, on the accent
        assert seen[-1] == (None, False)
        assert style_at(rows.render(), "13") == f"bold {TONES['R']} reverse"  # still the last card laid

    run(app, script)
