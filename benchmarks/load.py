#!/usr/bin/env python3
"""Load on the web game server: many people playing over real WebSockets, on loopback.

The server runs as it runs in production, ``python -m elferraus.cli.main serve``
(uvicorn, SQLite in WAL mode, a fresh database in a temporary directory), as a
subprocess pinned to CPU 0; every client runs in this process, in one event
loop, pinned to CPU 1 (on a machine with one core nothing is pinned). The
server is killed at the end, on errors and on Ctrl+C.

What one run does:

1. ``--rooms`` rooms of 4 seats are created over HTTP (``POST /api/rooms``,
   then ``POST /api/rooms/CODE/join`` for every other person's seat), with
   ``pace`` = ``--pace`` and ``rounds`` = ``--rounds``. Every seat is a person
   (1,000 WebSockets at the defaults), except that with ``--computers N``
   seats 2..N+1 are computers of ``--level`` (default ``expert``).
2. Every person connects (``/ws/CODE``, ``hello`` with his token); once all
   are in, every host sends ``start``.
3. Each person acts like a brisk human: when a ``state`` shows it is his turn
   (status ``playing``, ``view.legal`` not empty) he thinks for a random time
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
room's people has received a ``state`` with ``seq`` >= the move's resulting
``seq`` (the sent ``seq`` + 1; states may be skipped by the server, so "the
first state at or after it"). All clients share one ``time.perf_counter()``,
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
(how quickly the server's event loop answers at all). The exit status is 1
if there was any error frame, lost or undelivered move, dropped connection
or connection that could not be opened.

``--sweep`` then (``--sweep-only``: instead) looks for the highest move rate
the server sustains with p99 <= ``--p99-limit`` ms (250): runs of
``--sweep-seconds`` (20), each with a fresh server, start at ``--rooms`` and
``--think``; every step divides the think time by ``--sweep-factor`` (1.5)
while its lower bound stays >= 0.05 s (a client then sends at most 20 frames
a second, the server's per-connection rate limit), and after that multiplies
the rooms by it instead. It stops at the first step with p99 over the limit,
with a failure, or where this client process used >= 90 % of its core
(then the clients, not the server, were the limit; the table says so), or
after ``--sweep-steps`` steps. The target rate of a step is what the rooms
would play if the server answered instantly: rooms / mean time per move,
people taking the mean think time and computers the pace.

Run it on an otherwise idle machine with at least 2 cores, from the
repository root. The issue's figure (250 rooms, 1,000 people, 60 s)::

    .venv/bin/python benchmarks/load.py --rooms 250 --seconds 60 --json load.json

Computers thinking must not block the event loop: two experts in every room,
and the people's latency should stay low while they think::

    .venv/bin/python benchmarks/load.py --rooms 50 --seconds 60 --computers 2 --json load-expert.json
    .venv/bin/python benchmarks/load.py --rooms 250 --seconds 60 --computers 2 --json load-expert-250.json

An expert took about 18 ms a move on average in a quick check on a busy
machine (its searches run in worker threads, in C, without the GIL), and
every room with two of them asks for about 0.8 computer moves a second: at
50 rooms the thinking should fit in one core (the server CPU share says; a
40-room check used about 80 % on a busy machine), so the latency shows
whether thinking blocks the loop; at 250 rooms the experts alone want more
than the server's one core, so the latency then also shows the event loop
starved of CPU by the worker threads (compare the server CPU share).

The highest sustained move rate::

    .venv/bin/python benchmarks/load.py --rooms 250 --sweep-only --json load-sweep.json

A quick check that everything works (a few seconds)::

    .venv/bin/python benchmarks/load.py --rooms 20 --seconds 15

It prints Markdown tables; ``--json FILE`` also writes every figure and the
settings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from elferraus.server.client import create_room, join_room

SEATS = 4
THINK_FLOOR = 0.05
"""The sweep never lets a person think less than this (the server allows 20 frames/s per connection)."""
CLIENT_BOUND = 0.9
"""Share of its core at which this client process counts as the bottleneck."""
HTTP_CONCURRENCY = 16
CONNECT_CONCURRENCY = 64

loads = json.loads
perf_counter = time.perf_counter


# -- settings and results -------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    rooms: int
    seconds: float
    warmup: float
    think: tuple[float, float]
    computers: int
    level: str
    pace: float
    rounds: int
    policy: str
    seed: int
    compression: bool
    grace: float

    @property
    def people(self) -> int:
        return SEATS - self.computers

    @property
    def target_rate(self) -> float:
        """Moves/s if the server answered instantly (computers taking only the pace)."""
        mean_think = (self.think[0] + self.think[1]) / 2
        per_move = (self.people * mean_think + self.computers * self.pace) / SEATS
        return self.rooms / per_move if per_move > 0 else float("inf")


@dataclass
class RunResult:
    settings: dict[str, Any]
    sockets: int = 0
    setup_seconds: float = 0.0
    measured_seconds: float = 0.0
    moves: int = 0
    """People's moves sent in the measured window and delivered to everyone."""
    moves_per_s: float = 0.0
    all_moves_per_s: float = 0.0
    """Every move (computers' too) that the hosts saw in the measured window, per second."""
    latency_ms: dict[str, float | None] = field(default_factory=dict)
    moves_sent: int = 0
    moves_acknowledged: int = 0
    moves_verified: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    lost: int = 0
    lost_samples: list[str] = field(default_factory=list)
    undelivered: int = 0
    dropped: int = 0
    connect_failures: int = 0
    games_finished: int = 0
    server_cpu_s: float = 0.0
    server_cpu_share: float = 0.0
    server_peak_rss_mb: float = 0.0
    server_exit: int | None = None
    client_cpu_s: float = 0.0
    client_cpu_share: float = 0.0
    client_peak_rss_mb: float = 0.0
    client_loop_lag_ms: dict[str, float | None] = field(default_factory=dict)
    ping_ms: dict[str, float | None] = field(default_factory=dict)
    """Round trip of a spectator's ``ping``, sent 10 times a second."""
    target_rate: float = 0.0

    @property
    def failures(self) -> int:
        failed = sum(self.errors.values()) + self.lost + self.undelivered + self.dropped + self.connect_failures
        return failed + (1 if self.server_exit is not None else 0)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "failures": self.failures}


