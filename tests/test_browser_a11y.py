"""Accessibility of the web game, measured in a real browser against a real server.

- axe-core (through ``axe-playwright-python``) checks the lobby, a room before the start, the table
  in the middle of a game and the result of a round, in English and German, on a phone (390x844) and
  a laptop (1280x800): no violation may be serious or critical. The counts of every impact are kept
  in ``test-artifacts/a11y/axe-*.json`` and printed.
- The screen reader's live region follows a game: one announcement per move, computers' included,
  in the page's language, with the turn when it comes to the reader and the winner at the end.
- A whole game, from the lobby to the result, played with the keyboard alone (Tab, Shift+Tab, Enter,
  Space and the arrow keys), every control it reaches showing where the focus is.

The server is ``elferraus serve`` in a subprocess, the browser Debian's Chromium (see test_browser.py).
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from elferraus.server.client import RoomClient
from test_browser import (  # noqa: F401 (the browser tests' fixtures)
    ARTIFACTS,
    CHOICE,
    WORDS,
    Device,
    Problems,
    Server,
    _play_out,
    act,
    browser,
    contexts,
    open_device,
    probe,
    problems,
    run_async,
    server,
    shot,
    wait_until,
)

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
DEVICES = [Device(f"{size}-{lang}", *SIZES[size], lang) for size in SIZES for lang in ("en", "de")]
SCREENS = ("lobby", "room-waiting", "table", "result")
BLOCKING = ("serious", "critical")
IMPACTS = ("minor", "moderate", "serious", "critical")
A11Y_ARTIFACTS = ARTIFACTS.parent / "a11y"


# -- the screens ----------------------------------------------------------------------


async def _play_until_mid_game(base: str, code: str, token: str, moves: int = 8) -> None:
    """The host starts and plays (the first legal move each time) until the game has ``moves`` moves and it
    is his turn to choose again."""
    async with RoomClient(base, code, token) as host:
        await host.until(lambda s: s["seat"] == 0)
        await host.send({"type": "start"})
        await host.until(lambda s: s["room"]["status"] == "playing")
        while True:
            state = await host.until(lambda s: host.my_turn or s["room"]["status"] != "playing", 30)
            if state["room"]["status"] != "playing":
                raise AssertionError("the game ended before the middle")
            if len(state["game"]["moves"]) >= moves:
                return
            sent = state["seq"]
            await host.move(state["view"]["legal"][0])
            await host.until(lambda s, sent=sent: s["seq"] > sent or bool(host.errors), 10)
            host.errors.clear()


def open_screen(server: Server, page: Page, screen: str) -> None:  # noqa: F811 (the fixture's value)
    """Bring ``page`` to ``screen``, in a room of its own."""
    if screen == "lobby":
        page.goto(server.base + "/")
        expect(page.get_by_test_id("create")).to_be_visible()
        return
    if screen == "room-waiting":
        seats = [{"kind": "open"}, {"kind": "computer"}]
        room = server.post("/api/rooms", {"name": "Anna", "players": 3, "seats": seats})
        page.goto(server.base + room["link"] + "&s=0")
        expect(page.get_by_test_id("start")).to_be_visible()
        return
    room = server.room_with_computer(pace=0)  # the table waits for the host: nothing moves while axe looks
    if screen == "table":
        run_async(_play_until_mid_game(server.base, room["code"], room["token"]))
        page.goto(server.base + room["link"] + "&s=0")
        expect(page.get_by_test_id("status")).to_have_class(re.compile(r"\bmine\b"))
        page.get_by_test_id("react").click()  # the reactions' choices are checked too
        expect(page.get_by_test_id("reaction-choices")).to_be_visible()
    else:
        run_async(_play_out(server.base, room["code"], room["token"]))
        page.goto(server.base + room["link"] + "&s=0")
        expect(page.get_by_test_id("winner")).to_be_visible()
    expect(page.locator(".card.flying")).to_have_count(0)


# -- axe ------------------------------------------------------------------------------


def axe_report(page: Page) -> tuple[Counter[str], dict[str, str], list[str]]:
    """axe-core's violations on the page: how many nodes of each impact, the impact of each rule broken,
    and the serious and critical ones described (rule, impact, what it says, where)."""
    results = Axe().run(page)
    counts: Counter[str] = Counter(dict.fromkeys(IMPACTS, 0))
    rules = {}
    blocking = []
    for violation in results.response["violations"]:
        counts[violation["impact"]] += len(violation["nodes"])
        rules[violation["id"]] = violation["impact"]
        if violation["impact"] in BLOCKING:
            for node in violation["nodes"]:
                blocking.append(
                    f"{violation['id']} ({violation['impact']}): {violation['help']} at {node['target']}: "
                    f"{node.get('failureSummary', '')}"
                )
    return counts, rules, blocking


@pytest.mark.timeout(120)
@pytest.mark.parametrize("device", DEVICES, ids=lambda device: device.name)
@pytest.mark.parametrize("screen", SCREENS)
def test_axe_finds_nothing_serious(
    server: Server,  # noqa: F811 (the fixtures imported above)
    browser: Browser,  # noqa: F811
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
    screen: str,
    device: Device,
) -> None:
    page = open_device(browser, contexts, device, problems)
    open_screen(server, page, screen)
    assert page.evaluate("document.documentElement.lang") == device.lang
    counts, rules, blocking = axe_report(page)
    shot(page, f"a11y-{screen}-{device.name}")
    A11Y_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    found = json.dumps({"nodes": counts, "rules": rules})
    (A11Y_ARTIFACTS / f"axe-{screen}-{device.name}.json").write_text(found + "\n")
    print(f"axe {screen} {device.name}: " + ", ".join(f"{impact} {counts[impact]}" for impact in IMPACTS))
    assert not blocking, "\n".join(blocking)


# -- the live region --------------------------------------------------------------------

# Every announcement the live region makes, kept by the page as it happens.
LISTEN = """() => {
  window.announced = [];
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.target.dataset && record.target.dataset.testid === "announcer") {
        for (const node of record.addedNodes) window.announced.push(node.textContent);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def segments(announcement: str) -> list[str]:
    """The sentences of one announcement (its parts, joined after a full stop)."""
    return [part for part in re.split(r"(?<=[.!?]) |\. ", announcement) if part]


@pytest.mark.timeout(180)
@pytest.mark.parametrize("device", [DEVICES[0], DEVICES[3]], ids=lambda device: device.name)
def test_the_live_region_announces_each_move_once_in_the_pages_language(
    server: Server,  # noqa: F811
    browser: Browser,  # noqa: F811
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
    device: Device,
) -> None:
    lang = device.lang
    room = server.post(
        "/api/rooms",
        {
            "name": "Anna",
            "players": 3,
            "fill": "easy",
            "seats": [{"kind": "computer", "level": "easy"}, {"kind": "computer", "level": "easy"}],
            "pace": 0.3,
        },
    )
    page = open_device(browser, contexts, device, problems)
    page.goto(server.base + room["link"] + "&s=0")
    page.evaluate(LISTEN)
    page.get_by_test_id("start").click()
    region = page.get_by_test_id("announcer")
    expect(region).to_have_attribute("aria-live", "polite")
    deadline = time.monotonic() + 150
    while not (now := probe(page))["over"]:
        assert time.monotonic() < deadline, "the game did not end in time"
        if not act(page, now):
            page.wait_for_timeout(40)
    expect(page.get_by_test_id("winner")).to_be_visible()
    page.wait_for_timeout(300)
    announced: list[str] = page.evaluate("window.announced")
    lines: list[str] = page.evaluate(
        "[...document.querySelectorAll('[data-testid=\"log\"] li')].map((li) => li.textContent)"
    )
    assert len(lines) > 20, lines

    # every move is in exactly one announcement, in the order played
    heard = [segment for text in announced for segment in segments(text) if segment in lines]
    assert heard == lines, (announced, lines)
    # nothing floods: each announcement tells at least one move (the first may be the reader's turn alone)
    empty = [text for text in announced[1:] if not any(segment in lines for segment in segments(text))]
    assert not empty, empty
    assert len(announced) <= len(lines) + 1
    # the reader's turn is said when it comes, the winner at the end, all in the page's language
    assert any(WORDS[lang]["status"].search(text) for text in announced), announced
    assert WORDS[lang]["won"].search(announced[-1]), announced[-1]
    assert [line for line in heard if "Computer" in line], "the computers' moves are announced too"
    shot(page, f"announcer-{device.name}")
