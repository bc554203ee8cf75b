#!/usr/bin/env python3
"""Failover of the computers: ``kill -9`` the process that leads rooms, and time until their computers move again.

A site of three ``elferraus serve`` processes on one PostgreSQL and one Redis
behind nginx, started as the tests start it (``tests/support/cluster_helpers.cluster``:
every part on a free port in a temporary folder). On it, ``--rooms`` rooms of
one person (a client of this script, through nginx) and three computers of
``--level`` at ``--pace``; the person plays like a brisk human (``--think``,
the first legal lay, else draw, else pass; as host, ``next`` and ``rematch``),
so every room plays all the time.

The computers of a room are driven by the one process that holds the room's
lease, the Redis key ``elferraus:lease:CODE`` whose value names that process
(``host/PID/random``, ``src/elferraus/server/site/redis.py``). A lease lives 2 s
unless renewed; when its holder dies another process takes it over.

After ``--warmup`` seconds, ``--kills`` times:

1. the leases are read from Redis, and the process that holds the most of
   them is the victim; its rooms are the ones measured;
2. just before ``kill -9`` the clock starts; right after it, each measured
   room's newest game and its number of stored moves are read from
   PostgreSQL (what the dead process committed is all it ever will);
3. per measured room, the time until its person's client receives a state
   with a computer's move beyond those (a move made after the kill): the
   whole failover as a player sees it, including the rooms' pace and, for a
   client that was connected to the victim, its reconnecting through nginx
   (at once, then every 0.1 s);
4. the victim is started again on its port, and the rooms play on for
   ``--settle`` seconds before the next kill.

Reported: per kill, the victim, how many rooms it led, how many clients it
dropped, the median and worst time of its rooms and the restart time; over
all kills, the median, p95 and worst time (the target is a worst time of at
most ``--target`` s, 5), rooms that never saw a computer move within
``--timeout`` s (a failure: exit status 1), and ``error`` frames by code.
``--json FILE`` writes every figure and the settings.

From the repository root (PostgreSQL, Redis and nginx as for the tests)::

    .venv/bin/python -m benchmarks.site.failover --rooms 30 --kills 10 --json failover.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from benchmarks.site.load_server import summary_ms
from elferraus.server.client import create_room

perf_counter = time.perf_counter
PROCESSES = 3
LEASE_KEYS = "elferraus:lease:*"
RECONNECT_EVERY = 0.1


class Person:
    """The one person of a room (its host): plays on, reconnects when cut off, and watches for a computer's move."""

    def __init__(self, index: int, code: str, token: str, think: tuple[float, float], seed: int) -> None:
        self.index = index
        self.code = code
        self.token = token
        self.think = think
        self.rng = random.Random(f"{seed}/{index}")
        self.ws: ClientConnection | None = None
        self.seq = -1
        self.status = ""
        self.legal: list[str] = []
        self.game_id: int | None = None
        self.moves: list[str] = []
        self.timer: asyncio.TimerHandle | None = None
        self.started = False
        self.stopping = False
        self.connected = asyncio.Event()
        self.drops = 0
        self.errors: dict[str, int] = {}
        self.watch: tuple[float, int, int] | None = None
        """(the kill's time, the newest stored game, its stored moves): a computer's move after these is awaited."""
        self.seen: float | None = None
        """Seconds from the kill to the first computer's move after it, once seen."""
        self.last_state = 0.0
        self.turn: int | None = None
        self.attempts = 0
        self.refused = 0
        """Connections that failed before their first state (refused, or nginx's 502 while no process is up)."""
        self.failure = ""

    def describe(self, now: float) -> str:
        """How the room looks to its person now (for a room whose computers never moved again)."""
        last = self.moves[-1] if self.moves else "-"
        link = "no socket" if self.ws is None else f"socket {self.ws.state.name.lower()}"
        return (
            f"room {self.code}: {link} ({self.attempts} connects, last failure {self.failure or '-'}), "
            f"status {self.status}, "
            f"game {self.game_id} with {len(self.moves)} moves (last {last!r}), seat {self.turn} to move, "
            f"{len(self.legal)} legal moves, last state {now - self.last_state:.1f} s ago"
        )

    # -- the connection ------------------------------------------------------------

    async def run(self, url: str) -> None:
        """Stay connected: connect, say hello, read; when cut off, connect again at once (then every 0.1 s)."""
        while not self.stopping:
            self.attempts += 1
            try:
                async with connect(url, ping_interval=None, max_size=2**20, open_timeout=10, close_timeout=1) as ws:
                    self.ws = ws
                    await ws.send(json.dumps({"type": "hello", "token": self.token, "lang": "en"}))
                    async for text in ws:
                        self.on_frame(text, perf_counter())
            except (OSError, TimeoutError, WebSocketException) as error:  # refused, cut, or 502 from nginx
                self.failure = repr(error)[:120]
                if not self.connected.is_set():
                    self.refused += 1
            self.ws = None
            self.connected.clear()
            self._cancel()
            if not self.stopping:
                self.drops += 1
                await asyncio.sleep(RECONNECT_EVERY)

    def on_frame(self, text: str | bytes, now: float) -> None:
        message = json.loads(text)
        kind = message.get("type")
        if kind == "state":
            self.on_state(message, now)
        elif kind == "error":
            code = str(message.get("code", "?"))
            self.errors[code] = self.errors.get(code, 0) + 1

    def on_state(self, message: dict[str, Any], now: float) -> None:
        self.connected.set()
        self.last_state = now
        self.seq = message["seq"]
        self.status = message["room"]["status"]
        view, game = message["view"], message["game"]
        self.legal = view["legal"] if view and view.get("making") is None else []
        if game:
            start = game.get("log_from", 0)
            moves: list[str] = game["moves"]
            same = game["id"] == self.game_id
            if start and same:
                moves = self.moves[:start] + moves
            first_new = len(self.moves) if same else 0
            self.game_id, self.moves, self.turn = game["id"], moves, game.get("turn")
            self.look(first_new, now)
        if self.status == "waiting" and not self.started:
            self.started = True
            self._send({"type": "start"})
        self._plan()

    def look(self, first_new: int, now: float) -> None:
        """A computer's move among the new entries, after the watched point, stops the watch's clock."""
        if self.watch is None or self.game_id is None:
            return
        killed, game, stored = self.watch
        for index in range(first_new, len(self.moves)):
            seat = self.moves[index].split(" ", 1)[0]
            after = self.game_id > game or index >= stored
            if seat != "0" and after:
                self.seen = now - killed
                self.watch = None
                return

    # -- playing -------------------------------------------------------------------

    def _plan(self) -> None:
        """Think, then move (or, between rounds, go on); a newer state plans afresh."""
        self._cancel()
        if self.stopping:
            return
        if (self.status == "playing" and self.legal) or self.status in ("round_over", "match_over"):
            self.timer = asyncio.get_running_loop().call_later(self.rng.uniform(*self.think), self._act)

    def _act(self) -> None:
        self.timer = None
        if self.status == "playing" and self.legal:
            lays = [move for move in self.legal if move not in ("draw", "pass")]
            move = lays[0] if lays else ("draw" if "draw" in self.legal else self.legal[0])
            self._send({"type": "move", "move": move, "seq": self.seq})
        elif self.status == "round_over":
            self._send({"type": "next"})
        elif self.status == "match_over":
            self._send({"type": "rematch"})

    def _send(self, frame: dict[str, Any]) -> None:
        ws = self.ws
        if ws is not None:
            task = asyncio.get_running_loop().create_task(ws.send(json.dumps(frame)))
            task.add_done_callback(lambda done: done.cancelled() or done.exception())

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def stop(self) -> None:
        self.stopping = True
        self._cancel()


