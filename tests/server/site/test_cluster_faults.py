"""Faults of the three-process web server behind nginx: a process killed, PostgreSQL and Redis restarted, and two
clients of one seat racing one move through two processes.

People play rooms from different processes (each starts on a process of its own choosing and comes back
through nginx when dropped), computers play at a small pace. What the server acknowledged to anybody must
be in the final records, once, at its place; the records must replay.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
import redis
from websockets.exceptions import WebSocketException

from elferraus.server.client import RoomClient
from elferraus.server.storage.sqlite import BUSY_TIMEOUT
from tests.support.cluster_clients import (
    Connection,
    Table,
    Watcher,
    final_record,
    history,
    open_table,
    over,
    record_problems,
    running,
    seat_moves,
    seat_people,
)
from tests.support.cluster_helpers import Cluster, cluster
from tests.support.fault_helpers import Ledger, hidden
from tests.support.postgres_helpers import query
from tests.support.server_helpers import get, send_move

PACE = 0.1
"""The computers' pace: games move, and a lost driver shows as a gap many times longer."""
FAILOVER_LIMIT = 5.0
"""Seconds from ``kill -9`` of a process to the next computer move of each room (issue 15)."""
CATCH_UP_LIMIT = 5.0
"""Seconds after Redis is back by which every client has been told every move made while it was down."""
RESUME_LIMIT = 10.0
"""Seconds after PostgreSQL or Redis is back by which every room moves again (a computer retries at most
every 8 s)."""
OUTAGE = 1.5
"""Seconds Redis stays down."""
POSTGRES_OUTAGE = BUSY_TIMEOUT + 1.5
"""Seconds PostgreSQL stays down: longer than a call waits for a connection, so a move sent once it is down is
refused rather than held until it is back (either is right; the test must see the refusal)."""
GAME_LIMIT = 60.0
"""Seconds the rooms have to finish their games."""


@pytest.fixture
def site() -> Iterator[Cluster]:
    """Three processes on one PostgreSQL and one Redis, behind nginx; none may log an exception."""
    with cluster() as made:
        yield made
        failed = [process.name for process in made.processes if "Traceback" in process.log()]
        assert not failed, f"{', '.join(failed)} logged an exception:\n{_logs(made)}"


def stored_moves(db: str) -> dict[int, list[tuple[int, str]]]:
    """Every stored move, read from the database: game -> ``(n, text)`` in order of ``n``."""
    games: dict[int, list[tuple[int, str]]] = {}
    for game, number, text in query(db, "SELECT game, n, text FROM moves ORDER BY game, n"):
        games.setdefault(int(str(game)), []).append((int(str(number)), str(text)))
    return games


def stored_counts(db: str) -> dict[int, int]:
    """How many moves each game has stored."""
    return {game: len(moves) for game, moves in stored_moves(db).items()}


def storage_problems(db: str, records: dict[int, dict[str, Any]]) -> list[str]:
    """Where the rows of the moves table are not the records' moves: each move once, numbered without a gap."""
    problems = []
    rows = stored_moves(db)
    for game, record in records.items():
        numbers = [number for number, _text in rows.get(game, [])]
        if numbers != list(range(len(numbers))):
            problems.append(f"game {game}: moves stored as numbers {numbers}")
        texts = [text for _number, text in rows.get(game, [])]
        if texts != list(record["moves"]):
            problems.append(f"game {game}: stored {texts}, recorded {record['moves']}")
    return problems


async def until(check: Callable[[], bool], timeout: float, tasks: list[asyncio.Task[None]], what: str) -> float:
    """Wait until ``check()`` holds (a client's failure is raised at once); returns when it did."""
    deadline = time.monotonic() + timeout
    while not check():
        for task in tasks:
            if task.done():
                task.result()
        assert time.monotonic() < deadline, f"not within {timeout:g} s: {what}"
        await asyncio.sleep(0.01)
    return time.monotonic()


async def finish(tasks: list[asyncio.Task[None]], clients: list[Any], timeout: float = GAME_LIMIT) -> None:
    """Wait for every client to reach the end; the first failure is raised, a client still waiting is named."""
    done, pending = await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_EXCEPTION)
    for task in done:
        task.result()
    late = [
        f"{client.name} of room {client.code} on {client.base}"
        for client, t in zip(clients, tasks, strict=True)
        if t in pending
    ]
    assert not late, f"not at the end after {timeout:g} s: {late}"


