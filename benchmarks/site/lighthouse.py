#!/usr/bin/env python3
"""Lighthouse's scores for every page of the web game, on a phone and on a desktop.

The server runs as in production (``python -m elferraus.cli.main serve`` on a free loopback port,
a fresh database in a temporary directory). Before Lighthouse looks, the script makes each page
what a person would find there:

- ``lobby`` (``/``) and ``rules`` (``/rules``);
- ``waiting``: the host's own link to a room whose second seat waits for a friend;
- ``table``: the host's link to a game of four (the host and three computers) after her 20th choice
  (``look_helpers.play_for_host``: the first card that fits, else draw), on her turn, the game under way (a
  deal that ends sooner is dealt again in a new room, with fewer choices);
- ``watching``: the plain invite link of that game on a device that holds no seat;
- ``result``: the host's link once the game is over;
- ``replay``: the replay viewer of that finished game (``/replay/ID``).

Each page is audited cold (a new profile, no cache) with Lighthouse's mobile settings (a
mid-range phone, throttled) and with its desktop preset, in English and in German (``?lang=``),
in Debian's Chromium. Printed: one row per page, device and language with the scores of
performance, accessibility, best practices and SEO, and the bytes on the wire (Lighthouse's total
byte weight); then every audit of the last three that did not pass. Nothing is asserted: it
reports; the browser tests assert what the page must do.

Lighthouse is the npm package pinned with its hashes in ``benchmarks/site/lighthouse/``; it is
installed there (``npm ci``) on first use. Run from the repository root::

    make lighthouse
    .venv/bin/python -m benchmarks.site.lighthouse --pages table --devices mobile --keep /tmp/reports
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.site.web_time_to_table import post, serve
from tests.support.look_helpers import play_for_host

HERE = Path(__file__).with_name("lighthouse")
LIGHTHOUSE = HERE / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = os.environ.get("ELFERRAUS_CHROMIUM", "/usr/lib/chromium/chromium-headless-shell")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
PAGES = ("lobby", "rules", "waiting", "table", "watching", "result", "replay")
DEVICES = ("mobile", "desktop")
LANGS = ("en", "de")


def in_language(address: str, lang: str) -> str:
    """``address`` with ``?lang=`` (the page's own choice of language) before its fragment."""
    path, hash_mark, fragment = address.partition("#")
    return f"{path}{'&' if '?' in path else '?'}lang={lang}{hash_mark}{fragment}"


def install() -> None:
    """Lighthouse from the lock file, once."""
    if LIGHTHOUSE.exists():
        return
    print("installing Lighthouse (npm ci) ...", file=sys.stderr, flush=True)
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True)


def waiting_room(base: str) -> str:
    """The host's link to a 2-player room whose other seat waits for a friend."""
    room = post(base, "/api/rooms", {"name": "Anna", "players": 2, "rules": "classic", "seats": [{"kind": "open"}]})
    return f"{room['link']}&s=0"


def game_under_way(base: str) -> dict[str, Any]:
    """A room of four (the host and three computers) after her 20th choice, on her turn, the game still under way
    (a deal that ends before is dealt again in a new room, with fewer choices: the page is to be the table)."""
    for choices in (20, 14, 10, 6, 3):
        # away 600 s: no stand-in plays the reader's turn while the other pages are audited (60 s by default)
        settings = {"name": "Anna", "players": 4, "rules": "classic", "fill": "easy", "pace": 0, "away": 600}
        table = post(base, "/api/rooms", settings)
        asyncio.run(play_for_host(base, table["code"], table["token"], choices=choices))
        with urllib.request.urlopen(f"{base}/api/rooms/{table['code']}", timeout=10) as answer:
            if json.loads(answer.read())["status"] == "playing":
                return table
    raise SystemExit("no deal left a game under way after 3 choices of the host")


def addresses(base: str) -> dict[str, str]:
    """Every page's address, each set up as a person would find it."""
    table = game_under_way(base)
    finished = post(base, "/api/rooms", {"name": "Anna", "players": 2, "rules": "classic", "fill": "easy", "pace": 0})
    game = asyncio.run(play_for_host(base, finished["code"], finished["token"], choices=None))
    return {
        "lobby": "/",
        "rules": "/rules",
        "waiting": waiting_room(base),
        "table": f"{table['link']}&s=0",
        "watching": f"/r/{table['code']}",
        "result": f"{finished['link']}&s=0",
        "replay": f"/replay/{game}",
    }


def audit(url: str, device: str, keep: Path | None, name: str, lang: str) -> dict[str, Any]:
    """Lighthouse's scores (0 to 100) and bytes on the wire for one page on one device."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        command = [
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={report}",
            f"--only-categories={','.join(CATEGORIES)}",
            "--chrome-flags=--headless --no-sandbox",
        ]
        if device == "desktop":
            command.append("--preset=desktop")
        subprocess.run(command, check=True, env={**os.environ, "CHROME_PATH": CHROMIUM}, stdout=subprocess.DEVNULL)
        data = json.loads(report.read_text())
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / f"{name}-{device}-{lang}.json").write_text(report.read_text())
    if data.get("runtimeError"):
        raise SystemExit(f"{name} ({device}, {lang}): Lighthouse failed: {data['runtimeError']}")
    scores = {key: round(100 * (data["categories"][key]["score"] or 0)) for key in CATEGORIES}
    failed = sorted(
        audit_id
        for key in CATEGORIES[1:]
        for ref in data["categories"][key]["auditRefs"]
        if ref["weight"] and (score := data["audits"][(audit_id := ref["id"])].get("score")) is not None and score < 1
    )
    return {
        "page": name,
        "device": device,
        "lang": lang,
        **scores,
        "bytes": int(data["audits"]["total-byte-weight"]["numericValue"]),
        "failed": failed,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", default=",".join(PAGES), help=f"comma-separated, of: {', '.join(PAGES)}")
    parser.add_argument("--devices", default=",".join(DEVICES), help="comma-separated: mobile, desktop")
    parser.add_argument("--langs", default=",".join(LANGS), help="comma-separated: en, de")
    parser.add_argument("--keep", type=Path, help="keep each full Lighthouse report (JSON) in this folder")
    parser.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    args = parser.parse_args()
    pages = [page for page in args.pages.split(",") if page]
    devices = [device for device in args.devices.split(",") if device]
    langs = [lang for lang in args.langs.split(",") if lang]
    unknown = sorted({*pages} - {*PAGES} | {*devices} - {*DEVICES} | {*langs} - {*LANGS})
    if unknown:
        parser.error(f"unknown page, device or language: {', '.join(unknown)}")

    install()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        server, base = serve(Path(folder) / "games.sqlite3")
        try:
            found = addresses(base)
            print("| page | device | language | performance | accessibility | best practices | SEO | KB on the wire |")
            print("|---|---|---|--:|--:|--:|--:|--:|")
            for page in pages:
                for device in devices:
                    for lang in langs:
                        row = audit(base + in_language(found[page], lang), device, args.keep, page, lang)
                        rows.append(row)
                        print(
                            f"| {page} | {device} | {lang} | {row['performance']} | {row['accessibility']} | "
                            f"{row['best-practices']} | {row['seo']} | {row['bytes'] / 1024:.1f} |",
                            flush=True,
                        )
        finally:
            server.terminate()
            server.wait(10)
    for row in rows:
        if row["failed"]:
            print(f"{row['page']} ({row['device']}, {row['lang']}) failed: {', '.join(row['failed'])}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
