"""``elferraus analyze``: the study of the game, its report and its data."""

from __future__ import annotations

import argparse
import sys

from elferraus.i18n import detect_language

EXTRA_HINT = "elferraus analyze needs the analysis extra: pip install 'elferraus[analysis]' (make test installs it)"


def run_analyze(args: argparse.Namespace) -> int:
    """Run the study; exit 0 when the report is written, 2 when it cannot be."""
    try:
        from elferraus.analysis.run import ClusterError
        from elferraus.analysis.store import StoreError
        from elferraus.analysis.study import run_study
    except ImportError as error:
        print(f"{EXTRA_HINT} ({error})", file=sys.stderr)
        return 2
    from pathlib import Path

    out = Path(args.out)
    try:
        run = run_study(
            out,
            seed=args.seed,
            quick=args.quick,
            lang=detect_language(args.lang),
            jobs=args.jobs,
            cluster=args.cluster,
            progress=sys.stderr.isatty(),
        )
    except (ClusterError, StoreError) as error:
        print(f"elferraus analyze: {error}", file=sys.stderr)
        return 2
    print(f"{run.games} games, {run.seconds:.0f} s")
    for name in ("report.html", "report.md", "results.json", "games.parquet", "seats.parquet"):
        print(out / name)
    return 0
