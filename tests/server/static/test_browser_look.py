"""How the web game looks, in a real browser against a real server: rows, cards, result words, screenshots.

- **Rows.** Positions with the longest rows (a row 1-20, rows with both slots, all four rows long, no
  row open) are dealt by hand (``look_helpers.state_frame``: the server's own payloads, sent to the
  real page by a WebSocket Playwright answers) and measured: at 360 px and wider nothing of a row is
  cut off or overflows, every 11 is in one column; at 280 px the rows scroll, with the 11s in view.
- **Cards.** The text on every card, in the hand and in the rows, light and dark, has a contrast of
  at least 4.5 : 1 (WCAG's formula on the computed colours); a card that fits is raised and shows
  its colour's face, the others are dimmed.
- **Words.** The end of a single game says "The game is over", the end of a round of a match "Round
  1 is over", in both languages.
- **Screenshots.** The lobby, the table in the middle of a game and the result, on a phone (360 x 740,
  German) and a laptop (1280 x 800, English), are compared with the committed images in
  ``__screenshots__/`` beside this file: a game dealt from a fixed seed (``tests/support/seeded_server.py``)
  and played by a fixed policy, the font fixed to DejaVu Sans, no animation, no caret, the room's random code masked.
  A pixel differs when a channel differs by more than ``PIXEL_TOLERANCE`` (24 of 255); a screenshot
  fails when more than ``SHARE_LIMIT`` (0.5 %) of its pixels differ, and then the new screenshot,
  the committed one and a diff image (the differing pixels in red) are written to
  ``test-artifacts/screenshots/``. To accept a change of the look, look at those, then write the
  committed images anew::

      ELFERRAUS_UPDATE_SCREENSHOTS=1 .venv/bin/pytest -q tests/server/static/test_browser_look.py \\
          -k screenshot -p no:randomly
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from elferraus.game import Game
from tests.server.static import test_browser
from tests.server.static.test_browser import DESKTOP_EN, PHONE_DE, Device, Problems, Server, run_async, wait_until
from tests.support.look_helpers import (
    SETTLED,
    compare_screenshot,
    frame_at,
    play_for_host,
    position_text,
    room_payload,
    show_frame,
    state_frame,
)

# the browser tests' fixtures: one server and one browser for the module, a fresh context per device
server = test_browser.server
contexts = test_browser.contexts
problems = test_browser.problems

SEED = 20261201
"""The deal of every screenshot game."""
SEEDED_SERVER = ["-m", "tests.support.seeded_server"]


def open_page(
    browser: Browser,
    contexts: list[BrowserContext],
    device: Device,
    problems: Problems,
    *,
    dark: bool = False,
    screenshots: bool = False,
) -> Page:
    """A fresh context with one page. ``screenshots``: the page's Content-Security-Policy is not applied, so
    that the screenshot's stylesheet (one font, no caret) may be; everything else is as in every context."""
    context = browser.new_context(
        viewport={"width": device.width, "height": device.height},
        locale="de-DE" if device.lang == "de" else "en-US",
        device_scale_factor=1,
        is_mobile=device.mobile,
        has_touch=device.mobile,
        color_scheme="dark" if dark else "light",
        bypass_csp=screenshots,
    )
    context.set_default_timeout(20_000)
    contexts.append(context)
    page = context.new_page()
    problems.watch(page, device.name, allow=re.compile(r"WebSocket|ERR_CONNECTION_REFUSED"))
    return page


# -- the rows -------------------------------------------------------------------------------------

# (name, rows, the hand of seat 0): positions with the longest rows the table can have.
LONG_ROWS = [
    ("red 1-20, green 8-14", {"R": (1, 20), "Y": (2, 19), "G": (8, 14), "B": (1, 18)}, ["Y1", "Y20", "G7", "B19"]),
    ("every row with both slots", {"R": (2, 19), "Y": (2, 19), "G": (2, 19), "B": (2, 19)}, ["R1", "R20", "Y1"]),
    ("all four rows long", {"R": (1, 19), "Y": (2, 20), "G": (1, 18), "B": (2, 19)}, ["R20", "Y1", "G19"]),
    ("no row open", {}, ["R11", "Y11", "G11", "B11", "R1", "B20"]),
]

