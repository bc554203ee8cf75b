"""Motion and sound on the table, in a real browser against a real server.

- A card laid from the reader's hand slides from the hand to its place in about 200 ms, and lands
  there; with "reduced motion" nothing slides and the card is simply in its row.
- The sound is off at first: no audio is even made until the reader turns the switch on. The switch
  is a checkbox with a label in the page's language; it is remembered (localStorage) across a reload.
  Turned on, a lay sounds a tap (a tone and a click), a draw a brush (noise alone). The page's audio
  is watched through an ``AudioContext`` that counts what is started (an init script; the page's own
  code is unchanged).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.server.static import test_browser
from tests.server.static.test_browser import (
    DESKTOP_EN,
    PHONE_DE,
    Device,
    Problems,
    Server,
    probe,
    until_choice,
    wait_until,
)

server = test_browser.server
contexts = test_browser.contexts
problems = test_browser.problems

# Every slide of a card, read from its animation rather than from the clock: what the animation's own
# timing and keyframes say, on the ghost's own box. The box is the ghost's rectangle less the transform
# applied at the moment it is read, so it does not matter how far the animation has got by then (a
# loaded machine may be late to run this). Where the ghost lands (its box moved by the last keyframe) is
# compared with the card's place as it is when the animation finishes.
WATCH_FLIGHTS = """() => {
  window.flights = [];
  const boxOf = (node) => {
    const rect = node.getBoundingClientRect();
    const now = new DOMMatrixReadOnly(getComputedStyle(node).transform);
    return { x: rect.left + rect.width / 2 - now.e, y: rect.top + rect.height / 2 - now.f, width: rect.width / now.a };
  };
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      if (!(node instanceof HTMLElement) || !node.classList.contains('flying')) continue;
      const animation = node.getAnimations()[0];
      const frames = animation.effect.getKeyframes().map((frame) => new DOMMatrixReadOnly(frame.transform));
      const [first, last] = [frames[0], frames[frames.length - 1]];
      const box = boxOf(node);
      const card = node.querySelector('.corner').textContent + node.querySelector('.num').textContent;
      const flight = {
        card, duration: animation.effect.getTiming().duration, frames: frames.length,
        from: [box.x + first.e, box.y + first.f], fromScale: first.a,
        to: [box.x + last.e, box.y + last.f], width: box.width * last.a, landed: false, cancelled: false,
      };
      window.flights.push(flight);
      animation.finished.then(() => {
        const cell = document.querySelector(`[data-cell="${card}"]`).getBoundingClientRect();
        Object.assign(flight, {
          landed: true, cell: [cell.left + cell.width / 2, cell.top + cell.height / 2], cellWidth: cell.width,
        });
      }, () => { flight.cancelled = true; });
    }
  }).observe(document.body, { childList: true });
}"""

# Counts what the page's audio starts: "tone" (an oscillator), "noise" (a buffer of noise).
COUNT_SOUNDS = """
window.sounds = [];
window.audioContexts = 0;
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  constructor(...args) { super(...args); window.audioContexts += 1; }
  createOscillator() { return counted(super.createOscillator(), 'tone'); }
  createBufferSource() { return counted(super.createBufferSource(), 'noise'); }
};
function counted(node, kind) {
  const start = node.start.bind(node);
  node.start = (...args) => { window.sounds.push(kind); return start(...args); };
  return node;
}
"""


def open_table(
    browser: Browser,
    contexts: list[BrowserContext],
    problems: Problems,
    server: Server,
    device: Device,
    *,
    reduced: bool = False,
    sounds: bool = False,
) -> Page:
    """A page at the table of a new room (the reader and an easy computer), started, on the reader's choice."""
    context = browser.new_context(
        viewport={"width": device.width, "height": device.height},
        locale="de-DE" if device.lang == "de" else "en-US",
        is_mobile=device.mobile,
        has_touch=device.mobile,
        reduced_motion="reduce" if reduced else "no-preference",
    )
    context.set_default_timeout(20_000)
    contexts.append(context)
    if sounds:
        context.add_init_script(COUNT_SOUNDS)
    page = context.new_page()
    problems.watch(page, device.name, allow=re.compile(r"WebSocket|ERR_CONNECTION_REFUSED"))
    room = server.room_with_computer(pace=0.3)
    page.goto(server.base + room["link"] + "&s=0")
    page.get_by_test_id("start").click()
    until_choice(page)
    return page


