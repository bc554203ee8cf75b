"""Quick reactions in the browser: two people at one table, each page in its own language.

Anna (desktop, English) reacts through her page's own controls; Ben (phone, German) sees it beside
Anna's seat in German, and hears it through the screen reader's announcement, for a few seconds. The
server is ``elferraus serve`` in a subprocess, the browser Debian's Chromium (see test_browser.py).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from elferraus.i18n import tr
from elferraus.server.rooms.reactions import REACTION_BURST, REACTION_INTERVAL, REACTIONS
from tests.server.static.test_browser import (  # noqa: F401 (the browser tests' fixtures)
    DESKTOP_EN,
    PHONE_DE,
    Problems,
    Server,
    contexts,
    open_device,
    problems,
    server,
    shot,
)


@pytest.mark.timeout(120)
def test_a_reaction_shows_beside_the_senders_seat_in_each_readers_language(
    server: Server,  # noqa: F811 (the fixtures imported above)
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    room = server.post(
        "/api/rooms",
        {"name": "Anna", "players": 3, "seats": [{"kind": "open"}, {"kind": "computer", "level": "easy"}], "pace": 5},
    )
    ben_seat = server.post(f"/api/rooms/{room['code']}/join", {"name": "Ben", "seat": 1})
    anna = open_device(browser, contexts, DESKTOP_EN, problems, "anna")
    ben = open_device(browser, contexts, PHONE_DE, problems, "ben")
    watcher = open_device(browser, contexts, DESKTOP_EN, problems, "watcher")
    anna.goto(server.base + room["link"] + "&s=0")
    ben.goto(server.base + ben_seat["link"] + "&s=1")
    anna.get_by_test_id("start").click()
    for page in (anna, ben):
        expect(page.locator('[data-testid="hand"] .card').first).to_be_visible()
    watcher.goto(server.base + f"/r/{room['code']}")
    expect(watcher.get_by_test_id("board")).to_be_visible()
    expect(watcher.get_by_test_id("reactions")).to_be_hidden()  # a spectator has nothing to send

    # the page offers exactly the server's reactions, worded in its language
    anna.get_by_test_id("react").click()
    expect(anna.get_by_test_id("react")).to_have_attribute("aria-expanded", "true")
    offered = anna.locator('[data-testid="reaction-choices"] button')
    assert [offered.nth(i).get_attribute("data-reaction") for i in range(offered.count())] == list(REACTIONS)
    expect(anna.get_by_test_id("react-hurry")).to_have_text(tr("reaction_hurry", "en"))
    expect(anna.get_by_test_id("react-thumbs_up")).to_have_accessible_name(re.compile(tr("reaction_thumbs_up", "en")))
    shot(anna, "reactions-desktop-en-1-choices")
    anna.get_by_test_id("react-thanks").click()
    expect(anna.get_by_test_id("reaction-choices")).to_be_hidden()

    # Ben reads it beside Anna's seat, in German; Anna sees her own beside her hand; the watcher too
    bubble = ben.locator('[data-testid="seat-0"] [data-testid="reaction-0"]')
    expect(bubble).to_have_text(tr("reaction_thanks", "de"))
    expect(ben.get_by_test_id("announcer")).to_have_text(tr("web_reaction_said", "de", name="Anna", reaction="Danke"))
    expect(anna.get_by_test_id("reaction-0")).to_have_text(tr("reaction_thanks", "en"))
    expect(watcher.locator('[data-testid="seat-0"] [data-testid="reaction-0"]')).to_have_text("Thanks")
    shot(ben, "reactions-phone-de-2-seen")
    # ... for a few seconds only
    expect(bubble).to_have_count(0, timeout=8_000)

    # Ben answers with an emoji: Anna's page shows it beside Ben's seat, named in English
    ben.get_by_test_id("react").click()
    ben.get_by_test_id("react-party").click()
    from_ben = anna.locator('[data-testid="seat-1"] [data-testid="reaction-1"]')
    expect(from_ben).to_contain_text("🎉")
    expect(from_ben).to_contain_text(tr("reaction_party", "en"))
    shot(anna, "reactions-desktop-en-3-emoji")

    # past the limit the server says why, in the sender's language; nobody is shown the extra ones
    anna.wait_for_timeout(REACTION_INTERVAL * 1000)
    for _ in range(REACTION_BURST + 1):
        anna.get_by_test_id("react").click()
        anna.get_by_test_id("react-oops").click()
    words = tr("web_error_too_many_reactions", "en", seconds=f"{REACTION_INTERVAL:g}", burst=REACTION_BURST)
    expect(anna.get_by_test_id("error")).to_have_text(words)
    expect(ben.locator('[data-testid="reaction-0"]')).to_have_text(tr("reaction_oops", "de"))
