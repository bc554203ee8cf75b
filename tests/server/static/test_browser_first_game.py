"""A family's first game in a real browser: one tap from the lobby to a card to lay, and the page's manners at
the table (focus, the main button, notes that go when they are old, the way back to one's seat).

The server is ``elferraus serve`` in a subprocess, the browser Debian's Chromium (see test_browser.py).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.server.static.test_browser import (  # noqa: F401 (the browser tests' fixtures)
    Device,
    Problems,
    Server,
    contexts,
    open_device,
    problems,
    server,
    shot,
    until_choice,
    wait_until,
)
from tests.server.static.test_browser_look import open_page
from tests.support.look_helpers import Feed, frame_at, position_text

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
DEVICES = [Device(f"{size}-{lang}", *SIZES[size], lang) for size in SIZES for lang in ("en", "de")]
PLAY_NOW = {"en": "Play now", "de": "Jetzt spielen"}
PLAY_FRIENDS = {"en": "Play with friends", "de": "Mit Freunden spielen"}
DEFAULT_NAME = {"en": "Player 1", "de": "Spieler 1"}

# A card the reader may lay now: his turn, nothing pending, a card of the hand marked as fitting.
LAYABLE = """document.querySelector('[data-testid="status"].mine') !== null
  && !document.querySelector('#main.pending')
  && document.querySelector('[data-testid="hand"] .card.fits') !== null"""

FOCUS = """(() => {
  const el = document.activeElement;
  return el ? { testid: el.dataset.testid || null, inHand: Boolean(el.closest('[data-testid="hand"]')),
                fits: el.classList.contains('fits') } : null;
})()"""


def in_view(page: Page, testid: str) -> bool:
    """Whether the element is whole inside the first screen (no scrolling)."""
    box = page.get_by_test_id(testid).bounding_box()
    size = page.viewport_size
    assert box is not None
    assert size is not None
    return bool(
        box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] + box["width"] <= size["width"]
    )


def tap(page: Page, device: Device, testid: str) -> None:
    if device.mobile:
        page.get_by_test_id(testid).tap()
    else:
        page.get_by_test_id(testid).click()


@pytest.mark.timeout(90)
@pytest.mark.parametrize("device", [DEVICES[1], DEVICES[2]], ids=lambda device: device.name)  # each size, each language
def test_one_tap_from_the_lobby_to_a_card_to_lay(
    server: Server,  # noqa: F811 (the fixtures imported above)
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
    device: Device,
) -> None:
    """The first screen offers "Play now" and "Play with friends" above the fold, every other choice folded away
    and a room by code still there; one tap on "Play now" is a started game against three computers, with the
    keys in the hand. The time from opening the page to the first card one may lay is printed, not asserted."""
    page = open_device(browser, contexts, device, problems)
    opened = time.monotonic()
    page.goto(server.base + "/")
    expect(page.get_by_test_id("play-now")).to_have_text(PLAY_NOW[device.lang])
    expect(page.get_by_test_id("play-friends")).to_have_text(PLAY_FRIENDS[device.lang])
    assert in_view(page, "play-now")
    assert in_view(page, "play-friends")
    # the other choices fold away; a room by its code stays at hand
    expect(page.get_by_test_id("setup")).not_to_have_attribute("open", "")
    for folded in ("players", "rules", "rounds", "create"):
        expect(page.get_by_test_id(folded)).to_be_hidden()
    expect(page.get_by_test_id("room-code")).to_be_attached()
    expect(page.get_by_test_id("create-lang")).to_have_count(0)  # the header switches the language
    tapped = time.monotonic()
    tap(page, device, "play-now")

    page.wait_for_url(re.compile(r"/r/[A-Z0-9]+#t="))
    expect(page.locator('[data-testid="hand"] .card').first).to_be_visible()
    table = time.monotonic()
    expect(page.get_by_test_id("start")).to_have_count(0)  # no waiting room
    # the keys are in the hand from the start
    wait_until(page, "document.activeElement && document.activeElement.closest('[data-testid=\"hand\"]') !== null")
    wait_until(page, LAYABLE, timeout=30)
    layable = time.monotonic()
    focus = page.evaluate(FOCUS)
    assert focus is not None
    assert focus["inHand"], focus
    assert focus["fits"], focus
    expect(page.locator('[data-testid^="seat-"]')).to_have_count(3)
    for seat in range(1, 4):
        expect(page.get_by_test_id(f"seat-{seat}")).to_contain_text("Computer")
    moves = page.locator('[data-testid="log"] li').count()
    # (the table is there at once; the first card one may lay waits for the moves before it: the computers', and
    # the draws the table makes for a hand that holds nothing that fits, each at the room's pace)
    print(
        f"\n{device.name} ({device.width}x{device.height}): page open -> the table {table - opened:.2f} s, "
        f"-> a card to lay {layable - opened:.2f} s (after the tap {layable - tapped:.2f} s, {moves} moves before)"
    )
    shot(page, f"play-now-{device.name}")


@pytest.mark.timeout(90)
def test_the_name_is_remembered_and_play_with_friends_opens_a_room_with_a_seat_for_a_friend(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    device = DEVICES[0]
    page = open_device(browser, contexts, device, problems)
    page.goto(server.base + "/")
    expect(page.get_by_test_id("create-name")).to_have_attribute("placeholder", DEFAULT_NAME[device.lang])
    page.get_by_test_id("create-name").fill("Anna")
    tap(page, device, "play-friends")
    page.wait_for_url(re.compile(r"/r/[A-Z0-9]+#t="))
    expect(page.get_by_test_id("invite-link")).to_be_visible()
    expect(page.get_by_test_id("seat-0")).to_contain_text("Anna")
    expect(page.get_by_test_id("seat-1")).to_contain_text("free")
    expect(page.get_by_test_id("seat-2")).to_contain_text("computer")
    page.goto(server.base + "/")
    expect(page.get_by_test_id("create-name")).to_have_value("Anna")


# -- the table's manners, on positions dealt by hand --------------------------------------------------------

ROWS = {"R": (5, 12), "Y": (9, 15), "G": (11, 11), "B": (3, 18)}
"""Open rows where R4 and R13, Y8 and Y16, G10 and G12, B2 and B19 fit."""


def frame(hand: list[str], *, turn: int = 0, **kwargs: Any) -> dict[str, Any]:
    return frame_at(position_text(ROWS, hand, turn=turn, **kwargs))


OUTLINE_INSIDE = """([selector, clip]) => {
  const el = document.querySelector(selector);
  const box = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  const ring = style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
  const outer = document.querySelector(clip);
  const o = outer.getBoundingClientRect();
  const s = getComputedStyle(outer);
  const inner = { left: o.left + parseFloat(s.borderLeftWidth), right: o.right - parseFloat(s.borderRightWidth),
                  top: o.top + parseFloat(s.borderTopWidth), bottom: o.bottom - parseFloat(s.borderBottomWidth) };
  const cut = [];
  if (box.left - ring < inner.left - 0.5) cut.push('left');
  if (box.right + ring > inner.right + 0.5) cut.push('right');
  if (box.top - ring < inner.top - 0.5) cut.push('top');
  if (box.bottom + ring > inner.bottom + 0.5) cut.push('bottom');
  return { ring, cut };
}"""

TAB_STOPS = "[...document.querySelectorAll('[data-testid=\"hand\"] .card')].filter((c) => c.tabIndex === 0).length"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("device", [DEVICES[0], DEVICES[3]], ids=lambda device: device.name)
def test_the_hand_is_one_tab_stop_on_a_card_that_fits_and_no_ring_is_cut_off(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
    device: Device,
) -> None:
    """Dealt while another plays, the keys rest on the first card; when the turn comes, on a card that fits
    (R1 and R2 do not, Y8 does); Tab leaves the hand and comes back to it; the arrows move through it. The
    focus ring of a raised card at the hand's edge and the frame of the card laid last in the top row are
    drawn whole."""
    hand = ["R1", "R2", "Y8", "G12", "B20"]
    page = open_page(browser, contexts, device, problems)
    feed = Feed(page, server.base, frame(hand, turn=1))
    wait_until(page, "document.activeElement.dataset.testid === 'card-R1'")  # the keys are in the hand
    feed.send(frame(hand))
    expect(page.get_by_test_id("status")).to_have_class(re.compile(r"\bmine\b"))
    wait_until(page, "document.activeElement.dataset.testid === 'card-Y8'")
    assert page.evaluate(TAB_STOPS) == 1
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.closest('[data-testid=\"hand\"]')") is None
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.testid") == "card-Y8"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.testid") == "card-G12"
    assert page.evaluate(TAB_STOPS) == 1

    # a raised card at the left edge of the hand, with the focus; the card laid last in the top row
    edge = frame(["R4", "R13", "Y2", "B19"])
    edge["game"]["last_lay"] = {"seat": 1, "card": "R12"}
    feed.send(edge)
    wait_until(page, "document.activeElement.dataset.testid === 'card-B19'")  # where G12 was, and it fits
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.dataset.testid") == "card-R4"
    ring = page.evaluate(OUTLINE_INSIDE, ['[data-testid="card-R4"]', '[data-testid="hand"]'])
    assert ring["ring"] > 0
    assert ring["cut"] == [], f"the focus ring is cut off at the hand's {ring['cut']}"
    last = page.evaluate(OUTLINE_INSIDE, [".cell.last", ".board-wrap"])
    assert last["ring"] > 0
    assert last["cut"] == [], f"the frame of the card laid last is cut off at the board's {last['cut']}"
    shot(page, f"hand-focus-{device.name}")


@pytest.mark.timeout(60)
def test_after_start_the_game_the_keys_are_in_the_hand(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    room = server.room_with_computer(pace=0.3)
    page = open_device(browser, contexts, DEVICES[2], problems)
    page.goto(server.base + room["link"] + "&s=0")
    page.get_by_test_id("start").focus()
    page.keyboard.press("Enter")
    expect(page.locator('[data-testid="hand"] .card').first).to_be_visible()
    wait_until(page, "document.activeElement.closest('[data-testid=\"hand\"]') !== null")


NOTE_WORDS = {"en": "Nothing else is possible: your turn ends", "de": "Nichts anderes ist möglich: dein Zug endet"}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("device", [DEVICES[0], DEVICES[3]], ids=lambda device: device.name)
def test_a_note_of_the_readers_turn_goes_with_it_and_lines_begin_with_a_capital(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
    device: Device,
) -> None:
    mine = frame(["R1", "R2"])
    mine["view"]["made_for"] = {"key": "made_draw", "params": {"card": "R2"}}
    page = open_page(browser, contexts, device, problems)
    feed = Feed(page, server.base, mine)
    note = page.get_by_test_id("made-for")
    expect(note).to_be_visible()
    # the server's lines, shown on their own, begin with a capital (the words themselves are the terminal's)
    status = page.get_by_test_id("status")
    shown = page.evaluate("(el) => [el.innerText, el.textContent]", status.element_handle())
    assert shown[1][0].islower(), shown
    assert shown[0][0] == shown[1][0].upper(), shown
    shown = page.evaluate("(el) => el.innerText", note.element_handle())
    assert shown[0].isupper(), shown

    # the table ended his turn for him: once another player is to move, the note is gone
    later = frame(["R1", "R2"], turn=1)
    later["view"]["made_for"] = {"key": "made_pass", "params": {}}
    feed.send(later)
    expect(status).not_to_have_class(re.compile(r"\bmine\b"))
    expect(note).to_be_hidden()
    expect(page.locator(".status-area")).not_to_contain_text(re.compile(NOTE_WORDS[device.lang], re.IGNORECASE))


FILLED = """(id) => {
  const el = document.querySelector(`[data-testid="${id}"]`);
  return { primary: el.classList.contains('primary'), background: getComputedStyle(el).backgroundColor,
           surface: getComputedStyle(document.querySelector('.table-area')).backgroundColor };
}"""


@pytest.mark.timeout(60)
def test_the_filled_button_is_the_move_to_make(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    """While cards fit, neither Draw nor End turn is the filled button; when nothing fits and one may draw,
    Draw is; when the turn can only end, End turn is."""
    page = open_page(browser, contexts, DEVICES[0], problems)
    feed = Feed(page, server.base, frame(["R1", "R2", "Y8", "G12"]))
    expect(page.get_by_test_id("draw")).to_be_enabled()

    def filled() -> set[str]:
        found = set()
        for testid in ("draw", "end-turn"):
            seen = page.evaluate(FILLED, testid)
            if seen["primary"]:
                found.add(testid)
        return found

    accent = page.evaluate("getComputedStyle(document.querySelector('[data-testid=\"status\"]')).color")
    assert filled() == set(), "Draw is drawn as the main action while two cards fit"
    assert page.evaluate(FILLED, "draw")["background"] != accent
    feed.send(frame(["R1", "R2"]))  # nothing fits: draw
    wait_until(page, "document.querySelector('[data-testid=\"hand\"] .card.fits') === null")
    assert filled() == {"draw"}
    assert page.evaluate(FILLED, "draw")["background"] == accent
    feed.send(frame(["R1", "R2"], players=2, others=80))  # nothing fits, the pile is empty: the turn ends
    expect(page.get_by_test_id("draw")).to_be_disabled()
    assert filled() == {"end-turn"}
    shot(page, "end-turn-primary")


# -- the connection comes back ----------------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_when_the_connection_comes_back_its_error_goes_and_the_badge_stays_one_line_on_a_phone(
    tmp_path: Path,
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    own = Server(tmp_path / "games.sqlite3")
    own.start()
    try:
        room = own.room_with_computer()
        page = open_device(browser, contexts, DEVICES[0], problems)
        page.goto(own.base + room["link"] + "&s=0")
        page.get_by_test_id("start").click()
        until_choice(page)
        table_top = page.locator(".table-area").bounding_box()
        assert table_top is not None

        own.kill()
        connection = page.get_by_test_id("connection")
        expect(connection).to_be_visible(timeout=15_000)
        page.locator('[data-testid="hand"] .card').first.click()  # a move while the line is down
        error = page.get_by_test_id("error")
        expect(error).to_contain_text("connection lost")
        # the badge: one line, and the table stays where it was
        lines = page.evaluate(
            "(el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight || 20)",
            connection.element_handle(),
        )
        assert lines < 1.9, f"the badge takes {lines:.1f} lines"
        moved = page.locator(".table-area").bounding_box()
        assert moved is not None
        assert moved["y"] == table_top["y"], "the badge pushed the table down"
        shot(page, "reconnect-phone-en-1-down")

        own.start()
        expect(connection).to_be_hidden(timeout=30_000)
        expect(error).to_have_text("")
        expect(error).to_be_hidden()
        shot(page, "reconnect-phone-en-2-back")
    finally:
        own.stop()
    problems.seen[:] = [seen for seen in problems.seen if "WebSocket" not in seen]


# -- the way back to one's seat from another device ----------------------------------------------------------


@pytest.mark.timeout(90)
def test_a_player_takes_his_seat_on_another_device_by_his_own_link_and_the_invite_only_watches(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    room = server.room_with_computer(pace=0.3)
    host = open_device(browser, contexts, DEVICES[2], problems, "host")
    host.goto(server.base + room["link"] + "&s=0")
    host.get_by_test_id("start").click()
    expect(host.locator('[data-testid="hand"] .card').first).to_be_visible()
    # the player's own link, offered under "Play on another device"
    host.get_by_test_id("other-device-open").click()
    own = host.get_by_test_id("own-link").input_value()
    assert own == f"{server.base}/r/{room['code']}#t={room['token']}&s=0"
    expect(host.get_by_test_id("other-device")).to_contain_text("Do not share it")

    # the plain invite on a new device: watching, and told how to take one's own seat, without anybody's token
    phone = open_device(browser, contexts, DEVICES[1], problems, "phone")
    phone.goto(server.base + room["invite"])
    expect(phone.locator(".hand-head")).to_have_text("Du schaust diesem Spiel zu.")
    hint = phone.get_by_test_id("watch-hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("Auf einem anderen Gerät spielen")
    assert room["token"] not in phone.content()
    expect(phone.get_by_test_id("other-device")).to_be_hidden()
    shot(phone, "watching-hint-phone-de")

    # his own link on the new device: his seat, his cards
    phone.goto(own)
    phone.reload()
    expect(phone.locator('[data-testid="hand"] .card').first).to_be_visible()
    expect(phone.get_by_test_id("watch-hint")).to_be_hidden()


# -- smaller things ---------------------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("device", [DEVICES[1], DEVICES[2]], ids=lambda device: device.name)
def test_the_rules_page_describes_the_free_places_as_the_board_draws_them(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
    device: Device,
) -> None:
    page = open_device(browser, contexts, device, problems)
    page.goto(server.base + "/rules")
    expect(page.get_by_test_id("rules-page")).to_be_visible()
    plus = page.evaluate(
        "[...document.querySelectorAll('.example .cell.slot .plus')]"
        ".some((el) => getComputedStyle(el).display !== 'none')"
    )
    text = page.get_by_test_id("rules-page").inner_text()
    if not plus:
        assert "+7" not in text, "the rules promise a +7 the board does not draw"
    assert re.search(r"\(7\)", text)


@pytest.mark.timeout(60)
def test_your_rooms_say_who_plays_and_how_far_the_game_is(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    page = open_device(browser, contexts, DEVICES[2], problems)
    page.goto(server.base + "/")
    page.get_by_test_id("create-name").fill("Mara")
    page.get_by_test_id("play-friends").click()
    page.wait_for_url(re.compile(r"/r/[A-Z0-9]+#t="))
    code = page.url.split("/r/")[1].split("#")[0]
    page.goto(server.base + "/")
    entry = page.get_by_test_id(f"room-{code}")
    expect(entry).to_contain_text("Mara")
    expect(entry).to_contain_text("Computer 3")
    expect(entry).to_contain_text("waiting for the start")


@pytest.mark.timeout(60)
def test_on_a_phone_the_player_to_move_is_one_line_and_the_strip_of_players_shows_that_it_scrolls(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    six = frame_at(position_text(ROWS, ["R1", "R2", "Y8"], players=6, others=5, turn=1))
    page = open_page(browser, contexts, DEVICES[0], problems)
    Feed(page, server.base, six)
    moving = page.locator(".seat.to-move .seat-name")
    expect(moving).to_contain_text("Computer 2")
    height = page.evaluate(
        "(el) => { const who = el.querySelector('.who'); return who ? who.getBoundingClientRect().height"
        " / parseFloat(getComputedStyle(who).lineHeight) : 99; }",
        moving.element_handle(),
    )
    assert height < 1.5, f"the name of the player to move takes {height:.1f} lines"
    strip = page.evaluate(
        "(() => { const s = document.querySelector('[data-testid=\"opponents\"]');"
        " return { scrolls: s.scrollWidth > s.clientWidth, mask: getComputedStyle(s).maskImage"
        " || getComputedStyle(s).webkitMaskImage }; })()"
    )
    assert strip["scrolls"], strip
    assert strip["mask"] not in ("", "none", None), f"nothing shows that the strip scrolls: {strip}"
    shot(page, "six-players-phone-en")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("device", [DEVICES[0], DEVICES[3]], ids=lambda device: device.name)
def test_a_card_button_is_named_by_what_it_shows_first(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
    device: Device,
) -> None:
    """Lighthouse's label-content-name-mismatch (axe's experimental rule): a card showing R and 4 is not called
    "red 4" alone."""
    page = open_page(browser, contexts, device, problems)
    Feed(page, server.base, frame(["R4", "R13", "Y2", "B19"]))
    options = {"runOnly": {"type": "rule", "values": ["label-content-name-mismatch"]}}
    results = Axe().run(page, options=options)
    found = [node["target"] for violation in results.response["violations"] for node in violation["nodes"]]
    assert not found, found
    colors = {"en": "red", "de": "Rot"}[device.lang]
    expect(page.get_by_test_id("card-R4")).to_have_accessible_name(re.compile(rf"^R4, {colors} 4"))
