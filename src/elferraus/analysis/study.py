"""The study from start to end: plan, play (or reuse), measure, and write the report and results."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import FORMAT, FULL, QUICK, Sizes, Table
from elferraus.analysis.questions import hands, holdback, length, luck, penalties, redeal, rules, starter, strongest
from elferraus.analysis.report import write_report
from elferraus.analysis.report_model import Section
from elferraus.analysis.run import part_of, run_tables
from elferraus.analysis.store import GameStore
from elferraus.analysis.words import Words
from elferraus.i18n import Lang

QUESTIONS: tuple[ModuleType, ...] = (redeal, starter, length, holdback, luck, rules, hands, penalties, strongest)
"""The questions in the order of the report."""


@dataclass(frozen=True)
class StudyRun:
    """What a run wrote, and how long it took."""

    out: Path
    results: dict[str, Any]
    seconds: float
    games: int


def plan(sizes: Sizes) -> list[Table]:
    """Every table the questions need, each once, in the order the questions name them."""
    tables: dict[str, Table] = {}
    for question in QUESTIONS:
        for table in question.tables(sizes):
            if table.key in tables and tables[table.key] != table:
                raise ValueError(f"two questions want different tables under one key {table.key!r}")
            tables[table.key] = table
    return list(tables.values())


def run_study(
    out: Path,
    *,
    seed: int = 1,
    quick: bool = False,
    lang: Lang = "en",
    jobs: int = 1,
    cluster: str | None = None,
    progress: bool = True,
) -> StudyRun:
    """Run the study into ``out``: the games, ``results.json``, ``report.html``, ``report.md`` and its plots.

    Raises:
        ClusterError: the cluster cannot be reached or failed.
        StoreError: ``out`` cannot be written, or a stored batch is damaged.
    """
    started = time.perf_counter()
    sizes = QUICK if quick else FULL
    words = Words(lang)
    tables = plan(sizes)
    store = GameStore(out)
    played = run_tables(
        tables,
        seed,
        store,
        jobs=jobs,
        cluster=cluster,
        progress=progress,
        labels=lambda part: words(f"{part}.title"),
    )
    store.write_tables(result for key in played for result in played[key])
    data = StudyData(played)
    results: dict[str, Any] = {
        "format": FORMAT,
        "seed": seed,
        "quick": quick,
        "games": sum(table.games for table in tables),
        "tables": {table.key: _table_json(table) for table in tables},
    }
    for question in QUESTIONS:
        results.update(question.measure(data, sizes, seed))
    sections: list[Section] = [question.section(results, words) for question in QUESTIONS]
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    write_report(out, sections, words, seed=seed, quick=quick, games=results["games"])
    seconds = time.perf_counter() - started
    return StudyRun(out, results, seconds, results["games"])


def _table_json(table: Table) -> dict[str, Any]:
    return {
        "part": part_of(table),
        "players": table.players,
        "rules": table.variant,
        "players_by_slot": list(table.specs),
        "deals": table.deals,
        "duplicate": table.rotations,
        "games": table.games,
    }