def reach_a_fit(page: Page) -> str:
    """Play on (drawing, or ending the turn) until the reader may lay a card; returns that card."""
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, "no card to lay"
        until_choice(page)
        now = probe(page)
        if now["fit"]:
            return str(now["fit"]).removeprefix("card-")
        log = now["log"]
        page.get_by_test_id("draw" if now["draw"] else "end-turn").click()
        wait_until(page, f"document.querySelectorAll('[data-testid=\"log\"] li').length > {log}")


def lay(page: Page, card: str) -> None:
    """Lay ``card``; returns once it lies in its row."""
    page.get_by_test_id(f"card-{card}").click()
    expect(page.locator(f'.cell.laid[data-cell="{card}"]')).to_have_count(1)


def lay_one(page: Page) -> str:
    """Lay a card that fits (drawing until one does); returns it once it lies in its row."""
    card = reach_a_fit(page)
    lay(page, card)
    return card


# -- the slide ------------------------------------------------------------------------------------

# How far (px) the ghost may land from the middle of its place, and differ from its width.
LANDING = 1.5


def hoard(page: Page) -> str:
    """Draw whenever the reader may (else end the turn) until a card that fits is narrower than 26 px, well
    under the 30 px a card is at least anywhere else on the page; returns that card. (Its width in the layout:
    a card just drawn turns face up, and is narrower on the screen, for a moment.)"""
    narrow = "document.querySelector('[data-testid=\"hand\"] .card.fits').offsetWidth < 26"
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the hand never grew narrow with a card to lay"
        until_choice(page)
        now = probe(page)
        if now["fit"] and page.evaluate(narrow):
            return str(now["fit"]).removeprefix("card-")
        page.get_by_test_id("draw" if now["draw"] else "end-turn").click()
        wait_until(page, f"document.querySelectorAll('[data-testid=\"log\"] li').length > {now['log']}")


def watch_a_slide(page: Page, card: str) -> dict[str, Any]:
    """Lay ``card`` from the hand; returns its flight once its animation has finished, and checks that it
    starts in the hand (as the hand is when the card leaves it: playing on to a fit, or the click's own
    scrolling into view, may move the page, and the hand with it, on a phone)."""
    page.get_by_test_id(f"card-{card}").scroll_into_view_if_needed()
    hand_box = page.get_by_test_id("hand").bounding_box()
    assert hand_box is not None
    lay(page, card)
    wait_until(page, f"window.flights.some((f) => f.card === '{card}' && (f.landed || f.cancelled))")
    flights: list[dict[str, Any]] = page.evaluate("window.flights")
    mine = [flight for flight in flights if flight["card"] == card]
    assert len(mine) == 1, flights
    flight = mine[0]
    assert not flight["cancelled"], f"its animation was cancelled: {flight}"
    x, y = flight["from"]
    assert hand_box["x"] <= x <= hand_box["x"] + hand_box["width"], f"it starts outside the hand: {flight}"
    assert hand_box["y"] - 20 <= y <= hand_box["y"] + hand_box["height"], f"it starts outside the hand: {flight}"
    return flight


def assert_lands_on_its_place(flight: dict[str, Any]) -> None:
    """The slide lasts 200 ms, starts unscaled and ends on the middle of its place, at its width."""
    assert (flight["duration"], flight["frames"], flight["fromScale"]) == (200, 2, 1), flight
    assert abs(flight["to"][0] - flight["cell"][0]) < LANDING, f"it lands beside its place: {flight}"
    assert abs(flight["to"][1] - flight["cell"][1]) < LANDING, f"it lands above or below its place: {flight}"
    assert abs(flight["width"] - flight["cellWidth"]) < LANDING, f"it lands wider or narrower than its place: {flight}"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("device", [PHONE_DE, DESKTOP_EN], ids=lambda d: d.name)
def test_a_laid_card_slides_from_the_hand_to_its_place_in_200_ms(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, device: Device
) -> None:
    page = open_table(browser, contexts, problems, server, device)
    page.evaluate(WATCH_FLIGHTS)
    assert_lands_on_its_place(watch_a_slide(page, reach_a_fit(page)))
    expect(page.locator(".card.flying")).to_have_count(0)  # and it is gone once it has landed


