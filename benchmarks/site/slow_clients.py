#!/usr/bin/env python3
"""Slow and silent clients against the web game server, under a small open-files limit.

The server runs as in production, ``python -m elferraus.cli.main serve``, but
under ``prlimit --nofile=--nofile`` (1,024: a common default) with
``--request-timeout`` (10 s, its default), pinned to CPU 0. From 127.0.0.1,
``--connections`` (2,000) connections that never finish a request are opened
all at once by a second process pinned to CPU 1, in equal shares:

- ``silent``: connects and never sends a byte;
- ``slowloris``: sends a request line, then one header line every ``--trickle`` s (1);
- ``websocket``: the same with a WebSocket upgrade request for a real room.

Each keeps going until the server closes it. Meanwhile a second client
address, 127.0.0.2, measures every ``--probe-interval`` s (0.02) in turn:
``healthz`` (``GET /healthz`` on a new connection, until the body is read),
``ws-state`` (a new WebSocket to the room: connect, ``hello``, until the first
``state``) and ``ws-ping`` (a ``ping`` on one open WebSocket, until its
``pong``). Reported: the second address's p50/p99/max per probe (and when
the slowest was, in seconds after the attack began) and its errors, during
the attack (from the first slow connect until the last slow connection was
closed) and, for comparison, in ``--baseline`` s before it;
for the slow connections, how many the server closed at once (within 1 s: over
the per-address cap) and how long each one lived, from its connect until the
server closed it (p50/p99/max), and how many were still open at the limit plus
1 s; and the size of the server's stderr. The exit status is 1 if a probe's
p99 during the attack is over ``--p99-limit`` ms (50), a probe failed, or a
slow connection outlived the limit plus 1 s.

From the repository root, on an otherwise idle machine with 2 cores::

    .venv/bin/python -m benchmarks.site.slow_clients --json slow-clients.json
    .venv/bin/python -m benchmarks.site.slow_clients --connections 300 --request-timeout 3   # a quick check
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import multiprocessing
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from benchmarks.site.load_server import RUNNING, Server, pin, summary_ms

SLOW_KINDS = ("silent", "slowloris", "websocket")
PROBES = ("healthz", "ws-state", "ws-ping")
OTHER = "127.0.0.2"
AT_ONCE = 1.0
"""A slow connection closed within this many seconds of its connect was refused, not timed out."""
GRACE = 1.0


class LimitedServer(Server):
    """``elferraus serve`` under ``prlimit``, with the options under test."""

    def __init__(self, workdir: Path, cpu: int | None, nofile: int, options: list[str]) -> None:
        super().__init__(workdir, cpu, "slow-clients")
        self.nofile = nofile
        self.options = options

    def start(self) -> None:
        command = ["prlimit", f"--nofile={self.nofile}", sys.executable, "-m", "elferraus.cli.main", "serve"]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--db", str(self.db), *self.options]
        with self.log.open("ab") as errors:
            self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        RUNNING.add(self)
        pin(self.process.pid, self.cpu)  # prlimit has exec'd the server: the same process


# -- the slow clients (in their own process) -------------------------------------


async def _slow_connection(port: int, kind: str, code: str, trickle: float, give_up: float) -> dict[str, Any]:
    """One connection that never finishes its request; when it opened and when the server closed it."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), give_up)
    except (OSError, TimeoutError) as error:
        return {"kind": kind, "opened": None, "closed": None, "error": repr(error)}
    opened = time.monotonic()
    first = {
        "silent": b"",
        "slowloris": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
        "websocket": f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n".encode(),
    }[kind]
    closed_at = None
    eof = asyncio.ensure_future(_until_eof(reader))
    try:
        writer.write(first)
        while time.monotonic() - opened < give_up:
            done, _ = await asyncio.wait([eof], timeout=trickle)
            if done:
                break
            if kind != "silent":
                writer.write(b"X-Slow: 1\r\n")
        if eof.done():
            closed_at = eof.result()
    except OSError:
        closed_at = time.monotonic()
    finally:
        eof.cancel()
        writer.close()
    return {"kind": kind, "opened": opened, "closed": closed_at, "error": None}


async def _until_eof(reader: asyncio.StreamReader) -> float:
    with contextlib.suppress(OSError):
        while await reader.read(65536):
            pass
    return time.monotonic()


def run_slow_clients(
    port: int, code: str, count: int, trickle: float, give_up: float, cpu: int | None, out: Connection
) -> None:
    """The attack: ``count`` slow connections at once; sends back what became of each."""
    pin(0, cpu)

    async def everything() -> list[dict[str, Any]]:
        kinds = [SLOW_KINDS[n % len(SLOW_KINDS)] for n in range(count)]
        return await asyncio.gather(*(_slow_connection(port, kind, code, trickle, give_up) for kind in kinds))

    started = time.monotonic()
    out.send({"started": started, "connections": asyncio.run(everything())})
    out.close()


# -- the other address's probes ----------------------------------------------------


