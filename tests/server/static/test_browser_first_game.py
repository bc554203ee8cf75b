"""A family's first game in a real browser: one tap from the lobby to a card to lay, and the page's manners at
the table (focus, the main button, notes that go when they are old, the way back to one's seat).

The server is ``elferraus serve`` in a subprocess, the browser Debian's Chromium (see test_browser.py).
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.server.static.test_browser import (  # noqa: F401 (the browser tests' fixtures)
    Device,
    Problems,
    Server,
    browser,
    contexts,
    open_device,
    problems,
    server,
    shot,
    wait_until,
)

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
@pytest.mark.parametrize("device", DEVICES, ids=lambda device: device.name)
def test_one_tap_from_the_lobby_to_a_card_to_lay(
    server: Server,  # noqa: F811 (the fixtures imported above)
    browser: Browser,  # noqa: F811
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
    print(
        f"\n{device.name} ({device.width}x{device.height}): page open -> a card to lay "
        f"{layable - opened:.2f} s (after the tap {layable - tapped:.2f} s)"
    )
    shot(page, f"play-now-{device.name}")


@pytest.mark.timeout(90)
def test_the_name_is_remembered_and_play_with_friends_opens_a_room_with_a_seat_for_a_friend(
    server: Server,  # noqa: F811
    browser: Browser,  # noqa: F811
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
