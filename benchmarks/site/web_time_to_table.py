#!/usr/bin/env python3
"""Time to an interactive table: from navigation start to the table taking a click, on loopback.

The server runs as in production, ``python -m elferraus.cli.main serve`` on a free loopback port
with a fresh database in a temporary directory. Each of ``--runs`` loads is cold: a new browser
context (Debian's Chromium, headless; no cache, no storage), which opens a new room's personal
link (``/r/CODE#t=TOKEN&s=0``; the room, the reader and an easy computer at pace 5 s, was started
over the WebSocket beforehand, so the page opens on a game, on the reader's turn).

Measured with the Performance API, in milliseconds from the navigation's start (``timeOrigin``):
``ready``, the mark ``elferraus:table-ready`` that the table screen sets once it has drawn the
first game and its cards and buttons take clicks (``table.js``); for context also the HTML's
``responseEnd`` and ``domContentLoaded``. Then each run clicks the first card of the hand and
checks that the page took the click (it sends the move and shows itself busy, or the server
answers with a refusal): a mark that came before the page could act would not count. Printed:
every run and the median, minimum and maximum of ``ready``. The exit status is 1 if a click was
not taken or the median is not under ``--limit`` ms (1000).

Run from the repository root with the development environment (it has Playwright)::

    .venv/bin/python -m benchmarks.site.web_time_to_table --runs 15
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from elferraus.server.client import RoomClient
from tests.support.web_helpers import free_port

CHROMIUM = os.environ.get("ELFERRAUS_CHROMIUM", "/usr/bin/chromium")

TIMES = """() => {
  const mark = performance.getEntriesByName('elferraus:table-ready')[0];
  const nav = performance.getEntriesByType('navigation')[0];
  return mark ? {ready: mark.startTime, html: nav.responseEnd, dom: nav.domContentLoadedEventEnd} : null;
}"""


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        data: dict[str, Any] = json.loads(answer.read())
        return data


def started_room(base: str) -> dict[str, Any]:
    """A new room of the reader and an easy computer, started, the reader to move."""
    while True:
        room = post(
            base,
            "/api/rooms",
            {"name": "Anna", "players": 2, "rules": "classic", "fill": "easy", "away": 600, "pace": 5},
        )

        async def start(room: dict[str, Any] = room) -> bool:
            async with RoomClient(base, room["code"], room["token"]) as host:
                await host.until(lambda state: state["seat"] == 0)
                await host.send({"type": "start"})
                state = await host.until(lambda state: state["room"]["status"] == "playing")
                return bool(state["game"]["turn"] == 0 and state["view"]["legal"])

        if asyncio.run(start()):
            return room


def serve(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-m", "elferraus.cli.main", "serve", "--db", str(db), "--port", str(port)]
    server = subprocess.Popen([*command, "--rooms-per-minute", "0"], stdout=subprocess.DEVNULL)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="cold loads (default 15)")
    parser.add_argument("--width", type=int, default=360, help="viewport width in CSS px (default 360, a phone)")
    parser.add_argument("--height", type=int, default=740)
    parser.add_argument("--limit", type=float, default=1000, help="the median must be under this, ms (default 1000)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        server, base = serve(Path(folder) / "games.sqlite3")
        try:
            readies, taken = [], 0
            rooms = [started_room(base) for _ in range(args.runs)]  # before Playwright takes this thread's loop
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                for run, room in enumerate(rooms, start=1):
                    mobile = args.width < 600
                    context = browser.new_context(
                        viewport={"width": args.width, "height": args.height}, is_mobile=mobile, has_touch=mobile
                    )
                    page = context.new_page()
                    page.goto(f"{base}{room['link']}&s=0")
                    deadline = time.monotonic() + 20
                    times = page.evaluate(TIMES)
                    while times is None:
                        if time.monotonic() > deadline:
                            raise SystemExit(f"run {run}: the table never became ready")
                        page.wait_for_timeout(5)
                        times = page.evaluate(TIMES)
                    page.locator('[data-testid="hand"] .card').first.click(timeout=5000)
                    took = page.evaluate(
                        """() => new Promise((done) => {
                          const until = performance.now() + 3000;
                          const look = () => {
                            const busy = document.querySelector('#main.pending');
                            const refused = document.querySelector('[data-testid="error"]').textContent;
                            const moved = document.querySelectorAll('[data-testid="log"] li').length > 0;
                            if (busy || refused || moved) done(true);
                            else if (performance.now() > until) done(false);
                            else requestAnimationFrame(look);
                          };
                          look();
                        })"""
                    )
                    taken += bool(took)
                    readies.append(times["ready"])
                    print(
                        f"run {run:2}: table ready {times['ready']:6.1f} ms  (HTML {times['html']:5.1f} ms, "
                        f"DOMContentLoaded {times['dom']:5.1f} ms)  click {'taken' if took else 'NOT TAKEN'}",
                        flush=True,
                    )
                    context.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(10)

    median = statistics.median(readies)
    print(
        f"time to an interactive table over {len(readies)} cold loads at {args.width}x{args.height}: "
        f"median {median:.0f} ms, min {min(readies):.0f} ms, max {max(readies):.0f} ms; "
        f"clicks taken {taken}/{len(readies)}"
    )
    return 0 if taken == len(readies) and median < args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
