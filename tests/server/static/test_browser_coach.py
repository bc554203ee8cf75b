"""The coach of a first game in a real browser: each rule told once at its moment, in the reader's language, the
hint engine's move on asking (marked in the hand, the server's words), switched off and remembered, and no hint
at a table of people.

The moment comes in the reader's VIEW (``elferraus.table.coach``, tested in ``tests/table/test_coach.py``); which
rule the page tells of it (``coach.js``'s ``tipOf``: each once a game, holding back the second time a card fits
while drawing is allowed) is checked table-driven in the page itself; whole games then show it on real tables.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from elferraus import Game
from elferraus.moves import DRAW
from elferraus.table.coach import moment
from tests.server.static import test_browser
from tests.server.static.test_browser import Device, Problems, Server, open_device, until_choice
from tests.support.look_helpers import Feed, state_frame

SEEDED_DEAL = 2
"""The deal of the coached games: seat 1 holds the red 11, so Anna (seat 0) waits for her first turn."""

# the browser tests' fixtures: one server and one browser for the module, a fresh context per device
server = test_browser.server
contexts = test_browser.contexts
problems = test_browser.problems

PHONE = {lang: Device(f"phone-{lang}", 390, 844, lang) for lang in ("en", "de")}
FIRST_TIP = {
    "en": re.compile(r"^The red 11 starts: whoever holds it lays it first"),
    "de": re.compile(r"^Die rote Elf beginnt: wer sie hat, legt sie als Erstes an"),
}
FITS_TIP = {
    "en": re.compile(r"^Your cards that fit are raised"),
    "de": re.compile(r"^Deine Karten, die passen, sind hervorgehoben"),
}
ASK = {"en": "Show me a good move", "de": "Zeig mir einen guten Zug"}
HINT_WORDS = {"en": re.compile(r"^Hint: "), "de": re.compile(r"^Tipp: ")}

# One row per case: (the VIEW's moment, the rules told already this game) -> the rule told now.
TIPS: list[tuple[str | None, list[str], str | None]] = [
    ("start", [], "start"),
    ("start", ["start"], None),
    ("may_hold", ["start"], "fits"),
    ("may_hold", ["start", "fits"], "hold"),
    ("may_hold", ["fits", "hold"], None),
    ("fits", ["start"], "fits"),
    ("fits", ["fits", "hold"], None),
    ("more", [], "more"),
    ("must_draw", ["fits"], "must_draw"),
    ("drawn_fits", [], "drawn_fits"),
    ("drawn_not", [], "drawn_not"),
    ("pile_empty", ["start", "fits"], "pile_empty"),
    ("pile_empty", ["pile_empty"], None),
    (None, [], None),
]


def test_each_rule_is_told_once_a_game_at_its_moment(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    page = open_device(browser, contexts, PHONE["en"], problems)
    page.goto(server.base + "/rules")
    found = page.evaluate(
        """async (rows) => {
          const { tipOf } = await import('/static/js/coach.js');
          return rows.map(([moment, seen]) => tipOf(moment, new Set(seen)));
        }""",
        [[moment, seen] for moment, seen, _ in TIPS],
    )
    assert found == [tip for _, _, tip in TIPS]
    for _, _, tip in TIPS:  # every rule told has its words in both languages
        if tip is not None:
            for lang in ("en", "de"):
                words = server.get(f"/api/messages?lang={lang}")["messages"]
                assert words[f"coach_{tip}"], (tip, lang)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose every match is dealt from ``SEEDED_DEAL``."""
    running = Server(
        tmp_path_factory.mktemp("coach") / "games.sqlite3",
        entry=["-m", "tests.support.seeded_server", str(SEEDED_DEAL)],
    )
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("lang", ["de"])  # English: the same page, its words in tests/server/rooms/test_hints.py
def test_a_first_game_is_coached_and_the_hint_is_the_servers_in_the_readers_language(
    seeded: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, lang: str
) -> None:
    server = seeded
    room = server.post(
        "/api/rooms",
        {"name": "Anna", "players": 4, "rules": "classic", "fill": "easy", "pace": 1},
    )
    page = open_device(browser, contexts, PHONE[lang], problems)
    page.goto(server.base + room["link"] + "&s=0")
    page.get_by_test_id("start").click()
    coach = page.get_by_test_id("coach")
    expect(coach).to_be_visible()
    until_choice(page)
    ask = page.get_by_test_id("coach-ask")
    expect(ask).to_have_text(ASK[lang])
    ask.click()
    hint = page.get_by_test_id("coach-hint")
    expect(hint).to_have_text(HINT_WORDS[lang])
    fitting = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"hand\"] .card.fits')].map((c) => c.dataset.card)"
    )
    move = hint.get_attribute("data-move")
    marked = page.locator('[data-testid="hand"] .card.suggested')
    if move in ("draw", "pass"):
        expect(marked).to_have_count(0)
    else:
        assert move in fitting, (move, fitting)
        expect(marked).to_have_count(1)
        expect(marked).to_have_attribute("data-card", move)

    page.get_by_test_id("coach-off").click()
    expect(coach).to_be_hidden()
    page.reload()
    expect(page.locator('[data-testid="hand"] .card').first).to_be_visible()
    expect(coach).to_be_hidden()
    stored = page.evaluate("() => localStorage.getItem('elferraus-coach')")
    assert stored == "off"
    page.get_by_test_id("coach-on").click()  # and back on, from the table
    expect(page.get_by_test_id("coach-on")).to_be_hidden()
    assert page.evaluate("() => localStorage.getItem('elferraus-coach')") == "on"