# -- the site --------------------------------------------------------------------


async def leases(redis_url: str) -> dict[str, int]:
    """Each room's code and the process id of the process that holds its lease, as Redis has them now."""
    from redis import asyncio as aioredis

    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = [key async for key in client.scan_iter(LEASE_KEYS, count=1000)]
        holders = await client.mget(keys) if keys else []
    finally:
        await client.aclose()
    found: dict[str, int] = {}
    for key, holder in zip(keys, holders, strict=True):  # text: the client decodes what Redis answers
        parts = str(holder or "").split("/")
        if len(parts) >= 2 and parts[1].isdigit():
            found[str(key).rsplit(":", 1)[1]] = int(parts[1])
    return found


async def stored_moves(db: str, codes: list[str]) -> dict[str, tuple[int, int]]:
    """Each room's newest game and how many of its moves are stored."""
    import psycopg

    query = """
        SELECT g.code, g.id, (SELECT count(*) FROM moves m WHERE m.game = g.id)
        FROM games g
        WHERE g.code = ANY(%s) AND g.id = (SELECT max(id) FROM games newest WHERE newest.code = g.code)
    """
    async with await psycopg.AsyncConnection.connect(db) as connection:
        cursor = await connection.execute(query, (codes,))
        return {code: (int(game), int(count)) for code, game, count in await cursor.fetchall()}