def percentile(ordered: list[float], q: float) -> float | None:
    """The q-quantile (0..1) of sorted values, nearest rank."""
    if not ordered:
        return None
    rank = max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))
    return ordered[rank]


def summary_ms(values: list[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {
        "median": _ms(percentile(ordered, 0.5)),
        "p95": _ms(percentile(ordered, 0.95)),
        "p99": _ms(percentile(ordered, 0.99)),
        "max": _ms(ordered[-1] if ordered else None),
    }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000


# -- the server process ---------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def pin(pid: int, cpu: int | None) -> None:
    """Pin every thread of ``pid`` (0: this process's calling thread) to ``cpu``."""
    if cpu is None:
        return
    if pid == 0:
        os.sched_setaffinity(0, {cpu})
        return
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(int(task), {cpu})


RUNNING: set[Server] = set()
"""Servers started and not yet stopped (``main`` kills any left, whatever happened)."""


class Server:
    """``elferraus serve`` on a free loopback port with a fresh database, pinned to a core."""

    def __init__(self, workdir: Path, cpu: int | None, name: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.db = workdir / f"{name}.sqlite3"
        self.log = workdir / f"{name}.log"
        self.cpu = cpu
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "elferraus.cli.main", "serve", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--db", str(self.db)]
        with self.log.open("ab") as errors:
            self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        RUNNING.add(self)
        pin(self.process.pid, self.cpu)  # the interpreter has no other thread yet; later ones inherit this

    def wait_healthy(self, timeout: float = 30.0) -> None:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}): {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=1) as answer:
                    if answer.read() == b"ok":
                        pin(self.process.pid, self.cpu)
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"the server did not come up within {timeout} s: {self.log_tail()}")

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process (all threads) so far."""
        assert self.process is not None
        try:
            text = Path(f"/proc/{self.process.pid}/stat").read_text()
        except OSError:
            return 0.0
        fields = text.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self) -> float:
        assert self.process is not None
        try:
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def exit_code(self) -> int | None:
        """None while it runs."""
        return self.process.poll() if self.process is not None else None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        RUNNING.discard(self)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


# -- the clients ----------------------------------------------------------------


class Pending:
    """A person's move on its way to everyone in the room."""

    __slots__ = ("mask", "measured", "sent", "target")

    def __init__(self, target: int, sent: Sent, measured: bool) -> None:
        self.target = target
        self.sent = sent
        self.mask = 0
        self.measured = measured


