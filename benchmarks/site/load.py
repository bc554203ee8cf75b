#!/usr/bin/env python3
"""Load on the web game server: many people playing over real WebSockets, on loopback.

The server runs as it runs in production, ``python -m elferraus.cli.main serve``
(uvicorn, SQLite in WAL mode, a fresh database in a temporary directory), as a
subprocess pinned to CPU 0; every client runs in this process, in one event
loop, pinned to CPU 1 (on a machine with one core nothing is pinned; with
``--no-pin`` nothing either). The server is killed at the end, on errors and
on Ctrl+C.

``--configs`` plays the same clients against other server sides, one after
another, each with fresh parts (``load_server.CONFIGS``): ``sqlite`` (the
above, the default), ``pg1`` (one process on PostgreSQL), ``pg2`` and
``site3`` (two or three processes on PostgreSQL sharing rooms over Redis,
behind nginx with the deployed ``deploy/nginx/elferraus.conf``; the clients
go through nginx). PostgreSQL, Redis and nginx are started as the tests start
them (``tests/support/postgres_helpers.py``, ``tests/support/cluster_helpers.py``), and every
one of their processes is pinned with the server's (``--server-cpu``). Each
part's CPU time is measured: every ``serve`` process, PostgreSQL (all its
processes), Redis and nginx (master and worker), and their sum.

What one run does:

1. ``--rooms`` rooms of 4 seats are created over HTTP (``POST /api/rooms``,
   then ``POST /api/rooms/CODE/join`` for every other person's seat), with
   ``pace`` = ``--pace`` and ``rounds`` = ``--rounds``. Every seat is a person
   (1,000 WebSockets at the defaults), except that with ``--computers N``
   seats 2..N+1 are computers of ``--level`` (default ``expert``; any level,
   ``master`` too).
2. Every person connects (``/ws/CODE``, ``hello`` with his token); once all
   are in, every host sends ``start``.
3. Each person acts like a brisk human: when a ``state`` shows it is his turn
   (status ``playing``, ``view.legal`` not empty, and ``view.making`` null:
   a person's only legal move is made by the table) he thinks for a random time
   in ``--think`` (default 0.5-1.0 s, uniform, each client with its own RNG
   seeded from ``--seed``), then sends a move (``--policy first``: the first
   legal lay, else draw, else pass; ``random``: any legal move) with that
   state's ``seq``, and then waits for a state with a larger ``seq`` (or an
   error) before he acts again. When a round is over the host (after a
   think) sends ``next``, when the match is over ``rematch``, so every room
   plays for the whole run.
4. After ``--seconds`` nobody starts a new move; moves on their way get up to
   ``--grace`` seconds to be acknowledged and delivered, then each room's
   history is read back from the server (finished games from
   ``GET /api/games/ID/record``, the running game from a spectator's first
   ``state``) and every acknowledged move must be in it, at its place.

Measured, for every person's move: **move-to-everyone latency**, from just
before the mover's frame is written to the socket until the last of the
room's people has received a ``state`` that shows it: the move's game with
more moves than the move's place in it, or a later game (states may be
skipped by the server, so "the first state at or after it"; not by ``seq``,
which each process of a site counts for itself). All clients share one
``time.perf_counter()``,
and a frame's time is taken as soon as the client's receive loop gets it.
Moves sent in the first ``--warmup`` seconds (default 5: the ``start`` burst,
first deals, caches) are played and checked but not measured, so moves/s and
the percentiles cover ``--seconds`` minus ``--warmup``. Also reported: all
moves/s (computers' too, as the hosts saw the histories grow), every
``error`` frame by code (each is a failure), lost moves (sent but never
acknowledged, or acknowledged but missing from the final history),
undelivered moves (acknowledged, but some client of the room never got the
state), dropped connections, the server process's CPU time over the measured
window (``/proc/PID/stat``, all its threads, as a share of one core) and its
peak RSS (``VmHWM``), and the same for this client process (CPU from
``time.process_time()``), plus the client event loop's lag, so a reader can
tell whether the server or the clients were the limit; and the round trip
of a ``ping`` that a spectator of the first room sends 10 times a second
(how quickly the server's event loop answers at all). With computers, each
computer's move that came alone in a state is timed by its room's host: from
the state with the move before it to the state with it, minus the pace (the
computer's thinking, any wait for a thinker, storing and sending it). The
server's child processes (its thinkers) are a part of their own in the CPU
and RSS rows, and the machine's one-minute load average is read every 2 s. The exit status is 1
if there was any error frame, lost or undelivered move, dropped connection
or connection that could not be opened.

``--sweep`` then (``--sweep-only``: instead) looks for the highest move rate
the server sustains with p99 <= ``--p99-limit`` ms (250): runs of
``--sweep-seconds`` (20), each with a fresh server, start at ``--rooms`` and
``--think``; every step divides the think time by ``--sweep-factor`` (1.5)
while its lower bound stays >= 0.05 s (a client then sends at most 20 frames
a second, the server's per-connection rate limit), and after that multiplies
the rooms by it instead; the rooms' pace (at which the table makes a person's
only legal move, and computers move) is the step's mean think time, so a step
plays as many moves as when people made their only moves themselves. It
stops at the first step with p99 over the limit,
with a failure, or where this client process used >= 90 % of its core
(then the clients, not the server, were the limit; the table says so), or
after ``--sweep-steps`` steps. The target rate of a step is what the rooms
would play if the server answered instantly: rooms / mean time per move,
people taking the mean think time and computers the pace.

Run it on an otherwise idle machine with at least 2 cores, from the
repository root. The issue's figure (250 rooms, 1,000 people, 60 s)::

    .venv/bin/python -m benchmarks.site.load --rooms 250 --seconds 60 --json load.json

Computers thinking must not block the event loop: two experts in every room,
and the people's latency should stay low while they think::

    .venv/bin/python -m benchmarks.site.load --rooms 50 --seconds 60 --computers 2 --json load-expert.json
    .venv/bin/python -m benchmarks.site.load --rooms 250 --seconds 60 --computers 2 --json load-expert-250.json

An expert took about 18 ms a move on average in a quick check on a busy
machine (its searches run in worker threads, in C, without the GIL), and
every room with two of them asks for about 0.8 computer moves a second: at
50 rooms the thinking should fit in one core (the server CPU share says; a
40-room check used about 80 % on a busy machine), so the latency shows
whether thinking blocks the loop; at 250 rooms the experts alone want more
than the server's one core, so the latency then also shows the event loop
starved of CPU by the worker threads (compare the server CPU share).

A server full of ``master`` tables (issue 33): 100 rooms of one person and
three ``master`` each, on one server process; the person's move-to-everyone
latency is his move-to-screen latency::

    .venv/bin/python -m benchmarks.site.load --rooms 100 --seconds 60 --computers 3 --level master --json master.json

The highest sustained move rate::

    .venv/bin/python -m benchmarks.site.load --rooms 250 --sweep-only --json load-sweep.json

A quick check that everything works (a few seconds)::

    .venv/bin/python -m benchmarks.site.load --rooms 20 --seconds 15

It prints Markdown tables, the runs side by side (a column per configuration);
``--json FILE`` also writes every figure and the settings (per configuration
under ``configs``: ``run`` and ``sweep``). Every server side in one go, on an
otherwise idle machine::

    .venv/bin/python -m benchmarks.site.load --rooms 250 --seconds 60 --configs sqlite,pg1,pg2,site3 --json sites.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import signal
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.site.load_clients import with_site
from benchmarks.site.load_server import (
    CLIENT_BOUND,
    CONFIGS,
    HTTP_CONCURRENCY,
    RUNNING,
    SEATS,
    THINK_FLOOR,
    RunResult,
    Settings,
    pin,
)
from elferraus.bots import BOTS

# -- reporting -------------------------------------------------------------------


def _f(value: float | None, spec: str = ".1f") -> str:
    return "-" if value is None else f"{value:{spec}}"


def _seating(settings: dict[str, Any]) -> str:
    count = SEATS - settings["computers"]
    people = f"{count} {'person' if count == 1 else 'people'}"
    return f"{people}, {settings['computers']} {settings['level']}" if settings["computers"] else people


def _run_rows(result: RunResult) -> dict[str, str]:
    s = result.settings
    lat = result.latency_ms
    lag = result.client_loop_lag_ms
    ping = result.ping_ms
    errors = ", ".join(f"{code} {n}" for code, n in sorted(result.errors.items())) or "0"
    rows = {
        "server side": CONFIGS.get(result.config, result.config),
        "rooms × seats": f"{s['rooms']} × {SEATS} ({_seating(s)})",
        "thinker processes per server process": (
            "the server's default" if s.get("think_workers") is None else str(s["think_workers"])
        ),
        "WebSockets": f"{result.sockets:,}",
        "think (s), pace (s)": f"{s['think'][0]:g}-{s['think'][1]:g}, {s['pace']:g}",
        "measured (s)": f"{result.measured_seconds:.1f} (after {s['warmup']:g} s warm-up)",
        "people's moves measured": f"{result.moves:,}",
        "people's moves/s": f"{result.moves_per_s:.1f}",
        "all moves/s (target)": f"{result.all_moves_per_s:.1f} ({result.target_rate:.1f})",
        "move-to-everyone median (ms)": _f(lat.get("median")),
        "move-to-everyone p95 (ms)": _f(lat.get("p95")),
        "move-to-everyone p99 (ms)": _f(lat.get("p99")),
        "move-to-everyone max (ms)": _f(lat.get("max")),
        "moves sent / acknowledged / in history": (
            f"{result.moves_sent} / {result.moves_acknowledged} / {result.moves_verified}"
        ),
        "error frames": errors,
        "lost moves": str(result.lost),
        "undelivered moves": str(result.undelivered),
        "dropped connections": str(result.dropped),
        "connections not opened": str(result.connect_failures),
        "games finished": str(result.games_finished),
        "server CPU, all parts (s, share of a core)": (
            f"{result.server_cpu_s:.1f}, {100 * result.server_cpu_share:.0f} %"
        ),
    }
    for part, figures in result.parts.items():
        rows[f"· {part} CPU (s, share of a core)"] = (
            f"{figures['cpu_s'] or 0:.1f}, {100 * (figures['cpu_share'] or 0):.0f} %"
        )
    rows["server peak RSS, serve processes (MB)"] = f"{result.server_peak_rss_mb:.0f}"
    rows["client CPU (s, share of a core)"] = f"{result.client_cpu_s:.1f}, {100 * result.client_cpu_share:.0f} %"
    rows["client loop lag p99 / max (ms)"] = f"{_f(lag.get('p99'))} / {_f(lag.get('max'))}"
    rows["spectator ping round trip median / p99 / max (ms)"] = (
        f"{_f(ping.get('median'))} / {_f(ping.get('p99'))} / {_f(ping.get('max'))}"
    )
    if s["computers"]:
        computer = result.computer_ms
        rows["computers' moves measured"] = f"{result.computer_moves:,}"
        rows["computer's move beyond the pace median / p95 / p99 / max (ms)"] = " / ".join(
            _f(computer.get(key)) for key in ("median", "p95", "p99", "max")
        )
    load = result.load_average
    rows["load average (1 min) start / mean / max / end"] = " / ".join(
        _f(load.get(key), ".2f") for key in ("start", "mean", "max", "end")
    )
    if result.server_exit is not None:
        rows["server exited"] = result.server_exit
    return rows


def run_table(results: dict[str, RunResult]) -> str:
    """The runs side by side: a row per figure, a column per configuration (a part it lacks shows ``-``)."""
    columns = {config: _run_rows(result) for config, result in results.items()}
    names: list[str] = []
    for rows in columns.values():
        names += [name for name in rows if name not in names]
    # every part's row after the server's total, in the order the sites name them
    parts = sorted((n for n in names if n.startswith("· ")), key=_part_order)
    others = [n for n in names if not n.startswith("· ")]
    at = others.index("server CPU, all parts (s, share of a core)") + 1
    names = others[:at] + parts + others[at:]
    lines = ["| figure | " + " | ".join(columns) + " |", "|---|" + "--:|" * len(columns)]
    lines += [f"| {name} | " + " | ".join(rows.get(name, "-") for rows in columns.values()) + " |" for name in names]
    return "\n".join(lines)


def _part_order(row: str) -> tuple[int, str]:
    part = row.removeprefix("· ").split(" CPU")[0]
    return (0 if part.startswith("serve") else 1 + ("postgres", "redis", "nginx").index(part), part)


def sweep_table(steps: list[dict[str, Any]]) -> str:
    lines = [
        "| step | rooms | think (s) | target moves/s | achieved moves/s (people) | p50 ms | p99 ms "
        "| server CPU | client CPU | failures | verdict |",
        "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for number, step in enumerate(steps, 1):
        r = step["result"]
        s = r["settings"]
        lines.append(
            f"| {number} | {s['rooms']} | {s['think'][0]:.3g}-{s['think'][1]:.3g} | {r['target_rate']:.0f} "
            f"| {r['all_moves_per_s']:.1f} ({r['moves_per_s']:.1f}) | {_f(r['latency_ms']['median'])} "
            f"| {_f(r['latency_ms']['p99'])} "
            f"| {100 * r['server_cpu_share']:.0f} % | {100 * r['client_cpu_share']:.0f} % | {r['failures']} "
            f"| {step['verdict']} |"
        )
    return "\n".join(lines)


# -- the sweep -------------------------------------------------------------------


def sweep_plan(settings: Settings, steps: int, factor: float) -> list[Settings]:
    plan = []
    rooms, (low, high) = settings.rooms, settings.think
    for _ in range(steps):
        # The table makes a person's only move after the room's pace: as fast as the people move on
        # average, so that a step plays as many moves as when people made those moves themselves (a
        # fixed pace would let the pace, not the server, set how fast the rooms can go).
        pace = round((low + high) / 2, 4)
        plan.append(replace(settings, rooms=rooms, think=(round(low, 4), round(high, 4)), pace=pace))
        if low / factor >= THINK_FLOOR:
            low, high = low / factor, high / factor
        else:
            rooms = round(rooms * factor)
    return plan


async def sweep(
    config: str, settings: Settings, args: argparse.Namespace, workdir: Path, cpu: int | None
) -> tuple[list[dict[str, Any]], float | None]:
    steps: list[dict[str, Any]] = []
    best: float | None = None
    limit = args.p99_limit
    for number, step in enumerate(sweep_plan(settings, args.sweep_steps, args.sweep_factor), 1):
        result = await with_site(config, step, workdir, cpu, f"{config}-sweep-{number}")
        p99 = result.latency_ms.get("p99")
        if result.failures:
            verdict = "failures: stop"
        elif p99 is None or p99 > limit:
            verdict = f"p99 > {limit:g} ms: stop"
        elif result.client_cpu_share >= CLIENT_BOUND:
            verdict = "clients saturated: stop"
        else:
            verdict = "sustained"
        if not result.failures and p99 is not None and p99 <= limit:
            best = max(best or 0.0, result.all_moves_per_s)
        steps.append({"result": result.to_json(), "verdict": verdict})
        print(f"{config}: " + sweep_table(steps).splitlines()[-1], file=sys.stderr, flush=True)
        if verdict != "sustained":
            break
    return steps, best


# -- main ------------------------------------------------------------------------


def raise_open_files(needed: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(soft, needed) if hard == resource.RLIM_INFINITY else min(hard, max(soft, needed))
    if want != soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < needed:
        print(f"warning: open files limited to {want} (need about {needed})", file=sys.stderr)
    return want


def parse_configs(text: str) -> list[str]:
    configs = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in configs if name not in CONFIGS]
    if unknown or not configs or len(set(configs)) != len(configs):
        raise argparse.ArgumentTypeError(
            f"--configs {text!r}: name each of {', '.join(CONFIGS)} at most once, comma-separated"
            + (f" (no configuration {', '.join(map(repr, unknown))})" if unknown else "")
        )
    return configs


def parse_think(text: str) -> tuple[float, float]:
    low, _, high = text.partition(",")
    pair = (float(low), float(high or low))
    if not 0 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError("think is LOW,HIGH seconds with 0 <= LOW <= HIGH")
    return pair


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=250, help="rooms of 4 seats (default 250)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the rooms play (default 60)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds at the start not measured (default 5)")
    parser.add_argument("--think", type=parse_think, default=(0.5, 1.0), help="a person's think time, LOW,HIGH s")
    parser.add_argument("--computers", type=int, default=0, choices=range(SEATS), help="computer seats per room")
    parser.add_argument("--level", default="expert", choices=tuple(BOTS), help="the computers' level (default expert)")
    parser.add_argument(
        "--think-workers",
        type=int,
        default=None,
        metavar="N",
        help="elferraus serve --think-workers of every server process (default: the server's own default)",
    )
    parser.add_argument("--pace", type=float, default=0.5, help="the rooms' pace, s a computer move (default 0.5)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per match (default 2: next, then rematch)")
    parser.add_argument("--policy", choices=("first", "random"), default="first", help="how people choose a move")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--grace", type=float, default=10.0, help="seconds for moves in flight at the end")
    parser.add_argument("--no-compression", action="store_true", help="no permessage-deflate (browsers offer it)")
    parser.add_argument("--sweep", action="store_true", help="after the run, look for the highest sustained rate")
    parser.add_argument("--sweep-only", action="store_true", help="only the sweep")
    parser.add_argument("--sweep-seconds", type=float, default=20.0)
    parser.add_argument("--sweep-steps", type=int, default=10)
    parser.add_argument("--sweep-factor", type=float, default=1.5, help="load multiplier per step (default 1.5)")
    parser.add_argument("--p99-limit", type=float, default=250.0, help="ms (default 250)")
    parser.add_argument(
        "--configs",
        type=parse_configs,
        default=["sqlite"],
        help=f"server sides to play against, one after another, comma-separated: {', '.join(CONFIGS)} (default sqlite)",
    )
    parser.add_argument("--server-cpu", type=int, default=0, help="the core of every server-side process (0)")
    parser.add_argument("--client-cpu", type=int, default=1, help="the core of this client process (1)")
    parser.add_argument("--no-pin", action="store_true", help="pin nothing: every process may use every core")
    parser.add_argument("--json", metavar="FILE", help="also write every figure and the settings")
    args = parser.parse_args(argv)
    if args.rooms < 1 or args.seconds <= args.warmup or args.sweep_seconds <= args.warmup:
        parser.error("need --rooms >= 1 and --seconds / --sweep-seconds longer than --warmup")
    if args.sweep_factor <= 1:
        parser.error("--sweep-factor must be > 1")

    settings = Settings(
        rooms=args.rooms,
        seconds=args.seconds,
        warmup=args.warmup,
        think=args.think,
        computers=args.computers,
        level=args.level,
        pace=args.pace,
        rounds=args.rounds,
        policy=args.policy,
        seed=args.seed,
        compression=not args.no_compression,
        grace=args.grace,
        think_workers=args.think_workers,
    )
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    server_cpu = client_cpu = None
    if args.no_pin:
        pass
    elif len(cpus) >= 2 and args.server_cpu in cpus and args.client_cpu in cpus:
        server_cpu, client_cpu = args.server_cpu, args.client_cpu
        pin(0, client_cpu)  # before any thread exists, so every thread of this process stays there
    else:
        print("warning: fewer than 2 usable cores: server and clients are not pinned", file=sys.stderr)
    rooms = args.rooms
    if args.sweep or args.sweep_only:
        rooms = max(rooms, *(step.rooms for step in sweep_plan(settings, args.sweep_steps, args.sweep_factor)))
    sockets = rooms * (SEATS - args.computers)
    open_files = raise_open_files(min(1 << 20, 2 * sockets + 1024))

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    report: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": cpus,
        "server_cpu": server_cpu,
        "client_cpu": client_cpu,
        "open_files": open_files,
        "settings": {**vars(args), "think": list(args.think)},
        "configs": {},
    }

    async def everything(workdir: Path) -> int:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(HTTP_CONCURRENCY))
        failures = 0
        runs: dict[str, RunResult] = {}
        sweeps: dict[str, tuple[list[dict[str, Any]], float | None]] = {}
        for config in args.configs:
            entry: dict[str, Any] = {}
            report["configs"][config] = entry
            if not args.sweep_only:
                result = await with_site(config, settings, workdir, server_cpu, f"{config}-run")
                runs[config] = entry["run"] = result
                failures += result.failures
                _print_problems(result.error_samples + result.lost_samples)
            if args.sweep or args.sweep_only:
                swept = replace(settings, seconds=args.sweep_seconds)
                steps, best = sweeps[config] = await sweep(config, swept, args, workdir, server_cpu)
                entry["sweep"] = {"steps": steps, "highest_sustained_moves_per_s": best, "p99_limit_ms": args.p99_limit}
                failures += sum(step["result"]["failures"] for step in steps)
                for step in steps:
                    _print_problems(step["result"]["error_samples"] + step["result"]["lost_samples"])
            if "run" in entry:
                entry["run"] = entry["run"].to_json()
        if runs:
            print(run_table(runs))
        for config, (steps, _best) in sweeps.items():
            print()
            print(f"Sweep, {config} ({CONFIGS[config]}):")
            print()
            print(sweep_table(steps))
        if sweeps:
            print()
            print(f"| highest sustained rate with p99 <= {args.p99_limit:g} ms | " + " | ".join(sweeps) + " |")
            print("|---|" + "--:|" * len(sweeps))
            bests = (f"{best:.1f} moves/s" if best is not None else "none" for _steps, best in sweeps.values())
            print("| all moves/s | " + " | ".join(bests) + " |")
        return failures

    with tempfile.TemporaryDirectory(prefix="elferraus-load-") as workdir:
        try:
            failures = asyncio.run(everything(Path(workdir)))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        finally:
            for server in list(RUNNING):
                server.stop()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
            handle.write("\n")
    return 1 if failures else 0


def _print_problems(samples: list[str]) -> None:
    for line in samples:
        print(f"problem: {line}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