async def _healthz(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(OTHER, 0))
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = await reader.read()
        if not answer.startswith(b"HTTP/1.1 200") or not answer.endswith(b"ok"):
            raise RuntimeError(f"healthz answered {answer[:80]!r}")
    finally:
        writer.close()


async def _next_of(websocket: ClientConnection, kind: str) -> None:
    while json.loads(await websocket.recv())["type"] != kind:
        pass


async def _ws_state(url: str) -> None:
    async with connect(url, local_addr=(OTHER, 0), open_timeout=10) as websocket:
        await websocket.send(json.dumps({"type": "hello", "token": None, "lang": "en"}))
        await _next_of(websocket, "state")


async def probe(port: int, url: str, interval: float, stop: asyncio.Event, samples: dict[str, list[Any]]) -> None:
    """Until ``stop``: each probe in turn, every ``interval`` s; ``samples[probe]`` gets (time, seconds or error)."""
    watcher = await connect(url, local_addr=(OTHER, 0), open_timeout=10)
    await watcher.send(json.dumps({"type": "hello", "token": None, "lang": "en"}))
    await _next_of(watcher, "state")

    async def ping() -> None:
        await watcher.send(json.dumps({"type": "ping"}))
        await _next_of(watcher, "pong")

    actions = {"healthz": lambda: _healthz(port), "ws-state": lambda: _ws_state(url), "ws-ping": ping}
    turn = 0
    while not stop.is_set():
        name = PROBES[turn % len(PROBES)]
        turn += 1
        began = time.monotonic()
        try:
            await asyncio.wait_for(actions[name](), 10)
            samples[name].append((began, time.monotonic() - began))
        except Exception as error:  # every failure is a figure of the run
            samples[name].append((began, repr(error)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, began + interval - time.monotonic()))
    await watcher.close()


def _room(port: int) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(OTHER, 0))
    try:
        body = json.dumps({"name": "Probe", "players": 2})
        connection.request("POST", "/api/rooms", body, {"Content-Type": "application/json"})
        code: str = json.loads(connection.getresponse().read())["code"]
        return code
    finally:
        connection.close()


# -- one run -------------------------------------------------------------------------


def _probe_figures(samples: dict[str, list[Any]], since: float, until: float) -> dict[str, Any]:
    figures = {}
    for name, taken in samples.items():
        window = [(began, value) for began, value in taken if since <= began <= until]
        timed = [(value, began) for began, value in window if isinstance(value, float)]
        errors = [value for _began, value in window if not isinstance(value, float)]
        worst_at = max(timed)[1] - since if timed else None
        figures[name] = {
            "count": len(window),
            "errors": len(errors),
            "error_samples": errors[:3],
            **summary_ms([value for value, _began in timed]),
            "max_at_s": worst_at,
        }
    return figures


def _slow_figures(connections: list[dict[str, Any]], limit: float) -> dict[str, Any]:
    lived = [c["closed"] - c["opened"] for c in connections if c["opened"] is not None and c["closed"] is not None]
    figures = {
        "connections": len(connections),
        "connect_errors": sum(c["error"] is not None for c in connections),
        "closed_at_once": sum(seconds < AT_ONCE for seconds in lived),
        "closed_by_time_limit": sum(seconds >= AT_ONCE for seconds in lived),
        "outlived_limit": sum(seconds > limit + GRACE for seconds in lived),
        "still_open": sum(c["opened"] is not None and c["closed"] is None for c in connections),
        "lived_s": {key: None if ms is None else ms / 1000 for key, ms in summary_ms(lived).items()},
    }
    for kind in SLOW_KINDS:
        mine = [c for c in connections if c["kind"] == kind and c["opened"] is not None and c["closed"] is not None]
        figures[f"{kind}_max_s"] = max((c["closed"] - c["opened"] for c in mine), default=None)
    return figures


