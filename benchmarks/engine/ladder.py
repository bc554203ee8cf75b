#!/usr/bin/env python3
"""The ladder: every level against three of every kind of opponent, as one table.

Each cell is an arena run like a figure of ``strength.py``: four players,
classic rules unless ``--rules`` says otherwise, duplicate deals (each deal
once per seat rotation), the level's win share per seat with a 95 % interval
that takes the deal as the unit. Parity is 25 %. The columns are the
players a level meets: the plain levels ``greedy`` and ``medium``, the
players who hold back (``blocker``, ``tight-blocker``, ``one-lay``,
``no-open``, ``hoarder``), a mixed table (one each of ``blocker``, ``one-lay`` and
``greedy``), and the sampling player thinking 0.1 s a move (slow: its own
number of deals, ``--sampler-deals``).

    python -m benchmarks.engine.ladder --deals 100 --jobs 2 --json ladder.json
    python -m benchmarks.engine.ladder --levels expert,expert-reads --columns blocker,sampler --deals 50
    python -m benchmarks.engine.ladder --deals 100 --journal ladder.jsonl   # taken up again where it stopped

It prints the Markdown table of the README (win share, and the interval below it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.engine.strength import SAMPLER, Figure, _results
from elferraus.arena.runner import ArenaConfig, summarize
from elferraus.rules import PRESETS, Rules

LEVELS = ("random", "easy", "greedy", "medium", "hard", "expert", "expert-reads")
"""The rows: every level a person plays against, and the expert that reads the table."""


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    opponents: tuple[str, str, str]
    slow: bool = False


COLUMNS = (
    Column("greedy", "3 greedy", ("greedy",) * 3),
    Column("medium", "3 medium", ("medium",) * 3),
    Column("blocker", "3 blocker", ("blocker",) * 3),
    Column("tight-blocker", "3 tight-blocker", ("tight-blocker",) * 3),
    Column("one-lay", "3 one-lay", ("one-lay",) * 3),
    Column("no-open", "3 no-open", ("no-open",) * 3),
    Column("hoarder", "3 hoarder", ("hoarder",) * 3),
    Column("mixed", "blocker, one-lay, greedy", ("blocker", "one-lay", "greedy")),
    Column("sampler", f"3 {SAMPLER}", (SAMPLER,) * 3, slow=True),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--sampler-deals", type=int, default=25, help="deals of the slow sampler column")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rules", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--columns", default=",".join(c.key for c in COLUMNS))
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--journal", metavar="FILE", type=Path, help="append each deal here; take up a run again")
    args = parser.parse_args(argv)
    levels = [level for level in args.levels.split(",") if level]
    unknown = sorted(set(levels) - set(LEVELS))
    if unknown:
        parser.error(f"unknown levels {unknown}; choose from {', '.join(LEVELS)}")
    columns = [c for c in COLUMNS if c.key in args.columns.split(",")]
    cells: dict[tuple[str, str], dict[str, object]] = {}
    for level in levels:
        for column in columns:
            deals = args.sampler_deals if column.slow else args.deals
            figure = Figure(
                f"ladder-{level}-{column.key}",
                f"{level} vs {column.title}",
                level,
                (level, *column.opponents),
                args.rules,
                0.0,
            )
            config = ArenaConfig(specs=figure.specs, deals=deals, seed=args.seed, rules=Rules.preset(args.rules))
            print(f"running {figure.title} ({deals} deals x 4 rotations) ...", file=sys.stderr, flush=True)
            started = time.perf_counter()
            summary = summarize(config, _results(figure, config, args.jobs, args.journal))
            share, low, high = summary.kinds[level].win_share()
            p95 = summary.kinds[level].latency()[1]
            cells[level, column.key] = {
                "deals": deals,
                "games": summary.games,
                "win_share": share,
                "ci95": [low, high],
                "p95_s": p95,
                "seconds": time.perf_counter() - started,
            }
            print(f"  {100 * share:.1f} % ({100 * low:.1f}-{100 * high:.1f})", file=sys.stderr, flush=True)
    print("| level | " + " | ".join(c.title for c in columns) + " |")
    print("|---|" + "--:|" * len(columns))
    for level in levels:
        shown = []
        for column in columns:
            cell = cells[level, column.key]
            low, high = cell["ci95"]  # type: ignore[misc]
            shown.append(f"**{100 * cell['win_share']:.1f}** <br>{100 * low:.0f}-{100 * high:.0f}")  # type: ignore[operator]
        print(f"| {level} | " + " | ".join(shown) + " |")
    deals_note = f"{args.deals} deals" + (
        f" ({args.sampler_deals} against the sampler)" if any(c.slow for c in columns) else ""
    )
    print(f"\n{deals_note} x 4 rotations, seed {args.seed}, {args.rules} rules; parity 25 %.")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            report = {
                "seed": args.seed,
                "rules": args.rules,
                "jobs": args.jobs,
                "cells": [{"level": level, "column": key, **cell} for (level, key), cell in cells.items()],
            }
            json.dump(report, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