async def check_records(site: Cluster, tables: list[Table], watchers: list[Watcher], ledger: Ledger) -> None:
    """Each room's game is over; its record replays and holds what its clients were told, the database holds
    each move once."""
    assert not ledger.conflicts, ledger.conflicts
    records = {}
    problems = []
    for table, watcher in zip(tables, watchers, strict=True):
        game = watcher.seen[-1].game
        assert game is not None, table.code
        assert watcher.seen[-1].status == "match_over", (table.code, watcher.seen[-1])
        records[game] = record = await final_record(site.url, game)
        problems += record_problems(game, record, ledger, table.persons)
        told = ledger.games[game]
        assert hidden(list(record["moves"])) == told, f"room {table.code}: the record is not the end its clients saw"
    problems += await asyncio.to_thread(storage_problems, site.db, records)
    assert not problems, "\n".join(problems)


def unapplied_news(site: Cluster) -> list[str]:
    """The log lines in which a process says it could not apply a change another process committed (it then
    reads the whole room again): with no fault of the database or of Redis, there must be none."""
    return [
        line for x in site.processes for line in x.log().splitlines() if "news from another server not applied" in line
    ]


def computer_move_after(table: Table, watcher: Watcher, stored: int, after: float) -> float | None:
    """When the first computer move numbered ``stored`` or later reached ``watcher`` (after ``after``)."""
    for at, index, text in watcher.arrivals():
        if index >= stored and int(text.split()[0]) in table.computers and at >= after:
            return at
    return None


def computer_turn_after(table: Table, watcher: Watcher, stored: int) -> bool:
    """Whether a computer's turn came at or after move ``stored``: the move numbered ``stored`` is a computer's,
    or a later turn ended (``pass``) before a computer's seat (the seats take turns in order)."""
    players = len(table.people) + len(table.computers)
    moves = [text.split() for _at, index, text in watcher.arrivals() if index >= stored]
    if moves and int(moves[0][0]) in table.computers:
        return True
    return any(move[1] == "pass" and (int(move[0]) + 1) % players in table.computers for move in moves)


# -- kill -9 --------------------------------------------------------------------------------


def lease_holders(site: Cluster, codes: list[str]) -> dict[str, int | None]:
    """Which process (its index) holds each room's lease: the bus's key ``elferraus:lease:CODE`` names the
    holder as ``host/pid/random``."""
    pids = {process.pid: index for index, process in enumerate(site.processes)}
    holders: dict[str, int | None] = {}
    with contextlib.closing(redis.Redis(port=site.redis.port, decode_responses=True)) as client:
        for code in codes:
            holder = client.get(f"elferraus:lease:{code}")
            parts = str(holder).split("/")
            holders[code] = pids.get(int(parts[1])) if holder and len(parts) == 3 and parts[1].isdigit() else None
    return holders