async def run(
    args: argparse.Namespace, workdir: Path, server_cpu: int | None, client_cpu: int | None
) -> dict[str, Any]:
    options = ["--request-timeout", str(args.request_timeout), "--rooms-per-minute", "0"]
    if args.per_address is not None:
        options += ["--max-connections-per-address", str(args.per_address)]
    server = LimitedServer(workdir, server_cpu, args.nofile, options)
    server.start()
    server.wait_healthy()
    code = _room(server.port)
    url = f"ws://127.0.0.1:{server.port}/ws/{code}"
    samples: dict[str, list[Any]] = {name: [] for name in PROBES}
    stop = asyncio.Event()
    probing = asyncio.ensure_future(probe(server.port, url, args.probe_interval, stop, samples))
    await asyncio.sleep(args.baseline)
    receiving, sending = multiprocessing.get_context("spawn").Pipe(duplex=False)
    give_up = args.request_timeout + 30
    attack = multiprocessing.get_context("spawn").Process(
        target=run_slow_clients,
        args=(server.port, code, args.connections, args.trickle, give_up, client_cpu, sending),
    )
    attack.start()
    sending.close()
    outcome = await asyncio.to_thread(receiving.recv)
    attack.join(10)
    stop.set()
    await probing
    connections = outcome["connections"]
    started = outcome["started"]
    ends = [c["closed"] for c in connections if c["closed"] is not None]
    last_closed = max(ends, default=time.monotonic())
    log_size = server.log.stat().st_size if server.log.exists() else 0
    server_exit = server.exit_code()
    server.stop()
    return {
        "probes_during_attack": _probe_figures(samples, started, last_closed),
        "probes_before_attack": _probe_figures(samples, started - args.baseline - 1, started),
        "slow": _slow_figures(connections, args.request_timeout),
        "all_closed_after_s": last_closed - started,
        "server_stderr_bytes": log_size,
        "server_stderr_tail": server.log_tail(5),
        "server_exit": server_exit,
    }


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def report_table(result: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        f"{args.connections} slow connections from 127.0.0.1, server open-files limit {args.nofile}, "
        f"request timeout {args.request_timeout:g} s",
        "",
        "| 127.0.0.2 probe | during: count | errors | p50 ms | p99 ms | max ms | max at (s) | before: p50 | p99 |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for name in PROBES:
        during, before = result["probes_during_attack"][name], result["probes_before_attack"][name]
        lines.append(
            f"| {name} | {during['count']} | {during['errors']} | {_ms(during['median'])} | {_ms(during['p99'])} "
            f"| {_ms(during['max'])} | {_ms(during['max_at_s'])} | {_ms(before['median'])} | {_ms(before['p99'])} |"
        )
    slow = result["slow"]
    lived = slow["lived_s"]
    longest = [_ms(slow[f"{kind}_max_s"]) for kind in SLOW_KINDS]
    lines += [
        "",
        "| slow connections | |",
        "|---|--:|",
        f"| closed at once (over the per-address cap) | {slow['closed_at_once']} |",
        f"| closed by the time limit | {slow['closed_by_time_limit']} |",
        f"| lived p50 / p99 / max (s) | {_ms(lived['median'])} / {_ms(lived['p99'])} / {_ms(lived['max'])} |",
        f"| longest silent / slowloris / websocket (s) | {' / '.join(longest)} |",
        f"| outlived the limit + {GRACE:g} s, still open, connect errors | "
        f"{slow['outlived_limit']}, {slow['still_open']}, {slow['connect_errors']} |",
        f"| all closed after (s from the first connect) | {result['all_closed_after_s']:.1f} |",
        f"| server stderr (bytes) | {result['server_stderr_bytes']} |",
    ]
    return "\n".join(lines)


def failures(result: dict[str, Any], p99_limit: float) -> list[str]:
    problems = []
    for name, figures in result["probes_during_attack"].items():
        if figures["errors"]:
            problems.append(f"{name}: {figures['errors']} errors, e.g. {figures['error_samples']}")
        if figures["p99"] is None or figures["p99"] > p99_limit:
            problems.append(f"{name}: p99 {_ms(figures['p99'])} ms over {p99_limit:g} ms")
    slow = result["slow"]
    if slow["outlived_limit"] or slow["still_open"]:
        problems.append(f"slow connections outlived the limit: {slow['outlived_limit'] + slow['still_open']}")
    if result["server_exit"] is not None:
        problems.append(f"the server exited ({result['server_exit']})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=2000, help="slow connections (default 2000)")
    parser.add_argument("--nofile", type=int, default=1024, help="the server's open-files limit (default 1024)")
    parser.add_argument("--request-timeout", type=float, default=10.0, help="the server's (default 10)")
    parser.add_argument("--per-address", type=int, default=None, help="--max-connections-per-address (default: its)")
    parser.add_argument("--trickle", type=float, default=1.0, help="seconds between a slow client's lines")
    parser.add_argument("--probe-interval", type=float, default=0.02)
    parser.add_argument("--baseline", type=float, default=3.0, help="seconds probed before the attack")
    parser.add_argument("--p99-limit", type=float, default=50.0, help="ms (default 50)")
    parser.add_argument("--server-cpu", type=int, default=0)
    parser.add_argument("--client-cpu", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write every figure and the settings")
    args = parser.parse_args(argv)
    if shutil.which("prlimit") is None:
        parser.error("needs prlimit (util-linux)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = args.connections + 1024
    if hard != resource.RLIM_INFINITY and hard < needed:
        parser.error(f"needs {needed} open files, the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, needed), hard))
    cpus = sorted(os.sched_getaffinity(0))
    server_cpu = client_cpu = None
    if len(cpus) >= 2 and args.server_cpu in cpus and args.client_cpu in cpus:
        server_cpu, client_cpu = args.server_cpu, args.client_cpu
        pin(0, client_cpu)
    else:
        print("warning: fewer than 2 usable cores: server and clients are not pinned", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="elferraus-slow-") as workdir:
        try:
            result = asyncio.run(run(args, Path(workdir), server_cpu, client_cpu))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        finally:
            for server in list(RUNNING):
                server.stop()
    print(report_table(result, args))
    problems = failures(result, args.p99_limit)
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    if args.json:
        report = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus": cpus,
            "server_cpu": server_cpu,
            "client_cpu": client_cpu,
            "settings": vars(args),
            "result": result,
            "failures": problems,
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
