"""Save files: the records of a match so far, one ``elferraus/1`` record per line.

A save file is written whole each time (the finished rounds, then the game
under way), so it always holds one consistent match, and it is what
``elferraus play --resume`` reads back.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from elferraus.bots import BOTS
from elferraus.errors import RecordError
from elferraus.game import Game
from elferraus.match import Match
from elferraus.record import locate_json_error, read_record
from elferraus.seating import PERSON, Seat, TableSetup


def read_save_file(path: str | Path) -> list[dict[str, Any]]:
    """Every record in a save file, in order.

    Raises:
        RecordError: a line is not JSON or not a record (the message names the line).
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
                raise RecordError(f"line {number} is not JSON at column {column}: {problem}") from None
            if not isinstance(data, dict):
                raise RecordError(f"line {number} is not a game record (a JSON object)")
            records.append(data)
    return records


def write_save_file(path: str | Path, records: Sequence[Mapping[str, Any]]) -> None:
    """Replace ``path`` with ``records``, one per line, all at once (a crash leaves the old file or the new one).

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    directory = path.parent if str(path.parent) else Path()
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=directory, delete=False) as handle:
        handle.write(text)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(handle.name, 0o666 & ~umask)  # a save file like any other, not the temporary file's 0600
    os.replace(handle.name, path)


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
