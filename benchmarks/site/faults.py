#!/usr/bin/env python3
"""Faults of the web server's database, each followed by ``kill -9``: what is lost, what is held up.

For each fault kind (``tests/support/fault_helpers.py`` says how each is made):

- ``locked``: another process holds the database's write lock for 5 s (the server's busy timeout is 2 s);
- ``full``: the database's own tmpfs is filled up for 5 s;
- ``readonly``: for 5 s every write to the database's files fails with EROFS;

a fresh server (``python -m elferraus.cli.main serve``, a new database, under
``nice -n -10`` as root, and so are the probes) gets three rooms of two people,
whom this script plays over the WebSocket (the first legal move at once, the
host dealing the next round), two rooms of a host and three ``easy`` computers
at pace 0 (the host deals and goes; a computer stands in for him 5 s later, so
that the computers' first moves fall 1.5 s and 2.5 s into the fault), and two
rooms that only the probes visit. Then ``--rounds`` times:

1. the fault is made and lasts 5 s. Each room of people has a move on its way,
   which must be refused (``store_unavailable``, the room unchanged), and so
   must a ``POST /api/rooms``. While it lasts a process of its own (its event
   loop does nothing else) measures round trips in the probed rooms that need
   no database write: WebSocket ping to pong, a spectator's connection to its
   first ``state``, ``GET /healthz``, ``GET /api/rooms/CODE``;
2. the fault ends; every refused frame is sent again until accepted, and the
   computers must move again by themselves;
3. a seeded moment (0 to 1 s) after every room has resumed, the server is
   killed (``kill -9``) and started again on the same database, and the store
   is read back: every move that some client of this script saw in a
   ``state`` must be stored at its place, and every stored game must replay
   (the project's record reader on the SQLite file, ``GET
   /api/games/ID/record`` for finished games, ``elferraus check`` on all).

At the end every room's game is played to its end and the store checked once
more. The table gives, per kind: kill -9 rounds, acknowledged moves found in
the store / acknowledged, stored games that replay / stored, frames refused
during the faults, seconds until the computers moved again, and the probes'
p50 / p99 / max during the faults (all rounds, all four kinds of round trip
together), the p99 of a control (``GET /healthz`` of a second server, idle and
without any fault: what the machine's load alone costs a round trip), and the
problems found (the exit status is 1 if there is any, or a p99 of 50 ms or
more).

``full`` needs root (``mount -t tmpfs``), ``readonly`` needs ``strace``; a kind
that cannot be made here is reported and skipped. Run it from the repository
root, as root, on an otherwise idle machine::

    .venv/bin/python -m benchmarks.site.faults --rounds 3 --json faults.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.support.fault_helpers import (  # the harness is the fault tests' own
    FAULTS,
    Mounts,
    fault_problem,
    latencies,
)
from tests.support.fault_scenario import RoundReport, run_fault

P99_LIMIT_MS = 50.0


def run_kind(kind: str, rounds: int, seed: int) -> list[RoundReport]:
    """Every round of one fault kind, on a fresh server in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix=f"faults-{kind}-") as folder:
        mounts = Mounts(Path(folder) / "mnt")
        try:
            return run_fault(kind, Path(folder), mounts, seed, rounds, say=lambda text: print(text, file=sys.stderr))
        finally:
            mounts.close()


def row(kind: str, reports: list[RoundReport]) -> dict[str, Any]:
    """The figures of one kind."""
    rounds, final = reports[:-1], reports[-1]
    during = latencies([sample for report in rounds for sample in report.window], float("-inf"), float("inf"))
    return {
        "kind": kind,
        "rounds": len(rounds),
        "acknowledged": final.acknowledged,
        "found": final.found,
        "games": final.games,
        "replayed": final.replayed,
        "refused": sum(len(report.refusals) for report in rounds),
        "resumed": sorted(seconds for report in rounds for seconds in report.resumed.values()),
        "latency": {name: dataclasses.asdict(latency) for name, latency in during.items()},
        "problems": [problem for report in reports for problem in report.problems],
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| fault | kill -9 rounds | acknowledged moves stored | stored games replay | frames refused "
        "| computers moved again after (s) | other rooms during the fault: p50 / p99 / max (ms), round trips "
        "| control p99 (ms) | problems |",
        "|---|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for data in rows:
        if "skipped" in data:
            lines.append(f"| {data['kind']} | skipped: {data['skipped']} | | | | | | | |")
            continue
        every = data["latency"]["all"]
        resumed = ", ".join(f"{seconds:.1f}" for seconds in data["resumed"]) or "-"
        lines.append(
            f"| {data['kind']} | {data['rounds']} | {data['found']}/{data['acknowledged']} "
            f"| {data['replayed']}/{data['games']} | {data['refused']} | {resumed} "
            f"| {every['p50']:.1f} / {every['p99']:.1f} / {every['max']:.1f}, {every['samples']} "
            f"| {data['latency']['control']['p99']:.1f} | {len(data['problems'])} |"
        )
    return "\n".join(lines)


def by_probe(rows: list[dict[str, Any]]) -> str:
    """Each kind of round trip on its own, as a Markdown table."""
    lines = [
        "| fault | round trip | p50 (ms) | p99 (ms) | max (ms) | round trips | failed |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for data in rows:
        for name, latency in data.get("latency", {}).items():
            if name != "all":
                lines.append(
                    f"| {data['kind']} | {name} | {latency['p50']:.1f} | {latency['p99']:.1f} | {latency['max']:.1f} "
                    f"| {latency['samples']} | {latency['errors']} |"
                )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="kill -9 rounds per fault kind (default 3)")
    parser.add_argument("--kinds", default=",".join(FAULTS), help=f"comma-separated, of {', '.join(FAULTS)}")
    parser.add_argument("--seed", type=int, default=None, help="chooses the moments of the kills (default: random)")
    parser.add_argument("--json", metavar="FILE", help="also write every figure, round by round")
    args = parser.parse_args(argv)
    kinds = args.kinds.split(",")
    if args.rounds < 1 or any(kind not in FAULTS for kind in kinds):
        parser.error(f"need --rounds >= 1 and --kinds of {', '.join(FAULTS)}")
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"seed {seed} (--seed {seed} repeats the kills' moments)", file=sys.stderr)
    rows = []
    rounds: dict[str, list[dict[str, Any]]] = {}
    for kind in kinds:
        problem = fault_problem(kind)
        if problem is not None:
            rows.append({"kind": kind, "skipped": problem})
            continue
        reports = run_kind(kind, args.rounds, seed)
        rows.append(row(kind, reports))
        rounds[kind] = [{**dataclasses.asdict(report), "window": len(report.window)} for report in reports]
    print(table(rows))
    print()
    print(by_probe(rows))
    failed = [data for data in rows if "skipped" not in data]
    failed = [
        data
        for data in failed
        if data["problems"] or data["found"] != data["acknowledged"] or data["latency"]["all"]["p99"] >= P99_LIMIT_MS
    ]
    for data in failed:
        for problem in data["problems"]:
            print(f"{data['kind']}: {problem}", file=sys.stderr)
    if args.json:
        report = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "seed": seed,
            "settings": vars(args),
            "kinds": rows,
            "rounds": rounds,
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
