"""The test servers' ports: never one Chromium refuses to open a page on."""

from __future__ import annotations

import itertools

import pytest

from tests.support import web_helpers


def test_no_test_server_gets_a_port_the_browser_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Port 10080 lies in the first test process's block; a server there could not be opened by a browser test
    (net::ERR_UNSAFE_PORT)."""
    monkeypatch.setattr(web_helpers, "_PORTS", itertools.cycle(range(10075, 10086)))
    handed = {web_helpers.free_port() for _ in range(30)}
    assert handed
    assert not handed & web_helpers.BROWSER_REFUSED_PORTS
