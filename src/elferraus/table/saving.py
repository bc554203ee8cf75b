"""Save files: the records of a match so far, one ``elferraus/1`` record per line.

A save file is written whole each time (the finished rounds, then the game
under way), so it always holds one consistent match, and it is what
``elferraus play --resume`` reads back. Unless the player names another
place, games are saved in the user's data folder (:func:`default_save_folder`),
never into whatever folder the game was started from.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import platformdirs

from elferraus.bots import BOTS
from elferraus.errors import RecordError
from elferraus.game import Game
from elferraus.match import Match
from elferraus.record import locate_json_error, read_record
from elferraus.table.seating import PERSON, Seat, TableSetup


class SaveFileError(RecordError):
    """A save file that holds no game to resume: no record at all, or a line that is no record.

    Besides its English message it carries ``key`` and ``params``, the same in the
    catalogue's words (:func:`resume_problem`), so that a German player reads it in German.
    """

    def __init__(self, message: str, key: str, **params: object) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


def read_save_file(path: str | Path) -> list[dict[str, Any]]:
    """Every record in a save file, in order.

    Raises:
        SaveFileError: a line is not JSON or not a record (the message names the line).
        OSError: the file cannot be read.
    """
    records: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            text = line.rstrip("\r\n")
            try:
                data = json.loads(text)
            except json.JSONDecodeError as error:
                column, problem = locate_json_error(text, error)
                cut = column > len(text.rstrip())
                raise SaveFileError(
                    f"line {number} is not JSON at column {column}: {problem}",
                    "resume_cut" if cut else "resume_not_json",
                    line=number,
                    column=column,
                ) from None
            if not isinstance(data, dict):
                raise SaveFileError(
                    f"line {number} is not a game record (a JSON object)", "resume_not_record", line=number
                )
            records.append(data)
    return records


def read_save_records(path: str | Path) -> list[dict[str, Any]]:
    """:func:`read_save_file`, refusing a file without a single record (there is no game to resume).

    Raises:
        SaveFileError: no record, or a line is not one.
        OSError: the file cannot be read.
    """
    records = read_save_file(path)
    if not records:
        raise SaveFileError("there is no game in it", "resume_empty")
    return records


def resume_problem(error: RecordError | OSError) -> tuple[str, dict[str, object]]:
    """Why a save file could not be resumed, as a message key of the catalogue and its parameters.

    The file's own faults and the common reasons a file cannot be read are said in
    the catalogue's words; a record that breaks the format or the rules keeps the
    engine's message, which names the line and the move, as its detail.
    """
    if isinstance(error, SaveFileError):
        return error.key, error.params
    if isinstance(error, FileNotFoundError):
        return "resume_missing", {}
    if isinstance(error, IsADirectoryError):
        return "resume_folder", {}
    if isinstance(error, PermissionError):
        return "resume_not_allowed", {}
    if isinstance(error, OSError):
        return "resume_unreadable", {"error": error.strerror or str(error)}
    return "resume_bad_game", {"problem": str(error)}


def write_save_file(path: str | Path, records: Sequence[Mapping[str, Any]]) -> None:
    """Replace ``path`` with ``records``, one per line, all at once (a crash leaves the old file or the new one).

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    directory = path.parent if str(path.parent) else Path()
    written: str | None = None
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=directory, delete=False) as handle:
            written = handle.name
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(written, 0o666 & ~umask)  # a save file like any other, not the temporary file's 0600
        os.replace(written, path)
    except BaseException:
        if written is not None:
            with contextlib.suppress(OSError):
                os.unlink(written)  # a full disk leaves no half-written temporary file behind
        raise


# -- where a game is saved ---------------------------------------------------------------------------------------

SAVE_NAME = "elferraus-%Y%m%d-%H%M%S.jsonl"
"""The name of a new save file (a ``time.strftime`` pattern): the moment it was saved."""


def default_save_folder() -> Path:
    """The folder games are saved in unless the player names another: ``games`` in the user's data folder.

    ``$XDG_DATA_HOME/elferraus/games`` (by default ``~/.local/share/elferraus/games``)
    on Linux, ``~/Library/Application Support/elferraus/games`` on macOS,
    ``%LOCALAPPDATA%\\elferraus\\games`` on Windows. It is not created here.
    """
    return platformdirs.user_data_path("elferraus", appauthor=False) / "games"


def default_save_path(moment: float | None = None) -> Path:
    """A new file in :func:`default_save_folder`, named after ``moment`` (default: now)."""
    return default_save_folder() / time.strftime(SAVE_NAME, time.localtime(moment))


def save_destination(answer: str, default: Path) -> Path:
    """The file an answer to "save where?" names, as an absolute path.

    An empty answer is ``default``; ``~`` is the home folder; a relative path
    starts in the current folder; a folder (one that exists, or an answer
    ending in ``/``) gets a file named like ``default`` inside it.

    >>> str(save_destination("", Path("/games/a.jsonl")))
    '/games/a.jsonl'
    >>> str(save_destination("/tmp/", Path("/games/a.jsonl")))
    '/tmp/a.jsonl'
    """
    text = answer.strip()
    if not text:
        return default.expanduser().absolute()
    path = Path(text).expanduser().absolute()
    if text.endswith(("/", os.sep)) or path.is_dir():
        path = path / default.name
    return path


