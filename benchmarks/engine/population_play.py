"""Playing the population's tables: one deal (every seat rotation) a task, on worker processes, each finished
deal written to a journal at once, so that a run stopped at any moment and started again plays only the deals
it lacks.

The journal is JSON Lines, one finished deal of one table a line: the table (the member in each slot), the
rules, the seed, each slot's fingerprint (:func:`benchmarks.engine.population_cells.fingerprint`), the deal's
number, the seconds it took, and its games (:meth:`elferraus.arena.runner.GameResult.to_json`, the members'
names in ``specs``; decision times to three significant digits). A line counts for a table only with the same
rules, seed and fingerprints. A run holds a lock on the journal (a second run on the same file stops at once),
and a last line cut off by a stop is removed before anything is added.

A journal is one ``.jsonl`` file, or a folder that outlives a machine: its sealed parts
(``part-NNN.jsonl.xz``, never changed once written, so that git keeps each once) and the open file the
running measurement appends to (``open.jsonl``). :meth:`Journal.seal` compresses the open file into the next
part, for a run that must go on on another machine.
"""

from __future__ import annotations

import fcntl
import json
import lzma
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from benchmarks.engine.population_cells import fingerprint, spec_of
from elferraus.arena.runner import ArenaConfig, GameResult, close_players, play_game
from elferraus.rules import Rules


@dataclass(frozen=True)
class TableKey:
    """What makes two deals' games the same measurement."""

    table: tuple[str, ...]
    rules: str
    seed: int
    versions: tuple[str, ...]
    """The fingerprint of each slot's member."""

    @classmethod
    def of(cls, table: tuple[str, ...], rules: str, seed: int) -> TableKey:
        """The key of ``table`` as its members are now."""
        return cls(table, rules, seed, tuple(fingerprint(name) for name in table))

    def config(self, deals: int) -> ArenaConfig:
        """The arena's configuration of this table."""
        specs = tuple(spec_of(name) for name in self.table)
        return ArenaConfig(specs=specs, deals=deals, seed=self.seed, rules=Rules.preset(self.rules))


@dataclass(frozen=True)
class Deal:
    """One deal of one table, played in every seat rotation."""

    deal: int
    games: tuple[GameResult, ...]
    """In rotation order; ``specs`` hold the members' names."""
    seconds: float
    """Wall-clock time of the deal's games on its worker."""


OPEN = "open.jsonl"
"""The file a journal folder's running measurement appends to."""


class Journal:
    """The finished deals of every table, read from and written to a JSON Lines file or a journal folder (see
    the module's docstring), or kept in memory."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.folder = path is not None and path.suffix != ".jsonl"
        """A journal folder: sealed parts and the open file (a path not ending in ``.jsonl``)."""
        self.deals: dict[TableKey, dict[int, Deal]] = {}
        self._handle: IO[str] | None = None

    @property
    def _file(self) -> Path:
        assert self.path is not None
        return self.path / OPEN if self.folder else self.path

    def _parts(self) -> list[Path]:
        assert self.path is not None
        return sorted(self.path.glob("part-*.jsonl.xz")) if self.folder else []

    def __enter__(self) -> Journal:
        if self.path is None:
            return self
        if self.folder:
            self.path.mkdir(parents=True, exist_ok=True)
        self._handle = self._file.open("a+", encoding="utf-8")
        try:
            fcntl.flock(self._handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._handle.close()
            raise SystemExit(f"{self.path}: another run is writing this journal") from None
        try:
            for part in self._parts():
                with lzma.open(part, "rt", encoding="utf-8") as handle:
                    self._take(part, handle.read().split("\n"))
            self._read()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        if self._handle is not None:
            self._handle.close()  # also releases the lock
            self._handle = None

    def _read(self) -> None:
        assert self._handle is not None
        self._handle.seek(0)
        text = self._handle.read()
        lines = text.split("\n")
        if lines[-1]:  # the last piece ends without a newline: empty, or a line cut off by a stop
            print(f"{self._file}: the last line was cut off; it is removed and its deal played again", file=sys.stderr)
            self._handle.truncate(len(text.encode("utf-8")) - len(lines[-1].encode("utf-8")))
        self._take(self._file, lines)

    def _take(self, source: Path, lines: list[str]) -> None:
        """Keep the deals of ``lines`` (read from ``source``), all but the last piece (after the last newline)."""
        for number, line in enumerate(lines[:-1], 1):
            if not line.strip():
                continue
            try:
                key, deal = _parse(json.loads(line))
            except (ValueError, KeyError, TypeError, IndexError) as error:
                raise SystemExit(f"{source}:{number}: not a journal line ({error})") from error
            self.deals.setdefault(key, {}).setdefault(deal.deal, deal)

    def seal(self) -> Path | None:
        """Compress a journal folder's open file into its next part and empty it; the new part, or None when
        there was nothing to seal (or the journal is a single file)."""
        if not self.folder or self._handle is None:
            return None
        self._handle.seek(0)
        text = self._handle.read()
        if not text:
            return None
        parts = self._parts()
        number = int(parts[-1].name.split("-")[1].split(".")[0]) + 1 if parts else 0
        part = self._file.with_name(f"part-{number:03d}.jsonl.xz")
        partial = part.with_suffix(".partial")
        with lzma.open(partial, "wt", encoding="utf-8", preset=9) as handle:
            handle.write(text)
        with partial.open("rb") as written:
            os.fsync(written.fileno())
        partial.replace(part)
        self._handle.truncate(0)
        self._handle.flush()
        os.fsync(self._handle.fileno())
        return part

    def add(self, key: TableKey, deal: Deal) -> None:
        """Keep a finished deal, and write it to the file at once."""
        self.deals.setdefault(key, {})[deal.deal] = deal
        if self._handle is None:
            return
        entry = {
            "table": list(key.table),
            "rules": key.rules,
            "seed": key.seed,
            "versions": list(key.versions),
            "deal": deal.deal,
            "seconds": round(deal.seconds, 3),
            "games": [_compact(game.to_json()) for game in deal.games],
        }
        self._handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def played(self, key: TableKey, deals: int) -> list[Deal]:
        """The journal's deals of ``key`` numbered below ``deals``, in order."""
        found = self.deals.get(key, {})
        return [found[number] for number in sorted(found) if number < deals]


