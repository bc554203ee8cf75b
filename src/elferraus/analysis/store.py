"""The study's games on disk: one folder per table, three files per batch, written so a crash loses no batch.

``DIR/games/<part>/<cell>/<first>-<key>.jsonl.gz`` holds the batch's games as
``elferraus/1`` records, ``….seats.parquet`` its seat rows and ``….parquet``
its game rows. The game rows are written last, each file through a temporary
name and a rename, so a batch whose ``.parquet`` exists is complete: a second
run reads it instead of playing it again.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from elferraus.analysis.plan import Batch
from elferraus.analysis.play import GAME_COLUMNS, SEAT_COLUMNS, BatchResult


class StoreError(Exception):
    """A stored batch could not be read or written; the message names the file."""


class GameStore:
    """The folder of a study's games."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _stem(self, batch: Batch) -> Path:
        return self.root / "games" / batch.table.key / batch.name

    def has(self, batch: Batch) -> bool:
        """True if ``batch`` was played and stored completely."""
        return self._stem(batch).with_suffix(".parquet").exists()

    def save(self, result: BatchResult) -> None:
        """Store a played batch (records, seats, then games, each atomically).

        Raises:
            StoreError: the folder cannot be written.
        """
        stem = self._stem(result.batch)
        try:
            stem.parent.mkdir(parents=True, exist_ok=True)
            _replace(stem.with_suffix(".jsonl.gz"), gzip.compress(("\n".join(result.records) + "\n").encode(), 6))
            _write_parquet(stem.with_suffix(".seats.parquet"), result.seats)
            _write_parquet(stem.with_suffix(".parquet"), result.games)
        except OSError as error:
            raise StoreError(f"cannot store the games of {stem}: {error.strerror or error}") from None

    def load(self, batch: Batch) -> BatchResult:
        """Read a stored batch back; its records only when its table keeps them (else they stay on disk).

        Raises:
            StoreError: a file is missing, damaged or has other columns.
        """
        stem = self._stem(batch)
        result = BatchResult(batch)
        result.games = _read_parquet(stem.with_suffix(".parquet"), GAME_COLUMNS)
        result.seats = _read_parquet(stem.with_suffix(".seats.parquet"), SEAT_COLUMNS)
        if batch.table.records:
            result.records = _read_records(stem.with_suffix(".jsonl.gz"), len(result.games["table"]))
        return result

    def write_tables(self, results: Iterable[BatchResult]) -> tuple[Path, Path]:
        """Every stored row in two files for pandas or DuckDB: ``DIR/games.parquet`` and ``DIR/seats.parquet``."""
        games: list[pa.Table] = []
        seats: list[pa.Table] = []
        for result in results:
            games.append(pa.table(result.games))
            seats.append(pa.table(result.seats))
        paths = self.root / "games.parquet", self.root / "seats.parquet"
        for path, parts in zip(paths, (games, seats), strict=True):
            try:
                _write_table(path, pa.concat_tables(parts) if parts else pa.table({}))
            except OSError as error:
                raise StoreError(f"cannot write {path}: {error.strerror or error}") from None
        return paths


def columns_of(results: Iterable[BatchResult], which: str) -> dict[str, np.ndarray[Any, Any]]:
    """The ``games`` or ``seats`` columns of several batches, joined, as numpy arrays."""
    joined: dict[str, list[Any]] = {}
    for result in results:
        for name, values in getattr(result, which).items():
            joined.setdefault(name, []).extend(values)
    return {name: np.asarray(values) for name, values in joined.items()}


def _replace(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _write_parquet(path: Path, columns: dict[str, list[Any]]) -> None:
    _write_table(path, pa.table(columns))


def _write_table(path: Path, table: pa.Table) -> None:
    temporary = path.with_name(path.name + ".tmp")
    pq.write_table(table, temporary, compression="zstd")
    os.replace(temporary, path)


def _read_records(path: Path, games: int) -> list[str]:
    try:
        lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise StoreError(
            f"cannot read the stored records {path}: {error}; delete it to play that batch again"
        ) from None
    if len(lines) != games:
        raise StoreError(f"{path} holds {len(lines)} records for {games} games; delete it to play that batch again")
    return lines


def _read_parquet(path: Path, names: tuple[str, ...]) -> dict[str, list[Any]]:
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as error:
        raise StoreError(f"cannot read the stored games {path}: {error}; delete it to play that batch again") from None
    missing = [name for name in names if name not in table.column_names]
    if missing:
        raise StoreError(f"{path} lacks the columns {', '.join(missing)}; delete it to play that batch again")
    data: dict[str, list[Any]] = table.to_pydict()
    return {name: data[name] for name in names}
