"""``elferraus backup``: a consistent copy of a (running) server's database; and the check of ``--db``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def database_problem(path: str, bus: str | None = None) -> str | None:
    """Why the server could not use the database ``path`` or the ``bus``, in one line naming it; None if it can."""
    from elferraus.server.store import StoreError, check_store, is_postgres

    try:
        check_store(path)
    except StoreError as error:
        return f"elferraus serve: cannot use the database {error}"
    if bus is None:
        return None
    if not is_postgres(path):
        return "elferraus serve: --bus shares rooms between processes on one PostgreSQL database; --db is a SQLite file"
    from elferraus.server.bus import BusError, check_bus

    try:
        check_bus(bus)
    except BusError as error:
        return f"elferraus serve: cannot use the bus {error}"
    return None


def run_backup(args: argparse.Namespace) -> int:
    """Copy ``args.db`` to ``args.out`` with SQLite's online backup; a running server may go on writing.

    The copy is written beside ``out`` and renamed into place, so ``out`` is
    either the old file or the whole new copy, never half of one.
    """
    from elferraus.server.sqlite import SqliteDatabase, StoreError
    from elferraus.server.store import is_postgres

    if is_postgres(args.db):
        print("elferraus backup: a PostgreSQL database is copied with pg_dump (docs/deploy.md)", file=sys.stderr)
        return 2
    source, target = Path(args.db), Path(args.out)
    if not source.is_file():
        print(f"elferraus backup: there is no database file {str(source)!r}", file=sys.stderr)
        return 2
    if target.resolve() == source.resolve():
        print(f"elferraus backup: {str(target)!r} is the database itself", file=sys.stderr)
        return 2
    if not target.parent.is_dir():
        print(f"elferraus backup: the folder {str(target.parent)!r} does not exist", file=sys.stderr)
        return 2
    partial = target.with_name(f".{target.name}.partial")
    try:
        database = SqliteDatabase(str(source))
        try:
            partial.unlink(missing_ok=True)
            database.backup(str(partial))
        finally:
            database.close()
        os.replace(partial, target)
    except (StoreError, OSError, ValueError) as error:
        partial.unlink(missing_ok=True)
        print(f"elferraus backup: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # sqlite3.Error from the copy itself: say it in one line
        partial.unlink(missing_ok=True)
        print(f"elferraus backup: {str(source)!r} to {str(target)!r}: {error}", file=sys.stderr)
        return 2
    print(f"elferraus backup: {source} copied to {target}")
    return 0
