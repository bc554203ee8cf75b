"""``elferraus backup`` reads its source only and never writes to a database, its journal files or a live one.

The refusals that matter most are tried against a real server process
(``web_helpers.ServerProcess``) with stored rooms: each must exit 2 in one
line, leave every file of the database byte for byte as it was, and the
server, stopped (SIGTERM, then ``kill -9``) and started again, must still
have every room.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from elferraus.cli.main import main as cli
from elferraus.server.client import RoomClient, create_room
from elferraus.server.storage import backup as backup_module
from elferraus.server.storage.sqlite import SCHEMA, SqliteDatabase
from tests.support.web_helpers import ServerProcess

ROOMS = 3
JOURNALS = ("-wal", "-shm", "-journal")

Snapshot = dict[str, tuple[bytes, int] | None]


def sibling(path: Path, suffix: str) -> Path:
    """``path`` with ``suffix`` added to its name, as SQLite names a database's journal files."""
    return path.with_name(path.name + suffix)


def files_of(db: Path) -> list[Path]:
    """A database and the files SQLite keeps beside it."""
    return [db, *(sibling(db, suffix) for suffix in JOURNALS)]


def snapshot(paths: list[Path]) -> Snapshot:
    """Each file's bytes and modification time (None: there is none)."""
    taken: Snapshot = {}
    for path in paths:
        try:
            taken[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
        except FileNotFoundError:
            taken[str(path)] = None
    return taken


def backup(db: Path, target: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``elferraus backup --db DB TARGET``: its exit code, stdout and stderr."""
    code = cli(["backup", "--db", str(db), str(target)])
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code: int, out: str, err: str, named: Path) -> None:
    """Exit 2 with one line on stderr that names ``named``, nothing on stdout."""
    assert code == 2, (code, out, err)
    assert out == "", out
    assert err.startswith("elferraus backup: "), err
    assert err.count("\n") == 1, err
    assert str(named) in err, err
    assert "Traceback" not in err


def make_rooms(base: str, count: int = ROOMS) -> list[str]:
    """``count`` new rooms of one person and a computer; their codes."""

    async def make() -> list[str]:
        return [
            (await create_room(base, name="Host", players=2, seats=[{"kind": "computer", "level": "easy"}]))["code"]
            for _ in range(count)
        ]

    return asyncio.run(make())


def rooms_served(base: str, codes: list[str]) -> list[str]:
    """Those of ``codes`` that the server at ``base`` has; the others' answers are printed (for a failure)."""
    served = []
    for code in codes:
        try:
            with urllib.request.urlopen(f"{base}/api/rooms/{code}", timeout=10) as answer:
                if answer.status == 200:
                    served.append(code)
        except urllib.error.HTTPError as error:
            print(f"GET /api/rooms/{code}: {error.code} {error.read().decode(errors='replace')}")
    return served


def rooms_in(db: Path) -> int:
    """How many rooms the file ``db`` holds, read without writing to it or beside it."""
    with closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as reader:
        (count,) = reader.execute("SELECT count(*) FROM rooms").fetchone()
        return int(count)


# -- every file of a live database, as the copy's target -----------------------------------------------------


def _link(target: Path, make: Callable[[Path], None]) -> Path:
    target.unlink(missing_ok=True)
    make(target)
    return target


LIVE_TARGETS: dict[str, Callable[[Path], Path]] = {
    "the database itself": lambda db: db,
    "its write-ahead log (-wal)": lambda db: sibling(db, "-wal"),
    "its shared-memory index (-shm)": lambda db: sibling(db, "-shm"),
    "its rollback journal (-journal), not there": lambda db: sibling(db, "-journal"),
    "a hard link to the database": lambda db: _link(db.with_name("hard.sqlite3"), lambda p: os.link(db, p)),
    "a symbolic link to the database": lambda db: _link(db.with_name("soft.sqlite3"), lambda p: p.symlink_to(db)),
    "a hard link to its -wal": lambda db: _link(db.with_name("wal.sqlite3"), lambda p: os.link(sibling(db, "-wal"), p)),
    "a symbolic link to its -shm": lambda db: _link(
        db.with_name("shm.sqlite3"), lambda p: p.symlink_to(sibling(db, "-shm"))
    ),
    "its -wal through a symbolic link to the folder": lambda db: (
        _link(db.parent.with_name("alias"), lambda p: p.symlink_to(db.parent)) / f"{db.name}-wal"
    ),
}


def refuse_and_compare(db: Path, target: Path, capsys: pytest.CaptureFixture[str], also: list[Path]) -> None:
    """The backup of ``db`` to ``target`` is refused and changes no file, in the database's folder or ``also``."""
    watched = sorted({*files_of(db), target, *also})
    before, listing = snapshot(watched), sorted(os.listdir(db.parent))
    assert_refused(*backup(db, target, capsys), named=target)
    assert snapshot(watched) == before
    assert sorted(os.listdir(db.parent)) == listing


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", LIVE_TARGETS)
def test_a_backup_to_a_file_of_the_live_database_is_refused_and_the_server_keeps_every_room(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "live"
    folder.mkdir()
    db = folder / "games.sqlite3"
    server = ServerProcess(db, log=tmp_path / "server.log")
    server.start()
    try:
        codes = make_rooms(server.base)
        assert sibling(db, "-wal").exists()
        assert sibling(db, "-shm").exists()
        for stop in (server.stop, server.kill):
            refuse_and_compare(db, LIVE_TARGETS[name](db), capsys, also=[])
            stop()
            server.start()
            assert rooms_served(server.base, codes) == codes, server.log.read_text()
    finally:
        server.stop()
    assert rooms_in(db) == ROOMS


@pytest.mark.timeout(120)
def test_a_backup_over_another_live_database_is_refused_and_both_servers_keep_their_rooms(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    servers = [ServerProcess(tmp_path / f"{name}.sqlite3") for name in ("games", "other")]
    for server in servers:
        server.start()
    try:
        codes = [make_rooms(server.base) for server in servers]
        source, target = (server.db for server in servers)
        for stop in ("stop", "kill"):
            refuse_and_compare(source, target, capsys, also=files_of(target))
            for server, its_codes in zip(servers, codes, strict=True):
                getattr(server, stop)()
                server.start()
                assert rooms_served(server.base, its_codes) == its_codes, server.log.read_text()
    finally:
        for server in servers:
            server.stop()
    assert [rooms_in(server.db) for server in servers] == [ROOMS, ROOMS]


# -- targets that are not a live database's files, but no place for a copy either -----------------------------


def _database(path: Path, *, wal: bool) -> Path:
    """A database of the server at ``path``, closed cleanly; ``wal``: as a server leaves it, else as a copy."""
    SqliteDatabase(str(path)).close()
    if not wal:
        with closing(sqlite3.connect(path)) as connection:
            connection.execute("PRAGMA journal_mode=DELETE")
    return path


def _foreign(path: Path) -> Path:
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        connection.execute("INSERT INTO notes (text) VALUES ('buy milk')")
        connection.commit()
    return path


def _with_journal(path: Path) -> Path:
    _database(path, wal=False)
    sibling(path, "-journal").write_bytes(b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + bytes(504))
    return path


def _text(path: Path) -> Path:
    path.write_text("my notes, not a database\n")
    return path


TARGETS: dict[str, Callable[[Path], Path]] = {
    "a text file": lambda tmp: _text(tmp / "notes.txt"),
    "an empty file": lambda tmp: _link(tmp / "empty.db", lambda p: p.touch()),
    "a folder": lambda tmp: _link(tmp / "folder", lambda p: p.mkdir()),
    "a SQLite database of another program": lambda tmp: _foreign(tmp / "notes.sqlite3"),
    "a stopped server's database (WAL mode, no journal files)": lambda tmp: _database(tmp / "old.sqlite3", wal=True),
    "a copy whose -journal is left (not closed cleanly)": lambda tmp: _with_journal(tmp / "copy.sqlite3"),
    "the -journal name of an existing file": lambda tmp: sibling(_text(tmp / "notes.txt"), "-journal"),
    "the -wal name of another database": lambda tmp: sibling(_database(tmp / "old.sqlite3", wal=True), "-wal"),
    "the -shm name of a copy": lambda tmp: sibling(_database(tmp / "copy.sqlite3", wal=False), "-shm"),
}


@pytest.mark.parametrize("name", TARGETS)
def test_a_backup_writes_over_nothing_but_an_earlier_copy(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _database(tmp_path / "games.sqlite3", wal=True)
    target = TARGETS[name](tmp_path)
    watched = sorted({*files_of(db), *(files_of(target) if not target.is_dir() else [])})
    before, listing = snapshot(watched), sorted(os.listdir(tmp_path))
    assert_refused(*backup(db, target, capsys), named=target)
    assert snapshot(watched) == before
    assert sorted(os.listdir(tmp_path)) == listing


def test_a_backup_held_open_by_another_program_is_not_written_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _database(tmp_path / "games.sqlite3", wal=True)
    other = tmp_path / "other.sqlite3"
    holder = sqlite3.connect(other, isolation_level=None)
    try:
        holder.execute("PRAGMA journal_mode=WAL")
        holder.execute("CREATE TABLE notes (text TEXT)")
        assert sibling(other, "-wal").exists()
        before = snapshot(files_of(other))
        assert_refused(*backup(db, other, capsys), named=other)
        assert snapshot(files_of(other)) == before
    finally:
        holder.close()


def test_the_partial_copy_is_never_the_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the copy is first written to `.OUT.partial` beside OUT: here that is the source's own name
    db = _database(tmp_path / ".out.sqlite3.partial", wal=True)
    before = snapshot(files_of(db))
    assert_refused(*backup(db, tmp_path / "out.sqlite3", capsys), named=db)
    assert snapshot(files_of(db)) == before
    assert sorted(os.listdir(tmp_path)) == [db.name]


def test_an_earlier_copy_is_replaced_and_the_copy_is_marked_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _database(tmp_path / "games.sqlite3", wal=True)
    db.chmod(0o600)
    copy = tmp_path / "copy.sqlite3"
    for rooms in (0, 1):
        if rooms:
            database = SqliteDatabase(str(db))
            database.add_room("ABCDEF", {"players": 2}, [])
            database.close()
        code, out, err = backup(db, copy, capsys)
        assert (code, err) == (0, "")
        assert out == f"elferraus backup: {db} copied to {copy}\n"
        assert rooms_in(copy) == rooms
        # a copy is in rollback-journal mode: a later backup may replace it, while a server's database
        # (which the server puts in WAL mode) is never taken for one
        assert copy.read_bytes()[18:20] == b"\x01\x01"
        assert copy.stat().st_mode & 0o777 == 0o600  # as private as the database
        assert sorted(os.listdir(tmp_path)) == ["copy.sqlite3", "games.sqlite3"]


# -- the source: read only, and only a database of the server -----------------------------------------------


def _tables(path: Path, script: str) -> Path:
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript(script)
    return path


SOURCES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "a text file": (_text, "not a SQLite database"),
    "an empty file": (lambda p: _link(p, lambda q: q.touch()), "none of the server's tables"),
    "a SQLite database of another program": (_foreign, "another program's database"),
    "a foreign rooms table": (
        lambda p: _tables(p, "CREATE TABLE rooms (id INTEGER PRIMARY KEY, name TEXT);"),
        "the table 'rooms'",
    ),
    "the server's tables, one lacking a column": (
        lambda p: _tables(p, SCHEMA.replace("    text TEXT NOT NULL,\n", "")),
        "the table 'moves'",
    ),
    "the server's tables but one": (
        lambda p: _tables(p, SCHEMA.split("CREATE TABLE IF NOT EXISTS moves")[0]),
        "lacks the server's table moves",
    ),
}


@pytest.mark.parametrize("name", SOURCES)
def test_a_backup_of_a_file_that_is_not_a_database_of_the_server_is_refused_and_leaves_it_as_it_was(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, problem = SOURCES[name]
    source = make(tmp_path / "source.sqlite3")
    before, listing = snapshot(files_of(source)), sorted(os.listdir(tmp_path))
    code, out, err = backup(source, tmp_path / "copy.sqlite3", capsys)
    assert_refused(code, out, err, named=source)
    assert problem in err
    assert snapshot(files_of(source)) == before
    assert sorted(os.listdir(tmp_path)) == listing


def test_a_backup_of_a_stopped_servers_database_leaves_no_file_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.sqlite3"
    database = SqliteDatabase(str(db))
    database.add_room("ABCDEF", {"players": 2}, [])
    database.close()
    before = snapshot(files_of(db))
    code, _out, err = backup(db, tmp_path / "copy.sqlite3", capsys)
    assert (code, err) == (0, "")
    assert snapshot(files_of(db)) == before
    assert sorted(os.listdir(tmp_path)) == ["copy.sqlite3", "games.sqlite3"]
    assert rooms_in(tmp_path / "copy.sqlite3") == 1


def test_a_closed_database_changed_during_its_copy_is_copied_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _database(tmp_path / "games.sqlite3", wal=True)
    copy = tmp_path / "copy.sqlite3"
    write_copy = backup_module._write_copy
    attempts: list[bool] = []

    def a_server_writes_meanwhile(source: Path, partial: Path, *, immutable: bool) -> None:
        write_copy(source, partial, immutable=immutable)
        attempts.append(immutable)
        if len(attempts) == 1:  # a server started, stored a room and stopped while the file was read
            database = SqliteDatabase(str(source))
            database.add_room("ABCDEF", {"players": 2}, [])
            database.close()

    monkeypatch.setattr(backup_module, "_write_copy", a_server_writes_meanwhile)
    code, _out, err = backup(db, copy, capsys)
    assert (code, err) == (0, "")
    assert attempts == [True, True]
    assert rooms_in(copy) == 1


@pytest.mark.timeout(120)
def test_a_backup_while_a_server_writes_has_every_committed_row_still_in_the_wal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.sqlite3"
    copy = tmp_path / "copy.sqlite3"
    server = ServerProcess(db, args=["--rooms-per-minute", "0"])
    server.start()
    try:
        codes = make_rooms(server.base)
        moves = asyncio.run(_play_a_few_moves(server.base))
        # what the server committed is in the -wal, not yet in the database file itself
        with closing(sqlite3.connect(f"{db.as_uri()}?mode=ro&immutable=1", uri=True)) as main_file:
            assert main_file.execute("SELECT count(*) FROM rooms").fetchone() == (0,)
        made: list[str] = []
        stop = threading.Event()
        writer = threading.Thread(target=_keep_making_rooms, args=(server.base, made, stop))
        writer.start()
        try:
            for _ in range(5):
                known = len(made)
                code, _out, err = backup(db, copy, capsys)
                assert (code, err) == (0, "")
                with closing(sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)) as reader:
                    assert reader.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                    (rooms,) = reader.execute("SELECT count(*) FROM rooms").fetchone()
                    (stored,) = reader.execute("SELECT count(*) FROM moves").fetchone()
                assert ROOMS + 1 + known <= rooms, (rooms, known)
                assert stored >= len(moves)
        finally:
            stop.set()
            writer.join()
        assert made, "no room was made during the copies"
        # by another name: through a symbolic link SQLite finds the -wal, a hard link would not say where it is
        soft, hard = tmp_path / "soft.sqlite3", tmp_path / "hard.sqlite3"
        soft.symlink_to(db)
        os.link(db, hard)
        assert backup(soft, copy, capsys)[:2] == (0, f"elferraus backup: {soft} copied to {copy}\n")
        assert rooms_in(copy) >= ROOMS + 1 + len(made)
        assert_refused(*backup(hard, copy, capsys), named=hard)
    finally:
        server.stop()
    restored = ServerProcess(copy, log=tmp_path / "restored.log")
    restored.start()
    try:
        assert rooms_served(restored.base, codes) == codes
    finally:
        restored.stop()


async def _play_a_few_moves(base: str) -> list[str]:
    """A room of one person and a computer, started, the person's moves made three times; the moves stored."""
    host = await create_room(base, name="Host", players=2, seats=[{"kind": "computer", "level": "easy"}], pace=0)
    async with RoomClient(base, host["code"], host["token"]) as client:
        await client.until(lambda s: s["room"]["seats"][0]["online"])
        await client.send({"type": "start"})
        await client.until(lambda s: s["room"]["status"] != "waiting")
        for _ in range(3):
            state = await client.until(lambda s: client.my_turn or s["room"]["status"] != "playing")
            if not client.my_turn:
                break
            await client.move(state["view"]["legal"][0])
            await client.until(lambda s, seq=state["seq"]: s["seq"] > seq)
        assert client.state is not None
        return list(client.state["game"]["moves"])


def _keep_making_rooms(base: str, made: list[str], stop: threading.Event) -> None:
    while not stop.is_set():
        made.extend(make_rooms(base, 1))


@pytest.mark.timeout(60)
def test_a_backup_after_kill_9_has_the_rooms_left_in_the_wal_and_leaves_the_wal_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.sqlite3"
    copy = tmp_path / "copy.sqlite3"
    server = ServerProcess(db)
    server.start()
    try:
        codes = make_rooms(server.base)
    finally:
        server.kill()
    kept = [db, sibling(db, "-wal")]
    before = snapshot(kept)
    code, _out, err = backup(db, copy, capsys)
    assert (code, err) == (0, "")
    assert snapshot(kept) == before
    restored = ServerProcess(copy, log=tmp_path / "restored.log")
    restored.start()
    try:
        assert rooms_served(restored.base, codes) == codes
    finally:
        restored.stop()
