"""How the study's simulations scale: the same batches on one worker and on two, locally and on Dask.

The workload is a fixed slice of the study (tables of equal ``medium`` players and one ``medium``
against ``greedy`` on duplicate deals, the kind of batch most of the study is made of), played into a
fresh folder each time so nothing is read back. Each configuration runs ``--rounds`` times and the
fastest wall time counts (the others lost time to whatever else the machine did). Speed-up is the
one-worker time over the two-worker time; the study asks for at least 1.8.

    .venv/bin/python -m benchmarks.engine.analysis_scaling --deals 600 --rounds 3 [--json FILE]

The Dask cluster is started here: a scheduler and N single-threaded worker processes on this machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from elferraus.analysis.plan import Sizes, Table, equal_table, one_against
from elferraus.analysis.run import run_tables
from elferraus.analysis.store import GameStore
from tests.support.web_helpers import free_port

SIZES = Sizes(
    redeal_deals=0,
    equal_deals={},
    expert_equal_deals={},
    duplicate_deals=0,
    expert_duplicate_deals=0,
    rules_deals=0,
    fast_batch=50,
)


def workload(deals: int) -> list[Table]:
    """The batches every configuration plays."""
    return [
        equal_table("scaling", "medium", 4, deals, SIZES),
        equal_table("scaling", "medium", 2, deals // 2, SIZES),
        one_against("scaling", "medium", "greedy", 4, deals // 4, SIZES),
    ]


class Cluster:
    """A local Dask scheduler with ``workers`` single-threaded worker processes."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.folder = tempfile.TemporaryDirectory()
        self.processes: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> str:
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": self.folder.name}
        self.processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "distributed.cli.dask_scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--dashboard-address",
                    ":0",
                ],
                **quiet,  # type: ignore[arg-type]
            )
        )
        for index in range(self.workers):
            self.processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "distributed.cli.dask_worker",
                        self.address,
                        "--nthreads",
                        "1",
                        "--dashboard-address",
                        ":0",
                        "--local-directory",
                        f"{self.folder.name}/w{index}",
                    ],
                    **quiet,  # type: ignore[arg-type]
                )
            )
        from distributed import Client

        deadline = time.monotonic() + 60
        while True:
            try:
                with Client(self.address, timeout=5) as client:
                    client.wait_for_workers(self.workers, timeout=30)
                return self.address
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(20)
        self.folder.cleanup()


def timed(tables: list[Table], *, jobs: int = 1, cluster: str | None = None) -> float:
    """Seconds to play ``tables`` into an empty folder."""
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        run_tables(tables, 1, GameStore(Path(folder)), jobs=jobs, cluster=cluster, progress=False)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=600, help="deals of the four-player table (default 600)")
    parser.add_argument("--rounds", type=int, default=3, help="runs per configuration, the fastest counts")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args()
    tables = workload(args.deals)
    games = sum(table.games for table in tables)
    figures: dict[str, Any] = {"games": games, "rounds": args.rounds}
    for label, runner in (
        ("local", lambda workers: timed(tables, jobs=workers)),
        ("dask", lambda workers: _on_cluster(tables, workers)),
    ):
        seconds = {workers: min(runner(workers) for _ in range(args.rounds)) for workers in (1, 2)}
        figures[label] = {
            "one_worker_s": round(seconds[1], 2),
            "two_workers_s": round(seconds[2], 2),
            "speedup": round(seconds[1] / seconds[2], 3),
        }
        print(
            f"{label:6} {games} games: 1 worker {seconds[1]:.1f} s, 2 workers {seconds[2]:.1f} s, "
            f"speed-up {seconds[1] / seconds[2]:.2f}x",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


def _on_cluster(tables: list[Table], workers: int) -> float:
    with Cluster(workers) as address:
        return timed(tables, cluster=address)


if __name__ == "__main__":
    main()