def _compact(game: dict[str, Any]) -> dict[str, Any]:
    """A game's JSON with its decision times to three significant digits (the journal holds millions)."""
    game["latencies"] = [[float(f"{t:.3g}") for t in seat] for seat in game["latencies"]]
    return game


def _parse(entry: dict[str, Any]) -> tuple[TableKey, Deal]:
    key = TableKey(
        tuple(str(name) for name in entry["table"]),
        str(entry["rules"]),
        int(entry["seed"]),
        tuple(str(version) for version in entry["versions"]),
    )
    games = tuple(GameResult.from_json(game) for game in entry["games"])
    deal = Deal(int(entry["deal"]), games, float(entry["seconds"]))
    if len(games) != len(key.table) or any(game.deal != deal.deal for game in games):
        raise ValueError(f"deal {deal.deal} has {len(games)} games for {len(key.table)} rotations")
    return key, deal


Task = tuple[int, ArenaConfig, int]
"""(the table's index, its configuration, the deal)."""


def _play_deal(task: Task) -> tuple[int, int, list[GameResult], float]:
    index, config, deal = task
    started = time.perf_counter()
    games = [play_game(config, deal, rotation) for rotation in range(config.players)]
    return index, deal, games, time.perf_counter() - started


def play(journal: Journal, wanted: dict[TableKey, int], jobs: int, on_deal: Callable[[TableKey, Deal], None]) -> None:
    """Play every deal below ``wanted[key]`` of each table that the journal lacks, deal by deal across the tables
    (a run stopped early has about as many deals of each), and add each to the journal as it ends."""
    keys = list(wanted)
    configs = [key.config(wanted[key]) for key in keys]
    tasks: list[Task] = [
        (index, configs[index], deal)
        for deal in range(max(wanted.values(), default=0))
        for index, key in enumerate(keys)
        if deal < wanted[key] and deal not in journal.deals.get(key, {})
    ]
    for index, deal, games, seconds in _run(tasks, jobs):
        key = keys[index]
        names = dict(zip(configs[index].specs, key.table, strict=True))
        for game in games:
            game.specs = [names[spec] for spec in game.specs]
        finished = Deal(deal, tuple(games), seconds)
        journal.add(key, finished)
        on_deal(key, finished)


def _run(tasks: list[Task], jobs: int) -> Iterator[tuple[int, int, list[GameResult], float]]:
    if not tasks:
        return
    if jobs <= 1:
        try:
            for task in tasks:
                yield _play_deal(task)
        finally:
            close_players()
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs) as pool:
        yield from pool.imap_unordered(_play_deal, tasks, chunksize=1)
