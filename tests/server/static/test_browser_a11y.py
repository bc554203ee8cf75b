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
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from elferraus.i18n import tr
from elferraus.server.client import RoomClient
from tests.server.static.test_browser import (  # noqa: F401 (the browser tests' fixtures)
    ARTIFACTS,
    CHOICE,
    WORDS,
    Device,
    Problems,
    Server,
    _play_out,
    act,
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
        expect(page.get_by_test_id("play-now")).to_be_visible()
        page.get_by_test_id("setup-open").click()  # axe looks at the folded choices too
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
    browser: Browser,
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
    browser: Browser,
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
            "pace": 0.1,
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


# -- the keyboard alone -----------------------------------------------------------------

# Where the focus is, and whether it shows: an outline of at least 2 px (the page's focus ring), on an
# element that takes room on the page (its layout box: a drawn card turning over is narrow for a moment).
FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  return {
    testid: el.dataset.testid || null,
    tag: el.tagName.toLowerCase(),
    id: el.id || null,
    classes: el.className || "",
    label: (el.getAttribute("aria-label") || el.textContent || "").trim().slice(0, 40),
    ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
    shown: el.offsetWidth > 0 && el.offsetHeight > 0 && style.visibility !== "hidden",  // a card may be mid-flip
  };
}"""


# The hand as the page draws it: each card's test id, tab stop and classes (for a failure's message).
HAND = """[...document.querySelectorAll('[data-testid="hand"] .card')].map(
  (card) => `${card.dataset.testid} ${card.tabIndex} ${card.className}`)"""


class Keyboard:
    """The keys of one page, and every control they brought the focus to (each must show it)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.reached: list[dict[str, Any]] = []

    def focus(self) -> dict[str, Any] | None:
        now: dict[str, Any] | None = self.page.evaluate(FOCUS)
        return now

    def press(self, key: str) -> dict[str, Any] | None:
        self.page.keyboard.press(key)
        now = self.focus()
        if now is not None:
            self.reached.append(now)
            assert now["shown"], f"{key} brought the focus to something not shown: {now}"
            assert now["ring"], f"{key} brought the focus to a control that does not show it: {now}"
        return now

    def tab_to(self, wanted: str, *, back: bool = False, limit: int = 60) -> dict[str, Any]:
        """Tab (or Shift+Tab) until the focus is on the control ``wanted`` (its test id or its id)."""
        key = "Shift+Tab" if back else "Tab"
        for _ in range(limit):
            now = self.press(key)
            if now is not None and wanted in (now["testid"], now["id"]):
                return now
        raise AssertionError(f"{limit} presses of {key} did not reach {wanted}; reached {self.reached[-limit:]}")

    def next_line(self, since: int) -> str:
        """The move log's line after its first ``since`` lines, once there is one: the move just made."""
        wait_until(self.page, f"document.querySelectorAll('[data-testid=\"log\"] li').length > {since}", 15)
        line: str = self.page.locator('[data-testid="log"] li').nth(since).inner_text()
        return line