def save_game_file(path: Path, records: Sequence[Mapping[str, Any]], *, replace: bool = False) -> None:
    """Write a save file at ``path``, making its folder if needed.

    Args:
        replace: the player agreed to replace the file if it exists; without
            it an existing file is left alone and :class:`FileExistsError` raised.

    Raises:
        FileExistsError: ``path`` exists and ``replace`` is False.
        OSError: the file cannot be written there (:func:`save_problem` words why);
            something that is not a plain file (a folder, a device) is never replaced.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        pass
    except NotADirectoryError:
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path)) from None
    else:
        if not stat.S_ISREG(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not replace:
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # the folder to make is a file already
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path.parent)) from None
    write_save_file(path, records)


def save_problem(path: Path, error: OSError) -> tuple[str, dict[str, str]]:
    """Why ``path`` could not be written, as a message key of the catalogue and its parameters."""
    code = error.errno
    if isinstance(error, FileExistsError):
        return "save_exists", {"path": str(path)}
    if isinstance(error, IsADirectoryError) or code == errno.EISDIR:
        return "save_not_a_file", {"path": str(path)}
    if isinstance(error, NotADirectoryError) or code == errno.ENOTDIR:
        return "save_not_a_folder", {"path": str(path), "part": str(_file_in_the_way(path))}
    if isinstance(error, PermissionError):
        return "save_not_allowed", {"path": str(path)}
    if code == errno.EROFS:
        return "save_read_only", {"path": str(path)}
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return "save_disk_full", {"path": str(path)}
    return "save_failed", {"path": str(path), "error": error.strerror or str(error)}


def _file_in_the_way(path: Path) -> Path:
    """The first folder of ``path`` that is a file instead (the cause of "not a directory")."""
    for parent in reversed(path.parents):
        if parent.exists() and not parent.is_dir():
            return parent
    return path.parent


def setup_of_record(data: object) -> tuple[TableSetup, Match, Game]:
    """The table's setup, the match so far and the game of a saved record.

    A record without ``names``/``bots`` (for example from ``elferraus
    simulate``) seats a person at seat 0 and ``medium`` players elsewhere.

    Raises:
        RecordError: the record is broken, or its extra keys are.
    """
    game = read_record(data)
    metadata = game.metadata
    seats = tuple(
        Seat(name, level)
        for name, level in zip(_names(metadata, game.players), _levels(metadata, game.players), strict=True)
    )
    info = metadata.get("match")
    if info is None:
        info = {"seed": metadata.get("seed", 0), "rounds": 1, "target": None, "scores": []}
    try:
        seed, rounds, target, scores = _match_fields(info, game.players)
        preset = game.rules.preset_name
        setup = TableSetup(seats, preset if preset is not None else "classic", rounds, target, seed)
        scores = [list(row) for row in scores]  # the match's own list, not the record's
        match = Match(game.players, game.rules, rounds=rounds, target=target, seed=seed, scores=scores)
    except (TypeError, ValueError, KeyError) as error:
        raise RecordError(f"the record's match information is broken: {error}") from None
    return setup, match, game


def _names(metadata: Mapping[str, Any], players: int) -> list[str]:
    names = metadata.get("names")
    if names is None:
        return [f"Player {seat + 1}" for seat in range(players)]
    if not isinstance(names, list) or len(names) != players or not all(isinstance(n, str) and n for n in names):
        raise RecordError(f"'names' must be a list of {players} non-empty names, not {names!r}")
    return names


def _levels(metadata: Mapping[str, Any], players: int) -> list[str | None]:
    levels = metadata.get("bots")
    if levels is None:
        return [None] + ["medium"] * (players - 1)
    if not isinstance(levels, list) or len(levels) != players:
        raise RecordError(f"'bots' must be a list of {players} levels, not {levels!r}")
    result: list[str | None] = []
    for seat, level in enumerate(levels):
        if level is None or level == PERSON:
            result.append(None)
        elif isinstance(level, str) and level in BOTS:
            result.append(level)
        else:
            raise RecordError(f"'bots' seat {seat}: unknown level {level!r}; use 'human' or one of {', '.join(BOTS)}")
    return result


def _match_fields(info: object, players: int) -> tuple[int, int, int | None, list[list[int]]]:
    if not isinstance(info, dict):
        raise TypeError(f"'match' must be an object, not {info!r}")
    seed, rounds, target, scores = info["seed"], info["rounds"], info.get("target"), info["scores"]
    if not isinstance(seed, int) or not isinstance(rounds, int) or not (target is None or isinstance(target, int)):
        raise TypeError("'seed' and 'rounds' must be integers, 'target' an integer or null")
    if not isinstance(scores, list) or not all(
        isinstance(row, list) and len(row) == players and all(isinstance(n, int) and n >= 0 for n in row)
        for row in scores
    ):
        raise TypeError(f"'scores' must be a list of rounds of {players} penalty counts")
    return seed, rounds, target, scores
