"""The card table in a real browser: the opponents with their fans of card backs, the pile drawn as a stack,
the drawn card coming from the pile, the deal, and the winner's celebration with the standings.

Positions are dealt by hand and sent to the real page by a WebSocket that Playwright answers in the server's
place (``look_helpers``); a second frame (the same game after a move) is sent when the test says so. What
moves is read from the page's calls of ``Element.animate`` (the keyframes and the element's box when it was
called), never from the clock.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from elferraus import read_position
from elferraus.cards import CARDS
from elferraus.game import Game
from tests.server.static import test_browser
from tests.server.static.test_browser import DESKTOP_EN, PHONE_DE, Device, Problems, Server, wait_until
from tests.server.static.test_browser_look import open_page
from tests.support.look_helpers import Feed, state_frame

server = test_browser.server
contexts = test_browser.contexts
problems = test_browser.problems

MAX_BACKS = 12
"""The most backs a seat's fan draws (table.js's MAX_BACKS)."""

# Seat 0 holds nothing that fits the one open row: he may only draw. The others hold 14, 3 and 1 cards.
ROWS = "R5-12"
HAND = ["Y2", "Y3", "G1"]
COUNTS = [14, 3, 1]

# Every call of Element.animate: the element (its test id, classes), its box then, the keyframes' transforms.
WATCH_ANIMATE = """
window.animated = [];
const realAnimate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  const box = this.getBoundingClientRect();
  window.animated.push({
    testid: this.dataset ? this.dataset.testid || null : null, cls: String(this.className),
    box: { x: box.left + box.width / 2, y: box.top + box.height / 2 },
    transforms: (Array.isArray(keyframes) ? keyframes : []).map((frame) => frame.transform || null),
    delay: (options && options.delay) || 0, duration: (options && options.duration) || 0,
  });
  return realAnimate.call(this, keyframes, options);
};
"""


def dealt(rows: str = ROWS, hand: list[str] = HAND, counts: list[int] = COUNTS) -> Game:
    """A 4-player game: ``rows`` laid, ``hand`` in seat 0's hand, ``counts`` cards in the others', the rest piled."""
    spans = [re.fullmatch(r"([RYGB])(\d+)-(\d+)", part) for part in rows.split(",")]
    on_table = {f"{m[1]}{n}" for m in spans if m for n in range(int(m[2]), int(m[3]) + 1)}
    rest = [str(card) for card in CARDS if str(card) not in on_table and str(card) not in hand]
    hands = [list(hand)]
    for count in counts:
        hands.append(rest[:count])
        rest = rest[count:]
    text = f"{rows} {'/'.join(''.join(cards) or '-' for cards in hands)} {''.join(rest)} 0 -:0:- RYGB:3:free:end"
    return read_position(text)


class Table:
    """The room page showing hand-dealt frames: the first on the page's ``hello``, the next by ``send``."""

    def __init__(self, page: Page, base: str, frame: dict[str, Any]) -> None:
        self.page = page
        self.feed = Feed(page, base, frame)

    def send(self, game: Game, **kwargs: Any) -> None:
        self.feed.send(state_frame(game, **kwargs))


def open_table(
    browser: Browser,
    contexts: list[BrowserContext],
    problems: Problems,
    server: Server,
    game: Game,
    device: Device = PHONE_DE,
    *,
    dark: bool = False,
    reduced: bool = False,
) -> Table:
    page = open_page(browser, contexts, device, problems, dark=dark)
    if reduced:
        page.emulate_media(reduced_motion="reduce")
    page.add_init_script(WATCH_ANIMATE)
    return Table(page, server.base, state_frame(game))


