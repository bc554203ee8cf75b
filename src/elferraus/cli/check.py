"""``elferraus check``: validate every record of a JSON Lines file."""

from __future__ import annotations

import argparse
import sys

from elferraus.cli.files import FileOpenError, open_text
from elferraus.errors import RecordError
from elferraus.record import iter_records


def describe(line: int, error: RecordError) -> str:
    """One line for one bad record: where, then what."""
    where = f"line {line}" + (f", move {error.move}" if error.move is not None else "")
    return f"{where}: {error.problem}"


def run_check(args: argparse.Namespace) -> int:
    """Exit 0 if every record is legal, else 1 with one line per bad record."""
    good = bad = 0
    try:
        with open_text(args.file) as handle:
            for line, item in iter_records(handle):
                if isinstance(item, RecordError):
                    bad += 1
                    print(describe(line, item))
                else:
                    good += 1
    except FileOpenError as error:
        print(f"elferraus check: {error}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"elferraus check: {args.file} is not UTF-8 text ({error.reason})", file=sys.stderr)
        return 2
    summary = f"{good + bad} records: {good} legal, {bad} bad"
    print(summary, file=sys.stderr if bad else sys.stdout)
    return 1 if bad else 0
