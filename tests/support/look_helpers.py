"""Pieces of the look tests: hand-dealt positions shown to the real page, and screenshots compared.

**Hand-dealt positions.** :func:`state_frame` builds the ``state`` frame the server would send seat 0
for a position string (:mod:`elferraus.position`), with the server's own payload builders; the page
at ``/r/CODE`` (served by a real server) gets it from a WebSocket that Playwright answers in the
server's place (:func:`show_frame`). So any position, a row 1-20 or every slot at once, can be drawn
without playing up to it.

**Screenshots.** :func:`compare_screenshot` takes a screenshot and compares it with the committed one
in ``tests/server/static/__screenshots__/`` (``SCREENSHOTS``): a pixel differs when one of its channels differs
by more than ``PIXEL_TOLERANCE`` (of 255), and the test fails when more than ``SHARE_LIMIT`` of the pixels differ
(anti-aliasing and font hinting move a few edge pixels; a changed card, row or word moves thousands).
On failure the screenshot, the committed one and a diff image (differing pixels in red over the
committed image, faded) are saved under ``test-artifacts/screenshots/``. With
``ELFERRAUS_UPDATE_SCREENSHOTS=1`` the committed images are written instead (in 256 colours, to keep
them small).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageChops
from playwright.sync_api import Locator, Page, WebSocketRoute

from elferraus import read_position
from elferraus.cards import CARDS
from elferraus.game import Game
from elferraus.server.client import RoomClient
from elferraus.server.rooms.payloads import game_payload, hidden_moves, view_payload
from tests.support import ROOT

SCREENSHOTS = ROOT / "tests" / "server" / "static" / "__screenshots__"
ARTIFACTS = ROOT / "test-artifacts" / "screenshots"
UPDATE = os.environ.get("ELFERRAUS_UPDATE_SCREENSHOTS") == "1"

PIXEL_TOLERANCE = 24
"""A pixel differs when a channel differs by more than this (of 255): anti-aliased edges may shift a little."""
SHARE_LIMIT = 0.005
"""The share of differing pixels a screenshot may have (0.5 %). One card changed is about 0.3 % of a phone screen,
a word of the status line more, so anything that matters is seen; rounding at glyph edges is not, nor the
committed images' 256-colour palette (which alone moves about 0.1 % of the pixels past the tolerance)."""

LOOK_STYLE = """
*, *::before, *::after { font-family: "DejaVu Sans", sans-serif !important; caret-color: transparent !important; }
"""
"""Applied while a screenshot is taken: one font that every Debian has (the page asks for the system's),
no caret."""

CODE = "CARDS2"
"""The room code of hand-dealt positions (the page is served for any code; no such room exists)."""
DECK = "RYGB"


# -- hand-dealt positions ---------------------------------------------------------------------------


def position_text(
    rows: dict[str, tuple[int, int]], hand: Sequence[str], players: int = 4, others: int = 6, turn: int = 0
) -> str:
    """A classic position: ``rows`` on the table, ``hand`` in seat 0's hand, ``others`` cards in each other
    hand (those left in the deck's order, dealt round the table), the rest in the pile."""
    on_table = {f"{color}{n}" for color, (low, high) in rows.items() for n in range(low, high + 1)}
    mine = list(hand)
    assert not on_table & set(mine), "a card both on the table and in the hand"
    rest = [str(card) for card in CARDS if str(card) not in on_table and str(card) not in mine]
    hands: list[list[str]] = [mine] + [[] for _ in range(players - 1)]
    for seat in range(1, players):
        hands[seat] = rest[(seat - 1) :: players - 1][:others]
    dealt = {card for hand_cards in hands for card in hand_cards}
    pile = [card for card in rest if card not in dealt]
    row_text = ",".join(f"{color}{low}-{high}" for color, (low, high) in rows.items()) or "-"
    hands_text = "/".join("".join(cards) or "-" for cards in hands)
    return f"{row_text} {hands_text} {''.join(pile) or '-'} {turn} -:0:- {DECK}:3:free:end"


def room_payload(players: int, names: Sequence[str], *, status: str = "playing", rounds: int = 1) -> dict[str, Any]:
    """A ``ROOM`` as the server sends it (seat 0 a person, online; the others easy computers)."""
    seats = [
        {
            "seat": seat,
            "name": names[seat] if seat < len(names) else None,
            "kind": "person" if seat == 0 else "computer",
            "level": None if seat == 0 else "easy",
            "online": True,
            "auto": False,
        }
        for seat in range(players)
    ]
    return {
        "code": CODE,
        "status": status,
        "players": players,
        "rules": "classic",
        "rounds": rounds,
        "fill": "easy",
        "away": 600.0,
        "pace": 0.0,
        "round": 1,
        "seats": seats,
        "scores": [],
        "totals": [0] * players,
        "host": 0,
    }


def state_frame(game: Game, names: Sequence[str] = ("Anna",), *, rounds: int = 1, game_id: int = 1) -> dict[str, Any]:
    """The ``state`` frame for seat 0 at ``game``, built as the server builds it."""
    room = room_payload(game.players, names, rounds=rounds)
    if game.is_over():  # the end of the first round: of the match too when it has one round
        room["status"] = "round_over" if rounds > 1 else "match_over"
        room["scores"] = [game.penalties()]
        room["totals"] = game.penalties()
    return {
        "type": "state",
        "seq": 1,
        "seat": 0,
        "room": room,
        "view": view_payload(game.view(0)),
        "game": game_payload(game, game_id, hidden_moves(game)),
    }


