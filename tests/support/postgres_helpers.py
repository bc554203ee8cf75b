"""A real PostgreSQL for the tests: Debian's server binaries, a cluster in a temporary folder, a free port.

As root, PostgreSQL refuses to run: the cluster then belongs to the user ``postgres`` (which Debian's
package makes) and its programs run as that user. ``make test`` installs the package when it is missing.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg

from tests.support.web_helpers import free_port


def server_programs() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``: the newest of Debian's, else the ones on the PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(Path(path).parts[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise RuntimeError("PostgreSQL's server is not installed: apt-get install postgresql (make test does)")
    return Path(initdb).parent


class PostgresServer:
    """A PostgreSQL cluster of its own, listening on 127.0.0.1 at a free port (trust authentication).

    Args:
        folder: an empty folder for the cluster, its socket and its log.
        durable: each commit is written to disk before it is acknowledged (``fsync``), as a deployed server
            does: what a benchmark of commits measures. Off for the tests (the default): their cluster is thrown
            away, and what they crash is PostgreSQL's processes, never the machine, so a commit survives in the
            operating system's cache either way; a restart after a crash then takes a tenth of a second, not
            the seconds of syncing the whole data folder.
    """

    def __init__(self, folder: Path, *, durable: bool = False) -> None:
        self.folder = folder
        self.durable = durable
        self.data = folder / "data"
        self.log = folder / "server.log"
        self.port = free_port()
        self.bin = server_programs()
        self._user = None if os.geteuid() != 0 else pwd.getpwnam("postgres")
        if self._user is not None:
            os.chown(folder, self._user.pw_uid, self._user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self._user is not None:
            command = ["runuser", "-u", self._user.pw_name, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=self.folder)
        if done.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}{log}")

    def start(self) -> None:
        """Start the server and wait until it takes connections."""
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.folder}"
        if not self.durable:
            options += " -c fsync=off"
        self._run("pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", options)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` (ends every session cleanly) or ``immediate`` (as if it crashed)."""
        self._run("pg_ctl", "stop", "-D", str(self.data), "-m", mode, "-w", "-t", "60")

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new, empty database; returns its URL."""
        name = f"test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')  # a name of our own making
        return self.url(name)


@contextlib.contextmanager
def postgres_server(*, durable: bool = False) -> Iterator[PostgresServer]:
    """A started PostgreSQL in a temporary folder (outside pytest's, which the user postgres cannot enter);
    ``durable`` as for ``PostgresServer``."""
    folder = Path(tempfile.mkdtemp(prefix="elferraus-pg-"))
    try:
        server = PostgresServer(folder, durable=durable)
        server.start()
        try:
            yield server
        finally:
            with contextlib.suppress(RuntimeError):
                server.stop("immediate")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def query(url: str, sql: str, *params: object) -> list[tuple[object, ...]]:
    """The rows of one statement on the database ``url`` (none for a change), from a connection of its own."""
    with psycopg.connect(url, autocommit=True) as connection:
        cursor = connection.execute(sql, params or None)
        return cursor.fetchall() if cursor.description is not None else []


def count_rows(db: str, table: str) -> int:
    """How many rows ``table`` has in the server's database ``db`` (a SQLite file or a PostgreSQL URL)."""
    if db.startswith("postgresql://"):
        ((count,),) = query(db, f"SELECT COUNT(*) FROM {table}")
        return int(str(count))
    with contextlib.closing(sqlite3.connect(db)) as stored:
        return int(stored.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