@pytest.mark.timeout(150)
def test_a_card_from_a_long_hand_slides_to_its_place(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    # A long hand on a phone has cards narrower than a card may be elsewhere; the ghost that leaves the
    # hand is as wide as the card it leaves, and lands on the middle of its place all the same.
    page = open_table(browser, contexts, problems, server, PHONE_DE)
    page.evaluate(WATCH_FLIGHTS)
    assert_lands_on_its_place(watch_a_slide(page, hoard(page)))
    expect(page.locator(".card.flying")).to_have_count(0)


@pytest.mark.timeout(120)
def test_with_reduced_motion_nothing_slides(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    page = open_table(browser, contexts, problems, server, PHONE_DE, reduced=True)
    page.evaluate(WATCH_FLIGHTS)
    lay_one(page)
    lay_one(page)
    assert page.evaluate("window.flights") == []


# -- the sound ------------------------------------------------------------------------------------

# (the page's state before, after, and what is heard); the models hold the fields sound.js reads.
HEARD = [
    ("a lay", {"log": 3, "pile": 20, "lay": "R12"}, {"log": 4, "pile": 20, "lay": "R13"}, "lay"),
    ("a draw", {"log": 3, "pile": 20, "lay": "R12"}, {"log": 4, "pile": 19, "lay": "R12"}, "draw"),
    ("the end of a turn", {"log": 3, "pile": 20, "lay": "R12"}, {"log": 4, "pile": 20, "lay": "R12"}, None),
    ("the first lay", {"log": 0, "pile": 20, "lay": None}, {"log": 1, "pile": 20, "lay": "R11"}, "lay"),
    ("a whole game caught up", {"log": 0, "pile": 20, "lay": None}, {"log": 9, "pile": 15, "lay": "R11"}, None),
    ("another game", {"log": 3, "pile": 20, "lay": "R12", "game": 1}, {"log": 4, "pile": 19, "lay": None}, None),
    ("nothing new", {"log": 4, "pile": 19, "lay": "R12"}, {"log": 4, "pile": 19, "lay": "R12"}, None),
]


def model(fields: dict[str, Any]) -> dict[str, Any]:
    lay = fields["lay"]
    return {
        "hasGame": True,
        "gameId": fields.get("game", 2),
        "log": [{}] * fields["log"],
        "pile": fields["pile"],
        "lastLay": None if lay is None else {"seat": 1, "card": lay},
    }


def test_what_is_heard_for_each_change(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    context = browser.new_context()
    contexts.append(context)
    page = context.new_page()
    problems.watch(page, "sound")
    page.goto(server.base + "/rules")
    expect(page.get_by_test_id("rules-page")).to_be_visible()
    cases = [[model(before), model(after)] for _name, before, after, _heard in HEARD]
    heard = page.evaluate(
        "async (cases) => { const { soundFor } = await import('/static/js/sound.js');"
        " return cases.map(([before, after]) => soundFor(before, after)); }",
        cases,
    )
    assert dict(zip([case[0] for case in HEARD], heard, strict=True)) == {case[0]: case[3] for case in HEARD}


@pytest.mark.timeout(150)
@pytest.mark.parametrize(("device", "label"), [(DESKTOP_EN, "Sound"), (PHONE_DE, "Ton")], ids=["en", "de"])
def test_the_sound_is_off_until_switched_on_and_then_remembered(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, device: Device, label: str
) -> None:
    page = open_table(browser, contexts, problems, server, device, sounds=True)
    switch = page.get_by_role("checkbox", name=label)
    expect(switch).to_be_visible()
    expect(switch).not_to_be_checked()
    lay_one(page)
    assert page.evaluate("[window.audioContexts, window.sounds]") == [0, []], "sound before it was turned on"

    switch.check()
    assert page.evaluate("localStorage.getItem('elferraus-sound')") == "on"
    wait_until(page, "window.audioContexts === 1")
    card = reach_a_fit(page)
    heard = page.evaluate("window.sounds.length")
    lay(page, card)
    wait_until(page, f"window.sounds.length > {heard}")
    assert page.evaluate(f"window.sounds[{heard}]") == "tone", "a lay taps: a tone first"

    # a draw brushes: noise, no tone (the first sound after the click is the draw's)
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "never a draw to make"
        until_choice(page)
        now = probe(page)
        if now["draw"]:
            break
        if now["fit"]:
            lay_one(page)
        else:
            page.get_by_test_id("end-turn").click()
    heard = page.evaluate("window.sounds.length")
    page.get_by_test_id("draw").click()
    wait_until(page, f"window.sounds.length > {heard}")
    assert page.evaluate(f"window.sounds[{heard}]") == "noise", page.evaluate("window.sounds")

    page.reload()
    switch = page.get_by_role("checkbox", name=label)
    expect(switch).to_be_checked()
    switch.uncheck()
    assert page.evaluate("localStorage.getItem('elferraus-sound')") is None
    page.reload()
    expect(page.get_by_role("checkbox", name=label)).not_to_be_checked()
    assert json.loads(page.evaluate("JSON.stringify(window.sounds)")) == []
