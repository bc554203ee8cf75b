"""The page as an installable app: its web manifest and its service worker, in Chromium.

- The manifest parses (as Chromium reads it), says what an app needs (name, icons of 192 and 512 px
  and a maskable SVG, colours, start, standalone, language), and every icon is there, of its size.
- The service worker registers from the root, keeps the page's files in a cache named by their
  version, and nothing of the API; a changed file makes a new version, whose worker takes over and
  deletes the old cache; the page itself comes from the network first, and from the cache only
  when the server cannot be reached.
- A first visit with the worker, everything it fetches counted once, stays under the page weight
  limit of test_browser.py.

Most tests talk to ``elferraus serve`` in a subprocess; the one that changes the page's files runs the
app in a thread of this process on a copy of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import queue
import re
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, BrowserContext, Page, expect

from elferraus.server.web.app import STATIC
from elferraus.server.web.headers import CONTENT_SECURITY_POLICY
from elferraus.server.web.worker import ServiceWorker
from tests.server.static.test_browser import (  # noqa: F401 (the browser tests' fixtures)
    DESKTOP_EN,
    PHONE_DE,
    Problems,
    Server,
    _start_room,
    contexts,
    open_device,
    problems,
    run_async,
    server,
    shot,
    wait_until,
)
from tests.support.web_helpers import serving

DESIGN_BLUE = "#1F5FBF"
"""The blue of ../shared/DESIGN.md (light background): the app's theme colour."""
PAGE_BACKGROUND = "#F4F2EC"
"""The page's own background (app.css ``--bg``): what an installed app shows while it starts."""