def center(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


# -- the opponents ----------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("device", [PHONE_DE, DESKTOP_EN], ids=lambda d: d.name)
def test_each_opponent_shows_a_fan_of_backs_as_many_as_its_cards_up_to_12(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, device: Device
) -> None:
    table = open_table(browser, contexts, problems, server, dealt(), device)
    page = table.page
    for seat, count in enumerate(COUNTS, start=1):
        backs = page.get_by_test_id(f"backs-{seat}")
        expect(backs.locator(".back")).to_have_count(min(count, MAX_BACKS))
        expect(backs).to_have_attribute("aria-hidden", "true")
        expect(page.get_by_test_id(f"count-{seat}")).to_contain_text(str(count))  # the number stays written
        # the backs are decoration: the seat's accessible text is its name and its count in words
        name = page.get_by_test_id(f"seat-{seat}").evaluate("(el) => el.innerText")
        assert str(count) in name
    # nobody's backs are in the accessibility tree
    snapshot = page.get_by_test_id("opponents").aria_snapshot()
    assert "back" not in snapshot.lower()
    # the player to move is marked on one line, even on a phone
    table.send(dealt_turn(1))
    moving = page.locator(".seat.to-move .who")
    expect(moving).to_have_count(1)
    height = moving.evaluate("(el) => el.getBoundingClientRect().height")
    line = moving.evaluate("(el) => parseFloat(getComputedStyle(el).lineHeight) || 20")
    assert height < line * 1.5, (height, line)


def dealt_turn(turn: int) -> Game:
    game = dealt()
    game.push_text("draw")
    game.push_text("draw")
    game.push_text("draw")
    if game.turn != turn:
        game.push_text("pass")
    assert game.turn == turn
    return game


# -- the table and the pile -------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_pile_lies_on_the_felt_as_a_stack_of_backs_with_its_count(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, dark: bool
) -> None:
    game = dealt()
    table = open_table(browser, contexts, problems, server, game, dark=dark)
    page = table.page
    pile = page.get_by_test_id("pile")
    count = game.pile_size()
    expect(pile).to_have_attribute("data-count", str(count))
    expect(pile).to_contain_text(str(count))  # the count is written
    stack = page.get_by_test_id("pile-stack")
    expect(stack).to_have_attribute("aria-hidden", "true")
    expect(stack.locator(".back")).to_have_count(min(5, -(-count // 8)))
    assert stack.evaluate("(el) => el.closest('.table-area') !== null")  # on the table
    # the table is a surface of its own (the felt), not the page's background
    felt, ground = page.locator(".table-area").evaluate(
        "(el) => [getComputedStyle(el).backgroundColor, getComputedStyle(document.body).backgroundColor]"
    )
    assert felt != ground
    # an empty pile is an outline, with its 0 written
    empty = dealt()
    while empty.pile_size():  # every seat draws whenever it may, until the pile is gone
        move = "draw" if "draw" in [str(m) for m in empty.legal_moves()] else str(empty.legal_moves()[0])
        empty.push_text(move)
    assert not empty.is_over()
    table.send(empty)
    expect(pile).to_have_attribute("data-count", str(empty.pile_size()))
    expect(stack.locator(".back")).to_have_count(min(5, -(-empty.pile_size() // 8)))


# -- motion -----------------------------------------------------------------------------------------


def translation(transform: str) -> tuple[float, float]:
    """The translate() of a keyframe's transform (it comes first), in px."""
    match = re.match(r"translate\((-?[\d.e-]+)(?:px)?, ?(-?[\d.e-]+)(?:px)?\)", transform)
    assert match, transform
    return float(match[1]), float(match[2])


def starts_at(call: dict[str, Any], point: tuple[float, float], slack: float = 2) -> bool:
    dx, dy = translation(call["transforms"][0])
    return abs(call["box"]["x"] + dx - point[0]) < slack and abs(call["box"]["y"] + dy - point[1]) < slack


def calls(page: Page, test: str) -> list[dict[str, Any]]:
    return list(page.evaluate(f"window.animated.filter((call) => {test})"))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("device", [PHONE_DE, DESKTOP_EN], ids=lambda d: d.name)
def test_the_hand_is_dealt_from_the_pile_and_a_drawn_card_comes_from_it(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, device: Device
) -> None:
    game = dealt(rows="R11-11")  # a round just dealt: only the red 11 on the table
    table = open_table(browser, contexts, problems, server, game, device)
    page = table.page
    pile = center(page, '[data-testid="pile-stack"]')
    # the deal: every card of the hand comes in from the pile, one after another, all within a second
    wait_until(page, f"window.animated.filter((c) => (c.testid || '').startsWith('card-')).length >= {len(HAND)}")
    deal = calls(page, "(call.testid || '').startsWith('card-')")
    assert sorted(call["testid"] for call in deal) == sorted(f"card-{card}" for card in HAND)
    assert all(starts_at(call, pile) for call in deal), deal
    assert len({call["delay"] for call in deal}) == len(HAND)  # staggered
    assert max(call["delay"] + call["duration"] for call in deal) < 1000
    # the reader draws: his new card comes from the pile (turning face up)
    game.push_text("draw")
    drawn = str(game.last_drawn)
    table.send(game)
    wait_until(page, f"window.animated.some((c) => c.testid === 'card-{drawn}')")
    [call] = calls(page, f"call.testid === 'card-{drawn}'")
    assert starts_at(call, pile), (call, pile)
    assert "rotateY(90deg)" in call["transforms"][0]
    # another player draws: a back (never his card) goes from the pile to his fan
    other = dealt_turn(1)
    table.send(other)
    expect(page.locator(".seat.to-move")).to_have_attribute("data-testid", "seat-1")
    other.push_text("draw")
    table.send(other)
    wait_until(page, "window.animated.some((c) => c.cls.includes('drawn-back'))")
    [back] = calls(page, "call.cls.includes('drawn-back')")
    fan = center(page, '[data-testid="backs-1"]')
    pile = center(page, '[data-testid="pile-stack"]')  # (the seats' lines above the table may have moved it)
    assert starts_at(back, pile), (back, pile)  # its first keyframe is where it is put: on the pile
    dx, dy = translation(back["transforms"][-1])
    assert abs(back["box"]["x"] + dx - fan[0]) < 3, (back, fan)
    assert abs(back["box"]["y"] + dy - fan[1]) < 3, (back, fan)
    expect(page.locator(".drawn-back")).to_have_count(0)  # gone once it has arrived
    assert page.evaluate("document.querySelectorAll('.drawn-back .num, .drawn-back .corner').length") == 0


@pytest.mark.timeout(60)
def test_with_reduced_motion_nothing_moves_at_the_deal_or_a_draw(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    game = dealt()
    table = open_table(browser, contexts, problems, server, game, reduced=True)
    page = table.page
    game.push_text("draw")
    table.send(game)
    expect(page.get_by_test_id(f"card-{game.last_drawn}")).to_be_visible()
    other = dealt_turn(1)
    table.send(other)
    other.push_text("draw")
    table.send(other)
    expect(page.get_by_test_id("count-1")).to_contain_text(str(other.hand_sizes()[1]))
    assert page.evaluate("document.getAnimations().length") == 0
    assert page.evaluate("window.animated") == []


# -- the end of a round -----------------------------------------------------------------------------

WON = {"en": re.compile(r"won|win"), "de": re.compile(r"gewonnen|gewinn")}
STANDINGS_HEAD = {"en": ["Place", "Player"], "de": ["Platz", "Spieler"]}
WENT_OUT = {"en": "went out", "de": "alle angelegt"}


def played_out(players: int = 4, seed: int = 5) -> tuple[Game, Game]:
    """A game played to its end (always the first legal move): the position before its last move, and the end."""
    game = Game.deal(players=players, seed=seed)
    while True:
        before = game.copy()
        game.push(game.legal_moves()[0])
        if game.is_over():
            return before, game


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("device", "rounds"), [(PHONE_DE, 1), (DESKTOP_EN, 3)], ids=["phone-de", "desktop-en-match"])
def test_the_winner_is_celebrated_and_the_standings_put_him_first(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, device: Device, rounds: int
) -> None:
    before, end = played_out()
    page = open_page(browser, contexts, device, problems)
    page.add_init_script(WATCH_ANIMATE)
    table = Table(page, server.base, state_frame(before, rounds=rounds))
    celebration = page.get_by_test_id("celebration")
    expect(celebration).to_be_hidden()
    table.send(end, rounds=rounds)
    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("winner")).to_have_text(WON[device.lang])
    # a short celebration, decoration only (CSS confetti)
    expect(celebration).to_be_attached()
    assert celebration.evaluate("(el) => !el.hidden && el.children.length > 0")
    expect(celebration).to_have_attribute("aria-hidden", "true")
    # the standings: every player, the winner first, then by the penalty points the server counted
    winner = end.winner
    assert winner is not None
    assert winner != 0, "the deal's winner sits among the others, in the strip of seats"
    # his empty hand is said in words at his seat, not shown as a bare 0
    expect(page.get_by_test_id(f"count-{winner}")).to_have_text(WENT_OUT[device.lang])
    penalties = end.penalties()
    rows = page.get_by_test_id("standings").locator("tbody tr")
    expect(rows).to_have_count(end.players)
    seats = [int(str(row.get_attribute("data-testid")).removeprefix("result-seat-")) for row in rows.all()]
    assert seats[0] == winner
    assert [penalties[seat] for seat in seats] == sorted(penalties[seat] for seat in seats)
    expect(rows.first).to_have_class(re.compile(r"\bwinner\b"))
    head = page.get_by_test_id("standings").locator("thead th")
    expect(head.nth(0)).to_have_text(STANDINGS_HEAD[device.lang][0])
    expect(head.nth(1)).to_have_text(STANDINGS_HEAD[device.lang][1])
    for row, seat in zip(rows.all(), seats, strict=True):
        expect(row.locator("td.points").first).to_have_text(str(penalties[seat]))
    # a match shows each player's total too (the server's)
    expect(head).to_have_count(5 if rounds > 1 else 4)
    # the next round ends the celebration
    table.send(Game.deal(players=4, seed=6), rounds=rounds)
    expect(celebration).to_be_hidden()


@pytest.mark.timeout(60)
def test_with_reduced_motion_the_end_has_no_confetti(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    before, end = played_out()
    page = open_page(browser, contexts, DESKTOP_EN, problems)
    page.emulate_media(reduced_motion="reduce")
    table = Table(page, server.base, state_frame(before))
    table.send(end)
    expect(page.get_by_test_id("standings")).to_be_visible()
    expect(page.get_by_test_id("celebration")).to_be_hidden()
    assert page.evaluate("document.getAnimations().length") == 0