async def kill_once(number: int, site: Any, people: dict[str, Person], args: argparse.Namespace) -> dict[str, Any]:
    """Kill the process that leads the most rooms, time its rooms' next computer moves, start it again."""
    held = await leases(site.redis.url())
    by_pid = {process.pid: process for process in site.processes}
    counts = {pid: sum(1 for holder in held.values() if holder == pid) for pid in by_pid}
    victim_pid = max(counts, key=lambda pid: (counts[pid], -site.processes.index(by_pid[pid])))
    victim = by_pid[victim_pid]
    rooms = sorted(code for code, holder in held.items() if holder == victim_pid and code in people)
    if not rooms:
        raise RuntimeError(f"kill {number}: no process holds a lease of any room ({len(held)} leases in Redis)")
    drops_before = {code: person.drops for code, person in people.items()}
    refused_before = sum(person.refused for person in people.values())
    killed = perf_counter()
    await asyncio.to_thread(victim.kill9)
    stored = await stored_moves(site.db, rooms)
    for code in rooms:
        person = people[code]
        game, count = stored.get(code, (0, 0))
        person.seen = None
        person.watch = (killed, game, count)
        person.look(0, perf_counter())  # a move after the kill may have come in already (not before it was stored)
    deadline = killed + args.timeout
    while perf_counter() < deadline and any(people[code].watch is not None for code in rooms):
        await asyncio.sleep(0.02)
    times = {code: people[code].seen for code in rooms}
    stuck = []
    if any(t is None for t in times.values()):
        now, held_now = perf_counter(), await leases(site.redis.url())
        names = {process.pid: process.name for process in site.processes}
        for code in (code for code, t in times.items() if t is None):
            holder = held_now.get(code)
            lease = "no lease" if holder is None else f"lease: {names.get(holder, f'pid {holder}')}"
            stuck.append(f"{people[code].describe(now)}; {lease}")
    for code in rooms:
        people[code].watch = None
    dropped = sum(1 for code, person in people.items() if person.drops > drops_before[code])
    refused = sum(person.refused for person in people.values()) - refused_before
    began = perf_counter()
    await asyncio.to_thread(victim.start)
    restart = perf_counter() - began
    seen = [t for t in times.values() if t is not None]
    outcome = {
        "kill": number,
        "victim": victim.name,
        "pid": victim_pid,
        "leases": {by_pid[pid].name: n for pid, n in counts.items()},
        "rooms": len(rooms),
        "clients_dropped": dropped,
        "reconnects_failed": refused,
        "seconds": times,
        "median_s": statistics.median(seen) if seen else None,
        "worst_s": max(seen) if seen else None,
        "never": [code for code, t in times.items() if t is None],
        "never_described": stuck,
        "restart_s": restart,
    }
    print(
        f"kill {number}: {victim.name} (pid {victim_pid}) led {len(rooms)} rooms, dropped {dropped} clients "
        f"({refused} failed reconnects); "
        f"next computer move median {_f(outcome['median_s'])} s, worst {_f(outcome['worst_s'])} s, "
        f"{len(outcome['never'])} never; restarted in {restart:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    for line in stuck[:5]:
        print(f"  never moved again: {line}", file=sys.stderr)
    return outcome


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


async def play(args: argparse.Namespace, report: dict[str, Any]) -> int:
    from tests.support.cluster_helpers import cluster

    with contextlib.ExitStack() as stack:
        print(f"starting {PROCESSES} processes, PostgreSQL, Redis and nginx ...", file=sys.stderr, flush=True)
        site = await asyncio.to_thread(stack.enter_context, cluster(PROCESSES, per_address=0, durable=True))
        try:
            return await _play_on(site, args, report)
        finally:
            await asyncio.to_thread(stack.close)


async def _play_on(site: Any, args: argparse.Namespace, report: dict[str, Any]) -> int:
    seats = [{"kind": "computer", "level": args.level}] * 3
    people: dict[str, Person] = {}
    for index in range(args.rooms):
        room = await create_room(site.url, name="Host", players=4, rounds=args.rounds, seats=seats, pace=args.pace)
        people[room["code"]] = Person(index, room["code"], room["token"], args.think, args.seed)
    url = site.url.replace("http://", "ws://")
    tasks = [asyncio.create_task(person.run(f"{url}/ws/{code}")) for code, person in people.items()]
    try:
        await asyncio.wait_for(asyncio.gather(*(p.connected.wait() for p in people.values())), 60)
        print(f"{args.rooms} rooms playing; {args.warmup:g} s warm-up ...", file=sys.stderr, flush=True)
        await asyncio.sleep(args.warmup)
        kills = []
        for number in range(1, args.kills + 1):
            kills.append(await kill_once(number, site, people, args))
            await asyncio.sleep(args.settle)
    finally:
        for person in people.values():
            person.stop()
            if person.ws is not None:
                await person.ws.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    times = [t for kill in kills for t in kill["seconds"].values() if t is not None]
    never = sum(len(kill["never"]) for kill in kills)
    errors: dict[str, int] = {}
    for person in people.values():
        for code, n in person.errors.items():
            errors[code] = errors.get(code, 0) + n
    summary = {key: (None if ms is None else ms / 1000) for key, ms in summary_ms(times).items()}
    worst = summary["max"]
    report.update(
        kills=kills,
        rooms_measured=len(times) + never,
        seconds=summary,
        never=never,
        errors=errors,
        target_s=args.target,
        target_met=worst is not None and worst <= args.target and never == 0,
    )
    print(table(kills, summary, never, errors, args.target))
    return 1 if never else 0


def table(
    kills: list[dict[str, Any]], summary: dict[str, float | None], never: int, errors: dict[str, int], target: float
) -> str:
    lines = [
        "| kill | victim | rooms it led | clients dropped | failed reconnects | median (s) | worst (s) | never "
        "| restart (s) |",
        "|--:|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for kill in kills:
        lines.append(
            f"| {kill['kill']} | {kill['victim']} | {kill['rooms']} | {kill['clients_dropped']} "
            f"| {kill['reconnects_failed']} "
            f"| {_f(kill['median_s'])} | {_f(kill['worst_s'])} | {len(kill['never'])} | {kill['restart_s']:.1f} |"
        )
    measured = sum(kill["rooms"] for kill in kills)
    worst = summary["max"]
    verdict = "met" if worst is not None and worst <= target and not never else "missed"
    lines += [
        "",
        f"kill -9 to the room's next computer move, {measured} rooms over {len(kills)} kills: "
        f"median {_f(summary['median'])} s, p95 {_f(summary['p95'])} s, worst {_f(worst)} s "
        f"(target: worst <= {target:g} s, {verdict}); never moved again: {never}",
        "error frames: " + (", ".join(f"{code} {n}" for code, n in sorted(errors.items())) or "0"),
    ]
    return "\n".join(lines)


def parse_think(text: str) -> tuple[float, float]:
    low, _, high = text.partition(",")
    pair = (float(low), float(high or low))
    if not 0 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError(f"--think {text!r}: LOW,HIGH seconds with 0 <= LOW <= HIGH")
    return pair


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=30, help="rooms of one person and three computers (30)")
    parser.add_argument("--kills", type=int, default=5, help="how many times a process is killed (5)")
    parser.add_argument("--level", default="easy", choices=("easy", "medium", "hard", "expert"))
    parser.add_argument("--pace", type=float, default=0.3, help="the rooms' pace, s a computer move (0.3)")
    parser.add_argument("--think", type=parse_think, default=(0.2, 0.4), help="the person's think time, LOW,HIGH s")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per match (2)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before the first kill (5)")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds of play after a restart (5)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a room may take to move again (30)")
    parser.add_argument("--target", type=float, default=5.0, help="the worst time aimed at, s (5)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", metavar="FILE", help="also write every figure and the settings")
    args = parser.parse_args(argv)
    if args.rooms < 1 or args.kills < 1:
        parser.error("need --rooms >= 1 and --kills >= 1")

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    report: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": sorted(os.sched_getaffinity(0)),
        "settings": {**vars(args), "think": list(args.think)},
    }
    try:
        status = asyncio.run(play(args, report))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
