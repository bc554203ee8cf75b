"""The terminal game behind ``elferraus play`` (a Textual app)."""

from __future__ import annotations

import argparse
import sys

from elferraus.errors import RecordError
from elferraus.i18n import Lang, detect_language, tr
from elferraus.table.saving import read_save_records, resume_problem
from elferraus.table.seating import PERSON, computer_levels
from elferraus.table.session import Table
from elferraus.tui.app import ElferRausApp
from elferraus.tui.choices import MAX_SEATS, SetupChoices

DEFAULT_PACE = 0.6


def choices_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> SetupChoices:
    """The new-game screen's first values, from the command line."""
    try:
        levels = computer_levels(args.bots, args.players)
    except ValueError as error:
        parser.error(f"argument --bots: {error}")
    seat_levels = [PERSON, *levels] + ["medium"] * (MAX_SEATS - 1 - len(levels))
    pace = DEFAULT_PACE if args.delay is None else max(args.delay, 0.0)
    return SetupChoices(players=args.players, rules=args.rules, rounds=args.rounds, pace=pace, levels=seat_levels)


def load_saved(path: str) -> Table:
    """The table of the last game in a save file, with the match's earlier rounds as its ``finished``.

    Raises:
        RecordError: the file holds no game, a line is not JSON, or the game cannot be resumed.
        OSError: the file cannot be read.
    """
    return Table.from_records(read_save_records(path))


def run_tui(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the full-screen game; returns the exit code."""
    lang: Lang = detect_language(args.lang)
    choices = choices_from_args(args, parser)
    table: Table | None = None
    if args.resume is not None:
        try:
            table = load_saved(args.resume)
        except (RecordError, OSError) as error:
            key, params = resume_problem(error)
            reason = tr(key, lang, **params)
            print(f"elferraus play: {tr('resume_failed', lang, path=args.resume, error=reason)}", file=sys.stderr)
            return 2
    save_path = args.save if args.save is not None else args.resume
    app = ElferRausApp(choices, lang=lang, table=table, save_path=save_path, seed=args.seed)
    app.run()
    return app.return_code or 0
