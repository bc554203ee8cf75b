"""The README's strength table is the one ``benchmarks/engine/strength_table.py`` makes from the raw results."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.engine import strength_table
from benchmarks.engine.population_cells import LEARNED, MASTER
from tests.support import ROOT


def test_the_readme_shows_the_table_the_raw_results_make() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = strength_table.table_of(ROOT / strength_table.RESULTS)
    assert strength_table.written_into(readme, table) == readme, (
        "README.md's strength table is not the results': python -m benchmarks.engine.strength_table --write"
    )


def _cell(key: str, members: dict[str, float], deals: int = 200) -> dict[str, Any]:
    return {
        "key": key,
        "kind": key.split(":", maxsplit=1)[0],
        "deals": deals,
        "deals_asked": 200,
        "members": {
            name: {"win_share": share, "ci95": [share - 0.01, share + 0.01]} for name, share in members.items()
        },
    }


def test_each_player_has_a_row_with_its_cells_and_a_dash_where_nothing_was_measured() -> None:
    cells = {
        "solo:medium": {**_cell("solo:medium", {MASTER: 0.97, "medium": 0.01}, deals=60), "deals_asked": 60},
        "solo:hoarder": _cell("solo:hoarder", {MASTER: 0.26, "hoarder": 0.25}),
        "trio:hoarder": _cell("trio:hoarder", {MASTER: 0.25, "hoarder": 0.24}, deals=120),
    }
    robin = {
        "ratings": [{"name": MASTER, "ordinal": 3.5}, {"name": "hoarder", "ordinal": 3.25}],
        "nash": {"scores": {MASTER: 0.0, "hoarder": -0.125}},
    }
    exploiters = {"hoarder": {"bots": ["league:x.npz", "hoarder"], "kinds": {"league:x.npz": {
        "win_share": 0.27, "win_share_ci95": [0.25, 0.29]}}}}  # fmt: skip
    rows = {
        line.split(" | ")[0].removeprefix("| "): line
        for line in strength_table.render(cells, robin, exploiters).splitlines()
    }
    assert rows["`hoarder`"] == (
        "| `hoarder` | **26.0** (25.0–27.0) | **24.0** (23.0–25.0), 120 deals | 3.25 | -0.125 | **27.0** (25.0–29.0) |"
    )
    assert rows["**`master`**"] == "| **`master`** |  |  | 3.50 | +0.000 | – |"
    assert rows["`medium`"] == "| `medium` | **97.0** (96.0–98.0), 60 deals | – | – | – |  |", (
        "a cell of fewer than 200 deals says so, even when that was all it was asked for; nobody trained against medium"
    )
    assert rows["first learned player"].endswith("| – |"), f"{LEARNED}'s exploiter is not measured here"


def test_a_readme_without_the_markers_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="needs the markers"):
        strength_table.written_into("# README\n", "| table |\n")


def test_the_other_settings_have_a_row_per_member_and_two_players_read_one_cell_both_ways() -> None:
    settings = {
        "2p": {"solo:hoarder": _cell("solo:hoarder", {MASTER: 0.55, "hoarder": 0.45})},
        "6p": {
            "solo:hoarder": _cell("solo:hoarder", {MASTER: 0.2, "hoarder": 0.16}),
            "trio:hoarder": _cell("trio:hoarder", {MASTER: 0.17, "hoarder": 0.15}, deals=90),
        },
    }
    rows = strength_table.render_settings(settings).splitlines()
    assert rows[-2] == "| 2 players (50.0 %) | `hoarder` | **55.0** (54.0–56.0) | **45.0** (44.0–46.0) |"
    assert rows[-1] == "| 6 players (16.7 %) | `hoarder` | **20.0** (19.0–21.0) | **15.0** (14.0–16.0), 90 deals |"
    assert strength_table.render_settings({}) == "", "no second table while no other setting is measured"