def frame_at(text: str, **kwargs: Any) -> dict[str, Any]:
    return state_frame(read_position(text), **kwargs)


SETTLED = """() => !document.querySelector('#main.pending') && !document.querySelector('.card.flying')
  && document.fonts.status === 'loaded'"""
"""The page has drawn what it was sent: no move waiting for the server, no card in flight, its fonts loaded."""


class Feed:
    """The room page with hand-made ``state`` frames for the server's answers: the first one to its hello, the
    others when the test sends them (each with the next ``seq``). Once per page: a second feed would only change
    the address's fragment, not load the page again."""

    def __init__(self, page: Page, base: str, frame: dict[str, Any]) -> None:
        self.sockets: list[WebSocketRoute] = []
        self.seq = frame["seq"]

        def answer(socket: WebSocketRoute) -> None:
            self.sockets.append(socket)

            def hello(message: str | bytes) -> None:
                if json.loads(message).get("type") == "hello":
                    socket.send(json.dumps(frame))

            socket.on_message(hello)

        page.route_web_socket(re.compile(r"/ws/"), answer)
        page.goto(f"{base}/r/{CODE}#t=look-token&s=0")
        page.locator('[data-testid="board"]').wait_for()

    def send(self, frame: dict[str, Any]) -> None:
        """Send ``frame`` as the server's next state."""
        self.seq += 1
        self.sockets[-1].send(json.dumps({**frame, "seq": self.seq}))


def show_frame(page: Page, base: str, frame: dict[str, Any]) -> None:
    """Open the room page with ``frame`` as the server's only answer to its ``hello``; wait for the table."""
    Feed(page, base, frame)
    page.evaluate("document.fonts.ready.then(() => true)")


# -- screenshots ---------------------------------------------------------------------------------------


def compare_screenshot(page: Page, name: str, *, mask: Sequence[Locator] = (), full_page: bool = False) -> None:
    """Compare a screenshot of ``page`` with ``SCREENSHOTS/NAME.png`` (see the module's docstring)."""
    expected_path = SCREENSHOTS / f"{name}.png"
    png = page.screenshot(
        animations="disabled", caret="hide", style=LOOK_STYLE, mask=list(mask), full_page=full_page, scale="css"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    actual_path = ARTIFACTS / f"{name}.png"
    actual_path.write_bytes(png)
    actual = Image.open(actual_path).convert("RGB")
    if UPDATE:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        # 256 colours: a third of the bytes; the palette moves about 0.1 % of the pixels past the tolerance
        small = actual.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        small.save(expected_path, optimize=True)
        return
    assert expected_path.exists(), (
        f"no committed screenshot {expected_path.name}: look at {actual_path} and, if it is right, "
        "run the test with ELFERRAUS_UPDATE_SCREENSHOTS=1"
    )
    expected = Image.open(expected_path).convert("RGB")
    if expected.size != actual.size:
        raise AssertionError(f"{name}: the screenshot is {actual.size}, the committed one {expected.size}")
    share, diff = difference(expected, actual)
    if share > SHARE_LIMIT:
        diff_path = ARTIFACTS / f"{name}-diff.png"
        diff.save(diff_path)
        expected.save(ARTIFACTS / f"{name}-expected.png")
        raise AssertionError(
            f"{name}: {share:.2%} of the pixels differ (limit {SHARE_LIMIT:.2%}); see {actual_path} and {diff_path}"
        )


def difference(expected: Image.Image, actual: Image.Image) -> tuple[float, Image.Image]:
    """The share of pixels that differ by more than ``PIXEL_TOLERANCE`` in a channel, and an image of them."""
    delta = ImageChops.difference(expected, actual)
    channels = delta.split()
    worst = ImageChops.lighter(ImageChops.lighter(channels[0], channels[1]), channels[2])
    differs = worst.point(lambda value: 255 if value > PIXEL_TOLERANCE else 0)
    count = differs.histogram()[255]
    faded = Image.blend(expected, Image.new("RGB", expected.size, "white"), 0.7)
    faded.paste(Image.new("RGB", expected.size, (230, 0, 0)), mask=differs)
    return count / (expected.width * expected.height), faded


async def play_for_host(base: str, code: str, token: str, choices: int | None) -> int:
    """Start the room and play the host's seat by a fixed rule (the first card that fits, else draw, else end
    the turn) until he has chosen ``choices`` times and has a choice again, or (None) to the end; the game's id."""
    async with RoomClient(base, code, token) as host:
        await host.until(lambda s: s["seat"] == 0)
        await host.send({"type": "start"})
        chosen = 0
        while True:
            state = host.state
            if state is not None and state["room"]["status"] in ("round_over", "match_over"):
                return int(state["game"]["id"])
            if state is not None and host.my_turn:
                legal = state["view"]["legal"]
                if choices is not None and chosen >= choices and len(legal) > 1:
                    return int(state["game"]["id"])
                lays = [move for move in legal if move not in ("draw", "pass")]
                sent = state["seq"]
                await asyncio.sleep(0.06)  # the server takes 20 frames a second
                await host.move(lays[0] if lays else "draw" if "draw" in legal else "pass")
                await host.until(lambda s, sent=sent: s["seq"] > sent or bool(host.errors))
                assert all(error["code"] == "stale" for error in host.errors), host.errors
                # A move the server made for him first (his only one) answers "stale": only his own count, so
                # that the position reached never depends on which of the two came first.
                chosen += not host.errors
                host.errors.clear()
            else:
                await host.receive()
