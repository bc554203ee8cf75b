"""Shared test set-up: a config folder of its own with the terminal game's coach off (``config_home``, for every
test), the terminal game without motion (``still_terminal``, for every test), a home folder of its own (``home``),
a real PostgreSQL (``postgres``), the server's database on each store (``database``), and the fuzz tests' totals in
the terminal summary (summed over the xdist workers)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.postgres_helpers import PostgresServer, postgres_server


@pytest.fixture(autouse=True)
def config_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config folder of each test's own (no test reads or writes the user's), in which the terminal game's
    coach is off: a test of the table sees the table, and the coach's own tests turn it on."""
    config = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    (config / "elferraus").mkdir()
    (config / "elferraus" / "settings.toml").write_text("coach = false\n", encoding="utf-8")
    return config


@pytest.fixture(autouse=True)
def still_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The terminal game moves nothing (``TEXTUAL_ANIMATIONS=none``): its hand is dealt at once and nothing flashes,
    so no test waits on motion; the tests of the motion itself turn it on for their app
    (``app.animation_level = "full"``). Textual reads the variable once, when it is first imported."""
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    constants = sys.modules.get("textual.constants")
    if constants is not None:
        monkeypatch.setattr(constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home and data folder of their own, and the current folder inside the temporary one."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test process's own, started once and stopped at the end."""
    with postgres_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The server's ``--db`` on each store: a new SQLite file, or a new database on the test PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "rooms.db")
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.new_database()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # A test's teardown report carries all its properties once (sub-test reports repeat them cumulatively).
    totals: Counter[str] = Counter()
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) == "teardown":
                for name, value in getattr(report, "user_properties", ()):
                    if name.startswith("fuzz_"):
                        totals[name.removeprefix("fuzz_")] += value
    if totals:
        terminalreporter.write_sep("=", "fuzzing totals")
        for name, value in sorted(totals.items()):
            terminalreporter.write_line(f"{name}: {value:,}")
