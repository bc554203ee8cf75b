"""Shared test set-up: a home folder of its own (``home``), and the fuzz tests' totals in the terminal summary
(summed over the xdist workers)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home and data folder of their own, and the current folder inside the temporary one."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


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
