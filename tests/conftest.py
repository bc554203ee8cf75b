"""The fuzz tests' totals in the terminal summary (summed over the xdist workers)."""

from __future__ import annotations

from collections import Counter
from typing import Any


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