class Sent:
    """A frame a client sent and whose answer it awaits: a move, or the host's ``start``/``next``/``rematch``."""

    __slots__ = ("acked", "game_id", "index", "kind", "move", "pending", "seat", "seq", "t")

    def __init__(self, kind: str, seq: int, seat: int, move: str = "", game_id: int | None = None, index: int = 0):
        self.kind = kind
        self.seq = seq
        self.seat = seat
        self.move = move
        self.game_id = game_id
        self.index = index
        self.t = 0.0
        self.acked = False
        self.pending: Pending | None = None

    def describe(self, code: str) -> str:
        where = f"game {self.game_id} #{self.index}"
        return f"room {code} seat {self.seat}: {self.kind} {self.move} at seq {self.seq} ({where})"


class Stats:
    """What every client adds to, in one event loop."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self.error_samples: list[str] = []
        self.window = (float("inf"), float("inf"))
        self.window_moves = 0
        self.sent = 0
        self.acked = 0
        self.dropped = 0
        self.connect_failures = 0
        self.stopping = False
        self.closing = False
        self.tasks: set[asyncio.Task[None]] = set()
        """Frames being sent (kept here so that no task is collected mid-way)."""

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


class Table:
    """The client side of one room: its people and the moves on their way to them."""

    __slots__ = ("code", "full", "index", "last_game", "last_len", "pending", "players", "sent")

    def __init__(self, index: int, code: str) -> None:
        self.index = index
        self.code = code
        self.players: list[Player] = []
        self.full = 0
        self.pending: list[Pending] = []
        self.sent: list[Sent] = []
        """Every move sent (for the final check)."""
        self.last_game: int | None = None
        self.last_len = 0


class Player:
    """One person: a WebSocket, the newest state's essentials, and at most one frame awaiting its answer."""

    __slots__ = (
        "awaiting",
        "bit",
        "game_id",
        "host",
        "legal",
        "moves_len",
        "policy",
        "ready",
        "rng",
        "seat",
        "seq",
        "stats",
        "status",
        "table",
        "think",
        "timer",
        "token",
        "ws",
    )

    def __init__(self, table: Table, seat: int, token: str, settings: Settings, stats: Stats) -> None:
        self.table = table
        self.seat = seat
        self.token = token
        self.host = seat == 0
        self.bit = 1 << seat
        self.stats = stats
        self.think = settings.think
        self.policy = settings.policy
        self.rng = random.Random(f"{settings.seed}/{table.index}/{seat}")
        self.ws: ClientConnection | None = None
        self.ready = asyncio.Event()
        self.seq = -1
        self.status = ""
        self.legal: list[str] = []
        self.game_id: int | None = None
        self.moves_len = 0
        self.awaiting: Sent | None = None
        self.timer: asyncio.TimerHandle | None = None

    # -- frames in ---------------------------------------------------------------

    def on_frame(self, text: str | bytes, now: float) -> None:
        message = loads(text)
        kind = message.get("type")
        if kind == "state":
            self.on_state(message, now)
        elif kind == "error":
            self.on_error(message)

    def on_state(self, message: dict[str, Any], now: float) -> None:
        seq: int = message["seq"]
        table = self.table
        if table.pending:
            for pending in list(table.pending):
                if seq >= pending.target and not pending.mask & self.bit:
                    pending.mask |= self.bit
                    if pending.mask == table.full:
                        table.pending.remove(pending)
                        if pending.measured:
                            self.stats.latencies.append(now - pending.sent.t)
        view = message["view"]
        game = message["game"]
        self.seq = seq
        self.status = message["room"]["status"]
        self.legal = view["legal"] if view else []
        moves: list[str] = game["moves"] if game else []
        self.game_id = game["id"] if game else None
        self.moves_len = len(moves)
        if self.host and game:
            grown = self.moves_len - table.last_len if self.game_id == table.last_game else self.moves_len
            table.last_game, table.last_len = self.game_id, self.moves_len
            if self.stats.window[0] <= now < self.stats.window[1]:
                self.stats.window_moves += grown
        sent = self.awaiting
        if sent is not None and seq > sent.seq:
            if sent.kind != "move" or self.game_id != sent.game_id:
                # a host's command, or a move that ended the game (checked against the record at the end)
                self.acknowledge(sent)
            elif self.moves_len > sent.index and _same(moves[sent.index], sent):
                self.acknowledge(sent)
            # else: a newer state without the move; the move's error is on its way
        if not self.ready.is_set():
            self.ready.set()
        self.consider()

    def acknowledge(self, sent: Sent) -> None:
        sent.acked = True
        self.awaiting = None
        if sent.kind == "move":
            self.stats.acked += 1

    def on_error(self, message: dict[str, Any]) -> None:
        code = message.get("code", "?")
        self.stats.errors[code] += 1
        sent = self.awaiting
        if len(self.stats.error_samples) < 20:
            what = sent.describe(self.table.code) if sent else f"room {self.table.code} seat {self.seat}"
            self.stats.error_samples.append(f"{code} ({message.get('message')}) after {what}")
        if sent is not None:
            self.awaiting = None
            if sent.pending is not None and sent.pending in self.table.pending:
                self.table.pending.remove(sent.pending)
        self.consider()

    # -- acting ------------------------------------------------------------------

    def consider(self) -> None:
        """If there is something to do and nothing awaited or planned, think, then do it."""
        if self.awaiting is not None or self.timer is not None or self.stats.stopping:
            return
        if (self.status == "playing" and self.legal) or (self.host and self.status in ("round_over", "match_over")):
            self.timer = asyncio.get_running_loop().call_later(self.rng.uniform(*self.think), self.act)

    def act(self) -> None:
        self.timer = None
        if self.awaiting is not None or self.stats.stopping or self.ws is None:
            return
        if self.status == "playing" and self.legal:
            move = self.choose()
            sent = Sent("move", self.seq, self.seat, move, self.game_id, self.moves_len)
            frame = json.dumps({"type": "move", "move": move, "seq": self.seq})
            now = perf_counter()
            window = self.stats.window
            sent.pending = Pending(self.seq + 1, sent, window[0] <= now < window[1])
            self.table.pending.append(sent.pending)
            self.table.sent.append(sent)
            self.stats.sent += 1
        elif self.host and self.status in ("round_over", "match_over"):
            command = "next" if self.status == "round_over" else "rematch"
            sent = Sent(command, self.seq, self.seat)
            frame = json.dumps({"type": command})
        else:
            return
        self.awaiting = sent
        self.stats.spawn(self.send(frame, sent))

    def choose(self) -> str:
        legal = self.legal
        if self.policy == "random":
            return self.rng.choice(legal)
        for move in legal:
            if move not in ("draw", "pass"):
                return move
        return "draw" if "draw" in legal else legal[0]

    async def send(self, frame: str, sent: Sent) -> None:
        assert self.ws is not None
        sent.t = perf_counter()
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(frame)

    async def start(self) -> None:
        """The host starts the match."""
        sent = Sent("start", self.seq, self.seat)
        self.awaiting = sent
        await self.send(json.dumps({"type": "start"}), sent)

    # -- the connection ----------------------------------------------------------

    async def run(self, url: str, compression: bool, gate: asyncio.Semaphore) -> None:
        try:
            async with gate:
                ws = await connect(
                    url,
                    ping_interval=None,
                    max_size=2**20,
                    compression="deflate" if compression else None,
                    open_timeout=60,
                    close_timeout=2,
                )
                self.ws = ws
                await ws.send(json.dumps({"type": "hello", "token": self.token, "lang": "en"}))
        except (OSError, TimeoutError, ConnectionClosed) as error:
            self.stats.connect_failures += 1
            if len(self.stats.error_samples) < 20:
                self.stats.error_samples.append(f"connect room {self.table.code} seat {self.seat}: {error!r}")
            self.ready.set()
            return
        try:
            async for text in ws:
                self.on_frame(text, perf_counter())
        except ConnectionClosed:
            pass
        finally:
            if not self.stats.closing:
                self.stats.dropped += 1
                if len(self.stats.error_samples) < 20:
                    self.stats.error_samples.append(
                        f"dropped room {self.table.code} seat {self.seat}: {ws.close_code} {ws.close_reason}"
                    )
            self.ready.set()

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def _same(entry: str, sent: Sent) -> bool:
    """Does a history entry (``"2 R12"``, ``"2 draw"``, ``"2 draw B8"``) record this move?"""
    parts = entry.split()
    return len(parts) >= 2 and parts[0] == str(sent.seat) and parts[1] == sent.move


