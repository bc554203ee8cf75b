"""``elferraus backup``: a consistent copy of a (running) server's database; and the check of ``--db``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def database_problem(path: str, bus: str | None = None) -> str | None:
    """Why the server could not use the database ``path`` or the ``bus``, in one line naming it; None if it can."""
    from elferraus.server.storage.store import check_store, is_postgres
    from elferraus.server.storage.types import StoreError

    try:
        check_store(path)
    except StoreError as error:
        return f"elferraus serve: cannot use the database {error}"
    if bus is None:
        return None
    if not is_postgres(path):
        return "elferraus serve: --bus shares rooms between processes on one PostgreSQL database; --db is a SQLite file"
    from elferraus.server.site.bus import BusError
    from elferraus.server.site.redis import check_bus

    try:
        check_bus(bus)
    except BusError as error:
        return f"elferraus serve: cannot use the bus {error}"
    return None


def run_backup(args: argparse.Namespace) -> int:
    """Copy ``args.db`` to ``args.out`` with SQLite's online backup; a running server may go on writing.

    The source is only read; the copy goes to a new file or over an earlier copy, never over a database or
    one of its journal files (``elferraus.server.backup``). A refusal is one line naming the file, exit 2.
    """
    from elferraus.server.storage.backup import copy_database
    from elferraus.server.storage.store import is_postgres
    from elferraus.server.storage.types import StoreError

    if is_postgres(args.db):
        print("elferraus backup: a PostgreSQL database is copied with pg_dump (docs/deploy.md)", file=sys.stderr)
        return 2
    try:
        copy_database(Path(args.db), Path(args.out))
    except StoreError as error:
        print(f"elferraus backup: {error}", file=sys.stderr)
        return 2
    print(f"elferraus backup: {args.db} copied to {args.out}")
    return 0
