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
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image
from playwright.sync_api import Page, sync_playwright

from elferraus.server.client import create_room
from tests.support.look_helpers import SETTLED, play_for_host
from tests.support.web_helpers import ServerProcess

HERE = Path(__file__).parent
CHROMIUM = os.environ.get("ELFERRAUS_CHROMIUM", "/usr/lib/chromium/chromium-headless-shell")
SEED = 20261201
"""The deal of every game shown."""
SEEDED = ["-m", "tests.support.seeded_server", str(SEED)]


@dataclass(frozen=True)
class Screen:
    name: str
    width: int
    height: int
    lang: str
    mobile: bool


SCREENS = (Screen("phone-de", 390, 844, "de", True), Screen("desktop-en", 1280, 800, "en", False))
SCHEMES = ("light", "dark")


def _room(base: str, players: int, choices: int | None) -> str:
    """A room of Anna and easy computers, played by her fixed rule (``play_for_host``); her own link."""

    async def made() -> dict[str, Any]:
        room = await create_room(base, name="Anna", players=players, rules="classic", fill="easy", away=600, pace=0)
        await play_for_host(base, room["code"], room["token"], choices)
        return room

    room = asyncio.run(made())
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
        server = ServerProcess(Path(folder) / "games.sqlite3", args=["--rooms-per-minute", "0"], entry=SEEDED)
        server.start()
        base = server.base
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
            server.stop()
    for path in written:
        print(f"{path} ({path.stat().st_size / 1024:.0f} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