# -- one run ---------------------------------------------------------------------


async def open_table(base: str, index: int, settings: Settings, gate: asyncio.Semaphore) -> tuple[str, list[str]]:
    """A room with its people seated; returns its code and the people's tokens (seat order)."""
    seats: list[dict[str, str]] = [{"kind": "computer", "level": settings.level}] * settings.computers
    seats += [{"kind": "open"}] * (SEATS - 1 - settings.computers)
    async with gate:
        host = await create_room(
            base, name="Host", players=SEATS, rounds=settings.rounds, seats=seats, pace=settings.pace
        )
    code = host["code"]
    tokens = [host["token"]]
    for seat in range(1 + settings.computers, SEATS):
        async with gate:
            tokens.append((await join_room(base, code, seat, f"Guest {seat + 1}"))["token"])
    return code, tokens


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


async def final_histories(base: str, table: Table, compression: bool, gate: asyncio.Semaphore) -> dict[int, list[str]]:
    """The room's games as the server has them: the newest one as a spectator sees it, older ones from their records.

    Only the games the room's people moved in are read.
    """
    histories: dict[int, list[str]] = {}
    url = base.replace("http://", "ws://") + f"/ws/{table.code}"
    async with gate:
        async with connect(
            url, ping_interval=None, max_size=2**20, compression="deflate" if compression else None
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "token": None, "lang": "en"}))
            while True:
                message = loads(await asyncio.wait_for(ws.recv(), 30))
                if message.get("type") == "state":
                    break
        game = message["game"]
        if game and game["id"] is not None:
            histories[game["id"]] = list(game["moves"])
        for game_id in sorted({sent.game_id for sent in table.sent if sent.game_id is not None} - set(histories)):
            try:
                record = await asyncio.to_thread(_get_json, f"{base}/api/games/{game_id}/record")
            except urllib.error.HTTPError:
                continue
            histories[game_id] = list(record["moves"])
    return histories


