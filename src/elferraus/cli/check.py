"""``elferraus check``: validate every record of a JSON Lines file."""

from __future__ import annotations

import argparse
import gzip
import itertools
import sys
import zlib
from collections.abc import Iterable

from elferraus.cli.files import FileOpenError, open_text
from elferraus.errors import RecordError
from elferraus.record import iter_records

SHOWN = 10
"""Bad records reported one line each; those after them are only counted."""


def describe(line: int, error: RecordError) -> str:
    """One line for one bad record: where, then what."""
    where = f"line {line}"
    if error.move is not None:
        where += f", move {error.move}"
    if error.column is not None:
        where += f", column {error.column}"
    return f"{where}: {error.problem}"


def _head(lines: Iterable[str]) -> list[str]:
    """The lines up to and including the first one that is not blank."""
    head = []
    for line in lines:
        head.append(line)
        if line.strip():
            break
    return head


def _not_records(head: list[str]) -> str | None:
    """Why a file beginning with ``head`` is no file of records at all, or None if it may be one.

    Every record is a JSON object on a line of its own, so the first line that
    is not blank begins with ``{``; anything else (a README, a CSV, a JSON
    array) is the wrong kind of file, better said once than line by line.
    """
    first = head[-1].strip().removeprefix("\ufeff") if head else ""
    if not first or first.startswith("{"):
        return None
    shown = first if len(first) <= 40 else first[:40] + "..."
    return f"line {len(head)} begins {shown!r}, not '{{'"


def _count(number: int, noun: str) -> str:
    """``1 record``, ``2 records``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def run_check(args: argparse.Namespace) -> int:
    """Exit 0 if every record is legal; 1 with one line per bad record (the first :data:`SHOWN`), or if
    there is no record at all; 2 if the file cannot be read or is not JSON Lines."""
    good = bad = 0
    try:
        with open_text(args.file) as handle:
            head = _head(handle)
            if (why := _not_records(head)) is not None:
                print(
                    f"elferraus check: {args.file} is not a file of elferraus/1 records "
                    f"(JSON Lines, one JSON object a line): {why}",
                    file=sys.stderr,
                )
                return 2
            for line, item in iter_records(itertools.chain(head, handle)):
                if not isinstance(item, RecordError):
                    good += 1
                    continue
                bad += 1
                if bad <= SHOWN:
                    print(describe(line, item))
    except FileOpenError as error:
        print(f"elferraus check: {error}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"elferraus check: {args.file} is not UTF-8 text ({error.reason})", file=sys.stderr)
        return 2
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:  # a gzip-compressed file cut short or damaged
        print(f"elferraus check: {args.file} cannot be read to its end: {error}", file=sys.stderr)
        return 2
    if good + bad == 0:
        what = "is empty" if not head else "holds only blank lines"
        print(f"elferraus check: {args.file} {what}: it holds no records to check", file=sys.stderr)
        return 1
    if bad > SHOWN:
        print(f"... and {_count(bad - SHOWN, 'more bad record')} not shown")
    summary = f"{_count(good + bad, 'record')}: {good} legal, {bad} bad"
    print(summary, file=sys.stderr if bad else sys.stdout)
    return 1 if bad else 0
