#!/usr/bin/env python3
"""The README's strength table, made from the raw results: ``master`` against the population, the round robin's
ratings and the exploiters, one row per player.

    python -m benchmarks.engine.strength_table            # print it
    python -m benchmarks.engine.strength_table --write    # put it into README.md between its two markers

It reads every population run of the 4-player classic setting (``benchmarks/results/*-population-4p-*.json``,
written by :mod:`benchmarks.engine.population` with ``--json``; of two runs of one cell the one with more deals
counts) and every exploiter's measurement (``*-exploiter-TARGET.json``, written by ``elferraus arena --json``
with the exploiter in the first seat). A cell not measured yet is shown as a dash. Under it, a second table
for the other settings measured (``*-population-2p*.json``, ``-6p``, ``-ravensburger``: ``master`` against the
five strongest).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.engine.population_cells import BASE, ISMCTS, LEARNED, MASTER

RESULTS = Path("benchmarks/results")
README = Path("README.md")
BEGIN = "<!-- strength table: made by python -m benchmarks.engine.strength_table --write -->"
END = "<!-- end of the strength table -->"
CELL_DEALS = 200
"""The deals a cell of the matrix needs (issue 33); a cell with fewer shows how many it has."""
EXTRA = ("one-lay", "no-open")
"""Members measured beside the population (two more blocking styles)."""
EXPLOITER_TARGETS = {"master": MASTER, "expert": "expert", "learned": LEARNED, "hoarder": "hoarder"}
"""Each exploiter's file name, and the member it was trained against."""


def label(name: str) -> str:
    """A member's name as the table shows it."""
    if name == LEARNED:
        return "first learned player"
    if name == ISMCTS:
        return "OpenSpiel ISMCTS, 100 simulations"
    if name.startswith("league:"):
        return f"league snapshot {int(Path(name).stem.split('-')[1])}"
    return f"`{name}`"


def load(results: Path) -> tuple[dict[str, dict[str, Any]], dict[str, Any] | None, dict[str, dict[str, Any]]]:
    """The cells by key (the one with most deals), the round robin of the run with most games, and the
    exploiters' arena results by target."""
    cells: dict[str, dict[str, Any]] = {}
    robin: dict[str, Any] | None = None
    for path in sorted(results.glob("*-population-4p-*.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        for cell in report["cells"]:
            if cell["kind"] != "mixed" and cell["deals"] >= cells.get(cell["key"], {}).get("deals", 0):
                cells[cell["key"]] = cell
        found = report.get("round_robin")
        if found is not None and (robin is None or found["games"] > robin["games"]):
            robin = found
    exploiters = {}
    for target in EXPLOITER_TARGETS:
        path = next(iter(sorted(results.glob(f"*-exploiter-{target}.json"), reverse=True)), None)
        if path is not None:
            exploiters[target] = json.loads(path.read_text(encoding="utf-8"))
    return cells, robin, exploiters


def _share(share: float, interval: list[float] | tuple[float, float]) -> str:
    low, high = interval
    return f"**{100 * share:.1f}** ({100 * low:.1f}–{100 * high:.1f})"


def _cell(cells: dict[str, dict[str, Any]], key: str, member: str) -> str:
    cell = cells.get(key)
    if cell is None or not cell["deals"]:
        return "–"
    figures = cell["members"][member]
    shown = _share(figures["win_share"], figures["ci95"])
    return shown if cell["deals"] >= max(cell["deals_asked"], CELL_DEALS) else f"{shown}, {cell['deals']} deals"


def _exploiter(exploiters: dict[str, dict[str, Any]], member: str) -> str:
    """The win share of the exploiter trained against ``member``: a dash while unmeasured, blank for a member
    nobody trained against."""
    for target, name in EXPLOITER_TARGETS.items():
        if name == member:
            if target not in exploiters:
                return "–"
            arena = exploiters[target]
            mine = arena["kinds"][arena["bots"][0]]
            return _share(mine["win_share"], mine["win_share_ci95"])
    return ""


OTHER_SETTINGS = {"2p": (2, "2 players"), "6p": (6, "6 players"), "ravensburger": (4, "4 players, Ravensburger")}
"""The settings besides the home one: their players, and how the table names them."""


def load_settings(results: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Each other setting's cells by key (of two runs of one cell, the one with more deals), for the settings
    measured."""
    settings: dict[str, dict[str, dict[str, Any]]] = {}
    for key in OTHER_SETTINGS:
        cells: dict[str, dict[str, Any]] = {}
        for path in sorted(results.glob(f"*-population-{key}*.json")):
            report = json.loads(path.read_text(encoding="utf-8"))
            if report["setting"]["key"] != key:
                continue
            for cell in report["cells"]:
                if cell["kind"] != "mixed" and cell["deals"] >= cells.get(cell["key"], {}).get("deals", 0):
                    cells[cell["key"]] = cell
        if cells:
            settings[key] = cells
    return settings


def render_settings(settings: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The other settings' table in Markdown (nothing while none is measured). At 2 players ``master`` alone
    against one is also that one alone against ``master``: both columns come from the one cell."""
    if not settings:
        return ""
    lines = [
        "",
        "| setting (parity) | player | `master` alone against the others | it alone against the `master`s |",
        "|---|---|--:|--:|",
    ]
    for key, cells in settings.items():
        players, name = OTHER_SETTINGS[key]
        members = list(dict.fromkeys(cell_key.partition(":")[2] for cell_key in cells))
        for member in members:
            against = f"trio:{member}" if players > 2 else f"solo:{member}"
            row = [
                f"{name} ({100 / players:.1f} %)",
                label(member),
                _cell(cells, f"solo:{member}", MASTER),
                _cell(cells, against, member),
            ]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def table_of(results: Path) -> str:
    """Both tables, as the README shows them, from the raw results in ``results``."""
    return render(*load(results)) + render_settings(load_settings(results))


def render(
    cells: dict[str, dict[str, Any]], robin: dict[str, Any] | None, exploiters: dict[str, dict[str, Any]]
) -> str:
    """The table in Markdown."""
    members = [*BASE, *EXTRA]
    members += sorted({key.partition(":")[2] for key in cells if key.startswith("solo:league:")})
    ratings = {row["name"]: row for row in robin["ratings"]} if robin else {}
    nash = robin["nash"]["scores"] if robin else {}
    lines = [
        "| player | `master` alone against three | it alone against three `master`s | OpenSkill ordinal "
        "| Nash-averaged margin | its exploiter alone against three |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for member in [MASTER, *members]:
        rating = ratings.get(member)
        row = [
            "**`master`**" if member == MASTER else label(member),
            "" if member == MASTER else _cell(cells, f"solo:{member}", MASTER),
            "" if member == MASTER else _cell(cells, f"trio:{member}", member),
            f"{rating['ordinal']:.2f}" if rating else "–",
            f"{nash[member]:+.3f}" if member in nash else "–",
            _exploiter(exploiters, member),
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def written_into(readme: str, table: str) -> str:
    """``readme`` with the text between its two markers replaced by ``table``.

    Raises:
        ValueError: the README lacks a marker.
    """
    if BEGIN not in readme or END not in readme:
        raise ValueError(f"README.md needs the markers {BEGIN!r} and {END!r} around the strength table")
    before, rest = readme.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    return f"{before}{BEGIN}\n{table}{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="put the table into README.md")
    args = parser.parse_args(argv)
    table = table_of(RESULTS)
    if not args.write:
        sys.stdout.write(table)
        return 0
    README.write_text(written_into(README.read_text(encoding="utf-8"), table), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