def fetch(base: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(base + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as error:
        with error:  # it holds the answer's connection open until closed
            return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def worker_ready(page: Page) -> None:
    """Wait until the page's service worker is active and controls the page."""
    wait_until(page, "navigator.serviceWorker.controller !== null", 20)


def cache_contents(page: Page) -> dict[str, list[str]]:
    """Every cache of the page's origin and the paths it holds."""
    contents: dict[str, list[str]] = page.evaluate(
        """async () => {
          const result = {};
          for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            result[name] = (await cache.keys()).map((request) => new URL(request.url).pathname);
          }
          return result;
        }"""
    )
    return contents


# -- the manifest -------------------------------------------------------------------------


def assert_within_the_safe_zone(image: Image.Image) -> None:
    """Everything but the background lies inside the circle of 40 % of the width around the centre, which
    every mask keeps (the maskable icon's safe zone): outside it, every pixel is the background's."""
    background = image.getpixel((0, 0))
    centre = (image.width - 1) / 2
    radius = 0.4 * image.width
    outside = [
        (x, y)
        for y in range(0, image.height, 2)
        for x in range(0, image.width, 2)
        if (x - centre) ** 2 + (y - centre) ** 2 > radius**2 and image.getpixel((x, y)) != background
    ]
    assert not outside, f"{len(outside)} pixels outside the safe zone, e.g. {outside[:5]}"


@pytest.mark.timeout(60)
def test_the_manifest_parses_and_its_icons_are_there(
    server: Server,  # noqa: F811 (the fixtures imported above)
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    page = open_device(browser, contexts, PHONE_DE, problems)
    page.goto(server.base + "/")
    expect(page.get_by_test_id("play-now")).to_be_visible()
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest", {})
    assert manifest["url"] == server.base + "/static/manifest.webmanifest"
    assert manifest["errors"] == [], manifest["errors"]
    data = json.loads(manifest["data"])
    assert data["name"] == "Elfer raus!"
    assert data["short_name"] == "Elfer raus"
    assert data["start_url"] == "/"
    assert data["scope"] == "/"
    assert data["display"] == "standalone"
    assert data["lang"] == "en"
    assert data["theme_color"] == DESIGN_BLUE
    assert data["background_color"] == PAGE_BACKGROUND
    assert page.locator('meta[name="theme-color"]').get_attribute("content") == DESIGN_BLUE

    icons = {(icon["sizes"], icon["type"], icon["purpose"]): icon["src"] for icon in data["icons"]}
    assert set(icons) == {
        ("192x192", "image/png", "any"),
        ("512x512", "image/png", "any"),
        ("any", "image/svg+xml", "maskable"),
    }
    for (sizes, kind, _purpose), src in icons.items():
        status, headers, body = fetch(server.base, src)
        assert status == 200, src
        assert headers["content-type"].startswith(kind), (src, headers["content-type"])
        if kind == "image/png":
            image = Image.open(io.BytesIO(body))
            assert image.format == "PNG"
            assert f"{image.width}x{image.height}" == sizes, src
            assert_within_the_safe_zone(image.convert("RGB"))
        else:
            svg = body.decode()
            assert svg.startswith("<svg"), src
            assert 'viewBox="0 0 512 512"' in svg, src
            assert '<rect width="512" height="512"' in svg, "a maskable icon's background covers the whole square"

    status, headers, body = fetch(server.base, "/static/manifest.webmanifest")
    assert status == 200
    assert headers["content-type"].startswith("application/manifest+json")
    assert json.loads(body) == data

    # Chromium would install it: nothing stands in the way but the test's own private browser context
    errors = cdp.send("Page.getInstallabilityErrors", {})["installabilityErrors"]
    assert [error["errorId"] for error in errors if error["errorId"] != "in-incognito"] == [], errors


# -- the service worker ---------------------------------------------------------------------


def test_the_worker_is_served_from_the_root_with_its_build_and_the_pages_headers(server: Server) -> None:  # noqa: F811
    status, headers, body = fetch(server.base, "/sw.js")
    assert status == 200
    assert headers["content-type"].startswith("text/javascript")
    assert headers["cache-control"] == "no-cache"
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    script = body.decode()
    build = json.loads(re.search(r"^const BUILD = (\{.*\});$", script, re.MULTILINE).group(1))  # type: ignore[union-attr]
    worker = ServiceWorker(STATIC)
    assert build["version"] == worker.version
    assert headers["etag"] == f'"{worker.version}"'
    files = sorted(path.relative_to(STATIC).as_posix() for path in STATIC.rglob("*") if path.is_file())
    assert build["files"] == [f"/static/{name}" for name in files if name not in ("sw.js", "index.html")]
    for path in build["files"]:
        assert fetch(server.base, path)[0] == 200, path
    # asked again with its ETag: not sent again
    status, _headers, body = fetch(server.base, "/sw.js", {"If-None-Match": headers["etag"]})
    assert (status, body) == (304, b"")
    # the template itself, under /static/, keeps nothing
    status, _headers, body = fetch(server.base, "/static/sw.js")
    assert status == 200
    assert "const BUILD = null;" in body.decode()


@pytest.mark.timeout(60)
def test_the_worker_keeps_the_pages_files_and_nothing_of_the_api(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    room = server.room_with_computer(pace=5)
    page = open_device(browser, contexts, DESKTOP_EN, problems)
    page.goto(server.base + room["link"] + "&s=0")
    page.get_by_test_id("start").click()
    expect(page.locator('[data-testid="hand"] .card').first).to_be_visible()
    worker_ready(page)
    registration = page.evaluate(
        "navigator.serviceWorker.getRegistration().then((r) => ({scope: r.scope, script: r.active.scriptURL}))"
    )
    assert registration == {"scope": server.base + "/", "script": server.base + "/sw.js"}
    version = ServiceWorker(STATIC).version
    contents = cache_contents(page)
    assert list(contents) == [f"elferraus-{version}"], contents
    kept = contents[f"elferraus-{version}"]
    files = sorted(
        f"/static/{path.relative_to(STATIC).as_posix()}"
        for path in STATIC.rglob("*")
        if path.is_file() and path.name not in ("sw.js", "index.html")
    )
    assert sorted(kept) == sorted(["/", *files])
    assert not [path for path in kept if not (path == "/" or path.startswith("/static/"))]

    # the page's own requests now go through the worker: files from the cache, the API from the server
    answered: dict[str, bool] = {}

    def keep(response: Any) -> None:  # a bound method is no handler for Playwright
        answered[response.url.replace(server.base, "").split("?")[0]] = response.from_service_worker

    page.on("response", keep)
    page.reload()
    expect(page.locator('[data-testid="hand"] .card').first).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert answered["/static/js/table.js"] is True, answered
    assert answered["/static/css/app.css"] is True, answered
    assert answered["/api/messages"] is False, answered
    assert not [path for path in cache_contents(page)[f"elferraus-{version}"] if path.startswith(("/api", "/ws"))]


@contextlib.contextmanager
def app_in_a_thread(db: Path, static: Path) -> Iterator[str]:
    """The app on a copy of the page's files, served from a thread of this process; yields its address."""
    addresses: queue.Queue[str] = queue.Queue()
    stop = threading.Event()

    async def main() -> None:
        async with serving(str(db), static_dir=static) as base:
            addresses.put(base)
            while not stop.is_set():
                await asyncio.sleep(0.05)

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    try:
        yield addresses.get(timeout=30)
    finally:
        stop.set()
        thread.join(30)


@pytest.mark.timeout(90)
def test_a_changed_file_is_a_new_version_and_the_page_comes_from_the_network_first(
    tmp_path: Path,
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    static = tmp_path / "static"
    shutil.copytree(STATIC, static)
    page = open_device(browser, contexts, DESKTOP_EN, problems)
    with app_in_a_thread(tmp_path / "games.sqlite3", static) as base:
        page.goto(base + "/rules")
        expect(page.get_by_test_id("rules-page")).to_be_visible()
        worker_ready(page)
        first = ServiceWorker(static).version
        assert list(cache_contents(page)) == [f"elferraus-{first}"]

        # a new page arrives with the next load, before any new worker: it comes from the network first
        index = static / "index.html"
        index.write_text(index.read_text().replace("<head>", '<head>\n<meta name="release" content="two">'))
        (static / "css" / "app.css").write_text(
            (static / "css" / "app.css").read_text() + "\n.release-two { order: 2; }\n"
        )
        second = ServiceWorker(static).version
        assert second != first
        page.reload()
        expect(page.locator('meta[name="release"]')).to_have_attribute("content", "two")
        # ... and the new worker takes over, with the new files, and the old cache goes
        wait_until(page, f"caches.keys().then((names) => names.join() === 'elferraus-{second}')", 20)
        css = page.evaluate(
            f"""caches.open('elferraus-{second}').then((c) => c.match('/static/css/app.css')).then((r) => r.text())"""
        )
        assert css.endswith(".release-two { order: 2; }\n")
        page.reload()
        expect(page.get_by_test_id("rules-page")).to_be_visible()
        wait_until(page, "navigator.serviceWorker.controller !== null")
        assert list(cache_contents(page)) == [f"elferraus-{second}"]

    # the server is gone: the page still opens, from the cache (its own words were kept by the page)
    page.reload()
    expect(page.get_by_test_id("home")).to_have_text("Elfer raus!")
    expect(page.locator('meta[name="release"]')).to_have_attribute("content", "two")
    shot(page, "app-offline-desktop-en")


# -- the weight of a first visit ----------------------------------------------------------------

FIRST_VISIT_LIMIT = 120 * 1024
"""A first visit with the worker: the table page (held under 59 KB by its own test) and the worker's copy of
every other file of the page, the icons included (95 KB now)."""


@pytest.mark.timeout(90)
def test_a_first_visit_with_the_worker_stays_light(
    server: Server,  # noqa: F811
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    """Everything a first visit of the table fetches over the network, the worker's own fetches included
    and each counted once: a request the worker answered for the page is not counted again."""
    room = server.room_with_computer(pace=5)
    run_async(_start_room(server.base, room["code"], room["token"]))
    page = open_device(browser, contexts, PHONE_DE, problems)
    finished: list[Any] = []

    def keep(request: Any) -> None:  # a bound method is no handler for Playwright
        finished.append(request)

    page.context.on("requestfinished", keep)
    page.goto(server.base + room["link"] + "&s=0")
    expect(page.locator('[data-testid="hand"] .card').first).to_be_visible()
    worker_ready(page)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)

    page_bytes = worker_bytes = 0
    by_path: dict[str, float] = {}
    for request in finished:
        response = request.response()
        if response is None or response.from_service_worker:
            continue  # answered by the worker: its own fetch, if any, is counted below
        sizes = request.sizes()
        body = sizes["responseBodySize"]
        if body <= 0 and response.status == 200:  # Chromium tells no size for the worker's own script
            body = len(response.body())  # so count it whole, uncompressed: more than went over the wire
        size = body + sizes["responseHeadersSize"]
        path = request.url.replace(server.base, "")
        by_path[path] = by_path.get(path, 0) + size
        if request.service_worker is not None:
            worker_bytes += size
        else:
            page_bytes += size
    total = page_bytes + worker_bytes
    breakdown = ", ".join(f"{path} {size / 1024:.1f}" for path, size in sorted(by_path.items()))
    summary = (
        f"first visit of the table page with the service worker: {total / 1024:.1f} KB over HTTP "
        f"({page_bytes / 1024:.1f} KB for the page, {worker_bytes / 1024:.1f} KB for the worker's cache); "
        f"KB each: {breakdown}"
    )
    print(summary)
    assert "/sw.js" in by_path, summary
    assert total < FIRST_VISIT_LIMIT, summary
