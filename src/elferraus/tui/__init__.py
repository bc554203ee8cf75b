"""The terminal game behind ``elferraus play`` (a Textual app)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from elferraus.errors import RecordError
from elferraus.i18n import Lang, detect_language, tr
from elferraus.seating import computer_levels
from elferraus.session import Table
from elferraus.tui.app import ElferRausApp
from elferraus.tui.setup_screen import MAX_SEATS, PERSON, SetupChoices

DEFAULT_PACE = 0.6


def choices_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> SetupChoices:
    """The new-game screen's first values, from the command line."""
    try:
        levels = computer_levels(args.bots, args.players)
    except ValueError as error:
        parser.error(str(error))
    seat_levels = [PERSON, *levels] + ["medium"] * (MAX_SEATS - 1 - len(levels))
    pace = DEFAULT_PACE if args.delay is None else max(args.delay, 0.0)
    return SetupChoices(players=args.players, rules=args.rules, rounds=args.rounds, pace=pace, levels=seat_levels)


def load_saved(path: str) -> tuple[Table, list[dict[str, Any]]]:
    """The table of the last game in a save file, and the records of the match's earlier rounds.

    Raises:
        RecordError: the file holds no game, a line is not JSON, or the game cannot be resumed.
        OSError: the file cannot be read.
    """
    records: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                raise RecordError(f"line {number} is not JSON: {error.msg} (column {error.colno})") from None
            if not isinstance(data, dict):
                raise RecordError(f"line {number} is not a game record (a JSON object)")
            records.append(data)
    if not records:
        raise RecordError("there is no game in it")
    last = records[-1]
    try:
        table = Table.from_record(last)
    except RecordError as error:
        raise RecordError(f"line {len(records)}: {error}") from None
    match = last.get("match")
    same_match = (
        [record for record in records[:-1] if record.get("match", {}).get("seed") == match.get("seed")]
        if isinstance(match, dict)
        else []
    )
    if table.game.move_count == 0 and last.get("result") is not None:
        same_match.append(last)  # the saved game was over: resuming starts the match's next round
    return table, same_match


def run_tui(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the full-screen game; returns the exit code."""
    lang: Lang = detect_language(args.lang)
    choices = choices_from_args(args, parser)
    table: Table | None = None
    finished: list[dict[str, Any]] = []
    if args.resume is not None:
        try:
            table, finished = load_saved(args.resume)
        except (RecordError, OSError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            print(f"elferraus play: {tr('resume_failed', lang, path=args.resume, error=reason)}", file=sys.stderr)
            return 2
    save_path = args.save if args.save is not None else args.resume
    app = ElferRausApp(choices, lang=lang, table=table, finished=finished, save_path=save_path, seed=args.seed)
    app.run()
    return 0