async def loop_lag(samples: list[float], stats: Stats, period: float = 0.05) -> None:
    """How late this event loop wakes up (a busy client loop delays every timestamp)."""
    while True:
        before = perf_counter()
        await asyncio.sleep(period)
        now = perf_counter()
        if stats.window[0] <= now < stats.window[1]:
            samples.append(now - before - period)


async def ping_probe(url: str, samples: list[float], stats: Stats, compression: bool) -> None:
    """A spectator of one room sending ``ping`` 10 times a second: how quickly the server's loop answers."""
    async with connect(url, ping_interval=None, max_size=2**20, compression="deflate" if compression else None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None, "lang": "en"}))
        while True:
            await asyncio.sleep(0.1)
            before = perf_counter()
            await ws.send('{"type":"ping"}')
            while True:
                text = await ws.recv()
                if text.startswith('{"type":"pong"'):
                    break
            now = perf_counter()
            if stats.window[0] <= before < stats.window[1]:
                samples.append(now - before)


async def sleep_until(moment: float) -> None:
    delay = moment - perf_counter()
    if delay > 0:
        await asyncio.sleep(delay)


async def run_once(settings: Settings, server: Server, label: str) -> RunResult:
    """Start the rooms, play them for ``settings.seconds``, check every move; the server must be up."""
    result = RunResult(settings={**asdict(settings), "think": list(settings.think)}, target_rate=settings.target_rate)
    stats = Stats()
    base = server.base
    url = base.replace("http://", "ws://")
    began = perf_counter()
    print(f"{label}: creating {settings.rooms} rooms ...", file=sys.stderr, flush=True)
    http_gate = asyncio.Semaphore(HTTP_CONCURRENCY)
    opened = await asyncio.gather(*(open_table(base, i, settings, http_gate) for i in range(settings.rooms)))
    tables: list[Table] = []
    players: list[Player] = []
    for index, (code, tokens) in enumerate(opened):
        table = Table(index, code)
        seats = [0, *range(1 + settings.computers, SEATS)]
        for seat, token in zip(seats, tokens, strict=True):
            player = Player(table, seat, token, settings, stats)
            table.players.append(player)
            table.full |= player.bit
            players.append(player)
        tables.append(table)
    result.sockets = len(players)
    print(f"{label}: connecting {len(players)} people ...", file=sys.stderr, flush=True)
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    tasks = [asyncio.create_task(p.run(f"{url}/ws/{p.table.code}", settings.compression, gate)) for p in players]
    lag: list[float] = []
    lag_task = asyncio.create_task(loop_lag(lag, stats))
    pings: list[float] = []
    probe: asyncio.Task[None] | None = None
    try:
        await asyncio.wait_for(asyncio.gather(*(p.ready.wait() for p in players)), 300)
        result.setup_seconds = perf_counter() - began
        print(
            f"{label}: {len(players)} connected in {result.setup_seconds:.1f} s; playing {settings.seconds:g} s "
            f"({settings.warmup:g} s warm-up) ...",
            file=sys.stderr,
            flush=True,
        )
        started = perf_counter()
        stats.window = (started + settings.warmup, started + settings.seconds)
        probe = asyncio.create_task(ping_probe(f"{url}/ws/{tables[0].code}", pings, stats, settings.compression))
        for table in tables:
            host = table.players[0]
            if host.ws is not None:
                stats.spawn(host.start())
        await sleep_until(stats.window[0])
        server_cpu, client_cpu = server.cpu_seconds(), time.process_time()
        await sleep_until(stats.window[1])
        result.server_cpu_s = server.cpu_seconds() - server_cpu
        result.client_cpu_s = time.process_time() - client_cpu
        measured = perf_counter() - stats.window[0]
        stats.stopping = True
        for player in players:
            player.stop()
        # the moves on their way: acknowledged and delivered, or lost
        deadline = perf_counter() + settings.grace
        while perf_counter() < deadline and (
            any(p.awaiting is not None for p in players) or any(t.pending for t in tables)
        ):
            await asyncio.sleep(0.05)
        result.server_exit = server.exit_code()
        result.server_peak_rss_mb = server.peak_rss_mb()
    finally:
        stats.closing = True
        lag_task.cancel()
        if probe is not None:
            probe.cancel()
            with contextlib.suppress(BaseException):
                await probe
        for player in players:
            player.stop()
        closing = [p.ws.close() for p in players if p.ws is not None]
        await asyncio.gather(*closing, return_exceptions=True)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    result.measured_seconds = measured
    result.moves_sent = stats.sent
    result.moves_acknowledged = stats.acked
    result.moves = len(stats.latencies)
    result.moves_per_s = result.moves / measured
    result.all_moves_per_s = stats.window_moves / measured
    result.latency_ms = summary_ms(stats.latencies)
    result.client_loop_lag_ms = summary_ms(lag)
    result.ping_ms = summary_ms(pings)
    result.server_cpu_share = result.server_cpu_s / measured
    result.client_cpu_share = result.client_cpu_s / measured
    result.client_peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result.dropped = stats.dropped
    result.connect_failures = stats.connect_failures
    lost: list[str] = []
    for table in tables:
        for pending in table.pending:
            if pending.sent.acked:
                result.undelivered += 1
        for player in table.players:
            if player.awaiting is not None and player.awaiting.kind == "move":
                lost.append(f"no acknowledgement: {player.awaiting.describe(table.code)}")

    if result.server_exit is None:
        print(f"{label}: checking every room's history ...", file=sys.stderr, flush=True)
        checks = await asyncio.gather(
            *(final_histories(base, table, settings.compression, gate) for table in tables), return_exceptions=True
        )
        for table, histories in zip(tables, checks, strict=True):
            if isinstance(histories, BaseException):
                lost.append(f"room {table.code}: could not read its history: {histories!r}")
                continue
            result.games_finished += max(0, len({sent.game_id for sent in table.sent}) - 1)
            for sent in table.sent:
                if not sent.acked:
                    continue
                history = histories.get(sent.game_id) if sent.game_id is not None else None
                if history is not None and len(history) > sent.index and _same(history[sent.index], sent):
                    result.moves_verified += 1
                else:
                    found = history[sent.index] if history is not None and len(history) > sent.index else None
                    lost.append(f"missing from the history (found {found!r}): {sent.describe(table.code)}")
    result.lost = len(lost)
    result.lost_samples = lost[:20]
    result.errors = dict(stats.errors)
    result.error_samples = stats.error_samples
    return result