@pytest.mark.timeout(120)
def test_kill_9_of_a_process_its_people_come_back_through_nginx_and_its_rooms_computers_go_on(site: Cluster) -> None:
    p = [process.url for process in site.processes]
    layouts = [
        ({0: p[0], 2: p[1]}, {1: "easy", 3: "medium"}),
        ({0: p[0], 2: p[2]}, {1: "medium", 3: "easy"}),
        ({0: p[1], 1: p[2]}, {2: "easy", 3: "medium"}),
        ({0: p[2], 2: p[1]}, {1: "easy", 3: "medium"}),
    ]

    async def main() -> None:
        tables = [await open_table(people[0], people, computers, players=4, pace=PACE) for people, computers in layouts]
        codes = [table.code for table in tables]
        ledger = Ledger()
        persons = [x for i, t in enumerate(tables) for x in seat_people(t, site.url, ledger, seed=i)]
        async with running(*(x.play() for x in persons)) as tasks:
            moved = lambda: all(x.state and len(seat_moves(x.state)) >= 12 for x in persons)  # noqa: E731
            await until(moved, 30, tasks, "12 moves in every room")
            # The victim: the process that leads the most rooms (their computers wait for the lease to pass on).
            holders = await asyncio.to_thread(lease_holders, site, codes)
            assert all(holder is not None for holder in holders.values()), f"rooms without a lease: {holders}"
            victim_index = max(range(len(site.processes)), key=list(holders.values()).count)
            victim = site.processes[victim_index]
            led = [code for code, holder in holders.items() if holder == victim_index]
            # A spectator of each room on another process notes when each move reaches it.
            watching = [p[(victim_index + 1 + i % 2) % 3] for i in range(len(tables))]
            watchers = [Watcher(t.code, base, site.url, ledger) for t, base in zip(tables, watching, strict=True)]
            async with running(*(w.watch() for w in watchers)) as watching_tasks:
                await until(lambda: all(w.moves_known() >= 12 for w in watchers), 10, tasks, "spectators told")
                assert not any(over(w.state) for w in watchers if w.state), "a game ended before the kill"
                await asyncio.to_thread(victim.kill9)
                killed = time.monotonic()
                at_kill = await asyncio.to_thread(stored_counts, site.db)
                await finish([*tasks, *watching_tasks], [*persons, *watchers])

        dropped = [x for x in persons if x.connected[0][1] == victim.url]
        assert dropped, "nobody was connected to the killed process"
        for person in dropped:
            assert person.drops, f"{person.name} of room {person.code} on the killed process was never dropped"
            assert person.base == site.url
            assert any(ack.at > killed for ack in person.acks), f"{person.name} of {person.code} made no move after"
        gaps = {}
        for table, watcher in zip(tables, watchers, strict=True):
            game = watcher.seen[-1].game
            assert game is not None
            next_move = computer_move_after(table, watcher, at_kill.get(game, 0), killed)
            if next_move is not None:
                gaps[table.code] = next_move - killed
        failover = {code: gap for code, gap in gaps.items() if code in led}
        assert failover, f"no room the killed process led ({led}) had a computer move after the kill: {gaps}"
        worst = max(failover.values())
        print(
            f"\nkill -9 of process {victim_index}, which led rooms {led}: the next computer move of each room came "
            f"after {_seconds(gaps)}; worst of the rooms it led {worst:.2f} s"
        )
        assert max(gaps.values()) <= FAILOVER_LIMIT, f"a room's next computer move came too late after kill -9: {gaps}"
        await check_records(site, tables, watchers, ledger)

        # the killed process, started again, serves the finished rooms and a new game
        await asyncio.to_thread(victim.start)
        for table, watcher in zip(tables, watchers, strict=True):
            answer = await get(victim.url, f"/api/rooms/{table.code}")
            assert answer.status_code == 200, answer.text[:300]
            assert answer.json()["status"] == "match_over", answer.text[:300]
            again = Watcher(table.code, victim.url, victim.url, Ledger())
            await asyncio.wait_for(again.watch(), 10)
            assert again.seen[-1].moves == watcher.seen[-1].moves
        fresh = await open_table(victim.url, {0: victim.url}, {1: "easy"}, players=2, pace=0)
        fresh_ledger = Ledger()
        fresh_watcher = Watcher(fresh.code, p[(victim_index + 1) % 3], site.url, fresh_ledger)
        (host,) = seat_people(fresh, site.url, fresh_ledger, seed=99)
        async with running(fresh_watcher.watch(), host.play()) as tasks:
            await finish(tasks, [fresh_watcher, host])
        assert host.acks, "the new game's host made no move on the restarted process"
        assert not host.drops
        await check_records(site, [fresh], [fresh_watcher], fresh_ledger)
        unapplied = unapplied_news(site)
        assert not unapplied, f"a process did not apply a move another one had stored: {unapplied[:3]}"

    try:
        asyncio.run(main())
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n{_describe(site)}\n{_logs(site)}") from None


