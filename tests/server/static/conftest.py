"""The browser tests' one Chromium: started once per test process for the tests of this folder (each test opens
its own contexts, a device each with its own storage), instead of once per test file and process."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.server.static.test_browser import CHROMIUM


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"The browser tests need Chromium at {CHROMIUM}, and there is none. Install it (as root: "
            "apt-get install chromium-headless-shell, or `make browser`), or point ELFERRAUS_CHROMIUM at a "
            "Chromium executable. Playwright's own browser download is not used.",
            pytrace=False,
        )
    playwright = sync_playwright().start()
    try:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()
    finally:
        playwright.stop()