async def with_server(settings: Settings, workdir: Path, cpu: int | None, name: str) -> RunResult:
    server = Server(workdir, cpu, name)
    try:
        server.start()
        await asyncio.to_thread(server.wait_healthy)
        result = await run_once(settings, server, name)
        if result.server_exit is not None or result.failures:
            tail = server.log_tail()
            if tail:
                print(f"{name}: server log (last lines):\n{tail}", file=sys.stderr)
        return result
    finally:
        server.stop()


# -- reporting -------------------------------------------------------------------


def _f(value: float | None, spec: str = ".1f") -> str:
    return "-" if value is None else f"{value:{spec}}"


def _seating(settings: dict[str, Any]) -> str:
    people = f"{SEATS - settings['computers']} people"
    return f"{people}, {settings['computers']} {settings['level']}" if settings["computers"] else people


def run_table(result: RunResult) -> str:
    s = result.settings
    lat = result.latency_ms
    lag = result.client_loop_lag_ms
    ping = result.ping_ms
    errors = ", ".join(f"{code} {n}" for code, n in sorted(result.errors.items())) or "0"
    rows = [
        ("rooms × seats", f"{s['rooms']} × {SEATS} ({_seating(s)})"),
        ("WebSockets", f"{result.sockets:,}"),
        ("think (s), pace (s)", f"{s['think'][0]:g}-{s['think'][1]:g}, {s['pace']:g}"),
        ("measured (s)", f"{result.measured_seconds:.1f} (after {s['warmup']:g} s warm-up)"),
        ("people's moves measured", f"{result.moves:,}"),
        ("people's moves/s", f"{result.moves_per_s:.1f}"),
        ("all moves/s (target)", f"{result.all_moves_per_s:.1f} ({result.target_rate:.1f})"),
        ("move-to-everyone median (ms)", _f(lat.get("median"))),
        ("move-to-everyone p95 (ms)", _f(lat.get("p95"))),
        ("move-to-everyone p99 (ms)", _f(lat.get("p99"))),
        ("move-to-everyone max (ms)", _f(lat.get("max"))),
        (
            "moves sent / acknowledged / in history",
            f"{result.moves_sent} / {result.moves_acknowledged} / {result.moves_verified}",
        ),
        ("error frames", errors),
        ("lost moves", str(result.lost)),
        ("undelivered moves", str(result.undelivered)),
        ("dropped connections", str(result.dropped)),
        ("connections not opened", str(result.connect_failures)),
        ("games finished", str(result.games_finished)),
        ("server CPU (s, share of a core)", f"{result.server_cpu_s:.1f}, {100 * result.server_cpu_share:.0f} %"),
        ("server peak RSS (MB)", f"{result.server_peak_rss_mb:.0f}"),
        ("client CPU (s, share of a core)", f"{result.client_cpu_s:.1f}, {100 * result.client_cpu_share:.0f} %"),
        ("client loop lag p99 / max (ms)", f"{_f(lag.get('p99'))} / {_f(lag.get('max'))}"),
        (
            "spectator ping round trip median / p99 / max (ms)",
            f"{_f(ping.get('median'))} / {_f(ping.get('p99'))} / {_f(ping.get('max'))}",
        ),
    ]
    if result.server_exit is not None:
        rows.append(("server exited", str(result.server_exit)))
    lines = ["| figure | value |", "|---|--:|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    return "\n".join(lines)


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
        plan.append(replace(settings, rooms=rooms, think=(round(low, 4), round(high, 4))))
        if low / factor >= THINK_FLOOR:
            low, high = low / factor, high / factor
        else:
            rooms = round(rooms * factor)
    return plan


async def sweep(
    settings: Settings, args: argparse.Namespace, workdir: Path, cpu: int | None
) -> tuple[list[dict[str, Any]], float | None]:
    steps: list[dict[str, Any]] = []
    best: float | None = None
    limit = args.p99_limit
    for number, step in enumerate(sweep_plan(settings, args.sweep_steps, args.sweep_factor), 1):
        result = await with_server(step, workdir, cpu, f"sweep-{number}")
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
        print(sweep_table(steps).splitlines()[-1], file=sys.stderr, flush=True)
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
    parser.add_argument("--level", default="expert", choices=("easy", "medium", "hard", "expert"))
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
    parser.add_argument("--server-cpu", type=int, default=0)
    parser.add_argument("--client-cpu", type=int, default=1)
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
    )
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    server_cpu = client_cpu = None
    if len(cpus) >= 2 and args.server_cpu in cpus and args.client_cpu in cpus:
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
    }

    async def everything(workdir: Path) -> int:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(HTTP_CONCURRENCY))
        failures = 0
        if not args.sweep_only:
            result = await with_server(settings, workdir, server_cpu, "run")
            report["run"] = result.to_json()
            failures += result.failures
            print(run_table(result))
            _print_problems(result.error_samples + result.lost_samples)
        if args.sweep or args.sweep_only:
            steps, best = await sweep(replace(settings, seconds=args.sweep_seconds), args, workdir, server_cpu)
            report["sweep"] = {"steps": steps, "highest_sustained_moves_per_s": best, "p99_limit_ms": args.p99_limit}
            failures += sum(step["result"]["failures"] for step in steps)
            print()
            print(sweep_table(steps))
            print()
            best_text = f"{best:.1f} moves/s" if best is not None else "none"
            print(f"highest sustained rate with p99 <= {args.p99_limit:g} ms: {best_text}")
            for step in steps:
                _print_problems(step["result"]["error_samples"] + step["result"]["lost_samples"])
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