# -- PostgreSQL restarted -------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_postgres_restarted_under_load_moves_get_through_or_a_clear_error_none_lost_or_doubled(site: Cluster) -> None:
    p = [process.url for process in site.processes]
    layouts = [({0: p[r], 1: p[(r + 1) % 3]}, {2: "easy" if r % 2 else "medium"}) for r in range(3)]

    async def main() -> None:
        tables = [await open_table(people[0], people, computers, players=3, pace=PACE) for people, computers in layouts]
        ledger = Ledger()
        watchers = [Watcher(t.code, site.url, site.url, ledger) for t in tables]
        persons = [x for i, t in enumerate(tables) for x in seat_people(t, site.url, ledger, seed=10 + i)]
        async with running(*(w.watch() for w in watchers), *(x.play() for x in persons)) as tasks:
            await until(lambda: all(w.moves_known() >= 10 for w in watchers), 30, tasks, "10 moves in every room")
            # People wait at their turn, then some move as PostgreSQL stops, the others once it has stopped.
            for person in persons:
                person.gate.clear()
            await until(lambda: any(x.held for x in persons), 15, tasks, "a person's turn")
            await asyncio.sleep(0.3)
            held = [x for x in persons if x.held]
            stopping = asyncio.ensure_future(asyncio.to_thread(site.postgres.stop, "immediate"))
            for person in held[: len(held) // 2]:
                person.gate.set()
            await stopping
            stopped = time.monotonic()
            for person in persons:
                person.gate.set()
            await asyncio.sleep(POSTGRES_OUTAGE)
            await asyncio.to_thread(site.postgres.start)
            back = time.monotonic()
            await finish(tasks, [*watchers, *persons])

        refusals = [(x.code, x.seat, refusal) for x in persons for refusal in x.refusals]
        unclear = [r for r in refusals if r[2].code not in ("store_unavailable", "stale") or not r[2].message]
        assert not unclear, f"refusals other than store_unavailable and stale, or without words: {unclear}"
        during = [r for r in refusals if r[2].code == "store_unavailable"]
        assert during, f"no person's move was refused store_unavailable while PostgreSQL was down: {refusals}"
        resumed = {}
        for table, watcher in zip(tables, watchers, strict=True):
            moved = [at for at, _index, _text in watcher.arrivals() if at > back]
            assert moved, f"room {table.code} made no move after PostgreSQL came back"
            resumed[table.code] = moved[0] - back
        print(
            f"\nPostgreSQL down {back - stopped:.2f} s: {len(during)} moves refused store_unavailable, "
            f"{sum(len(x.acks) for x in persons)} acknowledged; rooms moved again after {_seconds(resumed)}"
        )
        assert max(resumed.values()) <= RESUME_LIMIT, f"rooms moved again only after {resumed}"
        await check_records(site, tables, watchers, ledger)

    try:
        asyncio.run(main())
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n{_describe(site)}\n{_logs(site)}") from None


# -- Redis restarted ------------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_redis_restarted_clients_on_every_process_catch_up_and_the_computers_play_on(site: Cluster) -> None:
    p = [process.url for process in site.processes]
    layouts = [
        ({0: p[0], 1: p[1]}, {2: "easy"}, 3),
        ({0: p[1], 1: p[2]}, {2: "medium"}, 3),
        ({0: p[2], 1: p[1]}, {}, 2),  # two people on two processes: each move must cross the bus
    ]

    async def main() -> None:
        tables = [await open_table(people[0], people, bots, players=n, pace=PACE) for people, bots, n in layouts]
        ledger = Ledger()
        watchers = {
            (t.code, i): Watcher(t.code, p[i], site.url, ledger, f"spectator on {i}") for t in tables for i in range(3)
        }
        persons = [x for i, t in enumerate(tables) for x in seat_people(t, site.url, ledger, seed=20 + i)]
        async with running(*(w.watch() for w in watchers.values()), *(x.play() for x in persons)) as tasks:
            known = lambda: all(w.moves_known() >= 10 for w in watchers.values())  # noqa: E731
            await until(known, 30, tasks, "10 moves in every room, told on every process")
            # a person waits at his turn, and moves once Redis is down
            for person in persons:
                person.gate.clear()
            await until(lambda: any(x.held for x in persons), 15, tasks, "a person's turn")
            before = await asyncio.to_thread(stored_counts, site.db)
            await asyncio.to_thread(site.redis.stop)
            down = time.monotonic()
            for person in persons:
                person.gate.set()
            await asyncio.sleep(OUTAGE)
            await asyncio.to_thread(site.redis.start)
            back = time.monotonic()
            truth = await asyncio.to_thread(stored_counts, site.db)
            await finish(tasks, [*watchers.values(), *persons])

        made = {game: truth[game] - before.get(game, 0) for game in truth}
        assert sum(made.values()) > 0, f"no move was made in {back - down:.2f} s while Redis was down: {made}"
        caught_up: dict[str, float] = {}
        late = []
        for (code, process), watcher in watchers.items():
            game = watcher.seen[-1].game
            assert game is not None
            at = watcher.first_seen(truth[game])
            if at is None or at - back > CATCH_UP_LIMIT:
                late.append(f"{watcher.name} of room {code} (told {truth[game]} moves at {at and at - back})")
            else:
                caught_up[f"{code}@{process}"] = max(0.0, at - back)
        assert not late, f"not told within {CATCH_UP_LIMIT:g} s after Redis came back: {late}"
        computers = {}
        for table in tables:
            if table.computers:
                watcher = watchers[table.code, 0]
                game = watcher.seen[-1].game
                assert game is not None
                at = computer_move_after(table, watcher, truth[game], back)
                if at is None and not computer_turn_after(table, watcher, truth[game]):
                    continue  # a person went out before a computer's turn came again: nothing to play on
                assert at is not None, f"room {table.code}'s computers made no move after Redis came back"
                computers[table.code] = at - back
        print(
            f"\nRedis down {back - down:.2f} s, {sum(made.values())} moves made meanwhile; clients told everything "
            f"after at most {max(caught_up.values()):.2f} s; next computer moves after {_seconds(computers)}"
        )
        assert max(computers.values()) <= RESUME_LIMIT, f"the computers played on only after {computers}"
        rooms = [watchers[t.code, 0] for t in tables]
        await check_records(site, tables, rooms, ledger)

    try:
        asyncio.run(main())
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n{_describe(site)}\n{_logs(site)}") from None


# -- one seat, two processes, one move ------------------------------------------------------

RACES = 6
"""Races of the seat's two clients: every other one with two different moves, the others with the same."""


async def _both_to_move(first: Connection, second: Connection) -> int | None:
    """Wait until both clients of the seat are told it chooses a move at the same point of the game; returns the
    number of moves before it (None: the game is over)."""

    def choosing(state: dict[str, Any]) -> bool:
        view = state["view"]
        return bool(state["room"]["status"] == "playing" and view and view["legal"] and view["making"] is None)

    while True:
        state = await first.until(lambda s: over(s) or choosing(s), 20)
        if over(state):
            return None
        count = len(seat_moves(state))
        other = await second.until(lambda s, count=count: over(s) or len(seat_moves(s)) >= count, 10)
        if len(seat_moves(other)) == count and choosing(other):
            return count
        await first.until(lambda s, count=count: len(seat_moves(s)) > count or over(s), 10)


async def _settle(clients: tuple[Connection, Connection], done: Callable[[], bool], timeout: float) -> None:
    """Read both clients until ``done()`` holds or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        for client in clients:
            with contextlib.suppress(TimeoutError):
                await client.receive(0.01)


async def _race(clients: tuple[Connection, Connection], count: int, kind: str) -> tuple[int, int, str, str]:
    """Both clients send a move at once, each at the seq it was told: two different moves (``kind``
    ``different``) or the same one (a lay if there is one, which could not be made twice). Of two different
    moves exactly one is stored and the other refused ``stale``; of the same move sent twice, the second is
    refused ``stale`` or, being the very move stored, confirmed (the store confirms a move it already holds,
    so that a commit heard as failed may be sent again). Either way both are told the one move at its place.
    Returns the game, the move's number, the move as told, and what happened."""
    first, second = clients
    assert first.state is not None
    assert second.state is not None
    legal = first.state["view"]["legal"]
    assert second.state["view"]["legal"] == legal
    lays = [move for move in legal if move not in ("draw", "pass")]
    moves = (legal[0], legal[-1]) if kind == "different" else (lays or legal)[:1] * 2
    before = (len(first.errors), len(second.errors))
    seqs = (first.state["seq"], second.state["seq"])
    await asyncio.gather(*(send_move(c, m, s) for c, m, s in zip(clients, moves, seqs, strict=True)))

    def refusals() -> list[dict[str, Any]]:
        return [e for c, n in zip(clients, before, strict=True) for e in c.errors[n:]]

    def told() -> bool:
        return all(c.state and len(seat_moves(c.state)) > count for c in clients)

    await _settle(clients, lambda: told() and (kind == "same" or bool(refusals())), 10)
    await _settle(clients, lambda: False, 0.5)  # a refusal still on its way comes now
    refused = [i for i, (c, n) in enumerate(zip(clients, before, strict=True)) if len(c.errors) > n]
    heard = [[_frame(text) for text in c.received[-4:]] for c in clients]
    what = f"race at move {count} ({kind} moves {moves}, seqs {seqs}): refusals {refusals()}; last frames {heard}"
    assert told(), f"{what}; a client was not told of a move within 10 s"
    if kind == "different" or refused:
        assert len(refused) == 1, f"{what}; exactly one client must be refused"
        assert [e["code"] for e in refusals()] == ["stale"], what
    stored = [seat_moves(c.state)[count] for c in clients if c.state]
    assert stored[0] == stored[1], f"{what}; the two clients were told different moves: {stored}"
    mover = 1 - refused[0] if refused else 0
    assert stored[0].split()[:2] == ["1", moves[mover].split()[0]], f"{what}; told {stored}"
    outcome = f"{kind}: {'one refused stale' if refused else 'both confirmed'}"
    return first.state["game"]["id"], count, stored[0], outcome


@pytest.mark.timeout(120)
def test_one_seat_on_two_processes_sending_one_move_at_once_exactly_one_is_stored(site: Cluster) -> None:
    p = [process.url for process in site.processes]

    async def main() -> None:
        table = await open_table(p[0], {0: p[0], 1: p[1]}, {2: "easy"}, players=3, pace=PACE)
        ledger = Ledger()
        watcher = Watcher(table.code, site.url, site.url, ledger)
        host, seat_one = seat_people(table, site.url, ledger, seed=30)
        token = table.people[1][0]
        races: list[tuple[int, int, str, str]] = []
        async with running(watcher.watch(), host.play()) as tasks:
            async with (
                Connection(p[1], table.code, token, ledger, lambda state: None) as first,
                Connection(p[2], table.code, token, ledger, lambda state: None) as second,
            ):
                while len(races) < RACES:
                    count = await _both_to_move(first, second)
                    if count is None:
                        break
                    assert first.state is not None
                    two = len(first.state["view"]["legal"]) >= 2
                    kind = "different" if len(races) % 2 == 0 and two else "same"
                    races.append(await _race((first, second), count, kind))
            kinds = {race[3].split(":")[0] for race in races}
            assert len(races) >= 4, races
            assert kinds == {"same", "different"}, races
            async with running(seat_one.play()) as rest:
                await finish([*tasks, *rest], [watcher, host, seat_one])

        await check_records(site, [table], [watcher], ledger)
        record = await final_record(site.url, races[0][0])
        for _game, count, move, kind in races:
            assert record["moves"][count] == move, f"{kind} race at move {count}: recorded {record['moves'][count]}"
        print(f"\n{len(races)} races of one seat through two processes, (game, move, stored, kind): {races}")
        unapplied = unapplied_news(site)
        assert not unapplied, f"a process did not apply a move another one had stored: {unapplied[:3]}"

    try:
        asyncio.run(main())
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n{_describe(site)}\n{_logs(site)}") from None


def _frame(text: str) -> str:
    """A received frame in a few words, for a failure's message."""
    frame = json.loads(text)
    if frame.get("type") != "state":
        return str(frame)
    return f"state seq {frame['seq']} moves {seat_moves(frame)[-2:]}"


def _seconds(values: dict[str, float]) -> str:
    return ", ".join(f"{key} {value:.2f} s" for key, value in values.items())


def _describe(site: Cluster) -> str:
    """Each room as the database has it and as a spectator of each running process is told it, for a failure's
    message (a process whose copy of a room is behind shows here)."""
    lines = []
    try:
        rows = query(
            site.db,
            "SELECT r.code, r.status, g.id, (SELECT COUNT(*) FROM moves m WHERE m.game = g.id) FROM rooms r "
            "LEFT JOIN games g ON g.code = r.code ORDER BY r.code, g.id",
        )
    except psycopg.Error as error:  # the database itself may be the fault
        return f"(the database could not be read: {error})"

    async def told(base: str, code: str) -> str:
        try:
            async with RoomClient(base, code, None) as spectator:
                state = await spectator.until(lambda s: True, 3)
        except (OSError, TimeoutError, WebSocketException) as error:
            return f"no state ({error!r})"
        game, moves = history(state)
        return f"{state['room']['status']}, game {game}, {len(moves)} moves"

    async def gather() -> None:
        for code, status, game, count in rows:
            lines.append(f"room {code}: stored {status}, game {game} with {count} moves")
            for process in site.processes:
                if process.running():
                    lines.append(f"    {process.name} tells a spectator: {await told(process.url, str(code))}")

    asyncio.run(gather())
    return "\n".join(lines)


def _logs(site: Cluster) -> str:
    """The end of each process's log, for a failure's message."""
    return "\n".join(f"-- {x.name} (port {x.port}) log:\n{x.log()[-3000:]}" for x in site.processes)