@pytest.mark.timeout(120)
def test_a_table_of_people_gets_the_rules_but_no_hint(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    room = server.post(
        "/api/rooms", {"name": "Anna", "players": 2, "rules": "classic", "pace": 0, "seats": [{"kind": "open"}]}
    )
    ben = server.post(f"/api/rooms/{room['code']}/join", {"seat": 1, "name": "Ben"})
    anna_page = open_device(browser, contexts, PHONE["en"], problems, "anna")
    ben_page = open_device(browser, contexts, PHONE["de"], problems, "ben")
    anna_page.goto(server.base + room["link"] + "&s=0")
    ben_page.goto(server.base + ben["link"] + "&s=1")
    anna_page.get_by_test_id("start").click()
    mine = "document.querySelector('[data-testid=\"status\"].mine') !== null"
    deadline = time.monotonic() + 20
    while not (movers := [page for page in (anna_page, ben_page) if page.evaluate(mine)]):
        assert time.monotonic() < deadline, "nobody got the turn after the opening"
        anna_page.wait_for_timeout(50)
    mover = movers[0]
    until_choice(mover)
    expect(mover.get_by_test_id("coach-text")).to_be_visible()  # his turn's rule
    expect(mover.get_by_test_id("coach-ask")).to_be_hidden()  # and no hint at a table of people


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_start_is_told_while_the_reader_waits_and_what_fits_at_her_first_turn(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, lang: str
) -> None:
    game = Game.deal(players=3, seed=2)
    assert game.turn != 0, "seat 0 waits for the opener"
    frames = [state_frame(game)]
    while not (game.turn == 0 and moment(game.view(0)) == "may_hold"):
        game.push(game.legal_moves()[0])
    frames.append(state_frame(game))
    page = open_device(browser, contexts, PHONE[lang], problems)
    feed = Feed(page, server.base, frames[0])
    expect(page.get_by_test_id("coach-text")).to_have_text(FIRST_TIP[lang])
    feed.send(frames[1])
    expect(page.get_by_test_id("coach-text")).to_have_text(FITS_TIP[lang])


def test_a_second_state_of_the_same_position_tells_no_further_rule(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    """Somebody coming or going raises the room's seq without a move: the rule told for the position stays
    (the first time a card fits is "what fits"; "holding back" waits for the next such turn)."""
    game = Game.deal(players=3, seed=2)
    while not (game.turn == 0 and moment(game.view(0)) == "may_hold"):
        game.push(game.legal_moves()[0])
    first = state_frame(game)
    page = open_device(browser, contexts, PHONE["en"], problems)
    feed = Feed(page, server.base, first)
    feed.send(first)  # the same position again, as when somebody comes or goes
    expect(page.get_by_test_id("coach-text")).to_have_text(FITS_TIP["en"])
    page.wait_for_timeout(300)  # both frames drawn
    expect(page.get_by_test_id("coach-text")).to_have_text(FITS_TIP["en"])


def test_a_finished_game_keeps_no_rule_on_screen(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    """The rule told at the reader's last turn (the empty pile) goes when the game ends: the result is what
    matters then, and a note about a pile nobody draws from any more is stale."""
    game = Game.deal(players=3, seed=2)
    while not (game.turn == 0 and moment(game.view(0)) == "pile_empty"):
        legal = game.legal_moves()
        game.push(DRAW if DRAW in legal else legal[0])
    page = open_device(browser, contexts, PHONE["en"], problems)
    feed = Feed(page, server.base, state_frame(game))
    expect(page.get_by_test_id("coach-text")).to_have_text(re.compile(r"^The pile is empty"))
    while not game.is_over():
        game.push(game.legal_moves()[0])
    feed.send(state_frame(game))
    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("coach")).to_be_hidden()
