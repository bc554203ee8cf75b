#!/usr/bin/env python3
"""What one database and one Redis carry: the parts of the capacity model in docs/scaling.md.

Each part runs on a fresh instance of its own (Debian's PostgreSQL and
Redis in a temporary folder, on loopback, as the tests start them):

- **commits**: ``--writers`` tasks, each storing the moves of its own game through
  the server's own ``PostgresStore.add_move`` (one transaction a move,
  committed to disk, ``synchronous_commit = on`` as deployed) for
  ``--seconds``: committed moves a second, and the latency of one commit
  (p50, p99).
- **notify**: the same fan-out done with PostgreSQL's ``NOTIFY``: one
  connection notifies as fast as it can, one listens; notifications a second
  delivered, and their latency (the alternative to Redis that issue 15 asks
  to weigh).
- **redis**: one process's bus (``RedisBus``) publishing events as the
  server does (its one sender, pipelined), two other processes' buses
  hearing them: events a second delivered to each listener, and the delay
  from publishing to hearing (p50, p99), at ``--rate`` events a second (the
  pace of a busy site) and flat out.

The numbers are this machine's (2 cores; the client and the server share
them): they say how far each part is from being the limit, not what a
dedicated database server does.

    python -m benchmarks.site.parts --json benchmarks/results/parts.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

from elferraus.server.site.redis import RedisBus
from elferraus.server.storage.postgres import PostgresStore
from tests.support.postgres_helpers import postgres_server
from tests.support.redis_helpers import redis_server

DEAL = {"format": "elferraus/1", "players": 4, "rules": "classic", "seed": 1}


def percentile(samples: list[float], share: float) -> float:
    """The ``share`` quantile of ``samples`` (nearest rank), in milliseconds."""
    ordered = sorted(samples)
    return 1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


async def commits(url: str, writers: int, seconds: float) -> dict[str, Any]:
    """Moves committed a second by ``writers`` concurrent rooms through the server's store."""
    store = await PostgresStore.open(url)
    latencies: list[float] = []
    try:
        games = []
        for writer in range(writers):
            code = f"B{writer:05d}"
            await store.add_room(code, {"players": 4}, [])
            games.append(await store.start_game(code, [], writer, 1, DEAL))
        stop = time.perf_counter() + seconds

        async def write(game: int) -> None:
            number = 0
            while time.perf_counter() < stop:
                began = time.perf_counter()
                await store.add_move(game, number, "draw")
                latencies.append(time.perf_counter() - began)
                number += 1

        began = time.perf_counter()
        await asyncio.gather(*(write(game) for game in games))
        elapsed = time.perf_counter() - began
    finally:
        await store.close()
    return {
        "writers": writers,
        "commits_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 0.5), 2),
        "p99_ms": round(percentile(latencies, 0.99), 2),
    }


async def notify(url: str, seconds: float) -> dict[str, Any]:
    """PostgreSQL's LISTEN/NOTIFY as the fan-out: notifications a second and their delay."""
    delays: list[float] = []
    async with (
        await psycopg.AsyncConnection.connect(url, autocommit=True) as listener,
        await psycopg.AsyncConnection.connect(url, autocommit=True) as sender,
    ):
        await listener.execute("LISTEN elferraus_bench")
        stop = time.perf_counter() + seconds
        sent = 0

        async def send() -> None:
            nonlocal sent
            while time.perf_counter() < stop:
                await sender.execute("SELECT pg_notify('elferraus_bench', %s)", (repr(time.perf_counter()),))
                sent += 1

        async def hear() -> None:
            async for note in listener.notifies(timeout=seconds + 2):
                delays.append(time.perf_counter() - float(note.payload))
                if len(delays) >= sent and time.perf_counter() >= stop:
                    return

        began = time.perf_counter()
        await asyncio.gather(send(), hear())
        elapsed = time.perf_counter() - began
    return {
        "sent": sent,
        "delivered_per_s": round(len(delays) / elapsed, 1),
        "p50_ms": round(percentile(delays, 0.5), 2),
        "p99_ms": round(percentile(delays, 0.99), 2),
    }


async def redis_fanout(url: str, seconds: float, rate: float | None) -> dict[str, Any]:
    """One bus publishing, two hearing: events a second delivered to each, and the delay (``rate``: paced)."""
    heard: list[list[float]] = [[], []]

    async def nothing() -> None:
        return None

    def hearer(index: int) -> Any:
        return lambda code, event: heard[index].append(time.perf_counter() - event["t"])

    publisher = await RedisBus.open(url)
    listeners = [await RedisBus.open(url) for _ in heard]
    for index, bus in enumerate(listeners):
        await bus.start(hearer(index), nothing)
    await publisher.start(lambda code, event: None, nothing)
    sent = 0
    began = time.perf_counter()
    stop = began + seconds
    while time.perf_counter() < stop:
        publisher.publish("PARTSX", {"k": "move", "t": time.perf_counter()})
        sent += 1
        if rate is not None:
            await asyncio.sleep(max(0.0, began + sent / rate - time.perf_counter()))
        elif sent % 200 == 0:
            # Flat out, but never more than a few batches ahead of what the listeners have heard: the rate is
            # what Redis and the buses carry, not how fast a queue in this process grows.
            while sent - min(len(h) for h in heard) > 2000:
                await asyncio.sleep(0.001)
    deadline = time.perf_counter() + 10
    while min(len(h) for h in heard) < sent and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    elapsed = time.perf_counter() - began
    for bus in (publisher, *listeners):
        await bus.close()
    delays = heard[0] + heard[1]
    return {
        "rate_asked": rate,
        "sent": sent,
        "delivered_per_s_each": round(min(len(h) for h in heard) / elapsed, 1),
        "lost": sent * 2 - len(delays),
        "p50_ms": round(percentile(delays, 0.5), 2),
        "p99_ms": round(percentile(delays, 0.99), 2),
    }


async def everything(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with postgres_server(durable=True) as server:
        results["commits"] = [await commits(server.new_database(), n, args.seconds) for n in args.writers]
        results["notify"] = await notify(server.new_database(), args.seconds)
    with redis_server() as redis:
        results["redis"] = [await redis_fanout(redis.url(), args.seconds, rate) for rate in (args.rate, None)]
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each part's length (default 10)")
    parser.add_argument(
        "--writers", type=lambda text: [int(n) for n in text.split(",")], default=[1, 12, 36], help="e.g. 1,12,36"
    )
    parser.add_argument("--rate", type=float, default=1000.0, help="paced events a second for Redis (default 1000)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = parser.parse_args(argv)
    results = asyncio.run(everything(args))
    for row in results["commits"]:
        print(
            f"PostgreSQL commits, {row['writers']:>3} writers: {row['commits_per_s']:>8.1f}/s  "
            f"p50 {row['p50_ms']} ms  p99 {row['p99_ms']} ms"
        )
    row = results["notify"]
    print(f"PostgreSQL NOTIFY:              {row['delivered_per_s']:>8.1f}/s  ", end="")
    print(f"p50 {row['p50_ms']} ms  p99 {row['p99_ms']} ms")
    for row in results["redis"]:
        asked = "flat out" if row["rate_asked"] is None else f"at {row['rate_asked']:g}/s"
        print(
            f"Redis pub/sub {asked:>12}: {row['delivered_per_s_each']:>8.1f}/s to each of 2  lost {row['lost']}  "
            f"p50 {row['p50_ms']} ms  p99 {row['p99_ms']} ms"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"settings": vars(args), **results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
