"""``benchmarks/engine/ladder.py``: every level against every kind of opponent, as one table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support import repo_env


def _ladder(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.engine.ladder", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=repo_env(),
    )


def test_a_small_ladder_has_a_cell_for_every_level_and_column(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    done = _ladder(
        "--levels", "random,greedy", "--columns", "greedy,mixed", "--deals", "2", "--jobs", "1", "--json", str(out)
    )
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert table[0] == "| level | 3 greedy | blocker, one-lay, greedy |"
    assert [row.split("|")[1].strip() for row in table[2:]] == ["random", "greedy"]
    cells = json.loads(out.read_text())["cells"]
    assert {(c["level"], c["column"]) for c in cells} == {
        ("random", "greedy"),
        ("random", "mixed"),
        ("greedy", "greedy"),
        ("greedy", "mixed"),
    }
    for cell in cells:
        assert cell["games"] == 8, "2 deals x 4 rotations"
        low, high = cell["ci95"]
        assert 0 <= low <= cell["win_share"] <= high <= 1


def test_an_unknown_level_is_refused_by_name() -> None:
    done = _ladder("--levels", "expert,grandmaster", "--deals", "1")
    assert done.returncode == 2
    assert "grandmaster" in done.stderr