@pytest.mark.timeout(240)
def test_a_whole_game_with_the_keyboard_alone(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    """You against a computer at pace 0, from the lobby to the result: Tab, Shift+Tab, Enter, Space and
    the arrow keys only, never a click."""
    page = open_device(browser, contexts, DEVICES[2], problems)  # the laptop, in English
    keys = Keyboard(page)
    page.goto(server.base + "/")
    expect(page.get_by_test_id("play-now")).to_be_visible()

    # the lobby: two players, the other a computer, no pause between moves
    keys.tab_to("create-name")
    page.keyboard.type("Anna")
    keys.tab_to("setup-open")
    keys.press("Enter")  # the choices of the game unfold
    expect(page.get_by_test_id("setup")).to_have_attribute("open", "")
    keys.tab_to("players")
    for _ in range(2):
        keys.press("ArrowUp")  # 4 -> 2
    expect(page.get_by_test_id("players")).to_have_value("2")
    keys.tab_to("seat-kind-1")
    keys.press("ArrowDown")  # a friend -> an easy computer
    expect(page.get_by_test_id("seat-kind-1")).to_have_value("computer:easy")
    summary = page.locator("details.more > summary")
    for _ in range(10):
        keys.press("Tab")
        if summary.evaluate("(el) => el === document.activeElement"):
            break
    keys.press("Enter")
    expect(page.locator("details.more")).to_have_attribute("open", "")
    keys.tab_to("pace")
    keys.press("End")  # the last choice: no pause
    expect(page.get_by_test_id("pace")).to_have_value("0")
    keys.tab_to("create")
    page.keyboard.press("Enter")  # to the new room's page
    page.wait_for_url(re.compile(r"/r/[A-Z0-9]+#t="))

    # the room: the host starts
    expect(page.get_by_test_id("start")).to_be_visible()
    keys.tab_to("start")
    keys.press("Space")
    expect(page.locator('[data-testid="hand"] .card').first).to_be_visible()
    # the end of a round's module is fetched with the table, so that the result takes the focus from the last
    # card laid at once (fetched only when the round ended, the focus fell to the page in between)
    wait_until(page, "performance.getEntriesByType('resource').some((entry) => entry.name.includes('result.js'))")

    # the table: a card that fits with the arrows and Enter or Space, else Draw and End turn by Tab
    used: Counter[str] = Counter()
    deadline = time.monotonic() + 180
    while not (now := probe(page))["over"]:
        assert time.monotonic() < deadline, f"the game did not end in time: {dict(used)}"
        if now["busy"] or not now["mine"] or not page.evaluate(CHOICE):
            page.wait_for_timeout(40)  # the computer's turn, or the table makes the only move there is
            continue
        lines = now["log"]
        # each key at least twice: classic rules let one draw, or end the turn, while a card fits
        if now["end"] and (used["end"] < 2 or not (now["fit"] or now["draw"])):
            keys.tab_to("end-turn")
            keys.press("Space")
            assert keys.next_line(lines) == tr("you_pass", "en")
            used["end"] += 1
        elif now["draw"] and (used["draw"] < 2 or not now["fit"]):
            if now["fit"]:  # the cursor on a card that fits: Enter on Draw must still draw, not lay that card
                keys.press("ArrowDown")
            focused = keys.focus()
            keys.tab_to("draw", back=bool(focused and focused["testid"] == "end-turn"))
            keys.press("Enter")
            assert re.fullmatch(tr("you_draw", "en", card=r"[RYGB]\d+"), keys.next_line(lines))
            used["draw"] += 1
        else:
            focused = keys.press("ArrowDown")  # the next card that fits
            assert focused is not None
            assert "fits" in focused["classes"], focused
            keys.press("Enter" if used["lay"] % 2 == 0 else "Space")
            assert keys.next_line(lines) == tr("you_lay", "en", card=str(focused["testid"]).removeprefix("card-"))
            used["lay"] += 1
        if not (after := probe(page))["over"]:  # (at the end the focus goes to the result, below)
            assert keys.focus() is not None, (
                f"the focus fell to the page after {dict(used)}; the focus before: {keys.reached[-3:]}; "
                f"the table now: {after}; the hand: {page.evaluate(HAND)}"
            )
    assert min(used[move] for move in ("lay", "draw", "end")) >= 2, dict(used)

    # the result: the focus comes to it, and its buttons are next
    expect(page.get_by_test_id("winner")).to_be_visible()
    wait_until(page, "document.activeElement === document.querySelector('[data-testid=\"result\"]')")
    keys.tab_to("rematch")
    keys.tab_to("replay-link")
    shot(page, "keyboard-only-result-desktop-en")
    page.keyboard.press("Enter")  # to the replay's page
    page.wait_for_url(re.compile(r"/replay/\d+"))
    expect(page.get_by_test_id("replay-pos")).to_be_visible()
    controls = {(seen["testid"] or seen["id"] or seen["tag"]) for seen in keys.reached}
    print(f"keyboard alone: {dict(used)}; {len(keys.reached)} focus moves over {len(controls)} controls")
