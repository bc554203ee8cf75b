"""Playing the study's tables: in this process, on a local process pool, or on a Dask cluster.

Batches are pure functions of their description, so where they run changes
nothing but the time: the results are assembled in the order of the plan,
never in the order they finished. Stored batches are read, not played again.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from elferraus.analysis.plan import Batch, Table
from elferraus.analysis.play import BatchResult, play_batch
from elferraus.analysis.store import GameStore

COST = {"expert": 400.0, "hard": 20.0, "medium": 1.8, "random": 1.6, "greedy": 1.0}
"""Rough time of a game per player of each level, relative to ``greedy``: the longest batches start first."""

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the Dask scheduler before giving up."""


class ClusterError(Exception):
    """The Dask cluster could not be reached or failed a batch; the message says which."""


def table_cost(table: Table) -> float:
    """How long a game of ``table`` roughly takes, relative to four ``greedy`` players."""
    return sum(COST.get(spec, 2.0) for spec in table.specs) * (table.players if table.rotations else 1)


def part_of(table: Table) -> str:
    """The study part a table belongs to: its key up to the slash."""
    return table.key.split("/", 1)[0]


def run_tables(
    tables: Sequence[Table],
    seed: int,
    store: GameStore,
    *,
    jobs: int = 1,
    cluster: str | None = None,
    progress: bool = True,
    labels: Callable[[str], str] = str,
) -> dict[str, list[BatchResult]]:
    """Play (or read back) every batch of ``tables``; each table's results in deal order.

    One progress bar per study part, counting games. ``labels`` names a part for
    its bar (the report's language).

    Raises:
        ClusterError: ``cluster`` is given and cannot be reached.
        StoreError: a stored batch cannot be read or a new one written.
    """
    batches = {table.key: table.batches(seed) for table in tables}
    results: dict[str, dict[int, BatchResult]] = {table.key: {} for table in tables}
    parts = list(dict.fromkeys(part_of(table) for table in tables))
    totals = {part: sum(table.games for table in tables if part_of(table) == part) for part in parts}
    columns = (TextColumn("{task.description:<44}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, disable=not progress) as bars:
        tasks = {part: bars.add_task(labels(part), total=totals[part]) for part in parts}
        todo: list[Batch] = []
        for table in tables:
            for batch in batches[table.key]:
                if store.has(batch):
                    results[table.key][batch.first] = store.load(batch)
                    bars.advance(tasks[part_of(table)], _games(batch))
                else:
                    todo.append(batch)
        todo.sort(key=lambda batch: -table_cost(batch.table) * batch.count)
        for result in _execute(todo, jobs, cluster):
            store.save(result)
            table = result.batch.table
            results[table.key][result.batch.first] = result
            bars.advance(tasks[part_of(table)], _games(result.batch))
    return {key: [by_first[first] for first in sorted(by_first)] for key, by_first in results.items()}


def _games(batch: Batch) -> int:
    return batch.count * (batch.table.players if batch.table.rotations else 1)


def _execute(batches: Sequence[Batch], jobs: int, cluster: str | None) -> Iterator[BatchResult]:
    if not batches:
        return
    if cluster is not None:
        yield from _on_cluster(batches, cluster)
    elif jobs <= 1:
        yield from map(play_batch, batches)
    else:
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = [pool.submit(play_batch, batch) for batch in batches]
            for future in concurrent.futures.as_completed(futures):
                yield future.result()


def _on_cluster(batches: Sequence[Batch], address: str) -> Iterator[BatchResult]:
    from distributed import Client, as_completed  # the cluster's library loads only when asked for

    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {error}") from None
    with client:
        # The longest batches first (the list comes sorted so), so that no worker is left with one at the end.
        futures: Iterable[Any] = [
            client.submit(play_batch, batch, pure=False, priority=len(batches) - index)
            for index, batch in enumerate(batches)
        ]
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            try:
                yield future.result()
            except Exception as error:  # a worker's failure arrives as the worker's exception
                raise ClusterError(f"a batch failed on the cluster at {address}: {error}") from error
