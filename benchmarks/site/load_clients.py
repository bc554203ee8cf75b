"""The load benchmark's simulated people and one measured run (see ``load.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import resource
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks.site.load_server import (
    CONNECT_CONCURRENCY,
    HTTP_CONCURRENCY,
    SEATS,
    RunResult,
    Settings,
    Site,
    make_site,
    summary_ms,
)
from elferraus.server.client import create_room, join_room

loads = json.loads
perf_counter = time.perf_counter
"""Bound once: the hot paths run per frame."""

# -- the clients ----------------------------------------------------------------


class Pending:
    """A person's move on its way to everyone in the room: it has arrived at a client once a state shows its
    game with more moves than the move's index, or a later game.

    (Not the state's ``seq``: each process of a site counts its own, so a client on another process than
    the mover's has other numbers. Game ids grow across the site: they come from the database.)
    """

    __slots__ = ("game_id", "index", "mask", "measured", "sent")

    def __init__(self, sent: Sent, measured: bool) -> None:
        self.game_id = sent.game_id if sent.game_id is not None else -1
        self.index = sent.index
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
        self.computer_times: list[float] = []
        """Each computer's move beyond the room's pace (``RunResult.computer_ms``), in the measured window."""
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

    __slots__ = (
        "code",
        "computers",
        "full",
        "index",
        "last_game",
        "last_len",
        "last_moved",
        "pending",
        "players",
        "sent",
    )

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
        self.last_moved: float | None = None
        """When the host last saw the game grow (None before the first move of a game)."""
        self.computers: frozenset[str] = frozenset()
        """The computers' seats, as the history writes them (``"1"``, ``"2"``, ...)."""


class Player:
    """One person: a WebSocket, the newest state's essentials, and at most one frame awaiting its answer."""

    __slots__ = (
        "awaiting",
        "bit",
        "game_id",
        "host",
        "legal",
        "moves",
        "moves_len",
        "pace",
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
        self.pace = settings.pace
        self.rng = random.Random(f"{settings.seed}/{table.index}/{seat}")
        self.ws: ClientConnection | None = None
        self.ready = asyncio.Event()
        self.seq = -1
        self.status = ""
        self.legal: list[str] = []
        self.game_id: int | None = None
        self.moves: list[str] = []
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
        view = message["view"]
        game = message["game"]
        self.seq = seq
        self.status = message["room"]["status"]
        # Not while the table makes his only legal move for him (``making``; absent from older servers).
        self.legal = view["legal"] if view and view.get("making") is None else []
        # A connection is sent each move once: the moves before ``log_from`` are those of the states before
        # (absent from older servers, which send them all).
        game_id = game["id"] if game else None
        start = game.get("log_from", 0) if game else 0
        moves: list[str] = game["moves"] if game else []
        if start and game_id == self.game_id:
            moves = self.moves[:start] + moves
        self.moves = moves
        self.game_id = game_id
        self.moves_len = len(moves)
        if table.pending and game_id is not None:
            for pending in list(table.pending):
                shown = game_id > pending.game_id or (game_id == pending.game_id and self.moves_len > pending.index)
                if shown and not pending.mask & self.bit:
                    pending.mask |= self.bit
                    if pending.mask == table.full:
                        table.pending.remove(pending)
                        if pending.measured:
                            self.stats.latencies.append(now - pending.sent.t)
        if self.host and game:
            same_game = self.game_id == table.last_game
            grown = self.moves_len - table.last_len if same_game else self.moves_len
            table.last_game, table.last_len = self.game_id, self.moves_len
            if self.stats.window[0] <= now < self.stats.window[1]:
                self.stats.window_moves += grown
                # a computer's move, alone in its state: how long it took beyond the pace
                last = table.last_moved
                if grown == 1 and same_game and last is not None and moves[-1].split(" ", 1)[0] in table.computers:
                    self.stats.computer_times.append(now - last - self.pace)
            if grown or not same_game:
                table.last_moved = now if same_game else None
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
            sent.pending = Pending(sent, window[0] <= now < window[1])
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
                if isinstance(text, str) and text.startswith('{"type":"pong"'):
                    break
            now = perf_counter()
            if stats.window[0] <= before < stats.window[1]:
                samples.append(now - before)


async def load_average(samples: list[float], stats: Stats, period: float = 2.0) -> None:
    """The machine's one-minute load average every ``period`` s in the measured window (and once at its end)."""
    while True:
        now = perf_counter()
        if stats.window[0] <= now <= stats.window[1] + period:
            samples.append(os.getloadavg()[0])
        await asyncio.sleep(period)


def load_summary(samples: list[float]) -> dict[str, float | None]:
    if not samples:
        return {"start": None, "mean": None, "max": None, "end": None}
    return {"start": samples[0], "mean": sum(samples) / len(samples), "max": max(samples), "end": samples[-1]}


async def sleep_until(moment: float) -> None:
    delay = moment - perf_counter()
    if delay > 0:
        await asyncio.sleep(delay)


async def run_once(settings: Settings, site: Site, label: str) -> RunResult:
    """Start the rooms, play them for ``settings.seconds``, check every move; the site must be up."""
    result = RunResult(
        settings={**asdict(settings), "think": list(settings.think)},
        target_rate=settings.target_rate,
        config=site.config,
    )
    stats = Stats()
    base = site.base
    url = base.replace("http://", "ws://")
    began = perf_counter()
    print(f"{label}: creating {settings.rooms} rooms ...", file=sys.stderr, flush=True)
    http_gate = asyncio.Semaphore(HTTP_CONCURRENCY)
    opened = await asyncio.gather(*(open_table(base, i, settings, http_gate) for i in range(settings.rooms)))
    tables: list[Table] = []
    players: list[Player] = []
    for index, (code, tokens) in enumerate(opened):
        table = Table(index, code)
        table.computers = frozenset(str(seat) for seat in range(1, 1 + settings.computers))
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
    loads: list[float] = []
    load_task = asyncio.create_task(load_average(loads, stats))
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
        server_cpu, client_cpu = await asyncio.to_thread(site.cpu_seconds), time.process_time()
        await sleep_until(stats.window[1])
        server_cpu_end = await asyncio.to_thread(site.cpu_seconds)
        result.client_cpu_s = time.process_time() - client_cpu
        measured = perf_counter() - stats.window[0]
        parts_cpu = {part: server_cpu_end[part] - server_cpu.get(part, 0.0) for part in server_cpu_end}
        result.server_cpu_s = sum(parts_cpu.values())
        stats.stopping = True
        for player in players:
            player.stop()
        # the moves on their way: acknowledged and delivered, or lost
        deadline = perf_counter() + settings.grace
        while perf_counter() < deadline and (
            any(p.awaiting is not None for p in players) or any(t.pending for t in tables)
        ):
            await asyncio.sleep(0.05)
        result.server_exit = site.down()
        peaks = site.peak_rss_mb()
        result.server_peak_rss_mb = sum(peaks.values())
    finally:
        stats.closing = True
        lag_task.cancel()
        load_task.cancel()
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
    result.computer_moves = len(stats.computer_times)
    result.computer_ms = summary_ms(stats.computer_times)
    result.load_average = load_summary(loads)
    result.server_cpu_share = result.server_cpu_s / measured
    result.parts = {
        part: {"cpu_s": cpu, "cpu_share": cpu / measured, "peak_rss_mb": peaks.get(part)}
        for part, cpu in parts_cpu.items()
    }
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


async def with_site(config: str, settings: Settings, workdir: Path, cpu: int | None, name: str) -> RunResult:
    """One run against a fresh site of ``config``, stopped afterwards (also on errors)."""
    site = make_site(config, workdir, cpu, name, settings.serve_args)
    try:
        print(f"{name}: starting {config} ...", file=sys.stderr, flush=True)
        await asyncio.to_thread(site.start)
        result = await run_once(settings, site, name)
        if result.server_exit is not None or result.failures:
            tail = site.log_tail()
            if tail:
                print(f"{name}: server log (last lines):\n{tail}", file=sys.stderr)
        return result
    finally:
        await asyncio.to_thread(site.stop)
