"""A copy of the server's SQLite database that writes to no database (``elferraus backup``).

The source is opened read-only and must be a database of the server. The
copy is written to a file of its own beside the target (``.OUT.partial``)
and renamed over the target, which may only be a new file or an earlier
copy. So a backup never writes to its source or to a file SQLite keeps for
it (``-wal``, ``-shm``, ``-journal``, by name or through a link), to a name
SQLite would take for another database's journal, or over a database that a
server has open, that was not closed cleanly, or that a server has used.

A copy is left in rollback-journal mode, while a server puts its database
in WAL mode when it opens it: that is how an earlier copy is told from a
server's database.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from elferraus.server.storage.sqlite import reason_of, tables_of
from elferraus.server.storage.types import StoreError, schema_problem

JOURNALS = {"-wal": "write-ahead log", "-shm": "shared-memory index", "-journal": "rollback journal"}
"""The files SQLite keeps beside a database, by the ending of their names."""
ATTEMPTS = 3
"""Copies of a closed database tried before giving up, if a server starting on it changes it meanwhile."""
_HEADER = b"SQLite format 3\x00"
_WAL_MODE = 2
"""Bytes 18 and 19 of a database in WAL mode (1 in rollback-journal mode)."""


def journal_files(db: Path) -> dict[str, Path]:
    """The files SQLite keeps beside the database ``db`` (there or not), by the ending of their names."""
    return {ending: db.with_name(db.name + ending) for ending in JOURNALS}


def partial_of(target: Path) -> Path:
    """The file a copy is written to before it is renamed to ``target``."""
    return target.with_name(f".{target.name}.partial")


def copy_database(source: Path, target: Path) -> None:
    """Copy the server's database ``source`` to ``target``, consistent as of one moment, reading ``source`` only.

    A server may go on writing meanwhile. ``target`` is then the whole copy, or still what it was.

    Raises:
        StoreError: naming the file and why: ``source`` is not a database of the server, ``target`` is not a
            place for the copy (see the module's words), or the copy failed (then nothing was written).
    """
    try:
        real = _check(source, target)
    except OSError as error:
        raise _failed(error, target) from error
    partial = partial_of(target)
    try:
        _copy_consistently(real, partial)
        os.replace(partial, target)
        _sync_folder(target.parent)
    except OSError as error:
        _remove_partial(partial)
        raise _failed(error, target) from error
    except BaseException:
        _remove_partial(partial)
        raise


def _failed(error: OSError, target: Path) -> StoreError:
    return StoreError(str(error.filename or target), error.strerror or str(error))


def _check(source: Path, target: Path) -> Path:
    """Refuse what is not to be copied or written over, before anything is written; the source's real path."""
    if not source.is_file():
        raise StoreError(str(source), "there is no database file of this name")
    _check_target(source, target)
    # SQLite keeps a database's -wal beside the name it was opened by, with symbolic links resolved
    real = source.resolve()
    if real.stat().st_nlink > 1 and not os.path.lexists(journal_files(real)["-wal"]):
        raise StoreError(
            str(source),
            "this database file has other names (hard links) and no -wal beside this one: a server that has it "
            "open by another name keeps its newest rooms in that name's -wal; copy it by the name the server uses",
        )
    return real


def _check_target(source: Path, target: Path) -> None:
    if not target.parent.is_dir():
        raise StoreError(str(target), f"the folder {str(target.parent)!r} does not exist")
    if (role := _role(target, source)) is not None:
        raise StoreError(str(target), f"this is {role}; the copy must go to a file of its own")
    for name in _spellings(target):
        for ending, kind in JOURNALS.items():
            stem = name.name.removesuffix(ending)
            if stem not in ("", name.name) and (owner := name.with_name(stem)).is_file():
                raise StoreError(str(target), f"SQLite would take a file of this name for the {kind} of {owner}")
    if target.is_dir():
        raise StoreError(str(target), "this is a folder; name the file for the copy")
    for name in _spellings(target):
        for journal in journal_files(name).values():
            if os.path.lexists(journal):
                raise StoreError(
                    str(target),
                    f"{journal.name} is there beside it: a server or another program has this database open, "
                    "or it was not closed cleanly; a backup writes over nothing but an earlier copy",
                )
    if os.path.exists(target):
        _check_earlier_copy(target)
    partial = partial_of(target)
    if (role := _role(partial, source)) is not None:
        raise StoreError(str(partial), f"the copy is first written to this file, which is {role}")
    if partial.is_dir():
        raise StoreError(str(partial), "the copy is first written to this file, which is a folder")


def _check_earlier_copy(target: Path) -> None:
    """Refuse ``target`` unless it is an earlier copy: a database of the server in rollback-journal mode."""
    with target.open("rb") as file:
        header = file.read(100)
    nothing_else = "a backup writes over nothing but an earlier copy"
    if not header.startswith(_HEADER):
        what = "an empty file" if not header else "not a SQLite database"
        raise StoreError(str(target), f"this file is there and is not an earlier copy ({what}); {nothing_else}")
    if _WAL_MODE in header[18:20]:
        raise StoreError(str(target), f"this is a server's database (in WAL mode), not an earlier copy; {nothing_else}")
    try:
        reader = sqlite3.connect(f"{target.absolute().as_uri()}?mode=ro", uri=True)
        try:
            problem = schema_problem(tables_of(reader))
        finally:
            reader.close()
    except sqlite3.Error as error:
        problem = reason_of(error)
    if problem is not None:
        raise StoreError(str(target), f"this is not an earlier copy: {problem}; {nothing_else}")


def _role(path: Path, db: Path) -> str | None:
    """What ``path`` is of the database ``db``: the database or one of its journal files, by name (links
    followed) or as another link to the same file; None if neither."""
    names = _spellings(path)
    for spelling in _spellings(db):
        files = {"the database itself": spelling}
        for ending, journal in journal_files(spelling).items():
            files[f"the {JOURNALS[ending]} ({ending}) of the database {db}, which SQLite writes to"] = journal
        for role, file in files.items():
            if file in names:
                return role
            if _same_file(path, file):
                return f"another name (a hard link) for {role}"
    return None


def _spellings(path: Path) -> set[Path]:
    """``path`` made absolute as it is written, and with every symbolic link on the way resolved."""
    return {Path(os.path.abspath(path)), path.resolve()}


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:  # one of them is not there
        return False


def _copy_consistently(source: Path, partial: Path) -> None:
    wal = journal_files(source)["-wal"]
    for _attempt in range(ATTEMPTS):
        # A server's database with no -wal beside it is closed. A read-only connection would make the -wal and
        # -shm it needs and leave them behind, so it is read as immutable instead, and the copy is kept only if
        # nobody changed the file meanwhile (a server starting on it).
        closed = _in_wal_mode(source) and not os.path.lexists(wal)
        before = _stamp(source)
        _write_copy(source, partial, immutable=closed)
        if not closed or (_stamp(source) == before and not os.path.lexists(wal)):
            return
    raise StoreError(str(source), f"it changed during each of {ATTEMPTS} copies; try again")


def _write_copy(source: Path, partial: Path, *, immutable: bool) -> None:
    uri = f"{source.absolute().as_uri()}?mode=ro{'&immutable=1' if immutable else ''}"
    try:
        reader = sqlite3.connect(uri, uri=True)
        try:
            if (problem := schema_problem(tables_of(reader))) is not None:
                raise StoreError(str(source), problem)
            _remove_partial(partial)
            # a new file of its own (never one a link leads to), as private as the database
            os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, stat.S_IMODE(source.stat().st_mode)))
            copy = sqlite3.connect(partial, isolation_level=None)
            try:
                reader.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # marks it as a copy: see the module's words
            finally:
                copy.close()
        finally:
            reader.close()
    except sqlite3.Error as error:
        raise StoreError(str(source), reason_of(error)) from error


def _in_wal_mode(db: Path) -> bool:
    with db.open("rb") as file:
        header = file.read(20)
    return header.startswith(_HEADER) and header[18] == _WAL_MODE


def _stamp(path: Path) -> tuple[int, int, int, int]:
    status = path.stat()
    return status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns


def _remove_partial(partial: Path) -> None:
    """Remove what an earlier backup that stopped half-way may have left: the partial copy and its journals."""
    for leftover in (partial, *journal_files(partial).values()):
        leftover.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    """Put the rename on disk too, so the copy is there after a power cut."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
