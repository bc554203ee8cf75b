"""The PostgreSQL store's schema: its versions, in order, and the upgrade of a database in place.

Version N of the schema is what the first N entries of ``MIGRATIONS`` make;
the table ``schema_version`` holds the version a database is at. ``migrate``
brings a database up to the newest version in one transaction (PostgreSQL's
DDL is transactional): a database is upgraded wholly or not at all, and a
failed upgrade leaves it at its old version with its rows untouched. A lock
taken for that transaction lets one server upgrade while another that
starts at the same moment waits and then finds nothing left to do.

A change of the schema is a new entry at the end, never an edit of one that
was released: databases out there are at that version already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from elferraus.server.process.urls import shown
from elferraus.server.storage.types import SERVER_TABLES, StoreError, schema_problem

if TYPE_CHECKING:
    from psycopg import AsyncConnection

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the tables of the SQLite store, JSON kept as text.
    (
        """CREATE TABLE rooms (
            code text PRIMARY KEY,
            settings text NOT NULL,
            status text NOT NULL,
            created double precision NOT NULL
        )""",
        """CREATE TABLE seats (
            code text NOT NULL REFERENCES rooms (code),
            seat integer NOT NULL,
            name text NOT NULL,
            kind text NOT NULL,
            level text,
            token_hash text,
            PRIMARY KEY (code, seat)
        )""",
        """CREATE TABLE games (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            code text NOT NULL REFERENCES rooms (code),
            match_seed bigint NOT NULL,
            round integer NOT NULL,
            deal text NOT NULL,
            result text,
            finished double precision
        )""",
        # The key on (game, n) is what lets exactly one of two servers store a move of the same number.
        """CREATE TABLE moves (
            game bigint NOT NULL REFERENCES games (id),
            n integer NOT NULL,
            text text NOT NULL,
            PRIMARY KEY (game, n)
        )""",
        "CREATE INDEX games_by_room ON games (code, id)",
    ),
    # 2: the settings, deals and results as the type json, so that the database refuses a damaged one; json
    # (not jsonb) keeps each text as it was written, its keys in their order, as a record is downloaded.
    (
        "ALTER TABLE rooms ALTER COLUMN settings TYPE json USING settings::json",
        "ALTER TABLE games ALTER COLUMN deal TYPE json USING deal::json",
        "ALTER TABLE games ALTER COLUMN result TYPE json USING result::json",
    ),
    # 3: each room's last activity, for the expiry (expiry.py); for an expired room, when it expired. Moves carry
    # no time, so the activity before the upgrade is not known: every room counts as active at the upgrade,
    # and none in use expires because of it. An index finds the finished games whose records have been kept.
    (
        "ALTER TABLE rooms ADD COLUMN active double precision",
        "UPDATE rooms SET active = extract(epoch FROM clock_timestamp())",
        "ALTER TABLE rooms ALTER COLUMN active SET NOT NULL",
        "UPDATE games SET finished = extract(epoch FROM clock_timestamp()) "
        "WHERE result IS NOT NULL AND finished IS NULL",
        "CREATE INDEX games_by_finish ON games (finished)",
    ),
)
"""The statements of each version of the schema, oldest first."""

LATEST = len(MIGRATIONS)
"""The version this server writes and reads."""

_UPGRADE_LOCK = 0x656C666572726175
"""The advisory lock that one upgrade at a time holds (the bytes of "elferrau")."""


async def schema_version(connection: AsyncConnection[tuple[object, ...]]) -> int:
    """The version of the schema the database is at (0: none of this server's tables yet)."""
    cursor = await connection.execute("SELECT to_regclass('schema_version') IS NOT NULL")
    exists = await cursor.fetchone()
    if exists is None or not exists[0]:
        return 0
    row = await (await connection.execute("SELECT version FROM schema_version")).fetchone()
    return 0 if row is None else int(str(row[0]))


async def columns_of(connection: AsyncConnection[tuple[object, ...]], tables: list[str]) -> dict[str, list[str]]:
    """Those of ``tables`` that the database has (in its current schema), each with the names of its columns."""
    cursor = await connection.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = ANY(%s) ORDER BY table_name, ordinal_position",
        (tables,),
    )
    found: dict[str, list[str]] = {}
    for table, column in await cursor.fetchall():
        found.setdefault(str(table), []).append(str(column))
    return found


async def _refuse_another_schema_version(connection: AsyncConnection[tuple[object, ...]], url: str) -> None:
    # Some migration tools (Flyway among them) keep a table of this name, with other columns and versions
    # like '1.1'; the server's has the one integer column.
    found = await columns_of(connection, ["schema_version"])
    if found and found["schema_version"] != ["version"]:
        columns = ", ".join(found["schema_version"])
        raise StoreError(shown(url), f"the table 'schema_version' is not the server's: its columns are {columns}")


async def _refuse_foreign_tables(connection: AsyncConnection[tuple[object, ...]], url: str, version: int) -> None:
    """Refuse, naming the table, a database at ``version`` whose tables of the server's names are not its own.

    Raises:
        StoreError: a table of the server's name lacks a column of the server's, or one is missing (at a
            version above 0), or one is there although the server never made its tables (at version 0).
    """
    tables = await columns_of(connection, list(SERVER_TABLES))
    if (problem := schema_problem(tables, new=version == 0)) is not None:
        raise StoreError(shown(url), problem)
    if version == 0 and tables:
        table = next(table for table in SERVER_TABLES if table in tables)
        raise StoreError(
            shown(url), f"the table {table!r} is there, but the server never made its tables here (no schema_version)"
        )


async def migrate(connection: AsyncConnection[tuple[object, ...]], url: str, target: int = LATEST) -> int:
    """Upgrade the database ``connection`` is open on to version ``target``; returns the version it was at.

    Tables of the server's names that are not the server's (another program's ``rooms``, a ``schema_version``
    of another tool, a column gone) are refused before anything is changed.

    Raises:
        StoreError: the database is at a newer version than this server knows, its tables are not the server's,
            or an upgrade failed (then nothing of it was kept).
        psycopg.Error: the database could not be reached or refused the upgrade (nothing of it was kept).
    """
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(%s)", (_UPGRADE_LOCK,))
        await _refuse_another_schema_version(connection, url)
        await connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
        before = await schema_version(connection)
        if before > LATEST:
            raise StoreError(
                shown(url), f"the database's schema is version {before}, newer than this server's ({LATEST})"
            )
        await _refuse_foreign_tables(connection, url, before)
        for version in range(before + 1, target + 1):
            for statement in MIGRATIONS[version - 1]:
                await connection.execute(statement)
        if before == 0:
            await connection.execute("INSERT INTO schema_version (version) VALUES (%s)", (max(before, target),))
        else:
            await connection.execute("UPDATE schema_version SET version = %s", (max(before, target),))
    return before