MEASURE = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const wrap = document.querySelector('.board-wrap');
  // the text of a cell (its number, or "not open") beyond the cell's inside (its box less its borders)
  const overflows = (cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const text = range.getBoundingClientRect();
    if (!text.width) return false;
    const r = cell.getBoundingClientRect();
    const s = getComputedStyle(cell);
    const [left, right, top, bottom] = [s.borderLeftWidth, s.borderRightWidth, s.borderTopWidth, s.borderBottomWidth]
      .map(parseFloat);
    return text.left < r.left + left - 0.5 || text.right > r.right - right + 0.5
      || text.top < r.top + top - 0.5 || text.bottom > r.bottom - bottom + 0.5;
  };
  return {
    area: box(document.querySelector('.table-area')),
    wrap: {...box(wrap), scrollWidth: wrap.scrollWidth, clientWidth: wrap.clientWidth, scrollLeft: wrap.scrollLeft},
    rows: [...document.querySelectorAll('[data-testid^="row-"]')].map((row) => ({
      id: row.dataset.testid,
      box: box(row),
      label: box(row.querySelector('.row-label')),
      cells: [...row.querySelectorAll('.cell')].map((cell) => ({
        ...box(cell),
        kind: cell.classList.contains('laid') ? 'laid' : cell.classList.contains('slot') ? 'slot'
          : cell.classList.contains('not-open') ? 'not-open' : 'empty',
        card: cell.dataset.cell || null,
        eleven: cell.classList.contains('eleven'),
        text: (cell.querySelector('.n') || cell).textContent,
        over: overflows(cell),
        font: parseFloat(getComputedStyle(cell.querySelector('.n') || cell).fontSize),
      })),
    })),
  };
}"""


def inside(inner: dict[str, float], outer: dict[str, float], slack: float = 0.5) -> bool:
    return (
        inner["left"] >= outer["left"] - slack
        and inner["right"] <= outer["right"] + slack
        and inner["top"] >= outer["top"] - slack
        and inner["bottom"] <= outer["bottom"] + slack
    )


def row_problems(shown: dict[str, Any], frame: dict[str, Any]) -> list[str]:
    """Everything cut off, overflowing, misplaced or unmarked in the rows as measured."""
    found = []
    wrap, area = shown["wrap"], shown["area"]
    if wrap["scrollWidth"] > wrap["clientWidth"]:
        found.append(f"the rows need {wrap['scrollWidth']} px and have {wrap['clientWidth']}: they scroll")
    if not inside(wrap, area):
        found.append(f"the rows' box {wrap} leaves the table's {area}")
    columns: dict[int, set[float]] = {}
    for row in shown["rows"]:
        letter = row["id"][-1]
        low_high = frame["game"]["rows"].get(letter)
        slots = frame["game"]["slots"][letter]
        boxes = [row["label"], *row["cells"]]
        for one in boxes:
            if not inside(one, wrap):
                what = one.get("card") or one.get("kind", "label")
                found.append(f"{row['id']}: {what} at {one} is cut off by {wrap}")
        for before, after in itertools.pairwise(boxes):
            if after["left"] < before["right"] - 0.5:
                found.append(f"{row['id']}: {after.get('card') or after['kind']} overlaps the one before it")
        for number, cell in enumerate(row["cells"], start=1):
            if cell["kind"] == "not-open":
                continue
            columns.setdefault(number, set()).add(round((cell["left"] + cell["right"]) / 2, 1))
            if cell["over"]:
                found.append(f"{row['id']}: the text of {cell['card']} overflows its cell")
            width = cell["right"] - cell["left"]
            if width < 13 or cell["font"] < 11:
                found.append(f"{row['id']}: cell {number} is {width:.1f} px wide, its text {cell['font']} px")
            laid = low_high is not None and low_high[0] <= number <= low_high[1]
            expected = "laid" if laid else "slot" if number in slots else "empty"
            if cell["kind"] != expected or (expected != "empty" and cell["text"] != str(number)):
                found.append(f"{row['id']} {number}: shown as {cell['kind']} {cell['text']!r}, should be {expected}")
            if cell["eleven"] != (number == 11):
                found.append(f"{row['id']}: cell {number} is marked as the 11 or is not")
        if low_high is None and [c["kind"] for c in row["cells"]][-1] != "not-open":
            found.append(f"{row['id']}: a closed row should say it is not open")
    for number, centres in columns.items():
        if max(centres) - min(centres) > 0.6:
            found.append(f"column {number} is not one column: centres {sorted(centres)}")
    return found


@pytest.mark.timeout(60)
@pytest.mark.parametrize("width", [360, 390, 1280])
@pytest.mark.parametrize(("name", "rows", "hand"), LONG_ROWS, ids=[case[0] for case in LONG_ROWS])
def test_the_longest_rows_are_whole_with_every_11_in_one_column(
    server: Server,
    browser: Browser,
    contexts: list[BrowserContext],
    problems: Problems,
    width: int,
    name: str,
    rows: dict[str, tuple[int, int]],
    hand: list[str],
) -> None:
    frame = frame_at(position_text(rows, hand))
    device = Device(f"{width}px", width, 740 if width < 600 else 800, "en")
    page = open_page(browser, contexts, device, problems)
    show_frame(page, server.base, frame)
    shown = page.evaluate(MEASURE)
    assert [row["id"] for row in shown["rows"]] == ["row-R", "row-Y", "row-G", "row-B"]
    found = row_problems(shown, frame)
    assert not found, f"{name} at {width} px:\n" + "\n".join(found[:20])


@pytest.mark.timeout(60)
def test_on_a_narrower_screen_the_rows_scroll_with_the_11s_in_view(
    server: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems
) -> None:
    _name, rows, hand = LONG_ROWS[0]
    frame = frame_at(position_text(rows, hand))
    page = open_page(browser, contexts, Device("280px", 280, 653, "en"), problems)
    show_frame(page, server.base, frame)
    shown = page.evaluate(MEASURE)
    wrap = shown["wrap"]
    assert wrap["scrollWidth"] > wrap["clientWidth"], "280 px is too narrow for 20 columns of 13 px: they should scroll"
    for row in shown["rows"]:
        eleven = next(cell for cell in row["cells"] if cell["eleven"])
        assert eleven["left"] >= row["label"]["right"] - 0.5, f"{row['id']}: its 11 hides under {row['label']}"
        assert eleven["right"] <= wrap["right"] + 0.5, f"{row['id']}: its 11 at {eleven} is out of view ({wrap})"
        assert all(not cell["over"] for cell in row["cells"]), f"{row['id']}: a cell's text overflows it"
    # scrolled to either end, the first and the last column come out from under the row's label
    page.evaluate("document.querySelector('.board-wrap').scrollLeft = 0")
    start = page.evaluate(MEASURE)
    page.evaluate("const w = document.querySelector('.board-wrap'); w.scrollLeft = w.scrollWidth")
    end = page.evaluate(MEASURE)
    for before, after in zip(start["rows"], end["rows"], strict=True):
        assert before["cells"][0]["left"] >= before["label"]["right"] - 0.5, f"{before['id']}: 1 hides under its label"
        assert after["cells"][-1]["right"] <= end["wrap"]["right"] + 0.5, f"{after['id']}: 20 cannot be scrolled to"


# -- the cards ------------------------------------------------------------------------------------


def luminance(css: str) -> float:
    """WCAG's relative luminance of an opaque ``rgb(r, g, b)``."""
    values = [float(part) for part in re.findall(r"[\d.]+", css)[:3]]
    alpha = re.findall(r"[\d.]+", css)[3:4]
    assert not alpha or float(alpha[0]) == 1, f"{css} is not opaque: its contrast depends on what is under it"
    linear = [v / 255 / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in values]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(text: str, background: str) -> float:
    a, b = sorted((luminance(text), luminance(background)), reverse=True)
    return (a + 0.05) / (b + 0.05)


