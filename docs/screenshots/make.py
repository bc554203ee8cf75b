#!/usr/bin/env python3
"""The web game's screenshots in ``docs/screenshots/``: lobby, table mid-game and result, phone and desktop,
light and dark.

Run from the repository root (``make screenshots``)::

    .venv/bin/python -m docs.screenshots.make

A server of its own deals every game from one seed (``tests/support/seeded_server.py``), so the
same cards come each time; the reader (Anna) plays by a fixed rule: the first card that fits, else
draw, else end the turn. The table is a game of four with three computers after Anna's 14th
choice, on her turn; the result is the end of a game of two. Each picture is taken in Debian's
Chromium with motion reduced, on a phone (390 x 844, German) and a desktop (1280 x 800, English),
in the light and the dark colour scheme, of what the screen shows (the part above the fold), and
written as an optimised PNG: ``{lobby,table,result}-{phone-de,desktop-en}-{light,dark}.png``.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image
from playwright.sync_api import Page, sync_playwright

from elferraus.server.client import RoomClient
from tests.support.web_helpers import free_port

HERE = Path(__file__).parent
CHROMIUM = os.environ.get("ELFERRAUS_CHROMIUM", "/usr/lib/chromium/chromium-headless-shell")
SEED = 20261201
"""The deal of every game shown."""
SETTLED = """() => !document.querySelector('#main.pending') && !document.querySelector('.card.flying')
  && document.fonts.status === 'loaded'"""


@dataclass(frozen=True)
class Screen:
    name: str
    width: int
    height: int
    lang: str
    mobile: bool


SCREENS = (Screen("phone-de", 390, 844, "de", True), Screen("desktop-en", 1280, 800, "en", False))
SCHEMES = ("light", "dark")


def _post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        data: dict[str, Any] = json.loads(answer.read())
        return data


def _serve(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-m", "tests.support.seeded_server", str(SEED), "serve", "--db", str(db)]
    server = subprocess.Popen([*command, "--port", str(port), "--rooms-per-minute", "0"], stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1) as answer:
                if answer.read() == b"ok":
                    return server, base
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit("the server did not come up")


async def _play(base: str, room: dict[str, Any], choices: int | None) -> None:
    """Start the room and play Anna's seat by the fixed rule until she has chosen ``choices`` times and has a
    choice again, or (None) to the end of the game."""
    async with RoomClient(base, room["code"], room["token"]) as host:
        await host.until(lambda state: state["seat"] == 0)
        await host.send({"type": "start"})
        chosen = 0
        while True:
            state = host.state
            if state is not None and state["room"]["status"] in ("round_over", "match_over"):
                return
            if state is not None and host.my_turn:
                legal = state["view"]["legal"]
                if choices is not None and chosen >= choices and len(legal) > 1:
                    return
                lays = [move for move in legal if move not in ("draw", "pass")]
                sent = state["seq"]
                await asyncio.sleep(0.06)  # the server takes 20 frames a second
                await host.move(lays[0] if lays else "draw" if "draw" in legal else "pass")
                await host.until(lambda s, sent=sent: s["seq"] > sent or bool(host.errors))
                chosen += not host.errors  # a move the table made for her first answers "stale"
                host.errors.clear()
            else:
                await host.receive()


def _room(base: str, players: int, choices: int | None) -> str:
    body = {"name": "Anna", "players": players, "rules": "classic", "fill": "easy", "away": 600, "pace": 0}
    room = _post(base, "/api/rooms", body)
    asyncio.run(_play(base, room, choices))
    return f"{room['link']}&s=0"


def _settle(page: Page) -> None:
    page.wait_for_load_state("networkidle")
    deadline = time.monotonic() + 10
    while not page.evaluate(SETTLED):
        if time.monotonic() > deadline:
            raise SystemExit(f"{page.url}: the page did not settle")
        page.wait_for_timeout(50)
    page.wait_for_timeout(300)


def _save(png: bytes, path: Path) -> None:
    """``png`` written small: at most 256 colours (the page's flat colours lose nothing), optimised."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)


def main() -> int:
    written = []
    with tempfile.TemporaryDirectory() as folder:
        server, base = _serve(Path(folder) / "games.sqlite3")
        try:
            table = _room(base, 4, choices=14)
            result = _room(base, 2, choices=None)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                for screen in SCREENS:
                    for scheme in SCHEMES:
                        for name, address in (("lobby", "/"), ("table", table), ("result", result)):
                            context = browser.new_context(
                                viewport={"width": screen.width, "height": screen.height},
                                is_mobile=screen.mobile,
                                has_touch=screen.mobile,
                                locale=screen.lang,
                                color_scheme=scheme,
                                reduced_motion="reduce",
                            )
                            page = context.new_page()
                            path, _, fragment = address.partition("#")
                            page.goto(f"{base}{path}{'&' if '?' in path else '?'}lang={screen.lang}#{fragment}")
                            _settle(page)
                            target = HERE / f"{name}-{screen.name}-{scheme}.png"
                            _save(page.screenshot(animations="disabled", caret="hide"), target)
                            written.append(target)
                            context.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    for path in written:
        print(f"{path} ({path.stat().st_size / 1024:.0f} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