COLOURS = """() => {
  const style = (el) => getComputedStyle(el);
  const out = [];
  for (const card of document.querySelectorAll('[data-testid="hand"] .card')) {
    const state = card.classList.contains('fits') ? 'fits' : card.classList.contains('dim') ? 'dim' : 'plain';
    for (const part of ['.num', '.corner']) {
      out.push({what: `hand ${card.dataset.card} ${state} ${part}`, color: style(card.querySelector(part)).color,
                background: style(card).backgroundColor, top: card.getBoundingClientRect().top, state});
    }
  }
  for (const cell of document.querySelectorAll('.cell.laid, .cell.slot')) {
    out.push({what: `row ${cell.dataset.cell} ${cell.classList.contains('laid') ? 'laid' : 'slot'}`,
              color: style(cell.querySelector('.n')).color, background: style(cell).backgroundColor});
  }
  return out;
}"""

LINES = """[...document.querySelectorAll('.hand-line')]
  .map((line) => [...line.children].map((card) => [card.className, card.getBoundingClientRect().top]))"""

# Seat 0 holds cards of every colour that fit and that do not: on his turn, and while another player moves
# (no card is marked then).
CARD_ROWS = {"R": (5, 12), "Y": (9, 15), "G": (11, 11), "B": (3, 18)}
CARD_HAND = ["R4", "R13", "R19", "Y2", "Y8", "Y16", "G10", "G12", "G20", "B1", "B2", "B19"]
CARD_POSITIONS = [
    ("my turn", position_text(CARD_ROWS, CARD_HAND)),
    ("another's turn", position_text(CARD_ROWS, CARD_HAND, turn=1)),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize(("name", "text"), CARD_POSITIONS, ids=[case[0] for case in CARD_POSITIONS])
def test_card_text_has_a_contrast_of_at_least_4_5_and_fitting_cards_stand_out(
    server: Server,
    browser: Browser,
    contexts: list[BrowserContext],
    problems: Problems,
    dark: bool,
    name: str,
    text: str,
) -> None:
    frame = frame_at(text)
    page = open_page(browser, contexts, PHONE_DE, problems, dark=dark)
    show_frame(page, server.base, frame)
    seen = page.evaluate(COLOURS)
    low = [
        f"{item['what']}: {contrast(item['color'], item['background']):.2f} ({item['color']} on {item['background']})"
        for item in seen
        if contrast(item["color"], item["background"]) < 4.5
    ]
    assert not low, "\n".join(low)
    assert {item["what"].split()[-1] for item in seen if item["what"].startswith("row")} == {"laid", "slot"}
    states = {item["what"].split()[1]: item["state"] for item in seen if item["what"].startswith("hand")}
    fitting = {move for move in frame["view"]["legal"] if move not in ("draw", "pass")}
    if name == "my turn":
        assert fitting
        assert states == {card: "fits" if card in fitting else "dim" for card in frame["view"]["hand"]}
        # on one line, a fitting card stands higher than a dimmed one
        lines = page.evaluate(LINES)
        assert any(" fits" in cls for line in lines for cls, _top in line)
        for line in lines:
            raised = [top for cls, top in line if " fits" in cls]
            dimmed = [top for cls, top in line if " dim" in cls]
            if raised and dimmed:
                assert max(raised) <= min(dimmed) - 8, line
    else:
        assert set(states.values()) == {"plain"}, states


# -- the words of the result ----------------------------------------------------------------------


def finished_game(seed: int = 5) -> Game:
    """A 2-player game played to its end (always the first legal move)."""
    game = Game.deal(players=2, seed=seed)
    while not game.is_over():
        game.push(game.legal_moves()[0])
    return game


RESULT_WORDS = [
    (1, PHONE_DE, "Das Spiel ist vorbei"),
    (1, DESKTOP_EN, "The game is over"),
    (3, PHONE_DE, "Runde 1 ist vorbei"),
    (3, DESKTOP_EN, "Round 1 is over"),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("rounds", "device", "title"), RESULT_WORDS, ids=[f"{r}-{d.lang}" for r, d, _ in RESULT_WORDS])
def test_the_result_says_the_game_is_over_or_which_round_is(
    server: Server,
    browser: Browser,
    contexts: list[BrowserContext],
    problems: Problems,
    rounds: int,
    device: Device,
    title: str,
) -> None:
    page = open_page(browser, contexts, device, problems)
    show_frame(page, server.base, state_frame(finished_game(), rounds=rounds))
    expect(page.locator("#result-head")).to_have_text(title)
    if rounds > 1:
        expect(page.get_by_test_id("next-round")).to_be_visible()
    else:
        expect(page.get_by_test_id("rematch")).to_be_visible()


def test_the_hand_dealt_room_is_shaped_as_the_servers(server: Server) -> None:
    """The ROOM of the hand-dealt frames has the keys of the server's own (``GET /api/rooms/CODE``)."""
    created = server.room_with_computer()
    real = server.get(f"/api/rooms/{created['code']}")
    made = room_payload(2, ["Anna"])
    assert set(made) == set(real)
    assert [set(seat) for seat in made["seats"]] == [set(seat) for seat in real["seats"]]
    assert {key: type(value) for key, value in made.items()} == {key: type(value) for key, value in real.items()}


# -- screenshots ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose every match is dealt from ``SEED``."""
    running = Server(tmp_path_factory.mktemp("look") / "games.sqlite3", entry=[*SEEDED_SERVER, str(SEED)])
    running.start()
    try:
        yield running
    finally:
        running.stop()


def seeded_room(server: Server, name: str, players: int) -> dict[str, Any]:
    return server.post(
        "/api/rooms",
        {"name": name, "players": players, "rules": "classic", "rounds": 1, "fill": "easy", "away": 600, "pace": 0},
    )


SCREENS = [PHONE_DE, DESKTOP_EN]


@pytest.mark.timeout(180)
@pytest.mark.parametrize("device", SCREENS, ids=lambda d: d.name)
def test_screenshots_of_lobby_table_and_result_match_the_committed_ones(
    seeded: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, device: Device
) -> None:
    page = open_page(browser, contexts, device, problems, screenshots=True)
    page.goto(seeded.base + "/")
    expect(page.get_by_test_id("play-now")).to_be_visible()
    wait_until(page, SETTLED)
    compare_screenshot(page, f"lobby-{device.name}", full_page=True)

    table = seeded_room(seeded, "Anna", 4)
    run_async(play_for_host(seeded.base, table["code"], table["token"], choices=14))
    page = open_page(browser, contexts, device, problems, screenshots=True)
    page.goto(seeded.base + table["link"] + "&s=0")
    expect(page.get_by_test_id("status")).to_have_class(re.compile(r"\bmine\b"))
    expect(page.locator('[data-testid="hand"] .card.fits').first).to_be_visible()
    wait_until(page, SETTLED)
    compare_screenshot(page, f"table-{device.name}", mask=[page.get_by_test_id("context")])

    over = seeded_room(seeded, "Anna", 2)
    run_async(play_for_host(seeded.base, over["code"], over["token"], choices=None))
    page = open_page(browser, contexts, device, problems, screenshots=True)
    page.goto(seeded.base + over["link"] + "&s=0")
    expect(page.get_by_test_id("result")).to_be_visible()
    wait_until(page, SETTLED)
    compare_screenshot(page, f"result-{device.name}", mask=[page.get_by_test_id("context")], full_page=True)


# Every layout shift of the page from its start, with what moved (Chromium's Layout Instability API).
LAYOUT_SHIFTS = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const moved = (entry.sources || []).map((source) => [String(source.node && source.node.nodeName),
      source.node && source.node.className, source.previousRect.toJSON(), source.currentRect.toJSON()]);
    window.__shifts.push({ value: entry.value, moved });
  }
}).observe({ type: "layout-shift", buffered: true });
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("device", SCREENS, ids=lambda d: d.name)
def test_a_table_and_a_finished_round_are_drawn_whole_and_nothing_moves_as_they_come(
    seeded: Server, browser: Browser, contexts: list[BrowserContext], problems: Problems, device: Device
) -> None:
    """Opened from its link, a game under way and a round already over are each drawn once, whole: nothing the
    reader already sees is pushed down the page as the rest arrives (the result came later and pushed the hand, the
    buttons and the log down by a screen's height: Lighthouse's layout shift of 0.22 on a phone). What may move is a
    trace: the header's links by a few pixels while the connection's badge shows for a moment (a layout shift of
    0.001; Lighthouse calls below 0.1 good), so the page's shifts must sum to less than 0.01."""
    table = seeded_room(seeded, "Anna", 4)
    run_async(play_for_host(seeded.base, table["code"], table["token"], choices=3))
    over = seeded_room(seeded, "Anna", 2)
    run_async(play_for_host(seeded.base, over["code"], over["token"], choices=None))
    for room, shown in ((table, "hand"), (over, "result")):
        page = open_page(browser, contexts, device, problems)
        page.add_init_script(LAYOUT_SHIFTS)
        page.goto(seeded.base + room["link"] + "&s=0")
        expect(page.get_by_test_id(shown)).to_be_visible()
        wait_until(page, SETTLED)
        shifts = page.evaluate("window.__shifts")
        assert sum(shift["value"] for shift in shifts) < 0.01, f"{shown}: {shifts}"
